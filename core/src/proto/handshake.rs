//! The handshake: the client's [`Hello`], the version both sides speak,
//! and the server's [`Welcome`].

use super::HELLO_MAGIC;
use crate::codec::{Decoder, Encoder};
use crate::{Error, Proc, Result, Status};

/// The client's opening message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Oldest protocol version the client speaks.
    pub min_version: u16,
    /// Newest protocol version the client speaks.
    pub max_version: u16,
    /// Capabilities the client supports.
    pub caps: u64,
    /// The proc the client claims to be (checked against the registration
    /// and the socket's peer credentials).
    pub proc: Proc,
    /// The client's pid as it sees it (informational; the server trusts
    /// `SO_PEERCRED`).
    pub pid: u32,
    /// The secret `setup_fork` gave this client ([`super::env::CLIENT_SECRET`]):
    /// the proof that the process is the one the server's host launched
    /// as `proc`, not another process of the same user. Encoded after
    /// `pid` only when present, so a hello without one is what older
    /// clients sent.
    pub secret: Option<String>,
}

impl Hello {
    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_raw(&HELLO_MAGIC);
        e.put_u16(self.min_version);
        e.put_u16(self.max_version);
        e.put_u64(self.caps);
        e.put_proc(&self.proc);
        e.put_u32(self.pid);
        if let Some(secret) = &self.secret {
            e.put_str(secret);
        }
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` for a bad magic or version range, the
    /// decoder's errors for truncated bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        if d.get_raw(4)? != HELLO_MAGIC {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                "handshake: bad magic",
            ));
        }
        let min_version = d.get_u16()?;
        let max_version = d.get_u16()?;
        if min_version == 0 || min_version > max_version {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                format!("handshake: bad version range {min_version}..={max_version}"),
            ));
        }
        let caps = d.get_u64()?;
        let proc = d.get_proc()?;
        let pid = d.get_u32()?;
        let secret = if d.remaining() > 0 {
            Some(d.get_str()?.to_owned())
        } else {
            None
        };
        d.expect_end()?;
        Ok(Hello {
            min_version,
            max_version,
            caps,
            proc,
            pid,
            secret,
        })
    }
}

/// The version both sides speak, or `None` when the ranges do not meet.
///
/// A client newer than the server is served at the server's version.
///
/// ```
/// use pmix_core::proto::agree_version;
/// assert_eq!(agree_version((1, 9), (1, 2)), Some(2));
/// assert_eq!(agree_version((1, 1), (1, 2)), Some(1));
/// assert_eq!(agree_version((3, 4), (1, 2)), None);
/// ```
pub fn agree_version(client: (u16, u16), server: (u16, u16)) -> Option<u16> {
    let v = client.1.min(server.1);
    (v >= client.0.max(server.0)).then_some(v)
}

/// The server's answer to [`Hello`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// `SUCCESS`, or why the client is refused (then no descriptor follows
    /// and the server closes the socket).
    pub status: Status,
    /// The agreed protocol version.
    pub version: u16,
    /// The agreed capabilities.
    pub caps: u64,
    /// The client's slot: its modex store and its peer cell.
    pub client_slot: u32,
    /// The server's own proc (nspace and rank).
    pub server: Proc,
    /// Why the client was refused (empty on success).
    pub message: String,
}

impl Welcome {
    /// A refusal.
    pub fn refuse(status: Status, server: Proc, message: impl Into<String>) -> Self {
        Welcome {
            status,
            version: 0,
            caps: 0,
            client_slot: u32::MAX,
            server,
            message: message.into(),
        }
    }

    /// Encodes the body.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_i32(self.status.0);
        e.put_u16(self.version);
        e.put_u64(self.caps);
        e.put_u32(self.client_slot);
        e.put_proc(&self.server);
        e.put_str(&self.message);
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// The decoder's errors.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut d = Decoder::new(bytes);
        let status = Status(d.get_i32()?);
        let version = d.get_u16()?;
        let caps = d.get_u64()?;
        let client_slot = d.get_u32()?;
        let server = d.get_proc()?;
        let message = d.get_str()?.to_owned();
        d.expect_end()?;
        Ok(Welcome {
            status,
            version,
            caps,
            client_slot,
            server,
            message,
        })
    }
}
