//! A PMIx client driven by the spawn integration tests
//! (`launcher/tests/spawn.rs`): `spawnclient <scenario> [args]`. It prints
//! `ok` lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1. Parent scenarios spawn this same program with a
//! child scenario.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, App, Envar, Info, Proc, Rank, Status, Value};

const WAIT: Duration = Duration::from_secs(20);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn envar(key: &str, name: &str, value: &str, sep: u8) -> Info {
    Info::new(
        key,
        Value::Envar(Envar {
            envar: name.into(),
            value: value.into(),
            separator: sep,
        }),
    )
    .unwrap()
}

/// An app running this program with `args`, `n` processes.
fn me(args: &[&str], n: i32, info: Vec<Info>) -> App {
    let exe = std::env::current_exe()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut argv = vec![exe.clone()];
    argv.extend(args.iter().map(|s| s.to_string()));
    App {
        cmd: exe,
        argv,
        maxprocs: n,
        info,
        ..App::default()
    }
}

fn app(cmd: &str, n: i32) -> App {
    App {
        cmd: cmd.into(),
        argv: vec![cmd.into()],
        maxprocs: n,
        ..App::default()
    }
}

/// The `PMIX_EVENT_JOB_END` events received: (nspace, term status, exit
/// code).
#[derive(Default)]
struct Ends {
    seen: Mutex<Vec<(String, Status, i32)>>,
    cv: Condvar,
}

