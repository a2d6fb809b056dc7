//! Running one job: server setup, spawning, supervision, teardown.

use std::io::IsTerminal;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::{Info, Nspace, Proc, Rank};
use pmix_server::{Server, ServerConfig, SingleNodeJob};

use crate::cli::{Export, Options};
use crate::debugger;
use crate::host::{EventState, Events, LauncherHost};
use crate::output::{tag, Forwarders, Sink};
use crate::session_dir::SessionDir;
use crate::watchdog::Watchdog;

/// Exit status when the job timed out (as `timeout(1)`).
pub const EXIT_TIMEOUT: i32 = 124;
/// Exit status when the program cannot be executed.
pub const EXIT_NOEXEC: i32 = 127;
/// Exit status when pmixrun itself fails (server setup, registration).
pub const EXIT_INTERNAL: i32 = 1;

/// Time between SIGTERM and SIGKILL when the job is terminated.
const GRACE: Duration = Duration::from_secs(2);
/// How long a forwarder may wait for input after the last child ended
/// before pmixrun stops waiting for it (a grandchild still holds its pipe).
const DRAIN_IDLE: Duration = Duration::from_millis(250);

/// Why the job ended early or failed; the first one observed decides the
/// exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Failure {
    /// A rank exited with a non-zero status.
    Exit { rank: u32, pid: u32, code: i32 },
    /// A rank was killed by a signal.
    Signal { rank: u32, pid: u32, signal: i32 },
    /// A rank called `PMIx_Abort`.
    Abort {
        rank: u32,
        status: i32,
        message: String,
    },
    /// A rank connected to the server and exited (status 0) without
    /// calling finalize.
    NoFinalize { rank: u32, pid: u32 },
    /// `--timeout` expired.
    Timeout(Duration),
    /// The program could not be started.
    NoExec { program: String, error: String },
    /// pmixrun itself failed while starting the job.
    Internal(String),
}

impl Failure {
    fn exit_code(&self) -> i32 {
        match self {
            Failure::Exit { code, .. } => *code,
            Failure::Signal { signal, .. } => 128 + signal,
            Failure::Abort { status, .. } => (*status).clamp(1, 255),
            Failure::NoFinalize { .. } => 1,
            Failure::Timeout(_) => EXIT_TIMEOUT,
            Failure::NoExec { .. } => EXIT_NOEXEC,
            Failure::Internal(_) => EXIT_INTERNAL,
        }
    }

    fn message(&self) -> String {
        match self {
            Failure::Exit { rank, pid, code } => {
                format!("pmixrun: rank {rank} (pid {pid}) exited with status {code}")
            }
            Failure::Signal { rank, pid, signal } => format!(
                "pmixrun: rank {rank} (pid {pid}) was killed by signal {signal}{}",
                signal_name(*signal).map_or(String::new(), |n| format!(" ({n})"))
            ),
            Failure::Abort {
                rank,
                status,
                message,
            } => format!("pmixrun: rank {rank} called abort with status {status}: {message}"),
            Failure::NoFinalize { rank, pid } => {
                format!("pmixrun: rank {rank} (pid {pid}) exited without calling finalize")
            }
            Failure::Timeout(t) => {
                format!("pmixrun: job timed out after {} s", t.as_secs_f64())
            }
            Failure::NoExec { program, error } => {
                format!("pmixrun: cannot execute {program:?}: {error}")
            }
            Failure::Internal(msg) => format!("pmixrun: {msg}"),
        }
    }
}

/// The usual Linux name of signal `sig`.
fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => return None,
    })
}

/// How a rank ended, from its wait status and what it told the server.
fn classify(rank: u32, pid: u32, status: ExitStatus, ev: &EventState) -> Option<Failure> {
    let r = rank as usize;
    if let Some(signal) = status.signal() {
        return Some(Failure::Signal { rank, pid, signal });
    }
    let code = status.code().unwrap_or(1);
    if code != 0 {
        return Some(Failure::Exit { rank, pid, code });
    }
    let connected = ev.connected.get(r).copied().unwrap_or(false);
    let finalized = ev.finalized.get(r).copied().unwrap_or(false);
    (connected && !finalized).then_some(Failure::NoFinalize { rank, pid })
}

/// One started rank.
#[derive(Debug)]
struct Rankproc {
    rank: u32,
    pid: u32,
    child: Child,
    ended: bool,
}

