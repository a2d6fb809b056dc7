//! Tools (protocol version 5, capability [`TOOL`](super::caps::TOOL)):
//! the tool's opening message [`ToolHello`], the server's
//! [`ToolWelcome`] carrying the identity the host gave the tool, the
//! server URI, and the rendezvous files a server leaves for tools to find
//! it ([`Rendezvous`]).
//!
//! A tool is not a registered client: it presents no secret. The server
//! accepts it only from its own user (or root), asks its host for the
//! tool's identity (or takes the one the tool asks for, when the host
//! agrees), registers it as a one-process namespace, and from then on
//! serves it like any client (events, queries, log, spawn).

use crate::codec::{Decoder, Encoder};
use crate::{Error, Nspace, Proc, Rank, Result, Status};

use super::{Hello, Welcome};

/// A tool's opening message ([`TOOL_HELLO`](super::msg::TOOL_HELLO)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolHello {
    /// Versions, capabilities and pid as a client's hello; its `proc` is
    /// the identity the tool asks for (`PMIX_TOOL_NSPACE` / `PMIX_TOOL_RANK`)
    /// when `requested` is set, ignored otherwise; its secret is absent.
    pub hello: Hello,
    /// Whether `hello.proc` is an identity the tool asks for.
    pub requested: bool,
}

/// Placeholder proc of a tool that asks for no identity.
pub fn unnamed_tool() -> Proc {
    Proc::from_parts(
        Nspace::new("pmixrs.tool.unnamed").expect("a valid namespace"),
        Rank(0),
    )
}

impl ToolHello {
    /// Encodes the body: a flag byte, then the hello.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.put_u8(u8::from(self.requested));
        e.put_raw(&self.hello.encode());
        e.finish()
    }

    /// Decodes a body.
    ///
    /// # Errors
    /// `PMIX_ERR_UNPACK_FAILURE` for a bad flag, the hello's errors.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let (&flag, rest) = bytes.split_first().ok_or_else(|| {
            Error::with_context(Status::ERR_UNPACK_FAILURE, "tool hello: empty body")
        })?;
        if flag > 1 {
            return Err(Error::with_context(
                Status::ERR_UNPACK_FAILURE,
                format!("tool hello: bad flag {flag}"),
            ));
        }
        Ok(ToolHello {
            hello: Hello::decode(rest)?,
            requested: flag == 1,
        })
    }
}

/// The server's answer to a [`ToolHello`]
/// ([`TOOL_WELCOME`](super::msg::TOOL_WELCOME)): a welcome and the
/// identity the tool now has. A refusal is a plain `WELCOME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolWelcome {
    /// As for a client.
    pub welcome: Welcome,
    /// The tool's identity.
    pub tool: Proc,
}

impl ToolWelcome {
    /// Encodes the body: the welcome, then the tool's proc.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::from_vec(self.welcome.encode());
        e.put_proc(&self.tool);
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
        let tool = d.get_proc()?;
        d.expect_end()?;
        Ok(ToolWelcome {
            welcome: Welcome {
                status,
                version,
                caps,
                client_slot,
                server,
                message,
            },
            tool,
        })
    }
}

/// Scheme of a pmix-rs server URI: `<nspace>.<rank>;unix:<socket path>`.
pub const URI_SCHEME: &str = "unix:";

/// A server's URI (`PMIX_SERVER_URI`, the first line of its rendezvous
/// files): its proc and its socket.
pub fn format_uri(server: &Proc, socket: &std::path::Path) -> String {
    format!(
        "{}.{};{URI_SCHEME}{}",
        server.nspace,
        server.rank.0,
        socket.display()
    )
}

/// Parses [`format_uri`]'s output.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` naming what is wrong: no `;`, no rank, another
/// scheme (an OpenPMIx server's `tcp4://` URI: pmix-rs cannot speak its
/// protocol).
pub fn parse_uri(uri: &str) -> Result<(Proc, std::path::PathBuf)> {
    let bad = |why: &str| Error::bad_param(format!("server URI {uri:?}: {why}"));
    let (id, addr) = uri.split_once(';').ok_or_else(|| bad("no ';'"))?;
    let (ns, rank) = id.rsplit_once('.').ok_or_else(|| bad("no '.<rank>'"))?;
    let rank: u32 = rank.parse().map_err(|_| bad("the rank is not a number"))?;
    let path = addr.strip_prefix(URI_SCHEME).ok_or_else(|| {
        bad("not a pmix-rs server (only unix: URIs are served; an OpenPMIx server's tcp URI cannot be reached)")
    })?;
    Ok((Proc::new(ns, Rank(rank))?, std::path::PathBuf::from(path)))
}

