//! Debian's `mpirun` (Open MPI 4.1) across two nodes on pmix-rs:
//! `scripts/two-nodes.sh` makes two network namespaces joined by a veth
//! pair, each with a host name and an `/etc/hosts` of its own, and an rsh
//! agent that starts ORTE's `orted` on the second one with `ip netns
//! exec`; `LD_LIBRARY_PATH` makes `mpirun`, both `orted`s and the ranks
//! load this crate's `libpmix.so.2`.
//!
//! - MPI hello and allreduce over 4 ranks, 2 on each node;
//! - `tests/c/two_hosts.c`: fences with 1 KiB cards, direct-modex gets of
//!   a rank on the other node, and a `PMIX_RANGE_NAMESPACE` event that
//!   crosses nodes through ORTE.
//!
//! `mpirun` used to fail at once on pmix-rs here: it asks its server for
//! every value of a daemon with a NULL key (`PMIx_Get`), which pmix-rs
//! refused with `PMIX_ERR_BAD_PARAM`.
//!
//! Needs root and `ip` (iproute2): prints `SKIP:` and passes without them,
//! or when the machine cannot make network namespaces (the script exits
//! 77) — unless `PMIXRS_REQUIRE_TOOLS` is set, where that fails.

#[allow(unused_macros)] // `require!`: this file skips through `can_run`
mod common;

use common::{have, mpi_program, our_lib, pmix_cflags, run, skip, workdir, Ran};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// How long one two-node `mpirun` may run (the script kills it after).
const LIMIT_S: u64 = 120;

/// One two-node job at a time.
fn one_job_at_a_time() -> MutexGuard<'static, ()> {
    static JOBS: Mutex<()> = Mutex::new(());
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/two-nodes.sh")
}

/// Root, `ip`, Open MPI and `pmix.h`; `None` after printing why not.
fn can_run() -> Option<Vec<String>> {
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if !root {
        eprintln!("SKIP: two nodes need root (network namespaces)");
        return None;
    }
    let ip = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ip {
        skip("ip (package iproute2)");
        return None;
    }
    if !(have("mpirun") && have("mpicc")) {
        skip("mpicc and mpirun (packages openmpi-bin, libopenmpi-dev)");
        return None;
    }
    let Some(cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return None;
    };
    Some(cflags)
}

/// `mpirun --hostfile <two nodes> -np 4 --map-by node <argv>` on the
/// drop-in in `lib`; `None` when the script could not make the nodes.
fn two_node_job(lib: &Path, dir: &Path, argv: &[&str], tag: &str) -> Option<Ran> {
    let mut cmd = Command::new("bash");
    cmd.arg(script())
        .args(["--timeout", &LIMIT_S.to_string(), "--lib"])
        .arg(lib)
        .args([
            "--",
            "sh",
            "-c",
            "exec mpirun --hostfile \"$TWO_NODES_HOSTFILE\" -np 4 --map-by node \"$@\"",
            "mpirun",
        ])
        .args(argv)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .current_dir(dir);
    let _one = one_job_at_a_time();
    let ran = run(cmd, dir, tag, Duration::from_secs(LIMIT_S + 30));
    if ran.code == Some(77) {
        let why = ran.stderr.trim();
        if std::env::var_os("PMIXRS_REQUIRE_TOOLS").is_some() {
            panic!("{tag}: two nodes cannot be made here: {why}");
        }
        eprintln!("SKIP: {why}");
        return None;
    }
    Some(ran)
}

fn expect(ran: &Ran, tag: &str, cond: bool, what: &str) {
    assert!(
        cond,
        "{tag}: {what} (exit status {:?}, signal {:?})\n--- stdout\n{}\n--- stderr\n{}",
        ran.code, ran.signal, ran.stdout, ran.stderr
    );
}

#[test]
fn mpi_hello_and_allreduce_run_on_two_nodes() {
    if can_run().is_none() {
        return;
    }
    let dir = workdir("two-nodes-mpi");
    let lib = our_lib(&dir);
    let hello = mpi_program("hello", &dir);
    let allreduce = mpi_program("allreduce", &dir);

    let Some(ran) = two_node_job(&lib, &dir, &[hello.to_str().unwrap()], "hello") else {
        return;
    };
    expect(&ran, "hello", ran.ok, "failed");
    for r in 0..4 {
        let line = format!("hello {r} of 4");
        expect(
            &ran,
            "hello",
            ran.stdout.lines().any(|l| l == line),
            &format!("no {line:?}"),
        );
    }
    let ours = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("pmix: ") && l.contains("pmix-rs"))
        .count();
    expect(&ran, "hello", ours == 4, "not every rank loaded pmix-rs");

    let ran = two_node_job(&lib, &dir, &[allreduce.to_str().unwrap()], "allreduce").unwrap();
    expect(&ran, "allreduce", ran.ok, "failed");
    expect(
        &ran,
        "allreduce",
        ran.stdout
            .lines()
            .any(|l| l.starts_with("allreduce sum ") && l.ends_with(" over 4 ranks")),
        "no correct allreduce line",
    );
}

#[test]
fn fence_direct_modex_and_a_namespace_event_cross_two_nodes() {
    let Some(cflags) = can_run() else {
        return;
    };
    let dir = workdir("two-nodes-pmix");
    let lib = our_lib(&dir);
    let exe = dir.join("two_hosts");
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args([
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unused-parameter",
        "-g",
    ])
    .args(&cflags)
    .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/two_hosts.c"))
    .arg("-o")
    .arg(&exe)
    .arg(format!("-L{}", lib.display()))
    .arg("-lpmix");
    let compiled = run(cc, &dir, "cc-two_hosts", Duration::from_secs(120));
    common::expect_ok(&compiled, "compiling two_hosts.c");

    let Some(ran) = two_node_job(&lib, &dir, &[exe.to_str().unwrap(), "20", "events"], "pmix")
    else {
        return;
    };
    expect(&ran, "two_hosts", ran.ok, "failed");
    expect(
        &ran,
        "two_hosts",
        !ran.stdout.contains("FAIL"),
        "a rank failed",
    );
    for r in 0..4 {
        let ok = format!("two_hosts rank {r}: ok ");
        expect(
            &ran,
            "two_hosts",
            ran.stdout.lines().any(|l| l.starts_with(&ok)),
            &format!("rank {r} did not pass"),
        );
    }
    // Ranks 1 and 3 (--map-by node) are on the node rank 0 is not on.
    let crossed = ran
        .stdout
        .lines()
        .filter(|l| l.ends_with(": event from rank 0 on the other host"))
        .count();
    expect(
        &ran,
        "two_hosts",
        crossed == 2,
        "the NAMESPACE event did not reach both ranks of the other node",
    );
    for node in ["pmixrs-node-a", "pmixrs-node-b"] {
        expect(
            &ran,
            "two_hosts",
            ran.stdout.contains(&format!("(host {node},")),
            &format!("no rank ran on {node}"),
        );
    }
}
