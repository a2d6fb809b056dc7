//! `shmbench`: the cross-process harness for the shared-memory fast path.
//!
//! Every figure is measured between real processes over a real memfd
//! segment, next to the machine's own limits measured in the same run:
//!
//! - `line`: one cache line bounced between two processes (spin), RTT/2;
//! - `futex`: a shared futex word, both sides always sleeping, RTT/2
//!   (these two are `pmix_benches::limits`, shared with `pmixbench`);
//! - `ring-spin` / `ring-doorbell`: two MPSC rings (A→B, B→A), 64-byte
//!   records, consumers spinning / sleeping on the doorbell, RTT/2;
//! - `tp`: throughput of N producer processes into one consumer process.
//!
//! Latency: each run times batches of round trips and keeps the median
//! batch; the table shows the median over runs (`docs/LIMITS.md` §1).
//! Processes are pinned with `taskset` when there are two or more CPUs: the
//! two latency roles on CPUs 0 and 1; throughput producers on CPU 0 and the
//! consumer on CPU 1.
//!
//! ```text
//! cargo run --release -p pmix-benches --bin shmbench            # everything
//! cargo run --release -p pmix-benches --bin shmbench -- --quick # smoke run
//! cargo run --release -p pmix-benches --bin shmbench -- tp 1 64 5000000
//! ```

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pmix_benches::harness::{ncpu, which};
use pmix_benches::limits::{self, Limit};
use pmix_benches::probe::Probe;
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::{Consumer, Ring, RingParams};
use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::sync::{spin_loop, Ordering};

const RING_CELLS: usize = 8192;
const DEADLINE: Duration = Duration::from_secs(60);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("--role") => role(&args[1..]),
        Some(limits::ROLE_ARG) => limits::role(&args[1..]),
        Some("tp") => {
            let n = arg(&args, 1, 1);
            let size = arg(&args, 2, 64);
            let count = arg(&args, 3, 5_000_000);
            tp_once(n, size, count).map(|(rate, _)| {
                println!("{n}->1, {size} B: {:.2} M records/s", rate / 1e6);
            })
        }
        Some("--quick") => run_all(true),
        None => run_all(false),
        Some(other) => Err(format!("unknown argument {other:?}; see the source header")),
    };
    if let Err(e) = r {
        eprintln!("shmbench: {e}");
        std::process::exit(1);
    }
}

fn arg(args: &[String], i: usize, default: u64) -> u64 {
    args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default)
}

// ---------------------------------------------------------------- parent --

struct Setup {
    segment: Segment,
    children: Vec<Child>,
}

impl Setup {
    fn new(rings: u32) -> Result<Setup, String> {
        let mut layout = Probe::add_to(SegmentLayout::new(), 0);
        for id in 0..rings {
            layout = layout.region_for::<Ring>(RegionKind::CLIENT_RING, id, &params());
        }
        let segment = Segment::create(&layout).map_err(|e| e.to_string())?;
        Probe::init(&segment, 0)?;
        for id in 0..rings {
            segment
                .init::<Ring>(RegionKind::CLIENT_RING, id, &params())
                .map_err(|e| e.to_string())?;
        }
        segment.publish();
        Ok(Setup {
            segment,
            children: Vec::new(),
        })
    }

