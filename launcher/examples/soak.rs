//! The event soak: `P` processes under the real launcher (`pmixrun`),
//! each notifying `N` events to its peer (rank r → rank r + 1 mod P,
//! `PMIX_RANGE_CUSTOM`), and every 10,000th event to the whole namespace
//! (through the server's event cache); the parent prints the launcher's
//! (the server's) RSS and thread count every `--every` seconds and fails
//! when they leave their bounds.
//!
//! ```sh
//! # the long run (docs/RELIABILITY.md): 16 × 10^6 events
//! cargo run --release -p pmix-launcher --example soak -- --procs 16 --events 1000000
//! # the CI size (launcher/tests/soak.rs)
//! cargo run -p pmix-launcher --example soak -- --procs 16 --events 20000 --every 2
//! ```
//!
//! Bounds (options), at every sample: the launcher's thread count at most
//! `--max-threads` (default 4 × procs + 16: today a connection thread and
//! two output forwarders per rank) and at most 8 above the first sample,
//! and its RSS at most `--max-growth-mb` (default 32) above the first
//! sample (taken 1 s after the start). Exit status 0 when every rank
//! received all `N` events of its predecessor and the bounds held; the
//! last line says `soak ok` or `FAIL: soak: …`. pmixrun's own `--timeout` (`--timeout`, default 3600 s)
//! bounds the job.
//!
//! Client role (`soak --client N`, started by pmixrun): counts its events
//! in a handler, fences once every handler is registered, notifies, waits
//! (at most the job's timeout) until it received `N`, fences, finalizes,
//! and prints `ok rank R sent N received N`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, DataRange, Info, Proc, Rank, Status, Value};