impl Ends {
    fn register(self: &Arc<Self>, c: &Client) {
        let me = Arc::clone(self);
        c.register_event_handler(&[Status::EVENT_JOB_END], &[], move |e, done| {
            let ns = e
                .info
                .iter()
                .find(|i| i.is(attrs::NSPACE))
                .and_then(|i| i.value.as_str().ok().map(str::to_owned))
                .unwrap_or_default();
            let st = e
                .info
                .iter()
                .find(|i| i.is(attrs::JOB_TERM_STATUS))
                .and_then(|i| match i.value {
                    Value::Status(s) => Some(s),
                    _ => None,
                })
                .unwrap_or(Status(1));
            let code = e
                .info
                .iter()
                .find(|i| i.is(attrs::EXIT_CODE))
                .and_then(|i| match i.value {
                    Value::Int(c) => Some(c),
                    _ => None,
                })
                .unwrap_or(-1);
            me.seen.lock().unwrap().push((ns, st, code));
            me.cv.notify_all();
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register JOB_END handler: {e}")));
    }

    fn wait(&self, ns: &str) -> (Status, i32) {
        let end = Instant::now() + WAIT;
        let mut g = self.seen.lock().unwrap();
        loop {
            if let Some((_, s, c)) = g.iter().find(|(n, _, _)| n == ns) {
                return (*s, *c);
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                fail(format!("no JOB_END for {ns}; seen {:?}", *g));
            }
            g = self.cv.wait_timeout(g, left).unwrap().0;
        }
    }
}

fn init() -> Client {
    Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")))
}

fn finalize(c: Client) {
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
}

/// Rank 0 spawns two children with interleaved job-level and app-level
/// environment directives and waits for their job to end.
fn parent_env(c: &Client) {
    let ends = Arc::new(Ends::default());
    ends.register(c);
    let job_info = vec![
        envar(attrs::SET_ENVAR, "T_SET", "job", 0),
        envar(attrs::ADD_ENVAR, "T_ADD", "job", 0),
        envar(attrs::ADD_ENVAR, "T_KEEP", "job", 0),
        envar(attrs::PREPEND_ENVAR, "T_PATH", "/job", b':'),
        Info::new(attrs::UNSET_ENVAR, "T_GONE").unwrap(),
        envar(attrs::APPEND_ENVAR, "T_NEW", "j", b','),
        Info::flag(attrs::NOTIFY_COMPLETION).unwrap(),
    ];
    let app_info = vec![
        envar(attrs::SET_ENVAR, "T_SET", "app", 0),
        envar(attrs::ADD_ENVAR, "T_ADD", "app", 0),
        envar(attrs::APPEND_ENVAR, "T_PATH", "/app", b':'),
        envar(attrs::ADD_ENVAR, "T_GONE", "back", 0),
        envar(attrs::PREPEND_ENVAR, "T_NEW", "a", b','),
        Info::new(attrs::UNSET_ENVAR, "T_X").unwrap(),
        envar(attrs::SET_ENVAR, "T_X", "app-x", 0),
    ];
    let mut a = me(&["child_env", &c.proc().to_string()], 2, app_info);
    a.env = vec!["T_APPENV=e".into(), "T_SET=appenv".into()];
    let ns = c
        .spawn(&job_info, &[a])
        .unwrap_or_else(|e| fail(format!("spawn: {e}")));
    check(ns != *c.nspace(), || {
        format!("spawn returned my own namespace {ns}")
    });
    println!("ok spawned {ns}");
    let (st, code) = ends.wait(ns.as_str());
    check(st == Status::SUCCESS && code == 0, || {
        format!("JOB_END of {ns}: status {st:?} code {code}")
    });
    println!("ok job end {ns} success");
}

/// A spawned child: its environment, `PMIX_PARENT_ID` and `PMIX_SPAWNED`.
fn child_env(c: &Client, parent: &str) {
    let var = |k: &str| std::env::var(k).ok();
    let want: [(&str, Option<&str>); 9] = [
        // job SET, app's NAME=VALUE before it, app SET last.
        ("T_SET", Some("app")),
        // job ADD wins over the app's ADD.
        ("T_ADD", Some("job")),
        // pmixrun's environment had it: ADD does nothing.
        ("T_KEEP", Some("base")),
        // job prepend then app append around pmixrun's value.
        ("T_PATH", Some("/job:/base:/app")),
        // job unset, app ADD recreates it.
        ("T_GONE", Some("back")),
        // created by the job's append, then the app's prepend.
        ("T_NEW", Some("a,j")),
        // pmixrun -x T_X=fromx, app unset then app set.
        ("T_X", Some("app-x")),
        ("T_APPENV", Some("e")),
        // pmixrun -x reaches spawned jobs too.
        ("T_XKEEP", Some("fromx")),
    ];
    for (k, v) in want {
        check(var(k).as_deref() == v, || {
            format!("{k} = {:?}, expected {v:?}", var(k))
        });
    }
    let me_wild = Proc::from_parts(c.nspace().clone(), Rank::WILDCARD);
    let p = c
        .get(&me_wild, attrs::PARENT_ID, &[])
        .unwrap_or_else(|e| fail(format!("get PMIX_PARENT_ID: {e}")));
    match &p {
        Value::Proc(pp) => check(pp.to_string() == parent, || {
            format!("PMIX_PARENT_ID {pp}, expected {parent}")
        }),
        v => fail(format!("PMIX_PARENT_ID is {v:?}")),
    }
    let spawned = c.get(&me_wild, attrs::SPAWNED, &[]);
    check(matches!(spawned, Ok(Value::Bool(true))), || {
        format!("PMIX_SPAWNED: {spawned:?}")
    });
    let size = c.get(&me_wild, attrs::JOB_SIZE, &[]);
    check(matches!(size, Ok(Value::Uint32(2))), || {
        format!("JOB_SIZE {size:?}")
    });
    println!("ok child {} env parent", c.proc().rank.0);
}

/// Spawns that must fail, each with its status, within the timeout; the
/// processes of a partly started job are gone when the error comes back.
/// `args`: a non-executable file, a token the partial job's command line
/// carries.
fn parent_errors(c: &Client, not_exec: &str, base: &str) {
    // Not in this process's own command line.
    let token = &format!("{base}-sleeper");
    let timeout = vec![Info::new(attrs::TIMEOUT, Value::Int(5)).unwrap()];
    let expect = |what: &str, apps: Vec<App>, want: Status| {
        let t0 = Instant::now();
        match c.spawn(&timeout, &apps) {
            Ok(ns) => fail(format!("{what}: spawned {ns}")),
            Err(e) => {
                check(e.status() == want, || {
                    format!("{what}: {e} ({:?}), expected {want:?}", e.status())
                });
                check(t0.elapsed() < Duration::from_secs(5), || {
                    format!("{what}: took {:?}", t0.elapsed())
                });
                println!("ok {what}: {e} (after {:?})", t0.elapsed());
            }
        }
    };
    expect(
        "missing",
        vec![app("/nonexistent/pmixrs-no-such-binary", 2)],
        Status::ERR_JOB_EXE_NOT_FOUND,
    );
    expect(
        "missing in PATH",
        vec![app("pmixrs-no-such-binary-in-path", 1)],
        Status::ERR_JOB_EXE_NOT_FOUND,
    );
    expect(
        "not executable",
        vec![app(not_exec, 1)],
        Status::ERR_JOB_APP_NOT_EXECUTABLE,
    );
    expect(
        "zero procs",
        vec![app("/bin/true", 0)],
        Status::ERR_BAD_PARAM,
    );
    expect("no apps", vec![], Status::ERR_BAD_PARAM);
    expect(
        "over the limit",
        vec![app("/bin/true", 4)],
        Status::ERR_JOB_INSUFFICIENT_RESOURCES,
    );
    let mut bad_wdir = app("/bin/true", 1);
    bad_wdir.cwd = "/nonexistent/pmixrs-wdir".into();
    expect("bad wdir", vec![bad_wdir], Status::ERR_JOB_WDIR_NOT_FOUND);
    // Two sleepers start, then the second app cannot: both are killed and
    // reaped before the answer.
    expect(
        "partial",
        vec![
            // `$0` carries the token; `; :` keeps sh from exec'ing sleep.
            App {
                cmd: "/bin/sh".into(),
                argv: vec![
                    "sh".into(),
                    "-c".into(),
                    "sleep 600; :".into(),
                    token.into(),
                ],
                maxprocs: 2,
                ..App::default()
            },
            app("/nonexistent/pmixrs-no-such-binary", 1),
        ],
        Status::ERR_JOB_EXE_NOT_FOUND,
    );
    let left = processes_with(token);
    check(left.is_empty(), || {
        format!("partial job left {left:?} running")
    });
    println!("ok partial job gone");
    // The session still spawns after all that.
    let ns = c
        .spawn(&[], &[app("/bin/true", 2)])
        .unwrap_or_else(|e| fail(format!("spawn after errors: {e}")));
    println!("ok spawned {ns} after errors");
}

/// Pids of processes whose command line holds `token`.
fn processes_with(token: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if cmd.split(|b| *b == 0).any(|a| a == token.as_bytes()) {
                out.push(pid);
            }
        }
    }
    out
}

