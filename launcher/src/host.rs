//! The launcher's [`Host`]: it records what the job's clients tell the
//! server (connected, finalized, abort) in [`Events`] and wakes the
//! supervisor; it keeps the job's published data in a [`DataStore`]
//! (`PMIx_Publish` / `PMIx_Lookup` / `PMIx_Unpublish`) and writes the
//! clients' `PMIx_Log` messages to pmixrun's stdout / stderr. Up-calls come
//! from server threads at any time; each one only takes a short lock, so it
//! never blocks the server (a lookup that waits for data is held in the
//! store, not on the calling thread).

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use pmix_core::proto::PData;
use pmix_core::{attrs, DataRange, Error, Info, Nspace, Proc, Result, Status, Value};
use pmix_server::{Completion, Host};

use crate::pubsub::DataStore;

/// A client's `PMIx_Abort`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AbortRequest {
    /// The rank that called abort.
    pub rank: u32,
    /// The status it asked for.
    pub status: i32,
    /// Its message.
    pub message: String,
}

/// What the clients reported so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventState {
    /// `connected[r]`: rank `r` completed the handshake.
    pub connected: Vec<bool>,
    /// `finalized[r]`: rank `r` called finalize.
    pub finalized: Vec<bool>,
    /// The first abort request.
    pub abort: Option<AbortRequest>,
}

/// [`EventState`] under a lock, with a condition variable the up-calls
/// signal.
#[derive(Debug)]
pub(crate) struct Events {
    state: Mutex<EventState>,
    cv: Condvar,
}

