//! The roles: what each rank of an experiment job does.

use super::*;

/// A value that only grows, that threads can sleep on.
#[derive(Default)]
pub(crate) struct Level {
    v: Mutex<u64>,
    cv: Condvar,
}

impl Level {
    fn raise(&self, to: u64) {
        let mut g = self.v.lock().unwrap_or_else(PoisonError::into_inner);
        *g = (*g).max(to);
        self.cv.notify_all();
    }

    /// Sleeps until the value is at least `want`, at most `timeout`;
    /// whether it got there.
    fn wait(&self, want: u64, timeout: Duration) -> bool {
        let g = self.v.lock().unwrap_or_else(PoisonError::into_inner);
        let (g, _) = self
            .cv
            .wait_timeout_while(g, timeout, |v| *v < want)
            .unwrap_or_else(PoisonError::into_inner);
        *g >= want
    }
}

/// The time budget of a latency loop (as the anchor `notify_lat -T`): it stops
/// once the budget is spent and [`MIN_SAMPLES`] samples were taken after
/// the warm-up, so that a busy machine cannot stretch a run to minutes.
pub(crate) struct Budget {
    base: Instant,
    end_ns: AtomicU64,
    after: u64,
}

impl Budget {
    fn new(warm: u64) -> Budget {
        Budget {
            base: Instant::now(),
            end_ns: AtomicU64::new(u64::MAX),
            after: warm + MIN_SAMPLES,
        }
    }

    /// Starts the clock: `ms` from now.
    fn start(&self, ms: u64) {
        let now = self.base.elapsed().as_nanos() as u64;
        self.end_ns
            .store(now.saturating_add(ms * 1_000_000), Ordering::Release);
    }

    /// Whether a loop that has done `done` iterations should stop at `now`.
    fn spent(&self, done: u64, now: Instant) -> bool {
        done >= self.after
            && now.duration_since(self.base).as_nanos() as u64 > self.end_ns.load(Ordering::Acquire)
    }
}

/// Polls `cond` (spinning, or yielding between polls) until it holds.
pub(crate) fn poll(
    cond: impl Fn() -> bool,
    yield_: bool,
    what: &dyn Fn() -> String,
) -> Result<(), String> {
    let deadline = Instant::now() + CLIENT_WAIT;
    let mut i = 0u32;
    while !cond() {
        if yield_ {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
        i = i.wrapping_add(1);
        if i % 1024 == 0 && Instant::now() > deadline {
            return Err(format!("timed out after {CLIENT_WAIT:?}: {}", what()));
        }
    }
    Ok(())
}

pub(crate) fn perr(what: &str) -> impl Fn(pmix_core::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

pub(crate) fn complete(done: EventCompletion) {
    done.done(Status::EVENT_ACTION_COMPLETE, Vec::new());
}

pub(crate) struct Me {
    c: Client,
    me: Proc,
    size: u32,
}

pub(crate) fn init() -> Result<Me, String> {
    let c = Client::init(&[]).map_err(perr("init"))?;
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let size = c
        .get(&wild, attrs::JOB_SIZE, &[])
        .and_then(|v| v.to_u64())
        .map_err(perr("JOB_SIZE"))? as u32;
    Ok(Me { c, me, size })
}

/// The range and infos that send an event to `rank` of `ns`: CUSTOM with
/// that proc, the whole namespace, or LOCAL without the server's cache.
pub(crate) fn target(
    range: &str,
    ns: &Nspace,
    rank: u32,
) -> Result<(DataRange, Vec<Info>), String> {
    let e = perr("info");
    match range {
        "custom" => {
            let p = Proc::from_parts(ns.clone(), Rank(rank));
            let i = Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(p)).map_err(e)?;
            Ok((DataRange::CUSTOM, vec![i]))
        }
        "namespace" => Ok((DataRange::NAMESPACE, Vec::new())),
        "local" => {
            let i = Info::new(attrs::EVENT_DO_NOT_CACHE, Value::Bool(true)).map_err(e)?;
            Ok((DataRange::LOCAL, vec![i]))
        }
        other => Err(format!("unknown range {other:?} (custom|namespace|local)")),
    }
}

pub(crate) fn client_role(args: &[String]) -> Result<(), String> {
    let num = |i: usize| -> Result<u64, String> {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("client argument {i} must be a number: {args:?}"))
    };
    let s = |i: usize| args.get(i).map_or("", String::as_str);
    let yield_ = |i: usize| s(i) == "yield";
    let r = match s(0) {
        "notify" => notify_role(s(1), s(2) == "chain", yield_(3), num(4)?, num(5)?, num(6)?),
        "proclocal" => proc_local_role(yield_(1), num(2)?, num(3)?, num(4)?, num(5)?, num(6)?),
        "tput" => tput_role(num(1)?),
        "fanout" => fanout_role(s(1), yield_(2), num(3)?, num(4)?, num(5)?),
        other => Err(format!("unknown client experiment {other:?}")),
    };
    if let Err(e) = &r {
        let rank = std::env::var("PMIX_RANK").unwrap_or_else(|_| "?".into());
        println!("FAILED rank {rank}: {e}");
    }
    r
}

