//! `Value`: one datum of any standard PMIx data type (`pmix_value_t`), and
//! the compound types it can hold.
//!
//! Typed accessors never panic: asking for the wrong type is
//! `PMIX_ERR_TYPE_MISMATCH`.

use crate::codes::{DataRange, DataType, InfoFlags, JobState, Persistence, ProcState, Scope};
use crate::info::Info;
use crate::proc::{Nspace, Proc, Rank};
use crate::status::{Error, Result, Status};

mod reuse;
pub use reuse::assign_infos;

/// `struct timeval`: seconds and microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Timeval {
    /// Seconds.
    pub sec: i64,
    /// Microseconds.
    pub usec: i64,
}

/// An environment-variable directive (`pmix_envar_t`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
#[doc(alias = "pmix_envar_t")]
pub struct Envar {
    /// The variable's name.
    pub envar: String,
    /// The value to set, prepend or append.
    pub value: String,
    /// The separator used when prepending or appending (e.g. `b':'`).
    pub separator: u8,
}

/// What the RM knows about one process (`pmix_proc_info_t`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
#[doc(alias = "pmix_proc_info_t")]
pub struct ProcInfo {
    /// The process.
    pub proc: Proc,
    /// The host it runs on.
    pub hostname: String,
    /// Its executable.
    pub executable_name: String,
    /// Its pid.
    pub pid: i32,
    /// Its exit code, when terminated.
    pub exit_code: i32,
    /// Its state.
    pub state: ProcState,
}

/// One application of a spawn request (`pmix_app_t`).
#[derive(Clone, Debug, PartialEq, Default)]
#[doc(alias = "pmix_app_t")]
pub struct App {
    /// The executable.
    pub cmd: String,
    /// Its argv (argv\[0\] included).
    pub argv: Vec<String>,
    /// `NAME=VALUE` strings added to its environment.
    pub env: Vec<String>,
    /// Its working directory (empty: inherit).
    pub cwd: String,
    /// How many processes to start.
    pub maxprocs: i32,
    /// Directives for this application.
    pub info: Vec<Info>,
}

impl App {
    /// Checks what a spawn request's apps must be before any host sees
    /// them: at least one app, each with a command and a `maxprocs` that
    /// is not negative. A `maxprocs` of 0 leaves the count to the host
    /// (a mapping directive such as `PMIX_MAPBY` `ppr:1:node`, or a
    /// debugger-daemon placement); a host that cannot decide refuses it.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` naming the first problem.
    pub fn check_spawn(apps: &[App]) -> Result<()> {
        if apps.is_empty() {
            return Err(Error::bad_param("spawn: no application given"));
        }
        for (i, a) in apps.iter().enumerate() {
            if a.cmd.is_empty() {
                return Err(Error::bad_param(format!("spawn: app {i} has no command")));
            }
            if a.maxprocs < 0 {
                return Err(Error::bad_param(format!(
                    "spawn: app {i} ({}) asks for {} processes",
                    a.cmd, a.maxprocs
                )));
            }
        }
        Ok(())
    }
}

/// One query (`pmix_query_t`): keys to look up, with qualifiers.
#[derive(Clone, Debug, PartialEq, Default)]
#[doc(alias = "pmix_query_t")]
pub struct Query {
    /// The keys asked for (e.g. `pmix.qry.ns`).
    pub keys: Vec<String>,
    /// Qualifiers restricting the answer.
    pub qualifiers: Vec<Info>,
}

/// An array of values of one type (`pmix_data_array_t`).
///
/// Every element has the array's element type; [`DataArray::new`] checks it.
/// An array of infos holds `Value::Info` elements and has type `PMIX_INFO`.
#[derive(Clone, Debug, PartialEq)]
#[doc(alias = "pmix_data_array_t")]
pub struct DataArray {
    elem_type: DataType,
    items: Vec<Value>,
}

