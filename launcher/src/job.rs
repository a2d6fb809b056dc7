//! Running the session: server setup, the first job, the jobs its
//! processes spawn, supervision of every job, teardown.

use std::io::IsTerminal;
use std::os::unix::fs::MetadataExt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::envar::{EnvDirective, EnvEdits};
use pmix_core::{DataRange, Envar, Error, Info, Nspace, Proc, Rank, Status};
use pmix_server::{Server, ServerConfig, SingleNodeJob};

use crate::children::JobProcs;
use crate::cli::{Export, Options};
use crate::debugger;
use crate::failure::{classify, Failure, Who};
use crate::host::{Events, LauncherHost, SpawnRequest};
use crate::launch::{Launcher, ProcPlan, StdinFrom};
use crate::mpi_env;
use crate::output::Forwarders;
use crate::session_dir::SessionDir;
use crate::spawn::{job_end_infos, SpawnContext};
use crate::watchdog::Watchdog;

pub use crate::failure::{EXIT_INTERNAL, EXIT_NOEXEC, EXIT_TIMEOUT};

/// How long a forwarder may wait for input after the last child ended
/// before pmixrun stops waiting for it (a grandchild still holds its pipe).
const DRAIN_IDLE: Duration = Duration::from_millis(250);

/// One job of the session: the first (number 1) or a spawned one.
#[derive(Debug)]
struct JobRun {
    /// 1 for the job pmixrun started, 2, 3, … for spawned jobs.
    number: u32,
    nspace: Nspace,
    /// Its registered clients (deregistered when it ends).
    ranks: Vec<Proc>,
    procs: JobProcs,
    /// The process whose spawn started it.
    parent: Option<Proc>,
    /// The parent asked for `PMIX_NOTIFY_COMPLETION`.
    notify: bool,
    /// `PMIX_JOB_TIMEOUT`: when, and the timeout.
    deadline: Option<(Instant, Duration)>,
    /// This job's first failure.
    failure: Option<Failure>,
    /// Its end was handled (event sent, registrations removed).
    finished: bool,
    /// The ranks held in init for a debugger, until all of them wait and
    /// the job's `PMIX_READY_FOR_DEBUG` went out (`debugger.rs`).
    debug_wait: Option<Vec<usize>>,
}

impl JobRun {
    /// Whether a failure of this job ends every job: always for the first
    /// job; for a spawned one unless its parent asked to be notified.
    fn fatal(&self) -> bool {
        self.number == 1 || !self.notify
    }
}

/// The running session: every job and the state of termination.
#[derive(Debug)]
struct Supervisor {
    jobs: Vec<JobRun>,
    /// The first failure of any job: it decides the exit status.
    failure: Option<Failure>,
    /// Every job is being terminated.
    ending: bool,
    /// `--spawn-slots`.
    spawn_slots: u32,
    /// pmixrun's own environment edits (`-x`), the base of every job's.
    base_env: EnvEdits,
    /// Number of the next spawned job (a failed spawn uses one up too, so
    /// a namespace is never reused).
    next_job: u32,
}

impl Supervisor {
    fn fail_all(&mut self, f: Failure) {
        if self.failure.is_none() {
            self.failure = Some(f);
        }
        self.ending = true;
    }

    /// A failure of job `j`: recorded for the exit status; ends every job
    /// when the job is [fatal](JobRun::fatal), otherwise only that one.
    fn job_failed(&mut self, j: usize, f: Failure) {
        let job = &mut self.jobs[j];
        if job.failure.is_none() {
            job.failure = Some(f.clone());
        }
        if job.fatal() {
            self.fail_all(f);
        } else if self.failure.is_none() {
            self.failure = Some(f);
        }
    }

    fn running(&self) -> usize {
        self.jobs.iter().map(|j| j.procs.running()).sum()
    }

    /// Spawned processes not reaped yet.
    fn spawned_running(&self) -> u32 {
        self.jobs
            .iter()
            .filter(|j| j.number > 1)
            .map(|j| j.procs.running() as u32)
            .sum()
    }

    /// Who `proc` is, by its job.
    fn who(&self, proc: &Proc) -> Who {
        let job = self
            .jobs
            .iter()
            .find(|j| j.nspace == proc.nspace)
            .map_or(1, |j| j.number);
        Who {
            job,
            rank: proc.rank.0,
        }
    }