impl Events {
    /// No events yet for a job of `n` ranks.
    pub fn new(n: u32) -> Self {
        let n = n as usize;
        Events {
            state: Mutex::new(EventState {
                connected: vec![false; n],
                finalized: vec![false; n],
                abort: None,
            }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, EventState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the state and wakes the supervisor.
    fn update(&self, f: impl FnOnce(&mut EventState)) {
        f(&mut self.lock());
        self.cv.notify_all();
    }

    /// A copy of the state.
    pub fn snapshot(&self) -> EventState {
        self.lock().clone()
    }

    /// Sleeps up to `timeout`, less when an up-call reports something.
    pub fn wait(&self, timeout: Duration) {
        let guard = self.lock();
        let _ = self
            .cv
            .wait_timeout(guard, timeout)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// Where a `PMIx_Log` channel goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LogSink {
    Stdout,
    Stderr,
}

/// The text of a log datum: a string, or a byte object without its
/// trailing NULs (C callers pass `strlen + 1` bytes).
fn log_text(v: &Value) -> Option<&[u8]> {
    match v {
        Value::String(s) => Some(s.as_bytes()),
        Value::ByteObject(b) => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            Some(&b[..end])
        }
        _ => None,
    }
}

/// Writes each supported channel of a `PMIx_Log` request with `write`, one
/// call per message, newline-terminated so it never joins a forwarded
/// line: `PMIX_LOG_MSG` and `PMIX_LOG_STDERR` to stderr, `PMIX_LOG_STDOUT`
/// to stdout (as the C API's own `PMIx_Log_nb` does).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for no data; `PMIX_ERR_NOT_SUPPORTED` for another
/// channel or a value that is not text (the supported entries are still
/// written); `PMIX_ERROR` when a write failed. The first error counts.
fn write_log(data: &[Info], mut write: impl FnMut(LogSink, &[u8]) -> io::Result<()>) -> Result<()> {
    if data.is_empty() {
        return Err(Error::with_context(Status::ERR_BAD_PARAM, "nothing to log"));
    }
    let mut first: Option<Error> = None;
    for i in data {
        let k = i.key.as_str();
        let sink = match k {
            attrs::LOG_MSG | attrs::LOG_STDERR => LogSink::Stderr,
            attrs::LOG_STDOUT => LogSink::Stdout,
            _ => {
                first.get_or_insert_with(|| {
                    Error::with_context(
                        Status::ERR_NOT_SUPPORTED,
                        format!("pmixrun does not log to channel {k}"),
                    )
                });
                continue;
            }
        };
        let Some(text) = log_text(&i.value) else {
            first.get_or_insert_with(|| {
                Error::with_context(
                    Status::ERR_NOT_SUPPORTED,
                    format!("log channel {k} of type {}", i.value.data_type()),
                )
            });
            continue;
        };
        if text.is_empty() {
            continue;
        }
        let mut msg = text.to_vec();
        if !msg.ends_with(b"\n") {
            msg.push(b'\n');
        }
        if let Err(e) = write(sink, &msg) {
            first.get_or_insert_with(|| {
                Error::with_context(Status::ERROR, format!("cannot write the {k} message: {e}"))
            });
        }
    }
    first.map_or(Ok(()), Err)
}

/// Writes `bytes` to pmixrun's own stream in one `write_all` under its
/// lock, then flushes (as the output forwarders do, so lines never
/// interleave).
fn to_stdio(sink: LogSink, bytes: &[u8]) -> io::Result<()> {
    match sink {
        LogSink::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
        LogSink::Stderr => {
            let mut out = io::stderr().lock();
            out.write_all(bytes)?;
            out.flush()
        }
    }
}

/// The host `pmixrun` gives its server.
#[derive(Debug)]
pub(crate) struct LauncherHost {
    nspace: Nspace,
    events: Arc<Events>,
    /// The job's published data; dropped with the host when the server
    /// goes, which answers the lookups still waiting.
    store: DataStore,
}

impl LauncherHost {
    /// A host for the job namespace `nspace`, reporting into `events`.
    pub fn new(nspace: Nspace, events: Arc<Events>) -> Self {
        LauncherHost {
            nspace,
            events,
            store: DataStore::new(),
        }
    }

    /// The index of `proc` in the job, if it is one of its ranks.
    fn index(&self, proc: &Proc, len: usize) -> Option<usize> {
        let r = proc.rank.0 as usize;
        (proc.nspace == self.nspace && r < len).then_some(r)
    }

    fn mark(&self, proc: &Proc, field: fn(&mut EventState) -> &mut Vec<bool>) {
        self.events.update(|s| {
            let v = field(s);
            if let Some(r) = self.index(proc, v.len()) {
                v[r] = true;
            }
        });
    }
}

impl Host for LauncherHost {
    fn client_connected(&self, proc: &Proc, done: Completion<()>) {
        self.mark(proc, |s| &mut s.connected);
        done(Ok(()));
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) {
        self.mark(proc, |s| &mut s.finalized);
        done(Ok(()));
    }

    /// Any abort ends the whole job (as `mpirun` does), whatever `procs`
    /// names; the supervisor reports it and kills every rank.
    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: &str,
        procs: &[Proc],
        done: Completion<()>,
    ) {
        let _ = procs;
        self.events.update(|s| {
            if s.abort.is_none() {
                s.abort = Some(AbortRequest {
                    rank: proc.rank.0,
                    status: status.0,
                    message: message.to_owned(),
                });
            }
        });
        done(Ok(()));
    }

    /// One node: the server already delivered the event to every local
    /// target, and there is nowhere else to relay it.
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: DataRange,
        info: &[Info],
        done: Completion<()>,
    ) {
        let _ = (status, source, range, info);
        done(Ok(()));
    }

    /// `pmixrun` generates no environment events of its own, so there is
    /// nothing to subscribe to; the registration succeeds.
    fn register_events(&self, codes: &[Status], done: Completion<()>) {
        let _ = codes;
        done(Ok(()));
    }

    /// Mirrors [`register_events`](Self::register_events).
    fn deregister_events(&self, codes: &[Status], done: Completion<()>) {
        let _ = codes;
        done(Ok(()));
    }

    /// Stores the data in the job's [`DataStore`]; answers the lookups
    /// waiting for it.
    fn publish(&self, proc: &Proc, info: &[Info], done: Completion<()>) {
        done(self.store.publish(proc, info));
    }

    /// Answers from the job's [`DataStore`], now or (`PMIX_WAIT`) when the
    /// data is published.
    fn lookup(&self, proc: &Proc, keys: &[String], info: &[Info], done: Completion<Vec<PData>>) {
        self.store.lookup(proc, keys, info, done);
    }

    fn unpublish(&self, proc: &Proc, keys: &[String], info: &[Info], done: Completion<()>) {
        done(self.store.unpublish(proc, keys, info));
    }

    /// Writes the stdout / stderr channels on pmixrun's own streams
    /// (untagged, whatever `--tag-output` says: the message comes from the
    /// job, not from one rank's stream).
    fn log(&self, proc: &Proc, data: &[Info], directives: &[Info], done: Completion<()>) {
        let _ = (proc, directives);
        done(write_log(data, to_stdio));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Rank;

    fn host() -> (LauncherHost, Arc<Events>) {
        let events = Arc::new(Events::new(2));
        let ns = Nspace::new("job").unwrap();
        (LauncherHost::new(ns, Arc::clone(&events)), events)
    }

    #[test]
    fn records_connect_finalize_and_the_first_abort() {
        let (h, ev) = host();
        let p1 = Proc::new("job", Rank(1)).unwrap();
        let other = Proc::new("other", Rank(0)).unwrap();
        let ok = || -> Completion<()> { Box::new(|r| assert!(r.is_ok())) };
        h.client_connected(&p1, ok());
        h.client_connected(&other, ok());
        h.client_connected(&Proc::new("job", Rank(7)).unwrap(), ok());
        h.client_finalized(&p1, ok());
        h.abort(&p1, Status(3), "first", &[], ok());
        h.abort(&p1, Status(4), "second", &[], ok());
        let s = ev.snapshot();
        assert_eq!(s.connected, [false, true]);
        assert_eq!(s.finalized, [false, true]);
        assert_eq!(
            s.abort,
            Some(AbortRequest {
                rank: 1,
                status: 3,
                message: "first".into()
            })
        );
    }

    #[test]
    fn log_writes_stdout_and_stderr_channels_and_refuses_others() {
        let mut seen: Vec<(LogSink, String)> = Vec::new();
        let data = [
            Info::new(attrs::LOG_STDERR, "to err").unwrap(),
            Info::new(attrs::LOG_SYSLOG, "to syslog").unwrap(),
            Info::new(attrs::LOG_STDOUT, "to out\n").unwrap(),
            Info::new(attrs::LOG_MSG, Value::ByteObject(b"banner\0".to_vec())).unwrap(),
            Info::new(attrs::LOG_STDOUT, Value::Uint32(3)).unwrap(),
            Info::new(attrs::LOG_STDERR, "").unwrap(),
        ];
        let r = write_log(&data, |s, b| {
            seen.push((s, String::from_utf8_lossy(b).into_owned()));
            Ok(())
        });
        let e = r.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert!(e.to_string().contains("pmix.log.syslog"), "{e}");
        assert_eq!(
            seen,
            [
                (LogSink::Stderr, "to err\n".to_owned()),
                (LogSink::Stdout, "to out\n".to_owned()),
                (LogSink::Stderr, "banner\n".to_owned()),
            ]
        );
        let ok = [Info::new(attrs::LOG_STDOUT, "x").unwrap()];
        assert!(write_log(&ok, |_, _| Ok(())).is_ok());
        let failed = write_log(&ok, |_, _| Err(io::Error::other("closed")));
        assert_eq!(failed.unwrap_err().status(), Status::ERROR);
        assert_eq!(
            write_log(&[], |_, _| Ok(())).unwrap_err().status(),
            Status::ERR_BAD_PARAM
        );
    }

    #[test]
    fn pubsub_up_calls_reach_the_store() {
        let (h, _) = host();
        let p0 = Proc::new("job", Rank(0)).unwrap();
        let p1 = Proc::new("job", Rank(1)).unwrap();
        let uid = Info::new(attrs::USERID, Value::Uint32(7)).unwrap();
        let info = [Info::new("svc", "port").unwrap(), uid.clone()];
        h.publish(&p0, &info, Box::new(|r| assert!(r.is_ok(), "{r:?}")));
        let (tx, rx) = std::sync::mpsc::channel();
        h.lookup(
            &p1,
            &["svc".to_owned()],
            std::slice::from_ref(&uid),
            Box::new(move |r| tx.send(r).unwrap()),
        );
        let found = rx.try_recv().unwrap().unwrap();
        assert_eq!(found[0].proc, p0);
        assert_eq!(found[0].value, Value::from("port"));
        h.unpublish(&p0, &[], &[uid], Box::new(|r| assert!(r.is_ok(), "{r:?}")));
    }

    #[test]
    fn event_up_calls_succeed_on_one_node() {
        let (h, _) = host();
        let p0 = Proc::new("job", Rank(0)).unwrap();
        let ok = || -> Completion<()> { Box::new(|r| assert!(r.is_ok())) };
        h.notify_event(Status(-3001), &p0, DataRange::GLOBAL, &[], ok());
        h.register_events(&[Status(-3001)], ok());
        h.register_events(&[], ok());
        h.deregister_events(&[Status(-3001)], ok());
    }
}
