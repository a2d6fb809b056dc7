//! `wirebench`: the cross-process wire-up harness, measuring what the C
//! anchor programs `get_lat` and `fence_lat` and their runner measure on
//! OpenPMIx (`docs/BENCHMARKS.md`, "The OpenPMIx anchor programs"), the same way, so the two tables compare row by row.
//!
//! One binary, two roles. The parent embeds a [`Server`] (one per
//! experiment, a fresh namespace each time, [`NullHost`]), registers `np`
//! clients with its own uid/gid, and spawns `np` copies of itself as
//! `wirebench client <experiment> <args>` with the `setup_fork`
//! environment. Rank 0 prints `RESULT <name> <value>` lines; the parent
//! waits for every rank (120 s deadline: the job is killed and the row
//! reports FAIL) and keeps one set of results per repetition.
//!
//! - `get` (np = 2, as the anchor `get_lat`): rank 0's Init and Finalize time; Get
//!   of `JOB_SIZE@WILDCARD`, `LOCAL_RANK@self`, and (after every rank put a
//!   64-byte key, committed and ran a collecting fence) the peer's key:
//!   100 untimed, checked Gets, then 100k Gets timed in batches of 100;
//!   ns/op is the median batch (p10/p90 over batches in the notes). Only
//!   rank 0 measures; the peer waits in a fence meanwhile.
//! - `fence` (np = 2, 4, 8, 16, as the anchor `fence_lat`): each iteration puts and
//!   commits a new 1 KiB blob (untimed) and times a `PMIX_COLLECT_DATA`
//!   fence; then a sync-only fence (no info) is timed. 20 warm-up + 200
//!   timed iterations each; the row is rank 0's median iteration, and the
//!   notes give the largest per-rank median (gathered afterwards with
//!   put/commit/fence/get, as the anchor does).
//! - `pmixrun -n 8 examples/bcard` and `pmixrun -n 8 /bin/true`: whole-job
//!   wall time, 2 warm-up + 10 timed launches, median (the anchor runner's
//!   `hyperfine -w 2 -r 10`).
//! - The machine's own limits, in the same run: a one-byte pipe ping-pong
//!   between this process and a sleeping child (RTT/2: the cost of one
//!   wake-up, the floor of a sleeping fence), and spawning + reaping 8
//!   `/bin/true` directly (the floor of the `pmixrun` rows).
//!
//! Every experiment runs `--reps` times (default 3, interleaved); the table
//! shows the median, min and max of the per-run figures, like the anchor runner.
//! The notes quote the OpenPMIx 4.2.2 reference run recorded in
//! `docs/BENCHMARKS.md` (same kind of 2-vCPU machine). No process is
//! pinned. The header gives the load average before and after: on a
//! shared machine, rerun when it is quiet. A note says when `pmixrun` or
//! `bcard` is older than the workspace sources.
//!
//! ```text
//! cargo build --release -p pmix-launcher --bins --examples   # pmixrun rows
//! cargo build --release -p pmix-benches --bin wirebench
//! target/release/wirebench             # everything (a few seconds)
//! target/release/wirebench --quick     # smoke run: fewer iterations, np 2 and 4
//! target/release/wirebench --reps 5
//! ```

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_benches::harness::{
    loadavg, ncpu, newest_source, parse_results, print_results, print_table, row, stats_of, Job,
    Results, Stats,
};

use pmix_client::Client;
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Scope, Value};
use pmix_server::{NullHost, Server, ServerConfig, SingleNodeJob};

/// How long one job (all its ranks) may take before it is killed.
const DEADLINE: Duration = Duration::from_secs(120);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("client") => client_role(&args[1..]),
        Some("pipe") => pipe_role(),
        _ => parse_opts(&args).and_then(|o| run_all(&o)),
    };
    if let Err(e) = r {
        eprintln!("wirebench: {e}");
        std::process::exit(1);
    }
}

use pmix_benches::harness::{parse_opts, Opts};

// ---------------------------------------------------------------- parent --

fn ids() -> Result<(u32, u32), String> {
    let m = std::fs::metadata("/proc/self").map_err(|e| format!("/proc/self: {e}"))?;
    Ok((m.uid(), m.gid()))
}