    fn spawn(&mut self, cpu: usize, role: &[String]) -> Result<(), String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let path = format!(
            "/proc/{}/fd/{}",
            std::process::id(),
            self.segment.fd().as_raw_fd()
        );
        let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut cmd = if ncpu >= 2 && which("taskset") {
            let mut c = Command::new("taskset");
            c.arg("-c").arg((cpu % ncpu).to_string()).arg(exe);
            c
        } else {
            Command::new(exe)
        };
        cmd.arg("--role").arg(path).args(role);
        cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
        self.children.push(cmd.spawn().map_err(|e| e.to_string())?);
        Ok(())
    }

    /// Waits for every child; returns the `RESULT` lines they printed.
    fn finish(mut self) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + DEADLINE;
        let mut out = Vec::new();
        for c in &mut self.children {
            let stdout = c.stdout.take();
            loop {
                match c.try_wait().map_err(|e| e.to_string())? {
                    Some(st) if st.success() => break,
                    Some(st) => return Err(format!("a role exited with {st}")),
                    None if Instant::now() > deadline => {
                        let _ = c.kill();
                        return Err("a role timed out".into());
                    }
                    None => std::thread::sleep(Duration::from_millis(2)),
                }
            }
            if let Some(s) = stdout {
                for line in BufReader::new(s).lines().map_while(Result::ok) {
                    if let Some(r) = line.strip_prefix("RESULT ") {
                        out.push(r.to_owned());
                    }
                }
            }
        }
        Ok(out)
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn params() -> RingParams {
    RingParams::new(RING_CELLS).expect("valid ring size")
}

/// Runs a two-role latency test; returns the one-way median in ns.
fn latency_once(test: &str, batches: u64, per_batch: u64, size: u64) -> Result<f64, String> {
    if let Some(limit) = Limit::parse(test) {
        let m = limits::pingpong_once(limit, (ncpu() >= 2).then_some([0, 1]), batches, per_batch)?;
        return m
            .get("oneway_ns")
            .copied()
            .ok_or_else(|| format!("{test}: no result"));
    }
    let mut s = Setup::new(2)?;
    let a = |r: &str| {
        vec![
            test.to_owned(),
            r.to_owned(),
            batches.to_string(),
            per_batch.to_string(),
            size.to_string(),
        ]
    };
    s.spawn(1, &a("pong"))?;
    s.spawn(0, &a("ping"))?;
    let res = s.finish()?;
    res.first()
        .and_then(|r| r.parse::<f64>().ok())
        .ok_or_else(|| format!("{test}: no result"))
}

/// Runs a throughput test; returns (records/s, lost).
fn tp_once(producers: u64, size: u64, count: u64) -> Result<(f64, u64), String> {
    let mut s = Setup::new(1)?;
    let n = producers.to_string();
    let sz = size.to_string();
    let c = count.to_string();
    s.spawn(
        1,
        &[
            "tp".into(),
            "consumer".into(),
            n.clone(),
            sz.clone(),
            c.clone(),
        ],
    )?;
    for id in 0..producers {
        s.spawn(
            0,
            &[
                "tp".into(),
                "producer".into(),
                id.to_string(),
                sz.clone(),
                c.clone(),
            ],
        )?;
    }
    let res = s.finish()?;
    let line = res.first().ok_or("tp: no result")?;
    let mut it = line.split_whitespace();
    let rate: f64 = it
        .next()
        .and_then(|x| x.parse().ok())
        .ok_or("tp: bad result")?;
    let lost: u64 = it.next().and_then(|x| x.parse().ok()).unwrap_or(0);
    Ok((rate, lost))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run_all(quick: bool) -> Result<(), String> {
    let runs = if quick { 1 } else { 5 };
    let scale = if quick { 10 } else { 1 };
    let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "shmbench: {runs} runs per row, {ncpu} CPUs, pinned: {}",
        ncpu >= 2 && which("taskset")
    );
    // Interleave the rows run by run (docs/LIMITS.md §1).
    // (test, label, batches, round trips per batch, payload bytes)
    let lat_rows: [(&str, &str, u64, u64, u64); 5] = [
        ("line", "raw cache-line ping-pong (spin)", 400, 1000, 0),
        ("futex", "raw futex ping-pong (always sleeps)", 60, 20, 0),
        (
            "ring-spin",
            "ring, 64 B payload (2 cells), spin",
            400,
            500,
            64,
        ),
        (
            "ring-spin",
            "ring, 48 B payload (one 64 B cell), spin",
            400,
            500,
            48,
        ),
        (
            "ring-doorbell",
            "ring, 64 B payload, doorbell (sleeping consumer)",
            60,
            20,
            64,
        ),
    ];
    let mut lat: Vec<Vec<f64>> = vec![Vec::new(); lat_rows.len()];
    let tp_rows: [(u64, u64); 4] = [(1, 64), (1, 1024), (2, 64), (4, 64)];
    let mut tp: Vec<Vec<f64>> = vec![Vec::new(); tp_rows.len()];
    let mut lost_total = 0;
    for _ in 0..runs {
        for (i, (t, _, b, p, size)) in lat_rows.iter().enumerate() {
            lat[i].push(latency_once(t, (b / scale).max(5), *p, *size)?);
        }
        for (i, (n, sz)) in tp_rows.iter().enumerate() {
            let (rate, lost) = tp_once(*n, *sz, 4_000_000 / scale / n)?;
            tp[i].push(rate);
            lost_total += lost;
        }
    }
    let line = median(lat[0].clone());
    let futex = median(lat[1].clone());
    println!();
    println!("| one-way latency | median ns | run medians | ratio |");
    println!("|---|---:|---:|---|");
    for (i, (test, name, _, _, _)) in lat_rows.iter().enumerate() {
        let m = median(lat[i].clone());
        let (lo, hi) = lat[i]
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let ratio = match *test {
            "ring-spin" => format!("{:.2} × line", m / line),
            "ring-doorbell" => format!("{:.2} × futex", m / futex),
            _ => "limit".into(),
        };
        println!("| {name} | {m:.0} | {lo:.0}–{hi:.0} | {ratio} |");
    }
    println!();
    println!("| throughput | median M records/s | run medians |");
    println!("|---|---:|---:|");
    for (i, (n, sz)) in tp_rows.iter().enumerate() {
        let m = median(tp[i].clone()) / 1e6;
        let (lo, hi) = tp[i]
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
        println!(
            "| {n}→1, {sz} B (producers on CPU 0, consumer on CPU 1) | {m:.1} | {:.1}–{:.1} |",
            lo / 1e6,
            hi / 1e6
        );
    }
    println!();
    println!("lost records across all throughput runs: {lost_total}");
    Ok(())
}

