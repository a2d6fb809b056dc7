//! A PMIx client for the event-design tests (`launcher/tests/event_design.rs`):
//! `evorder <scenario>`, run by `pmixrun`. It prints `ok` lines and exits 0
//! when every check passed; a failed check prints `FAIL: …` and exits 1.
//!
//! - `names` (EV-04, EV-13, 1 rank): unnamed handlers register side by
//!   side and cannot be cited by `BEFORE`/`AFTER` (not even as `""`); a
//!   second `FIRST_IN_CATEGORY` or `LAST_IN_CATEGORY` in one category, and
//!   `BEFORE` the first-in-category or `AFTER` the last-in-category handler,
//!   are refused (another category takes its own first and last) with `PMIX_ERR_EVENT_REGISTRATION` and never run; the
//!   accepted handlers run in their placement order, and the unnamed ones'
//!   results carry an empty name.
//! - `replay_once` (EVD-08, 2 ranks): rank 0 notifies its node; a handler
//!   that saw the event does not see it again when a later registration is
//!   given the cached copy, and the late one sees it once.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataRange, Info, Status};

const ORDERED: Status = Status(-3101);
const OTHER: Status = Status(-3102);
const CACHED: Status = Status(-3103);
const WAIT: Duration = Duration::from_secs(20);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

/// The handlers' calls in order: (handler label, status, names in the
/// results so far).
#[derive(Default)]
struct Log {
    calls: Mutex<Vec<(String, Status, Vec<String>)>>,
    cv: Condvar,
}

impl Log {
    fn handler(
        self: &Arc<Self>,
        label: &str,
    ) -> impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static {
        let me = Arc::clone(self);
        let label = label.to_owned();
        move |e, c| {
            let prior = e
                .results
                .iter()
                .map(|i| i.key.as_str().to_owned())
                .collect();
            me.calls
                .lock()
                .unwrap()
                .push((label.clone(), e.status, prior));
            me.cv.notify_all();
            c.done(Status::EVENT_NO_ACTION_TAKEN, vec![]);
        }
    }

    /// Waits until `n` calls were logged.
    fn wait_for(&self, n: usize) -> Vec<(String, Status, Vec<String>)> {
        let end = Instant::now() + WAIT;
        let mut g = self.calls.lock().unwrap();
        while g.len() < n {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                fail(format!("timed out waiting for {n} calls; saw {:?}", *g));
            }
            g = self.cv.wait_timeout(g, left).unwrap().0;
        }
        g.clone()
    }
}

fn name(n: &str) -> Info {
    Info::new(attrs::EVENT_HDLR_NAME, n).unwrap()
}

fn flag(key: &str) -> Info {
    Info::new(key, true).unwrap()
}