/// State of the notify ping-pong on one rank.
#[derive(Default)]
pub(crate) struct Pong {
    count: AtomicU64,
    arrivals: Mutex<Vec<Instant>>,
    level: Level,
    error: Mutex<Option<String>>,
}

impl Pong {
    fn fail(&self, e: String) {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(e);
        self.level.raise(u64::MAX);
    }

    fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

pub(crate) fn notify_role(
    range: &str,
    chain: bool,
    yield_: bool,
    iters: u64,
    warm: u64,
    budget_ms: u64,
) -> Result<(), String> {
    let Me { c, me, size } = init()?;
    if size != 2 {
        return Err(format!("notify needs 2 ranks, not {size}"));
    }
    let rank = me.rank.0;
    let total = iters + warm;
    let (rng, info) = target(range, &me.nspace, 1 - rank)?;
    let st = Arc::new(Pong {
        arrivals: Mutex::new(Vec::with_capacity(total as usize)),
        ..Pong::default()
    });
    let budget = Arc::new(Budget::new(warm));
    let (st2, c2, info2, budget2) = (
        Arc::clone(&st),
        c.clone(),
        info.clone(),
        Arc::clone(&budget),
    );
    let id = if rank == 0 {
        c.register_event_handler(&[CODE_PONG], &[], move |_: &Event<'_>, done| {
            let t = Instant::now();
            let k = st2.count.fetch_add(1, Ordering::AcqRel) + 1;
            if chain {
                // the next PING first, the bookkeeping after
                let more = k < total && !budget2.spent(k, t);
                if more {
                    if let Err(e) = c2.notify_event(CODE_PING, rng, &info2) {
                        st2.fail(format!("notify PING from the handler: {e}"));
                    }
                }
                st2.arrivals
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(t);
                if !more {
                    st2.level.raise(1);
                }
            }
            complete(done);
        })
    } else {
        c.register_event_handler(&[CODE_PING, CODE_STOP], &[], move |ev: &Event<'_>, done| {
            if ev.status == CODE_STOP {
                st2.level.raise(1);
            } else {
                st2.count.fetch_add(1, Ordering::AcqRel);
                if let Err(e) = c2.notify_event(CODE_PONG, rng, &info2) {
                    st2.fail(format!("notify PONG from the handler: {e}"));
                }
            }
            complete(done);
        })
    }
    .map_err(perr("register_event_handler"))?;
    c.fence(&[], &[]).map_err(perr("fence(start)"))?; // every handler is registered

    let mut rtt = Vec::with_capacity(iters as usize);
    if rank == 0 {
        let count = |st: &Pong| st.count.load(Ordering::Acquire);
        let lost = || format!("{} of {total} PONGs arrived", count(&st));
        let t0 = Instant::now();
        budget.start(budget_ms);
        if chain {
            c.notify_event(CODE_PING, rng, &info)
                .map_err(perr("notify PING"))?;
            let ok = st.level.wait(1, CLIENT_WAIT);
            if let Some(e) = st.error() {
                return Err(e);
            }
            if !ok {
                return Err(format!("timed out after {CLIENT_WAIT:?}: {}", lost()));
            }
            let a = st.arrivals.lock().unwrap_or_else(PoisonError::into_inner);
            let mut prev = t0;
            for (i, &t) in a.iter().enumerate() {
                if i as u64 >= warm {
                    rtt.push(t.duration_since(prev).as_nanos() as f64);
                }
                prev = t;
            }
        } else {
            for i in 0..total {
                let t0 = Instant::now();
                c.notify_event(CODE_PING, rng, &info)
                    .map_err(perr("notify PING"))?;
                poll(|| count(&st) > i, yield_, &lost)?;
                let t1 = Instant::now();
                if i >= warm {
                    rtt.push(t1.duration_since(t0).as_nanos() as f64);
                }
                if budget.spent(i + 1, t1) {
                    break;
                }
            }
        }
        c.notify_event(CODE_STOP, rng, &info)
            .map_err(perr("notify STOP"))?;
    } else if !st.level.wait(1, 2 * CLIENT_WAIT) {
        return Err(format!(
            "no STOP after {} PINGs",
            st.count.load(Ordering::Acquire)
        ));
    }
    if let Some(e) = st.error() {
        return Err(e);
    }
    c.fence(&[], &[]).map_err(perr("fence(end)"))?;
    c.deregister_event_handler(id)
        .map_err(perr("deregister_event_handler"))?;
    let seen = st.count.load(Ordering::Acquire) as f64;
    if rank == 0 {
        let one: Vec<f64> = rtt.iter().map(|x| x / 2.0).collect();
        let s = stats_of(&one);
        print_results(&[
            ("oneway_ns", s.med),
            ("p10", s.p10),
            ("p90", s.p90),
            ("iters", rtt.len() as f64),
            ("pongs_seen", seen),
        ]);
    } else {
        print_results(&[("pings_seen", seen)]);
    }
    c.finalize().map_err(perr("finalize"))?;
    Ok(())
}