// ----------------------------------------------------------------- roles --

struct Shared {
    segment: Segment,
    probe: Probe,
}

fn open(path: &str) -> Result<Shared, String> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))?;
    let segment = Segment::open(OwnedFd::from(f)).map_err(|e| e.to_string())?;
    let probe = Probe::attach(&segment, 0)?;
    Ok(Shared { segment, probe })
}

fn ring(s: &Shared, id: u32) -> Result<Ring, String> {
    s.segment
        .attach(RegionKind::CLIENT_RING, id)
        .map_err(|e| e.to_string())
}

fn consumer(r: &Ring) -> Result<Consumer, String> {
    r.consumer().map_err(|e| e.to_string())
}

fn role(args: &[String]) -> Result<(), String> {
    let path = args.first().ok_or("missing segment path")?;
    let s = open(path)?;
    let test = args.get(1).map(String::as_str).unwrap_or("");
    let who = args.get(2).map(String::as_str).unwrap_or("");
    let n = |i: usize| arg(args, i, 0);
    match test {
        "ring-spin" | "ring-doorbell" => {
            latency_role(&s, test, who == "ping", n(3), n(4), n(5) as usize)
        }
        "tp" if who == "consumer" => tp_consumer(&s, n(3), n(4) as usize, n(5)),
        "tp" => tp_producer(&s, n(3), n(4) as usize, n(5)),
        _ => Err(format!("unknown role {test} {who}")),
    }
}

/// Spins until `cond` holds, or fails after the harness deadline.
fn spin_until(mut cond: impl FnMut() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + DEADLINE;
    let mut i = 0u32;
    while !cond() {
        spin_loop();
        i = i.wrapping_add(1);
        if i % 4096 == 0 && Instant::now() > deadline {
            return Err("peer did not answer in time".into());
        }
    }
    Ok(())
}