/// The contents of a rendezvous file, as OpenPMIx 4.2 writes them: the
/// URI, the library version, the writer's pid, `uid:gid`, and the time
/// it was written (`ctime` form, informational).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendezvous {
    /// The server's URI.
    pub uri: String,
    /// The library version that wrote it.
    pub version: String,
    /// The server's pid.
    pub pid: u32,
    /// The server's uid.
    pub uid: u32,
    /// The server's gid.
    pub gid: u32,
}

impl Rendezvous {
    /// The file's text (the time line is `written`, as given).
    pub fn format(&self, written: &str) -> String {
        format!(
            "{}\n{}\n{}\n{}:{}\n{}\n",
            self.uri, self.version, self.pid, self.uid, self.gid, written
        )
    }

    /// Parses a file's text; the time line is optional, as are the pid
    /// and `uid:gid` lines (files of older writers).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for an empty file or malformed numbers.
    pub fn parse(text: &str) -> Result<Rendezvous> {
        let mut lines = text.lines();
        let bad = |why: &str| Error::bad_param(format!("rendezvous file: {why}"));
        let uri = lines
            .next()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| bad("empty"))?
            .to_owned();
        let version = lines.next().unwrap_or("").to_owned();
        let pid = match lines.next() {
            Some(l) => l.trim().parse().map_err(|_| bad("bad pid line"))?,
            None => 0,
        };
        let (uid, gid) = match lines.next().and_then(|l| l.split_once(':')) {
            Some((u, g)) => (
                u.trim().parse().map_err(|_| bad("bad uid"))?,
                g.trim().parse().map_err(|_| bad("bad gid"))?,
            ),
            None => (u32::MAX, u32::MAX),
        };
        Ok(Rendezvous {
            uri,
            version,
            pid,
            uid,
            gid,
        })
    }
}

/// Names of the rendezvous files (OpenPMIx's names) for `host`.
pub mod files {
    /// `pmix.<host>.tool.<pid>` in the server's tmpdir.
    pub fn by_pid(host: &str, pid: u32) -> String {
        format!("pmix.{host}.tool.{pid}")
    }
    /// `pmix.<host>.tool.<nspace>` in the server's tmpdir.
    pub fn by_nspace(host: &str, nspace: &str) -> String {
        format!("pmix.{host}.tool.{nspace}")
    }
    /// `pmix.<host>.tool` in the server's tmpdir (the session server).
    pub fn session(host: &str) -> String {
        format!("pmix.{host}.tool")
    }
    /// `pmix.sys.<host>` in the system tmpdir (`PMIX_SERVER_SYSTEM_SUPPORT`).
    pub fn system(host: &str) -> String {
        format!("pmix.sys.{host}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_hello_and_welcome_round_trip() {
        let hello = Hello {
            min_version: 5,
            max_version: 5,
            caps: 1 << 13,
            proc: Proc::new("mytool", Rank(3)).unwrap(),
            pid: 42,
            secret: None,
        };
        let th = ToolHello {
            hello,
            requested: true,
        };
        assert_eq!(ToolHello::decode(&th.encode()).unwrap(), th);
        assert!(ToolHello::decode(&[]).is_err());
        assert!(ToolHello::decode(&[7]).is_err());
        let tw = ToolWelcome {
            welcome: Welcome::refuse(Status::SUCCESS, Proc::new("srv", Rank(0)).unwrap(), ""),
            tool: Proc::new("tool", Rank(0)).unwrap(),
        };
        assert_eq!(ToolWelcome::decode(&tw.encode()).unwrap(), tw);
    }

    #[test]
    fn uri_and_rendezvous_round_trip() {
        let p = Proc::new("pmixrun.12.job", Rank(0)).unwrap();
        let uri = format_uri(&p, std::path::Path::new("/tmp/x/server.sock"));
        assert_eq!(uri, "pmixrun.12.job.0;unix:/tmp/x/server.sock");
        let (q, path) = parse_uri(&uri).unwrap();
        assert_eq!(q, p);
        assert_eq!(path, std::path::Path::new("/tmp/x/server.sock"));
        assert!(parse_uri("prterun.1.0;tcp4://127.0.0.1:5000").is_err());
        let r = Rendezvous {
            uri,
            version: "4.2.2".into(),
            pid: 7,
            uid: 1000,
            gid: 100,
        };
        assert_eq!(
            Rendezvous::parse(&r.format("Thu Nov 26 02:00:00 2026")).unwrap(),
            r
        );
        assert!(Rendezvous::parse("").is_err());
    }
}