    /// Polls every job until all processes ended, starting the jobs
    /// clients spawn, terminating on failures, aborts and the timeout.
    fn run(
        &mut self,
        setup: &Setup,
        launcher: &mut Launcher<'_>,
        deadline: Option<(Instant, Duration)>,
    ) {
        loop {
            for req in setup.events.take_spawns() {
                self.spawn(req, setup, launcher);
            }
            // Reap first, then read the events: a client's abort or
            // finalize is recorded before the server answers it, so before
            // the client can exit.
            let exited: Vec<_> = self.jobs.iter_mut().map(|j| j.procs.reap()).collect();
            let ev = setup.events.snapshot();
            for job in &mut self.jobs {
                let ready = job
                    .debug_wait
                    .as_ref()
                    .is_some_and(|t| debugger::all_waiting(&ev.job(&job.nspace), t));
                if ready {
                    debugger::announce(&setup.server, &job.nspace);
                    job.debug_wait = None;
                }
            }
            if ev.keepalive_lost {
                self.fail_all(Failure::Internal(format!(
                    "{}: the tool that launched this session went away; terminating every job",
                    crate::keepalive::KEEPALIVE_PIPE
                )));
            }
            if let Some(a) = &ev.abort {
                let who = self.who(&a.proc);
                self.fail_all(Failure::Abort {
                    who,
                    status: a.status,
                    message: a.message.clone(),
                });
            }
            for (j, ended) in exited.into_iter().enumerate() {
                let job_ev = ev.job(&self.jobs[j].nspace);
                for (i, st) in ended {
                    let job = &self.jobs[j];
                    let p = &job.procs.procs[i];
                    let who = Who {
                        job: job.number,
                        rank: p.rank,
                    };
                    if let Some(f) = classify(who, p.pid, st, &job_ev) {
                        self.job_failed(j, f);
                    }
                }
            }
            let now = Instant::now();
            if let Some((at, t)) = deadline {
                if now >= at {
                    self.fail_all(Failure::Timeout(t));
                }
            }
            for j in 0..self.jobs.len() {
                let job = &self.jobs[j];
                match job.deadline {
                    Some((at, t))
                        if now >= at && job.failure.is_none() && job.procs.running() > 0 =>
                    {
                        self.job_failed(j, Failure::Timeout(t));
                    }
                    _ => {}
                }
            }
            for j in 0..self.jobs.len() {
                if self.jobs[j].number > 1
                    && !self.jobs[j].finished
                    && self.jobs[j].procs.running() == 0
                {
                    self.finish(j, &setup.server, &setup.events);
                }
            }
            if self.running() == 0 {
                return;
            }
            let ending = self.ending;
            for job in &mut self.jobs {
                if ending || job.failure.is_some() {
                    job.procs.terminate_step(now);
                }
            }
            setup.events.wait(poll_interval(self.running()));
        }
    }

    /// A spawned job ended: its parent gets `PMIX_EVENT_JOB_END` when it
    /// asked for it; its clients and namespace are deregistered (its slots
    /// free for the next spawn).
    fn finish(&mut self, j: usize, server: &Server, events: &Events) {
        let job = &mut self.jobs[j];
        job.finished = true;
        events.remove_job(&job.nspace);
        if let (true, Some(parent)) = (job.notify, &job.parent) {
            let (status, code) = job
                .failure
                .as_ref()
                .map_or((Status::SUCCESS, 0), |f| (f.term_status(), f.exit_code()));
            let sent = job_end_infos(&job.nspace, parent, status, code).and_then(|info| {
                server.notify(Status::EVENT_JOB_END, None, DataRange::CUSTOM, &info)
            });
            if let Err(e) = sent {
                eprintln!(
                    "pmixrun: cannot tell {parent} that job {} ended: {e}",
                    job.nspace
                );
            }
        }
        release(server, &job.ranks, &job.nspace);
    }

    /// Starts the job `req` asks for and answers it (see `spawn.rs`).
    fn spawn(&mut self, req: SpawnRequest, setup: &Setup, launcher: &mut Launcher<'_>) {
        if self.ending {
            (req.done)(Err(Error::with_context(
                Status::ERR_JOB_CANCELED,
                "spawn: pmixrun is terminating the session",
            )));
            return;
        }
        let number = self.next_job;
        self.next_job += 1;
        match self.start_spawned(&req, number, setup, launcher) {
            Ok(job) => {
                let ns = job.nspace.clone();
                self.jobs.push(job);
                (req.done)(Ok(ns));
            }
            Err(e) => (req.done)(Err(e)),
        }
    }

