//! Output forwarding: one thread per child stream copies whole lines to
//! pmixrun's stdout or stderr.
//!
//! Each line (optionally prefixed with its tag) goes out in one
//! `write_all` under the stream's lock, then a flush, so lines of different
//! ranks never interleave. A line longer than [`MAX_LINE`] bytes is cut into
//! pieces of that size. A last line without a newline is written as is
//! (with `--tag-output`, a newline is added so the next tag starts a line).
//! When pmixrun's own stream is closed (`pmixrun … | head -1`), the
//! forwarder stops reading, so the child gets `EPIPE` / `SIGPIPE` as it
//! would writing to the pipe itself.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Longest line forwarded in one piece.
pub(crate) const MAX_LINE: u64 = 64 * 1024;

/// Which of pmixrun's streams a forwarder writes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sink {
    /// pmixrun's stdout.
    Stdout,
    /// pmixrun's stderr.
    Stderr,
}

impl Sink {
    fn write_line(self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()
            }
            Sink::Stderr => {
                let mut out = io::stderr().lock();
                out.write_all(bytes)?;
                out.flush()
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Sink::Stdout => "stdout",
            Sink::Stderr => "stderr",
        }
    }
}

/// Where a stream's lines go besides pmixrun's own stream: the tools
/// that pulled them (`PMIx_IOF_pull`) get a copy, and a spawned job's
/// requestor that asked for `PMIX_FWD_STDOUT` / `PMIX_FWD_STDERR` gets
/// them instead of pmixrun's stream (while it is connected).
#[derive(Clone, Debug)]
pub(crate) struct Route {
    /// The server's delivery handle.
    pub iof: pmix_server::IofSender,
    /// The rank that writes the stream.
    pub source: pmix_core::Proc,
    /// `STDOUT_CHANNEL` or `STDERR_CHANNEL`.
    pub channel: u16,
    /// The requestor that asked for this channel, if any.
    pub requestor: Option<pmix_core::Proc>,
}

impl Route {
    /// Hands `line` to the tools; `true` when the requestor took it.
    fn deliver(&self, line: &[u8]) -> bool {
        self.iof
            .deliver(&self.source, self.channel, line, self.requestor.as_ref())
    }
}

/// The `--tag-output` prefix of the `sink` lines of `rank` of job `job`:
/// `[JOB,RANK]<stdout>: ` (Open MPI's form; the job pmixrun starts is job
/// 1, the jobs its processes spawn 2, 3, …).
pub(crate) fn tag(job: u32, rank: u32, sink: Sink) -> String {
    format!("[{job},{rank}]<{}>: ", sink.name())
}

/// Where a forwarder is.
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// Waiting for input since then.
    Reading(Instant),
    /// Holding a line it has not written yet.
    Writing,
    /// Its stream ended.
    Done,
}

/// The forwarding threads of a job.
#[derive(Debug, Default)]
pub(crate) struct Forwarders {
    handles: Vec<JoinHandle<()>>,
    phases: Arc<Mutex<Vec<Phase>>>,
}

