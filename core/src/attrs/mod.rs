//! Attribute keys: one constant per attribute the source documents name
//! (`docs/SOURCES.md`; plus
//! the job-level keys and directives Open MPI and ORTE exchange), with the
//! standard's value type, and a table to check infos against.
//!
//! Each constant drops the `PMIX_` prefix of the standard name and holds the
//! key string: [`EVENT_HDLR_FIRST`] is `"pmix.evfirst"`. The same line that
//! defines a constant adds its row to [`ATTRIBUTES`], so the two cannot drift.
//!
//! Key strings and names are those of the OpenPMIx 4.2.2 headers
//! (`pmix_common.h`, and `pmix_deprecated.h` for [`Origin::Deprecated`] rows);
//! `core/tests/attrs_table.rs` checks every row against them. A source
//! document that names an attribute the standard dropped or never defined
//! gets a row with a string of ours ([`Origin::Proposed`]); `docs/ATTRIBUTES.md` lists them all.
//!
//! # Type rule of [`check`]
//!
//! A key that is not in the table passes: user keys are free-form. A known key
//! passes when its value's [`Value::data_type`] is the row's [`Attr::ty`], or
//! one of [`Attr::alt`] (only where the standard declares "(varies)" or where
//! Open MPI/ORTE are observed to send another type, each noted in the row's
//! doc), or when the row is `PMIX_BOOL` and the value is `PMIX_UNDEF` (a flag
//! given without a value, as Open MPI passes `pmix.evprepend`). Nothing else
//! is converted: a `"yes"` string for a bool attribute is rejected. Arrays are
//! checked as `PMIX_DATA_ARRAY`, not element by element.
//!
//! # Examples
//! ```
//! use pmix_core::attrs::{self, Origin};
//! use pmix_core::{DataType, Info, Status};
//!
//! let row = attrs::lookup("pmix.evfirst").unwrap();
//! assert_eq!(row.name, "PMIX_EVENT_HDLR_FIRST");
//! assert_eq!(row.ty, DataType::BOOL);
//! assert_eq!(row.origin, Origin::Standard);
//!
//! assert!(attrs::check(&Info::new(attrs::EVENT_HDLR_FIRST, true).unwrap()).is_ok());
//! assert!(attrs::check(&Info::flag(attrs::EVENT_HDLR_FIRST).unwrap()).is_ok());
//! let e = attrs::check(&Info::new(attrs::EVENT_HDLR_FIRST, "yes").unwrap()).unwrap_err();
//! assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
//! ```
//!
//! # References
//! PMIx Standard v4.2, chapters "Reserved Keys", "Event Notification",
//! "Process Sets and Groups", "Tools"; `docs/ATTRIBUTES.md`.

use std::fmt;

use crate::codes::DataType;
use crate::info::Info;
use crate::status::{Error, Result, Status};
use crate::value::Value;

/// Where an attribute's name and key string come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Defined in the standard and in OpenPMIx 4.2.2's `pmix_common.h`.
    Standard,
    /// Still defined, but only in OpenPMIx 4.2.2's `pmix_deprecated.h`.
    Deprecated,
    /// Proposed by one of the source documents (`docs/SOURCES.md`) but
    /// absent from the 4.2.2 headers; the key string is pmix-rs's own and
    /// collides with no standard string.
    Proposed,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::Standard => "standard",
            Origin::Deprecated => "deprecated",
            Origin::Proposed => "proposed",
        })
    }
}

/// One row of the attribute table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The standard name, e.g. `"PMIX_EVENT_HDLR_FIRST"`.
    pub name: &'static str,
    /// The key string, e.g. `"pmix.evfirst"`.
    pub key: &'static str,
    /// The value type the standard declares (for job-level keys, the exact
    /// type Open MPI expects, see `CAPI.md` §6.4).
    pub ty: DataType,
    /// Other value types [`check`] accepts: the standard's "(varies)"
    /// alternatives, or a type Open MPI/ORTE are observed to send.
    pub alt: &'static [DataType],
    /// Where the name and string come from.
    pub origin: Origin,
    /// One line saying what the attribute does.
    pub doc: &'static str,
}

