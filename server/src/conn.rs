//! The listener and one thread per client connection: handshake, then
//! request dispatch. Replies may be sent from any thread (host callbacks).

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;
use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::proto::{self, caps, msg, peer_state, Hello, Reply, Request, Welcome};
use pmix_core::{Error, Proc, Result, Status};
use pmix_shm::fdpass;
use pmix_shm::sync::Ordering;

use crate::{data, dmodex, event, fence, services, Inner};

/// How long a new connection may take to send its [`Hello`].
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the server waits for the host's `client_connected` answer.
const HOST_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// One client's connection after a successful handshake.
#[derive(Debug)]
pub(crate) struct Conn {
    pub(crate) proc: Proc,
    pub(crate) version: u16,
    pub(crate) caps: u64,
    writer: Mutex<UnixStream>,
}

impl Conn {
    /// Sends a reply to request `msg_type` with `tag`. A failed write means
    /// the client is gone; its reader thread notices. Tag 0 marks a one-way
    /// message: it never gets a reply (whatever went wrong was logged).
    pub(crate) fn reply(&self, msg_type: u16, tag: u32, reply: &Reply) {
        if tag == 0 {
            return;
        }
        if let Ok(f) =
            frame::encode_frame(self.version, msg::REPLY | msg_type, tag, &reply.encode())
        {
            let _ = self.writer.lock().write_all(&f);
        }
    }

    /// Shuts the socket down (the reader thread then ends).
    pub(crate) fn close(&self) {
        let _ = self.writer.lock().shutdown(std::net::Shutdown::Both);
    }
}

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
                let inner = Arc::clone(&inner);
                let _ = std::thread::Builder::new()
                    .name("pmix-srv-conn".into())
                    .spawn(move || serve(&inner, stream));
            }
        })
        .map_err(|e| Error::with_context(Status::ERR_INIT, format!("listener thread: {e}")))
}

/// Closes every live connection (server shutdown).
pub(crate) fn close_all(inner: &Inner) {
    let conns: Vec<Arc<Conn>> = inner
        .state
        .lock()
        .clients
        .values()
        .filter_map(|c| c.conn.clone())
        .collect();
    for c in conns {
        c.close();
    }
}

/// Reads one frame (blocking).
fn read_frame(stream: &mut UnixStream, reader: &mut FrameReader) -> Result<Option<Frame>> {
    fdpass::read_frame(stream, reader, Status::ERR_LOST_CONNECTION)
}

