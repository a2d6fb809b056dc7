//! `pmixbench`: the PMIx latency benchmark of this workspace, for anyone's
//! node and any `libpmix.so.2`. See `pmixbench --help` and
//! `docs/BENCHMARKS.md`.
//!
//! The parent process plans the jobs of a subcommand ([`plan`]), measures
//! the machine's limits ([`machine`]), then runs every job on every side
//! ([`sides`]: pmix-rs native under `pmixrun`, or the C driver on another
//! library), alternating sides job by job and repetition by repetition,
//! and collects the ranks' samples into HDR histograms
//! (`pmix_benches::report`). The same binary is also a rank of a native
//! job (`pmixbench client …`, [`native`]) and one end of a limit
//! ping-pong.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use pmix_benches::harness::{loadavg, ncpu, which, CpuSample};
use pmix_benches::limits::{self, ProbeSegment};
use pmix_benches::report::{Entry, Measure, Report};
use pmix_benches::summary::Dist;
use pmix_shm::sync::{AtomicBool, Ordering};

mod cli;
mod machine;
mod native;
mod plan;
mod plot;
mod sides;

use cli::{Cli, Opts, What};
use plan::Spec;
use sides::{build_driver, Launch, OwnDir, Side, SHM_ENV};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let r = match args.get(1).map(String::as_str) {
        Some("client") => native::client_role(&args[2..]),
        Some(limits::ROLE_ARG) => limits::role(&args[2..]),
        Some(machine::PIPE_ROLE) => machine::pipe_role(),
        _ => run(Cli::parse()),
    };
    if let Err(e) = r {
        eprintln!("pmixbench: {e}");
        std::process::exit(1);
    }
}

fn opts(w: &What) -> &Opts {
    match w {
        What::Notify(o)
        | What::ProcLocal(o)
        | What::Fanout(o)
        | What::Throughput(o)
        | What::Get(o)
        | What::Fence(o)
        | What::Init(o)
        | What::All(o) => o,
    }
}

/// `--pmixrun`, else `pmixrun` next to this binary, else in `PATH`.
fn find_pmixrun(o: &Opts, exe: &Path) -> Result<PathBuf, String> {
    if let Some(p) = &o.pmixrun {
        return Ok(p.clone());
    }
    let next = exe.with_file_name("pmixrun");
    if next.is_file() {
        return Ok(next);
    }
    if which("pmixrun") {
        return Ok(PathBuf::from("pmixrun"));
    }
    Err(format!(
        "no pmixrun next to {} nor in PATH: build it (`cargo build --release -p pmix-launcher`) \
         or name it with --pmixrun",
        exe.display()
    ))
}

/// The first two CPUs of a taskset list (`0,1`, `2-5`), for the limits
/// (0 and 1 when the list names fewer than two).
fn first_two_cpus(list: Option<&str>) -> [usize; 2] {
    let mut cpus = Vec::new();
    for part in list.unwrap_or("0,1").split(',') {
        let mut it = part
            .split('-')
            .filter_map(|x| x.trim().parse::<usize>().ok());
        if let Some(a) = it.next() {
            let b = it.next().unwrap_or(a);
            cpus.extend(a..=b);
        }
    }
    cpus.dedup();
    match cpus[..] {
        [a, b, ..] => [a, b],
        // a spinning ping-pong on one CPU measures time slices: the
        // limits are the machine's, so they take CPUs 0 and 1 then
        _ => [0, 1],
    }
}

