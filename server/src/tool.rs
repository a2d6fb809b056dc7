//! A tool's handshake (`TOOL_HELLO`, protocol version 5): a process the
//! host did not launch attaches to the server.
//!
//! 1. [`check`]: the server offers tools, the versions meet at 5 or more,
//!    and the peer (its uid from `SO_PEERCRED`) is the server's own user
//!    or root: another user's tool is refused with a message naming both
//!    uids. (The socket's directory is 0700 as well, so another user
//!    normally cannot even connect.)
//! 2. [`ask_host`]: the host gives the tool its identity
//!    ([`Host::tool_connected`](crate::Host::tool_connected)), through the
//!    reactor's inbox.
//! 3. [`admit`]: the identity becomes a one-process namespace and a
//!    registered client of the peer's uid/gid, so the usual welcome
//!    follows (as a `TOOL_WELCOME` carrying the identity) and the tool is
//!    served like any client; [`forget`] undoes this when its connection
//!    ends.

use std::os::unix::net::UnixStream;
use std::sync::Arc;

use mio::Token;
use pmix_core::codec::frame::Frame;
use pmix_core::proto::{self, caps, ToolHello};
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};
use pmix_shm::fdpass;

use crate::data::registration;
use crate::handshake::{refusal, Checked, Refusal};
use crate::inner::Inner;
use crate::nudge::{Nudge, Nudges};

/// A tool's hello that passed the checks.
#[derive(Debug)]
pub(crate) struct ToolChecked {
    pub(crate) hello: ToolHello,
    pub(crate) version: u16,
    pub(crate) caps: u64,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) pid: u32,
}

/// Step 1: the `TOOL_HELLO`'s checks.
pub(crate) fn check(
    inner: &Inner,
    stream: &UnixStream,
    first: &Frame,
) -> std::result::Result<ToolChecked, Refusal> {
    let hello = ToolHello::decode(&first.body).map_err(|e| {
        refusal(
            Status::ERR_HANDSHAKE_FAILED,
            format!("malformed tool hello: {e}"),
        )
    })?;
    let cred = fdpass::peer_credentials(stream).map_err(|e| {
        refusal(
            Status::ERR_INVALID_CRED,
            format!("no peer credentials: {e}"),
        )
    })?;
    if !inner.cfg.tool_support || inner.cfg.caps & caps::TOOL == 0 {
        return Err(refusal(
            Status::ERR_NOT_SUPPORTED,
            format!("tool pid {}: this server does not accept tools", cred.pid),
        ));
    }
    let own = rustix::process::getuid().as_raw();
    if cred.uid != own && cred.uid != 0 {
        return Err(refusal(
            Status::ERR_NO_PERMISSIONS,
            format!(
                "tool pid {} runs as uid {}, but this server (pid {}) belongs to uid {}: \
                 only its own user's tools (or root's) may attach",
                cred.pid,
                cred.uid,
                std::process::id(),
                own
            ),
        ));
    }
    let h = &hello.hello;
    let version = proto::agree_version(
        (h.min_version, h.max_version),
        (proto::MIN_PROTOCOL_VERSION, inner.cfg.max_version),
    )
    .filter(|v| *v >= 5)
    .ok_or_else(|| {
        refusal(
            Status::ERR_NOT_SUPPORTED,
            format!(
                "tool pid {}: tools need protocol version 5 (the tool speaks {}..={}, \
                 the server up to {})",
                cred.pid, h.min_version, h.max_version, inner.cfg.max_version
            ),
        )
    })?;
    let caps = h.caps & inner.cfg.caps & caps::for_version(version);
    Ok(ToolChecked {
        hello,
        version,
        caps,
        uid: cred.uid,
        gid: cred.gid,
        pid: cred.pid,
    })
}