    fn start_spawned(
        &self,
        req: &SpawnRequest,
        number: u32,
        setup: &Setup,
        launcher: &mut Launcher<'_>,
    ) -> Result<JobRun, Error> {
        let internal = |m: String| Error::with_context(Status::ERR_JOB_FAILED_TO_LAUNCH, m);
        let name = format!("{}{number}", setup.nspace.as_str());
        let nspace = Nspace::new(&name)?;
        let nsdir = setup.dirs.add_job(&nspace).map_err(internal)?;
        let jobs: Vec<(Nspace, u32)> = self
            .jobs
            .iter()
            .filter(|j| !j.finished)
            .map(|j| (j.nspace.clone(), j.procs.procs.len() as u32))
            .collect();
        let ctx = SpawnContext {
            jobs: &jobs,
            nspace: &nspace,
            hostname: &setup.hostname,
            dirs: (setup.dirs.tmpdir(), &nsdir),
            base_env: &self.base_env,
            slots_left: self.spawn_slots.saturating_sub(self.spawned_running()),
        };
        let plan = crate::spawn::plan(req, &ctx).inspect_err(|_| setup.dirs.remove_job(&nspace))?;
        let ranks: Vec<Proc> = (0..plan.size)
            .map(|r| Proc::from_parts(nspace.clone(), Rank(r)))
            .collect();
        let mut registered = Vec::new();
        let mut reg = || -> Result<(), Error> {
            for p in &ranks {
                setup.server.register_client(p, setup.uid, setup.gid)?;
                registered.push(p.clone());
            }
            setup
                .server
                .register_nspace(&nspace, plan.size, &plan.infos)
        };
        if let Err(e) = reg() {
            release(&setup.server, &registered, &nspace);
            setup.dirs.remove_job(&nspace);
            return Err(internal(format!("cannot register job {nspace}: {e}")));
        }
        setup.events.add_job(&nspace, plan.size);
        let to_tool = (plan.fwd_channels != 0).then_some((&req.requestor, plan.fwd_channels));
        let (mut procs, err) = launcher.launch(number, &nspace, plan.size, &plan.procs, to_tool);
        if let Some(e) = err {
            procs.kill_and_reap();
            release(&setup.server, &ranks, &nspace);
            setup.dirs.remove_job(&nspace);
            return Err(Error::with_context(
                e.status,
                format!("spawn: {}", e.message),
            ));
        }
        Ok(JobRun {
            number,
            nspace,
            ranks,
            procs,
            parent: Some(req.requestor.clone()),
            notify: plan.notify,
            deadline: plan.job_timeout.map(|t| (Instant::now() + t, t)),
            failure: None,
            finished: false,
            debug_wait: plan.debug_wait,
        })
    }
}

