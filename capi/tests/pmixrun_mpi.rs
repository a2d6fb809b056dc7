//! Debian's Open MPI 4.1 programs started straight by `pmixrun -n 4`
//! (no `mpirun`), with this crate's `libpmix.so.2` through
//! `LD_LIBRARY_PATH`: the ranks form one 4-rank job. Open MPI 4.1 takes a
//! direct PMIx launch only from a Slurm, Flux or LSF job step; pmixrun
//! presents a Slurm step (`launcher/src/mpi_env.rs`). Before it did, each
//! rank ran alone ("hello 0 of 1" four times, exit 0), and nothing said
//! so: with `--no-slurm-env` that still happens, and pmixrun now says so.
//!
//! The tests clear every Slurm and ess variable the caller may have, so
//! that they test pmixrun and not the machine. They print `SKIP:` and pass
//! when `mpicc`/`mpirun` are missing (CI installs them).

#[macro_use]
mod common;

use common::{mpi_program, open_mpi, our_lib, pmixrun, run, workdir, Ran};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `pmixrun [flags] -n 4 <exe>` on the drop-in in `lib`, in a clean
/// environment as far as launchers go.
fn pmixrun_job(exe: &Path, lib: &Path, flags: &[&str], dir: &Path, tag: &str) -> Ran {
    let mut cmd = Command::new(pmixrun());
    for var in [
        "SLURM_JOBID",
        "SLURM_JOB_ID",
        "SLURM_NODELIST",
        "SLURM_STEP_ID",
        "OMPI_MCA_ess",
        "FLUX_JOB_ID",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("LD_LIBRARY_PATH", lib)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--timeout", "60"])
        .args(flags)
        .args(["-n", "4"])
        .arg(exe)
        .current_dir(dir);
    run(cmd, dir, tag, Duration::from_secs(90))
}

fn show(ran: &Ran) -> String {
    format!(
        "exit status {:?}, signal {:?}\n--- stdout\n{}\n--- stderr\n{}",
        ran.code, ran.signal, ran.stdout, ran.stderr
    )
}

#[test]
fn open_mpi_4_programs_form_one_job_under_plain_pmixrun() {
    require!(
        open_mpi(),
        "mpicc and mpirun (packages openmpi-bin, libopenmpi-dev)"
    );
    let dir = workdir("pmixrun-mpi");
    let lib = our_lib(&dir);
    let hello = mpi_program("hello", &dir);
    let ran = pmixrun_job(&hello, &lib, &[], &dir, "hello");
    assert!(ran.ok, "{}", show(&ran));
    for r in 0..4 {
        let line = format!("hello {r} of 4");
        assert!(
            ran.stdout.lines().any(|l| l == line),
            "no {line:?}: the ranks did not form one job\n{}",
            show(&ran)
        );
    }
    assert!(!ran.stderr.contains("singleton"), "{}", show(&ran));

    let allreduce = mpi_program("allreduce", &dir);
    let ran = pmixrun_job(&allreduce, &lib, &[], &dir, "allreduce");
    assert!(ran.ok, "{}", show(&ran));
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with("allreduce sum ") && l.ends_with(" over 4 ranks")),
        "{}",
        show(&ran)
    );
}

#[test]
fn pmixrun_says_when_an_mpi_programs_ranks_ran_as_singletons() {
    require!(
        open_mpi(),
        "mpicc and mpirun (packages openmpi-bin, libopenmpi-dev)"
    );
    let dir = workdir("pmixrun-mpi-singletons");
    let lib = our_lib(&dir);
    let hello = mpi_program("hello", &dir);
    let ran = pmixrun_job(&hello, &lib, &["--no-slurm-env"], &dir, "singletons");
    assert!(ran.ok, "{}", show(&ran));
    assert_eq!(
        ran.stdout.lines().filter(|l| *l == "hello 0 of 1").count(),
        4,
        "{}",
        show(&ran)
    );
    assert!(
        ran.stderr.contains("none of its 4 ranks connected") && ran.stderr.contains("singleton"),
        "pmixrun said nothing about the singletons\n{}",
        show(&ran)
    );
}
