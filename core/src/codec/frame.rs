//! Message framing for the control socket.
//!
//! ```text
//! offset size field
//!      0    4 magic      b"PMXF"
//!      4    2 protocol version (LE)
//!      6    2 message type (LE; meaning defined by the protocol layer)
//!      8    4 tag (LE; matches a reply to its request, 0 = none)
//!     12    4 body length (LE)
//!     16    n body
//! ```
//!
//! Pure byte handling: [`encode_frame`] builds a frame, [`FrameReader`]
//! reassembles frames from arbitrary read chunks and refuses a body longer
//! than its limit before buffering it.

use crate::{Error, Result, Status};

/// Frame magic.
pub const MAGIC: [u8; 4] = *b"PMXF";
/// Size of a frame header.
pub const HEADER_LEN: usize = 16;
/// Default largest accepted body: 64 MiB.
pub const DEFAULT_MAX_BODY: usize = 64 << 20;

/// A decoded frame header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    /// Protocol version of the sender.
    pub version: u16,
    /// Message type.
    pub msg_type: u16,
    /// Request/reply tag.
    pub tag: u32,
    /// Body length in bytes.
    pub len: u32,
}

impl FrameHeader {
    /// Encodes the header.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..4].copy_from_slice(&MAGIC);
        b[4..6].copy_from_slice(&self.version.to_le_bytes());
        b[6..8].copy_from_slice(&self.msg_type.to_le_bytes());
        b[8..12].copy_from_slice(&self.tag.to_le_bytes());
        b[12..16].copy_from_slice(&self.len.to_le_bytes());
        b
    }

    /// Decodes a header from untrusted bytes.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER` for fewer than 16 bytes,
    /// `PMIX_ERR_UNPACK_FAILURE` for a bad magic.
    pub fn parse(b: &[u8]) -> Result<FrameHeader> {
        if b.len() < HEADER_LEN {
            return Err(Error::with_context(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                "short frame header",
            ));
        }
        if b[0..4] != MAGIC {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                "frame magic mismatch",
            ));
        }
        Ok(FrameHeader {
            version: u16::from_le_bytes([b[4], b[5]]),
            msg_type: u16::from_le_bytes([b[6], b[7]]),
            tag: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            len: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
        })
    }
}

/// A whole frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Its header (`len` equals `body.len()`).
    pub header: FrameHeader,
    /// Its body.
    pub body: Vec<u8>,
}

/// Builds one frame.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a body over 4 GiB.
pub fn encode_frame(version: u16, msg_type: u16, tag: u32, body: &[u8]) -> Result<Vec<u8>> {
    let len = u32::try_from(body.len()).map_err(|_| Error::bad_param("frame body over 4 GiB"))?;
    let h = FrameHeader {
        version,
        msg_type,
        tag,
        len,
    };
    let mut v = Vec::with_capacity(HEADER_LEN + body.len());
    v.extend_from_slice(&h.to_bytes());
    v.extend_from_slice(body);
    Ok(v)
}

/// Reassembles frames from a byte stream delivered in arbitrary chunks.
///
/// # Examples
/// ```
/// use pmix_core::codec::frame::{encode_frame, FrameReader};
/// let f = encode_frame(1, 7, 42, b"hello").unwrap();
/// let mut r = FrameReader::new();
/// r.push(&f[..3]);
/// assert!(r.next_frame().unwrap().is_none());
/// r.push(&f[3..]);
/// let frame = r.next_frame().unwrap().unwrap();
/// assert_eq!(frame.header.tag, 42);
/// assert_eq!(frame.body, b"hello");
/// ```
#[derive(Debug)]
pub struct FrameReader {
    buf: Vec<u8>,
    max_body: usize,
    poisoned: bool,
}

impl Default for FrameReader {
    fn default() -> Self {
        FrameReader::new()
    }
}

impl FrameReader {
    /// A reader with the [`DEFAULT_MAX_BODY`] limit.
    pub fn new() -> Self {
        FrameReader::with_max_body(DEFAULT_MAX_BODY)
    }

    /// A reader refusing bodies longer than `max_body`.
    pub fn with_max_body(max_body: usize) -> Self {
        FrameReader {
            buf: Vec::new(),
            max_body,
            poisoned: false,
        }
    }

    /// Adds bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if !self.poisoned {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Bytes buffered but not yet returned as frames.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The next complete frame, `Ok(None)` when more bytes are needed.
    ///
    /// # Errors
    /// A bad magic or a body over the limit. The stream cannot be
    /// resynchronised after that: every later call fails too.
    pub fn next_frame(&mut self) -> Result<Option<Frame>> {
        if self.poisoned {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                "frame stream already failed",
            ));
        }
        if self.buf.len() < HEADER_LEN {
            return Ok(None);
        }
        let h = match FrameHeader::parse(&self.buf) {
            Ok(h) => h,
            Err(e) => {
                self.poisoned = true;
                self.buf.clear();
                return Err(e);
            }
        };
        let len = h.len as usize;
        if len > self.max_body {
            self.poisoned = true;
            self.buf.clear();
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                format!(
                    "frame body of {len} bytes exceeds the {} limit",
                    self.max_body
                ),
            ));
        }
        if self.buf.len() < HEADER_LEN + len {
            return Ok(None);
        }
        let body = self.buf[HEADER_LEN..HEADER_LEN + len].to_vec();
        self.buf.drain(..HEADER_LEN + len);
        Ok(Some(Frame { header: h, body }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_across_chunks_reassemble() {
        let mut stream = encode_frame(1, 2, 3, b"abc").unwrap();
        stream.extend(encode_frame(1, 4, 5, b"").unwrap());
        let mut r = FrameReader::new();
        let mut got = Vec::new();
        for b in &stream {
            r.push(std::slice::from_ref(b));
            while let Some(f) = r.next_frame().unwrap() {
                got.push(f);
            }
        }
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].body, b"abc");
        assert_eq!(got[1].header.msg_type, 4);
        assert_eq!(r.buffered(), 0);
    }

    #[test]
    fn oversized_body_is_refused_before_buffering() {
        let mut r = FrameReader::with_max_body(8);
        let h = FrameHeader {
            version: 1,
            msg_type: 1,
            tag: 0,
            len: 1 << 30,
        };
        r.push(&h.to_bytes());
        assert!(r.next_frame().is_err());
        assert!(r.next_frame().is_err(), "stream stays failed");
    }

    #[test]
    fn bad_magic_is_refused() {
        let mut r = FrameReader::new();
        r.push(&[0u8; 32]);
        assert_eq!(
            r.next_frame().unwrap_err().status(),
            Status::ERR_UNPACK_FAILURE
        );
    }
}