impl DataArray {
    /// Builds an array, checking that every element has `elem_type` (any
    /// type for `PMIX_VALUE`: an array of values).
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` when an element has another type;
    /// `PMIX_ERR_BAD_PARAM` for the element type `PMIX_UNDEF` (elements
    /// without content cannot be counted from the bytes that carry them).
    pub fn new(elem_type: DataType, items: Vec<Value>) -> Result<Self> {
        if elem_type == DataType::UNDEF {
            return Err(Error::bad_param(
                "a data array cannot have element type PMIX_UNDEF",
            ));
        }
        // `PMIX_VALUE`: an array of values of any types (each carries its
        // own type, on the wire as in C's `pmix_value_t`)
        if let Some(bad) = items
            .iter()
            .find(|v| elem_type != DataType::VALUE && v.data_type() != elem_type)
        {
            return Err(Error::with_context(
                Status::ERR_TYPE_MISMATCH,
                format!("data array of {elem_type} holds a {}", bad.data_type()),
            ));
        }
        Ok(DataArray { elem_type, items })
    }

    /// An array of infos (type `PMIX_INFO`).
    pub fn from_infos(infos: Vec<Info>) -> Self {
        DataArray {
            elem_type: DataType::INFO,
            items: infos
                .into_iter()
                .map(|i| Value::Info(Box::new(i)))
                .collect(),
        }
    }

    /// An array of procs (type `PMIX_PROC`).
    pub fn from_procs(procs: Vec<Proc>) -> Self {
        DataArray {
            elem_type: DataType::PROC,
            items: procs.into_iter().map(Value::Proc).collect(),
        }
    }

    /// The element type.
    pub fn elem_type(&self) -> DataType {
        self.elem_type
    }

    /// The elements.
    pub fn items(&self) -> &[Value] {
        &self.items
    }

    /// Takes the elements out.
    pub fn into_items(self) -> Vec<Value> {
        self.items
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The elements as infos.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` unless the element type is `PMIX_INFO`.
    pub fn infos(&self) -> Result<Vec<&Info>> {
        self.items.iter().map(|v| v.as_info()).collect()
    }

    /// The elements as procs.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` unless the element type is `PMIX_PROC`.
    pub fn procs(&self) -> Result<Vec<&Proc>> {
        self.items.iter().map(|v| v.as_proc()).collect()
    }
}

/// One datum of a standard PMIx data type (`pmix_value_t`).
///
/// # Examples
/// ```
/// use pmix_core::{DataType, Status, Value};
/// let v = Value::Uint32(4);
/// assert_eq!(v.data_type(), DataType::UINT32);
/// assert_eq!(v.as_u32().unwrap(), 4);
/// assert_eq!(v.as_str().unwrap_err().status(), Status::ERR_TYPE_MISMATCH);
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
#[doc(alias = "pmix_value_t")]
#[allow(missing_docs)] // each variant is the standard type of the same name
pub enum Value {
    /// `PMIX_UNDEF`: no value (a flag attribute given without a value).
    #[default]
    Undef,
    Bool(bool),
    Byte(u8),
    String(String),
    Size(u64),
    Pid(i32),
    Int(i32),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Uint(u32),
    Uint8(u8),
    Uint16(u16),
    Uint32(u32),
    Uint64(u64),
    Float(f32),
    Double(f64),
    Timeval(Timeval),
    /// `time_t` seconds.
    Time(i64),
    Status(Status),
    Proc(Proc),
    /// `PMIX_PROC_RANK`.
    Rank(Rank),
    /// `PMIX_PROC_NSPACE`.
    Nspace(Nspace),
    ByteObject(Vec<u8>),
    CompressedString(Vec<u8>),
    CompressedByteObject(Vec<u8>),
    Regex(Vec<u8>),
    Persistence(Persistence),
    Scope(Scope),
    DataRange(DataRange),
    ProcState(ProcState),
    JobState(JobState),
    InfoDirectives(InfoFlags),
    DataType(DataType),
    ProcInfo(Box<ProcInfo>),
    DataArray(Box<DataArray>),
    Envar(Envar),
    App(Box<App>),
    Query(Box<Query>),
    /// `PMIX_INFO`: only as an element of a data array.
    Info(Box<Info>),
    /// `PMIX_IOF_CHANNEL` bit set.
    IofChannel(u16),
    /// `PMIX_ALLOC_DIRECTIVE`.
    AllocDirective(u8),
    /// `PMIX_LINK_STATE`.
    LinkState(u8),
    /// `PMIX_LOCTYPE` (`pmix_locality_t`).
    Locality(u16),
    /// `PMIX_DEVTYPE` (`pmix_device_type_t`).
    DevType(u64),
}

