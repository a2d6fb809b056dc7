//! What the cross-process harnesses (`wirebench`, `eventbench`) share:
//! statistics as the C anchor programs compute them (`docs/BENCHMARKS.md`,
//! "The OpenPMIx anchor programs"), a set of spawned
//! processes whose output is collected with a deadline ([`Job`]), the
//! per-experiment results of every repetition ([`Results`]), and the
//! Markdown table of medians ([`Row`], [`print_table`]).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Instant, SystemTime};

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

/// The anchor runner's number format: no decimals from 1000 up, one from 10 up,
/// two below.
pub fn fmt(x: f64) -> String {
    if x.abs() >= 1000.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
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

/// The newest `.rs` file under the sources `pmixrun` and the launcher
/// examples are built from (this workspace, as it was when the harness was
/// compiled), to tell when those binaries are stale.
pub fn newest_source() -> Option<SystemTime> {
    fn walk(dir: &Path, best: &mut Option<SystemTime>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, best);
            } else if p.extension().is_some_and(|x| x == "rs") {
                if let Ok(t) = e.metadata().and_then(|m| m.modified()) {
                    *best = (*best).max(Some(t));
                }
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let mut best = None;
    for d in ["core", "shm", "server", "client", "launcher"] {
        walk(&root.join(d).join("src"), &mut best);
    }
    walk(&root.join("launcher").join("examples"), &mut best);
    best
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

// --------------------------------------------------------------- results --

/// Per experiment tag: the results of each successful run, and failures.
#[derive(Debug, Default)]
pub struct Results {
    runs: HashMap<String, Vec<HashMap<String, f64>>>,
    fails: HashMap<String, Vec<String>>,
}

impl Results {
    /// Keeps one run's results (or its failure, also reported on stderr
    /// with `who` as the prefix).
    pub fn record(&mut self, who: &str, tag: &str, r: Result<HashMap<String, f64>, String>) {
        match r {
            Ok(m) => self.runs.entry(tag.to_owned()).or_default().push(m),
            Err(e) => {
                eprintln!("{who}: {tag}: FAILED: {e}");
                self.fails.entry(tag.to_owned()).or_default().push(e);
            }
        }
    }

    /// `field` of every successful run of `tag`.
    pub fn values(&self, tag: &str, field: &str) -> Vec<f64> {
        self.runs
            .get(tag)
            .map(|v| v.iter().filter_map(|m| m.get(field).copied()).collect())
            .unwrap_or_default()
    }

    /// The median over runs of `field`, if any run has it.
    pub fn median(&self, tag: &str, field: &str) -> Option<f64> {
        let v = self.values(tag, field);
        (!v.is_empty()).then(|| stats_of(&v).med)
    }

    /// The median over runs of `field`, formatted, for a note.
    pub fn med_note(&self, tag: &str, field: &str) -> Option<String> {
        self.median(tag, field).map(fmt)
    }

    /// How many runs failed in all.
    pub fn failures(&self) -> usize {
        self.fails.values().map(Vec::len).sum()
    }

    /// Prints one `failed: <tag>: <error>` line per failed run.
    pub fn print_failures(&self) {
        let mut tags: Vec<_> = self.fails.iter().collect();
        tags.sort_by(|a, b| a.0.cmp(b.0));
        for (tag, errs) in tags {
            for e in errs {
                println!("failed: {tag}: {e}");
            }
        }
    }
}

/// One table row: label, unit, tag, field, optional in-run p10/p90 fields,
/// an optional reference row for a ratio, extra notes.
#[derive(Debug)]
pub struct Row {
    label: String,
    unit: &'static str,
    tag: String,
    field: &'static str,
    spread: Option<(&'static str, &'static str)>,
    vs: Vec<(String, &'static str, &'static str)>,
    notes: String,
}

/// A row showing the median over runs of `tag`'s `field`.
pub fn row(
    label: impl Into<String>,
    unit: &'static str,
    tag: impl Into<String>,
    field: &'static str,
) -> Row {
    Row {
        label: label.into(),
        unit,
        tag: tag.into(),
        field,
        spread: None,
        vs: Vec::new(),
        notes: String::new(),
    }
}

impl Row {
    /// Also note the medians of the in-run p10 and p90 fields.
    pub fn p(mut self, p10: &'static str, p90: &'static str) -> Row {
        self.spread = Some((p10, p90));
        self
    }

    /// Show the row's median as a multiple of the median of `tag`'s
    /// `field`, called `name` (the ratio column of [`print_table`]; a row
    /// may have several).
    pub fn vs(mut self, tag: impl Into<String>, field: &'static str, name: &'static str) -> Row {
        self.vs.push((tag.into(), field, name));
        self
    }

    /// Extra notes (appended to earlier ones, `; ` between).
    pub fn note(mut self, n: impl Into<String>) -> Row {
        let n = n.into();
        if !n.is_empty() {
            if !self.notes.is_empty() {
                self.notes.push_str("; ");
            }
            self.notes.push_str(&n);
        }
        self
    }

    /// The row's unit.
    pub fn unit(&self) -> &str {
        self.unit
    }

    /// The row's experiment tag.
    pub fn tag(&self) -> &str {
        &self.tag
    }
}

/// Prints the Markdown table of `rows`: median, min and max over the runs,
/// the unit, with `ratio` a column of the [`Row::vs`] ratios, and notes
/// (run count, in-run p10–p90, the row's notes, failures). A row whose tag
/// never ran is left out; one whose runs all failed says FAIL.
pub fn print_table(res: &Results, rows: &[Row], ratio: bool) {
    if ratio {
        println!("| metric | median | min | max | unit | ratio | notes |");
        println!("|---|---:|---:|---:|---|---:|---|");
    } else {
        println!("| metric | median | min | max | unit | notes |");
        println!("|---|---:|---:|---:|---|---|");
    }
    for r in rows {
        print_row(res, r, ratio);
    }
}

fn print_row(res: &Results, r: &Row, ratio: bool) {
    let v = res.values(&r.tag, r.field);
    let fails = res.fails.get(&r.tag).map_or(0, Vec::len);
    let empty_ratio = if ratio { " |" } else { "" };
    if v.is_empty() {
        if fails == 0 {
            return; // not run
        }
        let why = res.fails[&r.tag][0].clone();
        println!(
            "| {} | FAIL | | | {} |{empty_ratio} {why} |",
            r.label, r.unit
        );
        return;
    }
    let s = stats_of(&v);
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let mut notes = vec![format!("n={}", v.len())];
    if let Some((p10, p90)) = r.spread {
        let a = stats_of(&res.values(&r.tag, p10)).med;
        let b = stats_of(&res.values(&r.tag, p90)).med;
        notes.push(format!("in-run p10–p90 {}–{}", fmt(a), fmt(b)));
    }
    if !r.notes.is_empty() {
        notes.push(r.notes.clone());
    }
    if fails > 0 {
        notes.push(format!("({fails} failed)"));
    }
    let ratio_cell = if ratio {
        let cell =
            r.vs.iter()
                .filter_map(|(tag, field, name)| {
                    let base = res.median(tag, field)?;
                    (base > 0.0).then(|| format!("{} × {name}", fmt(s.med / base)))
                })
                .collect::<Vec<_>>()
                .join(", ");
        format!(" {cell} |")
    } else {
        String::new()
    };
    println!(
        "| {} | {} | {} | {} | {} |{ratio_cell} {} |",
        r.label,
        fmt(s.med),
        fmt(lo),
        fmt(hi),
        r.unit,
        notes.join("; ")
    );
}

/// The harnesses' command line: `--quick` (one short repetition) and
/// `--reps N` (default 3, 1 with `--quick`).
#[derive(Clone, Copy, Debug)]
pub struct Opts {
    /// Short runs, one repetition unless `--reps` says otherwise.
    pub quick: bool,
    /// Repetitions of every measurement.
    pub reps: usize,
}

/// Parses the harnesses' options.
///
/// # Errors
/// A message for an unknown argument or a bad `--reps`.
pub fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut quick = false;
    let mut reps = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--reps" => {
                let n = it.next().and_then(|s| s.parse::<usize>().ok());
                reps = Some(
                    n.filter(|&n| n > 0)
                        .ok_or("--reps needs a positive number")?,
                );
            }
            other => return Err(format!("unknown argument {other:?}; see the source header")),
        }
    }
    Ok(Opts {
        quick,
        reps: reps.unwrap_or(if quick { 1 } else { 3 }),
    })
}
