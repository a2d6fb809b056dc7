//! `eventbench`: the cross-process event harness. It measures what the
//! C anchor programs `notify_lat`, `proc_local` and `throughput` measure on
//! OpenPMIx (`docs/BENCHMARKS.md`, "The OpenPMIx anchor programs"), next to the machine's own limits measured in the
//! same run, and prints a Markdown table of medians.
//!
//! One binary, three roles. The parent measures the limits (two copies of
//! itself started with `--limit-role`, see `pmix_benches::limits`) and
//! launches every PMIx experiment as `pmixrun -n NP eventbench client
//! <experiment> <args>`, with `PMIXRS_PROGRESS_SPIN_US` set for the
//! progress mode (spin: 1000000, sleep: 0, default: unset = 2 µs). Client
//! ranks print `RESULT <name> <value>` lines (or `FAILED <why>`); the
//! parent kills a job after 120 s (`pmixrun --timeout 100` first) and
//! reports the row as FAIL. Each experiment runs `--reps` times
//! (interleaved, default 3; 1 with `--quick`) and the table gives the
//! median, min and max of the per-run figures, with the in-run p10–p90.
//!
//! - **limits**: a cache line bounced between two spinning processes and a
//!   futex word both sides sleep on (RTT/2, median batch), pinned to CPUs
//!   0 and 1 (`docs/LIMITS.md` §1), the futex one also with both on CPU 0,
//!   and both left to the scheduler (for reference). Spinning rows are
//!   quoted as a multiple of the pinned line, sleeping rows of both pinned
//!   futex figures: on a 2-vCPU guest a wake-up on the same CPU costs a few
//!   µs and one on the other, idle, CPU ~30 µs, and the unpinned clients
//!   land on one or the other as the scheduler decides.
//! - **notify one-way** (`-n 2`): rank 0 notifies PING to rank 1 (range
//!   CUSTOM = {rank 1}, NAMESPACE, or LOCAL + `PMIX_EVENT_DO_NOT_CACHE`);
//!   rank 1's handler notifies PONG back the same way. *handler→handler*:
//!   rank 0's PONG handler notifies the next PING itself and stamps each
//!   arrival (RTT = gap between arrivals; only the progress threads run).
//!   *main waits* (as `notify_lat -m spin`): rank 0's handler bumps an
//!   atomic, its main thread waits for it and sends the next PING. With
//!   spinning progress threads that makes 3 spinning threads: on fewer
//!   CPUs the row is skipped (it would measure scheduler time slices).
//!   One-way = RTT/2,
//!   median of every round trip after the warm-up. Progress threads
//!   spinning (ratio to the cache-line limit) or sleeping (ratio to the
//!   futex limit).
//! - **PROC_LOCAL** (`-n 1`): the main thread stamps, notifies, and waits
//!   for the handler's arrival stamp (one-way = arrival − stamp); then a
//!   burst from the main thread and one from 4 threads: events/s until the
//!   handler counted the last event (the main thread sleeps meanwhile).
//! - **client→peer throughput**: producers (rank 1 with `-n 2`, ranks 1..4
//!   with `-n 5`) notify bursts (CUSTOM = {rank 0}); rank 0's handler
//!   counts; events/s from rank 0's exit from the start fence to the last
//!   arrival. Default progress mode.
//! - **fan-out** (`-n N+1`, N = 2, 4, 8, 16): rank 0 notifies one event
//!   (NAMESPACE, or LOCAL + DO_NOT_CACHE) handled by N receivers, each of
//!   which adds one to a counter in a memfd segment the parent passes down
//!   (`EVENTBENCH_SHM`). Rank 0 times its notify call, and the time until
//!   the counter reaches N (the last handler ran, one cache-line transfer
//!   late), then sends the next event at once. Default progress mode. The
//!   sender polls with a `sched_yield` between polls when the receivers
//!   and it outnumber the CPUs, so that it does not keep them off a CPU.
//!
//! The PMIx clients are not pinned. Where a client's main thread polls
//! (PROC_LOCAL one-way, fan-out) it spins, or yields between polls when
//! the threads that must run outnumber the CPUs; the row says which. The
//! header gives the command line, the CPU count and the load average
//! before and after; stderr says how long each experiment took.
//!
//! ```text
//! cargo build --release -p pmix-benches -p pmix-launcher --bins --examples
//! target/release/eventbench             # everything (3 reps, under a minute on 2 CPUs)
//! target/release/eventbench --quick     # smoke run (fewer iterations, one rep)
//! target/release/eventbench --reps 5
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Barrier, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use pmix_benches::harness::{
    loadavg, ncpu, newest_source, parse_results, print_results, print_table, row, stats_of,
    CpuSample, Job, Results, Row,
};
use pmix_benches::limits::{self, Limit, ProbeSegment};
use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use pmix_shm::sync::{AtomicU64, Ordering};

