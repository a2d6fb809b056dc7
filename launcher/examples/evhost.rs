//! A PMIx client for the event-design tests that watch the server and the
//! host (`launcher/tests/event_design.rs`, an in-test server whose host
//! records every event up-call): `evhost <scenario>`. It prints `ok`
//! lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.
//!
//! - `quiet` (rank 0): raises a `PMIX_RANGE_PROC_LOCAL` event (EV-18) and,
//!   by a second init declaring a programming model, the client-internal
//!   `PMIX_MODEL_DECLARED` (EVD-19); its own handlers see both. Then a
//!   `LOCAL` control event, which the server caches.
//! - `late` (rank 1, after `quiet` ended): registers for all three codes
//!   and is given the control event from the server's cache, and neither
//!   of the others — the server never had them.
//! - `interest` (both ranks, EVD-02): a handler for the control code, a
//!   round trip to the server (the interest it sent is then in), then a
//!   fence, so that both are registered before either leaves.
//! - `notifier` (rank 0) and `handler` (rank 1), EVD-18: rank 0 raises
//!   an event for rank 1 alone, whose handler completes it with results;
//!   nothing comes back to rank 0 (its default handler sees nothing).
//! - `garbled` (rank 0, EVD-19): a `lookup` whose reply the test's proxy
//!   garbles fails, and raises `PMIX_ERR_FAILED_COMM` (the value of
//!   `PMIX_ERR_COMM_FAILURE`) at the process's handler.
//! - `wide` (rank 0 of a job with a rank on another node, EVD-20):
//!   notifies `SESSION`, `GLOBAL`, `CUSTOM` naming a process of another
//!   node's job and `NAMESPACE`, which the client sends to its server and
//!   the server to the host, and a `LOCAL` one, which does not leave the
//!   node.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataArray, DataRange, Info, Proc, Rank, Status, Value};

/// The `PROC_LOCAL` event of `quiet`.
const INSIDE: Status = Status(-3201);
/// The `LOCAL` control event of `quiet`.
const CONTROL: Status = Status(-3202);
/// `wide`'s events, one code per range.
const SESSION: Status = Status(-3211);
const GLOBAL: Status = Status(-3212);
const CUSTOM: Status = Status(-3213);
const LOCAL: Status = Status(-3214);
const NAMESPACE: Status = Status(-3215);
/// The event of `notifier` / `handler`.
const HANDLED: Status = Status(-3221);
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

/// The codes a handler saw.
#[derive(Default)]
struct Seen {
    codes: Mutex<Vec<Status>>,
    cv: Condvar,
}

impl Seen {
    fn handler(self: &Arc<Self>) -> impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static {
        let me = Arc::clone(self);
        move |e, c| {
            me.codes.lock().unwrap().push(e.status);
            me.cv.notify_all();
            c.done(Status::SUCCESS, vec![]);
        }
    }

