//! The listener and one thread per client connection: the handshake, then
//! the requests (`dispatch.rs`) until the connection ends, then what a lost
//! client means for its peers.
//!
//! The handshake either yields the client's [`Link`] or a [`Refusal`]:
//! every refusal takes the same path (logged, a refusing `WELCOME`, the
//! socket shut down), except for a peer that is already gone.

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::proto::{self, caps, msg, peer_state, Hello, Welcome};
use pmix_core::{Error, Proc, Result, Status};
use pmix_shm::fdpass::{self, PeerCred};
use pmix_shm::sync::Ordering;

use crate::admission::{read_first_frame, Admitted};
use crate::dispatch::dispatch;
use crate::inner::Inner;
use crate::link::Link;
use crate::ops::event::host_calls::drive_host_calls;
use crate::ops::event::replay::connected;
use crate::ops::fence;

/// How long the server waits for the host's `client_connected` answer.
const HOST_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a connection is not served.
#[derive(Debug)]
enum Refusal {
    /// Tell the peer: a refusing `WELCOME` with this status and reason.
    Refuse { status: Status, why: String },
    /// The peer is gone, or cannot be answered: nothing to tell.
    Gone,
}

fn refusal(status: Status, why: String) -> Refusal {
    Refusal::Refuse { status, why }
}

/// Starts the thread that accepts connections, one thread each.
pub(crate) fn spawn_listener(inner: Arc<Inner>, listener: UnixListener) -> Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("pmix-srv-listen".into())
        .spawn(move || {
            for stream in listener.incoming() {
                // ORDERING: Relaxed — shutdown also connects to wake us.
                if inner.stopping.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let accepted = Instant::now();
                // Before its handshake a connection holds a thread: their
                // number is bounded; one beyond is closed at once.
                let admitted = match inner.admission.admit() {
                    Ok(a) => a,
                    Err(n) => {
                        inner.log(format_args!(
                            "closed a new connection: {n} connections are in their handshake \
                             already (the limit, ServerConfig::max_handshakes)"
                        ));
                        drop(stream);
                        continue;
                    }
                };
                let inner = Arc::clone(&inner);
                let _ = std::thread::Builder::new()
                    .name("pmix-srv-conn".into())
                    .spawn(move || serve(&inner, stream, admitted, accepted));
            }
        })
        .map_err(|e| Error::with_context(Status::ERR_INIT, format!("listener thread: {e}")))
}

/// Closes every live connection (server shutdown).
pub(crate) fn close_all(inner: &Inner) {
    let links: Vec<Arc<Link>> = inner
        .state
        .lock()
        .registry
        .clients
        .values()
        .filter_map(|c| c.link.clone())
        .collect();
    for l in links {
        l.close();
    }
}

/// Reads one frame (blocking).
fn read_frame(stream: &mut UnixStream, reader: &mut FrameReader) -> Result<Option<Frame>> {
    fdpass::read_frame(stream, reader, Status::ERR_LOST_CONNECTION)
}

fn serve(inner: &Arc<Inner>, mut stream: UnixStream, admitted: Admitted, accepted: Instant) {
    // ORDERING: Relaxed — see `spawn_listener`.
    if inner.stopping.load(Ordering::Relaxed) {
        return;
    }
    let mut reader = FrameReader::new();
    let shaken = handshake(inner, &mut stream, accepted);
    drop(admitted);
    let link = match shaken {
        Ok(link) => link,
        Err(r) => return refuse(inner, &mut stream, r),
    };
    connected(inner, &link);
    loop {
        match read_frame(&mut stream, &mut reader) {
            Ok(Some(f)) => dispatch(inner, &link, f),
            Ok(None) => break,
            Err(e) => {
                inner.log(format_args!("dropping {:?}: {e}", link.proc));
                break;
            }
        }
    }
    lost(inner, &link);
}

