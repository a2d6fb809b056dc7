//! A hybrid (MPI + OpenMP-like) process for the programming-model event
//! tests (`launcher/tests/hybrid.rs`; use case "Hybrid Applications:
//! Coordinating at Runtime", with multiple event handlers). Run under
//! `pmixrun -n 2`; it prints `ok …` lines and `ok done`, and exits 0 when
//! every check passed; a failed check prints `FAIL: …` and exits 1.
//!
//! Three libraries of one process, each on its own thread: "mpi" (the
//! main thread), "omp" (the OpenMP primary thread) and "perf" (a
//! monitoring library's thread). Each initialises with its model and
//! registers its handler from its own thread. Then:
//! - "mpi" announces a phase change with `PMIX_MODEL_RESOURCES`
//!   (`PMIX_MODEL_PHASE_NAME`, `PMIX_MODEL_PHASE_TYPE`,
//!   `PMIX_MODEL_NUM_THREADS`), PROC_LOCAL;
//! - "omp" raises `PMIX_OPENMP_PARALLEL_ENTERED` then
//!   `PMIX_OPENMP_PARALLEL_EXITED`, PROC_LOCAL, from its thread.
//!
//! Every handler sees each event exactly once, in that order, with its
//! values intact and this process as its source; the peer rank, doing the
//! same, sees none of this process's events (PROC_LOCAL stays in the
//! process).

use std::sync::{Arc, Barrier, Condvar, Mutex};
use std::time::{Duration, Instant};

use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataRange, Info, Proc, Status, Value};

const WAIT: Duration = Duration::from_secs(20);

/// Raised last by "mpi": once a handler saw it, it saw everything before.
const SENTINEL: Status = Status(-3170);

const CODES: [Status; 4] = [
    Status::MODEL_RESOURCES,
    Status::OPENMP_PARALLEL_ENTERED,
    Status::OPENMP_PARALLEL_EXITED,
    SENTINEL,
];

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn info(key: &str, v: impl Into<Value>) -> Info {
    Info::new(key, v).unwrap_or_else(|e| fail(format!("info {key}: {e}")))
}

/// One event as a handler saw it: the code, the source and the infos.
type Sighting = (Status, Option<Proc>, Vec<Info>);

/// What one handler saw.
#[derive(Default)]
struct Seen {
    events: Mutex<Vec<Sighting>>,
    cv: Condvar,
}

impl Seen {
    fn handler(self: &Arc<Self>) -> impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static {
        let me = Arc::clone(self);
        move |e, c| {
            me.events
                .lock()
                .unwrap()
                .push((e.status, e.source.cloned(), e.info.to_vec()));
            me.cv.notify_all();
            c.done(Status::SUCCESS, vec![]);
        }
    }

    fn wait_for(&self, who: &str, code: Status) {
        let end = Instant::now() + WAIT;
        let mut g = self.events.lock().unwrap();
        while !g.iter().any(|(s, _, _)| *s == code) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let codes: Vec<_> = g.iter().map(|(s, _, _)| *s).collect();
                fail(format!("{who}: no {code} within {WAIT:?}; saw {codes:?}"));
            }
            g = self.cv.wait_timeout(g, left).unwrap().0;
        }
    }
}

fn string_of(infos: &[Info], key: &str) -> String {
    match infos.iter().find(|i| i.is(key)).map(|i| &i.value) {
        Some(Value::String(s)) => s.clone(),
        other => fail(format!("{key}: {other:?}")),
    }
}

/// One library: it initialises with its model on its own thread,
/// registers its handler there, waits at `ready`, then runs `then`.
fn library(
    model: &'static str,
    ready: Arc<Barrier>,
    then: impl FnOnce(&Client) + Send + 'static,
) -> (Arc<Seen>, std::thread::JoinHandle<()>) {
    let seen = Arc::new(Seen::default());
    let mine = Arc::clone(&seen);
    let h = std::thread::Builder::new()
        .name(format!("{model}-thread"))
        .spawn(move || {
            let c = Client::init(&[info(attrs::PROGRAMMING_MODEL, model)])
                .unwrap_or_else(|e| fail(format!("{model} init: {e}")));
            c.register_event_handler(&CODES, &[], mine.handler())
                .unwrap_or_else(|e| fail(format!("{model} register: {e}")));
            ready.wait(); // every handler registered
            ready.wait(); // "mpi" announced its phase
            then(&c);
            ready.wait(); // every event raised
            ready.wait(); // every handler checked
            c.finalize()
                .unwrap_or_else(|e| fail(format!("{model} finalize: {e}")));
        })
        .unwrap_or_else(|e| fail(format!("thread: {e}")));
    (seen, h)
}