/// Deregisters `ranks` and `nspace` (what is not registered is skipped).
fn release(server: &Server, ranks: &[Proc], nspace: &Nspace) {
    for p in ranks {
        let _ = server.deregister_client(p);
    }
    let _ = server.deregister_nspace(nspace);
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

/// The `-x` requests as environment directives (`PMIX_SET_ENVAR`), applied
/// by the same rules as a spawn's ([`pmix_core::envar`]); `-x VAR` of an
/// unset (or non-UTF-8) `VAR` is skipped.
/// What every launched process's environment gets on top of pmixrun's
/// own: the Slurm step variables that make Open MPI 4.1 take pmixrun for
/// its launcher (unless `--no-slurm-env`; `mpi_env.rs`), then the `-x`
/// variables.
fn launch_env(opts: &Options, hostname: &str) -> EnvEdits {
    let mut edits = EnvEdits::new();
    if opts.slurm_env {
        for (k, v) in
            mpi_env::slurm_step_env(std::process::id(), hostname, |k| std::env::var(k).ok())
        {
            edits.set(&k, &v);
        }
    }
    export_edits(edits, &opts.exports)
}

fn export_edits(mut edits: EnvEdits, exports: &[Export]) -> EnvEdits {
    let base = |k: &str| std::env::var(k).ok();
    for e in exports {
        let (name, value) = match e {
            Export::Set(k, v) => (k.clone(), v.clone()),
            Export::Inherit(k) => match base(k) {
                Some(v) => (k.clone(), v),
                None => continue,
            },
        };
        let d = EnvDirective::Set(Envar {
            envar: name,
            value,
            separator: 0,
        });
        edits.apply(&d, base);
    }
    edits
}

/// Tools that may be attached at once (`pmix ps`, a debugger): each
/// holds a client slot while attached.
const TOOL_SLOTS: u32 = 8;

/// The server, the first job's registrations and the directories.
struct Setup {
    server: Server,
    host: Arc<LauncherHost>,
    /// This host's name, as the job data gives it.
    hostname: String,
    nspace: Nspace,
    procs: Vec<Proc>,
    events: Arc<Events>,
    dirs: SessionDir,
    uid: u32,
    gid: u32,
}

impl Setup {
    fn new(np: u32, spawn_slots: u32, verbose: bool, extra: Vec<Info>) -> Result<Setup, String> {
        let pid = std::process::id();
        let ns = |s: String| Nspace::new(&s).map_err(|e| format!("bad namespace {s:?}: {e}"));
        let server_ns = ns(format!("run-{pid}"))?;
        let nspace = ns(format!("run-{pid}-job"))?;
        // Removed again on every early return (drop).
        let dirs = SessionDir::create(&std::env::temp_dir(), &nspace)?;
        let events = Arc::new(Events::new());
        events.add_job(&nspace, np);
        let host_handle = Arc::new(LauncherHost::new(Arc::clone(&events)));
        let host: Arc<dyn pmix_server::Host> = Arc::clone(&host_handle) as _;
        let mut cfg = ServerConfig::new(server_ns);
        cfg.max_clients = np
            .max(1)
            .saturating_add(spawn_slots)
            .saturating_add(TOOL_SLOTS);
        cfg.tmpdir = std::env::temp_dir();
        // The server's notes on dropped connections are noise when pmixrun
        // kills a job; `-v` shows them.
        cfg.log = verbose;
        // Room for the per-rank job data of big jobs.
        cfg.job_store_bytes = cfg
            .job_store_bytes
            .max((np as usize + spawn_slots as usize) * 2048);
        let hostname = cfg.hostname.clone();
        let server =
            Server::init(cfg, host).map_err(|e| format!("cannot start the PMIx server: {e}"))?;
        let (uid, gid) = launcher_ids().map_err(|e| format!("cannot read /proc/self: {e}"))?;
        let procs: Vec<Proc> = (0..np)
            .map(|r| Proc::from_parts(nspace.clone(), Rank(r)))
            .collect();
        let setup = Setup {
            server,
            host: Arc::clone(&host_handle),
            hostname,
            nspace,
            procs,
            events,
            dirs,
            uid,
            gid,
        };
        // Clients first, then the namespace (the C API's order).
        for p in &setup.procs {
            if let Err(e) = setup.server.register_client(p, uid, gid) {
                let msg = format!("cannot register {p}: {e}");
                setup.teardown();
                return Err(msg);
            }
        }
        let infos = SingleNodeJob::new(setup.nspace.clone(), np, setup.hostname.clone())
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
        release(&self.server, &self.procs, &self.nspace);
        self.server.finalize();
        for msg in self.dirs.remove() {
            eprintln!("pmixrun: {msg}");
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

/// Defines the `--pset` process sets before any rank starts (each rank's
/// `PMIX_PSET_NAMES` is then there at init, and the define events wait in
/// the server's cache).
fn define_psets(setup: &Setup, opts: &Options) -> Result<(), String> {
    for p in &opts.psets {
        let members: Vec<Proc> = p
            .ranks_in(opts.np)
            .map_err(|e| e.0)?
            .into_iter()
            .map(|r| Proc::from_parts(setup.nspace.clone(), Rank(r)))
            .collect();
        setup
            .server
            .define_process_set(&p.name, &members)
            .map_err(|e| format!("cannot define process set {}: {e}", p.name))?;
    }
    Ok(())
}

/// Runs the job `opts` describes (and the jobs its processes spawn) and
/// returns pmixrun's exit status (see the crate documentation for the
/// table). Messages go to stderr, the ranks' output to stdout / stderr.
pub fn run(opts: &Options) -> i32 {
    // the job's command line, as tools see it (`PMIX_QUERY_NAMESPACE_INFO`)
    let cmd_line = std::iter::once(opts.program.as_str())
        .chain(opts.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let mut extra: Vec<Info> = Info::new(
        pmix_core::attrs::CMD_LINE,
        pmix_core::Value::String(cmd_line),
    )
    .into_iter()
    .collect();
    if let Some(ranks) = &opts.stop_in_init {
        let ns = format!("run-{}-job", std::process::id());
        match Nspace::new(&ns).and_then(|ns| debugger::stop_in_init_info(&ns, ranks)) {
            Ok(i) => extra.push(i),
            Err(e) => {
                eprintln!("pmixrun: --stop-in-init: {e}");
                return EXIT_INTERNAL;
            }
        }
    }
    let setup = match Setup::new(opts.np, opts.spawn_slots, opts.verbose, extra) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pmixrun: {e}");
            return EXIT_INTERNAL;
        }
    };
    if let Some(t) = opts.timeout {
        setup.host.set_deadline(Instant::now() + t);
    }
    if let Err(e) = define_psets(&setup, opts) {
        eprintln!("pmixrun: {e}");
        setup.teardown();
        return crate::EXIT_USAGE;
    }
    if let Err(e) =
        report(&setup.server, opts).and_then(|()| crate::keepalive::watch(&setup.events))
    {
        eprintln!("pmixrun: {e}");
        setup.teardown();
        return EXIT_INTERNAL;
    }
    let rndz = match crate::indirect::Rendezvous::connect_back() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pmixrun: cannot connect back to the tool that started it: {e}");
            setup.teardown();
            return EXIT_INTERNAL;
        }
    };
    let mut base_env = launch_env(opts, &setup.hostname);
    if let Some((_, directives)) = &rndz {
        match base_env.with_directives(directives, &[], |k| std::env::var(k).ok()) {
            Ok(e) => base_env = e,
            Err(e) => {
                eprintln!("pmixrun: the tool's PMIX_LAUNCH_DIRECTIVES: {e}");
                if let Some((r, _)) = rndz {
                    r.finish();
                }
                setup.teardown();
                return EXIT_INTERNAL;
            }
        }
    }
    let rndz = rndz.map(|(r, _)| r);
    let mut sup = Supervisor {
        jobs: Vec::new(),
        failure: None,
        ending: false,
        spawn_slots: opts.spawn_slots,
        base_env,
        next_job: 2,
    };
    let mut fwd = Forwarders::new();
    let mut watchdog = Watchdog::start(
        setup.server.socket_path(),
        setup.dirs.path(),
        &setup.dirs.identity(),
        (&setup.server.uri(), &setup.server.rendezvous_files()),
    );
    {
        let mut launcher = Launcher {
            server: &setup.server,
            fwd: &mut fwd,
            watchdog: watchdog.as_mut(),
            tag_output: opts.tag_output,
            stdin_pipes: setup.host.stdin_pipes(),
        };
        // Rank 0 reads pmixrun's stdin, unless it is a terminal: the ranks
        // run in a background process group, where reading one stops them.
        let stdin_ok = !std::io::stdin().is_terminal();
        let plans: Vec<ProcPlan> = (0..opts.np)
            .map(|rank| ProcPlan {
                rank,
                program: opts.program.clone(),
                argv0: None,
                args: opts.args.clone(),
                env: sup.base_env.clone(),
                cwd: None,
                stdin: if rank == 0 && stdin_ok {
                    StdinFrom::Pmixrun
                } else {
                    StdinFrom::Null
                },
            })
            .collect();
        let (procs, err) = launcher.launch(1, &setup.nspace, opts.np, &plans, None);
        sup.jobs.push(JobRun {
            number: 1,
            nspace: setup.nspace.clone(),
            ranks: Vec::new(),
            procs,
            parent: None,
            notify: false,
            deadline: None,
            failure: None,
            finished: false,
            debug_wait: opts
                .stop_in_init
                .as_ref()
                .map(|r| debugger::targets(opts.np, r)),
        });
        if let Some(e) = err {
            sup.job_failed(0, e.failure);
        } else if let Some(r) = &rndz {
            r.launched(&setup.nspace);
        }
        let deadline = opts.timeout.map(|t| (Instant::now() + t, t));
        sup.run(&setup, &mut launcher, deadline);
        // Requests that came too late (their requestors are gone).
        for req in setup.events.take_spawns() {
            (req.done)(Err(Error::with_context(
                Status::ERR_JOB_CANCELED,
                "spawn: pmixrun is terminating the session",
            )));
        }
        for j in 0..sup.jobs.len() {
            if sup.jobs[j].number > 1 && !sup.jobs[j].finished {
                sup.finish(j, &setup.server, &setup.events);
            }
        }
    }
    // Every rank ended well, none spoke PMIx: an MPI program's ranks ran
    // alone (a failed job has its own message).
    if sup.failure.is_none() {
        let any_connected = setup.events.snapshot().any_connected;
        if let Some(note) = mpi_env::singleton_note(&opts.program, opts.np, any_connected) {
            eprintln!("{note}");
        }
    }
    if let Some(r) = rndz {
        r.finish();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poll_interval_bounds() {
        assert!(poll_interval(1) >= Duration::from_millis(1));
        assert!(poll_interval(100_000) <= Duration::from_millis(5));
    }

    #[test]
    fn exports_are_set_directives() {
        let e = export_edits(
            EnvEdits::new(),
            &[
                Export::Set("PMIXRS_T_A".into(), "1".into()),
                Export::Set("PMIXRS_T_A".into(), "2".into()),
                Export::Inherit("PMIXRS_T_SURELY_UNSET".into()),
            ],
        );
        let changes: Vec<_> = e.changes().collect();
        assert_eq!(changes, [("PMIXRS_T_A", Some("2"))]);
    }
}
