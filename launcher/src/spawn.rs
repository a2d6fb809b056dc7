//! Planning a job a client asked for with `PMIx_Spawn`: its size, the
//! environment, working directory and command line of each process, and
//! the job data registered for it; and the `PMIX_EVENT_JOB_END` event its
//! requestor gets with `PMIX_NOTIFY_COMPLETION`.
//!
//! # The environment of a spawned process
//! pmixrun's environment, then pmixrun's own directives (`-x`), then the
//! app's `NAME=VALUE` entries, then the spawn's job-level environment
//! directives, then the app's own, each list in order
//! ([`pmix_core::envar`]); finally the `OMPI_COMM_WORLD_*` variables and
//! what `setup_fork` gives (which no directive can override).
//!
//! # Errors a spawner gets (nothing started, nothing registered)
//! | Problem                                          | Status |
//! |--------------------------------------------------|--------|
//! | no app, an app without a command, `maxprocs` < 1 | `PMIX_ERR_BAD_PARAM` |
//! | a malformed environment directive or `env` entry | `PMIX_ERR_BAD_PARAM` |
//! | more processes than `--spawn-slots` has free     | `PMIX_ERR_JOB_INSUFFICIENT_RESOURCES` |
//! | the working directory does not exist             | `PMIX_ERR_JOB_WDIR_NOT_FOUND` |
//! | the executable does not exist (at exec)          | `PMIX_ERR_JOB_EXE_NOT_FOUND` |
//! | it is not executable (at exec)                   | `PMIX_ERR_JOB_APP_NOT_EXECUTABLE` |
//!
//! `PMIX_JOB_TIMEOUT` (seconds) ends the job as a failure (`PMIX_ERR_TIMEOUT`
//! in its `PMIX_EVENT_JOB_END`) when it runs longer.
//!
//! The last two are found when a process is started: the processes of
//! the job started before it are killed and reaped, and its registrations
//! removed, before the spawner is answered.

use std::path::PathBuf;

use pmix_core::envar::EnvEdits;
use pmix_core::{attrs, DataArray, Error, Info, Nspace, Proc, Rank, Result, Status, Value};
use pmix_server::SingleNodeJob;

use crate::host::SpawnRequest;
use crate::launch::{ProcPlan, StdinFrom};

/// Default of `--spawn-slots`: how many spawned processes may run at once.
pub const DEFAULT_SPAWN_SLOTS: u32 = 64;

/// A spawned job, ready to register and start.
#[derive(Debug)]
pub(crate) struct SpawnPlan {
    /// Number of processes (of every app).
    pub size: u32,
    /// One per process, in rank order.
    pub procs: Vec<ProcPlan>,
    /// The job data to register.
    pub infos: Vec<Info>,
    /// `PMIX_NOTIFY_COMPLETION`: send `PMIX_EVENT_JOB_END` to the
    /// requestor.
    pub notify: bool,
    /// `PMIX_JOB_TIMEOUT`: the job is terminated (as a failure) after this
    /// long.
    pub job_timeout: Option<std::time::Duration>,
    /// `PMIX_DEBUG_STOP_IN_INIT`: the ranks held in init for a debugger
    /// (`debugger.rs`).
    pub debug_wait: Option<Vec<usize>>,
    /// `PMIX_FWD_STDOUT` / `PMIX_FWD_STDERR`: the channels whose lines go
    /// to the requestor instead of pmixrun's streams.
    pub fwd_channels: u16,
}

/// Where the spawned job lives.
#[derive(Debug)]
pub(crate) struct SpawnContext<'a> {
    /// The new namespace.
    pub nspace: &'a Nspace,
    /// This node's name.
    pub hostname: &'a str,
    /// `PMIX_TMPDIR` and the job's `PMIX_NSDIR`.
    pub dirs: (&'a str, &'a str),
    /// pmixrun's own environment edits (`-x`).
    pub base_env: &'a EnvEdits,
    /// Spawned processes that may still start.
    pub slots_left: u32,
    /// pmixrun's jobs and their sizes (debug targets).
    pub jobs: &'a [(Nspace, u32)],
}

fn flag(infos: &[Info], key: &str) -> bool {
    pmix_core::info::find(infos, key).is_some_and(|i| !matches!(i.value, Value::Bool(false)))
}

fn wdir(infos: &[Info]) -> Option<String> {
    pmix_core::info::find(infos, attrs::WDIR)
        .and_then(|i| i.value.as_str().ok())
        .map(str::to_owned)
}

