//! Tools attaching to live `pmixrun` jobs (issue 17, tools): found
//! through the rendezvous files by pid and by namespace, given an
//! identity by pmixrun, raising an event the job's handlers see; two jobs
//! at once told apart; another user's tool refused; the files gone when
//! the job ends.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pmix_client::tool::{self, Tool};
use pmix_core::{attrs, DataRange, Info, Status, Value};

mod common;
use common::toolee::{attach_by_pid, info, release, start_toolee};
use common::{example, text, wait_all};

/// A number no earlier run of this test used (names that must not clash
/// with a leftover of one).
fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

#[test]
fn a_tool_finds_two_jobs_by_pid_and_namespace_and_its_event_reaches_each_job() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, pid_a) = start_toolee(tmp.path(), 2, Stdio::piped());
    let (b, pid_b) = start_toolee(tmp.path(), 1, Stdio::piped());
    assert_ne!(pid_a, pid_b);
    // Two live servers: without a name, the tool must not guess.
    let t0 = Instant::now();
    while tool::live_servers(tmp.path()).len() < 2 {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "both servers' files"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let e = Tool::init(&[info(attrs::SERVER_TMPDIR, tmp.path().to_str().unwrap())])
        .expect_err("two servers, none named");
    assert_eq!(e.status(), Status::ERR_UNREACH);
    assert!(e.to_string().contains(&pid_a.to_string()), "{e}");

    let ta = attach_by_pid(tmp.path(), pid_a);
    assert_eq!(
        ta.proc().nspace.as_str(),
        format!("run-{pid_a}-tool-0"),
        "pmixrun mints the tool's identity"
    );
    assert_eq!(ta.server().unwrap().rendezvous.pid, pid_a);
    // By namespace: the server's own namespace names job b's server.
    let tb = Tool::init(&[
        info(attrs::SERVER_NSPACE, format!("run-{pid_b}")),
        info(attrs::SERVER_TMPDIR, tmp.path().to_str().unwrap()),
        info(attrs::TOOL_NSPACE, "mytool"),
        info(attrs::TOOL_RANK, 7u32),
    ])
    .unwrap();
    assert_eq!(tb.proc().to_string(), "mytool:7");
    assert_eq!(tb.server().unwrap().rendezvous.pid, pid_b);

    for t in [&ta, &tb] {
        t.client()
            .unwrap()
            .notify_event(Status(-3100), DataRange::SESSION, &[])
            .unwrap();
    }
    let outs = wait_all(vec![a, b], Duration::from_secs(60));
    for (o, tool) in outs.iter().zip([&ta, &tb]) {
        assert!(o.status.success(), "{}", text(o));
        let want = format!("got -3100 from {}", tool.proc());
        assert!(text(o).contains(&want), "{want}: {}", text(o));
    }
    // The servers are gone: finalize says so, and does not hang.
    for t in [ta, tb] {
        let e = t.finalize().expect_err("the server is gone");
        assert_eq!(e.status(), Status::ERR_LOST_CONNECTION);
    }
    // The job is over: its files are gone.
    let host = pmix_server::hostname();
    for pid in [pid_a, pid_b] {
        let f = tmp.path().join(format!("pmix.{host}.tool.{pid}"));
        assert!(!f.exists(), "{} left behind", f.display());
    }
}