fn mismatch(want: &str, got: DataType) -> Error {
    Error::with_context(
        Status::ERR_TYPE_MISMATCH,
        format!("expected {want}, the value is {got}"),
    )
}

macro_rules! accessor {
    ($(#[$m:meta])* $fn:ident, $variant:ident, $ty:ty, $want:literal) => {
        $(#[$m])*
        ///
        /// # Errors
        /// `PMIX_ERR_TYPE_MISMATCH` for a value of another type.
        pub fn $fn(&self) -> Result<$ty> {
            match self {
                Value::$variant(v) => Ok(v.clone()),
                other => Err(mismatch($want, other.data_type())),
            }
        }
    };
}

impl Value {
    /// The standard data type tag of this value.
    pub fn data_type(&self) -> DataType {
        use Value as V;
        match self {
            V::Undef => DataType::UNDEF,
            V::Bool(_) => DataType::BOOL,
            V::Byte(_) => DataType::BYTE,
            V::String(_) => DataType::STRING,
            V::Size(_) => DataType::SIZE,
            V::Pid(_) => DataType::PID,
            V::Int(_) => DataType::INT,
            V::Int8(_) => DataType::INT8,
            V::Int16(_) => DataType::INT16,
            V::Int32(_) => DataType::INT32,
            V::Int64(_) => DataType::INT64,
            V::Uint(_) => DataType::UINT,
            V::Uint8(_) => DataType::UINT8,
            V::Uint16(_) => DataType::UINT16,
            V::Uint32(_) => DataType::UINT32,
            V::Uint64(_) => DataType::UINT64,
            V::Float(_) => DataType::FLOAT,
            V::Double(_) => DataType::DOUBLE,
            V::Timeval(_) => DataType::TIMEVAL,
            V::Time(_) => DataType::TIME,
            V::Status(_) => DataType::STATUS,
            V::Proc(_) => DataType::PROC,
            V::Rank(_) => DataType::PROC_RANK,
            V::Nspace(_) => DataType::PROC_NSPACE,
            V::ByteObject(_) => DataType::BYTE_OBJECT,
            V::CompressedString(_) => DataType::COMPRESSED_STRING,
            V::CompressedByteObject(_) => DataType::COMPRESSED_BYTE_OBJECT,
            V::Regex(_) => DataType::REGEX,
            V::Persistence(_) => DataType::PERSIST,
            V::Scope(_) => DataType::SCOPE,
            V::DataRange(_) => DataType::DATA_RANGE,
            V::ProcState(_) => DataType::PROC_STATE,
            V::JobState(_) => DataType::JOB_STATE,
            V::InfoDirectives(_) => DataType::INFO_DIRECTIVES,
            V::DataType(_) => DataType::DATA_TYPE,
            V::ProcInfo(_) => DataType::PROC_INFO,
            V::DataArray(_) => DataType::DATA_ARRAY,
            V::Envar(_) => DataType::ENVAR,
            V::App(_) => DataType::APP,
            V::Query(_) => DataType::QUERY,
            V::Info(_) => DataType::INFO,
            V::IofChannel(_) => DataType::IOF_CHANNEL,
            V::AllocDirective(_) => DataType::ALLOC_DIRECTIVE,
            V::LinkState(_) => DataType::LINK_STATE,
            V::Locality(_) => DataType::LOCTYPE,
            V::DevType(_) => DataType::DEVTYPE,
        }
    }

    /// A string value.
    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    accessor!(
        /// The `PMIX_BOOL` value.
        as_bool, Bool, bool, "PMIX_BOOL");
    accessor!(
        /// The `PMIX_UINT8` value.
        as_u8, Uint8, u8, "PMIX_UINT8");
    accessor!(
        /// The `PMIX_UINT16` value.
        as_u16, Uint16, u16, "PMIX_UINT16");
    accessor!(
        /// The `PMIX_UINT32` value.
        as_u32, Uint32, u32, "PMIX_UINT32");
    accessor!(
        /// The `PMIX_UINT64` value.
        as_u64, Uint64, u64, "PMIX_UINT64");
    accessor!(
        /// The `PMIX_INT` value.
        as_int, Int, i32, "PMIX_INT");
    accessor!(
        /// The `PMIX_INT32` value.
        as_i32, Int32, i32, "PMIX_INT32");
    accessor!(
        /// The `PMIX_SIZE` value.
        as_size, Size, u64, "PMIX_SIZE");
    accessor!(
        /// The `PMIX_PID` value.
        as_pid, Pid, i32, "PMIX_PID");
    accessor!(
        /// The `PMIX_DOUBLE` value.
        as_f64, Double, f64, "PMIX_DOUBLE");
    accessor!(
        /// The `PMIX_STATUS` value.
        as_status, Status, Status, "PMIX_STATUS");
    accessor!(
        /// The `PMIX_PROC_RANK` value.
        as_rank, Rank, Rank, "PMIX_PROC_RANK");
    accessor!(
        /// The `PMIX_DATA_RANGE` value.
        as_data_range, DataRange, DataRange, "PMIX_DATA_RANGE");
    accessor!(
        /// The `PMIX_SCOPE` value.
        as_scope, Scope, Scope, "PMIX_SCOPE");
    accessor!(
        /// The `PMIX_PERSIST` value.
        as_persistence, Persistence, Persistence, "PMIX_PERSIST");
    accessor!(
        /// The `PMIX_PROC_STATE` value.
        as_proc_state, ProcState, ProcState, "PMIX_PROC_STATE");

    /// The `PMIX_STRING` value.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for a value of another type.
    pub fn as_str(&self) -> Result<&str> {
        match self {
            Value::String(s) => Ok(s),
            other => Err(mismatch("PMIX_STRING", other.data_type())),
        }
    }

    /// The `PMIX_PROC` value.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for a value of another type.
    pub fn as_proc(&self) -> Result<&Proc> {
        match self {
            Value::Proc(p) => Ok(p),
            other => Err(mismatch("PMIX_PROC", other.data_type())),
        }
    }

    /// The bytes of a `PMIX_BYTE_OBJECT` (or a compressed/regex blob).
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for a value of another type.
    pub fn as_bytes(&self) -> Result<&[u8]> {
        match self {
            Value::ByteObject(b)
            | Value::CompressedString(b)
            | Value::CompressedByteObject(b)
            | Value::Regex(b) => Ok(b),
            other => Err(mismatch("PMIX_BYTE_OBJECT", other.data_type())),
        }
    }

    /// The `PMIX_DATA_ARRAY` value.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for a value of another type.
    pub fn as_data_array(&self) -> Result<&DataArray> {
        match self {
            Value::DataArray(a) => Ok(a),
            other => Err(mismatch("PMIX_DATA_ARRAY", other.data_type())),
        }
    }

    /// The `PMIX_INFO` element of a data array.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for a value of another type.
    pub fn as_info(&self) -> Result<&Info> {
        match self {
            Value::Info(i) => Ok(i),
            other => Err(mismatch("PMIX_INFO", other.data_type())),
        }
    }

    /// The infos of a `PMIX_DATA_ARRAY` of `PMIX_INFO`.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for any other value.
    pub fn as_info_array(&self) -> Result<Vec<&Info>> {
        self.as_data_array()?.infos()
    }

    /// Any integer-typed value converted to `u64`, when it fits.
    ///
    /// Integer types are `BYTE`, `SIZE`, `PID`, `INT*`, `UINT*`, `PROC_RANK`.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for a non-integer value;
    /// `PMIX_ERR_VALUE_OUT_OF_BOUNDS` for a negative one.
    pub fn to_u64(&self) -> Result<u64> {
        let v = self.to_i128()?;
        u64::try_from(v).map_err(|_| {
            Error::with_context(Status::ERR_VALUE_OUT_OF_BOUNDS, format!("{v} is not a u64"))
        })
    }

    /// Any integer-typed value converted to `i64`, when it fits.
    ///
    /// # Errors
    /// As [`Value::to_u64`].
    pub fn to_i64(&self) -> Result<i64> {
        let v = self.to_i128()?;
        i64::try_from(v).map_err(|_| {
            Error::with_context(
                Status::ERR_VALUE_OUT_OF_BOUNDS,
                format!("{v} is not an i64"),
            )
        })
    }

    fn to_i128(&self) -> Result<i128> {
        use Value as V;
        Ok(match *self {
            V::Byte(x) | V::Uint8(x) => x.into(),
            V::Size(x) | V::Uint64(x) => x.into(),
            V::Pid(x) | V::Int(x) | V::Int32(x) => x.into(),
            V::Int8(x) => x.into(),
            V::Int16(x) => x.into(),
            V::Int64(x) => x.into(),
            V::Uint(x) | V::Uint32(x) => x.into(),
            V::Uint16(x) => x.into(),
            V::Rank(r) => r.0.into(),
            ref other => return Err(mismatch("an integer type", other.data_type())),
        })
    }

    /// The standard's truth test for flag attributes (`PMIX_INFO_TRUE`):
    /// `PMIX_UNDEF` is true (a flag given without a value), a `PMIX_BOOL` is
    /// its value, a string is true when it reads `true`, `yes` or a non-zero
    /// number.
    ///
    /// # Errors
    /// `PMIX_ERR_TYPE_MISMATCH` for any other type.
    pub fn is_true(&self) -> Result<bool> {
        match self {
            Value::Undef => Ok(true),
            Value::Bool(b) => Ok(*b),
            Value::String(s) => {
                let s = s.trim();
                Ok(s.eq_ignore_ascii_case("true")
                    || s.eq_ignore_ascii_case("yes")
                    || s.parse::<i64>().map(|n| n != 0).unwrap_or(false))
            }
            other => Err(mismatch("PMIX_BOOL", other.data_type())),
        }
    }
}

macro_rules! from_impl {
    ($($t:ty => $v:ident),* $(,)?) => {
        $(impl From<$t> for Value {
            fn from(x: $t) -> Value {
                Value::$v(x)
            }
        })*
    };
}

from_impl!(
    bool => Bool, String => String, i8 => Int8, i16 => Int16, i32 => Int32,
    i64 => Int64, u8 => Uint8, u16 => Uint16, u32 => Uint32, u64 => Uint64,
    f32 => Float, f64 => Double, Status => Status, Proc => Proc, Rank => Rank,
    Nspace => Nspace, DataRange => DataRange, Scope => Scope,
    Persistence => Persistence, ProcState => ProcState, Envar => Envar,
    Timeval => Timeval,
);

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<DataArray> for Value {
    fn from(a: DataArray) -> Value {
        Value::DataArray(Box::new(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_check_the_type() {
        assert_eq!(Value::Uint16(7).as_u16().unwrap(), 7);
        let e = Value::Uint32(7).as_u16().unwrap_err();
        assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
        assert!(e.to_string().contains("PMIX_UINT32"));
        assert_eq!(Value::from("x").as_str().unwrap(), "x");
        assert!(Value::Bool(true).as_str().is_err());
    }

    #[test]
    fn integer_conversion_checks_bounds() {
        assert_eq!(Value::Uint16(9).to_u64().unwrap(), 9);
        assert_eq!(Value::Int8(-1).to_i64().unwrap(), -1);
        assert_eq!(
            Value::Int8(-1).to_u64().unwrap_err().status(),
            Status::ERR_VALUE_OUT_OF_BOUNDS
        );
        assert!(Value::from("1").to_u64().is_err());
    }

    #[test]
    fn truth_follows_the_standard() {
        assert!(Value::Undef.is_true().unwrap());
        assert!(!Value::Bool(false).is_true().unwrap());
        assert!(Value::from("yes").is_true().unwrap());
        assert!(Value::from("1").is_true().unwrap());
        assert!(!Value::from("no").is_true().unwrap());
        assert!(Value::Uint8(1).is_true().is_err());
    }

    #[test]
    fn data_array_checks_element_types() {
        assert!(DataArray::new(DataType::UINT32, vec![Value::Uint32(1)]).is_ok());
        let e = DataArray::new(DataType::UINT32, vec![Value::Uint16(1)]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
        let infos = DataArray::from_infos(vec![Info::new("a", 1u32).unwrap()]);
        assert_eq!(infos.infos().unwrap()[0].key, "a");
        assert!(infos.procs().is_err());
    }

    #[test]
    fn every_variant_has_a_known_type() {
        for v in [
            Value::Undef,
            Value::Locality(1),
            Value::DevType(2),
            Value::Regex(vec![]),
            Value::Info(Box::new(Info::new("k", Value::Undef).unwrap())),
        ] {
            assert!(v.data_type().is_known(), "{v:?}");
        }
    }
}
