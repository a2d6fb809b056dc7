//! The pmix-rs binary codec: values, infos and procs, blobs and message
//! frames.
//!
//! # Format
//! Little-endian throughout; every variable-length item is length-prefixed;
//! every value carries its [`DataType`](crate::DataType) tag, so a stream is
//! self-describing. The byte-level format is in `docs/PROTOCOL.md`.
//!
//! - [`Encoder`] / [`Decoder`]: the primitive layer (integers, strings,
//!   bytes, procs, values, infos).
//! - [`blob`]: a self-delimiting, versioned container. Blobs are
//!   concatenable: several encoded blobs back to back decode as a sequence
//!   (the fence data path hands the host one blob per node, and the host may
//!   concatenate them).
//! - [`frame`]: message framing for the control socket, with an incremental
//!   reader for partial reads.
//!
//! # Untrusted input
//! Decoding never panics, never allocates more than the input can justify
//! (a count is checked against the bytes left before anything is reserved),
//! bounds nesting depth, and fails with `PMIX_ERR_UNPACK_FAILURE` (bad data)
//! or `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` (truncated input).

pub mod blob;
mod decode;
mod encode;
pub mod frame;

pub use decode::{Decoder, FreshNames, NameSource};
pub use encode::Encoder;

/// Version of the value encoding. Bumped on any incompatible change; a
/// decoder refuses a blob with a version it does not know.
pub const CODEC_VERSION: u8 = 1;

/// How deeply values may nest (data arrays of infos holding data arrays...).
pub const MAX_DEPTH: usize = 16;

use crate::{Info, Result, Value};

/// Encodes one value into a new buffer.
pub fn encode_value(v: &Value) -> Vec<u8> {
    let mut e = Encoder::new();
    e.put_value(v);
    e.finish()
}

/// Decodes exactly one value; trailing bytes are an error.
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` / `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`.
pub fn decode_value(bytes: &[u8]) -> Result<Value> {
    let mut d = Decoder::new(bytes);
    let v = d.get_value()?;
    d.expect_end()?;
    Ok(v)
}

/// Encodes a list of infos (count-prefixed).
pub fn encode_infos(infos: &[Info]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.put_infos(infos);
    e.finish()
}

/// Decodes a list of infos written by [`encode_infos`]; trailing bytes are
/// an error.
///
/// # Errors
/// As [`decode_value`].
pub fn decode_infos(bytes: &[u8]) -> Result<Vec<Info>> {
    let mut d = Decoder::new(bytes);
    let v = d.get_infos()?;
    d.expect_end()?;
    Ok(v)
}
