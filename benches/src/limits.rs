//! The machine's own limits, measured between two real processes over a
//! shared memfd segment (a [`Probe`]), so that the harnesses can
//! quote every figure as a ratio of them:
//!
//! - [`Limit::Line`]: one cache line bounced between two spinning
//!   processes (the pinger writes odd values, the ponger even ones), RTT/2;
//! - [`Limit::Futex`]: a shared futex word, both sides always sleeping in
//!   `FUTEX_WAIT` and woken by the other's `FUTEX_WAKE`, RTT/2.
//!
//! [`pingpong_once`] spawns the current executable twice with
//! [`ROLE_ARG`]; the harness's `main` hands those arguments to [`role`].
//! The two processes can be pinned with `taskset` (to CPUs 0 and 1 as in
//! `docs/LIMITS.md` §1, or both to one CPU), or left to the scheduler. Each
//! run times batches of round trips, drops the first 5% as warm-up and keeps
//! the median batch (with the p10 and p90 batches).

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Command;
use std::time::{Duration, Instant};

use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::sync::{spin_loop, FutexWait, Ordering};

use crate::harness::{ncpu, parse_results, print_results, stats_of, which, Job};
use crate::probe::Probe;

/// The first argument that makes a harness run one side of a limit
/// ping-pong (see [`role`]).
pub const ROLE_ARG: &str = "--limit-role";

/// How long one side waits for the other before giving up.
const DEADLINE: Duration = Duration::from_secs(60);

/// A limit probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// One cache line bounced between two spinning processes.
    Line,
    /// A shared futex word, both sides always sleeping.
    Futex,
}

impl Limit {
    /// The name used on the role command line.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Line => "line",
            Limit::Futex => "futex",
        }
    }

    /// The limit called `s`, if any.
    pub fn parse(s: &str) -> Option<Limit> {
        match s {
            "line" => Some(Limit::Line),
            "futex" => Some(Limit::Futex),
            _ => None,
        }
    }
}

/// A memfd segment holding one [`Probe`] (region `(PROBE, 0)`),
/// reachable by other processes through [`ProbeSegment::path`] while this
/// one keeps it open.
#[derive(Debug)]
pub struct ProbeSegment {
    segment: Segment,
    probe: Probe,
}

impl ProbeSegment {
    /// A fresh segment (all probe words zero).
    ///
    /// # Errors
    /// When the segment cannot be created.
    pub fn create() -> Result<ProbeSegment, String> {
        let layout = Probe::add_to(SegmentLayout::new(), 0);
        let segment = Segment::create(&layout).map_err(|e| e.to_string())?;
        let probe = Probe::init(&segment, 0)?;
        segment.publish();
        Ok(ProbeSegment { segment, probe })
    }

    /// Maps the segment another process created, by its [`path`](Self::path).
    ///
    /// # Errors
    /// When the path cannot be opened or holds no probe.
    pub fn open(path: &str) -> Result<ProbeSegment, String> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| format!("{path}: {e}"))?;
        let segment = Segment::open(OwnedFd::from(f)).map_err(|e| e.to_string())?;
        let probe = Probe::attach(&segment, 0)?;
        Ok(ProbeSegment { segment, probe })
    }

    /// `/proc/<pid>/fd/<fd>` of this process's descriptor of the segment.
    pub fn path(&self) -> String {
        format!(
            "/proc/{}/fd/{}",
            std::process::id(),
            self.segment.fd().as_raw_fd()
        )
    }

    /// The probe words.
    pub fn probe(&self) -> &Probe {
        &self.probe
    }
}

