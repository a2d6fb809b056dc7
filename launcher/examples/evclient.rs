//! A PMIx client driven by the event integration tests
//! (`launcher/tests/events.rs`): `evclient <scenario>`. It prints `ok`
//! lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, DataRange, Info, Proc, Rank, Status, Value};

const PING: Status = Status(-3001);
const MARK: Status = Status(-3002);
const CACHED: Status = Status(-3003);
const NOCACHE: Status = Status(-3004);
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

/// What a handler saw: (code, source, `user.tag`).
type Seen = (Status, Option<Proc>, String);

/// A log of received events the main thread can wait on.
#[derive(Default)]
struct Inbox {
    seen: Mutex<Vec<Seen>>,
    cv: Condvar,
}

impl Inbox {
    fn handler(
        self: &Arc<Self>,
    ) -> impl Fn(&pmix_client::Event<'_>, pmix_client::EventCompletion) + Send + Sync + 'static
    {
        let me = Arc::clone(self);
        move |e, c| {
            let tag = e
                .info
                .iter()
                .find(|i| i.key == "user.tag")
                .and_then(|i| match &i.value {
                    Value::String(s) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            me.seen
                .lock()
                .unwrap()
                .push((e.status, e.source.cloned(), tag));
            me.cv.notify_all();
            c.done(Status::SUCCESS, vec![]);
        }
    }

    /// Waits until `pred` holds over what was seen.
    fn wait_for(&self, what: &str, pred: impl Fn(&[Seen]) -> bool) -> Vec<Seen> {
        let end = Instant::now() + WAIT;
        let mut g = self.seen.lock().unwrap();
        while !pred(&g) {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                fail(format!("timed out waiting for {what}; seen {:?}", *g));
            }
            g = self.cv.wait_timeout(g, left).unwrap().0;
        }
        g.clone()
    }

    fn tags(&self, code: Status) -> Vec<String> {
        let mut v: Vec<String> = self
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.0 == code)
            .map(|s| s.2.clone())
            .collect();
        v.sort();
        v
    }
}

fn tag(t: &str) -> Info {
    Info::new("user.tag", t).unwrap()
}

fn has(seen: &[Seen], code: Status, t: &str) -> bool {
    seen.iter().any(|s| s.0 == code && s.2 == t)
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let me = c.proc().clone();
    let peer = |r: u32| Proc::from_parts(me.nspace.clone(), Rank(r));
    match scenario.as_str() {
        "ranges" => ranges(&c, &me, &peer),
        "replay" => replay(&c, &me),
        "lost" => lost(&c),
        "model" => {
            let specific = Arc::new(Inbox::default());
            let default = Arc::new(Inbox::default());
            c.register_event_handler(&[Status::MODEL_DECLARED], &[], specific.handler())
                .unwrap_or_else(|e| fail(format!("register: {e}")));
            c.register_event_handler(&[], &[], default.handler())
                .unwrap_or_else(|e| fail(format!("register: {e}")));
            let again = Client::init(&[Info::new(attrs::PROGRAMMING_MODEL, "MPI").unwrap()])
                .unwrap_or_else(|e| fail(format!("second init: {e}")));
            specific.wait_for("model declared", |s| {
                s.iter()
                    .any(|x| x.0 == Status::MODEL_DECLARED && x.1.as_ref() == Some(&me))
            });
            std::thread::sleep(Duration::from_millis(100));
            let d = default.seen.lock().unwrap().len();
            check(d == 0, || format!("the default handler saw {d} events"));
            again
                .finalize()
                .unwrap_or_else(|e| fail(format!("finalize: {e}")));
            println!("ok model declared");
        }
        "early_sender" => {
            // rank 0 only: notify its namespace, then leave
            c.notify_event(PING, DataRange::NAMESPACE, &[tag("early")])
                .unwrap_or_else(|e| fail(format!("notify: {e}")));
            println!("ok sent");
        }
        "late_receiver" => {
            let inbox = Arc::new(Inbox::default());
            c.register_event_handler(&[PING], &[], inbox.handler())
                .unwrap_or_else(|e| fail(format!("register: {e}")));
            let seen = inbox.wait_for("the early event", |s| has(s, PING, "early"));
            check(seen[0].1 == Some(peer(0)), || {
                format!("source {:?}", seen[0].1)
            });
            println!("ok late receiver got the event sent before it connected");
        }
        other => fail(format!("unknown scenario {other:?}")),
    }
    if scenario != "lost" {
        c.finalize()
            .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    }
    println!("ok done");
}

/// Every range from rank 0 of a 4-rank job; who gets what, with the true
/// source; bad range arguments refused.
fn ranges(c: &Client, me: &Proc, peer: &dyn Fn(u32) -> Proc) {
    let inbox = Arc::new(Inbox::default());
    c.register_event_handler(&[PING, MARK], &[], inbox.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    if me.rank.0 == 0 {
        let send = |range: DataRange, t: &str, more: Vec<Info>| {
            let mut info = vec![tag(t)];
            info.extend(more);
            c.notify_event(PING, range, &info)
                .unwrap_or_else(|e| fail(format!("notify {t}: {e}")));
        };
        send(DataRange::LOCAL, "local", vec![]);
        send(DataRange::NAMESPACE, "namespace", vec![]);
        let procs = pmix_core::DataArray::from_procs(vec![peer(1), peer(2)]);
        send(
            DataRange::CUSTOM,
            "custom12",
            vec![Info::new(attrs::EVENT_CUSTOM_RANGE, Value::DataArray(Box::new(procs))).unwrap()],
        );
        send(DataRange::PROC_LOCAL, "proclocal", vec![]);
        send(DataRange::RM, "rm", vec![]);
        let e = c
            .notify_event(
                PING,
                DataRange::LOCAL,
                &[Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(peer(1))).unwrap()],
            )
            .unwrap_err();
        check(e.status() == Status::ERR_BAD_PARAM, || {
            format!("custom list with LOCAL: {e}")
        });
        let e = c.notify_event(PING, DataRange::CUSTOM, &[]).unwrap_err();
        check(e.status() == Status::ERR_BAD_PARAM, || {
            format!("CUSTOM without a list: {e}")
        });
        println!("ok bad ranges refused");
        // direct pushes from one sender reach a ring in order: the mark
        // comes after everything above
        c.notify_event(
            MARK,
            DataRange::LOCAL,
            &[Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap()],
        )
        .unwrap_or_else(|e| fail(format!("notify mark: {e}")));
    }
    let rank = me.rank.0;
    inbox.wait_for("the mark", |s| {
        s.iter().any(|x| x.0 == MARK) && (rank != 0 || has(s, PING, "proclocal"))
    });
    let mut want = vec!["local", "namespace"];
    if rank == 1 || rank == 2 {
        want.push("custom12");
    }
    if rank == 0 {
        want.push("proclocal");
    }
    want.sort();
    let got = inbox.tags(PING);
    check(got == want, || {
        format!("rank {rank} got {got:?}, want {want:?}")
    });
    let sources_ok = inbox
        .seen
        .lock()
        .unwrap()
        .iter()
        .all(|s| s.1 == Some(peer(0)));
    check(sources_ok, || {
        "an event without rank 0 as its source".into()
    });
    println!("ok ranges: {got:?}");
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
}

/// A handler registered after events arrived gets the cached ones replayed
/// (not the DO_NOT_CACHE one), after its registration returned.
fn replay(c: &Client, me: &Proc) {
    let probe = Arc::new(Inbox::default());
    c.register_event_handler(&[CACHED, NOCACHE], &[], probe.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    if me.rank.0 == 0 {
        c.notify_event(CACHED, DataRange::LOCAL, &[tag("c")])
            .unwrap_or_else(|e| fail(format!("notify: {e}")));
        c.notify_event(
            NOCACHE,
            DataRange::LOCAL,
            &[
                tag("n"),
                Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap(),
            ],
        )
        .unwrap_or_else(|e| fail(format!("notify: {e}")));
    }
    probe.wait_for("both events", |s| {
        s.iter().any(|x| x.0 == CACHED) && s.iter().any(|x| x.0 == NOCACHE)
    });
    let late = Arc::new(Inbox::default());
    let registered = Arc::new(Mutex::new(false));
    let r2 = Arc::clone(&registered);
    let order_ok = Arc::new(Mutex::new(true));
    let o2 = Arc::clone(&order_ok);
    let inner = late.handler();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    c.register_event_handler_nb(
        &[CACHED, NOCACHE],
        &[],
        move |e, done| {
            if !*r2.lock().unwrap() {
                *o2.lock().unwrap() = false;
            }
            inner(e, done)
        },
        move |r| {
            *registered.lock().unwrap() = true;
            let _ = tx.send(r.map(|_| ()));
        },
    );
    rx.recv_timeout(WAIT)
        .unwrap_or_else(|e| fail(format!("registration callback: {e}")))
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    late.wait_for("the replay", |s| s.iter().any(|x| x.0 == CACHED));
    // give a wrongly replayed DO_NOT_CACHE event time to show up
    std::thread::sleep(Duration::from_millis(200));
    let codes: Vec<Status> = late.seen.lock().unwrap().iter().map(|s| s.0).collect();
    check(codes == [CACHED], || format!("replayed {codes:?}"));
    check(*order_ok.lock().unwrap(), || {
        "an event reached the handler before its registration callback".into()
    });
    println!("ok replay");
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
}

/// The server goes away: `PMIX_ERR_LOST_CONNECTION` reaches a handler
/// registered for it, not a default handler.
fn lost(c: &Client) {
    let specific = Arc::new(Inbox::default());
    let default = Arc::new(Inbox::default());
    c.register_event_handler(&[Status::ERR_LOST_CONNECTION], &[], specific.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.register_event_handler(&[], &[], default.handler())
        .unwrap_or_else(|e| fail(format!("register: {e}")));
    println!("registered");
    specific.wait_for("lost connection", |s| {
        s.iter().any(|x| x.0 == Status::ERR_LOST_CONNECTION)
    });
    // As in OpenPMIx, default handlers see the loss too (after the
    // specific one): that is how an MPI library learns to end the rank.
    default.wait_for("lost connection at the default handler", |s| {
        s.iter().any(|x| x.0 == Status::ERR_LOST_CONNECTION)
    });
    std::thread::sleep(Duration::from_millis(100));
    let d = default.seen.lock().unwrap().len();
    check(d == 1, || format!("the default handler saw {d} events"));
    println!("ok lost connection event");
}
