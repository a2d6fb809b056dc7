//! Blobs: self-delimiting, versioned containers that concatenate.
//!
//! ```text
//! offset size field
//!      0    3 magic  b"PXB"
//!      3    1 codec version (CODEC_VERSION)
//!      4    2 kind   (BlobKind, LE)
//!      6    2 reserved, 0
//!      8    4 payload length (LE)
//!     12    n payload
//! ```
//!
//! Several blobs written back to back decode as a sequence with [`iter`]:
//! the fence path gives the host one blob per node and accepts the host's
//! concatenation of many nodes' blobs unchanged.

use super::{Decoder, Encoder, CODEC_VERSION};
use crate::{Error, Info, Proc, Result, Status};

/// The blob magic.
pub const MAGIC: [u8; 3] = *b"PXB";
/// Size of a blob header in bytes.
pub const HEADER_LEN: usize = 12;

/// What a blob's payload holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlobKind(pub u16);

impl BlobKind {
    /// One encoded value.
    pub const VALUE: BlobKind = BlobKind(1);
    /// A count-prefixed info list.
    pub const INFOS: BlobKind = BlobKind(2);
    /// A count-prefixed proc list.
    pub const PROCS: BlobKind = BlobKind(3);
    /// Modex data: a count-prefixed list of (proc, infos) entries
    /// (see [`encode_modex`]).
    pub const MODEX: BlobKind = BlobKind(4);
    /// Bytes the codec does not interpret.
    pub const OPAQUE: BlobKind = BlobKind(0xFFFF);
}

/// One decoded blob, borrowing its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blob<'a> {
    /// The payload kind.
    pub kind: BlobKind,
    /// The codec version it was written with.
    pub version: u8,
    /// The payload bytes.
    pub payload: &'a [u8],
}

/// Appends one blob to `out`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a payload longer than `u32::MAX` bytes.
pub fn append(out: &mut Vec<u8>, kind: BlobKind, payload: &[u8]) -> Result<()> {
    let len =
        u32::try_from(payload.len()).map_err(|_| Error::bad_param("blob payload over 4 GiB"))?;
    out.extend_from_slice(&MAGIC);
    out.push(CODEC_VERSION);
    out.extend_from_slice(&kind.0.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(payload);
    Ok(())
}

/// One blob in a new buffer.
///
/// # Errors
/// As [`append`].
pub fn encode(kind: BlobKind, payload: &[u8]) -> Result<Vec<u8>> {
    let mut v = Vec::with_capacity(HEADER_LEN + payload.len());
    append(&mut v, kind, payload)?;
    Ok(v)
}

/// Iterates the blobs of a concatenation. Stops after the first error.
pub fn iter(bytes: &[u8]) -> BlobIter<'_> {
    BlobIter {
        rest: bytes,
        failed: false,
    }
}

/// Decodes every blob of a concatenation.
///
/// # Errors
/// The first malformed blob: bad magic, unknown version, non-zero reserved
/// bits, or a length past the end (`PMIX_ERR_UNPACK_FAILURE` /
/// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`).
pub fn decode_all(bytes: &[u8]) -> Result<Vec<Blob<'_>>> {
    iter(bytes).collect()
}

/// Iterator over concatenated blobs (see [`iter`]).
#[derive(Debug, Clone)]
pub struct BlobIter<'a> {
    rest: &'a [u8],
    failed: bool,
}

impl<'a> Iterator for BlobIter<'a> {
    type Item = Result<Blob<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        let r = split_one(self.rest);
        match r {
            Ok((blob, rest)) => {
                self.rest = rest;
                Some(Ok(blob))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

fn split_one(bytes: &[u8]) -> Result<(Blob<'_>, &[u8])> {
    let mut d = Decoder::new(bytes);
    let hdr = d.get_raw(HEADER_LEN)?;
    if hdr[0..3] != MAGIC {
        return Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "blob magic mismatch",
        ));
    }
    let version = hdr[3];
    if version != CODEC_VERSION {
        return Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            format!("blob codec version {version}, this build reads {CODEC_VERSION}"),
        ));
    }
    let kind = BlobKind(u16::from_le_bytes([hdr[4], hdr[5]]));
    if hdr[6] != 0 || hdr[7] != 0 {
        return Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "blob reserved bits set",
        ));
    }
    let len = u32::from_le_bytes([hdr[8], hdr[9], hdr[10], hdr[11]]) as usize;
    let payload = d.get_raw(len)?;
    Ok((
        Blob {
            kind,
            version,
            payload,
        },
        &bytes[HEADER_LEN + len..],
    ))
}