    fn wait_for(&self, code: Status) {
        let end = Instant::now() + WAIT;
        let mut g = self.codes.lock().unwrap();
        while !g.contains(&code) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                fail(format!("timed out waiting for {code}; saw {:?}", *g));
            }
            g = self.cv.wait_timeout(g, left).unwrap().0;
        }
    }

    fn codes(&self) -> Vec<Status> {
        self.codes.lock().unwrap().clone()
    }
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let seen = Arc::new(Seen::default());
    match scenario.as_str() {
        "quiet" => {
            c.register_event_handler(
                &[INSIDE, CONTROL, Status::MODEL_DECLARED],
                &[],
                seen.handler(),
            )
            .unwrap_or_else(|e| fail(format!("register: {e}")));
            c.notify_event(INSIDE, DataRange::PROC_LOCAL, &[])
                .unwrap_or_else(|e| fail(format!("notify: {e}")));
            seen.wait_for(INSIDE);
            let again = Client::init(&[Info::new(attrs::PROGRAMMING_MODEL, "MPI").unwrap()])
                .unwrap_or_else(|e| fail(format!("second init: {e}")));
            seen.wait_for(Status::MODEL_DECLARED);
            again
                .finalize()
                .unwrap_or_else(|e| fail(format!("finalize: {e}")));
            c.notify_event(CONTROL, DataRange::LOCAL, &[])
                .unwrap_or_else(|e| fail(format!("notify: {e}")));
            seen.wait_for(CONTROL);
            println!("ok quiet: saw {:?}", seen.codes());
        }
        "late" => {
            c.register_event_handler(
                &[INSIDE, CONTROL, Status::MODEL_DECLARED],
                &[],
                seen.handler(),
            )
            .unwrap_or_else(|e| fail(format!("register: {e}")));
            seen.wait_for(CONTROL);
            // give a cached INSIDE or MODEL_DECLARED time to show up
            std::thread::sleep(Duration::from_millis(300));
            let codes = seen.codes();
            check(codes == [CONTROL], || format!("replayed {codes:?}"));
            println!("ok late: only the control event was cached");
        }
        "interest" => {
            c.register_event_handler(&[CONTROL], &[], seen.handler())
                .unwrap_or_else(|e| fail(format!("register: {e}")));
            // the interest goes to the server one way: a round trip on the
            // same connection makes sure the server has it before the
            // fence (which is a shared-memory barrier, not a message)
            c.query(&[pmix_core::Query {
                keys: vec![attrs::QUERY_NAMESPACES.into()],
                qualifiers: vec![],
            }])
            .unwrap_or_else(|e| fail(format!("query: {e}")));
            // both ranks registered before either leaves
            c.fence(&[], &[])
                .unwrap_or_else(|e| fail(format!("fence: {e}")));
            println!("ok interest");
        }
        "notifier" => {
            // a default handler: whatever comes back would reach it
            c.register_event_handler(&[], &[], seen.handler())
                .unwrap_or_else(|e| fail(format!("register: {e}")));
            c.fence(&[], &[])
                .unwrap_or_else(|e| fail(format!("fence: {e}")));
            let target = Proc::from_parts(c.proc().nspace.clone(), Rank(1));
            let custom = Info::new(
                attrs::EVENT_CUSTOM_RANGE,
                Value::DataArray(Box::new(DataArray::from_procs(vec![target]))),
            )
            .unwrap();
            c.notify_event(HANDLED, DataRange::CUSTOM, &[custom])
                .unwrap_or_else(|e| fail(format!("notify: {e}")));
            // rank 1 enters this fence once its handler completed
            c.fence(&[], &[])
                .unwrap_or_else(|e| fail(format!("fence: {e}")));
            std::thread::sleep(Duration::from_millis(300));
            let codes = seen.codes();
            check(codes.is_empty(), || format!("the notifier got {codes:?}"));
            println!("ok notifier: nothing came back");
        }
        "handler" => {
            let handled = Arc::new(Seen::default());
            let h = Arc::clone(&handled);
            c.register_event_handler(&[HANDLED], &[], move |e, done| {
                h.codes.lock().unwrap().push(e.status);
                h.cv.notify_all();
                // a handler that completes the event, with results
                done.done(
                    Status::EVENT_ACTION_COMPLETE,
                    vec![Info::new("user.answer", "handled").unwrap()],
                );
            })
            .unwrap_or_else(|e| fail(format!("register: {e}")));
            c.fence(&[], &[])
                .unwrap_or_else(|e| fail(format!("fence: {e}")));
            handled.wait_for(HANDLED);
            c.fence(&[], &[])
                .unwrap_or_else(|e| fail(format!("fence: {e}")));
            println!("ok handler: handled");
        }
        "garbled" => {
            c.register_event_handler(&[Status::ERR_COMM_FAILURE], &[], seen.handler())
                .unwrap_or_else(|e| fail(format!("register: {e}")));
            // the test's proxy garbles the reply to this lookup
            let r = c.lookup(&["user.garble-my-reply".to_owned()], &[]);
            check(r.is_err(), || format!("the garbled lookup answered {r:?}"));
            seen.wait_for(Status::ERR_COMM_FAILURE);
            // the connection still serves
            c.fence(&[], &[])
                .unwrap_or_else(|e| fail(format!("fence after a garbled reply: {e}")));
            println!("ok garbled: PMIX_ERR_FAILED_COMM raised");
        }
        "wide" => {
            let elsewhere = Proc::from_parts(
                pmix_core::Nspace::new("job-on-another-node").unwrap(),
                Rank(0),
            );
            let custom = Info::new(
                attrs::EVENT_CUSTOM_RANGE,
                Value::DataArray(Box::new(DataArray::from_procs(vec![elsewhere]))),
            )
            .unwrap();
            for (code, range, info) in [
                (SESSION, DataRange::SESSION, vec![]),
                (GLOBAL, DataRange::GLOBAL, vec![]),
                (CUSTOM, DataRange::CUSTOM, vec![custom]),
                (LOCAL, DataRange::LOCAL, vec![]),
                (NAMESPACE, DataRange::NAMESPACE, vec![]),
            ] {
                c.notify_event(code, range, &info)
                    .unwrap_or_else(|e| fail(format!("notify {code}: {e}")));
            }
            println!("ok wide: notified");
        }
        other => fail(format!("unknown scenario {other:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}
