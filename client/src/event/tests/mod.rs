//! The client's event machinery in one process: dispatch order, results,
//! completion from other threads, deregistration, replay, duplicates,
//! internal events. Cross-process routing is tested through `pmixrun` in
//! `launcher/tests/events.rs`.

use std::sync::mpsc::sync_channel;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use pmix_core::event::{EventMsg, Outcome, Termination, RECORD_EVENT};
use pmix_core::{attrs, DataRange, Info, InfoFlags, Proc, Rank, Status, Value};
use pmix_shm::ring::{Ring, RingParams};

use super::{Events, HandlerFn};

const PING: Status = Status(-3001);
const PONG: Status = Status(-3002);
const WAIT: Duration = Duration::from_secs(10);

fn me() -> Proc {
    Proc::new("evtest", Rank(0)).unwrap()
}

fn start() -> (Arc<Events>, Ring) {
    // in a wake group, as a segment's ring is: the progress thread sleeps
    // on the group word, on its bit
    let inbound = Ring::new_heap(RingParams::new(1024).unwrap())
        .with_wake_group(pmix_shm::wake_group::WakeGroup::new_heap());
    let ev = Events::start(me(), inbound.clone(), Duration::from_micros(2), 1 << 3).unwrap();
    (ev, inbound)
}

type Log = Arc<Mutex<Vec<String>>>;

/// A handler that logs its name and completes at once with `status`.
fn logger(log: &Log, name: &str, status: Status) -> Box<HandlerFn> {
    let (log, name) = (Arc::clone(log), name.to_owned());
    Box::new(move |_e, c| {
        log.lock().push(name.clone());
        c.done(status, vec![]);
    })
}

fn named(name: &str) -> Info {
    Info::new(attrs::EVENT_HDLR_NAME, name).unwrap()
}

fn flag(key: &str) -> Info {
    Info::new(key, true).unwrap()
}

/// Sends a PROC_LOCAL event and waits for its outcome.
fn run(ev: &Events, status: Status, info: Vec<Info>) -> Outcome {
    let (tx, rx) = sync_channel(1);
    let msg = EventMsg::for_notify(status, Some(me()), DataRange::PROC_LOCAL, &info).unwrap();
    ev.notify_local(
        msg,
        Some(Box::new(move |o| {
            let _ = tx.send(o);
        })),
    )
    .unwrap();
    rx.recv_timeout(WAIT).expect("the chain ran")
}

/// Waits until the progress thread has processed everything queued so far
/// (commands run in order, so an outcome-carrying no-op event behind them
/// proves it).
fn settle(ev: &Events) {
    run(ev, Status(-3999), vec![]);
}

#[test]
fn dispatch_order_is_first_single_multi_default_last() {
    let (ev, _r) = start();
    let log = Log::default();
    let reg = |codes: &[Status], info: Vec<Info>, name: &str| {
        ev.register(codes, &info, logger(&log, name, Status::SUCCESS), |_| {})
            .unwrap()
    };
    reg(&[], vec![named("default")], "default");
    reg(&[PING, PONG], vec![named("multi")], "multi");
    reg(&[PING], vec![named("single-a")], "single-a");
    reg(&[PING], vec![named("single-b")], "single-b"); // prepended
    reg(
        &[],
        vec![named("last"), flag(attrs::EVENT_HDLR_LAST)],
        "last",
    );
    reg(
        &[PONG],
        vec![named("first"), flag(attrs::EVENT_HDLR_FIRST)],
        "first",
    );
    reg(
        &[PING],
        vec![named("append"), flag(attrs::EVENT_HDLR_APPEND)],
        "append",
    );
    settle(&ev);
    log.lock().clear();
    let out = run(&ev, PING, vec![]);
    assert_eq!(
        *log.lock(),
        ["single-b", "single-a", "append", "multi", "default", "last"]
    );
    assert_eq!(out.handlers_run, 6);
    log.lock().clear();
    run(&ev, PONG, vec![]);
    assert_eq!(*log.lock(), ["first", "multi", "default", "last"]);
}