/// State of the PROC_LOCAL handler.
pub(crate) struct LocalState {
    base: Instant,
    count: AtomicU64,
    last_ns: AtomicU64,
    target: AtomicU64,
    level: Level,
}

pub(crate) fn proc_local_role(
    yield_: bool,
    iters: u64,
    warm: u64,
    burst: u64,
    threads: u64,
    budget_ms: u64,
) -> Result<(), String> {
    let Me { c, .. } = init()?;
    let st = Arc::new(LocalState {
        base: Instant::now(),
        count: AtomicU64::new(0),
        last_ns: AtomicU64::new(0),
        target: AtomicU64::new(u64::MAX),
        level: Level::default(),
    });
    let st2 = Arc::clone(&st);
    let id = c
        .register_event_handler(&[CODE_LOCAL], &[], move |_: &Event<'_>, done| {
            let t = st2.base.elapsed().as_nanos() as u64;
            st2.last_ns.store(t, Ordering::Relaxed);
            let k = st2.count.fetch_add(1, Ordering::AcqRel) + 1;
            if k == st2.target.load(Ordering::Acquire) {
                st2.level.raise(k);
            }
            complete(done);
        })
        .map_err(perr("register_event_handler"))?;
    let notify = |c: &Client| {
        c.notify_event(CODE_LOCAL, DataRange::PROC_LOCAL, &[])
            .map_err(perr("notify PROC_LOCAL"))
    };
    let count = || st.count.load(Ordering::Acquire);

    // one-way latency: main stamps, handler stamps
    let mut lat = Vec::with_capacity(iters as usize);
    let budget = Budget::new(warm);
    budget.start(budget_ms);
    for i in 0..iters + warm {
        let t0 = st.base.elapsed().as_nanos() as u64;
        notify(&c)?;
        poll(|| count() > i, yield_, &|| {
            format!("event {i} never reached the handler")
        })?;
        if i >= warm {
            lat.push(st.last_ns.load(Ordering::Relaxed).saturating_sub(t0) as f64);
        }
        if budget.spent(i + 1, Instant::now()) {
            break;
        }
    }
    let s = stats_of(&lat);

    // a burst from this thread; the main thread sleeps until the last one
    let burst_wait = |want: u64| {
        if st.level.wait(want, CLIENT_WAIT) {
            Ok(())
        } else {
            Err(format!("burst: {} of {want} events handled", count()))
        }
    };
    let start = count();
    st.target.store(start + burst, Ordering::Release);
    let t0 = Instant::now();
    for _ in 0..burst {
        notify(&c)?;
    }
    let sent = t0.elapsed().as_secs_f64();
    burst_wait(start + burst)?;
    let dt = t0.elapsed().as_secs_f64();

    // the same burst from `threads` threads
    let per = burst / threads.max(1);
    let start = count();
    let want = start + per * threads;
    st.target.store(want, Ordering::Release);
    let go = Barrier::new(threads as usize + 1);
    let (mt_dt, mt_sent) = std::thread::scope(|sc| -> Result<(f64, f64), String> {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                let (c, go) = (c.clone(), &go);
                sc.spawn(move || -> Result<Instant, String> {
                    go.wait();
                    for _ in 0..per {
                        notify(&c)?;
                    }
                    Ok(Instant::now())
                })
            })
            .collect();
        go.wait();
        let t0 = Instant::now();
        let mut last_sent = t0;
        for h in hs {
            let t = h.join().map_err(|_| "a producer thread panicked")??;
            last_sent = last_sent.max(t);
        }
        burst_wait(want)?;
        Ok((
            t0.elapsed().as_secs_f64(),
            last_sent.duration_since(t0).as_secs_f64(),
        ))
    })?;
    c.deregister_event_handler(id)
        .map_err(perr("deregister_event_handler"))?;
    let mt_total = (per * threads) as f64;
    print_results(&[
        ("oneway_ns", s.med),
        ("p10", s.p10),
        ("p90", s.p90),
        ("iters", lat.len() as f64),
        ("burst_ev_s", burst as f64 / dt),
        ("burst_call_rate", burst as f64 / sent),
        ("mt_ev_s", mt_total / mt_dt),
        ("mt_call_rate", mt_total / mt_sent),
    ]);
    c.finalize().map_err(perr("finalize"))?;
    Ok(())
}

