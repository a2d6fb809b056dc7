//! The parent: runs every experiment as pmixrun jobs of roles and prints the table.

use super::*;

/// The client progress thread's waiting mode for one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
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
pub(crate) fn poll_mode(spinners: usize, ncpu: usize) -> &'static str {
    if spinners > ncpu {
        "yield"
    } else {
        "spin"
    }
}

pub(crate) struct Ctx {
    exe: PathBuf,
    pmixrun: PathBuf,
}

/// One `pmixrun -n np eventbench client <args>` job; returns the `RESULT`
/// lines of all its ranks.
pub(crate) fn pmixrun_job(
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
pub(crate) fn same_count(m: &HashMap<String, f64>, a: &str, b: &str) -> Result<(), String> {
    match (m.get(a), m.get(b)) {
        (Some(x), Some(y)) if x == y => Ok(()),
        (Some(x), Some(y)) => Err(format!("{a} = {x} but {b} = {y}")),
        _ => Err(format!("no {a} or {b} in the results")),
    }
}

/// Fails when `m[key]` is not `want` (a lost or duplicated event).
pub(crate) fn expect_count(m: &HashMap<String, f64>, key: &str, want: u64) -> Result<(), String> {
    match m.get(key) {
        Some(&v) if v == want as f64 => Ok(()),
        Some(&v) => Err(format!("{key} = {v}, expected {want}")),
        None => Err(format!("no {key} in the results")),
    }
}

pub(crate) const RANGES: [&str; 3] = ["custom", "namespace", "local"];

pub(crate) fn range_label(r: &str) -> &'static str {
    match r {
        "custom" => "CUSTOM",
        "namespace" => "NAMESPACE",
        _ => "LOCAL+DO_NOT_CACHE",
    }
}

pub(crate) fn shell_quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        a.to_owned()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

pub(crate) fn run_all(o: &Opts) -> Result<(), String> {
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

/// How many CPUs other processes kept busy over `d`.
pub(crate) fn foreign_load(d: Duration) -> Option<f64> {
    let a = CpuSample::now()?;
    std::thread::sleep(d);
    Some(CpuSample::now()?.foreign_since(&a))
}

pub(crate) fn table_rows(
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
