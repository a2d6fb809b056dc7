//! What the cross-process harnesses (`pmixbench`, `shmbench`) share:
//! batch statistics as the C anchor programs compute them
//! (`docs/BENCHMARKS.md`, "The OpenPMIx anchor programs"), the machine's
//! CPU count, load and foreign CPU time, and a set of spawned processes
//! whose output is collected with a deadline ([`Job`]).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Instant;

// ------------------------------------------------------------ statistics --

/// The anchor programs' statistics: median (mean of the middle two for an
/// even count), p10 and p90 at index `floor(q * (n - 1))`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// The median.
    pub med: f64,
    /// The 10th percentile.
    pub p10: f64,
    /// The 90th percentile.
    pub p90: f64,
}

/// The [`Stats`] of `v` (all zero when empty).
pub fn stats_of(v: &[f64]) -> Stats {
    if v.is_empty() {
        return Stats::default();
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let med = if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    };
    let at = |q: f64| v[(q * (n - 1) as f64) as usize];
    Stats {
        med,
        p10: at(0.10),
        p90: at(0.90),
    }
}

/// The number of CPUs this process may run on.
pub fn ncpu() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The load average line, to judge how quiet the machine was.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// CPU time, in clock ticks (`USER_HZ`, 100 per second on Linux), spent
/// by the whole machine and by this process with its reaped descendants;
/// [`CpuSample::foreign_since`] tells how busy other processes kept the
/// machine (the foreign-load filter of `docs/LIMITS.md` §1).
#[derive(Clone, Copy, Debug)]
pub struct CpuSample {
    at: Instant,
    busy: u64,
    ours: u64,
}

impl CpuSample {
    /// Now (`None` without `/proc`).
    pub fn now() -> Option<CpuSample> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let f: Vec<u64> = stat
            .lines()
            .next()?
            .split_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        // user nice system idle iowait irq softirq steal: all but idle, iowait
        let busy = f.iter().take(8).sum::<u64>() - f.get(3)? - f.get(4)?;
        let me = std::fs::read_to_string("/proc/self/stat").ok()?;
        let rest = &me[me.rfind(')')? + 1..];
        // after the comm: state is field 3; utime..cstime are fields 14..17
        let ours = rest
            .split_whitespace()
            .skip(11)
            .take(4)
            .map(|x| x.parse::<u64>().unwrap_or(0))
            .sum();
        Some(CpuSample {
            at: Instant::now(),
            busy,
            ours,
        })
    }

    /// The average number of CPUs other processes kept busy since
    /// `earlier` (the machine's busy time minus ours and our reaped
    /// children's, over the wall time).
    pub fn foreign_since(&self, earlier: &CpuSample) -> f64 {
        let wall = self.at.duration_since(earlier.at).as_secs_f64();
        if wall <= 0.0 {
            return 0.0;
        }
        let busy = self.busy.saturating_sub(earlier.busy) as f64;
        let ours = self.ours.saturating_sub(earlier.ours) as f64;
        ((busy - ours) / 100.0 / wall).max(0.0)
    }
}

/// Whether `prog` is an executable file somewhere in `PATH`.
pub fn which(prog: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
}

// ------------------------------------------------------------------ jobs --

/// What one child sent back: a stdout line, or the end of its stdout.
#[derive(Debug)]
enum Msg {
    Line(usize, String),
    Eof,
}

/// Spawned processes whose stdout is drained by one thread each, so the
/// parent sleeps in `recv_timeout` instead of polling. Dropping a job kills
/// whatever is still running.
#[derive(Debug)]
pub struct Job {
    children: Vec<Child>,
    rx: mpsc::Receiver<Msg>,
    tx: mpsc::Sender<Msg>,
}

impl Default for Job {
    fn default() -> Self {
        Self::new()
    }
}

impl Job {
    /// No process yet.
    pub fn new() -> Job {
        let (tx, rx) = mpsc::channel();
        Job {
            children: Vec::new(),
            rx,
            tx,
        }
    }

    /// Spawns `cmd` with stdin closed, stdout collected and stderr
    /// inherited.
    ///
    /// # Errors
    /// When the process cannot be started.
    pub fn spawn(&mut self, cmd: Command) -> Result<(), String> {
        self.spawn_with_stderr(cmd, Stdio::inherit())
    }

    /// As [`spawn`](Self::spawn), with stderr going to `stderr`.
    ///
    /// # Errors
    /// When the process cannot be started.
    pub fn spawn_with_stderr(&mut self, mut cmd: Command, stderr: Stdio) -> Result<(), String> {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut child = cmd.spawn().map_err(|e| format!("spawn: {e}"))?;
        let out = child.stdout.take().ok_or("no stdout pipe")?;
        let id = self.children.len();
        self.children.push(child);
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(Msg::Line(id, line));
            }
            let _ = tx.send(Msg::Eof);
        });
        Ok(())
    }

    /// Waits until every child closed its stdout and exited; returns the
    /// lines of child 0 (the others' lines are echoed) and every exit
    /// status.
    ///
    /// # Errors
    /// Past `deadline`, kills them all and says how many were left.
    pub fn finish(mut self, deadline: Instant) -> Result<(Vec<String>, Vec<ExitStatus>), String> {
        let t0 = Instant::now();
        let mut open = self.children.len();
        let mut lines = Vec::new();
        while open > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Msg::Line(0, l)) => lines.push(l),
                Ok(Msg::Line(id, l)) => println!("  [rank {id}] {l}"),
                Ok(Msg::Eof) => open -= 1,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "timed out after {:.0} s: {open} of {} processes still running (killed)",
                        t0.elapsed().as_secs_f64(),
                        self.children.len()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let mut st = Vec::new();
        for c in &mut self.children {
            st.push(c.wait().map_err(|e| e.to_string())?);
        }
        self.children.clear();
        Ok((lines, st))
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `RESULT <name> <value>` lines into a map; other lines are echoed with a
/// `[rank 0]` prefix.
pub fn parse_results(lines: &[String]) -> HashMap<String, f64> {
    let mut m = HashMap::new();
    for l in lines {
        let mut it = l.split_whitespace();
        if it.next() != Some("RESULT") {
            println!("  [rank 0] {l}");
            continue;
        }
        if let (Some(k), Some(v)) = (it.next(), it.next().and_then(|v| v.parse().ok())) {
            m.insert(k.to_owned(), v);
        }
    }
    m
}

/// Prints `RESULT <name> <value>` lines on stdout in one write.
pub fn print_results(out: &[(&str, f64)]) {
    let mut s = String::new();
    for (k, v) in out {
        s.push_str(&format!("RESULT {k} {v}\n"));
    }
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(s.as_bytes()).and_then(|()| o.flush());
}