/// Runs one limit ping-pong between two fresh processes (`batches` batches
/// of `per_batch` round trips); returns the pinger's `oneway_ns` (median
/// batch, RTT/2) with its `p10` and `p90` batches. With `cpus`, the
/// pinger runs on CPU `cpus[0]` and the ponger on `cpus[1]` (modulo the CPU
/// count; when `taskset` exists); without, the scheduler places them, as
/// it places PMIx clients.
///
/// # Errors
/// When a side cannot be started, fails or times out.
pub fn pingpong_once(
    limit: Limit,
    cpus: Option<[usize; 2]>,
    batches: u64,
    per_batch: u64,
) -> Result<HashMap<String, f64>, String> {
    let seg = ProbeSegment::create()?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let n = ncpu();
    let cpus = cpus.filter(|_| which("taskset"));
    let mut job = Job::new();
    // child 0 (whose lines come back) is the pinger
    for (i, who) in ["ping", "pong"].into_iter().enumerate() {
        let mut cmd = if let Some(cpus) = cpus {
            let cpu = cpus[i];
            let mut c = Command::new("taskset");
            c.arg("-c").arg((cpu % n).to_string()).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        cmd.arg(ROLE_ARG)
            .arg(seg.path())
            .arg(limit.name())
            .arg(who)
            .arg(batches.to_string())
            .arg(per_batch.to_string());
        job.spawn(cmd)?;
    }
    let (lines, st) = job.finish(Instant::now() + DEADLINE + Duration::from_secs(10))?;
    if let Some(s) = st.iter().find(|s| !s.success()) {
        return Err(format!(
            "{} ping-pong: a side exited with {s}",
            limit.name()
        ));
    }
    let m = parse_results(&lines);
    if !m.contains_key("oneway_ns") {
        return Err(format!("{} ping-pong: no result", limit.name()));
    }
    Ok(m)
}

/// One side of [`pingpong_once`]: `args` are what follows [`ROLE_ARG`]
/// (`<segment path> line|futex ping|pong <batches> <per batch>`).
///
/// # Errors
/// Bad arguments, an unreachable segment, or a silent peer.
pub fn role(args: &[String]) -> Result<(), String> {
    let path = args.first().ok_or("missing segment path")?;
    let limit = args
        .get(1)
        .and_then(|s| Limit::parse(s))
        .ok_or("limit role: expected line or futex")?;
    let ping = match args.get(2).map(String::as_str) {
        Some("ping") => true,
        Some("pong") => false,
        _ => return Err("limit role: expected ping or pong".into()),
    };
    let num = |i: usize| -> Result<u64, String> {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("limit role: argument {i} must be a positive number"))
    };
    let seg = ProbeSegment::open(path)?;
    let samples = pair_role(seg.probe(), limit, ping, num(3)?, num(4)?)?;
    if ping {
        // drop the first 5% of the batches as warm-up
        let skip = samples.len() / 20;
        let s = stats_of(&samples[skip..]);
        print_results(&[("oneway_ns", s.med), ("p10", s.p10), ("p90", s.p90)]);
    }
    Ok(())
}

/// Spins until `cond` holds, or fails once `deadline` has passed.
///
/// # Errors
/// Past the deadline.
pub fn spin_until(mut cond: impl FnMut() -> bool, deadline: Instant) -> Result<(), String> {
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

/// Runs `batches × per_batch` round trips of `limit` on `probe` as the
/// pinger or the ponger (they rendezvous on the probe's `ready` word);
/// returns, on the pinger, the one-way time of each batch in ns (RTT/2).
///
/// # Errors
/// When the peer stops answering.
pub fn pair_role(
    probe: &Probe,
    limit: Limit,
    ping: bool,
    batches: u64,
    per_batch: u64,
) -> Result<Vec<f64>, String> {
    // Rendezvous: pong announces itself, ping starts when it sees it.
    if ping {
        spin_until(
            || probe.ready().load(Ordering::Acquire) == 1,
            Instant::now() + DEADLINE,
        )?;
    } else {
        probe.ready().store(1, Ordering::Release);
    }
    let total = batches * per_batch;
    let line = probe.line();
    let futex = probe.futex();
    let mut samples = Vec::with_capacity(batches as usize);
    let mut t0 = Instant::now();
    let mut deadline = t0 + DEADLINE;
    for i in 0..total {
        if i % per_batch == 0 {
            // one clock read per batch, outside the round trips
            t0 = Instant::now();
            deadline = t0 + DEADLINE;
        }
        match limit {
            Limit::Line => {
                // ping writes odd values, pong even ones: one line bounces.
                let v = 2 * i;
                if ping {
                    line.store(v + 1, Ordering::Release);
                    spin_until(|| line.load(Ordering::Acquire) == v + 2, deadline)?;
                } else {
                    spin_until(|| line.load(Ordering::Acquire) == v + 1, deadline)?;
                    line.store(v + 2, Ordering::Release);
                }
            }
            Limit::Futex => {
                let v = (2 * i) as u32;
                let (mine, theirs) = if ping { (v + 1, v + 2) } else { (v + 2, v + 1) };
                if ping {
                    futex.store(mine, Ordering::Release);
                    futex.wake(1);
                }
                loop {
                    let cur = futex.load(Ordering::Acquire);
                    if cur == theirs {
                        break;
                    }
                    if Instant::now() > deadline {
                        return Err("futex peer did not answer".into());
                    }
                    if let FutexWait::TimedOut = futex.wait(cur, Some(Duration::from_secs(1))) {
                        continue;
                    }
                }
                if !ping {
                    futex.store(mine, Ordering::Release);
                    futex.wake(1);
                }
            }
        }
        if ping && (i + 1) % per_batch == 0 {
            samples.push(t0.elapsed().as_nanos() as f64 / (2 * per_batch) as f64);
        }
    }
    Ok(samples)
}