/// Signals process group `pgid` with `kill -s SIG -- -PGID`, or a shell's
/// builtin `kill -SIG -PGID` when there is no kill(1) in `PATH` (dash's
/// builtin takes neither `-s SIG -PGID` nor `--`); `false` when neither
/// could be run.
fn signal_group(pgid: u32, sig: &str) -> bool {
    let quiet = |c: &mut Command| {
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    let target = format!("-{pgid}");
    quiet(Command::new("kill").args(["-s", sig, "--", &target]))
        || quiet(Command::new("sh").args(["-c", "kill -\"$1\" \"$2\"", "sh", sig, &target]))
}

/// The running job: its children, their process group, and the state of
/// termination.
#[derive(Debug)]
struct Supervisor {
    procs: Vec<Rankproc>,
    pgid: Option<u32>,
    failure: Option<Failure>,
    term_sent: Option<Instant>,
    kill_sent: bool,
}

impl Supervisor {
    fn running(&self) -> usize {
        self.procs.iter().filter(|p| !p.ended).count()
    }

    fn fail(&mut self, f: Failure) {
        if self.failure.is_none() {
            self.failure = Some(f);
        }
    }

    /// Reaps every child that ended; returns their indices.
    fn reap(&mut self) -> Vec<(usize, ExitStatus)> {
        let mut out = Vec::new();
        for (i, p) in self.procs.iter_mut().enumerate().filter(|(_, p)| !p.ended) {
            match p.child.try_wait() {
                Ok(Some(st)) => {
                    p.ended = true;
                    out.push((i, st));
                }
                Ok(None) => {}
                Err(e) => {
                    eprintln!(
                        "pmixrun: cannot wait for rank {} (pid {}): {e}",
                        p.rank, p.pid
                    );
                    p.ended = true;
                    out.push((i, ExitStatus::from_raw(1 << 8)));
                }
            }
        }
        out
    }

    /// One step of terminating the job: SIGTERM to the group first, SIGKILL
    /// to the group and every remaining child [`GRACE`] later.
    fn terminate_step(&mut self, now: Instant) {
        if self.running() == 0 {
            return;
        }
        match self.term_sent {
            None => {
                let sent = self.pgid.is_some_and(|g| signal_group(g, "TERM"));
                self.term_sent = Some(now);
                if !sent {
                    self.kill_all();
                }
            }
            Some(t) if !self.kill_sent && now.duration_since(t) >= GRACE => self.kill_all(),
            Some(_) => {}
        }
    }

    fn kill_all(&mut self) {
        if let Some(g) = self.pgid {
            signal_group(g, "KILL");
        }
        for p in self.procs.iter_mut().filter(|p| !p.ended) {
            let _ = p.child.kill();
        }
        self.kill_sent = true;
    }

    /// Polls the children until every one ended, terminating the job on the
    /// first failure, abort or timeout.
    fn run(&mut self, events: &Events, deadline: Option<(Instant, Duration)>) {
        let poll = poll_interval(self.procs.len());
        loop {
            // Reap first, then read the events: a client's abort or
            // finalize is recorded before the server answers it, so before
            // the client can exit.
            let exited = self.reap();
            let ev = events.snapshot();
            if ev.keepalive_lost {
                self.fail(Failure::Internal(format!(
                    "{}: the tool that launched this job went away; terminating the job",
                    crate::keepalive::KEEPALIVE_PIPE
                )));
            }
            if let Some(a) = &ev.abort {
                self.fail(Failure::Abort {
                    rank: a.rank,
                    status: a.status,
                    message: a.message.clone(),
                });
            }
            for (i, st) in exited {
                let p = &self.procs[i];
                if let Some(f) = classify(p.rank, p.pid, st, &ev) {
                    self.fail(f);
                }
            }
            let now = Instant::now();
            if let Some((at, t)) = deadline {
                if now >= at {
                    self.fail(Failure::Timeout(t));
                }
            }
            if self.running() == 0 {
                return;
            }
            if self.failure.is_some() {
                self.terminate_step(now);
            }
            events.wait(poll);
        }
    }
}

/// Between 1 and 5 ms: short for small jobs, longer where every poll costs
/// one `waitpid` per rank.
fn poll_interval(n: usize) -> Duration {
    Duration::from_micros((1000 + 20 * n as u64).min(5000))
}

/// The uid and gid pmixrun runs as (the owner of `/proc/self`).
fn launcher_ids() -> std::io::Result<(u32, u32)> {
    let m = std::fs::metadata("/proc/self")?;
    Ok((m.uid(), m.gid()))
}

/// The `-x` variables, resolved against pmixrun's environment.
fn exported_env(exports: &[Export]) -> Vec<(String, String)> {
    exports
        .iter()
        .filter_map(|e| match e {
            Export::Set(k, v) => Some((k.clone(), v.clone())),
            Export::Inherit(k) => std::env::var(k).ok().map(|v| (k.clone(), v)),
        })
        .collect()
}

/// Tools that may be attached to a job at once.
const TOOL_SLOTS: u32 = 8;

/// The server, the job's registrations and its directories.
struct Setup {
    server: Server,
    nspace: Nspace,
    procs: Vec<Proc>,
    events: Arc<Events>,
    dirs: SessionDir,
}

impl Setup {
    fn new(np: u32, verbose: bool, extra: Vec<Info>) -> Result<Setup, String> {
        let pid = std::process::id();
        let ns = |s: String| Nspace::new(&s).map_err(|e| format!("bad namespace {s:?}: {e}"));
        let server_ns = ns(format!("pmixrun-{pid}"))?;
        let nspace = ns(format!("pmixrun-{pid}-job"))?;
        // Removed again on every early return (drop).
        let dirs = SessionDir::create(&std::env::temp_dir(), &nspace)?;
        let events = Arc::new(Events::new(np));
        let host = Arc::new(LauncherHost::new(nspace.clone(), Arc::clone(&events)));
        let mut cfg = ServerConfig::new(server_ns);
        // The ranks, and room for tools attached at once (`pmix ps`, a
        // debugger): each holds a client slot while attached.
        cfg.max_clients = np.max(1) + TOOL_SLOTS;
        cfg.tmpdir = std::env::temp_dir();
        // The server's notes on dropped connections are noise when pmixrun
        // kills a job; `-v` shows them.
        cfg.log = verbose;
        // Room for the per-rank job data of big jobs.
        cfg.job_store_bytes = cfg.job_store_bytes.max(np as usize * 2048);
        let hostname = cfg.hostname.clone();
        let server =
            Server::init(cfg, host).map_err(|e| format!("cannot start the PMIx server: {e}"))?;
        let (uid, gid) = launcher_ids().map_err(|e| format!("cannot read /proc/self: {e}"))?;
        let procs: Vec<Proc> = (0..np)
            .map(|r| Proc::from_parts(nspace.clone(), Rank(r)))
            .collect();
        let setup = Setup {
            server,
            nspace,
            procs,
            events,
            dirs,
        };
        // Clients first, then the namespace (the C API's order).
        for p in &setup.procs {
            if let Err(e) = setup.server.register_client(p, uid, gid) {
                let msg = format!("cannot register {p}: {e}");
                setup.teardown();
                return Err(msg);
            }
        }
        let infos = SingleNodeJob::new(setup.nspace.clone(), np, hostname)
            .with_dirs(setup.dirs.tmpdir(), setup.dirs.nsdir())
            .infos()
            .map(|mut i| {
                i.extend(extra);
                i
            });
        let registered = infos.and_then(|i| setup.server.register_nspace(&setup.nspace, np, &i));
        if let Err(e) = registered {
            let msg = format!("cannot register namespace {}: {e}", setup.nspace);
            setup.teardown();
            return Err(msg);
        }
        Ok(setup)
    }

    /// Deregisters the clients and the namespace, finalizes the server and
    /// removes the job's directories (a failure to is reported on stderr).
    fn teardown(self) {
        for p in &self.procs {
            let _ = self.server.deregister_client(p);
        }
        let _ = self.server.deregister_nspace(&self.nspace);
        self.server.finalize();
        for msg in self.dirs.remove() {
            eprintln!("pmixrun: {msg}");
        }
    }
}

/// Runs the job `opts` describes and returns pmixrun's exit status (see the
/// crate documentation for the table). Messages go to stderr, the ranks'
/// output to stdout / stderr.
pub fn run(opts: &Options) -> i32 {
    let mut extra = Vec::new();
    if let Some(ranks) = &opts.stop_in_init {
        let ns = format!("pmixrun-{}-job", std::process::id());
        match Nspace::new(&ns).and_then(|ns| debugger::stop_in_init_info(&ns, ranks)) {
            Ok(i) => extra.push(i),
            Err(e) => {
                eprintln!("pmixrun: --stop-in-init: {e}");
                return EXIT_INTERNAL;
            }
        }
    }
    let setup = match Setup::new(opts.np, opts.verbose, extra) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pmixrun: {e}");
            return EXIT_INTERNAL;
        }
    };
    if let Err(e) =
        report(&setup.server, opts).and_then(|()| crate::keepalive::watch(&setup.events))
    {
        eprintln!("pmixrun: {e}");
        setup.teardown();
        return EXIT_INTERNAL;
    }
    let mut sup = Supervisor {
        procs: Vec::with_capacity(opts.np as usize),
        pgid: None,
        failure: None,
        term_sent: None,
        kill_sent: false,
    };
    let mut fwd = Forwarders::new();
    let mut watchdog = Watchdog::start(
        setup.server.socket_path(),
        setup.dirs.path(),
        &setup.dirs.identity(),
        (&setup.server.uri(), &setup.server.rendezvous_files()),
    );
    spawn_all(opts, &setup, &mut sup, &mut fwd, watchdog.as_mut());
    let deadline = opts.timeout.map(|t| (Instant::now() + t, t));
    let over = std::sync::Mutex::new(false);
    std::thread::scope(|s| {
        if let Some(ranks) = &opts.stop_in_init {
            let targets = debugger::targets(opts.np, ranks);
            let (setup, over) = (&setup, &over);
            s.spawn(move || {
                debugger::announce_when_waiting(
                    &setup.server,
                    &setup.events,
                    &setup.nspace,
                    &targets,
                    over,
                )
            });
        }
        sup.run(&setup.events, deadline);
        *over.lock().unwrap_or_else(|e| e.into_inner()) = true;
    });
    // The watchdog stays until the directories are gone.
    setup.teardown();
    if let Some(w) = watchdog {
        w.dismiss();
    }
    fwd.finish(DRAIN_IDLE);
    match &sup.failure {
        None => 0,
        Some(f) => {
            eprintln!("{}", f.message());
            f.exit_code()
        }
    }
}

