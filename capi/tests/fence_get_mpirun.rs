//! Direct modex after a fence without data, under Debian's `mpirun`
//! (Open MPI 4.1's embedded PMIx server loading this crate's
//! `libpmix.so.2` through `LD_LIBRARY_PATH`): `tests/c/fence_get.c` puts,
//! commits, fences with `PMIX_COLLECT_DATA=false`, gets every peer's key
//! and leaves at once. `mpirun` deregisters each rank as soon as it exits,
//! so a slow rank asks for the key of a peer that is gone: its card must
//! still be served (it used to vanish with the registration, and the get
//! went to `mpirun`'s direct modex, which never answers for a proc of its
//! own node — about one job in four hung).
//!
//! - one job of [`ROUNDS`] rounds;
//! - [`JOBS`] separate jobs of one round each, with up to 1 ms of compute
//!   between fence and get (what makes a peer leave first);
//! - a job where rank 0 reads its peers' keys only after they exited.
//!
//! Every rank has an alarm and every `mpirun` a deadline: a hang fails.
//! Each test prints `SKIP:` and passes when `cc`, `mpirun` or `pmix.h` is
//! missing.

#[macro_use]
mod common;

use common::{expect_ok, have, our_lib, run, workdir, Ran};
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Rounds of the one long job.
const ROUNDS: u32 = 200;
/// Separate one-round jobs.
const JOBS: u32 = 150;
/// Longest compute between fence and get in the separate jobs (µs).
const JITTER_US: u32 = 1000;
/// Each rank's alarm (s): a get that never returns ends there.
const RANK_ALARM: &str = "20";
/// How long one `mpirun` may take before the test calls it a hang.
const DEADLINE: Duration = Duration::from_secs(60);

/// One `mpirun` at a time: two on two cores only add noise.
fn one_job_at_a_time() -> MutexGuard<'static, ()> {
    static JOBS: Mutex<()> = Mutex::new(());
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `-I` for Debian's `pmix.h`, when installed.
fn pmix_include() -> Option<String> {
    ["/usr/lib/x86_64-linux-gnu/pmix2/include", "/usr/include"]
        .iter()
        .find(|d| Path::new(d).join("pmix.h").exists())
        .map(|d| format!("-I{d}"))
}

/// `fence_get.c` compiled against Debian's header and linked with the
/// drop-in; `(program, library directory, scratch directory)`.
fn setup(tag: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let inc = pmix_include()?;
    if !(have("mpirun") && have("cc")) {
        return None;
    }
    let dir = workdir(&format!("fence-get-{tag}"));
    let lib = our_lib(&dir);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/fence_get.c");
    let exe = dir.join("fence_get");
    let mut cmd = Command::new(env::var("CC").unwrap_or_else(|_| "cc".into()));
    cmd.args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-g", &inc])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lpmix");
    let ran = run(cmd, &dir, "cc-fence_get", Duration::from_secs(120));
    expect_ok(&ran, "compiling fence_get.c");
    Some((exe, lib, dir))
}

/// `mpirun --oversubscribe -np 3 fence_get <args>` on the drop-in.
fn mpirun(exe: &Path, lib: &Path, dir: &Path, args: &[&str], tag: &str) -> Ran {
    let mut cmd = Command::new("mpirun");
    // CI runs as root; without these Open MPI refuses to.
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("LD_LIBRARY_PATH", lib)
        .env("FENCE_GET_ALARM", RANK_ALARM)
        .args(["--oversubscribe", "-np", "3"])
        .arg(exe)
        .args(args)
        .current_dir(dir);
    let _one = one_job_at_a_time();
    run(cmd, dir, tag, DEADLINE)
}

/// Every rank passed with `gets` gets; a hang shows as a rank killed by
/// its alarm.
fn expect_passed(ran: &Ran, tag: &str, gets: u32) {
    let hung = [&ran.stdout, &ran.stderr]
        .iter()
        .any(|s| s.contains("signal 14") || s.contains("Alarm clock"));
    assert!(
        ran.ok && !hung,
        "{tag}: {} (exit status {:?})\n--- stdout\n{}\n--- stderr\n{}",
        if hung {
            "a rank's PMIx_Get never returned"
        } else {
            "failed"
        },
        ran.code,
        ran.stdout,
        ran.stderr
    );
    for r in 0..3 {
        let line = format!("fence_get rank {r}: {gets} gets ok");
        assert!(
            ran.stdout.lines().any(|l| l == line),
            "{tag}: no {line:?}\n--- stdout\n{}\n--- stderr\n{}",
            ran.stdout,
            ran.stderr
        );
    }
}

#[test]
fn fence_without_data_then_get_two_hundred_rounds_in_one_job() {
    let (exe, lib, dir) = require!(setup("rounds"), "cc, mpirun or pmix.h");
    let rounds = ROUNDS.to_string();
    let ran = mpirun(&exe, &lib, &dir, &[&rounds, "200"], "rounds");
    expect_passed(&ran, "200 rounds", ROUNDS * 2);
}

#[test]
fn fence_without_data_then_get_in_many_separate_jobs() {
    let (exe, lib, dir) = require!(setup("jobs"), "cc, mpirun or pmix.h");
    let jitter = JITTER_US.to_string();
    for job in 0..JOBS {
        let tag = format!("job{job}");
        let ran = mpirun(&exe, &lib, &dir, &["1", &jitter], &tag);
        expect_passed(&ran, &format!("job {job} of {JOBS}"), 2);
    }
}

#[test]
fn get_of_peers_that_already_exited_is_served() {
    let (exe, lib, dir) = require!(setup("late"), "cc, mpirun or pmix.h");
    let ran = mpirun(&exe, &lib, &dir, &["1", "0", "late"], "late");
    expect_ok(&ran, "late");
    assert!(
        ran.stdout
            .lines()
            .any(|l| l == "fence_get rank 0: 4 gets ok"),
        "rank 0 did not read the keys of its exited peers\n--- stdout\n{}\n--- stderr\n{}",
        ran.stdout,
        ran.stderr
    );
}
