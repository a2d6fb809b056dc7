//! # pmix-launcher
//!
//! `pmixrun`: a single-node resource manager embedding the pmix-rs server.
//!
//! ```text
//! pmixrun -n N [--timeout S] [--tag-output] [-v] [--no-slurm-env] [-x VAR[=VALUE]]... [--spawn-slots N] program [args...]
//! ```
//!
//! [`parse_args`] turns the command line into [`Options`]; [`run`] runs the
//! job and returns pmixrun's exit status. `main` only glues the two.
//!
//! # Flow
//!
//! 1. **Server.** A [`pmix_server::Server`] of namespace `run-<pid>`
//!    with `max_clients = N + spawn slots`, its socket directory (`pmixrs.<pid>.<n>`, mode
//!    0700) under [`std::env::temp_dir`], its log (refused or dropped connections) on
//!    stderr only with `-v`. Its host records, for each rank, whether the
//!    client connected, whether it finalized, and the first abort request,
//!    and wakes the supervisor; it never blocks a server thread.
//! 2. **Directories and registration.** pmixrun creates its session
//!    directory `$TMPDIR/pmixrun.<uid>.<pid>.<random>` (mode 0700) and in
//!    it the job's directory, named after the namespace (mode 0700); they
//!    are registered as `PMIX_TMPDIR` and `PMIX_NSDIR` with
//!    `PMIX_TDIR_RMCLEAN` true — never the system temp dir itself, which
//!    Open MPI, launched directly, removes recursively at finalize. Every
//!    rank of the job namespace `run-<pid>-job` is registered with
//!    pmixrun's own uid/gid, then the namespace with the job data of
//!    [`pmix_server::SingleNodeJob`] (the C API's order).
//! 3. **Spawn.** N children of `program args…`, each with pmixrun's
//!    environment, a Slurm job step's `SLURM_JOBID`/`SLURM_NODELIST`/
//!    `SLURM_STEP_ID` where pmixrun's environment lacks them (what makes
//!    Open MPI 4.1 take a direct launch; not with `--no-slurm-env`; see
//!    `mpi_env.rs`), the `-x` variables, `OMPI_COMM_WORLD_{SIZE,RANK,
//!    LOCAL_RANK,LOCAL_SIZE}` and what `setup_fork` gives (`PMIX_NAMESPACE`,
//!    `PMIX_RANK`, the server socket, …), all in one new process group led
//!    by rank 0 so the job (grandchildren included) can be signalled at
//!    once. Rank 0 reads pmixrun's stdin unless that is a terminal (a
//!    background process group would be stopped reading it); the others
//!    read `/dev/null`. A small `sh` watchdog in pmixrun's own process group
//!    kills the job's group and removes the server's socket and pmixrun's
//!    session directory (if its device and inode are still those pmixrun
//!    created) if pmixrun dies without cleaning up (Ctrl-C, SIGTERM,
//!    SIGKILL), since pmixrun cannot catch signals without `unsafe`.
//! 4. **Output.** Each child's stdout and stderr are pipes read by one
//!    thread per stream, which writes whole lines to pmixrun's stdout /
//!    stderr (one write and flush per line, so lines never interleave).
//!    With `--tag-output` each line is prefixed `[JOB,RANK]<stdout>: ` or
//!    `[JOB,RANK]<stderr>: ` (Open MPI's form; this job is 1, the jobs its
//!    processes spawn are 2, 3, …).
//! 5. **Spawned jobs** (`spawn.rs`, `launch.rs`). A client's
//!    `PMIx_Spawn` reaches the host, which queues it for the supervisor:
//!    it checks the apps (a positive `maxprocs`, no more processes than
//!    `--spawn-slots` has free, an existing working directory), registers
//!    the namespace `run-<pid>-jobK` (K = 2, 3, …; job data as the
//!    first job's plus `PMIX_PARENT_ID` = the requestor and `PMIX_SPAWNED`)
//!    with a directory of its own, and starts its processes as in step 3,
//!    in a process group of their own the watchdog is told, with the
//!    environment directives applied (`pmix_core::envar`: pmixrun's
//!    environment and `-x`, the app's `env`, the job-level directives,
//!    the app's). The spawner gets the namespace once every process
//!    started; if one cannot be (missing or non-executable program), those
//!    already started are killed and reaped and the registrations removed
//!    first, and it gets the error. When every process of a spawned job
//!    ended, its clients and namespace are deregistered and, if the
//!    spawner asked for `PMIX_NOTIFY_COMPLETION`, it gets
//!    `PMIX_EVENT_JOB_END` with `PMIX_JOB_TERM_STATUS` and
//!    `PMIX_EXIT_CODE`. A spawned job running longer than its
//!    `PMIX_JOB_TIMEOUT` is ended as failed (`PMIX_ERR_TIMEOUT`).
//! 6. **Supervision.** A loop polls `try_wait` on every running child every
//!    1–5 ms (sleeping on a condition variable the host signals, so an abort
//!    is seen at once) and checks the abort request and the timeout. The
//!    first failure decides the exit status and starts termination: SIGTERM
//!    to the process group, SIGKILL to the group and every child 2 s later.
//!    A failure of a spawned job whose spawner asked for
//!    `PMIX_NOTIFY_COMPLETION` terminates only that job (the spawner is
//!    told); any other failure terminates every job, so a parent never
//!    waits for children that died. pmixrun ends when every process of
//!    every job ended.
//! 7. **Teardown.** Once every child is reaped, whatever ended the job
//!    (success, a failed rank, an abort, `--timeout`): the clients and the
//!    namespace are deregistered, the server finalized, the job's directory
//!    and the session directory removed with their contents (each only if
//!    it is still the directory pmixrun created), the output threads
//!    drained (one that waits for input 250 ms after the last child ended
//!    belongs to a leftover grandchild and is abandoned), the failure (if
//!    any) is reported on stderr and pmixrun exits. When every rank exited
//!    0 but none connected and the program needs `libmpi.so.*`, a note says
//!    that the MPI ranks ran as singletons.
//!
//! # Exit status
//!
//! | Job outcome                                   | Status           | Message on stderr |
//! |-----------------------------------------------|------------------|-------------------|
//! | every rank exited 0                           | 0                | —                 |
//! | a rank exited with status S ≠ 0               | S                | `pmixrun: rank R (pid P) exited with status S` |
//! | a rank was killed by signal N                 | 128 + N          | `pmixrun: rank R (pid P) was killed by signal N (SIGNAME)` |
//! | a rank called abort with status S             | S clamped to 1..=255 (0 → 1) | `pmixrun: rank R called abort with status S: MESSAGE` |
//! | a PMIx client exited 0 without finalize       | 1                | `pmixrun: rank R (pid P) exited without calling finalize` |
//! | `--timeout S` expired                         | 124              | `pmixrun: job timed out after S s` |
//! | the program cannot be executed                | 127              | `pmixrun: cannot execute "PROG": ERROR` |
//! | pmixrun's own setup failed (server, …)        | 1                | `pmixrun: …` |
//! | usage error                                   | 2                | the error and the usage text |
//! | `-h` / `--help`                               | 0                | (usage on stdout) |
//!
//! The table holds across every job (a spawned job's rank is reported as
//! `rank R of spawned job K`). Only the first failure counts (ranks killed
//! by pmixrun afterwards are not reported). Any abort ends the whole job, whichever procs it names.
//! A program that never connects to the server (`/bin/echo`) is not a PMIx
//! client and is judged only by its exit status.

mod children;
mod cli;
mod debug_daemons;
mod debugger;
mod failure;
mod host;
mod indirect;
mod job;
mod keepalive;
mod launch;
mod mpi_env;
mod output;
pub mod pmixcli;
mod pset_arg;
mod pubsub;
mod session_dir;
mod spawn;
mod stdin_push;
mod watchdog;

pub use cli::{parse_args, Export, Options, UsageError, MAX_NP, USAGE};
pub use job::{run, EXIT_INTERNAL, EXIT_NOEXEC, EXIT_TIMEOUT};
pub use pset_arg::PsetArg;
pub use spawn::DEFAULT_SPAWN_SLOTS;

/// Exit status of a usage error.
pub const EXIT_USAGE: i32 = 2;