/// User event codes, below `PMIX_EXTERNAL_ERR_BASE` as in the C anchor
/// programs.
const CODE_PING: Status = Status(-3001);
const CODE_PONG: Status = Status(-3002);
const CODE_LOCAL: Status = Status(-3003);
const CODE_BURST: Status = Status(-3004);
const CODE_STOP: Status = Status(-3005);
const CODE_FAN: Status = Status(-3006);

/// How long the parent lets one `pmixrun` job run.
const JOB_DEADLINE: Duration = Duration::from_secs(120);
/// `pmixrun --timeout`, in seconds (below the parent's deadline).
const PMIXRUN_TIMEOUT_S: u64 = 100;
/// How long a client waits for one expected event (or a whole burst).
const CLIENT_WAIT: Duration = Duration::from_secs(60);

/// Foreign load (CPUs used by other processes) above which a row says the
/// machine was busy (`docs/LIMITS.md` §1 counts a run clean up to 0.25).
const BUSY: f64 = 0.25;

const SPIN_ENV: &str = "PMIXRS_PROGRESS_SPIN_US";
const SHM_ENV: &str = "EVENTBENCH_SHM";
const WHO: &str = "eventbench";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("client") => client_role(&args[1..]),
        Some(limits::ROLE_ARG) => limits::role(&args[1..]),
        _ => parse_opts(&args).and_then(|o| run_all(&o)),
    };
    if let Err(e) = r {
        eprintln!("{WHO}: {e}");
        std::process::exit(1);
    }
}

use pmix_benches::harness::{parse_opts, Opts};

// ---------------------------------------------------------------- parent --

/// The client progress thread's waiting mode for one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `PMIXRS_PROGRESS_SPIN_US=1000000`: always spinning while busy.
    Spin,
    /// `PMIXRS_PROGRESS_SPIN_US=0`: sleeps as soon as it is idle.
    Sleep,
    /// Unset: the client's default (2 µs).
    Default,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Spin => "spin",
            Mode::Sleep => "sleep",
            Mode::Default => "default",
        }
    }

    fn env(self) -> Option<&'static str> {
        match self {
            Mode::Spin => Some("1000000"),
            Mode::Sleep => Some("0"),
            Mode::Default => None,
        }
    }

    /// Threads of one client process that spin while it waits (its
    /// progress thread in spin mode).
    fn spinning_progress(self) -> usize {
        usize::from(self == Mode::Spin)
    }
}

/// How a client's main thread polls: pure spin, or spin with a
/// `sched_yield` between polls when more threads spin than there are CPUs.
fn poll_mode(spinners: usize, ncpu: usize) -> &'static str {
    if spinners > ncpu {
        "yield"
    } else {
        "spin"
    }
}

struct Ctx {
    exe: PathBuf,
    pmixrun: PathBuf,
}

