//! Encoding side of the codec. Encoding cannot fail: every value the data
//! model can hold has an encoding.

use crate::value::{App, DataArray, Envar, ProcInfo, Query};
use crate::{DataType, Info, Proc, Value};

/// Writes values, infos and procs into a growing buffer.
///
/// # Examples
/// ```
/// use pmix_core::codec::{Decoder, Encoder};
/// let mut e = Encoder::new();
/// e.put_u32(7);
/// e.put_str("x");
/// let b = e.finish();
/// let mut d = Decoder::new(&b);
/// assert_eq!(d.get_u32().unwrap(), 7);
/// assert_eq!(d.get_str().unwrap(), "x");
/// ```
#[derive(Debug, Default, Clone)]
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Encoder::default()
    }

    /// An encoder that appends to `buf`.
    pub fn from_vec(buf: Vec<u8>) -> Self {
        Encoder { buf }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Number of bytes written.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// `true` when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The finished buffer.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    /// Writes one byte.
    pub fn put_u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    /// Writes a little-endian u16.
    pub fn put_u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes a little-endian u32.
    pub fn put_u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes a little-endian u64.
    pub fn put_u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes a little-endian i32.
    pub fn put_i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    /// Writes a little-endian i64.
    pub fn put_i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Writes a length (u32). Lengths above `u32::MAX` cannot be produced
    /// by the data model's limits in practice; they are clamped so the
    /// decoder sees a consistent (and then truncated) stream rather than a
    /// wrapped one.
    fn put_len(&mut self, n: usize) {
        self.put_u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// Writes raw bytes with a u32 length prefix.
    pub fn put_bytes(&mut self, b: &[u8]) {
        self.put_len(b.len());
        self.buf.extend_from_slice(b);
    }

    /// Writes a UTF-8 string with a u32 length prefix (no NUL).
    pub fn put_str(&mut self, s: &str) {
        self.put_bytes(s.as_bytes());
    }

    /// Writes raw bytes with no prefix (for callers that frame themselves).
    pub fn put_raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Writes a proc: namespace string then rank.
    pub fn put_proc(&mut self, p: &Proc) {
        self.put_str(p.nspace.as_str());
        self.put_u32(p.rank.0);
    }

    /// Writes a count-prefixed list of procs.
    pub fn put_procs(&mut self, procs: &[Proc]) {
        self.put_len(procs.len());
        for p in procs {
            self.put_proc(p);
        }
    }

    /// Writes an info: key, flags, value.
    pub fn put_info(&mut self, i: &Info) {
        self.put_str(i.key.as_str());
        self.put_u32(i.flags.0);
        self.put_value(&i.value);
    }

    /// Writes a count-prefixed list of infos.
    pub fn put_infos(&mut self, infos: &[Info]) {
        self.put_len(infos.len());
        for i in infos {
            self.put_info(i);
        }
    }

    fn put_strs(&mut self, v: &[String]) {
        self.put_len(v.len());
        for s in v {
            self.put_str(s);
        }
    }

    /// Writes a value: its data type tag (u16), then its body.
    pub fn put_value(&mut self, v: &Value) {
        self.put_u16(v.data_type().0);
        self.put_value_body(v);
    }

    fn put_value_body(&mut self, v: &Value) {
        use Value as V;
        match v {
            V::Undef => {}
            V::Bool(b) => self.put_u8(u8::from(*b)),
            V::Byte(x) | V::Uint8(x) | V::AllocDirective(x) | V::LinkState(x) => self.put_u8(*x),
            V::String(s) => self.put_str(s),
            V::Size(x) | V::Uint64(x) | V::DevType(x) => self.put_u64(*x),
            V::Pid(x) | V::Int(x) | V::Int32(x) => self.put_i32(*x),
            V::Int8(x) => self.put_u8(x.to_le_bytes()[0]),
            V::Int16(x) => self.buf.extend_from_slice(&x.to_le_bytes()),
            V::Int64(x) | V::Time(x) => self.put_i64(*x),
            V::Uint(x) | V::Uint32(x) => self.put_u32(*x),
            V::Uint16(x) | V::IofChannel(x) | V::Locality(x) => self.put_u16(*x),
            V::Float(x) => self.put_u32(x.to_bits()),
            V::Double(x) => self.put_u64(x.to_bits()),
            V::Timeval(t) => {
                self.put_i64(t.sec);
                self.put_i64(t.usec);
            }
            V::Status(s) => self.put_i32(s.0),
            V::Proc(p) => self.put_proc(p),
            V::Rank(r) => self.put_u32(r.0),
            V::Nspace(n) => self.put_str(n.as_str()),
            V::ByteObject(b)
            | V::CompressedString(b)
            | V::CompressedByteObject(b)
            | V::Regex(b) => self.put_bytes(b),
            V::Persistence(x) => self.put_u8(x.0),
            V::Scope(x) => self.put_u8(x.0),
            V::DataRange(x) => self.put_u8(x.0),
            V::ProcState(x) => self.put_u8(x.0),
            V::JobState(x) => self.put_u8(x.0),
            V::InfoDirectives(f) => self.put_u32(f.0),
            V::DataType(t) => self.put_u16(t.0),
            V::ProcInfo(p) => self.put_proc_info(p),
            V::DataArray(a) => self.put_data_array(a),
            V::Envar(e) => self.put_envar(e),
            V::App(a) => self.put_app(a),
            V::Query(q) => self.put_query(q),
            V::Info(i) => self.put_info(i),
        }
    }

    fn put_proc_info(&mut self, p: &ProcInfo) {
        self.put_proc(&p.proc);
        self.put_str(&p.hostname);
        self.put_str(&p.executable_name);
        self.put_i32(p.pid);
        self.put_i32(p.exit_code);
        self.put_u8(p.state.0);
    }

    fn put_data_array(&mut self, a: &DataArray) {
        self.put_u16(a.elem_type().0);
        self.put_len(a.len());
        for item in a.items() {
            if a.elem_type() == DataType::VALUE {
                // each element a whole value: its type, then its body
                self.put_value(item);
            } else {
                self.put_value_body(item);
            }
        }
    }

    fn put_envar(&mut self, e: &Envar) {
        self.put_str(&e.envar);
        self.put_str(&e.value);
        self.put_u8(e.separator);
    }

    fn put_app(&mut self, a: &App) {
        self.put_str(&a.cmd);
        self.put_strs(&a.argv);
        self.put_strs(&a.env);
        self.put_str(&a.cwd);
        self.put_i32(a.maxprocs);
        self.put_infos(&a.info);
    }

    fn put_query(&mut self, q: &Query) {
        self.put_strs(&q.keys);
        self.put_infos(&q.qualifiers);
    }
}
