//! C programs of the dynamic-process and group families, compiled
//! against Debian's OpenPMIx 4.2.2 headers and run on this crate's
//! `libpmix.so.2`: `client_spawn.c` (spawn with environment directives,
//! also under valgrind, and children connecting back), `server_spawn.c` (a
//! C host's spawn slot), `client_connect.c` (RFC0003 with the 4.2
//! signatures), `client_groups.c` and `server_group_host.c` (PMIx Groups
//! and a C host's group slot).
//!
//! Every test prints `SKIP:` and passes when the headers (or the tool it
//! needs) are missing; CI installs them.

#[allow(unused_macros)] // `require!`: these tests skip through `client_program`
mod common;

use common::cprog::*;
use common::*;
use std::process::Command;
use std::time::Duration;

/// `client_spawn.c` under `pmixrun -n 2` (with `CS_PATH=/base` and
/// `CS_GONE` in pmixrun's environment): every check of the parents and of
/// the two spawned children passed, and the children's output came
/// through pmixrun. `valgrind`: the parents run under valgrind;
/// `connect`: the children connect back (`client_spawn connect`).
fn run_client_spawn(valgrind: bool, connect: bool) {
    if valgrind && !have("valgrind") {
        skip("valgrind");
        return;
    }
    let tag = match (valgrind, connect) {
        (true, false) => "valgrind-spawn",
        (true, true) => "valgrind-spawn-connect",
        (false, false) => "client_spawn",
        (false, true) => "client_spawn-connect",
    };
    let Some((dir, lib, exe)) = client_program_in("client_spawn", tag) else {
        return;
    };
    let mut cmd: Vec<String> = Vec::new();
    if valgrind {
        cmd.extend(
            [
                "valgrind",
                "--error-exitcode=99",
                "--leak-check=full",
                "--show-leak-kinds=definite",
                "--errors-for-leak-kinds=definite",
                "-q",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
    }
    cmd.extend(exe);
    if connect {
        cmd.push("connect".into());
    }
    let mut c = Command::new(pmixrun());
    c.env("LD_LIBRARY_PATH", &lib)
        .env("CS_PATH", "/base")
        .env("CS_GONE", "x")
        .args(["--timeout", "240", "-n", "2"])
        .args(&cmd);
    let ran = run(c, &dir, tag, Duration::from_secs(300));
    expect_ok(&ran, tag);
    expect_all_passed(&ran, "client_spawn", 2);
    expect_all_passed(&ran, "client_spawn-child", 2);
    if valgrind {
        assert!(
            !ran.stderr.contains("=="),
            "valgrind reported:\n{}",
            ran.stderr
        );
    }
}

#[test]
fn client_spawns_with_environment_directives_under_pmixrun() {
    run_client_spawn(false, false);
}

#[test]
fn client_spawn_is_clean_under_valgrind() {
    run_client_spawn(true, false);
}

/// The spawned children connect back to their parent and read its key,
/// the parent reads theirs (across namespaces), under valgrind too.
#[test]
fn spawned_children_connect_back_and_exchange_keys() {
    run_client_spawn(false, true);
    run_client_spawn(true, true);
}

/// `server_spawn.c`: a C host's spawn slot gets the requestor, the job
/// info and the apps of a client's `PMIx_Spawn`, and its callback (from
/// another thread) answers the client: a namespace, an error, or no
/// callback at all.
#[test]
fn a_c_host_spawn_slot_serves_pmix_spawn() {
    let Some(mut cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return;
    };
    cflags.push("-pthread".into());
    let dir = workdir("server_spawn");
    let lib = our_lib(&dir);
    let exe = compile(
        &source("server_spawn.c"),
        &dir,
        "server_spawn",
        &cflags,
        Some(&lib),
    );
    let ran = run(
        with_lib(&exe, &lib),
        &dir,
        "server_spawn",
        Duration::from_secs(60),
    );
    expect_ok(&ran, "server_spawn");
    for who in ["server_spawn", "server_spawn client"] {
        assert!(
            ran.stdout
                .lines()
                .any(|l| l.starts_with(&format!("{who}: ")) && l.ends_with("checks passed")),
            "{who} did not pass\n--- stdout\n{}\n--- stderr\n{}",
            ran.stdout,
            ran.stderr
        );
    }
}

#[test]
fn clients_connect_and_disconnect_with_the_4_2_signatures_under_pmixrun() {
    let Some((dir, lib, cmd)) = client_program("client_connect") else {
        return;
    };
    let ran = run_job(
        &dir,
        &lib,
        4,
        &cmd,
        "client_connect",
        Duration::from_secs(120),
    );
    expect_ok(&ran, "client_connect under pmixrun -n 4");
    expect_all_passed(&ran, "client_connect", 4);
}

#[test]
fn clients_construct_and_destruct_groups_with_the_4_2_signatures_under_pmixrun() {
    let Some((dir, lib, cmd)) = client_program("client_group") else {
        return;
    };
    let ran = run_job(
        &dir,
        &lib,
        4,
        &cmd,
        "client_group",
        Duration::from_secs(120),
    );
    expect_ok(&ran, "client_group under pmixrun -n 4");
    expect_all_passed(&ran, "client_group", 4);
    // one context id, the same at every member
    let mut cids: Vec<&str> = ran
        .stdout
        .lines()
        .filter_map(|l| l.split(": cid ").nth(1))
        .collect();
    assert_eq!(cids.len(), 4, "{}", ran.stdout);
    cids.dedup();
    assert_eq!(cids.len(), 1, "{}", ran.stdout);
}

/// A foreign host with a `group` slot: the server asks it for the context
/// id of a construct with `PMIX_GROUP_ASSIGN_CONTEXT_ID` (once per
/// construct, not per member), and the members get the host's id.
#[test]
fn server_host_group_slot_assigns_the_context_id() {
    let Some(mut cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return;
    };
    cflags.push("-pthread".into());
    let dir = workdir("server_host_group");
    let lib = our_lib(&dir);
    let client = compile(
        &source("client_group.c"),
        &dir,
        "client_group",
        &cflags,
        Some(&lib),
    );
    let host = compile(
        &source("server_host.c"),
        &dir,
        "server_host",
        &cflags,
        Some(&lib),
    );
    let mut cmd = with_lib(&host, &lib);
    cmd.arg(&client);
    let ran = run(cmd, &dir, "server_host_group", Duration::from_secs(120));
    expect_ok(&ran, "server_host with client_group");
    let out = &ran.stdout;
    assert!(
        out.lines().any(|l| l == "server_host: group calls 1"),
        "{out}\n{}",
        ran.stderr
    );
    for r in 0..2 {
        assert!(
            out.lines().any(|l| l == format!("rank {r}: cid 9000")),
            "{out}"
        );
        let line = format!("rank {r}: client_group: ");
        assert!(
            out.lines()
                .any(|l| l.starts_with(&line) && l.ends_with("checks passed")),
            "rank {r} did not pass\n--- stdout\n{out}\n--- stderr\n{}",
            ran.stderr
        );
    }
}