/// One PMIx job of `np` copies of this binary running `client <args>`,
/// under a fresh server and namespace; returns rank 0's results.
fn pmix_job(seq: u32, np: u32, args: &[String]) -> Result<HashMap<String, f64>, String> {
    let err = |e: pmix_core::Error| e.to_string();
    let pid = std::process::id();
    let srv_ns = Nspace::new(format!("wirebench-srv-{pid}-{seq}")).map_err(err)?;
    let ns = Nspace::new(format!("wirebench-{pid}-{seq}")).map_err(err)?;
    let mut cfg = ServerConfig::new(srv_ns);
    cfg.max_clients = np;
    cfg.log = false;
    let server = Server::init(cfg, Arc::new(NullHost)).map_err(err)?;
    let (uid, gid) = ids()?;
    let procs: Vec<Proc> = (0..np)
        .map(|r| Proc::from_parts(ns.clone(), Rank(r)))
        .collect();
    for p in &procs {
        server.register_client(p, uid, gid).map_err(err)?;
    }
    let infos = SingleNodeJob::new(ns.clone(), np, pmix_server::hostname())
        .infos()
        .map_err(err)?;
    server.register_nspace(&ns, np, &infos).map_err(err)?;

    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let deadline = Instant::now() + DEADLINE;
    let mut job = Job::new();
    for p in &procs {
        let mut cmd = Command::new(&exe);
        cmd.arg("client")
            .args(args)
            .envs(server.setup_fork(p).map_err(err)?);
        job.spawn(cmd)?;
    }
    let (lines, status) = job.finish(deadline)?;
    server.finalize();
    if let Some((r, st)) = status.iter().enumerate().find(|(_, s)| !s.success()) {
        return Err(format!("rank {r} exited with {st}"));
    }
    let m = parse_results(&lines);
    if m.is_empty() {
        return Err("rank 0 printed no RESULT".into());
    }
    Ok(m)
}

/// Wall time of `prog args` from spawn to reaped, in ms, after checking it
/// succeeded (and, with `want`, printed a line containing it).
fn wall_once(prog: &Path, args: &[String], want: Option<&str>) -> Result<f64, String> {
    let mut cmd = Command::new(prog);
    cmd.args(args);
    let t0 = Instant::now();
    let mut job = Job::new();
    job.spawn(cmd)?;
    let (lines, st) = job.finish(t0 + DEADLINE)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    if !st[0].success() {
        return Err(format!("{} exited with {}", prog.display(), st[0]));
    }
    if let Some(w) = want {
        if !lines.iter().any(|l| l.contains(w)) {
            return Err(format!(
                "{}: no line with {w:?} in {lines:?}",
                prog.display()
            ));
        }
    }
    Ok(ms)
}

/// `warm` untimed then `runs` timed launches; the median in ms.
fn wall_median(
    prog: &Path,
    args: &[String],
    want: Option<&str>,
    warm: usize,
    runs: usize,
) -> Result<HashMap<String, f64>, String> {
    for _ in 0..warm {
        wall_once(prog, args, want)?;
    }
    let mut v = Vec::with_capacity(runs);
    for _ in 0..runs {
        v.push(wall_once(prog, args, want)?);
    }
    Ok(HashMap::from([("med_ms".to_owned(), stats_of(&v).med)]))
}