#[test]
fn results_carry_each_handlers_name_status_and_returns() {
    let (ev, _r) = start();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = Arc::clone(&seen);
    ev.register(
        &[PING],
        &[named("second"), flag(attrs::EVENT_HDLR_APPEND)],
        Box::new(move |e, c| {
            s2.lock().extend(e.results.iter().cloned());
            c.done(Status::EVENT_PARTIAL_ACTION_TAKEN, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("first")],
        Box::new(|_e, c| {
            c.done(
                Status::EVENT_NO_ACTION_TAKEN,
                vec![Info::new("user.detail", 7u32).unwrap()],
            )
        }),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[flag(attrs::EVENT_HDLR_APPEND)],
        logger(&Log::default(), "x", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let out = run(&ev, PING, vec![]);
    let seen = seen.lock();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].key, "first");
    assert_eq!(seen[0].value, Value::Status(Status::EVENT_NO_ACTION_TAKEN));
    assert_eq!(seen[1].key, "user.detail");
    let keys: Vec<&str> = out.results.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["first", "user.detail", "second", ""]);
    assert_eq!(out.results[3].value, Value::Status(Status::SUCCESS));
}

#[test]
fn a_handler_may_alter_or_remove_earlier_results() {
    let (ev, _r) = start();
    ev.register(
        &[PING],
        &[named("b"), flag(attrs::EVENT_HDLR_APPEND)],
        Box::new(|e, c| {
            let prior: Vec<Info> = e
                .results
                .iter()
                .filter(|i| i.key != "user.drop")
                .cloned()
                .collect();
            c.done_updating(Status::SUCCESS, prior, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("a")],
        Box::new(|_e, c| {
            c.done(
                Status::SUCCESS,
                vec![
                    Info::new("user.drop", 1u32).unwrap(),
                    Info::new("user.keep", 2u32).unwrap(),
                ],
            )
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let out = run(&ev, PING, vec![]);
    let keys: Vec<&str> = out.results.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["a", "user.keep", "b"]);
}

#[test]
fn action_complete_ends_the_chain() {
    let (ev, _r) = start();
    let log = Log::default();
    ev.register(
        &[],
        &[named("dflt")],
        logger(&log, "dflt", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("stop")],
        logger(&log, "stop", Status::EVENT_ACTION_COMPLETE),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    log.lock().clear();
    let out = run(&ev, PING, vec![]);
    assert_eq!(*log.lock(), ["stop"]);
    assert!(out.completed);
}

#[test]
fn completion_from_another_thread_continues_the_chain_and_a_dropped_one_counts_as_no_action() {
    let (ev, _r) = start();
    let log = Log::default();
    ev.register(
        &[PING],
        &[named("last-one"), flag(attrs::EVENT_HDLR_APPEND)],
        logger(&log, "after", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("dropper")],
        Box::new(|_e, c| drop(c)),
        |_| {},
    )
    .unwrap();
    let l2 = Arc::clone(&log);
    ev.register(
        &[PING],
        &[named("async")],
        Box::new(move |_e, c| {
            let l3 = Arc::clone(&l2);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                l3.lock().push("async".into());
                c.done(Status::EVENT_PARTIAL_ACTION_TAKEN, vec![]);
            });
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let out = run(&ev, PING, vec![]);
    assert_eq!(*log.lock(), ["async", "after"]);
    let statuses: Vec<(String, Value)> = out
        .results
        .iter()
        .map(|i| (i.key.as_str().to_owned(), i.value.clone()))
        .collect();
    assert_eq!(
        statuses,
        [
            (
                "async".into(),
                Value::Status(Status::EVENT_PARTIAL_ACTION_TAKEN)
            ),
            (
                "dropper".into(),
                Value::Status(Status::EVENT_NO_ACTION_TAKEN)
            ),
            ("last-one".into(), Value::Status(Status::SUCCESS)),
        ]
    );
}

#[test]
fn a_panicking_handler_does_not_stop_the_thread_or_the_chain() {
    let (ev, _r) = start();
    let log = Log::default();
    ev.register(
        &[PING],
        &[named("ok"), flag(attrs::EVENT_HDLR_APPEND)],
        logger(&log, "ok", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("boom")],
        Box::new(|_e, _c| panic!("handler bug")),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let out = run(&ev, PING, vec![]);
    assert_eq!(*log.lock(), ["ok"]);
    assert_eq!(
        out.results[0].value,
        Value::Status(Status::EVENT_NO_ACTION_TAKEN)
    );
}

#[test]
fn deregistration_unknown_id_and_never_called_after() {
    let (ev, _r) = start();
    let e = ev
        .deregister(pmix_core::event::HandlerId(12345))
        .unwrap_err();
    assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    let log = Log::default();
    let id = ev
        .register(
            &[PING],
            &[named("gone")],
            logger(&log, "gone", Status::SUCCESS),
            |_| {},
        )
        .unwrap();
    settle(&ev);
    run(&ev, PING, vec![]);
    ev.deregister(id).unwrap();
    run(&ev, PING, vec![]);
    assert_eq!(*log.lock(), ["gone"]);
    assert_eq!(
        ev.deregister(id).unwrap_err().status(),
        Status::ERR_BAD_PARAM
    );
    // the name is free again
    ev.register(
        &[PING],
        &[named("gone")],
        logger(&log, "again", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
}

#[test]
fn deregistration_waits_for_a_running_call_and_self_deregistration_works() {
    let (ev, _r) = start();
    let (in_tx, in_rx) = sync_channel::<()>(1);
    let calls = Arc::new(Mutex::new(0u32));
    let c2 = Arc::clone(&calls);
    let id = ev
        .register(
            &[PING],
            &[],
            Box::new(move |_e, c| {
                let _ = in_tx.send(());
                std::thread::sleep(Duration::from_millis(50));
                *c2.lock() += 1;
                c.done(Status::SUCCESS, vec![]);
            }),
            |_| {},
        )
        .unwrap();
    settle(&ev);
    let msg = EventMsg::for_notify(PING, None, DataRange::PROC_LOCAL, &[]).unwrap();
    ev.notify_local(msg, None).unwrap();
    in_rx.recv_timeout(WAIT).unwrap();
    ev.deregister(id).unwrap();
    // the running call finished before deregister returned
    assert_eq!(*calls.lock(), 1);
    run(&ev, PING, vec![]);
    assert_eq!(*calls.lock(), 1);

    // a handler deregistering itself from its own call
    let ev2 = Arc::clone(&ev);
    let hits = Arc::new(Mutex::new(0u32));
    let h2 = Arc::clone(&hits);
    ev.register(
        &[PONG],
        &[],
        Box::new(move |e, c| {
            *h2.lock() += 1;
            ev2.deregister(e.registration).unwrap();
            c.done(Status::SUCCESS, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    run(&ev, PONG, vec![]);
    run(&ev, PONG, vec![]);
    assert_eq!(*hits.lock(), 1);
}

#[test]
fn registration_returns_before_delivery_then_cached_events_replay_in_order() {
    let (ev, _r) = start();
    for i in 0..3u32 {
        run(&ev, PING, vec![Info::new("user.n", i).unwrap()]);
    }
    run(
        &ev,
        PING,
        vec![
            Info::new("user.n", 99u32).unwrap(),
            flag(attrs::EVENT_DO_NOT_CACHE),
        ],
    );
    run(&ev, PONG, vec![]);
    let order = Arc::new(Mutex::new(Vec::<String>::new()));
    let o2 = Arc::clone(&order);
    let o3 = Arc::clone(&order);
    let (tx, rx) = sync_channel(8);
    ev.register(
        &[PING],
        &[],
        Box::new(move |e, c| {
            let n = e
                .info
                .iter()
                .find(|i| i.key == "user.n")
                .map(|i| i.value.clone());
            o2.lock().push(format!("event {n:?}"));
            let _ = tx.send(());
            c.done(Status::SUCCESS, vec![]);
        }),
        move |_id| o3.lock().push("registered".into()),
    )
    .unwrap();
    for _ in 0..3 {
        rx.recv_timeout(WAIT).unwrap();
    }
    settle(&ev);
    let order = order.lock();
    assert_eq!(
        *order,
        [
            "registered",
            "event Some(Uint32(0))",
            "event Some(Uint32(1))",
            "event Some(Uint32(2))"
        ]
    );
}

#[test]
fn non_default_events_skip_default_handlers() {
    let (ev, _r) = start();
    let log = Log::default();
    ev.register(
        &[],
        &[named("dflt")],
        logger(&log, "dflt", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("ping")],
        logger(&log, "ping", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    log.lock().clear();
    run(&ev, PING, vec![flag(attrs::EVENT_NON_DEFAULT)]);
    run(&ev, PONG, vec![flag(attrs::EVENT_NON_DEFAULT)]);
    assert_eq!(*log.lock(), ["ping"]);
}

#[test]
fn termination_requests_are_consolidated() {
    let (ev, _r) = start();
    let want = |reqd: bool| {
        let mut i = Info::new(attrs::EVENT_WANT_TERMINATION, true).unwrap();
        if reqd {
            i.flags = InfoFlags::REQD;
        }
        i
    };
    let w1 = want(true);
    ev.register(
        &[PING],
        &[named("wants")],
        Box::new(move |_e, c| c.done(Status::SUCCESS, vec![w1.clone()])),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("declines"), flag(attrs::EVENT_HDLR_APPEND)],
        Box::new(|_e, c| {
            c.done(
                Status::SUCCESS,
                vec![Info::new(attrs::EVENT_NO_TERMINATION, true).unwrap()],
            )
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let out = run(&ev, PING, vec![]);
    assert_eq!(out.termination, Termination::Wanted { is_final: true });
}

#[test]
fn duplicate_ids_from_the_ring_are_dropped_and_garbage_raises_comm_failure() {
    let (ev, inbound) = start();
    let log = Log::default();
    ev.register(
        &[PING],
        &[named("ping")],
        logger(&log, "ping", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    let (tx, rx) = sync_channel(4);
    ev.register(
        &[Status::ERR_COMM_FAILURE],
        &[],
        Box::new(move |e, c| {
            let _ = tx.send((e.source.cloned(), e.info.to_vec()));
            c.done(Status::SUCCESS, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let mut msg = EventMsg::new(PING, DataRange::LOCAL);
    msg.id = pmix_core::event::EventId { origin: 42, seq: 1 };
    msg.source = Some(Proc::new("peer", Rank(3)).unwrap());
    inbound.try_push(RECORD_EVENT, &msg.encode()).unwrap();
    inbound.try_push(RECORD_EVENT, &msg.encode()).unwrap();
    inbound.wake_consumer();
    inbound.try_push(RECORD_EVENT, b"not an event").unwrap();
    let (source, info) = rx.recv_timeout(WAIT).unwrap();
    assert_eq!(source, None);
    assert!(info.iter().any(|i| i.is(attrs::EVENT_NON_DEFAULT)));
    settle(&ev);
    assert_eq!(*log.lock(), ["ping"]);
}

#[test]
fn proc_local_from_many_threads_arrives_complete() {
    let (ev, _r) = start();
    let count = Arc::new(Mutex::new(0u64));
    let c2 = Arc::clone(&count);
    ev.register(
        &[PING],
        &[],
        Box::new(move |_e, c| {
            *c2.lock() += 1;
            c.done(Status::SUCCESS, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let ev = Arc::clone(&ev);
            std::thread::spawn(move || {
                for _ in 0..2000 {
                    let msg = EventMsg::for_notify(PING, None, DataRange::PROC_LOCAL, &[]).unwrap();
                    ev.notify_local(msg, None).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // the queue's records are not ordered with the outcome commands: poll
    let end = std::time::Instant::now() + WAIT;
    while *count.lock() < 8000 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(*count.lock(), 8000);
}

mod registration;
