//! The native side: what each rank of a pmix-rs job does, through the
//! Rust client API. The arguments and the output (`SAMPLES`, `RESULT`,
//! `FAILED` lines) are those of the C driver (`benches/c/`), so that the
//! same row means the same protocol on every side; `notify-chain` and
//! `fanout` have no C counterpart.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pmix_benches::limits::ProbeSegment;
use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Scope, Status, Value};
use pmix_shm::sync::{AtomicU64, Ordering};

use crate::sides::SHM_ENV;

/// User event codes below `PMIX_EXTERNAL_ERR_BASE`, as in the C driver.
const PING: Status = Status(-3001);
const PONG: Status = Status(-3002);
const LOCAL: Status = Status(-3003);
const BURST: Status = Status(-3004);
const STOP: Status = Status(-3005);
const FAN: Status = Status(-3006);

/// How long any wait of a rank lasts before it fails the run.
const WAIT: Duration = Duration::from_secs(60);

/// Runs the role `args[0]` with its arguments; a failure is printed as a
/// `FAILED` line (and returned).
///
/// # Errors
/// Whatever the role hit.
pub fn client_role(args: &[String]) -> Result<(), String> {
    let t0 = Instant::now();
    let c = Client::init(&[]).map_err(perr("init"))?;
    let init_ns = t0.elapsed().as_nanos() as u64;
    let num = |i: usize| -> Result<u64, String> {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("argument {i} must be a number: {args:?}"))
    };
    let s = |i: usize| args.get(i).map_or("", String::as_str);
    let r = match s(0) {
        "notify" => notify(&c, s(1), s(2) == "yield", num(3)?, num(4)?, num(5)?, false),
        "notify-chain" => notify(&c, s(1), false, num(3)?, num(4)?, num(5)?, true),
        "proc-local" => proc_local(
            &c,
            s(1) == "yield",
            [num(2)?, num(3)?, num(4)?, num(5)?, num(6)?],
        ),
        "throughput" => throughput(&c, num(1)?),
        "get" => get(&c, num(1)?, num(2)?.max(1)),
        "fence" => fence(&c, num(1)?, num(2)?),
        "fanout" => fanout(&c, s(1), s(2) == "yield", num(3)?, num(4)?, num(5)?),
        "init" => {
            samples("init", &[init_ns]);
            Ok(())
        }
        other => Err(format!("unknown measurement {other:?}")),
    }
    .and_then(|()| c.finalize().map_err(perr("finalize")));
    if let Err(e) = &r {
        println!("FAILED rank {}: {e}", c.proc().rank.0);
    }
    r
}