/// Limit: spawn `n` `/bin/true` at once, reap them all; median ms.
fn spawn_true_median(n: usize, warm: usize, runs: usize) -> Result<HashMap<String, f64>, String> {
    let once = || -> Result<f64, String> {
        let t0 = Instant::now();
        let mut cs = Vec::with_capacity(n);
        for _ in 0..n {
            let c = Command::new("/bin/true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| format!("/bin/true: {e}"))?;
            cs.push(c);
        }
        for mut c in cs {
            c.wait().map_err(|e| e.to_string())?;
        }
        Ok(t0.elapsed().as_secs_f64() * 1e3)
    };
    for _ in 0..warm {
        once()?;
    }
    let v = (0..runs).map(|_| once()).collect::<Result<Vec<_>, _>>()?;
    Ok(HashMap::from([("med_ms".to_owned(), stats_of(&v).med)]))
}

/// Limit: one-byte ping-pong over two pipes with a child that sleeps in
/// `read`; batches of `per` round trips, the median batch's RTT/2 in µs.
fn pipe_median(batches: usize, per: usize) -> Result<HashMap<String, f64>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut c = Command::new(exe)
        .arg("pipe")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let (Some(mut tx), Some(mut rx)) = (c.stdin.take(), c.stdout.take()) else {
        let _ = c.kill();
        let _ = c.wait();
        return Err("no pipes".into());
    };
    let mut run = || -> Result<Vec<f64>, String> {
        let mut b = [0u8; 1];
        let mut rtt = |b: &mut [u8; 1]| -> Result<(), String> {
            tx.write_all(b).map_err(|e| e.to_string())?;
            rx.read_exact(b).map_err(|e| format!("pipe peer: {e}"))
        };
        for _ in 0..per {
            rtt(&mut b)?; // warm-up batch
        }
        let mut v = Vec::with_capacity(batches);
        for _ in 0..batches {
            let t0 = Instant::now();
            for _ in 0..per {
                rtt(&mut b)?;
            }
            v.push(t0.elapsed().as_secs_f64() * 1e6 / (2 * per) as f64);
        }
        Ok(v)
    };
    let r = run();
    drop(tx); // EOF ends the child
    let _ = c.wait();
    let v = r?;
    let s = stats_of(&v);
    Ok(HashMap::from([
        ("oneway_us".to_owned(), s.med),
        ("p10".to_owned(), s.p10),
        ("p90".to_owned(), s.p90),
    ]))
}

