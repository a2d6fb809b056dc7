//! The launcher's [`Host`]: it records what the clients of every job tell
//! the server (connected, finalized, abort) in [`Events`], per namespace,
//! and wakes the supervisor; it queues `PMIx_Spawn` requests there for
//! the supervisor, which owns the children; it keeps the job's published data in a [`DataStore`]
//! (`PMIx_Publish` / `PMIx_Lookup` / `PMIx_Unpublish`) and writes the
//! clients' `PMIx_Log` messages to pmixrun's stdout / stderr. Up-calls come
//! from server threads at any time; each one only takes a short lock, so it
//! never blocks the server (a lookup that waits for data is held in the
//! store, not on the calling thread).

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use pmix_core::proto::PData;
use pmix_core::{App, DataRange, Info, Nspace, Proc, Status};
use pmix_server::{Completion, Host};

use crate::pubsub::DataStore;

/// The spawn attributes `pmixrun` honours (`PMIX_QUERY_SPAWN_SUPPORT`):
/// the environment directives, the working directory, completion
/// notification, the deadlines (`spawn.rs`, `server/src/ops/spawn.rs`),
/// output forwarding to the requestor and the debugger directives
/// ([`DEBUG_SUPPORTED`]).
pub(crate) const SPAWN_SUPPORTED: &[&str] = &[
    pmix_core::attrs::SET_ENVAR,
    pmix_core::attrs::ADD_ENVAR,
    pmix_core::attrs::UNSET_ENVAR,
    pmix_core::attrs::PREPEND_ENVAR,
    pmix_core::attrs::APPEND_ENVAR,
    pmix_core::attrs::FIRST_ENVAR,
    pmix_core::attrs::WDIR,
    pmix_core::attrs::NOTIFY_COMPLETION,
    pmix_core::attrs::JOB_TIMEOUT,
    pmix_core::attrs::SPAWN_TIMEOUT,
    pmix_core::attrs::TIMEOUT,
    pmix_core::attrs::FWD_STDOUT,
    pmix_core::attrs::FWD_STDERR,
    pmix_core::attrs::FWD_STDIN,
    pmix_core::attrs::DEBUG_STOP_IN_INIT,
    pmix_core::attrs::DEBUGGER_DAEMONS,
    pmix_core::attrs::DEBUG_TARGET,
    pmix_core::attrs::DEBUG_DAEMONS_PER_PROC,
    pmix_core::attrs::DEBUG_DAEMONS_PER_NODE,
];

/// The debugger attributes `pmixrun` honours (`PMIX_QUERY_DEBUG_SUPPORT`):
/// holding ranks in init, reported with `PMIX_BREAKPOINT` (`debugger.rs`),
/// and co-launched debugger daemons (`debug_daemons.rs`). Not
/// `PMIX_DEBUG_STOP_ON_EXEC`: without ptrace a spawn asking for it is
/// refused with `PMIX_ERR_NOT_SUPPORTED`.
pub(crate) const DEBUG_SUPPORTED: &[&str] = &[
    pmix_core::attrs::DEBUG_STOP_IN_INIT,
    pmix_core::attrs::BREAKPOINT,
    pmix_core::attrs::DEBUGGER_DAEMONS,
    pmix_core::attrs::DEBUG_TARGET,
    pmix_core::attrs::DEBUG_DAEMONS_PER_PROC,
    pmix_core::attrs::DEBUG_DAEMONS_PER_NODE,
];

/// A client's `PMIx_Abort`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AbortRequest {
    /// The process that called abort.
    pub proc: Proc,
    /// The status it asked for.
    pub status: i32,
    /// Its message.
    pub message: String,
}

/// What one job's clients reported so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct JobEvents {
    /// `connected[r]`: rank `r` completed the handshake.
    pub connected: Vec<bool>,
    /// `finalized[r]`: rank `r` called finalize.
    pub finalized: Vec<bool>,
    /// `debug_waiting[r]`: rank `r` raised `PMIX_READY_FOR_DEBUG` (it waits
    /// in init for a debugger).
    pub debug_waiting: Vec<bool>,
}