fn refuse(inner: &Inner, stream: &mut UnixStream, status: Status, why: String) {
    inner.log(format_args!("refused a client: {why}"));
    let w = Welcome::refuse(status, inner.me.clone(), why);
    if let Ok(f) = frame::encode_frame(inner.cfg.max_version, msg::WELCOME, 0, &w.encode()) {
        let _ = stream.write_all(&f);
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Runs the handshake; on success the registered connection.
fn handshake(
    inner: &Arc<Inner>,
    stream: &mut UnixStream,
    reader: &mut FrameReader,
) -> Option<Arc<Conn>> {
    let _ = stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT));
    let hello = match read_frame(stream, reader) {
        Ok(Some(f)) if f.header.msg_type == msg::HELLO => match Hello::decode(&f.body) {
            Ok(h) => h,
            Err(e) => {
                refuse(
                    inner,
                    stream,
                    Status::ERR_HANDSHAKE_FAILED,
                    format!("malformed hello: {e}"),
                );
                return None;
            }
        },
        Ok(Some(f)) => {
            let t = f.header.msg_type;
            refuse(
                inner,
                stream,
                Status::ERR_HANDSHAKE_FAILED,
                format!("expected hello, got message type {t}"),
            );
            return None;
        }
        Ok(None) => return None,
        Err(e) => {
            refuse(
                inner,
                stream,
                Status::ERR_HANDSHAKE_FAILED,
                format!("bad handshake: {e}"),
            );
            return None;
        }
    };
    let cred = match fdpass::peer_credentials(stream) {
        Ok(c) => c,
        Err(e) => {
            refuse(
                inner,
                stream,
                Status::ERR_INVALID_CRED,
                format!("no peer credentials: {e}"),
            );
            return None;
        }
    };
    let Some(version) = proto::agree_version(
        (hello.min_version, hello.max_version),
        (proto::MIN_PROTOCOL_VERSION, inner.cfg.max_version),
    ) else {
        refuse(
            inner,
            stream,
            Status::ERR_NOT_SUPPORTED,
            format!(
                "protocol versions {}..={} not served (server speaks {}..={})",
                hello.min_version,
                hello.max_version,
                proto::MIN_PROTOCOL_VERSION,
                inner.cfg.max_version
            ),
        );
        return None;
    };
    let agreed_caps = hello.caps & inner.cfg.caps & caps::for_version(version);
    let proc = hello.proc.clone();
    let slot = {
        let st = inner.state.lock();
        match st.clients.get(&proc) {
            None => {
                drop(st);
                refuse(
                    inner,
                    stream,
                    Status::ERR_NOT_FOUND,
                    format!("{proc:?} is not a registered client (pid {})", cred.pid),
                );
                return None;
            }
            Some(c) if c.uid != cred.uid || c.gid != cred.gid => {
                let (u, g) = (c.uid, c.gid);
                drop(st);
                refuse(
                    inner,
                    stream,
                    Status::ERR_INVALID_CRED,
                    format!(
                        "{proc:?}: peer uid/gid {}/{} do not match the registered {u}/{g}",
                        cred.uid, cred.gid
                    ),
                );
                return None;
            }
            Some(c) if c.conn.is_some() || c.finalized || c.dead => {
                drop(st);
                refuse(
                    inner,
                    stream,
                    Status::ERR_NO_PERMISSIONS,
                    format!("{proc:?} already connected once"),
                );
                return None;
            }
            Some(c) => c.slot,
        }
    };
    // The host may refuse the client.
    let (tx, rx) = std::sync::mpsc::channel();
    inner.host.client_connected(
        &proc,
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    match rx.recv_timeout(HOST_CONNECT_TIMEOUT) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            refuse(
                inner,
                stream,
                e.status(),
                format!("host refused {proc:?}: {e}"),
            );
            return None;
        }
        Err(_) => {
            refuse(
                inner,
                stream,
                Status::ERR_TIMEOUT,
                format!("host did not answer for {proc:?}"),
            );
            return None;
        }
    }
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return None,
    };
    let conn = Arc::new(Conn {
        proc: proc.clone(),
        version,
        caps: agreed_caps,
        writer: Mutex::new(writer),
    });
    {
        let mut st = inner.state.lock();
        match st.clients.get_mut(&proc) {
            Some(c) if c.conn.is_none() => c.conn = Some(Arc::clone(&conn)),
            _ => {
                drop(st);
                refuse(
                    inner,
                    stream,
                    Status::ERR_NO_PERMISSIONS,
                    format!("{proc:?} was deregistered or connected twice"),
                );
                return None;
            }
        }
    }
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
        lost(inner, &conn);
        return None;
    }
    let _ = stream.set_read_timeout(None);
    Some(conn)
}

fn serve(inner: &Arc<Inner>, mut stream: UnixStream) {
    // ORDERING: Relaxed — see `spawn_listener`.
    if inner.stopping.load(Ordering::Relaxed) {
        return;
    }
    let mut reader = FrameReader::new();
    let Some(conn) = handshake(inner, &mut stream, &mut reader) else {
        return;
    };
    event::connected(inner, &conn);
    loop {
        match read_frame(&mut stream, &mut reader) {
            Ok(Some(f)) => dispatch(inner, &conn, f),
            Ok(None) => break,
            Err(e) => {
                inner.log(format_args!("dropping {:?}: {e}", conn.proc));
                break;
            }
        }
    }
    lost(inner, &conn);
}

