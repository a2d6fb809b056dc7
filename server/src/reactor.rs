//! The server's control plane: one thread (`pmix-srv-reactor`) that waits
//! on the listening socket and every connection with `epoll` (`mio`),
//! all of them non-blocking. It accepts, runs each handshake as a small
//! state machine ([`Phase`]; `handshake.rs` has the steps), reads
//! requests and serves them (`dispatch.rs`), writes what replies could not
//! write at once (`link.rs`), and ends connections. No step waits for a
//! client: a client that sends slowly, stops reading or never finishes
//! its hello costs only its own connection, bounded
//! (`ServerConfig::{max_handshakes, handshake_timeout,
//! max_outbound_bytes}`).
//!
//! Other threads reach the reactor through its inbox (`nudge.rs`): the
//! host's answer to `client_connected`, bytes waiting in a queue, a
//! connection to close, a stop.

use std::collections::HashMap;
use std::io::{ErrorKind, Read};
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};
use pmix_core::codec::frame::FrameReader;
use pmix_core::proto::msg;
use pmix_core::{Error, Result, Status};
use pmix_shm::sync::Ordering;

use crate::admission::{Admitted, HelloBuf, HelloRead};
use crate::departure::{forget_at_stop, lost};
use crate::dispatch::dispatch;
use crate::handshake::{self, refusal, Checked, Refusal, HOST_CONNECT_TIMEOUT};
use crate::inner::Inner;
use crate::link::Link;
use crate::nudge::{Nudge, Nudges};
use crate::ops::event::replay::connected;
use crate::tool::{self, ToolChecked};

const LISTENER: Token = Token(0);
const WAKER: Token = Token(1);
/// Longest `poll` sleeps without a deadline: a lost wake-up costs at most
/// this.
const IDLE_TICK: Duration = Duration::from_millis(500);
/// Bytes one connection may have read in one turn before the others get
/// theirs (it is served again at once after them).
const READ_BUDGET: usize = 1 << 20;

/// Where a connection stands.
enum Phase {
    /// Reading its `HELLO`, until `deadline`.
    Hello {
        _admitted: Admitted,
        deadline: Instant,
        hello: HelloBuf,
    },
    /// Checked; waiting for the host's `client_connected`, until
    /// `deadline`. Its socket is not read meanwhile.
    Host {
        _admitted: Admitted,
        deadline: Instant,
        checked: Checked,
    },
    /// A tool's hello checked; waiting for the host's `tool_connected`
    /// (its identity), until `deadline`.
    ToolHost {
        _admitted: Admitted,
        deadline: Instant,
        checked: ToolChecked,
    },
    /// A client's connection: requests read and served.
    Serving {
        link: Arc<Link>,
        reader: FrameReader,
    },
    /// Between two phases (never seen outside one step).
    Gone,
}

struct Conn {
    stream: Arc<UnixStream>,
    phase: Phase,
    /// Registered for `WRITABLE` too: bytes wait in its queue. (Without
    /// them, each read of the client would wake the reactor for nothing.)
    writing: bool,
}

struct Reactor {
    inner: Arc<Inner>,
    nudges: Arc<Nudges>,
    poll: Poll,
    listener: UnixListener,
    conns: HashMap<Token, Conn>,
    next_token: usize,
    /// Connections with bytes left to read after their turn.
    again: Vec<Token>,
    /// When to try `accept` again after it failed for lack of descriptors.
    accept_retry: Option<Instant>,
    /// Where requests are read into.
    rbuf: Vec<u8>,
}

/// Starts the reactor thread on `listener`: its handle and its inbox
/// (whose [`Nudges::wake`] makes it see a stop).
pub(crate) fn start(
    inner: Arc<Inner>,
    listener: UnixListener,
) -> Result<(JoinHandle<()>, Arc<Nudges>)> {
    let init = |what: &str, e: std::io::Error| {
        Error::with_context(Status::ERR_INIT, format!("reactor {what}: {e}"))
    };
    let poll = Poll::new().map_err(|e| init("epoll", e))?;
    let waker = Waker::new(poll.registry(), WAKER).map_err(|e| init("waker", e))?;
    let nudges = Nudges::new(waker);
    listener
        .set_nonblocking(true)
        .map_err(|e| init("listener", e))?;
    poll.registry()
        .register(
            &mut SourceFd(&listener.as_raw_fd()),
            LISTENER,
            Interest::READABLE,
        )
        .map_err(|e| init("listener", e))?;
    let mut r = Reactor {
        inner,
        nudges: Arc::clone(&nudges),
        poll,
        listener,
        conns: HashMap::new(),
        next_token: 2,
        again: Vec::new(),
        accept_retry: None,
        rbuf: vec![0u8; 64 << 10],
    };
    let h = std::thread::Builder::new()
        .name("pmix-srv-reactor".into())
        .spawn(move || r.run())
        .map_err(|e| init("thread", e))?;
    Ok((h, nudges))
}

