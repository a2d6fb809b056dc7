//! A connection's handshake, step by step as the reactor (`reactor.rs`)
//! drives it: the `HELLO` is checked ([`check`]: credentials, protocol
//! version, client secret, pid), the host is asked whether it accepts the
//! client ([`ask_host`], answered through the reactor's inbox, never
//! waited for), and the connection becomes the client's [`Link`] with the
//! segment's descriptor passed in its `WELCOME` ([`welcome`]).
//!
//! Every step may end in a [`Refusal`]: every refusal takes the same path
//! ([`refuse`]: logged, a refusing `WELCOME`, the socket shut down),
//! except for a peer that is already gone.

use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use mio::Token;
use pmix_core::codec::frame::{self, Frame};
use pmix_core::proto::{self, caps, msg, peer_state, Hello, Welcome};
use pmix_core::{Error, Proc, Status};
use pmix_shm::fdpass::{self, PeerCred};

use crate::departure::lost;
use crate::inner::Inner;
use crate::link::Link;
use crate::nudge::{Nudge, Nudges};
use crate::ops::event::server_errors;
use crate::outbound::send_now;

/// How long the server waits for the host's `client_connected` answer.
pub(crate) const HOST_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a connection is not served.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Tell the peer: a refusing `WELCOME` with this status and reason.
    Refuse { status: Status, why: String },
    /// The peer is gone, or cannot be answered: nothing to tell.
    Gone,
}

pub(crate) fn refusal(status: Status, why: String) -> Refusal {
    Refusal::Refuse { status, why }
}

/// A hello that passed the checks: what the welcome needs.
#[derive(Debug)]
pub(crate) struct Checked {
    pub(crate) proc: Proc,
    version: u16,
    caps: u64,
    slot: u32,
    pid: u32,
    /// A tool (`tool.rs`): its welcome is a `TOOL_WELCOME`.
    tool: bool,
}

impl Checked {
    /// A tool's, once `tool::admit` registered it.
    pub(crate) fn new(proc: Proc, version: u16, caps: u64, slot: u32, pid: u32) -> Checked {
        Checked {
            proc,
            version,
            caps,
            slot,
            pid,
            tool: true,
        }
    }
}