/// The one refusal path: logs the reason, sends a refusing `WELCOME` and
/// shuts the socket down.
fn refuse(inner: &Inner, stream: &mut UnixStream, r: Refusal) {
    let Refusal::Refuse { status, why } = r else {
        return;
    };
    inner.log(format_args!("refused a client: {why}"));
    let w = Welcome::refuse(status, inner.me.clone(), why);
    if let Ok(f) = frame::encode_frame(inner.cfg.max_version, msg::WELCOME, 0, &w.encode()) {
        let _ = stream.write_all(&f);
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Runs the handshake; on success the registered connection, whose
/// client has the segment's descriptor.
fn handshake(
    inner: &Arc<Inner>,
    stream: &mut UnixStream,
    accepted: Instant,
) -> std::result::Result<Arc<Link>, Refusal> {
    let hello = read_hello(stream, accepted, inner.cfg.handshake_timeout)?;
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
    let proc = hello.proc;
    let slot = registered_slot(inner, &proc, &cred, &secret)?;
    host_accepts(inner, &proc)?;
    let writer = stream.try_clone().map_err(|_| Refusal::Gone)?;
    let link = Arc::new(Link::new(proc, version, agreed_caps, writer));
    attach(inner, &link)?;
    if let Some(cell) = inner.barriers.peer(slot) {
        cell.set_pid(cred.pid);
        cell.set_state(peer_state::CONNECTED);
    }
    let welcome = Welcome {
        status: Status::SUCCESS,
        version,
        caps: agreed_caps,
        client_slot: slot,
        server: inner.me.clone(),
        message: String::new(),
    };
    let sent = frame::encode_frame(version, msg::WELCOME, 0, &welcome.encode())
        .ok()
        .and_then(|f| fdpass::send_with_fds(stream, &f, &[inner.segment.fd()]).ok());
    if sent.is_none() {
        lost(inner, &link);
        return Err(Refusal::Gone);
    }
    let _ = stream.set_read_timeout(None);
    Ok(link)
}

/// The peer's `HELLO`, within `span` of the accept and at most
/// `admission::MAX_HELLO_BODY` bytes.
fn read_hello(
    stream: &mut UnixStream,
    accepted: Instant,
    span: Duration,
) -> std::result::Result<Hello, Refusal> {
    let bad = |why: String| refusal(Status::ERR_HANDSHAKE_FAILED, why);
    match read_first_frame(stream, accepted, span) {
        Ok(Some(f)) if f.header.msg_type == msg::HELLO => {
            Hello::decode(&f.body).map_err(|e| bad(format!("malformed hello: {e}")))
        }
        Ok(Some(f)) => Err(bad(format!(
            "expected hello, got message type {}",
            f.header.msg_type
        ))),
        Ok(None) => Err(Refusal::Gone),
        Err(e) if e.status() == Status::ERR_TIMEOUT => Err(refusal(e.status(), e.to_string())),
        Err(e) => Err(bad(format!("bad handshake: {e}"))),
    }
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

/// Asks the host whether it accepts `proc` (it may refuse it).
fn host_accepts(inner: &Inner, proc: &Proc) -> std::result::Result<(), Refusal> {
    let (tx, rx) = std::sync::mpsc::channel();
    inner.host.client_connected(
        proc,
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    match rx.recv_timeout(HOST_CONNECT_TIMEOUT) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(refusal(e.status(), format!("host refused {proc:?}: {e}"))),
        Err(_) => Err(refusal(
            Status::ERR_TIMEOUT,
            format!("host did not answer for {proc:?}"),
        )),
    }
}

/// Records `link` as its client's connection, unless the client was
/// deregistered or connected meanwhile.
fn attach(inner: &Inner, link: &Arc<Link>) -> std::result::Result<(), Refusal> {
    let mut st = inner.state.lock();
    match st.registry.clients.get_mut(&link.proc) {
        Some(c) if c.link.is_none() => {
            c.link = Some(Arc::clone(link));
            Ok(())
        }
        _ => Err(refusal(
            Status::ERR_NO_PERMISSIONS,
            format!("{:?} was deregistered or connected twice", link.proc),
        )),
    }
}

/// The connection ended: a clean end after finalize, otherwise the client
/// is dead — its namespace's barrier and every fence it was part of fail.
fn lost(inner: &Arc<Inner>, link: &Arc<Link>) {
    let (slot, finalized, barrier) = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let Some(c) = st.registry.clients.get_mut(&link.proc) else {
            return;
        };
        if !c.link.as_ref().is_some_and(|x| Arc::ptr_eq(x, link)) {
            return;
        }
        c.link = None;
        if !c.finalized {
            c.dead = true;
        }
        let (slot, fin) = (c.slot, c.finalized);
        let barrier = st
            .registry
            .nspaces
            .get(&link.proc.nspace)
            .and_then(|n| n.barrier);
        st.interest.forget(&link.proc);
        (slot, fin, barrier)
    };
    drive_host_calls(inner);
    // ORDERING: Relaxed — set before `stop` closes the connections; a
    // stale read only makes a stopping server mark a client dead.
    if finalized || inner.stopping.load(Ordering::Relaxed) {
        // A stopping server closed this connection itself: the client is
        // not dead, its server is. It sees the end of the socket and ends
        // its waits with PMIX_ERR_LOST_CONNECTION; marking it dead here
        // would race that with PMIX_ERR_PROC_ABORTED at its peers.
        return;
    }
    inner.log(format_args!(
        "{:?} disconnected without finalize",
        link.proc
    ));
    if let Some(cell) = inner.barriers.peer(slot) {
        cell.set_state(peer_state::DEAD);
    }
    if let Some(b) = barrier.and_then(|b| inner.barriers.barrier(b)) {
        b.poison(Status::ERR_PROC_ABORTED.0);
    }
    fence::proc_lost(inner, &link.proc);
}
