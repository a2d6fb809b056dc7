//! IO forwarding (`PMIx_IOF_pull`, `PMIX_FWD_STDOUT`): the chunk of a
//! process's output the server sends a connection (`IOF_DELIVER`, one-way).
//! The other direction, `PMIx_IOF_push` to processes' stdin, is the
//! request `Request::IofPush` (`IOF_PUSH`, capability `caps::IOF_PUSH`).
//!
//! A chunk goes to a connection that pulled the source's channel
//! (`IOF_PULL`, naming the pulling handlers' ids in `ids`) or that spawned
//! the source's job with `PMIX_FWD_STDOUT` / `PMIX_FWD_STDERR` (then
//! `ids` may be empty: the receiving library writes the bytes to its own
//! stdout or stderr, as OpenPMIx's tool library does).

use crate::codec::{Decoder, Encoder};
use crate::{Proc, Result};

/// `PMIX_FWD_STDIN_CHANNEL`.
pub const STDIN_CHANNEL: u16 = 0x01;
/// `PMIX_FWD_STDOUT_CHANNEL`.
pub const STDOUT_CHANNEL: u16 = 0x02;
/// `PMIX_FWD_STDERR_CHANNEL`.
pub const STDERR_CHANNEL: u16 = 0x04;

/// Output of `source` on `channel`, for the handlers `ids` of the
/// receiving connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IofChunk {
    /// The process that wrote it.
    pub source: Proc,
    /// `STDOUT_CHANNEL` or `STDERR_CHANNEL`.
    pub channel: u16,
    /// The receiving connection's handler ids that pulled it (empty: only
    /// forwarded because the connection spawned the source).
    pub ids: Vec<u32>,
    /// The bytes (whole lines, as the launcher read them).
    pub data: Vec<u8>,
}

impl IofChunk {
    /// Encodes the body of an `IOF_DELIVER` frame.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_proc(&self.source);
        e.put_u16(self.channel);
        e.put_u32(u32::try_from(self.ids.len()).unwrap_or(u32::MAX));
        for id in &self.ids {
            e.put_u32(*id);
        }
        e.put_bytes(&self.data);
        e.finish()
    }

    /// Decodes the body of an `IOF_DELIVER` frame.
    ///
    /// # Errors
    /// The decoder's errors for a malformed body.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let source = d.get_proc()?;
        let channel = d.get_u16()?;
        let n = d.get_count("iof handler ids", 4)?;
        let mut ids = Vec::with_capacity(n);
        for _ in 0..n {
            ids.push(d.get_u32()?);
        }
        let data = d.get_bytes()?.to_vec();
        d.expect_end()?;
        Ok(IofChunk {
            source,
            channel,
            ids,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_round_trips_and_a_truncated_one_is_refused() {
        let c = IofChunk {
            source: Proc::new("job2", crate::Rank(3)).unwrap(),
            channel: STDERR_CHANNEL,
            ids: vec![1, 7],
            data: b"hello\n".to_vec(),
        };
        let b = c.encode();
        assert_eq!(IofChunk::decode(&b).unwrap(), c);
        for cut in 0..b.len() {
            assert!(IofChunk::decode(&b[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_push_round_trips_and_needs_its_capability() {
        use crate::proto::{caps, msg, Request};
        let r = Request::IofPush {
            targets: vec![Proc::new("job", crate::Rank::WILDCARD).unwrap()],
            data: b"line\n".to_vec(),
            directives: vec![crate::Info::flag(crate::attrs::IOF_COMPLETE).unwrap()],
        };
        assert_eq!(r.msg_type(), msg::IOF_PUSH);
        assert_eq!(r.needs_cap(), Some(caps::IOF_PUSH));
        let b = r.encode();
        assert_eq!(Request::decode(msg::IOF_PUSH, &b).unwrap(), r);
        for cut in 0..b.len() {
            assert!(
                Request::decode(msg::IOF_PUSH, &b[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }
}
