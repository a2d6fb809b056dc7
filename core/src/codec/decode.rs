//! Decoding side of the codec: reads untrusted bytes, never panics.

use super::MAX_DEPTH;
use crate::codes::{DataRange, DataType, InfoFlags, JobState, Persistence, ProcState, Scope};
use crate::value::{App, DataArray, Envar, ProcInfo, Query, Timeval};
use crate::{Error, Info, Key, Nspace, Proc, Rank, Result, Status, Value};

mod in_place;
pub use in_place::{FreshNames, NameSource};

/// Reads values, infos and procs from a byte slice written by
/// [`Encoder`](super::Encoder).
///
/// Every read is bounds-checked; a count is compared with the bytes left
/// before anything is allocated.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: usize,
}

fn short(what: &str) -> Error {
    Error::with_context(
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
        format!("truncated input reading {what}"),
    )
}

fn bad(msg: impl Into<String>) -> Error {
    Error::with_context(Status::ERR_UNPACK_FAILURE, msg)
}

impl<'a> Decoder<'a> {
    /// A decoder over `buf`, positioned at its start.
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder {
            buf,
            pos: 0,
            depth: 0,
        }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// `true` when every byte was read.
    pub fn is_at_end(&self) -> bool {
        self.remaining() == 0
    }

    /// The current position.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Fails unless every byte was read.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` naming the number of trailing bytes.
    pub fn expect_end(&self) -> Result<()> {
        if self.is_at_end() {
            Ok(())
        } else {
            Err(bad(format!("{} trailing bytes", self.remaining())))
        }
    }