fn run_all(o: &Opts) -> Result<(), String> {
    let (get_n, fence_iters, fence_warm, runs, warm, pipe_batches) = if o.quick {
        (10_000u64, 50u64, 5u64, 3usize, 1usize, 5usize)
    } else {
        (100_000, 200, 20, 10, 2, 50)
    };
    let nps: &[u32] = if o.quick { &[2, 4] } else { &[2, 4, 8, 16] };
    let batch = 100u64;
    let ncpu = ncpu();

    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let pmixrun = dir.join("pmixrun");
    let bcard = dir.join("examples").join("bcard");
    let have_pmixrun = pmixrun.is_file();
    let have_bcard = have_pmixrun && bcard.is_file();
    let missing: Vec<&PathBuf> = [&pmixrun, &bcard]
        .into_iter()
        .filter(|p| !p.is_file())
        .collect();

    println!(
        "wirebench: {} reps, {ncpu} CPUs, not pinned; get n={get_n} batch={batch}; \
         fence {fence_iters} iters + {fence_warm} warm-up, np {nps:?}; \
         launches {runs} timed + {warm} warm-up",
        o.reps
    );
    if !missing.is_empty() {
        println!(
            "wirebench: missing {}: build them with \
             `cargo build --release -p pmix-launcher --bins --examples`; skipping those rows",
            missing
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let src = newest_source();
    for p in [&pmixrun, &bcard] {
        let built = std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if let (Some(b), Some(s)) = (built, src) {
            if s > b {
                println!(
                    "wirebench: note: {} is older than the sources; rebuild it with \
                     `cargo build --release -p pmix-launcher --bins --examples`",
                    p.display()
                );
            }
        }
    }
    let load0 = loadavg();

    let mut res = Results::default();
    let mut seq = 0u32;
    let t_all = Instant::now();
    for rep in 1..=o.reps {
        eprintln!("wirebench: rep {rep}/{}", o.reps);
        seq += 1;
        let a = ["get".to_owned(), get_n.to_string(), batch.to_string()];
        res.record("wirebench", "get", pmix_job(seq, 2, &a));
        for &np in nps {
            seq += 1;
            let a = [
                "fence".to_owned(),
                fence_iters.to_string(),
                fence_warm.to_string(),
            ];
            res.record("wirebench", &format!("fence{np}"), pmix_job(seq, np, &a));
        }
        if have_bcard {
            let a = ["-n".to_owned(), "8".to_owned(), bcard.display().to_string()];
            let r = wall_median(&pmixrun, &a, Some("every card checked"), warm, runs);
            res.record("wirebench", "hf_bcard_8", r);
        }
        if have_pmixrun {
            let a = ["-n".to_owned(), "8".to_owned(), "/bin/true".to_owned()];
            res.record(
                "wirebench",
                "hf_true_8",
                wall_median(&pmixrun, &a, None, warm, runs),
            );
        }
        res.record("wirebench", "lim_spawn8", spawn_true_median(8, warm, runs));
        res.record("wirebench", "lim_pipe", pipe_median(pipe_batches, 100));
    }

    // OpenPMIx 4.2.2 medians of the anchors' reference run (docs/BENCHMARKS.md).
    let fence_ref: HashMap<u32, (&str, &str)> = HashMap::from([
        (2, ("114.1", "78.6")),
        (4, ("214.7", "202.5")),
        (8, ("306.8", "282.4")),
        (16, ("569.4", "540.2")),
    ]);
    let mut rows = vec![
        row("PMIx_Init (rank 0, np=2)", "us", "get", "init_us").note("OpenPMIx 4.2.2: 11709"),
        row("PMIx_Finalize (rank 0, np=2)", "us", "get", "fin_us").note("OpenPMIx 4.2.2: 707.1"),
        row(
            "first collecting Fence (rank 0, np=2)",
            "us",
            "get",
            "first_fence_us",
        ),
        row("PMIx_Get JOB_SIZE @WILDCARD", "ns/op", "get", "job_ns")
            .p("job_p10", "job_p90")
            .note("OpenPMIx 4.2.2: 8315"),
        row("PMIx_Get LOCAL_RANK @self", "ns/op", "get", "lrank_ns")
            .p("lrank_p10", "lrank_p90")
            .note("OpenPMIx 4.2.2: 5982"),
        row(
            "PMIx_Get peer 64B key (after fence)",
            "ns/op",
            "get",
            "peer_ns",
        )
        .p("peer_p10", "peer_p90")
        .note("OpenPMIx 4.2.2: 6199"),
    ];
    for &np in nps {
        let tag = format!("fence{np}");
        let (rc, _) = fence_ref[&np];
        let mut n = format!("OpenPMIx 4.2.2: {rc}");
        if let Some(m) = res.med_note(&tag, "collect_maxrank_us") {
            n.push_str(&format!("; max over ranks {m}"));
        }
        if let (Some(a), Some(b)) = (
            res.med_note(&tag, "collect_firstq_us"),
            res.med_note(&tag, "collect_lastq_us"),
        ) {
            n.push_str(&format!("; first/last quarter {a}/{b}"));
        }
        rows.push(
            row(
                format!("Fence collect 1KiB/rank np={np}"),
                "us",
                tag,
                "collect_us",
            )
            .p("collect_p10", "collect_p90")
            .note(n),
        );
    }
    for &np in nps {
        let tag = format!("fence{np}");
        let (_, rs) = fence_ref[&np];
        let mut n = format!("OpenPMIx 4.2.2: {rs}");
        if let Some(m) = res.med_note(&tag, "sync_maxrank_us") {
            n.push_str(&format!("; max over ranks {m}"));
        }
        rows.push(
            row(
                format!("Fence sync (no data) np={np}"),
                "us",
                tag,
                "sync_us",
            )
            .p("sync_p10", "sync_p90")
            .note(n),
        );
    }
    rows.push(
        row(
            "pmixrun -n 8 bcard (1 KiB cards)",
            "ms",
            "hf_bcard_8",
            "med_ms",
        )
        .note("cf. mpirun -np 8 pmix_hello (OpenPMIx 4.2.2): 81.4"),
    );
    rows.push(
        row(
            "pmixrun -n 8 /bin/true (launch only)",
            "ms",
            "hf_true_8",
            "med_ms",
        )
        .note("cf. mpirun -np 8 /bin/true: 66.2"),
    );
    rows.push(
        row(
            "limit: spawn + reap 8 × /bin/true",
            "ms",
            "lim_spawn8",
            "med_ms",
        )
        .note("no PMIx: the floor of the pmixrun rows"),
    );
    rows.push(
        row(
            "limit: pipe one-way, sleeping peer",
            "us",
            "lim_pipe",
            "oneway_us",
        )
        .p("p10", "p90")
        .note("RTT/2 of a 1-byte ping-pong: one wake-up"),
    );

    println!();
    println!(
        "wirebench ({} reps, {ncpu} CPUs, {:.1} s, load average {load0} before, {} after): \
         median/min/max are over the reps' figures",
        o.reps,
        t_all.elapsed().as_secs_f64(),
        loadavg()
    );
    println!();
    print_table(&res, &rows, false);
    let nfail = res.failures();
    if nfail > 0 {
        println!();
        res.print_failures();
        return Err(format!("{nfail} runs failed"));
    }
    Ok(())
}

// ----------------------------------------------------------------- roles --

fn pipe_role() -> Result<(), String> {
    let mut rx = std::io::stdin().lock();
    let mut tx = std::io::stdout().lock();
    let mut b = [0u8; 1];
    loop {
        match rx.read_exact(&mut b) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e.to_string()),
        }
        tx.write_all(&b)
            .and_then(|()| tx.flush())
            .map_err(|e| e.to_string())?;
    }
}