fn placed(key: &str, target: &str) -> Info {
    Info::new(key, target).unwrap()
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "names" => names(&c),
        "replay_once" => replay_once(&c),
        other => fail(format!("unknown scenario {other:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}

/// Registers `info` for `codes`, expecting `PMIX_ERR_EVENT_REGISTRATION`.
fn refused(c: &Client, log: &Arc<Log>, label: &str, codes: &[Status], info: &[Info]) {
    match c.register_event_handler(codes, info, log.handler(label)) {
        Ok(_) => fail(format!("{label} was accepted")),
        Err(e) => check(e.status() == Status::ERR_EVENT_REGISTRATION, || {
            format!("{label}: {e}")
        }),
    }
}

/// EV-04 and EV-13 with the client's registration and dispatch.
fn names(c: &Client) {
    let log = Arc::new(Log::default());
    let reg = |label: &str, codes: &[Status], info: &[Info]| {
        c.register_event_handler(codes, info, log.handler(label))
            .unwrap_or_else(|e| fail(format!("register {label}: {e}")));
    };
    // EV-04: names are optional; two unnamed handlers coexist
    reg("unnamed-1", &[ORDERED], &[]);
    reg("unnamed-2", &[ORDERED], &[]);
    // an unnamed handler cannot be cited, not even by an empty name
    refused(
        c,
        &log,
        "before-empty",
        &[ORDERED],
        &[placed(attrs::EVENT_HDLR_BEFORE, "")],
    );
    refused(
        c,
        &log,
        "after-empty",
        &[ORDERED],
        &[placed(attrs::EVENT_HDLR_AFTER, "")],
    );
    println!("ok unnamed handlers cannot be cited");

    // EV-13, in the single-code category of ORDERED
    reg(
        "first",
        &[ORDERED],
        &[name("first"), flag(attrs::EVENT_HDLR_FIRST_IN_CATEGORY)],
    );
    reg(
        "last",
        &[ORDERED],
        &[name("last"), flag(attrs::EVENT_HDLR_LAST_IN_CATEGORY)],
    );
    refused(
        c,
        &log,
        "first-again",
        &[ORDERED],
        &[
            name("first-again"),
            flag(attrs::EVENT_HDLR_FIRST_IN_CATEGORY),
        ],
    );
    refused(
        c,
        &log,
        "last-again",
        &[ORDERED],
        &[name("last-again"), flag(attrs::EVENT_HDLR_LAST_IN_CATEGORY)],
    );
    refused(
        c,
        &log,
        "before-first",
        &[ORDERED],
        &[
            name("before-first"),
            placed(attrs::EVENT_HDLR_BEFORE, "first"),
        ],
    );
    refused(
        c,
        &log,
        "after-last",
        &[ORDERED],
        &[name("after-last"), placed(attrs::EVENT_HDLR_AFTER, "last")],
    );
    // another category (handlers of several codes) takes its own FIRST
    // and LAST_IN_CATEGORY
    reg(
        "multi-first",
        &[OTHER, CACHED],
        &[
            name("multi-first"),
            flag(attrs::EVENT_HDLR_FIRST_IN_CATEGORY),
        ],
    );
    reg(
        "multi-last",
        &[OTHER, CACHED],
        &[name("multi-last"), flag(attrs::EVENT_HDLR_LAST_IN_CATEGORY)],
    );
    // AFTER the first / BEFORE the last are fine
    reg(
        "after-first",
        &[ORDERED],
        &[
            name("after-first"),
            placed(attrs::EVENT_HDLR_AFTER, "first"),
        ],
    );
    reg(
        "before-last",
        &[ORDERED],
        &[
            name("before-last"),
            placed(attrs::EVENT_HDLR_BEFORE, "last"),
        ],
    );
    println!("ok a second first/last in a category and before first/after last refused");

    c.notify_event(ORDERED, DataRange::PROC_LOCAL, &[])
        .unwrap_or_else(|e| fail(format!("notify: {e}")));
    let calls = log.wait_for(6);
    std::thread::sleep(Duration::from_millis(200));
    let calls = {
        let now = log.calls.lock().unwrap().clone();
        check(now.len() == calls.len(), || format!("more calls: {now:?}"));
        now
    };
    let order: Vec<&str> = calls.iter().map(|c| c.0.as_str()).collect();
    // prepend is the default placement: the later unnamed handler first
    let want = [
        "first",
        "after-first",
        "unnamed-2",
        "unnamed-1",
        "before-last",
        "last",
    ];
    check(order == want, || {
        format!("dispatch order {order:?}, want {want:?}")
    });
    let last_saw = &calls[5].2;
    let want_prior = ["first", "after-first", "", "", "before-last"];
    check(last_saw == &want_prior, || {
        format!("results seen by the last handler {last_saw:?}, want {want_prior:?}")
    });
    println!("ok dispatch order {order:?}");
}

/// EVD-08: a replay reaches the new registration only.
fn replay_once(c: &Client) {
    let early = Arc::new(Log::default());
    c.register_event_handler(&[CACHED], &[], early.handler("early"))
        .unwrap_or_else(|e| fail(format!("register early: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    if c.proc().rank.0 == 0 {
        c.notify_event(CACHED, DataRange::LOCAL, &[])
            .unwrap_or_else(|e| fail(format!("notify: {e}")));
    }
    early.wait_for(1);
    let late = Arc::new(Log::default());
    c.register_event_handler(&[CACHED], &[], late.handler("late"))
        .unwrap_or_else(|e| fail(format!("register late: {e}")));
    late.wait_for(1);
    // give a replay to the early handler, or a second one, time to show up
    std::thread::sleep(Duration::from_millis(300));
    let e = early.calls.lock().unwrap().len();
    let l = late.calls.lock().unwrap().len();
    check(e == 1 && l == 1, || {
        format!("the early handler ran {e} times, the late one {l} times")
    });
    println!("ok replay reached the new registration only");
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
}