/// Spawns children that exit with `code` at once and waits for the
/// job-end event (`notify`) or forever (the launcher must end the session).
fn parent_exit(c: &Client, code: &str, notify: bool) {
    let ends = Arc::new(Ends::default());
    ends.register(c);
    let mut job_info = Vec::new();
    if notify {
        job_info.push(Info::flag(attrs::NOTIFY_COMPLETION).unwrap());
    }
    let ns = c
        .spawn(&job_info, &[me(&["child_exit", code], 2, vec![])])
        .unwrap_or_else(|e| fail(format!("spawn: {e}")));
    println!("ok spawned {ns}");
    if !notify {
        // pmixrun terminates the whole session; this never returns.
        std::thread::sleep(Duration::from_secs(600));
        fail("still running after 600 s".into());
    }
    let (st, ec) = ends.wait(ns.as_str());
    let want = code.parse::<i32>().unwrap();
    check(st == Status::ERR_JOB_NON_ZERO_TERM && ec == want, || {
        format!("JOB_END of {ns}: {st:?} exit code {ec}, expected {want}")
    });
    println!("ok job end {ns} status {} code {ec}", st.0);
}

/// Spawns two shells sleeping 600 s with `token` as their `$0`, says so,
/// and sleeps (the test kills pmixrun).
fn parent_hang(c: &Client, token: &str) {
    let sleeper = App {
        cmd: "/bin/sh".into(),
        argv: vec![
            "sh".into(),
            "-c".into(),
            "sleep 600; :".into(),
            token.into(),
        ],
        maxprocs: 2,
        ..App::default()
    };
    let ns = c
        .spawn(&[], &[sleeper])
        .unwrap_or_else(|e| fail(format!("spawn: {e}")));
    println!("ok spawned {ns}");
    std::thread::sleep(Duration::from_secs(600));
}