/// Plans the job `req` asks for.
///
/// # Errors
/// See the module documentation.
pub(crate) fn plan(req: &SpawnRequest, ctx: &SpawnContext<'_>) -> Result<SpawnPlan> {
    if req.apps.is_empty() {
        return Err(Error::bad_param("spawn: no application given"));
    }
    if let Some(i) = pmix_core::info::find(&req.job_info, attrs::DEBUG_STOP_ON_EXEC) {
        if !matches!(i.value, Value::Bool(false)) {
            return Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "spawn: PMIX_DEBUG_STOP_ON_EXEC is not supported (pmixrun cannot stop a \
                 process at exec without ptrace); use PMIX_DEBUG_STOP_IN_INIT",
            ));
        }
    }
    let daemons = crate::debug_daemons::placement(&req.job_info, req.apps.len(), ctx.jobs)?;
    let placed: Vec<pmix_core::App>;
    let apps: &[pmix_core::App] = match daemons.as_ref().and_then(|d| d.count) {
        Some(n) => {
            placed = req
                .apps
                .iter()
                .map(|a| pmix_core::App {
                    maxprocs: n as _,
                    ..a.clone()
                })
                .collect();
            &placed
        }
        None => &req.apps,
    };
    let mut size: u64 = 0;
    for (i, a) in apps.iter().enumerate() {
        if a.cmd.is_empty() {
            return Err(Error::bad_param(format!("spawn: app {i} has no command")));
        }
        if a.maxprocs < 1 {
            return Err(Error::bad_param(format!(
                "spawn: app {i} ({}) asks for {} processes; pmixrun needs at least 1 \
                 (or, for debugger daemons, PMIX_DEBUG_DAEMONS_PER_PROC/PER_NODE or \
                 PMIX_MAPBY ppr:N:node)",
                a.cmd, a.maxprocs
            )));
        }
        size += a.maxprocs as u64;
    }
    if size > u64::from(ctx.slots_left) {
        return Err(Error::with_context(
            Status::ERR_JOB_INSUFFICIENT_RESOURCES,
            format!(
                "spawn: {size} processes asked for, {} more may run (pmixrun --spawn-slots)",
                ctx.slots_left
            ),
        ));
    }
    let size = size as u32;
    let base = |k: &str| std::env::var(k).ok();
    // The requestor will push to rank 0's stdin (`PMIX_FWD_STDIN`, as
    // `mpirun` forwards its own stdin to rank 0).
    let pushed_stdin = flag(&req.job_info, attrs::FWD_STDIN);
    let mut procs = Vec::with_capacity(size as usize);
    for a in apps {
        let mut env = ctx.base_env.clone();
        for entry in &a.env {
            match entry.split_once('=') {
                Some((k, v)) if !k.is_empty() && !k.contains('\0') && !v.contains('\0') => {
                    env.set(k, v)
                }
                _ => {
                    return Err(Error::bad_param(format!(
                        "spawn: app {:?}: environment entry {entry:?} is not NAME=VALUE",
                        a.cmd
                    )))
                }
            }
        }
        let env = env.with_directives(&req.job_info, &a.info, base)?;
        let cwd = Some(a.cwd.clone())
            .filter(|c| !c.is_empty())
            .or_else(|| wdir(&a.info))
            .or_else(|| wdir(&req.job_info))
            .map(PathBuf::from);
        if let Some(d) = &cwd {
            if !d.is_dir() {
                return Err(Error::with_context(
                    Status::ERR_JOB_WDIR_NOT_FOUND,
                    format!(
                        "spawn: working directory {} is not a directory",
                        d.display()
                    ),
                ));
            }
        }
        let (argv0, args) = match a.argv.split_first() {
            Some((a0, rest)) => (Some(a0.clone()), rest.to_vec()),
            None => (None, Vec::new()),
        };
        for _ in 0..a.maxprocs {
            procs.push(ProcPlan {
                rank: procs.len() as u32,
                program: a.cmd.clone(),
                argv0: argv0.clone(),
                args: args.clone(),
                env: env.clone(),
                cwd: cwd.clone(),
                stdin: if pushed_stdin && procs.is_empty() {
                    StdinFrom::Pushed
                } else {
                    StdinFrom::Null
                },
            });
        }
    }
    let mut infos = SingleNodeJob::new(ctx.nspace.clone(), size, ctx.hostname)
        .with_dirs(ctx.dirs.0, ctx.dirs.1)
        .infos()?;
    infos.push(Info::new(
        attrs::PARENT_ID,
        Value::Proc(req.requestor.clone()),
    )?);
    infos.push(Info::new(attrs::SPAWNED, Value::Bool(true))?);
    // the first app's command line, as tools see it
    if let Some(a) = req.apps.first() {
        let line = if a.argv.is_empty() {
            a.cmd.clone()
        } else {
            a.argv.join(" ")
        };
        infos.push(Info::new(attrs::CMD_LINE, Value::String(line))?);
    }
    if let Some(d) = daemons {
        infos.extend(d.infos);
    }
    // A debugger's spawn: the ranks wait in init (the client reads it).
    let stop = pmix_core::info::find(&req.job_info, attrs::DEBUG_STOP_IN_INIT)
        .and_then(|i| crate::debugger::spawn_targets(&i.value, size).map(|t| (i.value.clone(), t)));
    let debug_wait = match stop {
        Some((v, t)) => {
            infos.push(Info::new(attrs::DEBUG_STOP_IN_INIT, v)?);
            Some(t)
        }
        None => None,
    };
    if apps.len() > 1 {
        number_apps(
            &mut infos,
            &apps.iter().map(|a| a.maxprocs as u32).collect::<Vec<_>>(),
        )?;
    }
    Ok(SpawnPlan {
        size,
        procs,
        infos,
        notify: flag(&req.job_info, attrs::NOTIFY_COMPLETION),
        job_timeout: pmix_core::info::find(&req.job_info, attrs::JOB_TIMEOUT)
            .and_then(|i| i.value.to_i64().ok())
            .filter(|s| *s > 0)
            .map(|s| std::time::Duration::from_secs(s.unsigned_abs())),
        debug_wait,
        fwd_channels: fwd_channels(&req.job_info),
    })
}