/// What the host is told about a tool: the identity it asks for, if any,
/// its uid, gid and pid.
pub(crate) fn host_info(c: &ToolChecked) -> Vec<Info> {
    let mut pairs = Vec::new();
    if c.hello.requested {
        let p = &c.hello.hello.proc;
        pairs.push((attrs::TOOL_NSPACE, Value::String(p.nspace.as_str().into())));
        pairs.push((attrs::TOOL_RANK, Value::Uint32(p.rank.0)));
    }
    pairs.push((attrs::USERID, Value::Uint32(c.uid)));
    pairs.push((attrs::GRPID, Value::Uint32(c.gid)));
    pairs.push((
        attrs::PROC_PID,
        Value::Pid(i32::try_from(c.pid).unwrap_or(i32::MAX)),
    ));
    pairs
        .into_iter()
        .filter_map(|(k, v)| Info::new(k, v).ok())
        .collect()
}

/// Step 2: asks the host for the tool's identity; the answer comes to the
/// reactor as [`Nudge::ToolIdentity`] for `token`.
pub(crate) fn ask_host(inner: &Inner, c: &ToolChecked, token: Token, nudges: &Arc<Nudges>) {
    let nudges = Arc::clone(nudges);
    inner.host.tool_connected(
        &host_info(c),
        Box::new(move |r| nudges.send(Nudge::ToolIdentity(token, r))),
    );
}

/// Step 3: the tool's namespace and client record, and what the welcome
/// needs.
pub(crate) fn admit(
    inner: &Inner,
    c: &ToolChecked,
    proc: Proc,
) -> std::result::Result<Checked, Refusal> {
    let refuse = |e: pmix_core::Error| {
        refusal(
            e.status(),
            format!("tool pid {}: cannot register it as {proc:?}: {e}", c.pid),
        )
    };
    if !proc.rank.is_valid() {
        return Err(refusal(
            Status::ERR_BAD_PARAM,
            format!(
                "the host gave tool pid {} the special rank {:?}",
                c.pid, proc.rank
            ),
        ));
    }
    let fresh_nspace = !inner
        .state
        .lock()
        .registry
        .nspaces
        .get(&proc.nspace)
        .is_some_and(|n| n.registered);
    if fresh_nspace {
        let size = proc.rank.0 + 1;
        let info: Vec<Info> = [
            (attrs::JOB_SIZE, Value::Uint32(size)),
            (attrs::REQUESTOR_IS_TOOL, Value::Bool(true)),
        ]
        .into_iter()
        .filter_map(|(k, v)| Info::new(k, v).ok())
        .collect();
        registration::register_nspace(inner, &proc.nspace, 1, &info).map_err(refuse)?;
    }
    if let Err(e) = registration::register_client(inner, &proc, c.uid, c.gid) {
        if fresh_nspace {
            let _ = registration::deregister_nspace(inner, &proc.nspace);
        }
        return Err(refuse(e));
    }
    let slot = inner
        .state
        .lock()
        .registry
        .slot_of(&proc)
        .unwrap_or(u32::MAX);
    inner.state.lock().tools.insert(proc.clone(), fresh_nspace);
    Ok(Checked::new(proc, c.version, c.caps, slot, c.pid))
}

/// The tool `proc`'s connection ended: its client record goes, and its
/// namespace when [`admit`] made it.
pub(crate) fn forget(inner: &Inner, proc: &Proc) {
    let Some(own_nspace) = inner.state.lock().tools.remove(proc) else {
        return;
    };
    let _ = registration::deregister_client(inner, proc);
    if own_nspace {
        let _ = registration::deregister_nspace(inner, &proc.nspace);
    }
}

/// The identity a host without a policy of its own gives a tool: the one
/// it asked for, else `pmix.tool.<pid>` rank 0.
pub(crate) fn default_identity(info: &[Info]) -> pmix_core::Result<Proc> {
    let find = |k: &str| info.iter().find(|i| i.is(k)).map(|i| &i.value);
    if let Some(Value::String(ns)) = find(attrs::TOOL_NSPACE) {
        let rank = match find(attrs::TOOL_RANK) {
            Some(v) => v.to_u64().map_or(0, |r| u32::try_from(r).unwrap_or(0)),
            None => 0,
        };
        return Ok(Proc::from_parts(Nspace::new(ns)?, Rank(rank)));
    }
    let pid = find(attrs::PROC_PID)
        .and_then(|v| v.to_i64().ok())
        .unwrap_or(0);
    Ok(Proc::from_parts(
        Nspace::new(format!("pmix.tool.{pid}"))?,
        Rank(0),
    ))
}
