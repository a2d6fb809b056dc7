//! The launcher's [`Host`]: it records what the job's clients tell the
//! server (connected, finalized, abort) in [`Events`] and wakes the
//! supervisor; it keeps the job's published data in a [`DataStore`]
//! (`PMIx_Publish` / `PMIx_Lookup` / `PMIx_Unpublish`) and writes the
//! clients' `PMIx_Log` messages to pmixrun's stdout / stderr. Up-calls come
//! from server threads at any time; each one only takes a short lock, so it
//! never blocks the server (a lookup that waits for data is held in the
//! store, not on the calling thread).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use pmix_core::proto::PData;
use pmix_core::{DataRange, Info, Nspace, Proc, Status};
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
    /// `debug_waiting[r]`: rank `r` raised `PMIX_READY_FOR_DEBUG` (it waits
    /// in init for a debugger).
    pub debug_waiting: Vec<bool>,
    /// The tool's `PMIX_KEEPALIVE_PIPE` ended (`keepalive.rs`).
    pub keepalive_lost: bool,
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
                debug_waiting: vec![false; n],
                keepalive_lost: false,
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

    /// The keepalive pipe ended.
    pub fn set_keepalive_lost(&self) {
        self.update(|s| s.keepalive_lost = true);
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

/// The host `pmixrun` gives its server.
#[derive(Debug)]
pub(crate) struct LauncherHost {
    nspace: Nspace,
    events: Arc<Events>,
    /// The job's published data; dropped with the host when the server
    /// goes, which answers the lookups still waiting.
    store: DataStore,
    /// Tools attached so far (each gets `<job nspace>-tool-<n>`).
    tools: Mutex<u32>,
}

impl LauncherHost {
    /// A host for the job namespace `nspace`, reporting into `events`.
    pub fn new(nspace: Nspace, events: Arc<Events>) -> Self {
        LauncherHost {
            nspace,
            events,
            store: DataStore::new(),
            tools: Mutex::new(0),
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
    /// A tool gets the identity it asked for, else
    /// `<job nspace>-tool-<n>` rank 0 (n counts this job's tools).
    fn tool_connected(&self, info: &[Info], done: Completion<Proc>) {
        if info.iter().any(|i| i.is(pmix_core::attrs::TOOL_NSPACE)) {
            return done(pmix_server::host::default_tool_identity(info));
        }
        let n = {
            let mut g = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
            *g += 1;
            *g - 1
        };
        let minted = Nspace::new(format!("{}-tool-{n}", self.nspace))
            .map(|ns| Proc::from_parts(ns, pmix_core::Rank(0)));
        done(minted);
    }

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
        let _ = (range, info);
        if status == Status::READY_FOR_DEBUG {
            self.mark(source, |s| &mut s.debug_waiting);
        }
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
        done(pmix_client::log_to_stdio(data));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::{attrs, Rank, Value};

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