    /// Takes `n` raw bytes.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` when fewer are left.
    pub fn get_raw(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(short("raw bytes"));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.get_raw(N).map_err(|_| short(what))?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    /// Reads one byte.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>("u8")?[0])
    }
    /// Reads a little-endian u16.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array("u16")?))
    }
    /// Reads a little-endian u32.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array("u32")?))
    }
    /// Reads a little-endian u64.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array("u64")?))
    }
    /// Reads a little-endian i32.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array("i32")?))
    }
    /// Reads a little-endian i64.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array("i64")?))
    }

    /// Reads a u32 count of items that each take at least `min_size` bytes
    /// (at least 1 is assumed), refusing a count the remaining input cannot
    /// hold.
    pub fn get_count(&mut self, what: &str, min_size: usize) -> Result<usize> {
        let n = self.get_u32()? as usize;
        let need = n.saturating_mul(min_size.max(1));
        if need > self.remaining() {
            return Err(bad(format!(
                "{what} count {n} needs at least {need} bytes, {} left",
                self.remaining()
            )));
        }
        Ok(n)
    }

    /// Reads a u32-length-prefixed byte string, borrowed.
    ///
    /// # Errors
    /// Truncated input.
    pub fn get_bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.get_u32()? as usize;
        self.get_raw(n).map_err(|_| short("byte string"))
    }

    /// Reads a u32-length-prefixed UTF-8 string, borrowed.
    ///
    /// # Errors
    /// Truncated input, or `PMIX_ERR_UNPACK_FAILURE` for invalid UTF-8.
    pub fn get_str(&mut self) -> Result<&'a str> {
        let b = self.get_bytes()?;
        std::str::from_utf8(b).map_err(|_| bad("string is not valid UTF-8"))
    }

    fn get_string(&mut self) -> Result<String> {
        self.get_str().map(str::to_owned)
    }

    fn get_strings(&mut self) -> Result<Vec<String>> {
        let n = self.get_count("string list", 4)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.get_string()?);
        }
        Ok(v)
    }

    /// Reads a proc.
    ///
    /// # Errors
    /// Truncated input, or `PMIX_ERR_UNPACK_FAILURE` for an invalid
    /// namespace.
    pub fn get_proc(&mut self) -> Result<Proc> {
        let ns = self.get_str()?;
        let nspace = Nspace::new(ns).map_err(|e| bad(format!("bad nspace: {e}")))?;
        let rank = Rank(self.get_u32()?);
        Ok(Proc { nspace, rank })
    }

    /// Reads a count-prefixed list of procs.
    ///
    /// # Errors
    /// As [`Decoder::get_proc`].
    pub fn get_procs(&mut self) -> Result<Vec<Proc>> {
        let n = self.get_count("proc list", 8)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.get_proc()?);
        }
        Ok(v)
    }

    /// Reads an info.
    ///
    /// # Errors
    /// Truncated input, an invalid key, or a bad value.
    pub fn get_info(&mut self) -> Result<Info> {
        let key = self.get_str()?;
        let key = Key::new(key).map_err(|e| bad(format!("bad key: {e}")))?;
        let flags = InfoFlags(self.get_u32()?);
        let value = self.get_value()?;
        Ok(Info { key, value, flags })
    }

    /// Reads a count-prefixed list of infos.
    ///
    /// # Errors
    /// As [`Decoder::get_info`].
    pub fn get_infos(&mut self) -> Result<Vec<Info>> {
        // key length (4) + flags (4) + type (2), at least
        let n = self.get_count("info list", 10)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.get_info()?);
        }
        Ok(v)
    }

    /// Reads a value: tag then body.
    ///
    /// # Errors
    /// Truncated input; `PMIX_ERR_UNPACK_FAILURE` for an unknown type tag,
    /// invalid contents, or nesting deeper than [`MAX_DEPTH`].
    pub fn get_value(&mut self) -> Result<Value> {
        let t = DataType(self.get_u16()?);
        self.get_value_body(t)
    }

    fn get_value_body(&mut self, t: DataType) -> Result<Value> {
        if self.depth >= MAX_DEPTH {
            return Err(bad(format!("values nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        let r = self.get_value_body_inner(t);
        self.depth -= 1;
        r
    }

    fn get_value_body_inner(&mut self, t: DataType) -> Result<Value> {
        use Value as V;
        Ok(match t {
            DataType::UNDEF => V::Undef,
            DataType::BOOL => match self.get_u8()? {
                0 => V::Bool(false),
                1 => V::Bool(true),
                x => return Err(bad(format!("bool byte {x}"))),
            },
            DataType::BYTE => V::Byte(self.get_u8()?),
            DataType::STRING => V::String(self.get_string()?),
            DataType::SIZE => V::Size(self.get_u64()?),
            DataType::PID => V::Pid(self.get_i32()?),
            DataType::INT => V::Int(self.get_i32()?),
            DataType::INT8 => V::Int8(i8::from_le_bytes([self.get_u8()?])),
            DataType::INT16 => V::Int16(i16::from_le_bytes(self.array("i16")?)),
            DataType::INT32 => V::Int32(self.get_i32()?),
            DataType::INT64 => V::Int64(self.get_i64()?),
            DataType::UINT => V::Uint(self.get_u32()?),
            DataType::UINT8 => V::Uint8(self.get_u8()?),
            DataType::UINT16 => V::Uint16(self.get_u16()?),
            DataType::UINT32 => V::Uint32(self.get_u32()?),
            DataType::UINT64 => V::Uint64(self.get_u64()?),
            DataType::FLOAT => V::Float(f32::from_bits(self.get_u32()?)),
            DataType::DOUBLE => V::Double(f64::from_bits(self.get_u64()?)),
            DataType::TIMEVAL => V::Timeval(Timeval {
                sec: self.get_i64()?,
                usec: self.get_i64()?,
            }),
            DataType::TIME => V::Time(self.get_i64()?),
            DataType::STATUS => V::Status(Status(self.get_i32()?)),
            DataType::PROC => V::Proc(self.get_proc()?),
            DataType::PROC_RANK => V::Rank(Rank(self.get_u32()?)),
            DataType::PROC_NSPACE => {
                let s = self.get_str()?;
                V::Nspace(Nspace::new(s).map_err(|e| bad(format!("bad nspace: {e}")))?)
            }
            DataType::BYTE_OBJECT => V::ByteObject(self.get_bytes()?.to_vec()),
            DataType::COMPRESSED_STRING => V::CompressedString(self.get_bytes()?.to_vec()),
            DataType::COMPRESSED_BYTE_OBJECT => V::CompressedByteObject(self.get_bytes()?.to_vec()),
            DataType::REGEX => V::Regex(self.get_bytes()?.to_vec()),
            DataType::PERSIST => V::Persistence(Persistence(self.get_u8()?)),
            DataType::SCOPE => V::Scope(Scope(self.get_u8()?)),
            DataType::DATA_RANGE => V::DataRange(DataRange(self.get_u8()?)),
            DataType::PROC_STATE => V::ProcState(ProcState(self.get_u8()?)),
            DataType::JOB_STATE => V::JobState(JobState(self.get_u8()?)),
            DataType::INFO_DIRECTIVES => V::InfoDirectives(InfoFlags(self.get_u32()?)),
            DataType::DATA_TYPE => V::DataType(DataType(self.get_u16()?)),
            DataType::PROC_INFO => V::ProcInfo(Box::new(self.get_proc_info()?)),
            DataType::DATA_ARRAY => V::DataArray(Box::new(self.get_data_array()?)),
            DataType::ENVAR => V::Envar(Envar {
                envar: self.get_string()?,
                value: self.get_string()?,
                separator: self.get_u8()?,
            }),
            DataType::APP => V::App(Box::new(self.get_app()?)),
            DataType::QUERY => V::Query(Box::new(Query {
                keys: self.get_strings()?,
                qualifiers: self.get_infos()?,
            })),
            DataType::INFO => V::Info(Box::new(self.get_info()?)),
            DataType::IOF_CHANNEL => V::IofChannel(self.get_u16()?),
            DataType::ALLOC_DIRECTIVE => V::AllocDirective(self.get_u8()?),
            DataType::LINK_STATE => V::LinkState(self.get_u8()?),
            DataType::LOCTYPE => V::Locality(self.get_u16()?),
            DataType::DEVTYPE => V::DevType(self.get_u64()?),
            other => {
                return Err(Error::with_context(
                    Status::ERR_UNPACK_FAILURE,
                    format!("no decoding for data type {other}"),
                ))
            }
        })
    }

    fn get_proc_info(&mut self) -> Result<ProcInfo> {
        Ok(ProcInfo {
            proc: self.get_proc()?,
            hostname: self.get_string()?,
            executable_name: self.get_string()?,
            pid: self.get_i32()?,
            exit_code: self.get_i32()?,
            state: ProcState(self.get_u8()?),
        })
    }

    fn get_data_array(&mut self) -> Result<DataArray> {
        let elem = DataType(self.get_u16()?);
        if elem == DataType::DATA_ARRAY && self.depth + 1 >= MAX_DEPTH {
            return Err(bad("data arrays nested too deeply"));
        }
        let n = self.get_count("data array", 1)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(if elem == DataType::VALUE {
                // each element a whole value (see `put_data_array`), nested
                // one level deeper
                let t = DataType(self.get_u16()?);
                self.get_value_body(t)?
            } else {
                self.get_value_body(elem)?
            });
        }
        DataArray::new(elem, items).map_err(|e| bad(e.to_string()))
    }

    fn get_app(&mut self) -> Result<App> {
        Ok(App {
            cmd: self.get_string()?,
            argv: self.get_strings()?,
            env: self.get_strings()?,
            cwd: self.get_string()?,
            maxprocs: self.get_i32()?,
            info: self.get_infos()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_value, encode_value, Encoder};

    #[test]
    fn truncated_input_is_read_past_end() {
        let b = encode_value(&Value::Uint64(5));
        let e = decode_value(&b[..b.len() - 1]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    }

    #[test]
    fn unknown_type_tag_is_unpack_failure() {
        let e = decode_value(&[0xFF, 0x7F]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_UNPACK_FAILURE);
    }

    #[test]
    fn huge_count_is_refused_before_allocating() {
        let mut e = Encoder::new();
        e.put_u16(DataType::DATA_ARRAY.0);
        e.put_u16(DataType::UNDEF.0);
        e.put_u32(u32::MAX);
        let err = decode_value(&e.finish()).unwrap_err();
        assert_eq!(err.status(), Status::ERR_UNPACK_FAILURE);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut e = Encoder::new();
        for _ in 0..100 {
            e.put_u16(DataType::DATA_ARRAY.0);
            e.put_u16(DataType::DATA_ARRAY.0);
            e.put_u32(1);
        }
        assert!(decode_value(&e.finish()).is_err());
    }

    #[test]
    fn invalid_utf8_and_bool_are_refused() {
        let mut e = Encoder::new();
        e.put_u16(DataType::STRING.0);
        e.put_bytes(&[0xFF, 0xFE]);
        assert!(decode_value(&e.finish()).is_err());
        assert!(decode_value(&[DataType::BOOL.0 as u8, 0, 2]).is_err());
    }

    #[test]
    fn nspace_limits_hold_on_decode() {
        let mut e = Encoder::new();
        e.put_u16(DataType::PROC.0);
        e.put_str(&"n".repeat(300));
        e.put_u32(0);
        let err = decode_value(&e.finish()).unwrap_err();
        assert_eq!(err.status(), Status::ERR_UNPACK_FAILURE);
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let mut b = encode_value(&Value::Bool(true));
        b.push(0);
        assert!(decode_value(&b).is_err());
    }

    #[test]
    fn an_array_of_values_of_mixed_types_round_trips() {
        let a = DataArray::new(
            DataType::VALUE,
            vec![
                Value::Uint64(7),
                Value::String("second".into()),
                Value::Bool(true),
            ],
        )
        .unwrap();
        let v = Value::DataArray(Box::new(a));
        assert_eq!(decode_value(&encode_value(&v)).unwrap(), v);
        // any other element type still checks every element
        assert!(DataArray::new(DataType::UINT64, vec![Value::Bool(true)]).is_err());
        // a count the bytes cannot hold, and a bad element tag, are refused
        let mut e = Encoder::new();
        e.put_u16(DataType::DATA_ARRAY.0);
        e.put_u16(DataType::VALUE.0);
        e.put_u32(1000);
        e.put_u16(0xFEFE);
        assert!(decode_value(&e.finish()).is_err());
    }
}
