//! Starting one job's processes, the same way for the job pmixrun starts
//! and for the jobs its processes spawn: each from a [`ProcPlan`], with
//! the PMIx environment `setup_fork` gives, in one new process group led by
//! the job's first process (which the watchdog is told), stdout and stderr
//! forwarded (tagged `[JOB,RANK]` with `--tag-output`).

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use pmix_core::envar::EnvEdits;
use pmix_core::{Nspace, Proc, Rank, Status};
use pmix_server::Server;

use crate::children::{JobProcs, Rankproc};
use crate::failure::Failure;
use crate::output::{tag, Forwarders, Route, Sink};
use crate::stdin_push::StdinPipes;
use crate::watchdog::Watchdog;
use pmix_core::proto::iof;

/// How to start one process.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProcPlan {
    /// Rank in its job.
    pub rank: u32,
    /// The program (looked up in `PATH` when it has no `/`).
    pub program: String,
    /// `argv[0]`, when it differs from the program.
    pub argv0: Option<String>,
    /// The arguments after `argv[0]`.
    pub args: Vec<String>,
    /// Changes to pmixrun's environment.
    pub env: EnvEdits,
    /// Working directory (pmixrun's when `None`).
    pub cwd: Option<PathBuf>,
    /// What its stdin is.
    pub stdin: StdinFrom,
}

/// Where a process's stdin comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum StdinFrom {
    /// `/dev/null`.
    #[default]
    Null,
    /// pmixrun's own stdin.
    Pmixrun,
    /// A pipe pmixrun holds, fed by `PMIx_IOF_push` (`stdin_push.rs`).
    Pushed,
}

/// Why a job could not be started completely.
#[derive(Debug)]
pub(crate) struct LaunchError {
    /// As pmixrun reports it.
    pub failure: Failure,
    /// As a spawner is told.
    pub status: Status,
    /// A message for the spawner.
    pub message: String,
}

/// What starting a job needs from pmixrun.
pub(crate) struct Launcher<'a> {
    /// The server (for `setup_fork` and the clients' pids).
    pub server: &'a Server,
    /// The output forwarders.
    pub fwd: &'a mut Forwarders,
    /// The watchdog, told each job's process group.
    pub watchdog: Option<&'a mut Watchdog>,
    /// `--tag-output`.
    pub tag_output: bool,
    /// The stdin pipes of [`StdinFrom::Pushed`] processes.
    pub stdin_pipes: &'a StdinPipes,
}

/// The status a spawner gets when `program` cannot be started.
fn exec_status(e: &std::io::Error) -> Status {
    match e.kind() {
        std::io::ErrorKind::NotFound => Status::ERR_JOB_EXE_NOT_FOUND,
        std::io::ErrorKind::PermissionDenied => Status::ERR_JOB_APP_NOT_EXECUTABLE,
        _ => Status::ERR_JOB_FAILED_TO_LAUNCH,
    }
}

impl Launcher<'_> {
    /// Starts the processes of job number `job` (namespace `nspace`, `size`
    /// ranks) as `plans` say, in order. On a failure the processes already
    /// started stay in the returned [`JobProcs`] (the caller decides
    /// whether to kill them) and no more are started.
    pub(crate) fn launch(
        &mut self,
        job: u32,
        nspace: &Nspace,
        size: u32,
        plans: &[ProcPlan],
        to_tool: Option<(&Proc, u16)>,
    ) -> (JobProcs, Option<LaunchError>) {
        let mut procs = JobProcs::default();
        for plan in plans {
            if let Err(e) = self.launch_one(job, nspace, size, plan, to_tool, &mut procs) {
                return (procs, Some(e));
            }
        }
        (procs, None)
    }

    fn launch_one(
        &mut self,
        job: u32,
        nspace: &Nspace,
        size: u32,
        plan: &ProcPlan,
        to_tool: Option<(&Proc, u16)>,
        procs: &mut JobProcs,
    ) -> Result<(), LaunchError> {
        let rank = plan.rank;
        let internal = |msg: String| LaunchError {
            failure: Failure::Internal(msg.clone()),
            status: Status::ERR_JOB_FAILED_TO_LAUNCH,
            message: msg,
        };
        let proc = Proc::from_parts(nspace.clone(), Rank(rank));
        let fork_env = self
            .server
            .setup_fork(&proc)
            .map_err(|e| internal(format!("setup_fork for {proc}: {e}")))?;
        let mut cmd = Command::new(&plan.program);
        if let Some(a0) = &plan.argv0 {
            std::os::unix::process::CommandExt::arg0(&mut cmd, a0);
        }
        cmd.args(&plan.args);
        for (k, v) in plan.env.changes() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(d) = &plan.cwd {
            cmd.current_dir(d);
        }
        cmd.env("OMPI_COMM_WORLD_SIZE", size.to_string())
            .env("OMPI_COMM_WORLD_RANK", rank.to_string())
            .env("OMPI_COMM_WORLD_LOCAL_RANK", rank.to_string())
            .env("OMPI_COMM_WORLD_LOCAL_SIZE", size.to_string())
            .envs(fork_env.iter().map(|(k, v)| (k, v)))
            .stdin(match plan.stdin {
                StdinFrom::Null => Stdio::null(),
                StdinFrom::Pmixrun => Stdio::inherit(),
                StdinFrom::Pushed => Stdio::piped(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // 0: a new group led by this child (the job's first).
        std::os::unix::process::CommandExt::process_group(
            &mut cmd,
            procs.pgid.and_then(|g| i32::try_from(g).ok()).unwrap_or(0),
        );
        let mut child = cmd.spawn().map_err(|e| LaunchError {
            failure: Failure::NoExec {
                program: plan.program.clone(),
                error: e.to_string(),
            },
            status: exec_status(&e),
            message: format!("cannot execute {:?}: {e}", plan.program),
        })?;
        let pid = child.id();
        if let Some(pipe) = child.stdin.take() {
            self.stdin_pipes
                .add(&proc, pipe)
                .map_err(|e| internal(format!("cannot start a stdin thread for {proc}: {e}")))?;
        }
        // Only this process (or one it starts, such as the program a
        // wrapper script runs) may connect as this rank.
        let _ = self.server.set_client_pid(&proc, pid);
        if procs.pgid.is_none() {
            procs.pgid = Some(pid);
            if let Some(w) = self.watchdog.as_deref_mut() {
                w.watch_group(pid);
            }
        }
        let streams = [
            child
                .stdout
                .take()
                .map(|s| (Box::new(s) as Box<dyn Read + Send>, Sink::Stdout)),
            child
                .stderr
                .take()
                .map(|s| (Box::new(s) as Box<dyn Read + Send>, Sink::Stderr)),
        ];
        procs.procs.push(Rankproc {
            rank,
            pid,
            child,
            ended: false,
        });
        for (src, sink) in streams.into_iter().flatten() {
            let prefix = self.tag_output.then(|| tag(job, rank, sink));
            let channel = match sink {
                Sink::Stdout => iof::STDOUT_CHANNEL,
                Sink::Stderr => iof::STDERR_CHANNEL,
            };
            let route = Route {
                iof: self.server.iof_sender(),
                source: proc.clone(),
                channel,
                requestor: to_tool
                    .filter(|(_, chans)| chans & channel != 0)
                    .map(|(p, _)| p.clone()),
            };
            let name = format!("pmixrun-io-{job}-{rank}");
            self.fwd
                .spawn(src, sink, prefix, Some(route), name)
                .map_err(|e| internal(format!("cannot start an output thread for {proc}: {e}")))?;
        }
        Ok(())
    }
}
