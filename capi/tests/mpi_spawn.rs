//! `MPI_Comm_spawn` under Debian's `mpirun` (Open MPI 4.1, ORTE hosting the
//! PMIx server): `tests/mpi/spawn.c`, one parent spawning 2 children that
//! exchange data with it over the intercommunicator and then
//! `MPI_Comm_disconnect`. On Debian's OpenPMIx 4.2 (the baseline) and on
//! pmix-rs (`LD_LIBRARY_PATH` at this crate's `libpmix.so.2`: `mpirun`'s
//! server, its spawn up-call through the C host adapter's spawn slot, and
//! every rank's client, `PMIx_Spawn` included).
//!
//! Open MPI's children finish `MPI_Init` with `PMIx_Connect` to their
//! parent (`ompi_dpm_dyn_init` → `ompi_dpm_connect_accept`), so the pmix-rs
//! run needs `PMIx_Connect` as well; see the `ignore` reason.
//!
//! Every run has a deadline; every test prints `SKIP:` and passes when
//! `mpicc`/`mpirun` are missing.

#[macro_use]
mod common;

use common::{expect_ok, mpi_program, open_mpi, our_lib, run, workdir, Ran};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(90);

/// `mpirun --oversubscribe -np 1 spawn <children>`, on our library when
/// `lib` is given, else on Debian's.
fn mpirun_spawn(exe: &Path, children: u32, lib: Option<&Path>, dir: &Path, tag: &str) -> Ran {
    let mut cmd = Command::new("mpirun");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", "1"])
        .arg(exe)
        .arg(children.to_string())
        .current_dir(dir);
    match lib {
        Some(l) => cmd.env("LD_LIBRARY_PATH", l),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    run(cmd, dir, tag, DEADLINE)
}

fn expect_exchange(ran: &Ran, tag: &str, children: u32) {
    expect_ok(ran, tag);
    let mut got: Vec<&str> = ran.stdout.lines().collect();
    got.sort_unstable();
    let mut want: Vec<String> = (0..children)
        .map(|i| format!("child {i} of {children} got {}", 100 + i))
        .collect();
    want.push(format!("parent got {children} answers"));
    want.sort_unstable();
    assert_eq!(got, want, "{tag} stderr:\n{}", ran.stderr);
}

#[test]
fn comm_spawn_exchanges_data_and_disconnects_on_openpmix() {
    require!(
        open_mpi(),
        "mpicc and mpirun (packages openmpi-bin, libopenmpi-dev)"
    );
    let dir = workdir("mpi-spawn-openpmix");
    let exe = mpi_program("spawn", &dir);
    let ran = mpirun_spawn(&exe, 2, None, &dir, "spawn-openpmix");
    expect_exchange(&ran, "spawn on OpenPMIx", 2);
}

#[test]
fn comm_spawn_exchanges_data_and_disconnects_on_pmix_rs() {
    require!(
        open_mpi(),
        "mpicc and mpirun (packages openmpi-bin, libopenmpi-dev)"
    );
    let dir = workdir("mpi-spawn-ours");
    let lib = our_lib(&dir);
    let exe = mpi_program("spawn", &dir);
    for children in [1, 2] {
        let tag = format!("spawn-ours-{children}");
        let ran = mpirun_spawn(&exe, children, Some(&lib), &dir, &tag);
        expect_exchange(&ran, &tag, children);
    }
}
