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
    loadavg, ncpu, newest_source, parse_opts, parse_results, print_results, print_table, row,
    stats_of, CpuSample, Job, Opts, Results, Row,
};
use pmix_benches::limits::{self, Limit, ProbeSegment};
use pmix_client::{Client, Event, EventCompletion};
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use pmix_shm::sync::{AtomicU64, Ordering};

/// User event codes, below `PMIX_EXTERNAL_ERR_BASE` as in the C anchor
/// programs.
pub(crate) const CODE_PING: Status = Status(-3001);
pub(crate) const CODE_PONG: Status = Status(-3002);
pub(crate) const CODE_LOCAL: Status = Status(-3003);
pub(crate) const CODE_BURST: Status = Status(-3004);
pub(crate) const CODE_STOP: Status = Status(-3005);
pub(crate) const CODE_FAN: Status = Status(-3006);

/// How long the parent lets one `pmixrun` job run.
pub(crate) const JOB_DEADLINE: Duration = Duration::from_secs(120);
/// `pmixrun --timeout`, in seconds (below the parent's deadline).
pub(crate) const PMIXRUN_TIMEOUT_S: u64 = 100;
/// How long a client waits for one expected event (or a whole burst).
pub(crate) const CLIENT_WAIT: Duration = Duration::from_secs(60);

/// Foreign load (CPUs used by other processes) above which a row says the
/// machine was busy (`docs/LIMITS.md` §1 counts a run clean up to 0.25).
pub(crate) const BUSY: f64 = 0.25;

pub(crate) const SPIN_ENV: &str = "PMIXRS_PROGRESS_SPIN_US";
pub(crate) const SHM_ENV: &str = "EVENTBENCH_SHM";
pub(crate) const WHO: &str = "eventbench";

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

mod parent;
mod roles;

use parent::*;
use roles::*;

/// Fewest samples a latency loop keeps after its warm-up, whatever its
/// time budget.
pub(crate) const MIN_SAMPLES: u64 = 100;

/// Runs one experiment, saying on stderr how long it took and how many
/// CPUs other processes kept busy meanwhile (kept as `foreign_cpu`).
pub(crate) fn timed(
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