fn client_role(args: &[String]) -> Result<(), String> {
    let num = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    match args.first().map(String::as_str) {
        Some("get") => get_role(num(1, 100_000), num(2, 100).max(1)),
        Some("fence") => fence_role(num(1, 200) as usize, num(2, 20) as i64),
        other => Err(format!("unknown client experiment {other:?}")),
    }
}

fn perr(what: &str) -> impl Fn(pmix_core::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// As the anchor `get_lat` times them: 100 checked warm-up Gets, then `n`
/// Gets in batches of `b`; ns/op statistics over batches.
fn time_gets(
    c: &Client,
    proc: &Proc,
    key: &str,
    n: u64,
    b: u64,
    check: impl Fn(&Value) -> bool,
) -> Result<Stats, String> {
    for _ in 0..100 {
        let v = c.get(proc, key, &[]).map_err(perr(key))?;
        if !check(&v) {
            return Err(format!("Get({key}) returned a wrong value: {v:?}"));
        }
    }
    let nb = (n / b).max(1);
    let mut per = Vec::with_capacity(nb as usize);
    for _ in 0..nb {
        let t0 = Instant::now();
        for _ in 0..b {
            let v = c.get(proc, key, &[]).map_err(perr(key))?;
            drop(std::hint::black_box(v));
        }
        per.push(t0.elapsed().as_nanos() as f64 / b as f64);
    }
    Ok(stats_of(&per))
}

fn get_role(n: u64, b: u64) -> Result<(), String> {
    let t0 = Instant::now();
    let c = Client::init(&[]).map_err(perr("init"))?;
    let init_us = t0.elapsed().as_secs_f64() * 1e6;
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let size = match c
        .get(&wild, attrs::JOB_SIZE, &[])
        .map_err(perr("JOB_SIZE"))?
    {
        Value::Uint32(s) => s,
        v => return Err(format!("JOB_SIZE is {v:?}, not a UINT32")),
    };
    if size < 2 {
        return Err("needs at least 2 ranks".into());
    }
    let peer = Proc::from_parts(me.nspace.clone(), Rank((me.rank.0 + 1) % size));
    let peer_rank = peer.rank.0;

    let (mut sj, mut sl, mut sp) = (Stats::default(), Stats::default(), Stats::default());
    if me.rank.0 == 0 {
        sj = time_gets(&c, &wild, attrs::JOB_SIZE, n, b, |v| {
            *v == Value::Uint32(size)
        })?;
        sl = time_gets(&c, &me, attrs::LOCAL_RANK, n, b, |v| {
            matches!(v, Value::Uint16(_))
        })?;
    }

    let mut blob = vec![0xA5u8; 64];
    blob[0] = me.rank.0 as u8;
    c.put(Scope::GLOBAL, "anchor.k64", Value::ByteObject(blob))
        .map_err(perr("put"))?;
    c.commit().map_err(perr("commit"))?;
    let collect = [Info::flag(attrs::COLLECT_DATA).map_err(perr("info"))?];
    let tf = Instant::now();
    c.fence(&[], &collect).map_err(perr("fence(collect)"))?;
    let fence_us = tf.elapsed().as_secs_f64() * 1e6;

    if me.rank.0 == 0 {
        sp = time_gets(
            &c,
            &peer,
            "anchor.k64",
            n,
            b,
            |v| matches!(v, Value::ByteObject(x) if x.len() == 64 && x[0] == peer_rank as u8),
        )?;
    }

    c.fence(&[], &[]).map_err(perr("fence(sync)"))?; // the peer waits here

    let t0 = Instant::now();
    c.finalize().map_err(perr("finalize"))?;
    let fin_us = t0.elapsed().as_secs_f64() * 1e6;

    if me.rank.0 == 0 {
        let out = [
            ("np", f64::from(size)),
            ("init_us", init_us),
            ("fin_us", fin_us),
            ("first_fence_us", fence_us),
            ("job_ns", sj.med),
            ("job_p10", sj.p10),
            ("job_p90", sj.p90),
            ("lrank_ns", sl.med),
            ("lrank_p10", sl.p10),
            ("lrank_p90", sl.p90),
            ("peer_ns", sp.med),
            ("peer_p10", sp.p10),
            ("peer_p90", sp.p90),
        ];
        print_results(&out);
    }
    Ok(())
}

fn us_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e6
}