/// One `pmixrun -n np eventbench client <args>` job; returns the `RESULT`
/// lines of all its ranks.
fn pmixrun_job(
    ctx: &Ctx,
    np: u32,
    mode: Mode,
    shm: Option<&ProbeSegment>,
    args: &[String],
) -> Result<HashMap<String, f64>, String> {
    let mut cmd = Command::new(&ctx.pmixrun);
    cmd.arg("-n")
        .arg(np.to_string())
        .arg("--timeout")
        .arg(PMIXRUN_TIMEOUT_S.to_string())
        .arg(&ctx.exe)
        .arg("client")
        .args(args);
    match mode.env() {
        Some(v) => cmd.env(SPIN_ENV, v),
        None => cmd.env_remove(SPIN_ENV),
    };
    match shm {
        Some(s) => cmd.env(SHM_ENV, s.path()),
        None => cmd.env_remove(SHM_ENV),
    };
    let mut job = Job::new();
    job.spawn(cmd)?;
    let (lines, st) = job.finish(Instant::now() + JOB_DEADLINE)?;
    let failed: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("FAILED "))
        .collect();
    if !failed.is_empty() {
        return Err(failed.join("; "));
    }
    if !st[0].success() {
        let why = if st[0].code() == Some(124) {
            format!(" (pmixrun --timeout {PMIXRUN_TIMEOUT_S})")
        } else {
            String::new()
        };
        return Err(format!("pmixrun exited with {}{why}", st[0]));
    }
    let m = parse_results(&lines);
    if m.is_empty() {
        return Err("no rank printed a RESULT".into());
    }
    Ok(m)
}

/// Fails when `m[a]` and `m[b]` differ (a lost or duplicated event).
fn same_count(m: &HashMap<String, f64>, a: &str, b: &str) -> Result<(), String> {
    match (m.get(a), m.get(b)) {
        (Some(x), Some(y)) if x == y => Ok(()),
        (Some(x), Some(y)) => Err(format!("{a} = {x} but {b} = {y}")),
        _ => Err(format!("no {a} or {b} in the results")),
    }
}

/// Fails when `m[key]` is not `want` (a lost or duplicated event).
fn expect_count(m: &HashMap<String, f64>, key: &str, want: u64) -> Result<(), String> {
    match m.get(key) {
        Some(&v) if v == want as f64 => Ok(()),
        Some(&v) => Err(format!("{key} = {v}, expected {want}")),
        None => Err(format!("no {key} in the results")),
    }
}

const RANGES: [&str; 3] = ["custom", "namespace", "local"];

fn range_label(r: &str) -> &'static str {
    match r {
        "custom" => "CUSTOM",
        "namespace" => "NAMESPACE",
        _ => "LOCAL+DO_NOT_CACHE",
    }
}

fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        a.to_owned()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