#[test]
fn a_tool_of_another_user_is_refused_with_both_uids_named() {
    let me = common::ids().0;
    if me != 0 {
        eprintln!("skipped: running as uid {me}, cannot start a tool as nobody");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // `nobody` must be able to reach the tmpdir to try at all.
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let (job, pid) = start_toolee(tmp.path(), 1, Stdio::piped());
    let ta = attach_by_pid(tmp.path(), pid); // the job's own user: accepted
    let entry = ta.server().unwrap().clone();
    let probe = || {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(example("toolprobe"))
            .env("PMIX_SERVER_URI", &entry.rendezvous.uri)
            .output()
    };
    let first = match probe() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipped: setpriv: {e}");
            release(&ta);
            wait_all(vec![job], Duration::from_secs(60));
            return;
        }
    };
    // The socket's directory (0700) keeps it out; the tool says whose
    // server it is.
    let out = text(&first);
    assert!(!first.status.success(), "{out}");
    assert!(
        out.contains("belongs to uid 0") && out.contains("runs as uid 65534"),
        "{out}"
    );
    // With the file system opened up, the server's own check refuses it.
    let sockdir = entry.socket.parent().unwrap();
    let open = |p: &Path, m| {
        std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(m)).unwrap()
    };
    open(sockdir, 0o755);
    open(&entry.socket, 0o777);
    let second = probe().unwrap();
    let out = text(&second);
    assert!(!second.status.success(), "{out}");
    assert!(
        out.contains("runs as uid 65534, but this server") && out.contains("belongs to uid 0"),
        "{out}"
    );
    release(&ta);
    let outs = wait_all(vec![job], Duration::from_secs(60));
    assert!(outs[0].status.success(), "{}", text(&outs[0]));
}

#[test]
fn pmixrun_ends_the_job_when_its_tools_keepalive_pipe_closes() {
    // The "tool" is this test: it holds the pipe's write end (the child's
    // stdin); pmixrun reads the other end as PMIX_KEEPALIVE_PIPE=3.
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("exec 3<&0; PMIX_KEEPALIVE_PIPE=3 exec \"$0\" --timeout 60 -n 2 sleep 30")
        .arg(env!("CARGO_BIN_EXE_pmixrun"))
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    drop(child.stdin.take()); // the tool goes away
    let o = wait_all(vec![child], Duration::from_secs(60)).remove(0);
    let took = t0.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("PMIX_KEEPALIVE_PIPE"), "{}", text(&o));
    assert!(
        took < Duration::from_secs(20),
        "the job outlived its tool by {took:?}"
    );
    eprintln!("job ended {took:?} after the keepalive pipe closed");
}

#[test]
fn a_tool_speaking_an_older_protocol_is_refused_not_garbled() {
    let tmp = tempfile::tempdir().unwrap();
    let (job, pid) = start_toolee(tmp.path(), 1, Stdio::piped());
    let ta = attach_by_pid(tmp.path(), pid);
    let uri = ta.server().unwrap().rendezvous.uri.clone();
    let old = Command::new(example("toolprobe"))
        .env("PMIX_SERVER_URI", &uri)
        .env("PMIXRS_PROTOCOL_MAX", "4")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_all(vec![old], Duration::from_secs(60)).remove(0);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("PMIX_ERR_NOT_SUPPORTED")
            && text(&o).contains("tools need protocol version 5"),
        "{}",
        text(&o)
    );
    release(&ta);
    let outs = wait_all(vec![job], Duration::from_secs(60));
    assert!(outs[0].status.success(), "{}", text(&outs[0]));
}