fn lock(m: &Mutex<Vec<Phase>>) -> MutexGuard<'_, Vec<Phase>> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Forwarders {
    /// No forwarders yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a thread copying `src` to `sink`, each line prefixed with
    /// `prefix` (empty for none), and handed to `route` first.
    ///
    /// # Errors
    /// When the thread cannot be created.
    pub fn spawn(
        &mut self,
        src: impl Read + Send + 'static,
        sink: Sink,
        prefix: Option<String>,
        route: Option<Route>,
        name: String,
    ) -> io::Result<()> {
        let idx = {
            let mut p = lock(&self.phases);
            p.push(Phase::Reading(Instant::now()));
            p.len() - 1
        };
        let phases = Arc::clone(&self.phases);
        let h = std::thread::Builder::new().name(name).spawn(move || {
            forward(src, sink, prefix.as_deref(), route.as_ref(), |ph| {
                lock(&phases)[idx] = ph;
            });
        });
        match h {
            Ok(h) => {
                self.handles.push(h);
                Ok(())
            }
            Err(e) => {
                lock(&self.phases)[idx] = Phase::Done;
                Err(e)
            }
        }
    }

    /// Waits for every forwarder to reach the end of its stream, once the
    /// children are gone. A stream a leftover grandchild still holds open
    /// never ends: a forwarder that has waited for input for `idle` with no
    /// child left to write is abandoned (it dies with the process).
    ///
    /// The idle time counts from this call at the earliest: a forwarder
    /// that has waited long for input while its child was alive may not
    /// have been scheduled yet to read the child's last lines.
    pub fn finish(self, idle: Duration) {
        let children_gone = Instant::now();
        loop {
            let now = Instant::now();
            let pending = lock(&self.phases).iter().any(|p| match p {
                Phase::Done => false,
                Phase::Writing => true,
                Phase::Reading(since) => now.duration_since((*since).max(children_gone)) < idle,
            });
            if !pending {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        for h in self.handles {
            if h.is_finished() {
                let _ = h.join();
            }
        }
    }
}

/// Copies `src` to `sink` line by line; reports its phase through `phase`.
fn forward(
    src: impl Read,
    sink: Sink,
    prefix: Option<&str>,
    route: Option<&Route>,
    phase: impl Fn(Phase),
) {
    let mut reader = BufReader::with_capacity(64 * 1024, src);
    let mut line = Vec::new();
    let mut out = Vec::new();
    loop {
        phase(Phase::Reading(Instant::now()));
        line.clear();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        phase(Phase::Writing);
        if route.is_some_and(|r| r.deliver(&line)) {
            continue;
        }
        out.clear();
        if let Some(p) = prefix {
            out.extend_from_slice(p.as_bytes());
        }
        out.extend_from_slice(&line);
        if prefix.is_some() && !line.ends_with(b"\n") {
            out.push(b'\n');
        }
        if sink.write_line(&out).is_err() {
            break;
        }
    }
    phase(Phase::Done);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_look_like_open_mpi() {
        assert_eq!(tag(1, 0, Sink::Stdout), "[1,0]<stdout>: ");
        assert_eq!(tag(1, 12, Sink::Stderr), "[1,12]<stderr>: ");
        assert_eq!(tag(3, 1, Sink::Stdout), "[3,1]<stdout>: ");
    }

    /// A child that was silent for longer than the idle time, then wrote
    /// its last line and exited: its forwarder is late to read it (not
    /// scheduled yet). `finish` waits for that line.
    #[test]
    fn a_line_written_after_a_long_silence_is_not_abandoned() {
        struct LateLine {
            go: std::sync::mpsc::Receiver<()>,
            sent: bool,
        }
        impl Read for LateLine {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.sent {
                    return Ok(0);
                }
                let _ = self.go.recv();
                std::thread::sleep(Duration::from_millis(100));
                self.sent = true;
                let line = b"last line\n";
                buf[..line.len()].copy_from_slice(line);
                Ok(line.len())
            }
        }
        let (tx, go) = std::sync::mpsc::channel();
        let mut f = Forwarders::new();
        f.spawn(
            LateLine { go, sent: false },
            Sink::Stderr,
            None,
            None,
            "t".into(),
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        tx.send(()).unwrap();
        let t = Instant::now();
        f.finish(Duration::from_millis(250));
        assert!(
            t.elapsed() >= Duration::from_millis(90),
            "finish gave up on a forwarder holding the child's last line"
        );
    }

    #[test]
    fn forwarder_reports_done_at_end_of_stream() {
        let mut f = Forwarders::new();
        f.spawn(io::empty(), Sink::Stderr, None, None, "t".into())
            .unwrap();
        f.spawn(
            &b""[..],
            Sink::Stdout,
            Some(tag(1, 0, Sink::Stdout)),
            None,
            "t".into(),
        )
        .unwrap();
        let t = Instant::now();
        f.finish(Duration::from_secs(30));
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}
