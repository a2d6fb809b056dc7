//! What a subcommand measures: the list of jobs ([`Spec`]) with their
//! sizes, rows and limits. Every job has a native form (this binary's
//! `client` roles) and, unless it measures something only pmix-rs has, a
//! C-driver form with the same arguments and protocol.

use crate::cli::{Opts, Progress, Range, What};
use crate::machine::{FUTEX, LINE, PIPE};
use crate::sides::JOB_WALL;

/// One figure a job prints, and the row it goes to.
#[derive(Clone, Debug)]
pub struct Out {
    /// The `SAMPLES` or `RESULT` name.
    pub key: &'static str,
    /// The row.
    pub row: String,
    /// A `RESULT` rate (ev/s) rather than `SAMPLES` latencies.
    pub rate: bool,
    /// The limit the row is quoted against.
    pub limit: Option<&'static str>,
}

/// One job: `np` ranks running a measurement.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The measurement family (`notify`, `fence`, …).
    pub family: &'static str,
    /// Ranks.
    pub np: u32,
    /// The progress mode (pmix-rs sides), or the client's default.
    pub progress: Option<Progress>,
    /// The role's arguments.
    pub args: Vec<String>,
    /// Whether the C driver can run it.
    pub c_abi: bool,
    /// Whether the job needs a fresh counter segment (fan-out).
    pub counter: bool,
    /// What it prints.
    pub outs: Vec<Out>,
}

/// The sizes of a run.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Timed iterations of a latency loop.
    pub iters: u64,
    /// Its untimed warm-up.
    pub warm: u64,
    /// Its time budget (ms), once 100 samples are taken.
    pub budget_ms: u64,
    /// Events of a PROC_LOCAL burst, and per producer of the throughput
    /// job.
    pub burst: u64,
    /// Gets per key.
    pub gets: u64,
    /// Timed fences.
    pub fences: u64,
    /// Init jobs per np (every rank gives one sample per job).
    pub inits: u32,
}

impl Sizes {
    /// The sizes `o` asks for (`--quick`, `--iters`, `--duration`).
    pub fn of(o: &Opts) -> Sizes {
        let q = o.quick;
        let iters = o.iters.unwrap_or(if q { 200 } else { 20_000 }).max(1);
        let budget_ms = o
            .duration
            .map_or(if q { 200 } else { 2_000 }, |s| (s * 1000.0) as u64);
        Sizes {
            iters,
            warm: (iters / 10).clamp(10, 500),
            budget_ms,
            burst: o.burst.unwrap_or(if q || !o.compare_lib.is_empty() {
                10_000
            } else {
                1_000_000
            }),
            gets: if q { 2_000 } else { 100_000 },
            fences: o.iters.unwrap_or(if q { 20 } else { 1_000 }),
            inits: if q { 1 } else { 10 },
        }
    }
}

fn progress_name(p: Progress) -> &'static str {
    match p {
        Progress::Spin => "spin",
        Progress::Sleep => "sleep",
    }
}

fn limit_of(p: Progress) -> &'static str {
    match p {
        Progress::Spin => LINE,
        Progress::Sleep => FUTEX,
    }
}

/// `spin` or `yield`: how a polling main thread waits, given how many
/// threads spin at once on `ncpu` CPUs (yield unless one CPU stays free).
pub fn wait_mode(spinners: usize, ncpu: usize) -> &'static str {
    // leave a CPU to the rest of the machine (and to sleeping threads)
    if spinners >= ncpu {
        "yield"
    } else {
        "spin"
    }
}

