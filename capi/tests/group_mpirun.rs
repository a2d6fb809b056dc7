//! PMIx Groups under Debian's `mpirun` (Open MPI 4.1's ORTE host, which has
//! no group support): `tests/c/client_group.c` (construct with a context id
//! and group info, destruct, qualified gets, `_nb` forms, a group fence)
//! passes on this crate's `libpmix.so.2`, because groups live in the PMIx
//! server; the same program on Debian's OpenPMIx 4.2 gets
//! `PMIX_ERR_NOT_SUPPORTED` from its first construct (the probe run shows
//! it, so the difference stays measured).
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

/// How long one `mpirun` may take before the test calls it a hang.
const DEADLINE: Duration = Duration::from_secs(90);

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

/// `client_group.c` compiled against Debian's header and linked with the
/// drop-in; `(program, library directory, scratch directory)`.
fn setup(tag: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let inc = pmix_include()?;
    if !(have("mpirun") && have("cc")) {
        return None;
    }
    let dir = workdir(&format!("group-mpirun-{tag}"));
    let lib = our_lib(&dir);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/client_group.c");
    let exe = dir.join("client_group");
    let mut cmd = Command::new(env::var("CC").unwrap_or_else(|_| "cc".into()));
    cmd.args(["-std=gnu11", "-Wall", "-Wextra", "-g", "-pthread", &inc])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lpmix");
    let ran = run(cmd, &dir, "cc-client_group", Duration::from_secs(120));
    expect_ok(&ran, "compiling client_group.c");
    Some((exe, lib, dir))
}

/// `mpirun --oversubscribe -np 4 client_group <args>`, on the drop-in in
/// `lib` or (None) on Debian's OpenPMIx.
fn mpirun(exe: &Path, lib: Option<&Path>, dir: &Path, args: &[&str], tag: &str) -> Ran {
    let mut cmd = Command::new("mpirun");
    // CI runs as root; without these Open MPI refuses to.
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", "4"])
        .arg(exe)
        .args(args)
        .current_dir(dir);
    match lib {
        Some(l) => cmd.env("LD_LIBRARY_PATH", l),
        // cargo puts its own directories on the path of test binaries
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    let _one = one_job_at_a_time();
    run(cmd, dir, tag, DEADLINE)
}

#[test]
fn groups_work_under_mpirun_whose_host_has_no_group_support() {
    let (exe, lib, dir) = require!(setup("ours"), "cc, mpirun or pmix.h");
    let ran = mpirun(&exe, Some(&lib), &dir, &[], "ours");
    expect_ok(&ran, "client_group under mpirun on pmix-rs");
    for r in 0..4 {
        let line = format!("rank {r}: client_group: ");
        assert!(
            ran.stdout
                .lines()
                .any(|l| l.starts_with(&line) && l.ends_with("checks passed")),
            "rank {r} did not pass\n--- stdout\n{}\n--- stderr\n{}",
            ran.stdout,
            ran.stderr
        );
    }
}

#[test]
fn openpmix_4_2_under_the_same_mpirun_answers_not_supported() {
    let (exe, _lib, dir) = require!(setup("openpmix"), "cc, mpirun or pmix.h");
    let ran = mpirun(&exe, None, &dir, &["probe"], "openpmix");
    expect_ok(&ran, "client_group probe under mpirun on OpenPMIx");
    let n = ran
        .stdout
        .lines()
        .filter(|l| l.ends_with("construct status NOT-SUPPORTED"))
        .count();
    eprintln!("OpenPMIx 4.2 under mpirun: {n} of 4 constructs NOT-SUPPORTED");
    assert_eq!(n, 4, "{}\n{}", ran.stdout, ran.stderr);
}
