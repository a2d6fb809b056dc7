//! The control-plane connection: handshake, the reader thread that routes
//! replies to their requests, and request/reply with deadlines.

use std::collections::HashMap;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use pmix_core::codec::frame::{self, Frame, FrameReader};
use pmix_core::proto::iof::IofChunk;
use pmix_core::proto::{msg, Hello, Reply, Request, ToolHello, ToolWelcome, Welcome};
use pmix_core::{Error, Result, Status};
use pmix_shm::fdpass;
use pmix_shm::sync::{AtomicBool, AtomicU32, Ordering};

/// Callback run with a request's reply (on the reader thread).
type Waiter = Box<dyn FnOnce(Reply) + Send>;
/// Called once when the server goes away without a finalize.
pub(crate) type LostHook = Box<dyn FnOnce() + Send>;
/// Called when a message from the server cannot be unpacked.
pub(crate) type CommFailureHook = Box<dyn Fn(String) + Send>;
/// Called with each chunk of forwarded output (`IOF_DELIVER`).
pub(crate) type IofHook = Arc<dyn Fn(IofChunk) + Send + Sync>;

/// Where replies go, and whether the server is still there.
struct Routes {
    waiters: HashMap<u32, Waiter>,
    lost: bool,
    on_lost: Option<LostHook>,
    on_comm_failure: Option<CommFailureHook>,
    on_iof: Option<IofHook>,
}

/// The socket to the server.
pub(crate) struct Conn {
    writer: Mutex<UnixStream>,
    version: u16,
    next_tag: AtomicU32,
    routes: Arc<Mutex<Routes>>,
    closed: Arc<AtomicBool>,
    /// Mirrors `Routes::lost` for the shared-memory waits' polling.
    lost: Arc<AtomicBool>,
    reader: Mutex<Option<JoinHandle<()>>>,
    /// The reader thread's id (it runs reply callbacks).
    reader_id: std::thread::ThreadId,
    /// The server's pid as the kernel saw it at connect (`SO_PEERCRED`).
    server_pid: Option<u32>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

fn lost_error(why: &str) -> Error {
    Error::with_context(Status::ERR_LOST_CONNECTION, why.to_owned())
}

/// Reads one frame (blocking).
fn read_frame(stream: &mut UnixStream, reader: &mut FrameReader) -> Result<Option<Frame>> {
    fdpass::read_frame(stream, reader, Status::ERR_LOST_CONNECTION)
}

/// The outcome of a successful handshake.
pub(crate) struct Handshake {
    pub(crate) conn: Conn,
    pub(crate) welcome: Welcome,
    pub(crate) segment_fd: OwnedFd,
    /// A tool's identity, from its `TOOL_WELCOME`.
    pub(crate) tool: Option<pmix_core::Proc>,
}

/// The opening message: a client's hello, or a tool's.
pub(crate) enum Opening<'a> {
    Client(&'a Hello),
    Tool(&'a ToolHello),
}

/// Connects, sends `hello`, and waits (at most `timeout`) for the welcome
/// and the segment descriptor.
pub(crate) fn connect(path: &Path, hello: &Hello, timeout: Duration) -> Result<Handshake> {
    open(path, Opening::Client(hello), timeout)
}

/// As [`connect`], for either kind of opening.
pub(crate) fn open(path: &Path, opening: Opening<'_>, timeout: Duration) -> Result<Handshake> {
    let init_err = |what: String| Error::with_context(Status::ERR_INIT, what);
    let mut stream = UnixStream::connect(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            let owner = std::fs::metadata(path)
                .or_else(|_| std::fs::metadata(path.parent().unwrap_or(path)))
                .map(|m| std::os::unix::fs::MetadataExt::uid(&m).to_string())
                .unwrap_or_else(|_| "another user".to_owned());
            return Error::with_context(
                Status::ERR_NO_PERMISSIONS,
                format!(
                    "connect {}: {e}: the server belongs to uid {owner}, and this process \
                     runs as uid {}; only the server's own user may attach",
                    path.display(),
                    rustix::process::getuid().as_raw()
                ),
            );
        }
        Error::with_context(
            Status::ERR_UNREACH,
            format!("connect {}: {e}", path.display()),
        )
    })?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| init_err(format!("socket: {e}")))?;
    let f = match opening {
        Opening::Client(h) => frame::encode_frame(h.max_version, msg::HELLO, 0, &h.encode())?,
        Opening::Tool(t) => {
            frame::encode_frame(t.hello.max_version, msg::TOOL_HELLO, 0, &t.encode())?
        }
    };
    stream
        .write_all(&f)
        .map_err(|e| lost_error(&format!("handshake write: {e}")))?;
    // The descriptor arrives with the first bytes of the welcome.
    let mut reader = FrameReader::new();
    let mut buf = [0u8; 4096];
    let (n, mut fds) = fdpass::recv_with_fds(&stream, &mut buf, 1).map_err(|e| {
        if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut {
            Error::with_context(
                Status::ERR_TIMEOUT,
                "the server did not answer the handshake",
            )
        } else {
            lost_error(&format!("handshake read: {e}"))
        }
    })?;
    if n == 0 {
        return Err(lost_error(
            "the server closed the connection during the handshake",
        ));
    }
    reader.push(&buf[..n]);
    let f = read_frame(&mut stream, &mut reader)?
        .ok_or_else(|| lost_error("the server closed the connection during the handshake"))?;
    let (welcome, tool) = match f.header.msg_type {
        msg::WELCOME => (Welcome::decode(&f.body)?, None),
        msg::TOOL_WELCOME => {
            let tw = ToolWelcome::decode(&f.body)?;
            (tw.welcome, Some(tw.tool))
        }
        t => {
            return Err(Error::with_context(
                Status::ERR_HANDSHAKE_FAILED,
                format!("expected a welcome, got message type {t}"),
            ))
        }
    };
    if !welcome.status.is_success() {
        return Err(Error::with_context(
            welcome.status,
            format!("the server refused the connection: {}", welcome.message),
        ));
    }
    let segment_fd = fds.pop().ok_or_else(|| {
        Error::with_context(Status::ERR_HANDSHAKE_FAILED, "no segment descriptor")
    })?;
    stream
        .set_read_timeout(None)
        .map_err(|e| init_err(format!("socket: {e}")))?;
    let server_pid = fdpass::peer_credentials(&stream).ok().map(|c| c.pid);
    let writer = stream
        .try_clone()
        .map_err(|e| init_err(format!("socket: {e}")))?;
    let routes = Arc::new(Mutex::new(Routes {
        waiters: HashMap::new(),
        lost: false,
        on_lost: None,
        on_comm_failure: None,
        on_iof: None,
    }));
    let closed = Arc::new(AtomicBool::new(false));
    let lost = Arc::new(AtomicBool::new(false));
    let reader_thread = {
        let routes = Arc::clone(&routes);
        let closed = Arc::clone(&closed);
        let lost = Arc::clone(&lost);
        std::thread::Builder::new()
            .name("pmix-client-rx".into())
            .spawn(move || reader_loop(stream, reader, &routes, &closed, &lost))
            .map_err(|e| init_err(format!("reader thread: {e}")))?
    };
    Ok(Handshake {
        conn: Conn {
            writer: Mutex::new(writer),
            version: welcome.version,
            next_tag: AtomicU32::new(1),
            routes,
            closed,
            lost,
            reader_id: reader_thread.thread().id(),
            reader: Mutex::new(Some(reader_thread)),
            server_pid,
        },
        welcome,
        segment_fd,
        tool,
    })
}