impl JobEvents {
    fn new(n: u32) -> Self {
        JobEvents {
            connected: vec![false; n as usize],
            finalized: vec![false; n as usize],
            debug_waiting: vec![false; n as usize],
        }
    }
}

/// What the clients of every job reported so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventState {
    /// Per job namespace.
    pub jobs: BTreeMap<Nspace, JobEvents>,
    /// The first abort request, of any job.
    pub abort: Option<AbortRequest>,
    /// Some client of any job completed its handshake.
    pub any_connected: bool,
    /// The tool's `PMIX_KEEPALIVE_PIPE` ended (`keepalive.rs`).
    pub keepalive_lost: bool,
}

impl EventState {
    /// The events of `nspace`'s job (none reported when it is unknown).
    pub fn job(&self, nspace: &Nspace) -> JobEvents {
        self.jobs.get(nspace).cloned().unwrap_or_default()
    }
}

/// A client's `PMIx_Spawn`, waiting for the supervisor (which starts
/// processes and owns the children).
pub(crate) struct SpawnRequest {
    /// The client that asked.
    pub requestor: Proc,
    /// Job-level directives.
    pub job_info: Vec<Info>,
    /// The applications.
    pub apps: Vec<App>,
    /// Receives the new namespace or the error.
    pub done: Completion<Nspace>,
}

impl std::fmt::Debug for SpawnRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpawnRequest")
            .field("requestor", &self.requestor)
            .field("apps", &self.apps.len())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Shared {
    state: EventState,
    spawns: Vec<SpawnRequest>,
}

/// [`EventState`] and the waiting spawn requests under a lock, with a
/// condition variable the up-calls signal.
#[derive(Debug, Default)]
pub(crate) struct Events {
    shared: Mutex<Shared>,
    cv: Condvar,
}