#[test]
fn a_tool_spawns_a_job_held_in_init_and_releases_it_after_ready_for_debug() {
    use std::sync::mpsc;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (job, pid) = start_toolee(tmp.path(), 1, std::fs::File::create(&out).unwrap());
    let t = attach_by_pid(tmp.path(), pid);
    let c = t.client().unwrap();
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.register_event_handler(&[Status::READY_FOR_DEBUG], &[], move |e, done| {
        let ns = e
            .info
            .iter()
            .find(|i| i.is(attrs::NSPACE))
            .map(|i| format!("{:?}", i.value))
            .unwrap_or_default();
        let _ = tx.lock().unwrap().send(ns);
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap();
    let app = pmix_core::App {
        cmd: example("pastinit").to_string_lossy().into_owned(),
        maxprocs: 2,
        ..Default::default()
    };
    let ns = c
        .spawn(&[info(attrs::DEBUG_STOP_IN_INIT, true)], &[app])
        .unwrap();
    let ready = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("READY_FOR_DEBUG");
    assert!(ready.contains(ns.as_str()), "{ready} for {ns}");
    // Held: nobody passed init yet.
    std::thread::sleep(Duration::from_millis(300));
    let before = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(!before.contains("past init"), "{before}");
    let target = pmix_core::Proc::new(ns.as_str(), pmix_core::Rank::WILDCARD).unwrap();
    let range = info(
        attrs::EVENT_CUSTOM_RANGE,
        Value::DataArray(Box::new(pmix_core::DataArray::from_procs(vec![target]))),
    );
    c.notify_event(Status::DEBUGGER_RELEASE, DataRange::CUSTOM, &[range])
        .unwrap();
    let t0 = Instant::now();
    while std::fs::read_to_string(&out)
        .unwrap_or_default()
        .matches("past init")
        .count()
        < 2
    {
        assert!(t0.elapsed() < Duration::from_secs(30), "not released");
        std::thread::sleep(Duration::from_millis(20));
    }
    release(&t);
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
}

/// UC-15: a tool spawns a job with `PMIX_FWD_STDOUT` and pulls its
/// stdout (`PMIx_IOF_pull`): the ranks' lines reach the tool's handler,
/// tagged with their source, and not pmixrun's stdout.
#[test]
fn a_tool_gets_the_stdout_of_a_job_it_spawned_with_fwd_stdout_instead_of_pmixrun() {
    use pmix_core::proto::iof::STDOUT_CHANNEL;
    use std::sync::mpsc;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (job, pid) = start_toolee(tmp.path(), 1, std::fs::File::create(&out).unwrap());
    let t = attach_by_pid(tmp.path(), pid);
    let c = t.client().unwrap();
    let (ready_tx, ready_rx) = mpsc::channel();
    let ready_tx = std::sync::Mutex::new(ready_tx);
    c.register_event_handler(&[Status::READY_FOR_DEBUG], &[], move |_, done| {
        let _ = ready_tx.lock().unwrap().send(());
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap();
    let app = pmix_core::App {
        cmd: example("pastinit").to_string_lossy().into_owned(),
        maxprocs: 2,
        ..Default::default()
    };
    // Held in init, so that the pull is in place before the first line.
    let ns = c
        .spawn(
            &[
                info(attrs::DEBUG_STOP_IN_INIT, true),
                info(attrs::FWD_STDOUT, true),
            ],
            &[app],
        )
        .unwrap();
    ready_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("READY_FOR_DEBUG");
    let target = pmix_core::Proc::new(ns.as_str(), pmix_core::Rank::WILDCARD).unwrap();
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let id = c
        .iof_pull(
            std::slice::from_ref(&target),
            STDOUT_CHANNEL,
            move |_, src, chan, bytes| {
                let line = String::from_utf8_lossy(bytes).into_owned();
                let _ = tx.lock().unwrap().send((src.clone(), chan, line));
            },
        )
        .unwrap();
    let range = info(
        attrs::EVENT_CUSTOM_RANGE,
        Value::DataArray(Box::new(pmix_core::DataArray::from_procs(vec![target]))),
    );
    c.notify_event(Status::DEBUGGER_RELEASE, DataRange::CUSTOM, &[range])
        .unwrap();
    let mut got = Vec::new();
    while got.len() < 2 {
        let (src, chan, line) = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("forwarded output: only {got:?}"));
        assert_eq!(src.nspace, ns, "{line}");
        assert_eq!(chan, STDOUT_CHANNEL);
        assert_eq!(line, format!("past init {}\n", src.rank.0));
        got.push(src.rank.0);
    }
    got.sort_unstable();
    assert_eq!(got, [0, 1]);
    c.iof_deregister(id).unwrap();
    assert_eq!(
        c.iof_deregister(id).unwrap_err().status(),
        Status::ERR_NOT_FOUND
    );
    release(&t);
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
    let shown = std::fs::read_to_string(&out).unwrap();
    assert!(
        !shown.contains("past init"),
        "pmixrun showed the forwarded lines itself: {shown}"
    );
}

/// The tool's side of an indirect launch: its own server's host, which
/// names the launcher and hears its events.
struct LaunchingTool {
    launcher_ns: pmix_core::Nspace,
    events: std::sync::Mutex<std::sync::mpsc::Sender<(Status, Vec<Info>)>>,
}

impl pmix_server::Host for LaunchingTool {
    fn tool_connected(&self, _: &[Info], done: pmix_server::Completion<pmix_core::Proc>) {
        done(Ok(pmix_core::Proc::from_parts(
            self.launcher_ns.clone(),
            pmix_core::Rank(0),
        )));
    }

    fn notify_event(
        &self,
        status: Status,
        _: &pmix_core::Proc,
        _: DataRange,
        info: &[Info],
        done: pmix_server::Completion<()>,
    ) {
        let _ = self.events.lock().unwrap().send((status, info.to_vec()));
        done(Ok(()));
    }
}

/// UC-16: a tool runs a server of its own and starts pmixrun with
/// `PMIX_LAUNCHER_RNDZ_URI` naming it; pmixrun connects back, raises
/// `PMIX_LAUNCHER_READY`, applies the tool's `PMIX_LAUNCH_DIRECTIVES`
/// (an environment directive here) to its ranks and raises
/// `PMIX_LAUNCH_COMPLETE` with the job's namespace.
#[test]
fn pmixrun_connects_back_to_the_tool_that_started_it_and_takes_its_launch_directives() {
    use pmix_core::{DataArray, Envar, Nspace};
    use std::sync::mpsc;
    let tmp = tempfile::tempdir().unwrap();
    let launcher_ns = Nspace::new(format!("launcher-{}", rand_suffix())).unwrap();
    let (tx, rx) = mpsc::channel();
    let host = std::sync::Arc::new(LaunchingTool {
        launcher_ns: launcher_ns.clone(),
        events: std::sync::Mutex::new(tx),
    });
    let mut cfg = pmix_server::ServerConfig::new(Nspace::new("the-tool").unwrap());
    cfg.tmpdir = tmp.path().to_path_buf();
    cfg.max_clients = 4;
    let server = pmix_server::Server::init(cfg, host).unwrap();
    let directive = info(
        attrs::SET_ENVAR,
        Value::Envar(Envar {
            envar: "PMIXRS_T_DIRECTED".into(),
            value: "from-the-tool".into(),
            separator: 0,
        }),
    );
    let directives = info(
        attrs::LAUNCH_DIRECTIVES,
        Value::DataArray(Box::new(DataArray::from_infos(vec![directive]))),
    );
    server
        .register_nspace(&launcher_ns, 1, &[directives])
        .unwrap();
    let launcher_tmp = tmp.path().join("launcher");
    std::fs::create_dir(&launcher_tmp).unwrap();
    let job = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .env("TMPDIR", &launcher_tmp)
        .env("PMIX_LAUNCHER_RNDZ_URI", server.uri())
        .args([
            "--timeout",
            "60",
            "-n",
            "2",
            "printenv",
            "PMIXRS_T_DIRECTED",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = job.id();
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no {what} from pmixrun"))
    };
    let (ready, _) = next("PMIX_LAUNCHER_READY");
    assert_eq!(ready, Status::LAUNCHER_READY);
    let (complete, infos) = next("PMIX_LAUNCH_COMPLETE");
    assert_eq!(complete, Status::LAUNCH_COMPLETE);
    let ns = infos
        .iter()
        .find(|i| i.is(attrs::NSPACE))
        .map(|i| format!("{:?}", i.value))
        .expect("PMIX_NSPACE with PMIX_LAUNCH_COMPLETE");
    assert!(ns.contains(&format!("run-{pid}-job")), "{ns}");
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("from-the-tool").count(), 2, "{}", text(&o));
    server.stop();
}

/// UC-13: a tool co-launches debugger daemons through spawn
/// (`PMIX_DEBUGGER_DAEMONS` + `PMIX_DEBUG_TARGET`): with
/// `PMIX_DEBUG_DAEMONS_PER_PROC` 2 against a 2-rank job, 4 daemons run,
/// each reading its target and placement from its job data; with
/// `PMIX_DEBUG_DAEMONS_PER_NODE` 1, one; a target pmixrun does not run is
/// `PMIX_ERR_NOT_FOUND`.
#[test]
fn a_tool_co_launches_debugger_daemons_placed_per_proc_and_per_node() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (job, pid) = start_toolee(tmp.path(), 2, std::fs::File::create(&out).unwrap());
    let t = attach_by_pid(tmp.path(), pid);
    let c = t.client().unwrap();
    let target_ns = format!("run-{pid}-job");
    let target = pmix_core::Proc::new(&target_ns, pmix_core::Rank::WILDCARD).unwrap();
    let app = pmix_core::App {
        cmd: example("dbgdaemon").to_string_lossy().into_owned(),
        maxprocs: 1,
        ..Default::default()
    };
    let daemons = |placement: Info, target: &pmix_core::Proc| {
        c.spawn(
            &[
                info(attrs::DEBUGGER_DAEMONS, true),
                info(attrs::DEBUG_TARGET, Value::Proc(target.clone())),
                placement,
            ],
            std::slice::from_ref(&app),
        )
    };
    let per_proc = daemons(
        info(attrs::DEBUG_DAEMONS_PER_PROC, Value::Uint16(2)),
        &target,
    )
    .unwrap();
    let per_node = daemons(
        info(attrs::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1)),
        &target,
    )
    .unwrap();
    let elsewhere = pmix_core::Proc::new("not-a-job-here", pmix_core::Rank::WILDCARD).unwrap();
    let err = daemons(
        info(attrs::DEBUG_DAEMONS_PER_NODE, Value::Uint16(1)),
        &elsewhere,
    )
    .unwrap_err();
    assert_eq!(err.status(), Status::ERR_NOT_FOUND, "{err}");
    assert_ne!(per_proc, per_node);
    let daemon_lines = || -> Vec<String> {
        let all = std::fs::read_to_string(&out).unwrap_or_default();
        all.lines()
            .filter(|l| l.starts_with("daemon "))
            .map(str::to_owned)
            .collect()
    };
    let t0 = Instant::now();
    while daemon_lines().len() < 5 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "daemons so far: {}",
            std::fs::read_to_string(&out).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let lines = daemon_lines();
    let target_s = format!("target {target_ns}:{:?}", pmix_core::Rank::WILDCARD);
    for r in 0..4 {
        let want = format!("daemon {r} of 4 {target_s} per-proc 2 serves {}", r / 2);
        assert!(lines.contains(&want), "{want} missing: {lines:?}");
    }
    let want = format!("daemon 0 of 1 {target_s} per-proc 0 serves all");
    assert!(lines.contains(&want), "{want} missing: {lines:?}");
    assert_eq!(lines.len(), 5, "{lines:?}");
    release(&t);
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
}

/// UC-15, fault: the requestor of a `PMIX_FWD_STDOUT` job goes away
/// before the job writes: pmixrun shows the lines itself, none is lost.
#[test]
fn forwarded_lines_fall_back_to_pmixrun_when_the_requestor_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (job, pid) = start_toolee(tmp.path(), 1, std::fs::File::create(&out).unwrap());
    let t = attach_by_pid(tmp.path(), pid);
    let app = pmix_core::App {
        cmd: "/bin/sh".into(),
        argv: vec!["sh".into(), "-c".into(), "sleep 0.5; echo late-line".into()],
        maxprocs: 1,
        ..Default::default()
    };
    t.client()
        .unwrap()
        .spawn(&[info(attrs::FWD_STDOUT, true)], &[app])
        .unwrap();
    t.finalize().unwrap();
    let t0 = Instant::now();
    while !std::fs::read_to_string(&out)
        .unwrap_or_default()
        .contains("late-line")
    {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the line of a job whose requestor left was lost"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    release(&attach_by_pid(tmp.path(), pid));
    let o = wait_all(vec![job], Duration::from_secs(60)).remove(0);
    assert!(o.status.success(), "{}", text(&o));
}