fn reader_loop(
    mut stream: UnixStream,
    mut reader: FrameReader,
    routes: &Mutex<Routes>,
    closed: &AtomicBool,
    lost: &AtomicBool,
) {
    loop {
        match read_frame(&mut stream, &mut reader) {
            Ok(Some(f)) if f.header.msg_type & msg::REPLY != 0 => {
                let reply = Reply::decode(&f.body).unwrap_or_else(|e| {
                    if let Some(hook) = &routes.lock().on_comm_failure {
                        hook(format!("a reply from the server cannot be unpacked: {e}"));
                    }
                    Reply::error(&e)
                });
                let w = routes.lock().waiters.remove(&f.header.tag);
                if let Some(w) = w {
                    w(reply);
                }
            }
            Ok(Some(f)) if f.header.msg_type == msg::IOF_DELIVER => {
                match IofChunk::decode(&f.body) {
                    Ok(c) => {
                        // Cloned out: the handlers run without the lock.
                        let h = routes.lock().on_iof.clone();
                        if let Some(h) = h {
                            h(c);
                        }
                    }
                    Err(e) => {
                        if let Some(hook) = &routes.lock().on_comm_failure {
                            hook(format!("forwarded output cannot be unpacked: {e}"));
                        }
                    }
                }
            }
            // Other unsolicited messages: none are defined.
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    let (waiters, on_lost): (Vec<Waiter>, _) = {
        let mut r = routes.lock();
        r.lost = true;
        // ORDERING: Release — pairs with the Acquire load in `is_lost`: a
        // waiter that sees the flag sees the routes drained.
        lost.store(true, Ordering::Release);
        (
            r.waiters.drain().map(|(_, w)| w).collect(),
            r.on_lost.take(),
        )
    };
    // ORDERING: Relaxed — informational; the routes lock orders the rest.
    let by_finalize = closed.load(Ordering::Relaxed);
    let why = if by_finalize {
        "the connection was closed by finalize"
    } else {
        "the server closed the connection"
    };
    for w in waiters {
        w(Reply::error(&lost_error(why)));
    }
    if !by_finalize {
        if let Some(hook) = on_lost {
            hook();
        }
    }
}

impl Conn {
    /// The agreed protocol version.
    pub(crate) fn version(&self) -> u16 {
        self.version
    }

    /// Sends `req`; `done` runs with the reply on the reader thread (or
    /// here, with an error, when the server is gone).
    pub(crate) fn send(&self, req: &Request, done: Waiter) {
        // ORDERING: Relaxed — a unique counter, no data published with it.
        let mut tag = self.next_tag.fetch_add(1, Ordering::Relaxed);
        if tag == 0 {
            // tag 0 is a one-way message: never wait for its reply
            // ORDERING: Relaxed — as above.
            tag = self.next_tag.fetch_add(1, Ordering::Relaxed);
        }
        {
            let mut r = self.routes.lock();
            if r.lost {
                drop(r);
                return done(Reply::error(&lost_error("no connection to the server")));
            }
            r.waiters.insert(tag, done);
        }
        let ok = frame::encode_frame(self.version, req.msg_type(), tag, &req.encode())
            .ok()
            .is_some_and(|f| self.writer.lock().write_all(&f).is_ok());
        if !ok {
            if let Some(w) = self.routes.lock().waiters.remove(&tag) {
                w(Reply::error(&lost_error("write to the server failed")));
            }
        }
    }

    /// Sends `req` and waits for its reply until `deadline` (`None`: until
    /// the reply or the loss of the connection).
    /// Sends a one-way message (tag 0: the server sends no reply).
    ///
    /// # Errors
    /// `PMIX_ERR_LOST_CONNECTION` when the connection is gone.
    pub(crate) fn post(&self, req: &Request) -> Result<()> {
        if self.routes.lock().lost {
            return Err(lost_error("no connection to the server"));
        }
        let f = frame::encode_frame(self.version, req.msg_type(), 0, &req.encode())?;
        self.writer
            .lock()
            .write_all(&f)
            .map_err(|e| lost_error(&format!("write to the server failed: {e}")))
    }

    /// The server's pid (`SO_PEERCRED` at connect), if the kernel told.
    pub(crate) fn server_pid(&self) -> Option<u32> {
        self.server_pid
    }

    /// Whether the connection to the server is gone (the server closed it,
    /// died, or finalize closed it). Every shared-memory wait of the client
    /// polls this so that none outlives the server.
    /// A load, no lock: the fence polls it while it spins.
    pub(crate) fn is_lost(&self) -> bool {
        // ORDERING: Acquire — pairs with the Release store in the reader.
        self.lost.load(Ordering::Acquire)
    }

    /// Installs the hook run for every message from the server that cannot
    /// be unpacked.
    pub(crate) fn set_on_comm_failure(&self, hook: CommFailureHook) {
        self.routes.lock().on_comm_failure = Some(hook);
    }

    /// Installs the hook run with each chunk of forwarded output.
    pub(crate) fn set_on_iof(&self, hook: IofHook) {
        self.routes.lock().on_iof = Some(hook);
    }

    /// Installs the hook run once if the server goes away without a
    /// finalize (runs at once if it already has).
    pub(crate) fn set_on_lost(&self, hook: LostHook) {
        let mut r = self.routes.lock();
        // ORDERING: Relaxed — as in the reader loop.
        if r.lost && !self.closed.load(Ordering::Relaxed) {
            drop(r);
            hook();
        } else if !r.lost {
            r.on_lost = Some(hook);
        }
    }

    pub(crate) fn request(&self, req: &Request, deadline: Option<Instant>) -> Result<Reply> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.send(
            req,
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        match deadline {
            None => rx.recv().map_err(|_| lost_error("no reply")),
            Some(d) => rx
                .recv_timeout(d.saturating_duration_since(Instant::now()))
                .map_err(|e| match e {
                    std::sync::mpsc::RecvTimeoutError::Timeout => {
                        Error::with_context(Status::ERR_TIMEOUT, "no reply from the server in time")
                    }
                    std::sync::mpsc::RecvTimeoutError::Disconnected => lost_error("no reply"),
                }),
        }
    }

    /// Whether the caller is the reader thread (which runs reply callbacks).
    pub(crate) fn on_reader_thread(&self) -> bool {
        self.reader_id == std::thread::current().id()
    }

    /// Closes the socket and joins the reader thread.
    pub(crate) fn close(&self) {
        // ORDERING: Relaxed — read by the reader thread only for a message.
        self.closed.store(true, Ordering::Relaxed);
        let _ = self.writer.lock().shutdown(std::net::Shutdown::Both);
        if let Some(h) = self.reader.lock().take() {
            let _ = h.join();
        }
    }
}
