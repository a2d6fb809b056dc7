//! Python programs on pmix-rs, with Debian's packages: `mpi4py`
//! (`python3-mpi4py`, on Debian's Open MPI 4.1) and the OpenPMIx Python
//! bindings (`python3-pmix`), both loading this crate's `libpmix.so.2`
//! through `LD_LIBRARY_PATH`, each launched by `pmixrun` and by Debian's
//! `mpirun`:
//!
//! - `tests/python/mpi4py_hello.py`: hello from every rank and an
//!   allreduce, 4 ranks (under pmixrun: one 4-rank job, which needs the
//!   Slurm step pmixrun presents to Open MPI 4.1);
//! - `tests/python/pmix_client.py`: init, job data, put/commit/fence/get
//!   of every peer, resolve_peers/resolve_nodes, publish/lookup, and a
//!   `PMIX_RANGE_NAMESPACE` event from every rank to every other, 3 ranks.
//!
//! Each test prints `SKIP:` and passes when `/usr/bin/python3` cannot
//! import the module it needs or `mpirun` is missing (CI installs them).

#[allow(unused_macros)] // `require!`: this file skips through `ready`
mod common;

use common::{have, our_lib, pmixrun, run, skip, workdir, Ran};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Debian's interpreter: the Debian packages install there only.
const PYTHON: &str = "/usr/bin/python3";

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(name)
}

/// Whether Debian's python imports `module`.
fn python_has(module: &str) -> bool {
    Command::new(PYTHON)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Python with `module` and Open MPI's `mpirun`, else a printed skip.
fn ready(module: &str, package: &str) -> bool {
    if !python_has(module) {
        skip(&format!("{PYTHON} with {module} (package {package})"));
        return false;
    }
    if !have("mpirun") {
        skip("mpirun (package openmpi-bin)");
        return false;
    }
    true
}

/// `pmixrun -n <np> python3 <script>` on the drop-in in `lib`.
fn under_pmixrun(lib: &Path, dir: &Path, np: u32, name: &str, tag: &str) -> Ran {
    let mut cmd = Command::new(pmixrun());
    for var in [
        "SLURM_JOBID",
        "SLURM_JOB_ID",
        "SLURM_NODELIST",
        "SLURM_STEP_ID",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("LD_LIBRARY_PATH", lib)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args([
            "--timeout",
            "90",
            "-n",
            &np.to_string(),
            PYTHON,
            "-W",
            "ignore",
        ])
        .arg(script(name))
        .current_dir(dir);
    run(cmd, dir, tag, Duration::from_secs(120))
}

/// Debian's `mpirun -np <np> python3 <script>` on the drop-in in `lib`.
fn under_mpirun(lib: &Path, dir: &Path, np: u32, name: &str, tag: &str) -> Ran {
    let mut cmd = Command::new("mpirun");
    cmd.env("LD_LIBRARY_PATH", lib)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args([
            "--oversubscribe",
            "-np",
            &np.to_string(),
            PYTHON,
            "-W",
            "ignore",
        ])
        .arg(script(name))
        .current_dir(dir);
    run(cmd, dir, tag, Duration::from_secs(120))
}

fn show(ran: &Ran) -> String {
    format!(
        "exit status {:?}, signal {:?}\n--- stdout\n{}\n--- stderr\n{}",
        ran.code, ran.signal, ran.stdout, ran.stderr
    )
}

fn expect_mpi4py(ran: &Ran, tag: &str) {
    assert!(ran.ok, "{tag}: {}", show(ran));
    for r in 0..4 {
        // mpirun may run two ranks' lines together when it forwards them
        let hello = format!("mpi4py hello {r} of 4");
        assert!(
            ran.stdout.contains(&hello),
            "{tag}: no {hello:?}\n{}",
            show(ran)
        );
    }
    assert!(
        ran.stdout.contains("mpi4py allreduce 10 over 4 ranks\n"),
        "{tag}: {}",
        show(ran)
    );
}

fn expect_pmix_client(ran: &Ran, tag: &str) {
    assert!(ran.ok, "{tag}: {}", show(ran));
    assert!(!ran.stdout.contains("FAIL"), "{tag}: {}", show(ran));
    for r in 0..3 {
        let passed = format!("pmix_client rank {r}: ");
        assert!(
            ran.stdout
                .match_indices(&passed)
                .any(|(i, _)| ran.stdout[i..].contains(" checks passed")),
            "{tag}: rank {r} did not pass\n{}",
            show(ran)
        );
    }
}

#[test]
fn mpi4py_hello_and_allreduce_under_pmixrun_and_mpirun() {
    if !ready("mpi4py", "python3-mpi4py") {
        return;
    }
    let dir = workdir("python-mpi4py");
    let lib = our_lib(&dir);
    let ran = under_pmixrun(&lib, &dir, 4, "mpi4py_hello.py", "mpi4py-pmixrun");
    expect_mpi4py(&ran, "mpi4py under pmixrun");
    let ran = under_mpirun(&lib, &dir, 4, "mpi4py_hello.py", "mpi4py-mpirun");
    expect_mpi4py(&ran, "mpi4py under mpirun");
}

#[test]
fn python3_pmix_client_under_pmixrun_and_mpirun() {
    if !ready("pmix", "python3-pmix") {
        return;
    }
    let dir = workdir("python-pmix");
    let lib = our_lib(&dir);
    let ran = under_pmixrun(&lib, &dir, 3, "pmix_client.py", "pmix-pmixrun");
    expect_pmix_client(&ran, "python3-pmix under pmixrun");
    let ran = under_mpirun(&lib, &dir, 3, "pmix_client.py", "pmix-mpirun");
    expect_pmix_client(&ran, "python3-pmix under mpirun");
}