/// The code of the peer-to-peer events.
const PEER: Status = Status(-3101);
/// The code of the namespace-wide events.
const WIDE: Status = Status(-3102);
/// Every this many events one goes to the whole namespace.
const WIDE_EVERY: u64 = 10_000;

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn client(n: u64) {
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let me = c.proc().clone();
    let size = c
        .get(
            &Proc::from_parts(me.nspace.clone(), Rank::WILDCARD),
            attrs::JOB_SIZE,
            &[],
        )
        .and_then(|v| v.to_u64())
        .unwrap_or_else(|e| fail(format!("JOB_SIZE: {e}"))) as u32;
    let got = Arc::new(Mutex::new(0u64));
    let g = Arc::clone(&got);
    let received = move || *got.lock().unwrap_or_else(|e| e.into_inner());
    c.register_event_handler(&[PEER], &[], move |_, done| {
        *g.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.register_event_handler(&[WIDE], &[], |_, done| {
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("start fence: {e}")));
    let next = Proc::from_parts(me.nspace.clone(), Rank((me.rank.0 + 1) % size));
    let peer = [Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(next)).unwrap()];
    let wide = [Info::new(attrs::EVENT_DO_NOT_CACHE, Value::Bool(true)).unwrap()];
    for i in 1..=n {
        let (code, range, info) = if i % WIDE_EVERY == 0 {
            (WIDE, DataRange::NAMESPACE, &wide[..])
        } else {
            (PEER, DataRange::CUSTOM, &peer[..])
        };
        // A full ring is waited for inside notify; should it stay full,
        // retry a while.
        let t0 = Instant::now();
        while let Err(e) = c.notify_event(code, range, info) {
            if e.status() != Status::ERR_OUT_OF_RESOURCE || t0.elapsed() > Duration::from_secs(60) {
                fail(format!("notify {i}: {e}"));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let want = n - n / WIDE_EVERY;
    let t0 = Instant::now();
    while received() < want {
        if t0.elapsed() > Duration::from_secs(3600) {
            fail(format!("received {} of {want}", received()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("end fence: {e}")));
    println!("ok rank {} sent {n} received {}", me.rank.0, received());
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
}

/// `VmRSS` (KiB) and `Threads` of process `pid`.
fn rss_threads(pid: u32) -> Option<(u64, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
    };
    Some((field("VmRSS")?, field("Threads")?))
}

struct Opts {
    procs: u32,
    events: u64,
    every: u64,
    max_threads: Option<u64>,
    max_growth_mb: u64,
    timeout: u64,
}

fn opts(args: &[String]) -> Opts {
    let mut o = Opts {
        procs: 16,
        events: 1_000_000,
        every: 10,
        max_threads: None,
        max_growth_mb: 32,
        timeout: 3600,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_else(|| fail(format!("{a} needs a number")));
        match a.as_str() {
            "--procs" => o.procs = v as u32,
            "--events" => o.events = v,
            "--every" => o.every = v.max(1),
            "--max-threads" => o.max_threads = Some(v),
            "--max-growth-mb" => o.max_growth_mb = v,
            "--timeout" => o.timeout = v,
            _ => fail(format!("unknown option {a}")),
        }
    }
    o
}

fn parent(o: &Opts) {
    let me = std::env::current_exe().unwrap();
    // target/<profile>/examples/soak → target/<profile>/pmixrun
    let pmixrun = std::env::var_os("PMIXRUN").map_or_else(
        || me.parent().unwrap().parent().unwrap().join("pmixrun"),
        Into::into,
    );
    let max_threads = o.max_threads.unwrap_or(4 * u64::from(o.procs) + 16);
    println!(
        "soak: {} processes × {} events (pmixrun {}); bounds: threads ≤ {max_threads} and ≤ first \
         sample + 8, RSS ≤ first sample + {} MiB",
        o.procs,
        o.events,
        pmixrun.display(),
        o.max_growth_mb
    );
    let mut job = Command::new(&pmixrun)
        .args([
            "--timeout",
            &o.timeout.to_string(),
            "-n",
            &o.procs.to_string(),
        ])
        .arg(&me)
        .args(["--client", &o.events.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(format!("{}: {e}", pmixrun.display())));
    let pid = job.id();
    let out = job.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut ranks_ok = 0u64;
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            if l.starts_with("ok rank") {
                ranks_ok += 1;
            } else {
                println!("{l}");
            }
        }
        ranks_ok
    });
    let t0 = Instant::now();
    let mut first: Option<(u64, u64)> = None;
    let (mut max_rss, mut max_thr) = (0u64, 0u64);
    let mut violation: Option<String> = None;
    let mut next_sample = Duration::from_secs(1);
    let status = loop {
        if let Some(st) = job.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() >= next_sample {
            next_sample += Duration::from_secs(o.every);
            if let Some((rss, thr)) = rss_threads(pid) {
                let (base, base_thr) = *first.get_or_insert((rss, thr));
                max_rss = max_rss.max(rss);
                max_thr = max_thr.max(thr);
                println!(
                    "t={:>6.1}s pmixrun rss={} KiB threads={thr}",
                    t0.elapsed().as_secs_f64(),
                    rss
                );
                if (thr > max_threads || thr > base_thr + 8) && violation.is_none() {
                    violation = Some(format!(
                        "{thr} threads (bound {max_threads}, first sample {base_thr})"
                    ));
                }
                if rss > base + o.max_growth_mb * 1024 && violation.is_none() {
                    violation = Some(format!(
                        "RSS {rss} KiB grew more than {} MiB over {base} KiB",
                        o.max_growth_mb
                    ));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let ok = reader.join().unwrap_or(0);
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "soak: {ok} of {} ranks done in {secs:.1} s ({:.0} events/s); pmixrun max rss {max_rss} KiB \
         (first {} KiB), max threads {max_thr}",
        o.procs,
        (o.events * u64::from(o.procs)) as f64 / secs,
        first.map_or(0, |f| f.0)
    );
    let why = if !status.success() {
        Some(format!("pmixrun exited with {status}"))
    } else if ok != u64::from(o.procs) {
        Some(format!("{ok} of {} ranks done", o.procs))
    } else {
        violation
    };
    match why {
        Some(w) => fail(format!("soak: {w}")),
        None => println!("soak ok"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--client") {
        let n = args
            .get(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| fail("--client needs a number of events".into()));
        return client(n);
    }
    parent(&opts(&args));
}