fn fence_role(iters: usize, warm: i64) -> Result<(), String> {
    let iters = iters.max(4);
    let c = Client::init(&[]).map_err(perr("init"))?;
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let size = c
        .get(&wild, attrs::JOB_SIZE, &[])
        .and_then(|v| v.to_u64())
        .map_err(perr("JOB_SIZE"))? as u32;
    let collect = [Info::flag(attrs::COLLECT_DATA).map_err(perr("info"))?];

    // collecting fence after a new 1 KiB put + commit (untimed)
    let mut tc = Vec::with_capacity(iters);
    for i in -warm..iters as i64 {
        let mut blob = vec![(i & 0xff) as u8; 1024];
        blob[0] = me.rank.0 as u8;
        c.put(Scope::GLOBAL, "anchor.blob1k", Value::ByteObject(blob))
            .map_err(perr("put"))?;
        c.commit().map_err(perr("commit"))?;
        let t0 = Instant::now();
        c.fence(&[], &collect).map_err(perr("fence(collect)"))?;
        let dt = us_since(t0);
        if i >= 0 {
            tc.push(dt);
        }
    }
    // sanity: a peer's blob is visible
    let p = Proc::from_parts(me.nspace.clone(), Rank((me.rank.0 + 1) % size));
    match c
        .get(&p, "anchor.blob1k", &[])
        .map_err(perr("get(peer blob)"))?
    {
        Value::ByteObject(b) if b.len() == 1024 && b[0] == p.rank.0 as u8 => {}
        v => return Err(format!("peer blob wrong: {v:?}")),
    }
    // sync-only fence
    let mut ts = Vec::with_capacity(iters);
    for i in -warm..iters as i64 {
        let t0 = Instant::now();
        c.fence(&[], &[]).map_err(perr("fence(sync)"))?;
        let dt = us_since(t0);
        if i >= 0 {
            ts.push(dt);
        }
    }
    // drift check: first and last quarter of the collecting fences
    let q = iters / 4;
    let c_first = stats_of(&tc[..q]).med;
    let c_last = stats_of(&tc[iters - q..]).med;
    let sc = stats_of(&tc);
    let ss = stats_of(&ts);

    // gather every rank's medians on rank 0 (after the timed part)
    let mut mine = Vec::with_capacity(16);
    mine.extend_from_slice(&sc.med.to_le_bytes());
    mine.extend_from_slice(&ss.med.to_le_bytes());
    c.put(Scope::GLOBAL, "anchor.fres", Value::ByteObject(mine))
        .map_err(perr("put(result)"))?;
    c.commit().map_err(perr("commit(result)"))?;
    c.fence(&[], &collect).map_err(perr("fence(result)"))?;
    if me.rank.0 == 0 {
        let (mut cmax, mut smax) = (0f64, 0f64);
        for r in 0..size {
            let p = Proc::from_parts(me.nspace.clone(), Rank(r));
            let b = match c.get(&p, "anchor.fres", &[]).map_err(perr("get(result)"))? {
                Value::ByteObject(b) if b.len() == 16 => b,
                v => return Err(format!("bad result blob from rank {r}: {v:?}")),
            };
            let f = |i: usize| {
                let mut a = [0u8; 8];
                a.copy_from_slice(&b[i * 8..i * 8 + 8]);
                f64::from_le_bytes(a)
            };
            cmax = cmax.max(f(0));
            smax = smax.max(f(1));
        }
        print_results(&[
            ("np", f64::from(size)),
            ("iters", iters as f64),
            ("collect_us", sc.med),
            ("collect_p10", sc.p10),
            ("collect_p90", sc.p90),
            ("collect_maxrank_us", cmax),
            ("collect_firstq_us", c_first),
            ("collect_lastq_us", c_last),
            ("sync_us", ss.med),
            ("sync_p10", ss.p10),
            ("sync_p90", ss.p90),
            ("sync_maxrank_us", smax),
        ]);
    }
    c.finalize().map_err(perr("finalize"))?;
    Ok(())
}