/// State of the throughput consumer.
pub(crate) struct Sink {
    base: Instant,
    total: u64,
    count: AtomicU64,
    first_ns: AtomicU64,
    last_ns: AtomicU64,
    level: Level,
}

pub(crate) fn tput_role(per: u64) -> Result<(), String> {
    let Me { c, me, size } = init()?;
    if size < 2 {
        return Err("tput needs at least 2 ranks".into());
    }
    let producers = u64::from(size - 1);
    let total = per * producers;
    if me.rank.0 == 0 {
        let st = Arc::new(Sink {
            base: Instant::now(),
            total,
            count: AtomicU64::new(0),
            first_ns: AtomicU64::new(0),
            last_ns: AtomicU64::new(0),
            level: Level::default(),
        });
        let st2 = Arc::clone(&st);
        let id = c
            .register_event_handler(&[CODE_BURST], &[], move |_: &Event<'_>, done| {
                let t = st2.base.elapsed().as_nanos() as u64;
                let k = st2.count.fetch_add(1, Ordering::AcqRel) + 1;
                if k == 1 {
                    st2.first_ns.store(t, Ordering::Relaxed);
                }
                if k == st2.total {
                    st2.last_ns.store(t, Ordering::Relaxed);
                    st2.level.raise(k);
                }
                complete(done);
            })
            .map_err(perr("register_event_handler"))?;
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        let t0 = st.base.elapsed().as_nanos() as u64;
        if !st.level.wait(total, CLIENT_WAIT) {
            return Err(format!(
                "{} of {total} events arrived",
                st.count.load(Ordering::Acquire)
            ));
        }
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        c.deregister_event_handler(id)
            .map_err(perr("deregister_event_handler"))?;
        let (first, last) = (
            st.first_ns.load(Ordering::Relaxed),
            st.last_ns.load(Ordering::Relaxed),
        );
        let secs = |ns: u64| (ns.max(1)) as f64 / 1e9;
        print_results(&[
            ("recv_ev_s", total as f64 / secs(last.saturating_sub(t0))),
            (
                "first_to_last_ev_s",
                (total - 1) as f64 / secs(last.saturating_sub(first)),
            ),
            ("received", st.count.load(Ordering::Acquire) as f64),
            ("total_ms", last.saturating_sub(t0) as f64 / 1e6),
        ]);
    } else {
        let (rng, info) = target("custom", &me.nspace, 0)?;
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        let t0 = Instant::now();
        for _ in 0..per {
            c.notify_event(CODE_BURST, rng, &info)
                .map_err(perr("notify burst"))?;
        }
        let rate = per as f64 / t0.elapsed().as_secs_f64();
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        print_results(&[(&format!("send_call_rate_r{}", me.rank.0), rate)]);
    }
    c.finalize().map_err(perr("finalize"))?;
    Ok(())
}