fn run_all(o: &Opts) -> Result<(), String> {
    let q = o.quick;
    // (iterations, warm-up) of the ping-pongs per progress mode
    let nl_spin = if q {
        (2_000u64, 200u64)
    } else {
        (20_000, 1_000)
    };
    let nl_sleep = if q { (1_000u64, 100u64) } else { (10_000, 500) };
    let (pl_iters, pl_warm) = if q { (2_000u64, 200u64) } else { (10_000, 500) };
    let pl_burst: u64 = if q { 100_000 } else { 1_000_000 };
    let pl_threads = 4u64;
    let tp_total: u64 = if q { 100_000 } else { 1_000_000 };
    let (fan_iters, fan_warm) = if q { (100u64, 10u64) } else { (1_000, 50) };
    let fan_ns: &[u32] = &[2, 4, 8, 16];
    let fan_ranges: &[&str] = if q {
        &["namespace"]
    } else {
        &["namespace", "local"]
    };
    let (line_b, line_per) = if q { (40u64, 1000u64) } else { (400, 1000) };
    // time budget of each latency loop (ms), past MIN_SAMPLES samples
    let budget_ms: u64 = if q { 1_000 } else { 4_000 };
    let (futex_b, futex_per) = if q { (20u64, 20u64) } else { (60, 20) };
    let ncpu = ncpu();

    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let pmixrun = dir.join("pmixrun");
    let have_pmixrun = pmixrun.is_file();
    let cmdline: Vec<String> = std::env::args().map(|a| shell_quote(&a)).collect();

    println!("{WHO}: command: {}", cmdline.join(" "));
    println!(
        "{WHO}: {} reps, {ncpu} CPUs, {}; notify {}+{} round trips (spin) / {}+{} (sleep); \
         PROC_LOCAL {pl_iters}+{pl_warm}, burst {pl_burst}; throughput {tp_total} events; \
         fan-out {fan_iters}+{fan_warm} to N {fan_ns:?}; latency loops stop after \
         {budget_ms} ms (at least {MIN_SAMPLES} samples)",
        o.reps,
        if q { "--quick" } else { "full run" },
        nl_spin.0,
        nl_spin.1,
        nl_sleep.0,
        nl_sleep.1,
    );
    if have_pmixrun {
        println!("{WHO}: pmixrun: {}", pmixrun.display());
        let built = std::fs::metadata(&pmixrun).and_then(|m| m.modified()).ok();
        if let (Some(b), Some(s)) = (built, newest_source()) {
            if s > b {
                println!(
                    "{WHO}: note: {} is older than the sources; rebuild it with \
                     `cargo build --release -p pmix-launcher --bins --examples`",
                    pmixrun.display()
                );
            }
        }
    } else {
        println!(
            "{WHO}: missing {}: build it with \
             `cargo build --release -p pmix-launcher --bins --examples`; only the limits run",
            pmixrun.display()
        );
    }
    let ctx = Ctx { exe, pmixrun };
    let load0 = loadavg();
    let quiet0 = foreign_load(Duration::from_millis(500));
    if let Some(x) = quiet0 {
        println!("{WHO}: other processes kept {x:.2} CPUs busy before the start (0.5 s sample)");
        if x > BUSY {
            println!(
                "{WHO}: warning: the machine is busy; spinning rows will measure time slices \
                 (rerun when it is quiet)"
            );
        }
    }
    let cpu0 = CpuSample::now();

    let mut res = Results::default();
    let mut skipped_main_spin = false;
    let t_all = Instant::now();
    for rep in 1..=o.reps {
        eprintln!("{WHO}: rep {rep}/{}", o.reps);
        let cross = (ncpu >= 2).then_some([0, 1]);
        for (limit, b, per, cpus, suffix) in [
            (Limit::Line, line_b, line_per, cross, "_pinned"),
            (Limit::Line, line_b, line_per, None, ""),
            (Limit::Futex, futex_b, futex_per, cross, "_pinned"),
            (Limit::Futex, futex_b, futex_per, Some([0, 0]), "_samecpu"),
            (Limit::Futex, futex_b, futex_per, None, ""),
        ] {
            let tag = format!("lim_{}{suffix}", limit.name());
            let r = timed(&tag, || limits::pingpong_once(limit, cpus, b, per));
            res.record(WHO, &tag, r);
        }
        if !have_pmixrun {
            continue;
        }
        for mode in [Mode::Spin, Mode::Sleep] {
            let (iters, warm) = if mode == Mode::Spin {
                nl_spin
            } else {
                nl_sleep
            };
            for range in RANGES {
                for variant in ["chain", "main"] {
                    // main waits: rank 0's main thread + both progress threads
                    let spinners = usize::from(variant == "main") + 2 * mode.spinning_progress();
                    if variant == "main" && mode == Mode::Spin && spinners > ncpu {
                        skipped_main_spin = true;
                        continue;
                    }
                    let a = [
                        "notify".to_owned(),
                        range.to_owned(),
                        variant.to_owned(),
                        poll_mode(spinners, ncpu).to_owned(),
                        iters.to_string(),
                        warm.to_string(),
                        budget_ms.to_string(),
                    ];
                    let tag = format!("nl_{}_{range}_{variant}", mode.name());
                    let r = timed(&tag, || {
                        let m = pmixrun_job(&ctx, 2, mode, None, &a)?;
                        same_count(&m, "pings_seen", "pongs_seen")?;
                        Ok(m)
                    });
                    res.record(WHO, &tag, r);
                }
            }
        }
        for mode in [Mode::Spin, Mode::Sleep] {
            let spinners = 1 + mode.spinning_progress();
            let a = [
                "proclocal".to_owned(),
                poll_mode(spinners, ncpu).to_owned(),
                pl_iters.to_string(),
                pl_warm.to_string(),
                pl_burst.to_string(),
                pl_threads.to_string(),
                budget_ms.to_string(),
            ];
            let tag = format!("pl_{}", mode.name());
            let r = timed(&tag, || pmixrun_job(&ctx, 1, mode, None, &a));
            res.record(WHO, &tag, r);
        }
        for producers in [1u32, 4] {
            let per = tp_total / u64::from(producers);
            let a = ["tput".to_owned(), per.to_string()];
            let tag = format!("tp_{producers}");
            let r = timed(&tag, || {
                let mut m = pmixrun_job(&ctx, producers + 1, Mode::Default, None, &a)?;
                expect_count(&m, "received", per * u64::from(producers))?;
                let send: f64 = m
                    .iter()
                    .filter(|(k, _)| k.starts_with("send_call_rate_r"))
                    .map(|(_, v)| v)
                    .sum();
                m.insert("send_call_rate".into(), send);
                Ok(m)
            });
            res.record(WHO, &tag, r);
        }
        for &range in fan_ranges {
            for &n in fan_ns {
                let tag = format!("fan_{range}_{n}");
                let r = timed(&tag, || {
                    let seg = ProbeSegment::create()?;
                    let a = [
                        "fanout".to_owned(),
                        range.to_owned(),
                        poll_mode(1 + n as usize, ncpu).to_owned(),
                        fan_iters.to_string(),
                        fan_warm.to_string(),
                        budget_ms.to_string(),
                    ];
                    let m = pmixrun_job(&ctx, n + 1, Mode::Default, Some(&seg), &a)?;
                    same_count(&m, "handled", "expected")?;
                    Ok(m)
                });
                res.record(WHO, &tag, r);
            }
        }
    }

    let rows: Vec<Row> = table_rows(&res, ncpu, fan_ranges, fan_ns, tp_total)
        .into_iter()
        .map(|r| {
            let r = match res.median(r.tag(), "foreign_cpu") {
                Some(x) if x > BUSY => r.note(format!("busy machine: others used {x:.2} CPUs")),
                _ => r,
            };
            // latency rows: how many samples the time budget let through
            match res.median(r.tag(), "iters") {
                Some(n) if r.unit() == "ns" => r.note(format!("{n:.0} samples")),
                _ => r,
            }
        })
        .collect();
    let foreign = cpu0.zip(CpuSample::now()).map_or(String::new(), |(a, b)| {
        format!(", other processes {:.2} CPUs", b.foreign_since(&a))
    });
    println!();
    println!(
        "{WHO} ({} reps, {ncpu} CPUs, {:.1} s, load average {load0} before, {} after{foreign}): \
         median/min/max are over the reps' figures; ratio = median / the limit's median",
        o.reps,
        t_all.elapsed().as_secs_f64(),
        loadavg()
    );
    println!("command: {}", cmdline.join(" "));
    println!();
    print_table(&res, &rows, true);
    println!();
    println!(
        "notify rows: one-way = RTT/2 (in-run p10–p90 of the one-way too); \
         spin = PMIXRS_PROGRESS_SPIN_US=1000000, sleep = 0, default = unset (2 µs); \
         the clients are not pinned: a sleeping row lands between its two futex ratios \
         depending on whether the scheduler put the two sides on one CPU or two; \
         OpenPMIx 4.2.2 figures from the anchors' reference run in docs/BENCHMARKS.md (same kind of 2-vCPU machine)"
    );
    if skipped_main_spin {
        println!(
            "skipped: notify \"main waits\" with spinning progress threads: the main thread \
             and both progress threads spin, 3 threads on {ncpu} CPUs (scheduler time slices, \
             ms, would be measured); needs 3 CPUs"
        );
    }
    let nfail = res.failures();
    if nfail > 0 {
        println!();
        res.print_failures();
        return Err(format!("{nfail} runs failed"));
    }
    Ok(())
}