impl Attr {
    /// `true` when `value` is acceptable for this attribute under the rule of
    /// [`check`].
    pub fn accepts(&self, value: &Value) -> bool {
        let t = value.data_type();
        t == self.ty
            || self.alt.contains(&t)
            || (self.ty == DataType::BOOL && matches!(value, Value::Undef))
    }
}

/// A second name for the key of an [`Attr`] row: a renamed attribute whose old
/// name still circulates. [`lookup_name`] resolves it to the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The other name, e.g. `"PMIX_PROC_DATA"`.
    pub name: &'static str,
    /// The key string, the same as the row's.
    pub key: &'static str,
    /// The name of the row it stands for, e.g. `"PMIX_PROC_INFO_ARRAY"`.
    pub target: &'static str,
    /// Where this name comes from.
    pub origin: Origin,
}

/// The C type text of a data type, for doc comments.
macro_rules! c_type {
    (BOOL) => {
        "bool"
    };
    (STRING) => {
        "char*"
    };
    (SIZE) => {
        "size_t"
    };
    (PID) => {
        "pid_t"
    };
    (INT) => {
        "int"
    };
    (INT32) => {
        "int32_t"
    };
    (UINT16) => {
        "uint16_t"
    };
    (UINT32) => {
        "uint32_t"
    };
    (UINT64) => {
        "uint64_t"
    };
    (FLOAT) => {
        "float"
    };
    (TIME) => {
        "time_t"
    };
    (STATUS) => {
        "pmix_status_t"
    };
    (PROC) => {
        "pmix_proc_t*"
    };
    (PROC_RANK) => {
        "pmix_rank_t"
    };
    (BYTE_OBJECT) => {
        "pmix_byte_object_t"
    };
    (DATA_ARRAY) => {
        "pmix_data_array_t*"
    };
    (DATA_RANGE) => {
        "pmix_data_range_t"
    };
    (PERSIST) => {
        "pmix_persistence_t"
    };
    (SCOPE) => {
        "pmix_scope_t"
    };
    (PROC_STATE) => {
        "pmix_proc_state_t"
    };
    (ENVAR) => {
        "pmix_envar_t*"
    };
    (POINTER) => {
        "void*"
    };
}

/// The doc suffix for an origin.
macro_rules! origin_note {
    (Standard) => {
        ""
    };
    (Deprecated) => {
        " Deprecated: defined only in `pmix_deprecated.h`."
    };
    (Proposed) => {
        " Proposed by a source document, absent from the standard; the key string is pmix-rs's."
    };
}

/// Declares attributes: one constant and one table row per line.
///
/// `Origin NAME = "key": TYPE [| ALT]* => "one-line doc";` defines
/// `pub const NAME: &str = "key"` documented as "`PMIX_NAME` (c type): doc",
/// and `ROWS`, the area's table.
macro_rules! attributes {
    ($( $origin:ident $name:ident = $key:literal : $ty:ident $(| $alt:ident)* => $doc:literal; )*) => {
        $(
            #[doc = concat!("`PMIX_", stringify!($name), "` (", c_type!($ty), "): ", $doc, origin_note!($origin))]
            pub const $name: &str = $key;
        )*

        /// This area's rows of the attribute table.
        pub(super) const ROWS: &[super::Attr] = &[
            $(
                super::Attr {
                    name: concat!("PMIX_", stringify!($name)),
                    key: $key,
                    ty: crate::codes::DataType::$ty,
                    alt: &[$(crate::codes::DataType::$alt),*],
                    origin: super::Origin::$origin,
                    doc: $doc,
                },
            )*
        ];
    };
}

mod connect_groups;
mod control;
mod directives;
mod events;
mod init;
mod jobdata;
mod spawn;
mod tools;

pub use connect_groups::*;
pub use control::*;
pub use directives::*;
pub use events::*;
pub use init::*;
pub use jobdata::*;
pub use spawn::*;
pub use tools::*;

/// `PMIX_PROC_DATA`: the deprecated name of [`PROC_INFO_ARRAY`] (`"pmix.pdata"`),
/// the one ORTE registers per rank.
pub const PROC_DATA: &str = PROC_INFO_ARRAY;

