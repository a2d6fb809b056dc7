//! `tests/c/client_query.c` — a C program written against Debian's
//! OpenPMIx 4.2 `pmix.h` in the shape of OpenPMIx's `pquery`/`pps`
//! (namespaces, the proc table, process sets, the query edge cases) —
//! linked to this crate's `libpmix.so.2` and run:
//!
//! - under this workspace's `pmixrun -n 3 --pset even:0,2 --pset
//!   everyone:all` (sets by query, by `PMIx_Get`, and their define events
//!   reaching a handler registered after init exactly once);
//! - under Debian's `mpirun` (Open MPI 4.1) hosting pmix-rs: `mpirun`
//!   loads the drop-in as its server library, so the pmix-rs server inside
//!   `mpirun` answers the namespaces and the proc table.
//!
//! Every run has a deadline (the child is killed by pid after it). Each
//! test prints `SKIP:` and passes when `cc`, `pmix.h` or `mpirun` is
//! missing (CI installs them and makes a missing one a failure).

#[macro_use]
mod common;

use common::{expect_ok, have, our_lib, pmix_cflags, pmixrun, run, skip, workdir, Ran};
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const NP: u32 = 3;

/// `client_query.c` compiled against Debian's header and linked with the
/// drop-in: `(program, library directory, scratch directory)`.
fn setup(tag: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
    compile("client_query", tag)
}

/// `tests/c/<name>.c` compiled against Debian's header and linked with
/// the drop-in: `(program, library directory, scratch directory)`.
fn compile(name: &str, tag: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let Some(cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return None;
    };
    if !have("cc") {
        skip("cc");
        return None;
    }
    let dir = workdir(&format!("query-{tag}"));
    let lib = our_lib(&dir);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{name}.c"));
    let exe = dir.join(name);
    let mut cmd = Command::new(env::var("CC").unwrap_or_else(|_| "cc".into()));
    cmd.args([
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unused-parameter",
        "-g",
        "-pthread",
    ])
    .args(&cflags)
    .arg(&src)
    .arg("-o")
    .arg(&exe)
    .arg(format!("-L{}", lib.display()))
    .arg("-lpmix");
    let ran = run(cmd, &dir, &format!("cc-{name}"), Duration::from_secs(120));
    expect_ok(&ran, &format!("compiling {name}.c"));
    Some((exe, lib, dir))
}

fn expect_all_passed(ran: &Ran, tag: &str) {
    expect_ok(ran, tag);
    assert!(
        !ran.stderr.contains("CHECK failed"),
        "{tag}:\n{}",
        ran.stderr
    );
    for r in 0..NP {
        let line = format!("rank {r}: client_query: ");
        assert!(
            ran.stdout
                .lines()
                .any(|l| l.starts_with(&line) && l.ends_with("checks passed")),
            "{tag}: rank {r} did not pass\n--- stdout\n{}\n--- stderr\n{}",
            ran.stdout,
            ran.stderr
        );
    }
    assert!(
        ran.stdout.contains("proc table: ") && ran.stdout.contains("namespaces: "),
        "{tag}: no proc table printed\n{}",
        ran.stdout
    );
}

#[test]
fn c_queries_and_psets_under_pmixrun() {
    let Some((exe, lib, dir)) = setup("pmixrun") else {
        return;
    };
    let mut cmd = Command::new(pmixrun());
    cmd.env("LD_LIBRARY_PATH", &lib)
        .args(["--timeout", "60", "-n", &NP.to_string()])
        .args(["--pset", "even:0,2", "--pset", "everyone:all"])
        .arg(&exe)
        .args([&NP.to_string(), "psets"]);
    let ran = run(cmd, &dir, "client_query", Duration::from_secs(90));
    expect_all_passed(&ran, "client_query under pmixrun");
}

#[test]
fn c_queries_under_debian_mpirun_hosting_pmix_rs() {
    require!(have("mpirun").then_some(()), "mpirun (package openmpi-bin)");
    let Some((exe, lib, dir)) = setup("mpirun") else {
        return;
    };
    let mut cmd = Command::new("mpirun");
    // CI runs as root; without these Open MPI refuses to.
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("LD_LIBRARY_PATH", &lib)
        .args(["--oversubscribe", "-np", &NP.to_string()])
        .arg(&exe)
        .arg(NP.to_string())
        .current_dir(&dir);
    let ran = run(cmd, &dir, "client_query-mpirun", Duration::from_secs(90));
    expect_all_passed(&ran, "client_query under mpirun");
}

/// A foreign C host (`server_query_host.c`) with a `query` slot and its
/// process sets defined through `PMIx_server_define_process_set`: the
/// clients get the host's answer merged with the server's, in the order
/// asked, and the sets as under `pmixrun --pset`.
#[test]
fn c_host_answers_queries_and_defines_process_sets() {
    let Some((client, lib, _)) = setup("host-client") else {
        return;
    };
    let Some((host, _, dir)) = compile("server_query_host", "host") else {
        return;
    };
    let mut cmd = Command::new(&host);
    cmd.env("LD_LIBRARY_PATH", &lib)
        .arg(&client)
        .args([&NP.to_string(), "psets", "hosted"]);
    let ran = run(cmd, &dir, "server_query_host", Duration::from_secs(90));
    expect_all_passed(&ran, "client_query under server_query_host");
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with("server_query_host: ") && l.ends_with("checks passed")),
        "{}\n{}",
        ran.stdout,
        ran.stderr
    );
}

/// The same program under valgrind (every rank): the query results the
/// library allocates, the `_nb` results released through `release_fn`,
/// the pset values of `PMIx_Get` — no invalid access, no definite leak.
#[test]
fn c_queries_are_clean_under_valgrind() {
    require!(have("valgrind").then_some(()), "valgrind");
    let Some((exe, lib, dir)) = setup("valgrind") else {
        return;
    };
    let mut cmd = Command::new(pmixrun());
    cmd.env("LD_LIBRARY_PATH", &lib)
        .args(["--timeout", "400", "-n", &NP.to_string()])
        .args(["--pset", "even:0,2", "--pset", "everyone:all"])
        .args([
            "valgrind",
            "--error-exitcode=99",
            "--leak-check=full",
            "--show-leak-kinds=definite",
            "--errors-for-leak-kinds=definite",
            "-q",
        ])
        .arg(&exe)
        .args([&NP.to_string(), "psets"]);
    let ran = run(cmd, &dir, "client_query-valgrind", Duration::from_secs(450));
    expect_all_passed(&ran, "client_query under valgrind");
    assert!(
        !ran.stderr.contains("=="),
        "valgrind reported:\n{}",
        ran.stderr
    );
}