/// Runs one experiment, saying on stderr how long it took and how many
/// CPUs other processes kept busy meanwhile (kept as `foreign_cpu`).
fn timed(
    tag: &str,
    f: impl FnOnce() -> Result<HashMap<String, f64>, String>,
) -> Result<HashMap<String, f64>, String> {
    let (t0, c0) = (Instant::now(), CpuSample::now());
    let mut r = f();
    let foreign = c0.zip(CpuSample::now()).map(|(a, b)| b.foreign_since(&a));
    eprintln!(
        "{WHO}:   {tag}: {:.1} s{}{}",
        t0.elapsed().as_secs_f64(),
        foreign.map_or(String::new(), |x| format!(", foreign load {x:.2} CPUs")),
        if r.is_ok() { "" } else { " (failed)" }
    );
    if let (Ok(m), Some(x)) = (&mut r, foreign) {
        m.insert("foreign_cpu".into(), x);
    }
    r
}

/// How many CPUs other processes kept busy over `d`.
fn foreign_load(d: Duration) -> Option<f64> {
    let a = CpuSample::now()?;
    std::thread::sleep(d);
    Some(CpuSample::now()?.foreign_since(&a))
}

fn table_rows(
    res: &Results,
    ncpu: usize,
    fan_ranges: &[&str],
    fan_ns: &[u32],
    tp_total: u64,
) -> Vec<Row> {
    let mut rows = vec![
        row(
            "limit: cache-line ping-pong one-way, CPUs 0/1 (spin)",
            "ns",
            "lim_line_pinned",
            "oneway_ns",
        )
        .p("p10", "p90")
        .note("2 processes, 1 line; LIMITS.md: 53"),
        row(
            "limit: futex ping-pong one-way, CPUs 0/1 (both sleep)",
            "ns",
            "lim_futex_pinned",
            "oneway_ns",
        )
        .p("p10", "p90")
        .note("LIMITS.md: 28570"),
        row(
            "limit: futex ping-pong one-way, both on CPU 0",
            "ns",
            "lim_futex_samecpu",
            "oneway_ns",
        )
        .p("p10", "p90")
        .note("LIMITS.md (same core): 1611"),
        row(
            "limit: cache-line ping-pong, not pinned",
            "ns",
            "lim_line",
            "oneway_ns",
        )
        .p("p10", "p90")
        .note("placed by the scheduler, as the clients are"),
        row(
            "limit: futex ping-pong, not pinned",
            "ns",
            "lim_futex",
            "oneway_ns",
        )
        .p("p10", "p90")
        .note("placed by the scheduler, as the clients are"),
    ];
    // spinning rows against the cache line, sleeping ones against both
    // futex placements
    let vs = |r: Row, mode: Mode| {
        if mode == Mode::Spin {
            r.vs("lim_line_pinned", "oneway_ns", "line")
        } else {
            r.vs("lim_futex_pinned", "oneway_ns", "futex 0/1").vs(
                "lim_futex_samecpu",
                "oneway_ns",
                "futex 1 CPU",
            )
        }
    };
    for mode in [Mode::Spin, Mode::Sleep] {
        for range in RANGES {
            for variant in ["chain", "main"] {
                let tag = format!("nl_{}_{range}_{variant}", mode.name());
                let how = if variant == "chain" {
                    "handler→handler".to_owned()
                } else {
                    let spinners = 1 + 2 * mode.spinning_progress();
                    format!("main waits ({})", poll_mode(spinners, ncpu))
                };
                let mut r = row(
                    format!(
                        "notify one-way {}, progress {}, {how}",
                        range_label(range),
                        mode.name()
                    ),
                    "ns",
                    tag,
                    "oneway_ns",
                )
                .p("p10", "p90");
                r = vs(r, mode);
                if variant == "main" {
                    r = r.note(match range {
                        "custom" => "OpenPMIx 4.2.2 (spin): 22005 us; 102.3 us with TCP_NODELAY",
                        "local" => "OpenPMIx 4.2.2 (spin): 23874 us; 122.5 us with TCP_NODELAY",
                        _ => "OpenPMIx 4.2.2: deadlocks mpirun",
                    });
                }
                rows.push(r);
            }
        }
    }
    for mode in [Mode::Spin, Mode::Sleep] {
        let anchor = if mode == Mode::Spin {
            "OpenPMIx 4.2.2 (spin): 7807"
        } else {
            "OpenPMIx 4.2.2 (cond): 4652"
        };
        let spinners = 1 + mode.spinning_progress();
        let r = row(
            format!(
                "PROC_LOCAL one-way main→handler, progress {} (main {})",
                mode.name(),
                poll_mode(spinners, ncpu)
            ),
            "ns",
            format!("pl_{}", mode.name()),
            "oneway_ns",
        )
        .p("p10", "p90");
        rows.push(vs(r, mode).note(anchor));
    }
    for mode in [Mode::Spin, Mode::Sleep] {
        let tag = format!("pl_{}", mode.name());
        let mut n = String::from("OpenPMIx 4.2.2, 100k burst: 111779 (spin), 115257 (cond)");
        if let Some(c) = res.med_note(&tag, "burst_call_rate") {
            n = format!("notify calls {c}/s; {n}");
        }
        rows.push(
            row(
                format!("PROC_LOCAL burst, 1 thread, progress {}", mode.name()),
                "ev/s",
                tag.clone(),
                "burst_ev_s",
            )
            .note(n),
        );
        let mut n = String::new();
        if let Some(c) = res.med_note(&tag, "mt_call_rate") {
            n = format!("notify calls {c}/s in all");
        }
        rows.push(
            row(
                format!("PROC_LOCAL burst, 4 threads, progress {}", mode.name()),
                "ev/s",
                tag,
                "mt_ev_s",
            )
            .note(n),
        );
    }
    for producers in [1u32, 4] {
        let tag = format!("tp_{producers}");
        let mut n = Vec::new();
        if let Some(c) = res.med_note(&tag, "first_to_last_ev_s") {
            n.push(format!("first→last arrival {c}/s"));
        }
        if let Some(c) = res.med_note(&tag, "send_call_rate") {
            n.push(format!("notify calls {c}/s in all"));
        }
        if producers == 1 {
            n.push("OpenPMIx 4.2.2: 8896 (10k burst), 251 (100k)".into());
        }
        rows.push(
            row(
                format!(
                    "client→peer events, {producers} producer process{} → 1, {tp_total} in all",
                    if producers == 1 { "" } else { "es" }
                ),
                "ev/s",
                tag,
                "recv_ev_s",
            )
            .note(n.join("; ")),
        );
    }
    for &range in fan_ranges {
        for &n in fan_ns {
            let tag = format!("fan_{range}_{n}");
            let w = poll_mode(1 + n as usize, ncpu);
            rows.push(
                row(
                    format!(
                        "fan-out {} to {n}: sender's notify call",
                        range_label(range)
                    ),
                    "ns",
                    tag.clone(),
                    "call_ns",
                )
                .p("call_p10", "call_p90"),
            );
            rows.push(
                row(
                    format!(
                        "fan-out {} to {n}: until the last handler ran",
                        range_label(range)
                    ),
                    "ns",
                    tag,
                    "last_ns",
                )
                .p("last_p10", "last_p90")
                .note(format!("sender polls the shared counter ({w})")),
            );
        }
    }
    rows
}

