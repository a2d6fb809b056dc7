//! The command line (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  pmixbench all                          every measurement, pmix-rs native (under a minute on 2 cores)
  pmixbench notify --progress spin --range custom --range local
  pmixbench fence --np 2 --np 4 --np 8 --iters 500
  pmixbench notify --compare-lib target/release/pmix-lib \\
                   --compare-lib /usr/lib/x86_64-linux-gnu/pmix2/lib --plot notify.svg
  pmixbench all --quick --json > run.json
  pmixbench get --csv --cpus 0,1

Every latency is an HDR histogram (min, p50, p90, p99, p99.9, max), quoted
against the machine's own limits measured in the same run (one cache line
bounced between two processes, a futex wake-up, a pipe wake-up). With
--compare-lib DIR the same measurements also run through the C ABI of
DIR/libpmix.so.2 (a small C driver compiled with `cc` against pmix.h from
`pkg-config pmix`), under pmixrun when DIR holds pmix-rs's library and under
`mpirun` (its OpenPMIx server) otherwise, alternating with the native runs;
each row then gives its ratio to the first side. Ctrl-C stops after the
running job and prints what was measured so far.";

/// The PMIx latency benchmark: events, wire-up and start-up on this node,
/// natively and through any libpmix.so.2.
#[derive(Debug, Parser)]
#[command(name = "pmixbench", version, after_help = EXAMPLES)]
pub struct Cli {
    /// The measurement.
    #[command(subcommand)]
    pub what: What,
}

/// The measurements.
#[derive(Debug, Subcommand)]
pub enum What {
    /// Event notification one-way latency, rank 0 ↔ rank 1 ping-pong.
    #[command(after_help = EXAMPLES)]
    Notify(Opts),
    /// PMIX_RANGE_PROC_LOCAL events: thread → handler latency and a burst rate.
    #[command(after_help = EXAMPLES)]
    ProcLocal(Opts),
    /// One event to N local peers: the sender's call and the last handler (native only).
    #[command(after_help = EXAMPLES)]
    Fanout(Opts),
    /// Client → peer event throughput (np − 1 producers into rank 0).
    #[command(after_help = EXAMPLES)]
    Throughput(Opts),
    /// PMIx_Get of a job key and of a peer's committed key (ns per call).
    #[command(after_help = EXAMPLES)]
    Get(Opts),
    /// PMIx_Fence with a 1 KiB blob per rank collected.
    #[command(after_help = EXAMPLES)]
    Fence(Opts),
    /// PMIx_Init time of every rank.
    #[command(after_help = EXAMPLES)]
    Init(Opts),
    /// Everything above.
    #[command(after_help = EXAMPLES)]
    All(Opts),
}

/// How the client progress threads wait (pmix-rs; OpenPMIx always sleeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Progress {
    /// Spin while waiting (PMIXRS_PROGRESS_SPIN_US=1000000).
    Spin,
    /// Sleep as soon as idle (PMIXRS_PROGRESS_SPIN_US=0).
    Sleep,
}

/// Which launcher starts the C-ABI jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LauncherChoice {
    /// pmixrun for pmix-rs's libpmix.so.2, mpirun otherwise.
    Auto,
    /// This workspace's pmixrun.
    Pmixrun,
    /// Debian's mpirun (Open MPI 4.1 with its PMIx server).
    Mpirun,
}

/// The target range of the notify and fan-out events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Range {
    /// PMIX_RANGE_CUSTOM with PMIX_EVENT_CUSTOM_RANGE = the peer.
    Custom,
    /// PMIX_RANGE_NAMESPACE.
    Namespace,
    /// PMIX_RANGE_LOCAL with PMIX_EVENT_DO_NOT_CACHE.
    Local,
}

impl Range {
    /// The name the clients take.
    pub fn arg(self) -> &'static str {
        match self {
            Range::Custom => "custom",
            Range::Namespace => "namespace",
            Range::Local => "local",
        }
    }

    /// The name in a row.
    pub fn label(self) -> &'static str {
        match self {
            Range::Custom => "CUSTOM",
            Range::Namespace => "NAMESPACE",
            Range::Local => "LOCAL+DO_NOT_CACHE",
        }
    }
}

/// What every measurement takes.
#[derive(Clone, Debug, Args)]
pub struct Opts {
    /// Process counts (fence, init, throughput: np; fan-out: receivers).
    #[arg(long, num_args = 1..)]
    pub np: Vec<u32>,
    /// Event ranges (notify; fan-out uses namespace and local).
    #[arg(long, value_enum, num_args = 1..)]
    pub range: Vec<Range>,
    /// Progress-thread modes (notify; default: both).
    #[arg(long, value_enum, num_args = 1..)]
    pub progress: Vec<Progress>,
    /// CPUs to run the jobs on (taskset list, e.g. 0,1 or 0-3).
    #[arg(long)]
    pub cpus: Option<String>,
    /// Timed iterations of each latency loop (after a 10% warm-up).
    #[arg(long)]
    pub iters: Option<u64>,
    /// Time budget of each latency loop in seconds (it stops early once spent).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Events per burst (PROC_LOCAL burst; throughput: per producer).
    /// Default 1000000, or 10000 with --compare-lib (OpenPMIx 4.2 stalls
    /// on bursts of 100000 to a peer), 10000 with --quick.
    #[arg(long)]
    pub burst: Option<u64>,
    /// Repetitions of every job, alternating between the sides.
    #[arg(long, default_value_t = 1)]
    pub reps: u32,
    /// Tiny sizes: a smoke run of a few seconds.
    #[arg(long)]
    pub quick: bool,
    /// Also run through the C ABI of DIR/libpmix.so.2 (repeatable).
    #[arg(long, value_name = "DIR")]
    pub compare_lib: Vec<PathBuf>,
    /// How the --compare-lib jobs are launched: pmixrun for pmix-rs's
    /// library and mpirun for any other (auto), or one of them for all
    /// (mpirun on pmix-rs's library = Open MPI's server on pmix-rs).
    #[arg(long, value_enum, default_value_t = LauncherChoice::Auto)]
    pub launcher: LauncherChoice,
    /// Skip pmix-rs native (compare libraries only).
    #[arg(long)]
    pub no_native: bool,
    /// The pmixrun to launch with (default: next to this binary, then PATH).
    #[arg(long)]
    pub pmixrun: Option<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV instead of the table.
    #[arg(long)]
    pub csv: bool,
    /// Draw latency CDFs and scaling curves into FILE.svg.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub no_progress_bar: bool,
}