fn perr(what: &str) -> impl Fn(pmix_core::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Prints `SAMPLES name v…` in one write.
fn samples(name: &str, v: &[u64]) {
    let mut s = format!("SAMPLES {name}");
    for x in v {
        s.push_str(&format!(" {x}"));
    }
    s.push('\n');
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(s.as_bytes()).and_then(|()| o.flush());
}

fn result(name: &str, v: f64) {
    println!("RESULT {name} {v}");
}

fn complete(done: EventCompletion) {
    done.done(Status::EVENT_ACTION_COMPLETE, Vec::new());
}

fn job_size(c: &Client) -> Result<u32, String> {
    let wild = Proc::from_parts(c.proc().nspace.clone(), Rank::WILDCARD);
    Ok(c.get(&wild, attrs::JOB_SIZE, &[])
        .and_then(|v| v.to_u64())
        .map_err(perr("JOB_SIZE"))? as u32)
}

fn now_ns(base: Instant) -> u64 {
    base.elapsed().as_nanos() as u64
}

/// Polls `cond` (spinning, or yielding between polls) for at most [`WAIT`].
fn poll(cond: impl Fn() -> bool, yield_: bool, what: &dyn Fn() -> String) -> Result<(), String> {
    let deadline = Instant::now() + WAIT;
    let mut i = 0u32;
    while !cond() {
        if yield_ {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
        i = i.wrapping_add(1);
        if i % 1024 == 0 && Instant::now() > deadline {
            return Err(format!("timed out after {WAIT:?}: {}", what()));
        }
    }
    Ok(())
}

/// A value that only grows, that a thread can sleep on.
#[derive(Default)]
struct Level {
    v: Mutex<u64>,
    cv: Condvar,
}

impl Level {
    fn raise(&self, to: u64) {
        let mut g = self.v.lock().unwrap_or_else(PoisonError::into_inner);
        *g = (*g).max(to);
        self.cv.notify_all();
    }

    fn wait(&self, want: u64) -> bool {
        let g = self.v.lock().unwrap_or_else(PoisonError::into_inner);
        let (g, _) = self
            .cv
            .wait_timeout_while(g, WAIT, |v| *v < want)
            .unwrap_or_else(PoisonError::into_inner);
        *g >= want
    }
}

/// The range and infos that reach `rank` of `ns`, as the C driver's.
fn target(range: &str, ns: &Nspace, rank: u32) -> Result<(DataRange, Vec<Info>), String> {
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

/// What a handler saw.
struct Seen {
    base: Instant,
    count: AtomicU64,
    last_ns: AtomicU64,
    stop: Level,
    chain: Mutex<Vec<u64>>,
    error: Mutex<Option<String>>,
}

impl Seen {
    fn new() -> Arc<Seen> {
        Arc::new(Seen {
            base: Instant::now(),
            count: AtomicU64::new(0),
            last_ns: AtomicU64::new(0),
            stop: Level::default(),
            chain: Mutex::new(Vec::new()),
            error: Mutex::new(None),
        })
    }

    fn count(&self) -> u64 {
        // ORDERING: Acquire — pairs with the handler's AcqRel increment,
        // so the arrival stamp written before it is visible.
        self.count.load(Ordering::Acquire)
    }
}

/// Rank 0 notifies PING, rank 1 answers PONG. Main-thread variant (as the
/// C driver): each main thread waits for the other's event and sends the
/// next. `chain`: rank 0's handler sends the next PING and rank 1's
/// handler the PONG (only the progress threads run).
fn notify(
    c: &Client,
    range: &str,
    yield_: bool,
    iters: u64,
    warm: u64,
    budget_ms: u64,
    chain: bool,
) -> Result<(), String> {
    if job_size(c)? != 2 {
        return Err("notify needs 2 ranks".into());
    }
    let rank = c.proc().rank.0;
    let (rng, info) = target(range, &c.proc().nspace, 1 - rank)?;
    let seen = Seen::new();
    let total = warm + iters;
    let mine = c.proc().clone();
    let (s2, c2, info2) = (Arc::clone(&seen), c.clone(), info.clone());
    let end_ns = Arc::new(AtomicU64::new(u64::MAX));
    let end2 = Arc::clone(&end_ns);
    let id = c
        .register_event_handler(&[PING, PONG, STOP], &[], move |ev: &Event<'_>, done| {
            let t = now_ns(s2.base);
            if ev.source == Some(&mine) {
                return complete(done); // LOCAL echoes our own event
            }
            if ev.status == STOP {
                s2.stop.raise(1);
                return complete(done);
            }
            // ORDERING: AcqRel — publishes the count to the polling main
            // thread (Acquire in `Seen::count`).
            let k = s2.count.fetch_add(1, Ordering::AcqRel) + 1;
            if chain {
                let send = if rank == 0 {
                    s2.chain
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(t);
                    // ORDERING: Relaxed — a budget hint, set once by main.
                    k < total && (k < warm + 100 || t < end2.load(Ordering::Relaxed))
                } else {
                    true
                };
                let code = if rank == 0 { PING } else { PONG };
                if send {
                    if let Err(e) = c2.notify_event(code, rng, &info2) {
                        *s2.error.lock().unwrap_or_else(PoisonError::into_inner) =
                            Some(format!("notify from the handler: {e}"));
                    }
                } else {
                    s2.stop.raise(1);
                }
            }
            complete(done);
        })
        .map_err(perr("register_event_handler"))?;
    c.fence(&[], &[]).map_err(perr("fence(start)"))?;
    let lost = || format!("{} of {total} events arrived", seen.count());
    let mut oneway = Vec::with_capacity(iters as usize);
    if rank == 0 {
        if chain {
            // ORDERING: Relaxed — read as a hint by the handler.
            end_ns.store(
                now_ns(seen.base) + budget_ms * 1_000_000 + 200_000_000,
                Ordering::Relaxed,
            );
            let t0 = now_ns(seen.base);
            c.notify_event(PING, rng, &info)
                .map_err(perr("notify PING"))?;
            if !seen.stop.wait(1) {
                return Err(lost());
            }
            let arrivals = seen.chain.lock().unwrap_or_else(PoisonError::into_inner);
            let mut prev = t0;
            for (i, &t) in arrivals.iter().enumerate() {
                if i as u64 >= warm {
                    oneway.push(t.saturating_sub(prev) / 2);
                }
                prev = t;
            }
        } else {
            let mut end = Instant::now();
            for i in 0..total {
                if i == warm {
                    end = Instant::now() + Duration::from_millis(budget_ms);
                }
                let t0 = Instant::now();
                c.notify_event(PING, rng, &info)
                    .map_err(perr("notify PING"))?;
                poll(|| seen.count() > i, yield_, &lost)?;
                let t1 = Instant::now();
                if i >= warm {
                    oneway.push(t1.duration_since(t0).as_nanos() as u64 / 2);
                    if oneway.len() >= 100 && t1 > end {
                        break;
                    }
                }
            }
        }
        c.notify_event(STOP, rng, &info)
            .map_err(perr("notify STOP"))?;
        samples("oneway", &oneway);
        result("round_trips", oneway.len() as f64);
    } else if chain {
        if !seen.stop.wait(1) {
            return Err(format!("no STOP after {} PINGs", seen.count()));
        }
    } else {
        for i in 1.. {
            let stopped = || *seen.stop.v.lock().unwrap_or_else(PoisonError::into_inner) > 0;
            poll(|| seen.count() >= i || stopped(), yield_, &|| {
                format!("no PING {i} and no STOP")
            })?;
            if seen.count() < i {
                break;
            }
            c.notify_event(PONG, rng, &info)
                .map_err(perr("notify PONG"))?;
        }
    }
    if let Some(e) = seen
        .error
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
    {
        return Err(e);
    }
    c.fence(&[], &[]).map_err(perr("fence(end)"))?;
    c.deregister_event_handler(id)
        .map_err(perr("deregister_event_handler"))
}

/// PROC_LOCAL: the main thread stamps, the handler stamps; then a burst
/// from this thread, and the same burst split over `threads` threads.
/// `n` = [iters, warm, burst, budget_ms, threads].
fn proc_local(c: &Client, yield_: bool, n: [u64; 5]) -> Result<(), String> {
    let [iters, warm, burst, budget_ms, threads] = n;
    let seen = Seen::new();
    let s2 = Arc::clone(&seen);
    let id = c
        .register_event_handler(&[LOCAL, BURST], &[], move |_: &Event<'_>, done| {
            // ORDERING: Relaxed — published by the AcqRel increment below.
            s2.last_ns.store(now_ns(s2.base), Ordering::Relaxed);
            // ORDERING: AcqRel — pairs with `Seen::count`'s Acquire.
            s2.count.fetch_add(1, Ordering::AcqRel);
            complete(done);
        })
        .map_err(perr("register_event_handler"))?;
    let mut lat = Vec::with_capacity(iters as usize);
    let mut end = Instant::now();
    for i in 0..warm + iters {
        if i == warm {
            end = Instant::now() + Duration::from_millis(budget_ms);
        }
        let t0 = now_ns(seen.base);
        c.notify_event(LOCAL, DataRange::PROC_LOCAL, &[])
            .map_err(perr("notify PROC_LOCAL"))?;
        poll(|| seen.count() > i, yield_, &|| {
            format!("event {i} never handled")
        })?;
        if i >= warm {
            // ORDERING: Relaxed — ordered by the Acquire in `count`.
            lat.push(seen.last_ns.load(Ordering::Relaxed).saturating_sub(t0));
            if lat.len() >= 100 && Instant::now() > end {
                break;
            }
        }
    }
    samples("oneway", &lat);
    let start = seen.count();
    let t0 = Instant::now();
    for _ in 0..burst {
        c.notify_event(BURST, DataRange::PROC_LOCAL, &[])
            .map_err(perr("notify burst"))?;
    }
    poll(|| seen.count() >= start + burst, true, &|| {
        format!("burst: {} of {burst} handled", seen.count() - start)
    })?;
    result("burst_ev_s", burst as f64 / t0.elapsed().as_secs_f64());
    if threads > 1 {
        let per = burst / threads;
        let start = seen.count();
        let t0 = Instant::now();
        std::thread::scope(|sc| -> Result<(), String> {
            let hs: Vec<_> = (0..threads)
                .map(|_| {
                    sc.spawn(|| -> Result<(), String> {
                        for _ in 0..per {
                            c.notify_event(BURST, DataRange::PROC_LOCAL, &[])
                                .map_err(perr("notify burst"))?;
                        }
                        Ok(())
                    })
                })
                .collect();
            for h in hs {
                h.join().map_err(|_| "a producer thread panicked")??;
            }
            Ok(())
        })?;
        let want = start + per * threads;
        poll(|| seen.count() >= want, true, &|| {
            format!(
                "threaded burst: {} of {} handled",
                seen.count() - start,
                per * threads
            )
        })?;
        result(
            "mt_burst_ev_s",
            (per * threads) as f64 / t0.elapsed().as_secs_f64(),
        );
    }
    c.deregister_event_handler(id)
        .map_err(perr("deregister_event_handler"))
}

/// Ranks 1.. notify `per` events each to rank 0, which counts them.
fn throughput(c: &Client, per: u64) -> Result<(), String> {
    let size = job_size(c)?;
    if size < 2 {
        return Err("throughput needs at least 2 ranks".into());
    }
    let total = per * u64::from(size - 1);
    if c.proc().rank.0 == 0 {
        let seen = Seen::new();
        let s2 = Arc::clone(&seen);
        let id = c
            .register_event_handler(&[BURST], &[], move |_: &Event<'_>, done| {
                // ORDERING: Relaxed — published by the AcqRel increment.
                s2.last_ns.store(now_ns(s2.base), Ordering::Relaxed);
                // ORDERING: AcqRel — pairs with `Seen::count`'s Acquire.
                s2.count.fetch_add(1, Ordering::AcqRel);
                complete(done);
            })
            .map_err(perr("register_event_handler"))?;
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        let t0 = now_ns(seen.base);
        poll(|| seen.count() >= total, true, &|| {
            format!("{} of {total} events arrived", seen.count())
        })?;
        // ORDERING: Relaxed — ordered by the Acquire in `count`.
        let t1 = seen.last_ns.load(Ordering::Relaxed);
        result(
            "recv_ev_s",
            total as f64 / (t1.saturating_sub(t0).max(1) as f64 / 1e9),
        );
        result("received", seen.count() as f64);
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        c.deregister_event_handler(id)
            .map_err(perr("deregister_event_handler"))
    } else {
        let (rng, info) = target("custom", &c.proc().nspace, 0)?;
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        for _ in 0..per {
            c.notify_event(BURST, rng, &info)
                .map_err(perr("notify burst"))?;
        }
        c.fence(&[], &[]).map_err(perr("fence(end)"))
    }
}