/// A spawn with `PMIX_SPAWN_TIMEOUT` 1 s to a host that never answers:
/// `PMIX_ERR_TIMEOUT` after about 1 s.
fn spawn_timeout(c: &Client) {
    let t0 = Instant::now();
    let info = [Info::new(attrs::SPAWN_TIMEOUT, Value::Int(1)).unwrap()];
    match c.spawn(&info, &[app("/bin/true", 1)]) {
        Err(e) if e.status() == Status::ERR_TIMEOUT => {
            let took = t0.elapsed();
            check(
                took >= Duration::from_millis(900) && took < Duration::from_secs(10),
                || format!("timed out after {took:?}"),
            );
            println!("ok spawn timeout after {took:?}: {e}");
        }
        other => fail(format!("spawn to a silent host: {other:?}")),
    }
}

/// A sleeping child job with `PMIX_JOB_TIMEOUT` 1 s: pmixrun ends it and
/// the parent gets `PMIX_EVENT_JOB_END` with `PMIX_ERR_TIMEOUT`.
fn parent_job_timeout(c: &Client) {
    let ends = Arc::new(Ends::default());
    ends.register(c);
    let info = [
        Info::new(attrs::JOB_TIMEOUT, Value::Int(1)).unwrap(),
        Info::flag(attrs::NOTIFY_COMPLETION).unwrap(),
    ];
    let sleeper = App {
        cmd: "/bin/sh".into(),
        argv: vec!["sh".into(), "-c".into(), "sleep 600; :".into()],
        maxprocs: 1,
        ..App::default()
    };
    let t0 = Instant::now();
    let ns = c
        .spawn(&info, &[sleeper])
        .unwrap_or_else(|e| fail(format!("spawn: {e}")));
    let (st, _) = ends.wait(ns.as_str());
    let took = t0.elapsed();
    check(
        st == Status::ERR_TIMEOUT && took >= Duration::from_millis(900),
        || format!("JOB_END of {ns}: {st:?} after {took:?}"),
    );
    println!("ok job timeout after {took:?}");
}

/// `n` spawns of 2 × `/bin/true` one after another, each awaited through
/// its `PMIX_EVENT_JOB_END`: nothing a finished job held (client slots,
/// namespaces) may run out.
fn many_spawns(c: &Client, n: u32) {
    let ends = Arc::new(Ends::default());
    ends.register(c);
    let info = [Info::flag(attrs::NOTIFY_COMPLETION).unwrap()];
    for i in 0..n {
        let ns = c
            .spawn(&info, &[app("/bin/true", 2)])
            .unwrap_or_else(|e| fail(format!("spawn {i}: {e}")));
        let (st, _) = ends.wait(ns.as_str());
        check(st == Status::SUCCESS, || {
            format!("spawn {i}: JOB_END {st:?}")
        });
    }
    println!("ok {n} spawns");
}

/// A client speaking protocol version 4 (`PMIXRS_PROTOCOL_MAX=4`): spawn
/// is `PMIX_ERR_NOT_SUPPORTED`, nothing is started.
fn old_client(c: &Client) {
    check(c.protocol_version() == 4, || {
        format!("protocol version {}", c.protocol_version())
    });
    match c.spawn(&[], &[app("/bin/true", 1)]) {
        Err(e) if e.status() == Status::ERR_NOT_SUPPORTED => println!("ok old client: {e}"),
        other => fail(format!("spawn from a v4 client: {other:?}")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    match arg(0).as_str() {
        // Dies at once, before (and without) PMIx.
        "child_exit" => std::process::exit(arg(1).parse().unwrap_or(1)),
        "child_env" => {
            let c = init();
            child_env(&c, &arg(1));
            finalize(c);
        }
        scenario => {
            let c = init();
            if c.proc().rank.0 == 0 {
                match scenario {
                    "parent_env" => parent_env(&c),
                    "parent_errors" => parent_errors(&c, &arg(1), &arg(2)),
                    "parent_exit" => parent_exit(&c, &arg(1), true),
                    "parent_exit_no_notify" => parent_exit(&c, &arg(1), false),
                    "old_client" => old_client(&c),
                    "spawn_timeout" => spawn_timeout(&c),
                    "many_spawns" => many_spawns(&c, arg(1).parse().unwrap_or(1)),
                    "parent_job_timeout" => parent_job_timeout(&c),
                    "parent_hang" => parent_hang(&c, &format!("{}-sleeper", arg(1))),
                    s => fail(format!("unknown scenario {s:?}")),
                }
            }
            finalize(c);
        }
    }
}