/// Writes `text` and a newline to `dest`: `-` stdout, `+` stderr, else
/// a file.
fn write_report(dest: &str, text: &str) -> Result<(), String> {
    use std::io::Write;
    let line = format!("{text}\n");
    match dest {
        "-" => std::io::stdout().write_all(line.as_bytes()),
        "+" => std::io::stderr().write_all(line.as_bytes()),
        path => std::fs::write(path, line),
    }
    .map_err(|e| format!("cannot write {dest}: {e}"))
}

/// `--report-uri` / `--report-pid`: the server's URI and pmixrun's pid,
/// for scripts and tools, once the server listens.
fn report(server: &Server, opts: &Options) -> Result<(), String> {
    if let Some(dest) = &opts.report_uri {
        write_report(dest, &server.uri())?;
    }
    if let Some(dest) = &opts.report_pid {
        write_report(dest, &std::process::id().to_string())?;
    }
    Ok(())
}

/// Starts every rank (in one new process group, led by rank 0, which the
/// watchdog is told) and its forwarders; on a failure records it in `sup`
/// and starts no more.
fn spawn_all(
    opts: &Options,
    setup: &Setup,
    sup: &mut Supervisor,
    fwd: &mut Forwarders,
    mut watchdog: Option<&mut Watchdog>,
) {
    let n = opts.np;
    let exports = exported_env(&opts.exports);
    // Rank 0 reads pmixrun's stdin, unless it is a terminal: the ranks run
    // in a background process group, where reading one stops them.
    let stdin_ok = !std::io::stdin().is_terminal();
    for (rank, proc) in (0..n).zip(&setup.procs) {
        let fork_env = match setup.server.setup_fork(proc) {
            Ok(v) => v,
            Err(e) => {
                sup.fail(Failure::Internal(format!(
                    "setup_fork for rank {rank}: {e}"
                )));
                break;
            }
        };
        let mut cmd = Command::new(&opts.program);
        cmd.args(&opts.args)
            .envs(exports.iter().map(|(k, v)| (k, v)))
            .env("OMPI_COMM_WORLD_SIZE", n.to_string())
            .env("OMPI_COMM_WORLD_RANK", rank.to_string())
            .env("OMPI_COMM_WORLD_LOCAL_RANK", rank.to_string())
            .env("OMPI_COMM_WORLD_LOCAL_SIZE", n.to_string())
            .envs(fork_env.iter().map(|(k, v)| (k, v)))
            .stdin(if rank == 0 && stdin_ok {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // 0: a new group led by this child (rank 0).
            .process_group(sup.pgid.and_then(|g| i32::try_from(g).ok()).unwrap_or(0));
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                sup.fail(Failure::NoExec {
                    program: opts.program.clone(),
                    error: e.to_string(),
                });
                break;
            }
        };
        let pid = child.id();
        // Only this process (or one it starts, such as the program a
        // wrapper script runs) may connect as this rank.
        let _ = setup.server.set_client_pid(proc, pid);
        if sup.pgid.is_none() {
            sup.pgid = Some(pid);
            if let Some(w) = watchdog.as_deref_mut() {
                w.watch_group(pid);
            }
        }
        let streams = [
            child
                .stdout
                .take()
                .map(|s| (Box::new(s) as Box<dyn std::io::Read + Send>, Sink::Stdout)),
            child
                .stderr
                .take()
                .map(|s| (Box::new(s) as Box<dyn std::io::Read + Send>, Sink::Stderr)),
        ];
        sup.procs.push(Rankproc {
            rank,
            pid,
            child,
            ended: false,
        });
        for (src, sink) in streams.into_iter().flatten() {
            let prefix = opts.tag_output.then(|| tag(rank, sink));
            if let Err(e) = fwd.spawn(src, sink, prefix, format!("pmixrun-io-{rank}")) {
                sup.fail(Failure::Internal(format!(
                    "cannot start an output thread for rank {rank}: {e}"
                )));
            }
        }
        if sup.failure.is_some() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(connected: bool, finalized: bool) -> EventState {
        EventState {
            debug_waiting: Vec::new(),
            keepalive_lost: false,
            connected: vec![connected],
            finalized: vec![finalized],
            abort: None,
        }
    }

    #[test]
    fn classification() {
        let ok = ExitStatus::from_raw(0);
        let three = ExitStatus::from_raw(3 << 8);
        let segv = ExitStatus::from_raw(11);
        assert_eq!(classify(0, 9, ok, &ev(false, false)), None);
        assert_eq!(classify(0, 9, ok, &ev(true, true)), None);
        assert_eq!(
            classify(0, 9, ok, &ev(true, false)),
            Some(Failure::NoFinalize { rank: 0, pid: 9 })
        );
        assert_eq!(
            classify(0, 9, three, &ev(true, false)),
            Some(Failure::Exit {
                rank: 0,
                pid: 9,
                code: 3
            })
        );
        assert_eq!(
            classify(0, 9, segv, &ev(false, false)),
            Some(Failure::Signal {
                rank: 0,
                pid: 9,
                signal: 11
            })
        );
    }

    #[test]
    fn exit_codes_and_messages() {
        let abort = |status| Failure::Abort {
            rank: 1,
            status,
            message: "bye".into(),
        };
        assert_eq!(abort(7).exit_code(), 7);
        assert_eq!(abort(0).exit_code(), 1);
        assert_eq!(abort(-5).exit_code(), 1);
        assert_eq!(abort(1000).exit_code(), 255);
        assert_eq!(
            abort(7).message(),
            "pmixrun: rank 1 called abort with status 7: bye"
        );
        let sig = Failure::Signal {
            rank: 2,
            pid: 5,
            signal: 9,
        };
        assert_eq!(sig.exit_code(), 137);
        assert_eq!(
            sig.message(),
            "pmixrun: rank 2 (pid 5) was killed by signal 9 (SIGKILL)"
        );
        let t = Failure::Timeout(Duration::from_millis(500));
        assert_eq!(t.exit_code(), 124);
        assert_eq!(t.message(), "pmixrun: job timed out after 0.5 s");
        assert_eq!(
            Failure::NoFinalize { rank: 0, pid: 1 }.message(),
            "pmixrun: rank 0 (pid 1) exited without calling finalize"
        );
    }

    #[test]
    fn poll_interval_bounds() {
        assert!(poll_interval(1) >= Duration::from_millis(1));
        assert!(poll_interval(100_000) <= Duration::from_millis(5));
    }
}