// ----------------------------------------------------------------- roles --

/// A value that only grows, that threads can sleep on.
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

/// Fewest samples a latency loop keeps after its warm-up, whatever its
/// time budget.
const MIN_SAMPLES: u64 = 100;

/// The time budget of a latency loop (as the anchor `notify_lat -T`): it stops
/// once the budget is spent and [`MIN_SAMPLES`] samples were taken after
/// the warm-up, so that a busy machine cannot stretch a run to minutes.
struct Budget {
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
fn poll(cond: impl Fn() -> bool, yield_: bool, what: &dyn Fn() -> String) -> Result<(), String> {
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

fn perr(what: &str) -> impl Fn(pmix_core::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

fn complete(done: EventCompletion) {
    done.done(Status::EVENT_ACTION_COMPLETE, Vec::new());
}

struct Me {
    c: Client,
    me: Proc,
    size: u32,
}

fn init() -> Result<Me, String> {
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

fn client_role(args: &[String]) -> Result<(), String> {
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
struct Pong {
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

fn notify_role(
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
struct LocalState {
    base: Instant,
    count: AtomicU64,
    last_ns: AtomicU64,
    target: AtomicU64,
    level: Level,
}

fn proc_local_role(
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
struct Sink {
    base: Instant,
    total: u64,
    count: AtomicU64,
    first_ns: AtomicU64,
    last_ns: AtomicU64,
    level: Level,
}

fn tput_role(per: u64) -> Result<(), String> {
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

fn fanout_role(
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