/// `PMIX_EVENT_ORDER_PREPEND`: the event RFC's old name of
/// [`EVENT_HDLR_PREPEND`], which the RFC renamed; Open MPI's
/// `OPAL_PMIX_EVENT_ORDER_PREPEND` is the same `"pmix.evprepend"` string, so
/// this name keeps the standard string rather than getting one of ours.
pub const EVENT_ORDER_PREPEND: &str = EVENT_HDLR_PREPEND;

/// Every alias: other names of table rows.
pub static ALIASES: &[Alias] = &[
    Alias {
        name: "PMIX_PROC_DATA",
        key: PROC_DATA,
        target: "PMIX_PROC_INFO_ARRAY",
        origin: Origin::Deprecated,
    },
    Alias {
        name: "PMIX_EVENT_ORDER_PREPEND",
        key: EVENT_ORDER_PREPEND,
        target: "PMIX_EVENT_HDLR_PREPEND",
        origin: Origin::Proposed,
    },
];

const AREAS: &[&[Attr]] = &[
    events::ROWS,
    directives::ROWS,
    jobdata::ROWS,
    connect_groups::ROWS,
    init::ROWS,
    spawn::ROWS,
    tools::ROWS,
    control::ROWS,
];

const fn total_rows(areas: &[&[Attr]]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < areas.len() {
        n += areas[i].len();
        i += 1;
    }
    n
}

const N_ROWS: usize = total_rows(AREAS);

const fn flatten(areas: &[&[Attr]]) -> [Attr; N_ROWS] {
    let mut out = [events::ROWS[0]; N_ROWS];
    let mut k = 0;
    let mut i = 0;
    while i < areas.len() {
        let mut j = 0;
        while j < areas[i].len() {
            out[k] = areas[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

static FLAT: [Attr; N_ROWS] = flatten(AREAS);

/// Every attribute, by area: events, directives, job data, connect and
/// groups, initialisation, spawn, tools, control.
pub static ATTRIBUTES: &[Attr] = &FLAT;

/// The row of the attribute whose key string is `key`.
///
/// # Examples
/// ```
/// use pmix_core::{attrs, DataType};
/// assert_eq!(attrs::lookup("pmix.lrank").unwrap().ty, DataType::UINT16);
/// assert!(attrs::lookup("btl.tcp.4.1").is_none());
/// ```
pub fn lookup(key: &str) -> Option<&'static Attr> {
    ATTRIBUTES.iter().find(|a| a.key == key)
}

/// The row of the attribute named `name` (`"PMIX_..."`), following
/// [`ALIASES`].
///
/// # Examples
/// ```
/// use pmix_core::attrs;
/// assert_eq!(attrs::lookup_name("PMIX_JOB_SIZE").unwrap().key, "pmix.job.size");
/// assert_eq!(attrs::lookup_name("PMIX_PROC_DATA").unwrap().name, "PMIX_PROC_INFO_ARRAY");
/// ```
pub fn lookup_name(name: &str) -> Option<&'static Attr> {
    let name = ALIASES
        .iter()
        .find(|a| a.name == name)
        .map_or(name, |a| a.target);
    ATTRIBUTES.iter().find(|a| a.name == name)
}

/// Checks one info against the table (see the [module rule](self)).
///
/// # Errors
/// `PMIX_ERR_TYPE_MISMATCH` when the key is a known attribute and the value
/// has a type the attribute does not take; the context names both, e.g.
/// "PMIX_EVENT_HDLR_FIRST (pmix.evfirst) takes a PMIX_BOOL, got PMIX_STRING".
pub fn check(info: &Info) -> Result<()> {
    let Some(attr) = lookup(info.key.as_str()) else {
        return Ok(());
    };
    if attr.accepts(&info.value) {
        return Ok(());
    }
    let mut want = attr.ty.to_string();
    for t in attr.alt {
        want.push_str(" or ");
        want.push_str(&t.to_string());
    }
    Err(Error::with_context(
        Status::ERR_TYPE_MISMATCH,
        format!(
            "{} ({}) takes a {want}, got {}",
            attr.name,
            attr.key,
            info.value.data_type()
        ),
    ))
}

/// Checks every info of a list; the first bad one is the error.
///
/// # Errors
/// As [`check`].
pub fn check_all(infos: &[Info]) -> Result<()> {
    infos.iter().try_for_each(check)
}

#[cfg(test)]
mod tests;