/// The channel bits of `PMIX_FWD_STDOUT` and `PMIX_FWD_STDERR` in `infos`.
fn fwd_channels(infos: &[Info]) -> u16 {
    use pmix_core::proto::iof::{STDERR_CHANNEL, STDOUT_CHANNEL};
    let mut c = 0;
    if flag(infos, attrs::FWD_STDOUT) {
        c |= STDOUT_CHANNEL;
    }
    if flag(infos, attrs::FWD_STDERR) {
        c |= STDERR_CHANNEL;
    }
    c
}

/// Rewrites single-app job data for several apps of `sizes` processes
/// each: `PMIX_JOB_NUM_APPS`, each rank's `PMIX_APPNUM` and
/// `PMIX_APP_RANK`; the app-level `PMIX_APP_SIZE` and `PMIX_APPLDR`
/// (which one value cannot say for several apps) are left out.
fn number_apps(infos: &mut Vec<Info>, sizes: &[u32]) -> Result<()> {
    infos.retain(|i| !i.is(attrs::APP_SIZE) && !i.is(attrs::APPLDR));
    let mut owner = Vec::new();
    for (app, n) in sizes.iter().enumerate() {
        for r in 0..*n {
            owner.push((app as u32, r));
        }
    }
    for i in infos.iter_mut() {
        if i.is(attrs::JOB_NUM_APPS) {
            i.value = Value::Uint32(sizes.len() as u32);
        }
        if !i.is(attrs::PROC_DATA) {
            continue;
        }
        let mut items: Vec<Info> = i.value.as_info_array()?.into_iter().cloned().collect();
        let rank = items
            .iter()
            .find(|x| x.is(attrs::RANK))
            .and_then(|x| match x.value {
                Value::Rank(r) => Some(r.0 as usize),
                _ => None,
            });
        if let Some(&(app, app_rank)) = rank.and_then(|r| owner.get(r)) {
            for x in &mut items {
                if x.is(attrs::APPNUM) {
                    x.value = Value::Uint32(app);
                } else if x.is(attrs::APP_RANK) {
                    x.value = Value::Rank(Rank(app_rank));
                }
            }
        }
        i.value = Value::DataArray(Box::new(DataArray::from_infos(items)));
    }
    Ok(())
}

/// The infos of the `PMIX_EVENT_JOB_END` event of job `nspace` sent to
/// `requestor`: the job (`PMIX_EVENT_AFFECTED_PROC` with the wildcard
/// rank, `PMIX_NSPACE`), `PMIX_JOB_TERM_STATUS`, `PMIX_EXIT_CODE` (of the
/// first failed process, 0 when none failed), the custom range naming the
/// requestor, and `PMIX_EVENT_NON_DEFAULT` (default handlers, such as
/// Open MPI's error handler, do not see it).
pub(crate) fn job_end_infos(
    nspace: &Nspace,
    requestor: &Proc,
    status: Status,
    exit_code: i32,
) -> Result<Vec<Info>> {
    Ok(vec![
        Info::new(
            attrs::EVENT_AFFECTED_PROC,
            Value::Proc(Proc::from_parts(nspace.clone(), Rank::WILDCARD)),
        )?,
        Info::new(attrs::NSPACE, Value::String(nspace.as_str().to_owned()))?,
        Info::new(attrs::JOB_TERM_STATUS, Value::Status(status))?,
        Info::new(attrs::EXIT_CODE, Value::Int(exit_code))?,
        Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(requestor.clone()))?,
        Info::new(attrs::EVENT_NON_DEFAULT, Value::Bool(true))?,
    ])
}

#[cfg(test)]
mod tests;