fn main() {
    let mpi = Client::init(&[info(attrs::PROGRAMMING_MODEL, "MPI")])
        .unwrap_or_else(|e| fail(format!("mpi init: {e}")));
    let me = mpi.proc().clone();
    let ready = Arc::new(Barrier::new(3));
    let (omp_seen, omp) = library("OpenMP", Arc::clone(&ready), |c| {
        c.notify_event(
            Status::OPENMP_PARALLEL_ENTERED,
            DataRange::PROC_LOCAL,
            &[info(attrs::MODEL_NUM_THREADS, Value::Uint64(4))],
        )
        .unwrap_or_else(|e| fail(format!("entered: {e}")));
        c.notify_event(
            Status::OPENMP_PARALLEL_EXITED,
            DataRange::PROC_LOCAL,
            &[info(attrs::MODEL_NUM_THREADS, Value::Uint64(1))],
        )
        .unwrap_or_else(|e| fail(format!("exited: {e}")));
    });
    let (perf_seen, perf) = library("perf", Arc::clone(&ready), |_| {});
    // The MPI library registers from the main thread.
    let mpi_seen = Arc::new(Seen::default());
    mpi.register_event_handler(&CODES, &[], mpi_seen.handler())
        .unwrap_or_else(|e| fail(format!("mpi register: {e}")));
    ready.wait();
    // Every handler of both ranks registered: the peer's events, if
    // PROC_LOCAL leaked, would arrive here from now on.
    mpi.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    mpi.notify_event(
        Status::MODEL_RESOURCES,
        DataRange::PROC_LOCAL,
        &[
            info(attrs::MODEL_PHASE_NAME, "halo-exchange"),
            info(attrs::MODEL_PHASE_TYPE, "communication"),
            info(attrs::MODEL_NUM_THREADS, Value::Uint64(1)),
        ],
    )
    .unwrap_or_else(|e| fail(format!("resources: {e}")));
    ready.wait();
    ready.wait(); // "omp" raised its two events
    mpi.notify_event(SENTINEL, DataRange::PROC_LOCAL, &[])
        .unwrap_or_else(|e| fail(format!("sentinel: {e}")));
    for (who, seen) in [("mpi", &mpi_seen), ("omp", &omp_seen), ("perf", &perf_seen)] {
        seen.wait_for(who, SENTINEL);
    }
    // The peer's events, were they leaking, were raised before its
    // sentinel; the fence orders both ranks' sentinels before this check.
    mpi.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    std::thread::sleep(Duration::from_millis(200));
    for (who, seen) in [("mpi", &mpi_seen), ("omp", &omp_seen), ("perf", &perf_seen)] {
        let g = seen.events.lock().unwrap();
        let codes: Vec<Status> = g.iter().map(|(s, _, _)| *s).collect();
        check(codes == CODES, || {
            format!("{who} saw {codes:?}, not each of {CODES:?} once in order")
        });
        for (code, src, _) in g.iter() {
            check(src.as_ref() == Some(&me), || {
                format!("{who}: {code} from {src:?}, not from this process {me}")
            });
        }
        let res = &g[0].2;
        check(
            string_of(res, attrs::MODEL_PHASE_NAME) == "halo-exchange"
                && string_of(res, attrs::MODEL_PHASE_TYPE) == "communication",
            || format!("{who}: resources event {res:?}"),
        );
        for (i, threads) in [(1, 4u64), (2, 1)] {
            let v = g[i].2.iter().find(|x| x.is(attrs::MODEL_NUM_THREADS));
            check(v.map(|x| &x.value) == Some(&Value::Uint64(threads)), || {
                format!("{who}: {} carried {v:?}", g[i].0)
            });
        }
    }
    println!("ok phase change seen by every library once");
    println!("ok openmp events reach handlers of three threads once each");
    ready.wait();
    for h in [omp, perf] {
        h.join()
            .unwrap_or_else(|_| fail("a library thread panicked".into()));
    }
    mpi.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    mpi.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}