fn get_batches(c: &Client, who: &Proc, key: &str, n: u64, batch: u64) -> Result<Vec<u64>, String> {
    let mut per = Vec::with_capacity((n / batch) as usize);
    for _ in 0..n / batch {
        let t0 = Instant::now();
        for _ in 0..batch {
            let v = c.get(who, key, &[]).map_err(perr(key))?;
            drop(std::hint::black_box(v));
        }
        per.push(t0.elapsed().as_nanos() as u64 / batch);
    }
    Ok(per)
}

/// Rank 0 times Gets of a job key and of rank 1's committed 64-byte key
/// (ns per call, one sample per batch).
fn get(c: &Client, n: u64, batch: u64) -> Result<(), String> {
    let me = c.proc().clone();
    c.put(
        Scope::GLOBAL,
        "bench.k64",
        Value::ByteObject(vec![me.rank.0 as u8; 64]),
    )
    .map_err(perr("put"))?;
    c.commit().map_err(perr("commit"))?;
    let collect = [Info::flag(attrs::COLLECT_DATA).map_err(perr("info"))?];
    c.fence(&[], &collect).map_err(perr("fence(collect)"))?;
    if me.rank.0 == 0 {
        let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
        let peer = Proc::from_parts(me.nspace.clone(), Rank(1));
        get_batches(c, &wild, attrs::JOB_SIZE, batch, batch)?;
        samples(
            "job_key",
            &get_batches(c, &wild, attrs::JOB_SIZE, n, batch)?,
        );
        get_batches(c, &peer, "bench.k64", batch, batch)?;
        samples("peer_key", &get_batches(c, &peer, "bench.k64", n, batch)?);
    }
    c.fence(&[], &[]).map_err(perr("fence(end)"))
}