fn latency_role(
    s: &Shared,
    test: &str,
    ping: bool,
    batches: u64,
    per_batch: u64,
    size: usize,
) -> Result<(), String> {
    // Rendezvous: pong announces itself, ping starts when it sees it.
    if ping {
        spin_until(|| s.probe.ready().load(Ordering::Acquire) == 1)?;
    }
    let (tx, rx) = if ping {
        (ring(s, 0)?, ring(s, 1)?)
    } else {
        (ring(s, 1)?, ring(s, 0)?)
    };
    let mut cons = consumer(&rx)?;
    let sleeping = test == "ring-doorbell";
    cons.set_spin(Duration::ZERO);
    if !ping {
        s.probe.ready().store(1, Ordering::Release);
    }
    let payload = vec![0x5Au8; size];
    let total = batches * per_batch;
    let mut samples = Vec::with_capacity(batches as usize);
    let mut t0 = Instant::now();
    for i in 0..total {
        if ping && i % per_batch == 0 {
            t0 = Instant::now();
        }
        let recv = |cons: &mut Consumer| -> Result<(), String> {
            if sleeping {
                cons.pop_timeout(DEADLINE, |_, _| ())
                    .map_err(|e| e.to_string())
            } else {
                spin_until(|| cons.try_pop(|_, _| ()).is_ok())
            }
        };
        if ping {
            tx.try_push(1, &payload).map_err(|e| e.to_string())?;
            recv(&mut cons)?;
        } else {
            recv(&mut cons)?;
            tx.try_push(1, &payload).map_err(|e| e.to_string())?;
        }
        if ping && (i + 1) % per_batch == 0 {
            let ns = t0.elapsed().as_nanos() as f64 / (2 * per_batch) as f64;
            samples.push(ns);
        }
    }
    if ping {
        // drop the first 5% as warm-up
        let skip = samples.len() / 20;
        let m = median(samples[skip..].to_vec());
        println!("RESULT {m}");
    }
    Ok(())
}

fn tp_producer(s: &Shared, id: u64, size: usize, count: u64) -> Result<(), String> {
    let r = ring(s, 0)?;
    let mut payload = vec![0u8; size.max(16)];
    payload[..8].copy_from_slice(&id.to_le_bytes());
    s.probe.ready().fetch_add(1, Ordering::AcqRel);
    spin_until(|| s.probe.go().load(Ordering::Acquire) == 1)?;
    let deadline = Instant::now() + DEADLINE;
    for seq in 0..count {
        payload[8..16].copy_from_slice(&seq.to_le_bytes());
        let mut spins = 0u32;
        while r.try_push(2, &payload).is_err() {
            spin_loop();
            spins = spins.wrapping_add(1);
            if spins % 65536 == 0 && Instant::now() > deadline {
                return Err("producer: ring stayed full".into());
            }
        }
    }
    Ok(())
}

fn tp_consumer(s: &Shared, producers: u64, size: usize, count: u64) -> Result<(), String> {
    let r = ring(s, 0)?;
    let mut cons = consumer(&r)?;
    spin_until(|| s.probe.ready().load(Ordering::Acquire) == producers)?;
    let mut next = vec![0u64; producers as usize];
    let total = producers * count;
    let mut got = 0u64;
    let mut bad = 0u64;
    let t0 = Instant::now();
    s.probe.go().store(1, Ordering::Release);
    let deadline = t0 + DEADLINE;
    while got < total {
        let n = cons.drain(usize::MAX, |_, p| {
            let ok = p.len() == size.max(16) && {
                let id = u64::from_le_bytes(p[..8].try_into().unwrap_or_default()) as usize;
                let seq = u64::from_le_bytes(p[8..16].try_into().unwrap_or_default());
                match next.get_mut(id) {
                    Some(n) if *n == seq => {
                        *n += 1;
                        true
                    }
                    _ => false,
                }
            };
            if !ok {
                bad += 1;
            }
        });
        got += n as u64;
        if n == 0 {
            spin_loop();
            if Instant::now() > deadline {
                return Err(format!("consumer: {got} of {total} records"));
            }
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    if bad > 0 {
        return Err(format!("consumer: {bad} records out of order or malformed"));
    }
    println!("RESULT {} {}", total as f64 / secs, r.lost());
    Ok(())
}