fn run(cli: Cli) -> Result<(), String> {
    let o = opts(&cli.what).clone();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let n = ncpu();
    let (specs, plan_notes) = plan::plan(&cli.what, &o, n);

    let mut sides = Vec::new();
    if !o.no_native {
        sides.push(Side::Native);
    }
    for dir in &o.compare_lib {
        let mut side = Side::c_abi(dir, o.launcher)?;
        if sides.iter().any(|s: &Side| s.name() == side.name()) {
            side.rename(format!("{} ({})", side.name(), dir.display()));
        }
        sides.push(side);
    }
    if sides.is_empty() {
        return Err("nothing to measure: --no-native without --compare-lib".into());
    }
    let tmp = OwnDir::create()?;
    let driver = if sides.iter().any(|s| matches!(s, Side::CAbi { .. })) {
        Some(build_driver(&tmp.0)?)
    } else {
        None
    };
    let launch = Launch {
        pmixrun: find_pmixrun(&o, &exe)?,
        exe,
        driver,
        cpus: o.cpus.clone(),
        tmp: tmp.0.clone(),
    };

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).map_err(|e| e.to_string())?;
    }
    // ORDERING: Relaxed — a flag polled between jobs; nothing hangs on it.
    let stopped = || stop.load(Ordering::Relaxed);

    let mut report = Report {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        sides: sides.iter().map(|s| s.name().to_owned()).collect(),
        notes: plan_notes,
        ..Report::default()
    };
    let load0 = loadavg();
    let cpu0 = CpuSample::now();
    let started = Instant::now();
    let runs: u64 = u64::from(o.reps)
        * specs
            .iter()
            .map(|s| sides.iter().filter(|d| runs_on(s, d)).count() as u64)
            .sum::<u64>();
    let bar = if o.no_progress_bar {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(runs + 1)
    };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );

    bar.set_message("the machine's limits");
    match machine::measure(first_two_cpus(o.cpus.as_deref()), o.quick) {
        Ok(l) => report.limits = l,
        Err(e) => report
            .failures
            .push(("limits".into(), "the machine".into(), e)),
    }
    bar.inc(1);

    'reps: for rep in 0..o.reps {
        for spec in &specs {
            for side in &sides {
                if !runs_on(spec, side) {
                    continue;
                }
                if stopped() {
                    break 'reps;
                }
                bar.set_message(format!(
                    "{} np {} on {} (rep {})",
                    spec.family,
                    spec.np,
                    side.name(),
                    rep + 1
                ));
                let r = run_one(&launch, side, spec);
                if stopped() {
                    break 'reps; // a job cut short by Ctrl-C is not a figure
                }
                match r {
                    Ok(out) => record(&mut report, side, spec, &out),
                    Err(e) => {
                        bar.println(format!(
                            "pmixbench: {} np {} on {}: {e}",
                            spec.family,
                            spec.np,
                            side.name()
                        ));
                        for out in &spec.outs {
                            report.failures.push((
                                out.row.clone(),
                                side.name().to_owned(),
                                e.clone(),
                            ));
                        }
                    }
                }
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    if stopped() {
        report
            .notes
            .push("stopped by a signal: what was measured until then".into());
    }
    let foreign = cpu0.zip(CpuSample::now()).map_or(String::new(), |(a, b)| {
        format!(
            "; other processes kept {:.2} CPUs busy meanwhile",
            b.foreign_since(&a)
        )
    });
    report.notes.push(format!(
        "{n} CPUs; load average {load0} before, {} after; {:.1} s{foreign}",
        loadavg(),
        started.elapsed().as_secs_f64()
    ));
    report.notes.push(format!(
        "placement: {}",
        if let Some(c) = &o.cpus {
            format!("jobs pinned to CPUs {c}")
        } else {
            "jobs not pinned".into()
        }
    ));
    print_report(&report, &o)?;
    if let Some(p) = &o.plot {
        plot::draw(&report, p)?;
        eprintln!("pmixbench: plot written to {}", p.display());
    }
    drop(tmp);
    if stopped() {
        std::process::exit(130);
    }
    if report.failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} row(s) failed", report.failures.len()))
    }
}

/// Whether `spec` runs on `side`: the C driver lacks some roles, and a
/// spinning progress mode means nothing to a library without one.
fn runs_on(spec: &Spec, side: &Side) -> bool {
    match side {
        Side::Native => true,
        Side::CAbi { .. } => {
            spec.c_abi && (side.is_pmix_rs() || spec.progress != Some(cli::Progress::Spin))
        }
    }
}

fn run_one(launch: &Launch, side: &Side, spec: &Spec) -> Result<sides::Output, String> {
    let seg = if spec.counter {
        Some(ProbeSegment::create()?)
    } else {
        None
    };
    let env: Vec<(&str, String)> = seg.iter().map(|s| (SHM_ENV, s.path())).collect();
    let progress = if side.is_pmix_rs() {
        spec.progress
    } else {
        None
    };
    launch.run(side, spec.np, progress, &env, &spec.args)
}

fn record(report: &mut Report, side: &Side, spec: &Spec, out: &sides::Output) {
    for o in &spec.outs {
        let proto = Entry {
            row: o.row.clone(),
            family: spec.family.to_owned(),
            np: spec.np,
            side: side.name().to_owned(),
            measure: if o.rate {
                Measure::Rate(Vec::new())
            } else {
                Measure::Latency(Dist::new())
            },
            limit: o.limit.map(str::to_owned),
        };
        let missing = match (&mut report.entry_mut(&proto).measure, o.rate) {
            (Measure::Rate(v), true) => match out.results.get(o.key) {
                Some(&x) if x.is_finite() && x > 0.0 => {
                    v.push(x);
                    false
                }
                _ => true,
            },
            (Measure::Latency(d), false) => match out.samples.get(o.key) {
                Some(s) if !s.is_empty() => {
                    d.record_all(s);
                    false
                }
                _ => true,
            },
            _ => true,
        };
        if missing {
            report.failures.push((
                o.row.clone(),
                side.name().to_owned(),
                format!("no {} in the output", o.key),
            ));
        }
    }
}

fn print_report(report: &Report, o: &Opts) -> Result<(), String> {
    if o.json {
        let s = serde_json::to_string_pretty(&report.json()).map_err(|e| e.to_string())?;
        println!("{s}");
    } else if o.csv {
        print!("{}", report.csv());
    } else {
        println!("pmixbench: {}", report.command);
        for n in &report.notes {
            println!("pmixbench: {n}");
        }
        println!();
        print!("{}", report.table());
    }
    Ok(())
}