/// Every rank puts a new 1 KiB blob (untimed), then a collecting fence is
/// timed; rank 0's samples.
fn fence(c: &Client, iters: u64, warm: u64) -> Result<(), String> {
    let collect = [Info::flag(attrs::COLLECT_DATA).map_err(perr("info"))?];
    let mut lat = Vec::with_capacity(iters as usize);
    for i in 0..warm + iters {
        let blob = vec![(i & 0xff) as u8; 1024];
        c.put(Scope::GLOBAL, "bench.blob1k", Value::ByteObject(blob))
            .map_err(perr("put"))?;
        c.commit().map_err(perr("commit"))?;
        let t0 = Instant::now();
        c.fence(&[], &collect).map_err(perr("fence(collect)"))?;
        if i >= warm {
            lat.push(t0.elapsed().as_nanos() as u64);
        }
    }
    if c.proc().rank.0 == 0 {
        samples("fence", &lat);
    }
    Ok(())
}

/// Rank 0 notifies one event handled by every other rank (each adds one
/// to a counter in the parent's segment); samples: the notify call, and
/// until the last handler ran.
fn fanout(
    c: &Client,
    range: &str,
    yield_: bool,
    iters: u64,
    warm: u64,
    budget_ms: u64,
) -> Result<(), String> {
    let path = std::env::var(SHM_ENV).map_err(|_| format!("{SHM_ENV} is not set"))?;
    let seg = Arc::new(ProbeSegment::open(&path)?);
    let size = job_size(c)?;
    let receivers = u64::from(size.saturating_sub(1));
    let (rng, info) = target(range, &c.proc().nspace, 1)?;
    // ORDERING: Acquire — pairs with the receivers' AcqRel increments.
    let handled = || seg.probe().line().load(Ordering::Acquire);
    if c.proc().rank.0 == 0 {
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        let (mut call, mut last) = (Vec::new(), Vec::new());
        let mut end = Instant::now();
        for i in 0..warm + iters {
            if i == warm {
                end = Instant::now() + Duration::from_millis(budget_ms);
            }
            let want = receivers * (i + 1);
            let t0 = Instant::now();
            c.notify_event(FAN, rng, &info)
                .map_err(perr("notify fan-out"))?;
            let t1 = t0.elapsed();
            poll(|| handled() >= want, yield_, &|| {
                format!("{} of {want} handler runs", handled())
            })?;
            let t2 = t0.elapsed();
            if i >= warm {
                call.push(t1.as_nanos() as u64);
                last.push(t2.as_nanos() as u64);
                if call.len() >= 100 && Instant::now() > end {
                    break;
                }
            }
        }
        c.notify_event(STOP, rng, &info)
            .map_err(perr("notify STOP"))?;
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        samples("call", &call);
        samples("last", &last);
        Ok(())
    } else {
        let stop = Arc::new(Level::default());
        let (stop2, seg2) = (Arc::clone(&stop), Arc::clone(&seg));
        let id = c
            .register_event_handler(&[FAN, STOP], &[], move |ev: &Event<'_>, done| {
                if ev.status == STOP {
                    stop2.raise(1);
                } else {
                    // ORDERING: AcqRel — counted by rank 0's Acquire load.
                    seg2.probe().line().fetch_add(1, Ordering::AcqRel);
                }
                complete(done);
            })
            .map_err(perr("register_event_handler"))?;
        c.fence(&[], &[]).map_err(perr("fence(start)"))?;
        if !stop.wait(1) {
            return Err("no STOP".into());
        }
        c.fence(&[], &[]).map_err(perr("fence(end)"))?;
        c.deregister_event_handler(id)
            .map_err(perr("deregister_event_handler"))
    }
}