impl Events {
    /// No jobs yet.
    pub fn new() -> Self {
        Events::default()
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the state and wakes the supervisor.
    fn update(&self, f: impl FnOnce(&mut EventState)) {
        f(&mut self.lock().state);
        self.cv.notify_all();
    }

    /// Starts recording the `n` ranks of job `nspace` (before any of them
    /// can connect).
    pub fn add_job(&self, nspace: &Nspace, n: u32) {
        self.lock()
            .state
            .jobs
            .insert(nspace.clone(), JobEvents::new(n));
    }

    /// Stops recording job `nspace` (it ended: every process was reaped
    /// and judged), so the state copied at each poll stays small.
    pub fn remove_job(&self, nspace: &Nspace) {
        self.lock().state.jobs.remove(nspace);
    }

    /// The keepalive pipe ended.
    pub fn set_keepalive_lost(&self) {
        self.update(|s| s.keepalive_lost = true);
    }

    /// A copy of the state.
    pub fn snapshot(&self) -> EventState {
        self.lock().state.clone()
    }

    /// The spawn requests received since the last call.
    pub fn take_spawns(&self) -> Vec<SpawnRequest> {
        std::mem::take(&mut self.lock().spawns)
    }

    /// Sleeps up to `timeout`, less when an up-call reports something
    /// (nothing is lost between a check and this wait: the requests that
    /// came meanwhile end it at once).
    pub fn wait(&self, timeout: Duration) {
        let guard = self.lock();
        if !guard.spawns.is_empty() {
            return;
        }
        let _ = self
            .cv
            .wait_timeout(guard, timeout)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// The host `pmixrun` gives its server.
#[derive(Debug)]
pub(crate) struct LauncherHost {
    events: Arc<Events>,
    /// The job's published data; dropped with the host when the server
    /// goes, which answers the lookups still waiting.
    store: DataStore,
    /// The next PMIx group context id (`PMIX_GROUP_ASSIGN_CONTEXT_ID`):
    /// one job, one node, so a counter is unique in the allocation.
    next_context_id: Mutex<u64>,
    /// Tools attached so far (each gets `run-<pid>-tool-<n>`).
    tools: Mutex<u32>,
    /// When `--timeout` ends the job, if it was given.
    deadline: OnceLock<Instant>,
    /// The stdin pipes `PMIx_IOF_push` writes to (`stdin_push.rs`).
    stdin_pipes: crate::stdin_push::StdinPipes,
}

impl LauncherHost {
    /// A host reporting into `events`.
    pub fn new(events: Arc<Events>) -> Self {
        LauncherHost {
            events,
            store: DataStore::new(),
            next_context_id: Mutex::new(1),
            tools: Mutex::new(0),
            deadline: OnceLock::new(),
            stdin_pipes: crate::stdin_push::StdinPipes::default(),
        }
    }

    /// The stdin pipes of the ranks spawned with `PMIX_FWD_STDIN`.
    pub(crate) fn stdin_pipes(&self) -> &crate::stdin_push::StdinPipes {
        &self.stdin_pipes
    }

    /// The job ends at `at` (`--timeout`): `PMIX_TIME_REMAINING` answers
    /// from it.
    pub fn set_deadline(&self, at: Instant) {
        let _ = self.deadline.set(at);
    }

    fn mark(&self, proc: &Proc, field: fn(&mut JobEvents) -> &mut Vec<bool>) {
        self.events.update(|s| {
            if let Some(job) = s.jobs.get_mut(&proc.nspace) {
                if let Some(slot) = field(job).get_mut(proc.rank.0 as usize) {
                    *slot = true;
                }
            }
        });
    }
}

impl Host for LauncherHost {
    /// A construct asking `PMIX_GROUP_ASSIGN_CONTEXT_ID` gets the next id of
    /// the job's counter; nothing else about groups concerns `pmixrun`
    /// (the server tracks them).
    fn group(
        &self,
        op: u8,
        _group: &str,
        _procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) {
        let wants = pmix_core::info::find(directives, pmix_core::attrs::GROUP_ASSIGN_CONTEXT_ID)
            .is_some_and(|i| i.value.is_true().unwrap_or(true));
        if op != pmix_core::proto::group::op::CONSTRUCT || !wants {
            return done(Ok(Vec::new()));
        }
        let c = {
            let mut n = self
                .next_context_id
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *n += 1;
            *n - 1
        };
        done(
            Info::new(
                pmix_core::attrs::GROUP_CONTEXT_ID,
                pmix_core::Value::Size(c),
            )
            .map(|i| vec![i]),
        );
    }

    /// A tool gets the identity it asked for, else
    /// `run-<pid>-tool-<n>` rank 0 (n counts pmixrun's tools).
    fn tool_connected(&self, info: &[Info], done: Completion<Proc>) {
        if info.iter().any(|i| i.is(pmix_core::attrs::TOOL_NSPACE)) {
            return done(pmix_server::host::default_tool_identity(info));
        }
        let n = {
            let mut g = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
            *g += 1;
            *g - 1
        };
        let minted = Nspace::new(format!("run-{}-tool-{n}", std::process::id()))
            .map(|ns| Proc::from_parts(ns, pmix_core::Rank(0)));
        done(minted);
    }

    fn client_connected(&self, proc: &Proc, done: Completion<()>) {
        self.mark(proc, |j| &mut j.connected);
        self.events.update(|s| s.any_connected = true);
        done(Ok(()));
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) {
        self.mark(proc, |j| &mut j.finalized);
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
                    proc: proc.clone(),
                    status: status.0,
                    message: message.to_owned(),
                });
            }
        });
        done(Ok(()));
    }

    /// One node: the server already delivered the event to every local
    /// target, and there is nowhere else to relay it. A rank's
    /// `PMIX_READY_FOR_DEBUG` is recorded (`debugger.rs`).
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
            self.mark(source, |j| &mut j.debug_waiting);
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

    /// Queues the request for the supervisor, which registers the new
    /// namespace, starts its processes and answers `done` (see
    /// `spawn.rs`); nothing blocks the server's thread.
    fn spawn(&self, requestor: &Proc, job_info: &[Info], apps: &[App], done: Completion<Nspace>) {
        let mut g = self.events.lock();
        g.spawns.push(SpawnRequest {
            requestor: requestor.clone(),
            job_info: job_info.to_vec(),
            apps: apps.to_vec(),
            done,
        });
        drop(g);
        self.events.cv.notify_all();
    }

    /// Writes the stdout / stderr channels on pmixrun's own streams
    /// (untagged, whatever `--tag-output` says: the message comes from the
    /// job, not from one rank's stream).
    fn log(&self, proc: &Proc, data: &[Info], directives: &[Info], done: Completion<()>) {
        let _ = (proc, directives);
        done(pmix_client::log_to_stdio(data));
    }

    /// `PMIx_IOF_push`: to the stdin of ranks spawned with
    /// `PMIX_FWD_STDIN`; `PMIX_IOF_COMPLETE` closes it.
    fn push_stdin(
        &self,
        proc: &Proc,
        targets: &[Proc],
        data: &[u8],
        directives: &[Info],
        done: Completion<()>,
    ) {
        let _ = proc;
        let close = pmix_core::info::find(directives, pmix_core::attrs::IOF_COMPLETE)
            .is_some_and(|i| i.value.is_true().unwrap_or(true));
        done(self.stdin_pipes.push(targets, data, close));
    }

    /// What the server leaves to `pmixrun`: `PMIX_TIME_REMAINING` (whole
    /// seconds until `--timeout` ends the job; not answered without one)
    /// and `PMIX_QUERY_SPAWN_SUPPORT` / `PMIX_QUERY_DEBUG_SUPPORT` (the
    /// spawn and debugger attributes `pmixrun` honours, comma-separated).
    fn query(&self, proc: &Proc, queries: &[pmix_core::Query], done: Completion<Vec<Info>>) {
        let _ = proc;
        let mut out = Vec::new();
        for q in queries {
            for k in &q.keys {
                let supported = match k.as_str() {
                    pmix_core::attrs::QUERY_SPAWN_SUPPORT => Some(SPAWN_SUPPORTED),
                    pmix_core::attrs::QUERY_DEBUG_SUPPORT => Some(DEBUG_SUPPORTED),
                    _ => None,
                };
                if let Some(list) = supported {
                    let v = pmix_core::Value::String(list.join(","));
                    if let Ok(i) = Info::new(k.as_str(), v) {
                        out.push(i);
                    }
                }
                if k == pmix_core::attrs::TIME_REMAINING {
                    if let Some(at) = self.deadline.get() {
                        let left = at.saturating_duration_since(Instant::now()).as_secs();
                        let left = u32::try_from(left).unwrap_or(u32::MAX);
                        if let Ok(i) = Info::new(k.as_str(), pmix_core::Value::Uint32(left)) {
                            out.push(i);
                        }
                    }
                }
            }
        }
        done(Ok(out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::{attrs, Rank, Value};

    fn host() -> (LauncherHost, Arc<Events>) {
        let events = Arc::new(Events::new());
        events.add_job(&Nspace::new("job").unwrap(), 2);
        (LauncherHost::new(Arc::clone(&events)), events)
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
        let job = s.job(&Nspace::new("job").unwrap());
        assert_eq!(job.connected, [false, true]);
        assert_eq!(job.finalized, [false, true]);
        assert_eq!(s.jobs.len(), 1, "an unknown namespace is not recorded");
        assert_eq!(
            s.abort,
            Some(AbortRequest {
                proc: p1.clone(),
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
    fn spawn_requests_wait_for_the_supervisor_and_wake_it() {
        let (h, ev) = host();
        let p0 = Proc::new("job", Rank(0)).unwrap();
        let app = App {
            cmd: "/bin/true".into(),
            maxprocs: 1,
            ..App::default()
        };
        let (tx, rx) = std::sync::mpsc::channel();
        h.spawn(
            &p0,
            &[],
            std::slice::from_ref(&app),
            Box::new(move |r| tx.send(r.map(|n| n.as_str().to_owned())).unwrap()),
        );
        // Not answered by the host itself.
        assert!(rx.try_recv().is_err());
        // A waiting supervisor returns at once.
        let t = std::time::Instant::now();
        ev.wait(Duration::from_secs(30));
        assert!(t.elapsed() < Duration::from_secs(10));
        let reqs = ev.take_spawns();
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].requestor, p0);
        assert_eq!(reqs[0].apps, [app]);
        assert!(ev.take_spawns().is_empty());
        for r in reqs {
            (r.done)(Ok(Nspace::new("child").unwrap()));
        }
        assert_eq!(rx.try_recv().unwrap().unwrap(), "child");
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