/// The one refusal path: logs the reason, sends a refusing `WELCOME` (as
/// far as the socket takes it at once: a fresh socket takes it whole)
/// and shuts the socket down.
pub(crate) fn refuse(inner: &Inner, stream: &UnixStream, r: Refusal) {
    if let Refusal::Refuse { status, why } = r {
        inner.log(format_args!("refused a client: {why}"));
        server_errors::report(inner, status, None, &format!("refused a client: {why}"));
        let w = Welcome::refuse(status, inner.me.clone(), why);
        if let Ok(f) = frame::encode_frame(inner.cfg.max_version, msg::WELCOME, 0, &w.encode()) {
            let _ = send_now(stream, &f);
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// The first frame must be a `HELLO` of a registered client of the
/// peer's uid/gid, presenting its secret, in a protocol version served.
pub(crate) fn check(
    inner: &Inner,
    stream: &UnixStream,
    first: Frame,
) -> std::result::Result<Checked, Refusal> {
    let bad = |why: String| refusal(Status::ERR_HANDSHAKE_FAILED, why);
    if first.header.msg_type != msg::HELLO {
        return Err(bad(format!(
            "expected hello, got message type {}",
            first.header.msg_type
        )));
    }
    let hello = Hello::decode(&first.body).map_err(|e| bad(format!("malformed hello: {e}")))?;
    let cred = fdpass::peer_credentials(stream).map_err(|e| {
        refusal(
            Status::ERR_INVALID_CRED,
            format!("no peer credentials: {e}"),
        )
    })?;
    let version = proto::agree_version(
        (hello.min_version, hello.max_version),
        (proto::MIN_PROTOCOL_VERSION, inner.cfg.max_version),
    )
    .ok_or_else(|| {
        refusal(
            Status::ERR_NOT_SUPPORTED,
            format!(
                "protocol versions {}..={} not served (server speaks {}..={})",
                hello.min_version,
                hello.max_version,
                proto::MIN_PROTOCOL_VERSION,
                inner.cfg.max_version
            ),
        )
    })?;
    let agreed_caps = hello.caps & inner.cfg.caps & caps::for_version(version);
    let secret = hello.secret.unwrap_or_default();
    let slot = registered_slot(inner, &hello.proc, &cred, &secret)?;
    Ok(Checked {
        proc: hello.proc,
        version,
        caps: agreed_caps,
        slot,
        pid: cred.pid,
        tool: false,
    })
}

/// The client slot of `proc`, a registered client of `cred`'s uid/gid
/// that never connected before, presenting its own secret and, when the
/// host told the server the pid it launched, coming from that pid.
fn registered_slot(
    inner: &Inner,
    proc: &Proc,
    cred: &PeerCred,
    secret: &str,
) -> std::result::Result<u32, Refusal> {
    let st = inner.state.lock();
    let pid = cred.pid;
    match st.registry.clients.get(proc) {
        None => Err(refusal(
            Status::ERR_NOT_FOUND,
            format!("{proc:?} is not a registered client (pid {pid})"),
        )),
        Some(c) if c.uid != cred.uid || c.gid != cred.gid => Err(refusal(
            Status::ERR_INVALID_CRED,
            format!(
                "{proc:?}: peer uid/gid {}/{} do not match the registered {}/{} \
                 (pid {pid}): the server's socket belongs to another user",
                cred.uid, cred.gid, c.uid, c.gid
            ),
        )),
        Some(c) if !crate::secret::matches(&c.secret, secret) => Err(refusal(
            Status::ERR_INVALID_CRED,
            format!(
                "pid {pid} claims to be {proc:?} without its client secret \
                 ({}): it is not the process the host launched as that rank",
                if secret.is_empty() {
                    "PMIXRS_CLIENT_SECRET not presented"
                } else {
                    "a different PMIXRS_CLIENT_SECRET"
                }
            ),
        )),
        Some(c) if c.pid.is_some_and(|p| !crate::secret::descends_from(pid, p)) => Err(refusal(
            Status::ERR_INVALID_CRED,
            format!(
                "pid {pid} claims to be {proc:?}, which the host launched as pid {} \
                 (and pid {pid} is not that process or one it started)",
                c.pid.unwrap_or(0)
            ),
        )),
        // The same process initialising again after its finalize (OpenPMIx
        // allows PMIx_Init after PMIx_Finalize; its `simple` example does
        // it), even before the end of its old connection was seen.
        Some(c)
            if c.finalized
                && !c.dead
                && inner.barriers.peer(c.slot).is_some_and(|p| p.pid() == pid) =>
        {
            Ok(c.slot)
        }
        Some(c) if c.link.is_some() || c.finalized || c.dead => {
            let holder = inner.barriers.peer(c.slot).map_or(0, |p| p.pid());
            Err(refusal(
                Status::ERR_NO_PERMISSIONS,
                format!("pid {pid}: {proc:?} already connected once (pid {holder})"),
            ))
        }
        Some(c) => Ok(c.slot),
    }
}

/// Asks the host whether it accepts `proc` (it may refuse it); its answer
/// comes to the reactor as [`Nudge::HostAnswered`] for `token`.
pub(crate) fn ask_host(inner: &Inner, proc: &Proc, token: Token, nudges: &Arc<Nudges>) {
    let nudges = Arc::clone(nudges);
    inner.host.client_connected(
        proc,
        Box::new(move |r| nudges.send(Nudge::HostAnswered(token, r))),
    );
}

/// The host's answer, as a refusal when it refused.
pub(crate) fn host_answer(
    proc: &Proc,
    r: pmix_core::Result<()>,
) -> std::result::Result<(), Refusal> {
    r.map_err(|e: Error| refusal(e.status(), format!("host refused {proc:?}: {e}")))
}

/// The host did not answer in time.
pub(crate) fn host_silent(proc: &Proc) -> Refusal {
    refusal(
        Status::ERR_TIMEOUT,
        format!("host did not answer for {proc:?}"),
    )
}

/// The accepted client: its connection, recorded as the client's, and
/// the `WELCOME` with the segment's descriptor on its way.
pub(crate) fn welcome(
    inner: &Arc<Inner>,
    stream: &Arc<UnixStream>,
    c: Checked,
    (token, nudges): (Token, &Arc<Nudges>),
) -> std::result::Result<Arc<Link>, Refusal> {
    let link = Arc::new(Link::new(
        c.proc,
        (c.version, c.caps),
        Arc::clone(stream),
        (token, Arc::clone(nudges)),
        inner.cfg.max_outbound_bytes,
    ));
    attach(inner, &link)?;
    if let Some(cell) = inner.barriers.peer(c.slot) {
        cell.set_pid(c.pid);
        cell.set_state(peer_state::CONNECTED);
    }
    let welcome = Welcome {
        status: Status::SUCCESS,
        version: c.version,
        caps: c.caps,
        client_slot: c.slot,
        server: inner.me.clone(),
        message: String::new(),
    };
    let (kind, body) = if c.tool {
        let tw = proto::ToolWelcome {
            welcome,
            tool: link.proc.clone(),
        };
        (msg::TOOL_WELCOME, tw.encode())
    } else {
        (msg::WELCOME, welcome.encode())
    };
    let sent = frame::encode_frame(c.version, kind, 0, &body)
        .ok()
        .and_then(|f| link.send_welcome(&f, inner.segment.fd()).ok());
    if sent.is_none() {
        lost(inner, &link);
        return Err(Refusal::Gone);
    }
    Ok(link)
}

/// Records `link` as its client's connection, unless the client was
/// deregistered or connected meanwhile.
fn attach(inner: &Inner, link: &Arc<Link>) -> std::result::Result<(), Refusal> {
    let mut st = inner.state.lock();
    match st.registry.clients.get_mut(&link.proc) {
        // (a finalized client's old link, if its end was not seen yet, is
        // replaced: `departure::detach` then ignores that end)
        Some(c) if c.link.is_none() || c.finalized => {
            c.link = Some(Arc::clone(link));
            // a re-init after finalize starts a new session
            c.finalized = false;
            Ok(())
        }
        _ => Err(refusal(
            Status::ERR_NO_PERMISSIONS,
            format!("{:?} was deregistered or connected twice", link.proc),
        )),
    }
}