impl Reactor {
    fn stopping(&self) -> bool {
        // ORDERING: Relaxed — a stop flag; `Server::stop` wakes the poll
        // after setting it, and the loop checks it at each wake-up.
        self.inner.stopping.load(Ordering::Relaxed)
    }

    fn run(&mut self) {
        let mut events = Events::with_capacity(256);
        while !self.stopping() {
            let timeout = if self.again.is_empty() {
                self.next_deadline()
                    .map_or(IDLE_TICK, |d| d.saturating_duration_since(Instant::now()))
                    .min(IDLE_TICK)
            } else {
                Duration::ZERO
            };
            if let Err(e) = self.poll.poll(&mut events, Some(timeout)) {
                if e.kind() != ErrorKind::Interrupted {
                    self.inner.log(format_args!("reactor: poll failed: {e}"));
                    std::thread::sleep(IDLE_TICK);
                }
                continue;
            }
            for ev in &events {
                match ev.token() {
                    LISTENER => self.accept_all(),
                    WAKER => {}
                    t => {
                        if ev.is_writable() {
                            self.writable(t);
                        }
                        if ev.is_read_closed() || ev.is_error() {
                            self.readable(t, true);
                        } else if ev.is_readable() {
                            self.readable(t, false);
                        }
                    }
                }
            }
            for n in self.nudges.take() {
                self.nudged(n);
            }
            for t in std::mem::take(&mut self.again) {
                self.readable(t, true);
            }
            self.expire(Instant::now());
        }
        self.shut_down();
    }

    /// The earliest handshake deadline, or the next accept retry.
    fn next_deadline(&self) -> Option<Instant> {
        if self.inner.admission.in_handshake() == 0 {
            return self.accept_retry;
        }
        self.conns
            .values()
            .filter_map(|c| match &c.phase {
                Phase::Hello { deadline, .. }
                | Phase::Host { deadline, .. }
                | Phase::ToolHost { deadline, .. } => Some(*deadline),
                Phase::Serving { .. } | Phase::Gone => None,
            })
            .chain(self.accept_retry)
            .min()
    }

