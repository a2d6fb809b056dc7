//! An Open MPI program (`tests/mpi/hello.c`, built with Debian's `mpicc`)
//! launched directly by `pmixrun -n 3` on this crate's `libpmix.so.2` must
//! leave `$TMPDIR` as it found it.
//!
//! Open MPI 4.1 launched directly by a PMIx server takes `PMIX_TMPDIR` /
//! `PMIX_NSDIR` as its session directories and registers them for
//! recursive removal at finalize. When pmixrun pointed both at the system
//! temp dir itself, running an MPI program under it deleted everything in
//! `$TMPDIR` (every file of this user; as root, everyone's). Now they are
//! fresh directories of pmixrun's, removed when it ends.
//!
//! Open MPI 4.1 takes the direct-launch path only for a launcher it
//! recognises: a Slurm job step in the environment (`SLURM_JOBID`,
//! `SLURM_NODELIST` and `SLURM_STEP_ID`, each needed); without them every
//! rank comes up as a singleton of size 1, never reads the directories,
//! and the canary would survive for the wrong reason. So the test sets
//! those variables and checks that every rank saw a job of size 3.
//!
//! Prints `SKIP:` and passes when `mpicc` is missing; CI installs it.

#[macro_use]
mod common;

use common::{expect_ok, have, mpi_program, our_lib, pmixrun, workdir, Ran};
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// How long the job may take before the test calls it a hang.
const DEADLINE: Duration = Duration::from_secs(120);

fn hostname() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "localhost".into())
}

/// Runs `cmd` (output to files in `dir`) for at most `limit`, then kills
/// it; `None` when it had to be killed. Unlike [`run`] it does not panic,
/// so the test can look at `$TMPDIR` first.
fn run_bounded(mut cmd: Command, dir: &Path, tag: &str, limit: Duration) -> Option<Ran> {
    let out = dir.join(format!("{tag}.stdout"));
    let err = dir.join(format!("{tag}.stderr"));
    cmd.stdout(fs::File::create(&out).unwrap())
        .stderr(fs::File::create(&err).unwrap());
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| String::from_utf8_lossy(&fs::read(p).unwrap_or_default()).into_owned();
    Some(Ran {
        ok: status.success(),
        code: status.code(),
        signal: status.signal(),
        stdout: read(&out),
        stderr: read(&err),
    })
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn direct_launched_open_mpi_leaves_tmpdir_alone() {
    require!(
        have("mpicc").then_some(()),
        "mpicc (packages openmpi-bin, libopenmpi-dev)"
    );
    let dir = workdir("job-dirs-mpi");
    let lib = our_lib(&dir);
    let exe = mpi_program("hello", &dir);
    let pmixrun = pmixrun();

    // $TMPDIR with files that are not the job's.
    let tmp = dir.join("tmp");
    fs::create_dir(&tmp).unwrap();
    fs::write(tmp.join("canary"), b"still here").unwrap();
    fs::create_dir(tmp.join("someone-elses")).unwrap();
    fs::write(tmp.join("someone-elses/file"), b"x").unwrap();

    let mut cmd = Command::new(&pmixrun);
    cmd.args(["--timeout", "60", "-n", "3"])
        .arg(&exe)
        .current_dir(&dir)
        .env("TMPDIR", &tmp)
        .env("LD_LIBRARY_PATH", &lib)
        // Open MPI's direct-launch path (see the file's documentation).
        .env("SLURM_JOBID", "4242")
        .env("SLURM_NODELIST", hostname())
        .env("SLURM_STEP_ID", "0")
        // Harmless for other users; CI runs as root.
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    let ran = run_bounded(cmd, &dir, "pmixrun-hello", DEADLINE);

    // First what matters most: nothing of anyone else's was removed.
    assert_eq!(
        fs::read(tmp.join("canary")).ok(),
        Some(b"still here".to_vec()),
        "the job removed files in $TMPDIR"
    );
    assert!(tmp.join("someone-elses/file").exists());
    let ran = ran.unwrap_or_else(|| panic!("pmixrun still running after {DEADLINE:?}"));
    expect_ok(&ran, "pmixrun -n 3 hello");
    // A real 3-rank job, not three singletons.
    let mut lines: Vec<&str> = ran.stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        ["hello 0 of 3", "hello 1 of 3", "hello 2 of 3"],
        "--- stderr\n{}",
        ran.stderr
    );
    let ours = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("pmix: ") && l.contains("pmix-rs"))
        .count();
    assert_eq!(ours, 3, "every rank on pmix-rs:\n{}", ran.stderr);
    // The job's directories (pmixrun's session directory, the server's
    // socket directory) are gone.
    assert_eq!(names(&tmp), ["canary", "someone-elses"]);
    fs::remove_dir_all(&dir).unwrap();
}
