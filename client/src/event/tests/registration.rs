//! Registration and its filters: selection by source, range, level and
//! affected proc, registration and deregistration racing live events,
//! refused registrations, multi-code handlers, and the library's own
//! consumers ahead of the user's chain.

use super::*;

/// Pushes an event from another process into the inbound ring.
fn inject(inbound: &Ring, seq: u64, status: Status, source: Option<Proc>, info: Vec<Info>) {
    let mut msg = EventMsg::new(status, DataRange::LOCAL);
    msg.id = pmix_core::event::EventId { origin: 7, seq };
    msg.origin = if source.is_some() {
        pmix_core::event::Origin::ThisNode
    } else {
        pmix_core::event::Origin::Host
    };
    msg.source = source;
    msg.info = info;
    inbound.try_push(RECORD_EVENT, &msg.encode()).unwrap();
    inbound.wake_consumer();
}

#[test]
fn registration_filters_select_by_source_range_level_and_affected_proc() {
    let (ev, inbound) = start();
    let log = Log::default();
    let range = |r: DataRange| Info::new(attrs::RANGE, Value::DataRange(r)).unwrap();
    let peer_same_ns = Proc::new("evtest", Rank(3)).unwrap();
    let other_ns = Proc::new("other", Rank(0)).unwrap();
    let reg = |name: &str, info: Vec<Info>| {
        ev.register(&[PING], &info, logger(&log, name, Status::SUCCESS), |_| {})
            .unwrap();
    };
    reg(
        "proc-local",
        vec![named("proc-local"), range(DataRange::PROC_LOCAL)],
    );
    reg("local", vec![named("local"), range(DataRange::LOCAL)]);
    reg(
        "namespace",
        vec![named("namespace"), range(DataRange::NAMESPACE)],
    );
    reg("rm", vec![named("rm"), range(DataRange::RM)]);
    reg(
        "custom",
        vec![
            named("custom"),
            range(DataRange::CUSTOM),
            Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(other_ns.clone())).unwrap(),
        ],
    );
    reg("job", vec![named("job"), flag(attrs::EVENT_JOB_LEVEL)]);
    reg(
        "enviro",
        vec![named("enviro"), flag(attrs::EVENT_ENVIRO_LEVEL)],
    );
    reg(
        "affected",
        vec![
            named("affected"),
            Info::new(attrs::EVENT_AFFECTED_PROC, Value::Proc(other_ns.clone())).unwrap(),
        ],
    );
    reg("any", vec![named("any")]);
    // ring records are not ordered with commands: a marker through the
    // ring proves the records before it were dispatched
    const MARK: Status = Status(-3998);
    let (mark_tx, mark_rx) = sync_channel(1);
    ev.register(
        &[MARK],
        &[],
        Box::new(move |_e, c| {
            let _ = mark_tx.send(());
            c.done(Status::SUCCESS, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let marks = pmix_shm::sync::AtomicU64::new(1000);
    let got = |f: &dyn Fn()| {
        log.lock().clear();
        f();
        settle(&ev);
        // ORDERING: Relaxed — a unique counter.
        let seq = marks.fetch_add(1, pmix_shm::sync::Ordering::Relaxed);
        inject(&inbound, seq, MARK, Some(peer_same_ns.clone()), vec![]);
        mark_rx.recv_timeout(WAIT).unwrap();
        let mut v = log.lock().clone();
        v.sort();
        v
    };
    // from this process
    assert_eq!(
        got(&|| {
            run(&ev, PING, vec![]);
        }),
        ["any", "job", "local", "namespace", "proc-local"]
    );
    // from a peer of the same namespace on this node
    let from_peer = got(&|| inject(&inbound, 1, PING, Some(peer_same_ns.clone()), vec![]));
    assert_eq!(from_peer, ["any", "job", "local", "namespace"]);
    // from another namespace
    let from_other = got(&|| inject(&inbound, 2, PING, Some(other_ns.clone()), vec![]));
    assert_eq!(from_other, ["any", "custom", "job", "local"]);
    // from the RM, environment-level, no source
    let from_rm = got(&|| inject(&inbound, 3, PING, None, vec![]));
    assert_eq!(from_rm, ["any", "enviro", "rm"]);
    // from the RM, naming an affected proc: job-level
    let affecting = got(&|| {
        inject(
            &inbound,
            4,
            PING,
            None,
            vec![Info::new(attrs::EVENT_AFFECTED_PROC, Value::Proc(other_ns.clone())).unwrap()],
        )
    });
    assert_eq!(affecting, ["affected", "any", "job", "rm"]);
}

#[test]
fn concurrent_registration_and_deregistration_while_events_flow() {
    let (ev, _r) = start();
    let hits = Arc::new(pmix_shm::sync::AtomicU64::new(0));
    let h2 = Arc::clone(&hits);
    ev.register(
        &[PING],
        &[named("steady")],
        Box::new(move |_e, c| {
            // ORDERING: Relaxed — a counter read after the joins below.
            h2.fetch_add(1, pmix_shm::sync::Ordering::Relaxed);
            c.done(Status::SUCCESS, vec![]);
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    let stop = Arc::new(pmix_shm::sync::AtomicBool::new(false));
    let churn: Vec<_> = (0..3)
        .map(|t| {
            let ev = Arc::clone(&ev);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut n = 0u32;
                // ORDERING: Relaxed — a stop flag, nothing published with it.
                while !stop.load(pmix_shm::sync::Ordering::Relaxed) {
                    let name = format!("churn-{t}-{n}");
                    let id = ev
                        .register(&[PING], &[named(&name)], Box::new(|_e, c| drop(c)), |_| {})
                        .unwrap();
                    ev.deregister(id).unwrap();
                    n += 1;
                }
                n
            })
        })
        .collect();
    for _ in 0..2000 {
        let msg = EventMsg::for_notify(PING, None, DataRange::PROC_LOCAL, &[]).unwrap();
        ev.notify_local(msg, None).unwrap();
    }
    let end = std::time::Instant::now() + WAIT;
    // ORDERING: Relaxed — see above.
    while hits.load(pmix_shm::sync::Ordering::Relaxed) < 2000 && std::time::Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
    }
    // ORDERING: Relaxed — see above.
    stop.store(true, pmix_shm::sync::Ordering::Relaxed);
    let rounds: u32 = churn.into_iter().map(|t| t.join().unwrap()).sum();
    assert!(rounds > 0);
    // ORDERING: Relaxed — see above.
    assert_eq!(hits.load(pmix_shm::sync::Ordering::Relaxed), 2000);
    // only the steady handler is left
    assert_eq!(ev.chain.load().len(), 1);
}

#[test]
fn refused_registrations_change_nothing() {
    let (ev, _r) = start();
    let log = Log::default();
    let ok = |codes: &[Status], info: Vec<Info>, name: &str| {
        ev.register(codes, &info, logger(&log, name, Status::SUCCESS), |_| {})
            .unwrap()
    };
    let refused = |codes: &[Status], info: Vec<Info>| {
        let mut called = false;
        let e = ev
            .register(
                codes,
                &info,
                logger(&log, "refused", Status::SUCCESS),
                |_| called = true,
            )
            .unwrap_err();
        assert!(
            !called,
            "the registration callback ran for a refused handler"
        );
        e.status()
    };
    ok(&[PING], vec![named("a")], "a");
    ok(
        &[PING],
        vec![named("first"), flag(attrs::EVENT_HDLR_FIRST)],
        "first",
    );
    ok(
        &[PING],
        vec![named("last"), flag(attrs::EVENT_HDLR_LAST)],
        "last",
    );
    ok(&[PONG, PING], vec![named("multi")], "multi");
    let reg_err = Status::ERR_EVENT_REGISTRATION;
    // EV-03: a duplicate name, whatever else is given
    assert_eq!(refused(&[PONG], vec![named("a")]), reg_err);
    assert_eq!(
        refused(&[PONG], vec![named("a"), flag(attrs::EVENT_HDLR_APPEND)]),
        reg_err
    );
    // EV-10: a second FIRST or LAST
    assert_eq!(
        refused(&[PONG], vec![flag(attrs::EVENT_HDLR_FIRST)]),
        reg_err
    );
    assert_eq!(refused(&[], vec![flag(attrs::EVENT_HDLR_LAST)]), reg_err);
    // EV-11: BEFORE the FIRST handler, AFTER the LAST one
    let before = |n: &str| Info::new(attrs::EVENT_HDLR_BEFORE, n).unwrap();
    let after = |n: &str| Info::new(attrs::EVENT_HDLR_AFTER, n).unwrap();
    assert_eq!(refused(&[PING], vec![before("first")]), reg_err);
    assert_eq!(refused(&[PING], vec![after("last")]), reg_err);
    // EV-15: a missing name; EV-16: a handler of another category
    assert_eq!(refused(&[PING], vec![before("nobody")]), reg_err);
    assert_eq!(refused(&[PING], vec![after("multi")]), reg_err);
    assert_eq!(ev.chain.load().len(), 4);
    settle(&ev);
    log.lock().clear();
    run(&ev, PING, vec![]);
    assert_eq!(*log.lock(), ["first", "a", "multi", "last"]);
}

#[test]
fn multi_code_handlers_on_one_set_prepend_deferred_and_termination_overwrite() {
    let (ev, _r) = start();
    let log = Log::default();
    // EV-02: two multi-code handlers on the same codes, both invoked
    ev.register(
        &[PING, PONG],
        &[named("m1")],
        logger(&log, "m1", Status::EVENT_ACTION_DEFERRED),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING, PONG],
        &[named("m2")],
        logger(&log, "m2", Status::EVENT_PARTIAL_ACTION_TAKEN),
        |_| {},
    )
    .unwrap();
    // EV-07: PREPEND (and its old name) put a handler at the front
    ev.register(
        &[PING],
        &[named("s1")],
        logger(&log, "s1", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[named("s2"), flag(attrs::EVENT_HDLR_APPEND)],
        Box::new(|_e, c| {
            c.done(
                Status::SUCCESS,
                vec![Info::new(attrs::EVENT_NO_TERMINATION, true).unwrap()],
            )
        }),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[PING],
        &[
            named("s0"),
            Info::new(attrs::EVENT_ORDER_PREPEND, Value::Undef).unwrap(),
        ],
        logger(&log, "s0", Status::SUCCESS),
        |_| {},
    )
    .unwrap();
    ev.register(
        &[],
        &[named("d")],
        Box::new(|_e, c| {
            c.done(
                Status::SUCCESS,
                vec![Info::new(attrs::EVENT_WANT_TERMINATION, true).unwrap()],
            )
        }),
        |_| {},
    )
    .unwrap();
    settle(&ev);
    log.lock().clear();
    let out = run(&ev, PING, vec![]);
    // EVD-10: ACTION_DEFERRED and PARTIAL_ACTION_TAKEN let the chain go on
    assert_eq!(*log.lock(), ["s0", "s1", "m2", "m1"]);
    assert_eq!(out.handlers_run, 6);
    // EV-23: a later handler overwrites NO_TERMINATION (not REQD)
    assert_eq!(out.termination, Termination::Wanted { is_final: false });
}

#[test]
fn library_consumers_see_every_event_before_a_first_handler_that_completes_the_chain() {
    let (ev, inbound) = start();
    let log = Log::default();
    // A user FIRST handler for every code that ends every chain.
    ev.register(
        &[],
        &[named("first"), flag(attrs::EVENT_HDLR_FIRST)],
        logger(&log, "first", Status::EVENT_ACTION_COMPLETE),
        |_| {},
    )
    .unwrap();
    let l = Arc::clone(&log);
    let lib = ev.add_library_consumer(Arc::new(move |m: &EventMsg| {
        l.lock().push(format!("library {}", m.status.0));
    }));
    // A panicking consumer takes neither the thread nor the others down.
    let bad = ev.add_library_consumer(Arc::new(|_m: &EventMsg| panic!("consumer bug")));
    settle(&ev);
    log.lock().clear();
    let out = run(&ev, PING, vec![]);
    assert!(out.completed);
    inject(&inbound, 1, PONG, None, vec![]);
    // The ring and the local queue are drained in turn: wait for PONG.
    let deadline = std::time::Instant::now() + WAIT;
    let pong_seen = || log.lock().iter().filter(|l| *l == "first").count() >= 2;
    while !pong_seen() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    let seen = log.lock().clone();
    assert_eq!(
        seen,
        [
            format!("library {}", PING.0),
            "first".to_owned(),
            format!("library {}", PONG.0),
            "first".to_owned(),
        ],
        "{seen:?}"
    );
    // Removed consumers see nothing more.
    ev.remove_library_consumer(lib);
    ev.remove_library_consumer(bad);
    log.lock().clear();
    run(&ev, PING, vec![]);
    assert_eq!(*log.lock(), ["first"]);
}