/// The jobs of `what` with options `o` on `ncpu` CPUs, and notes on what
/// was left out.
pub fn plan(what: &What, o: &Opts, ncpu: usize) -> (Vec<Spec>, Vec<String>) {
    let mut notes = Vec::new();
    let z = Sizes::of(o);
    let all = matches!(what, What::All(_));
    let want = |w: fn(&What) -> bool| all || w(what);
    let progress: Vec<Progress> = if o.progress.is_empty() {
        vec![Progress::Spin, Progress::Sleep]
    } else {
        o.progress.clone()
    };
    let nps = |d: &[u32]| -> Vec<u32> {
        if o.np.is_empty() {
            d.to_vec()
        } else {
            o.np.clone()
        }
    };
    let (iters, warm, budget) = (
        z.iters.to_string(),
        z.warm.to_string(),
        z.budget_ms.to_string(),
    );
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    let mut jobs = Vec::new();

    if want(|w| matches!(w, What::Notify(_))) {
        let ranges = if o.range.is_empty() {
            vec![Range::Custom, Range::Local]
        } else {
            o.range.clone()
        };
        for &r in &ranges {
            for &p in &progress {
                let spinners = 2 + 2 * usize::from(p == Progress::Spin);
                let wait = wait_mode(spinners, ncpu);
                let tag = format!("{}, {}", r.label(), progress_name(p));
                for (role, c_abi, name) in [
                    ("notify", true, "notify one-way"),
                    ("notify-chain", false, "notify one-way handler→handler"),
                ] {
                    if role == "notify" && p == Progress::Spin && spinners > ncpu {
                        // two spinning progress threads and two polling
                        // main threads on fewer CPUs measure time slices
                        notes.push(format!(
                            "skipped notify one-way {tag}: {spinners} spinning threads on {ncpu} CPUs \
                             (the handler→handler row is the spinning figure)"
                        ));
                        continue;
                    }
                    jobs.push(Spec {
                        family: "notify",
                        np: 2,
                        progress: Some(p),
                        args: s(&[role, r.arg(), wait, &iters, &warm, &budget]),
                        c_abi,
                        counter: false,
                        outs: vec![Out {
                            key: "oneway",
                            row: format!("{name} {tag}"),
                            rate: false,
                            limit: Some(limit_of(p)),
                        }],
                    });
                }
            }
        }
    }
    if want(|w| matches!(w, What::ProcLocal(_))) {
        // producer threads for the threaded burst: one per CPU, at least 2;
        // a job of its own, so that a library that fails it (OpenPMIx 4.2
        // crashes) keeps its other rows
        let threads = ncpu.clamp(2, 64) as u64;
        let burst = z.burst.to_string();
        for &p in &progress {
            let wait = wait_mode(1 + usize::from(p == Progress::Spin), ncpu);
            let tag = progress_name(p);
            let role = |iters: &str, warm: &str, threads: u64| {
                s(&[
                    "proc-local",
                    wait,
                    iters,
                    warm,
                    &burst,
                    &budget,
                    &threads.to_string(),
                ])
            };
            jobs.push(Spec {
                family: "proc-local",
                np: 1,
                progress: Some(p),
                args: role(&iters, &warm, 1),
                c_abi: true,
                counter: false,
                outs: vec![
                    Out {
                        key: "oneway",
                        row: format!("PROC_LOCAL one-way, {tag}"),
                        rate: false,
                        limit: Some(limit_of(p)),
                    },
                    Out {
                        key: "burst_ev_s",
                        row: format!("PROC_LOCAL burst of {} from 1 thread, {tag}", z.burst),
                        rate: true,
                        limit: None,
                    },
                ],
            });
            jobs.push(Spec {
                family: "proc-local",
                np: 1,
                progress: Some(p),
                args: role("0", "0", threads),
                c_abi: true,
                counter: false,
                outs: vec![Out {
                    key: "mt_burst_ev_s",
                    row: format!(
                        "PROC_LOCAL burst of {} from {threads} threads, {tag}",
                        z.burst / threads * threads
                    ),
                    rate: true,
                    limit: None,
                }],
            });
        }
    }
    if want(|w| matches!(w, What::Fanout(_))) {
        let ranges = if o.range.is_empty() || all {
            vec![Range::Namespace]
        } else {
            o.range.clone()
        };
        for &r in &ranges {
            for n in nps(if o.quick { &[2] } else { &[2, 4, 8] }) {
                let n = n.max(1);
                let wait = wait_mode(n as usize + 1, ncpu);
                let its = (z.iters / 10).max(20).to_string();
                let wm = "10".to_owned();
                let tag = format!("{} to {n}", r.label());
                jobs.push(Spec {
                    family: "fanout",
                    np: n + 1,
                    progress: None,
                    args: s(&["fanout", r.arg(), wait, &its, &wm, &budget]),
                    c_abi: false,
                    counter: true,
                    outs: vec![
                        Out {
                            key: "call",
                            row: format!("fan-out {tag}: sender's call"),
                            rate: false,
                            limit: None,
                        },
                        Out {
                            key: "last",
                            row: format!("fan-out {tag}: last handler ran"),
                            rate: false,
                            limit: Some(FUTEX),
                        },
                    ],
                });
            }
        }
    }
    if want(|w| matches!(w, What::Throughput(_))) {
        for np in nps(&[2]) {
            let np = np.max(2);
            jobs.push(Spec {
                family: "throughput",
                np,
                progress: None,
                args: s(&["throughput", &z.burst.to_string()]),
                c_abi: true,
                counter: false,
                outs: vec![Out {
                    key: "recv_ev_s",
                    row: format!(
                        "client→peer throughput, {} producer(s) × {} events",
                        np - 1,
                        z.burst
                    ),
                    rate: true,
                    limit: None,
                }],
            });
        }
    }
    if want(|w| matches!(w, What::Get(_))) {
        jobs.push(Spec {
            family: "get",
            np: 2,
            progress: None,
            args: s(&["get", &z.gets.to_string(), "100"]),
            c_abi: true,
            counter: false,
            outs: vec![
                Out {
                    key: "job_key",
                    row: "get job key (JOB_SIZE)".into(),
                    rate: false,
                    limit: None,
                },
                Out {
                    key: "peer_key",
                    row: "get peer's 64 B key".into(),
                    rate: false,
                    limit: None,
                },
            ],
        });
    }
    if want(|w| matches!(w, What::Fence(_))) {
        for np in nps(if o.quick { &[2, 4] } else { &[2, 4, 8] }) {
            jobs.push(Spec {
                family: "fence",
                np: np.max(1),
                progress: None,
                args: s(&["fence", &z.fences.to_string(), "10"]),
                c_abi: true,
                counter: false,
                outs: vec![Out {
                    key: "fence",
                    row: format!("fence 1 KiB collect, np {np}"),
                    rate: false,
                    limit: Some(PIPE),
                }],
            });
        }
    }
    if want(|w| matches!(w, What::Init(_))) {
        for np in nps(if o.quick { &[2] } else { &[2, 8] }) {
            jobs.extend((0..z.inits).map(|_| Spec {
                family: "init",
                np: np.max(1),
                progress: None,
                args: s(&["init"]),
                c_abi: true,
                counter: false,
                outs: vec![
                    Out {
                        key: "init",
                        row: format!("PMIx_Init, np {np}"),
                        rate: false,
                        limit: None,
                    },
                    Out {
                        key: JOB_WALL,
                        row: format!("whole job (launcher start → exit), np {np}"),
                        rate: false,
                        limit: None,
                    },
                ],
            }));
        }
    }
    (jobs, notes)
}