pub(crate) fn fanout_role(
    range: &str,
    yield_: bool,
    iters: u64,
    warm: u64,
    budget_ms: u64,
) -> Result<(), String> {
    let path = std::env::var(SHM_ENV).map_err(|_| format!("{SHM_ENV} is not set"))?;
    let seg = Arc::new(ProbeSegment::open(&path)?);
    let Me { c, me, size } = init()?;
    if size < 2 {
        return Err("fanout needs at least 2 ranks".into());
    }
    let receivers = u64::from(size - 1);
    let total = iters + warm;
    let (rng, info) = target(range, &me.nspace, 1)?;
    let handled = || seg.probe().line().load(Ordering::Acquire);
    if me.rank.0 == 0 {
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        let (mut call, mut last) = (Vec::new(), Vec::new());
        let budget = Budget::new(warm);
        budget.start(budget_ms);
        let mut sent = 0;
        for i in 0..total {
            let want = receivers * (i + 1);
            let t0 = Instant::now();
            c.notify_event(CODE_FAN, rng, &info)
                .map_err(perr("notify fan-out"))?;
            let t1 = t0.elapsed();
            poll(|| handled() >= want, yield_, &|| {
                format!("{} of {want} handler runs", handled())
            })?;
            let t2 = t0.elapsed();
            sent = i + 1;
            if i >= warm {
                call.push(t1.as_nanos() as f64);
                last.push(t2.as_nanos() as f64);
            }
            if budget.spent(sent, t0 + t2) {
                break;
            }
        }
        c.notify_event(CODE_STOP, rng, &info)
            .map_err(perr("notify STOP"))?;
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        let (sc, sl) = (stats_of(&call), stats_of(&last));
        print_results(&[
            ("call_ns", sc.med),
            ("call_p10", sc.p10),
            ("call_p90", sc.p90),
            ("last_ns", sl.med),
            ("last_p10", sl.p10),
            ("last_p90", sl.p90),
            ("handled", handled() as f64),
            ("expected", (receivers * sent) as f64),
            ("iters", call.len() as f64),
        ]);
    } else {
        let stop = Arc::new(Level::default());
        let (stop2, seg2) = (Arc::clone(&stop), Arc::clone(&seg));
        let id = c
            .register_event_handler(&[CODE_FAN, CODE_STOP], &[], move |ev: &Event<'_>, done| {
                if ev.status == CODE_STOP {
                    stop2.raise(1);
                } else {
                    seg2.probe().line().fetch_add(1, Ordering::AcqRel);
                }
                complete(done);
            })
            .map_err(perr("register_event_handler"))?;
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        if !stop.wait(1, 2 * CLIENT_WAIT) {
            return Err("no STOP".into());
        }
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        c.deregister_event_handler(id)
            .map_err(perr("deregister_event_handler"))?;
    }
    c.finalize().map_err(perr("finalize"))?;
    Ok(())
}