    /// Accepts every pending connection; beyond `max_handshakes` in their
    /// handshake a new one is closed at once.
    fn accept_all(&mut self) {
        self.accept_retry = None;
        loop {
            let stream = match self.listener.accept() {
                Ok((s, _)) => s,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) => {
                    // Out of descriptors (or memory): the pending
                    // connections wait in the backlog; try again soon.
                    self.inner.log(format_args!("accept: {e}"));
                    self.accept_retry = Some(Instant::now() + Duration::from_millis(100));
                    return;
                }
            };
            let accepted = Instant::now();
            let admitted = match self.admit_evicting() {
                Some(a) => a,
                None => {
                    self.inner.log(format_args!(
                        "closed a new connection: {} connections are in their handshake \
                         already (the limit, ServerConfig::max_handshakes), none of them \
                         still waiting for its hello",
                        self.inner.admission.in_handshake()
                    ));
                    continue;
                }
            };
            if stream.set_nonblocking(true).is_err() {
                continue;
            }
            let token = Token(self.next_token);
            self.next_token += 1;
            let registered = self.poll.registry().register(
                &mut SourceFd(&stream.as_raw_fd()),
                token,
                Interest::READABLE,
            );
            if let Err(e) = registered {
                self.inner
                    .log(format_args!("closed a new connection: epoll: {e}"));
                continue;
            }
            let phase = Phase::Hello {
                _admitted: admitted,
                deadline: accepted + self.inner.cfg.handshake_timeout,
                hello: HelloBuf::default(),
            };
            self.conns.insert(
                token,
                Conn {
                    stream: Arc::new(stream),
                    phase,
                    writing: false,
                },
            );
            // Bytes may have come before the registration.
            self.again.push(token);
        }
    }

    /// The connection's socket has bytes (or ended).
    /// `to_the_end`: read until the socket says it has nothing (an end
    /// included), not only until a read comes back short.
    fn readable(&mut self, t: Token, to_the_end: bool) {
        let Some(c) = self.conns.get_mut(&t) else {
            return;
        };
        match &mut c.phase {
            Phase::Hello { hello, .. } => match hello.read(&c.stream) {
                Ok(HelloRead::Pending) => {}
                Ok(HelloRead::Closed) => self.drop_conn(t, Refusal::Gone),
                Ok(HelloRead::Frame(f)) if f.header.msg_type == msg::TOOL_HELLO => {
                    match tool::check(&self.inner, &c.stream, &f) {
                        Ok(checked) => self.ask_tool_host(t, checked),
                        Err(r) => self.drop_conn(t, r),
                    }
                }
                Ok(HelloRead::Frame(f)) => match handshake::check(&self.inner, &c.stream, f) {
                    Ok(checked) => self.ask_host(t, checked),
                    Err(r) => self.drop_conn(t, r),
                },
                Err(e) => self.drop_conn(
                    t,
                    refusal(Status::ERR_HANDSHAKE_FAILED, format!("bad handshake: {e}")),
                ),
            },
            Phase::Host { .. } | Phase::ToolHost { .. } | Phase::Gone => {}
            Phase::Serving { link, reader } => {
                let link = Arc::clone(link);
                let progress = read_some(&c.stream, reader, &mut self.rbuf, to_the_end);
                // What came before an end is served first.
                self.serve_frames(t, &link);
                match progress {
                    Ok(Progress::More) => self.again.push(t),
                    Ok(Progress::Drained) => {}
                    Ok(Progress::Ended) => self.end_serving(t, None),
                    Err(e) => self.end_serving(t, Some(format!("read: {e}"))),
                }
            }
        }
    }

    /// `t`'s hello passed the checks: the host is asked (it may answer at
    /// once, through the inbox all the same).
    fn ask_host(&mut self, t: Token, checked: Checked) {
        let Some(c) = self.conns.get_mut(&t) else {
            return;
        };
        let proc = checked.proc.clone();
        let phase = std::mem::replace(&mut c.phase, Phase::Gone);
        let Phase::Hello { _admitted, .. } = phase else {
            c.phase = phase;
            return;
        };
        c.phase = Phase::Host {
            _admitted,
            deadline: Instant::now() + HOST_CONNECT_TIMEOUT,
            checked,
        };
        handshake::ask_host(&self.inner, &proc, t, &self.nudges);
    }

    /// `t`'s tool hello passed the checks: the host is asked for the
    /// tool's identity.
    fn ask_tool_host(&mut self, t: Token, checked: ToolChecked) {
        let Some(c) = self.conns.get_mut(&t) else {
            return;
        };
        let phase = std::mem::replace(&mut c.phase, Phase::Gone);
        let Phase::Hello { _admitted, .. } = phase else {
            c.phase = phase;
            return;
        };
        tool::ask_host(&self.inner, &checked, t, &self.nudges);
        c.phase = Phase::ToolHost {
            _admitted,
            deadline: Instant::now() + HOST_CONNECT_TIMEOUT,
            checked,
        };
    }

    /// The host gave `t`'s tool its identity (or refused it).
    fn tool_answered(&mut self, t: Token, r: Result<pmix_core::Proc>) {
        let Some(c) = self.conns.get_mut(&t) else {
            return;
        };
        let phase = std::mem::replace(&mut c.phase, Phase::Gone);
        let Phase::ToolHost { checked, .. } = phase else {
            c.phase = phase;
            return;
        };
        let proc = match r {
            Ok(p) => p,
            Err(e) => {
                let why = format!("host refused tool pid {}: {e}", checked.pid);
                return self.drop_conn(t, refusal(e.status(), why));
            }
        };
        match tool::admit(&self.inner, &checked, proc) {
            Ok(c) => self.welcome(t, c),
            Err(r) => self.drop_conn(t, r),
        }
    }

    /// Serves the whole frames `t` has buffered.
    fn serve_frames(&mut self, t: Token, link: &Arc<Link>) {
        loop {
            let Some(Conn {
                phase: Phase::Serving { reader, .. },
                ..
            }) = self.conns.get_mut(&t)
            else {
                return;
            };
            match reader.next_frame() {
                Ok(Some(f)) => dispatch(&self.inner, link, f),
                Ok(None) => break,
                Err(e) => return self.end_serving(t, Some(e.to_string())),
            }
            if link.ended().is_some() {
                return self.end_serving(t, None);
            }
        }
    }

    /// The connection's socket has room, or bytes came to wait in its
    /// queue: write what waits, and watch for room while some still wait.
    fn writable(&mut self, t: Token) {
        let Some(c) = self.conns.get_mut(&t) else {
            return;
        };
        let Phase::Serving { link, .. } = &c.phase else {
            return;
        };
        let Some(done) = link.flush() else {
            return self.end_serving(t, None);
        };
        if c.writing == done {
            let interest = if done {
                Interest::READABLE
            } else {
                Interest::READABLE | Interest::WRITABLE
            };
            let fd = c.stream.as_raw_fd();
            if let Err(e) = self
                .poll
                .registry()
                .reregister(&mut SourceFd(&fd), t, interest)
            {
                return self.end_serving(t, Some(format!("epoll: {e}")));
            }
            c.writing = !done;
        }
    }

    fn nudged(&mut self, n: Nudge) {
        match n {
            Nudge::Flush(t) => self.writable(t),
            Nudge::Close(t) => {
                if matches!(
                    self.conns.get(&t),
                    Some(Conn {
                        phase: Phase::Serving { .. },
                        ..
                    })
                ) {
                    self.end_serving(t, None);
                }
            }
            Nudge::HostAnswered(t, r) => self.host_answered(t, r),
            Nudge::ToolIdentity(t, r) => self.tool_answered(t, r),
        }
    }

    /// The host answered `client_connected` for `t`: welcome or refuse.
    fn host_answered(&mut self, t: Token, r: Result<()>) {
        let Some(c) = self.conns.get_mut(&t) else {
            return; // gone, or refused for the host's silence
        };
        let phase = std::mem::replace(&mut c.phase, Phase::Gone);
        let Phase::Host { checked, .. } = phase else {
            c.phase = phase;
            return;
        };
        if let Err(refused) = handshake::host_answer(&checked.proc, r) {
            return self.drop_conn(t, refused);
        }
        self.welcome(t, checked);
    }

    /// `t` is accepted: its welcome, and from now on its requests.
    fn welcome(&mut self, t: Token, checked: Checked) {
        let Some(c) = self.conns.get_mut(&t) else {
            tool::forget(&self.inner, &checked.proc);
            return;
        };
        let proc = checked.proc.clone();
        match handshake::welcome(&self.inner, &c.stream, checked, (t, &self.nudges)) {
            Ok(link) => {
                c.phase = Phase::Serving {
                    link: Arc::clone(&link),
                    reader: FrameReader::new(),
                };
                connected(&self.inner, &link);
                // Requests may have come already.
                self.again.push(t);
            }
            Err(r) => {
                tool::forget(&self.inner, &proc);
                self.drop_conn(t, r);
            }
        }
    }

    /// A handshake place for a new connection. When `max_handshakes` are
    /// taken, the connection that has waited longest without a complete
    /// hello is closed for it: a real client sends its hello at once, so
    /// connections that never do cannot lock the real ones out (they only
    /// make each other's stay shorter). `None` when every place is held
    /// by a handshake waiting for the host.
    fn admit_evicting(&mut self) -> Option<Admitted> {
        if let Ok(a) = self.inner.admission.admit() {
            return Some(a);
        }
        let oldest = self
            .conns
            .iter()
            .filter_map(|(t, c)| match &c.phase {
                Phase::Hello { deadline, .. } => Some((*deadline, *t)),
                _ => None,
            })
            .min()?
            .1;
        let n = self.inner.admission.in_handshake();
        self.drop_conn(
            oldest,
            refusal(
                Status::ERR_OUT_OF_RESOURCE,
                format!(
                    "no complete hello yet, and {n} connections are in their handshake \
                     (ServerConfig::max_handshakes): the oldest is closed for a new one"
                ),
            ),
        );
        self.inner.admission.admit().ok()
    }

    /// Ends the handshakes whose deadline passed.
    fn expire(&mut self, now: Instant) {
        if self.accept_retry.is_some_and(|at| at <= now) {
            self.accept_all();
        }
        if self.inner.admission.in_handshake() == 0 {
            return;
        }
        let late: Vec<(Token, Refusal)> = self
            .conns
            .iter()
            .filter_map(|(t, c)| match &c.phase {
                Phase::Hello { deadline, .. } if *deadline <= now => {
                    let span = self.inner.cfg.handshake_timeout;
                    Some((
                        *t,
                        refusal(
                            Status::ERR_TIMEOUT,
                            format!(
                                "no hello within {} s of connecting (ServerConfig::handshake_timeout)",
                                span.as_secs_f64()
                            ),
                        ),
                    ))
                }
                Phase::Host {
                    deadline, checked, ..
                } if *deadline <= now => Some((*t, handshake::host_silent(&checked.proc))),
                Phase::ToolHost {
                    deadline, checked, ..
                } if *deadline <= now => Some((
                    *t,
                    refusal(
                        Status::ERR_TIMEOUT,
                        format!("host gave tool pid {} no identity in time", checked.pid),
                    ),
                )),
                _ => None,
            })
            .collect();
        for (t, r) in late {
            self.drop_conn(t, r);
        }
    }

    /// Forgets a connection that is not a client's yet, telling the peer
    /// why when there is someone to tell.
    fn drop_conn(&mut self, t: Token, r: Refusal) {
        if let Some(c) = self.forget(t) {
            handshake::refuse(&self.inner, &c.stream, r);
        }
    }

    /// Forgets a client's connection: `why` (a read error) or the link's
    /// own reason is logged, and the client is lost unless it finalized.
    fn end_serving(&mut self, t: Token, why: Option<String>) {
        let Some(Conn {
            phase: Phase::Serving { link, .. },
            ..
        }) = self.forget(t)
        else {
            return;
        };
        let reason = why.or_else(|| link.ended()).filter(|w| !w.is_empty());
        if let Some(w) = &reason {
            self.inner.log(format_args!(
                "dropping {:?} (rank {}): {w}",
                link.proc, link.proc.rank.0
            ));
        }
        if link
            .ended()
            .is_some_and(|w| w.contains("max_outbound_bytes"))
        {
            // ORDERING: Relaxed — a counter for tests and logs.
            self.inner.overflowed.fetch_add(1, Ordering::Relaxed);
        }
        link.end("");
        lost(&self.inner, &link);
        tool::forget(&self.inner, &link.proc);
    }

    /// Removes `t` from the table and from epoll.
    fn forget(&mut self, t: Token) -> Option<Conn> {
        let c = self.conns.remove(&t)?;
        let _ = self
            .poll
            .registry()
            .deregister(&mut SourceFd(&c.stream.as_raw_fd()));
        Some(c)
    }

    /// The server stops: every connection is closed; its clients see the
    /// end of their sockets.
    fn shut_down(&mut self) {
        let tokens: Vec<Token> = self.conns.keys().copied().collect();
        for t in tokens {
            if let Some(c) = self.forget(t) {
                match &c.phase {
                    Phase::Serving { link, .. } => forget_at_stop(&self.inner, link),
                    _ => {
                        let _ = c.stream.shutdown(std::net::Shutdown::Both);
                    }
                }
            }
        }
        let _ = self
            .poll
            .registry()
            .deregister(&mut SourceFd(&self.listener.as_raw_fd()));
    }
}

/// How far one turn of reading got.
enum Progress {
    /// The budget is spent; the socket may have more.
    More,
    /// The socket has nothing more now.
    Drained,
    /// The peer closed its end.
    Ended,
}

/// Reads what `stream` has into `reader`, at most about [`READ_BUDGET`]
/// bytes. Unless `to_the_end`, a short read ends the turn: the socket
/// was empty then, and bytes that come later raise a new edge.
fn read_some(
    mut stream: &UnixStream,
    reader: &mut FrameReader,
    buf: &mut [u8],
    to_the_end: bool,
) -> std::io::Result<Progress> {
    let mut got = 0;
    while got < READ_BUDGET {
        match stream.read(buf) {
            Ok(0) => return Ok(Progress::Ended),
            Ok(n) => {
                reader.push(&buf[..n]);
                got += n;
                if n < buf.len() && !to_the_end {
                    // A stream socket's read takes all there is: the
                    // socket is empty now, and new bytes make a new edge.
                    return Ok(Progress::Drained);
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(Progress::Drained),
            Err(e) => return Err(e),
        }
    }
    Ok(Progress::More)
}