/// One process's modex contribution: who, and the infos it committed.
pub type ModexEntry = (Proc, Vec<Info>);

/// Encodes modex entries as one [`BlobKind::MODEX`] blob.
///
/// # Errors
/// As [`append`].
pub fn encode_modex(entries: &[ModexEntry]) -> Result<Vec<u8>> {
    let mut e = Encoder::new();
    e.put_u32(u32::try_from(entries.len()).unwrap_or(u32::MAX));
    for (p, infos) in entries {
        e.put_proc(p);
        e.put_infos(infos);
    }
    encode(BlobKind::MODEX, e.as_bytes())
}

/// Decodes the payload of a [`BlobKind::MODEX`] blob.
///
/// # Errors
/// `PMIX_ERR_UNPACK_FAILURE` / `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`.
pub fn decode_modex(payload: &[u8]) -> Result<Vec<ModexEntry>> {
    let mut d = Decoder::new(payload);
    let n = d.get_u32()? as usize;
    // each entry holds at least a proc (8 bytes) and an info count (4)
    if n.saturating_mul(12) > d.remaining() {
        return Err(Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            format!("modex count {n} exceeds the payload"),
        ));
    }
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let p = d.get_proc()?;
        let infos = d.get_infos()?;
        v.push((p, infos));
    }
    d.expect_end()?;
    Ok(v)
}

/// Decodes every modex entry of a concatenation of MODEX blobs (blobs of
/// other kinds are refused).
///
/// # Errors
/// The first malformed blob or entry.
pub fn decode_modex_all(bytes: &[u8]) -> Result<Vec<ModexEntry>> {
    let mut out = Vec::new();
    for b in iter(bytes) {
        let b = b?;
        if b.kind != BlobKind::MODEX {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                format!("expected a modex blob, found kind {}", b.kind.0),
            ));
        }
        out.extend(decode_modex(b.payload)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    #[test]
    fn concatenated_blobs_decode_as_a_sequence() {
        let mut all = encode(BlobKind::OPAQUE, b"one").unwrap();
        all.extend(encode(BlobKind::VALUE, b"").unwrap());
        all.extend(encode(BlobKind::OPAQUE, b"three").unwrap());
        let blobs = decode_all(&all).unwrap();
        assert_eq!(blobs.len(), 3);
        assert_eq!(blobs[0].payload, b"one");
        assert_eq!(blobs[1].kind, BlobKind::VALUE);
        assert_eq!(blobs[2].payload, b"three");
    }

    #[test]
    fn modex_blobs_from_several_nodes_concatenate() {
        let a = vec![(
            Proc::new("ns", 0).unwrap(),
            vec![Info::new("card", Value::ByteObject(vec![1, 2])).unwrap()],
        )];
        let b = vec![
            (Proc::new("ns", 1).unwrap(), vec![]),
            (
                Proc::new("other", 7).unwrap(),
                vec![Info::new("k", 3u32).unwrap()],
            ),
        ];
        let mut all = encode_modex(&a).unwrap();
        all.extend(encode_modex(&b).unwrap());
        let got = decode_modex_all(&all).unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0], a[0]);
        assert_eq!(got[2], b[1]);
    }

    #[test]
    fn bad_headers_are_refused() {
        let good = encode(BlobKind::OPAQUE, b"xyz").unwrap();
        let mut bad_magic = good.clone();
        bad_magic[0] = b'Q';
        assert!(decode_all(&bad_magic).is_err());
        let mut bad_version = good.clone();
        bad_version[3] = 99;
        assert!(decode_all(&bad_version).is_err());
        let e = decode_all(&good[..good.len() - 1]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER);
        assert!(decode_all(&good[..5]).is_err());
    }
}