/// The connection ended: a clean end after finalize, otherwise the client
/// is dead — its namespace's barrier and every fence it was part of fail.
fn lost(inner: &Arc<Inner>, conn: &Arc<Conn>) {
    let (slot, finalized, barrier) = {
        let mut st = inner.state.lock();
        let Some(c) = st.clients.get_mut(&conn.proc) else {
            return;
        };
        if !c.conn.as_ref().is_some_and(|x| Arc::ptr_eq(x, conn)) {
            return;
        }
        c.conn = None;
        if !c.finalized {
            c.dead = true;
        }
        let (slot, fin) = (c.slot, c.finalized);
        let barrier = st.nspaces.get(&conn.proc.nspace).and_then(|n| n.barrier);
        st.events.interest.forget(&conn.proc);
        (slot, fin, barrier)
    };
    event::drive_host_calls(inner);
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
        conn.proc
    ));
    if let Some(cell) = inner.barriers.peer(slot) {
        cell.set_state(peer_state::DEAD);
    }
    if let Some(b) = barrier.and_then(|b| inner.barriers.barrier(b)) {
        b.poison(Status::ERR_PROC_ABORTED.0);
    }
    fence::proc_lost(inner, &conn.proc);
}

fn dispatch(inner: &Arc<Inner>, conn: &Arc<Conn>, f: Frame) {
    let (t, tag) = (f.header.msg_type, f.header.tag);
    let req = match Request::decode(t, &f.body) {
        Ok(r) => r,
        Err(e) => {
            conn.reply(t, tag, &Reply::error(&e));
            return;
        }
    };
    // One-way messages (tag 0) never get a reply.
    let one_way = tag == 0 && matches!(req, Request::Notify { .. } | Request::EventInterest { .. });
    if let Some(cap) = req.needs_cap() {
        if conn.caps & cap == 0 {
            let e = Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                format!("request type {t} needs capability {cap:#x}, not agreed with this client"),
            );
            if one_way {
                inner.log(format_args!("{:?}: {e}", conn.proc));
            } else {
                conn.reply(t, tag, &Reply::error(&e));
            }
            return;
        }
    }
    match req {
        Request::Finalize => {
            let c = Arc::clone(conn);
            let i = Arc::clone(inner);
            inner.host.client_finalized(
                &conn.proc,
                Box::new(move |r| {
                    let slot = {
                        let mut st = i.state.lock();
                        st.events.interest.forget(&c.proc);
                        st.clients.get_mut(&c.proc).map(|rec| {
                            rec.finalized = true;
                            rec.slot
                        })
                    };
                    event::drive_host_calls(&i);
                    if let Some(cell) = slot.and_then(|s| i.barriers.peer(s)) {
                        cell.set_state(peer_state::FINALIZED);
                    }
                    let reply = match r {
                        Ok(()) => Reply::status(Status::SUCCESS),
                        Err(e) => Reply::error(&e),
                    };
                    c.reply(msg::FINALIZE, tag, &reply);
                }),
            );
        }
        Request::Abort {
            status,
            message,
            procs,
        } => {
            let c = Arc::clone(conn);
            inner.host.abort(
                &conn.proc,
                status,
                &message,
                &procs,
                Box::new(move |r| {
                    let reply = match r {
                        Ok(()) => Reply::status(Status::SUCCESS),
                        Err(e) => Reply::error(&e),
                    };
                    c.reply(msg::ABORT, tag, &reply);
                }),
            );
        }
        Request::Fence { procs, info } => fence::arrive(inner, conn, tag, procs, info),
        Request::Get { proc, key, info } => dmodex::get(inner, conn, tag, proc, key, info),
        Request::Commit { entries } => {
            let r = match data::socket_commit(inner, &conn.proc, &entries) {
                Ok(()) => Reply::status(Status::SUCCESS),
                Err(e) => Reply::error(&e),
            };
            conn.reply(msg::COMMIT, tag, &r);
        }
        Request::Notify { event, delivered } => {
            event::client_notify(inner, conn, tag, event, delivered);
        }
        Request::EventInterest { codes, default } => {
            event::set_interest(inner, &conn.proc, &codes, default);
            if !one_way {
                conn.reply(msg::EVENT_INTEREST, tag, &Reply::status(Status::SUCCESS));
            }
        }
        Request::Log { data, directives } => services::log(inner, conn, tag, data, directives),
        Request::Publish { info } => services::publish(inner, conn, tag, info),
        Request::Lookup { keys, info } => services::lookup(inner, conn, tag, keys, info),
        Request::Unpublish { keys, info } => services::unpublish(inner, conn, tag, keys, info),
    }
}
