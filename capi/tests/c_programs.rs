//! C programs compiled against Debian's OpenPMIx 4.2.2 headers
//! (`libpmix-dev`) and run on this crate's `libpmix.so.2`:
//!
//! - `layout.c`: `sizeof`/`offsetof` of every mirrored struct and the value
//!   of every constant, compared with the Rust side ([`pmix::layout`],
//!   [`pmix::types::ALL_CONSTANTS`]);
//! - `util.c`: the utility functions used the way C programs use them,
//!   also under valgrind when it is installed;
//! - `strings.c`: the same binary run on pmix-rs and on OpenPMIx (when
//!   Debian's `libpmix2` is installed), outputs compared line by line;
//! - the library file itself: SONAME and exported symbols;
//! - `client_basic.c`, `client_events.c`, `client_refcount.c`,
//!   `client_pubsub.c`: PMIx clients
//!   launched by this workspace's `pmixrun -n 4` with `LD_LIBRARY_PATH`
//!   pointing at the drop-in (init, job/own-rank data with exact types,
//!   put/commit/fence/peer data, event handler placement and results,
//!   PROC_LOCAL, deregistration callbacks, init/finalize reference counting,
//!   job-control cleanup, log through the host, publish/lookup with
//!   `PMIX_WAIT`/unpublish, peer and node resolution, the NOT_SUPPORTED
//!   answers), one of them also
//!   under valgrind;
//! - `server_host.c`, `two_nodes.c` (+ `two_nodes_client.c`): foreign hosts
//!   on the server API — one node, and two servers as two nodes (host
//!   `fence_nb` blob exchange, `direct_modex` answered by
//!   `PMIx_server_dmodex_request`).
//!
//! Every test prints `SKIP:` and passes when the headers (or the tool it
//! needs) are missing; CI installs them.

#[macro_use]
mod common;

use common::cprog::*;
use common::{expect_ok, have, our_lib, pmix_cflags, run, skip, workdir, Ran};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::process::Command;
use std::time::Duration;

#[test]
fn mirrors_match_the_c_headers() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    let dir = workdir("layout");

    let mut items = String::new();
    for (name, _, _) in pmix::layout::scalars() {
        items.push_str(&format!("TYPE({name})\n"));
    }
    for t in pmix::layout::all() {
        items.push_str(&format!("TYPE({})\n", t.name));
        for (field, _, _) in &t.fields {
            items.push_str(&format!("FIELD({}, {field})\n", t.name));
        }
    }
    for (name, _) in pmix::types::ALL_CONSTANTS {
        items.push_str(&format!("CONST({name})\n"));
    }
    fs::write(dir.join("layout_items.h"), items).unwrap();

    let exe = compile(&source("layout.c"), &dir, "layout", &cflags, None);
    let ran = run(Command::new(exe), &dir, "layout", Duration::from_secs(30));
    expect_ok(&ran, "layout");

    let mut c_types = BTreeMap::new();
    let mut c_fields = BTreeMap::new();
    let mut c_consts = BTreeMap::new();
    for line in ran.stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["TYPE", n, s, a] => {
                c_types.insert(
                    n.to_string(),
                    (s.parse::<usize>().unwrap(), a.parse::<usize>().unwrap()),
                );
            }
            ["FIELD", t, f, o, s] => {
                let v = (o.parse::<usize>().unwrap(), s.parse::<usize>().unwrap());
                c_fields.insert((t.to_string(), f.to_string()), v);
            }
            ["CONST", n, v] => {
                c_consts.insert(n.to_string(), v.parse::<i64>().unwrap());
            }
            _ => panic!("unexpected layout line {line:?}"),
        }
    }

    let mut mismatches = Vec::new();
    for (name, size, align) in pmix::layout::scalars() {
        if c_types.get(name) != Some(&(size, align)) {
            mismatches.push(format!(
                "{name}: Rust {size}/{align}, C {:?}",
                c_types.get(name)
            ));
        }
    }
    let mut nfields = 0;
    for t in pmix::layout::all() {
        if c_types.get(t.name) != Some(&(t.size, t.align)) {
            mismatches.push(format!(
                "{}: Rust {}/{}, C {:?}",
                t.name,
                t.size,
                t.align,
                c_types.get(t.name)
            ));
        }
        for (field, off, size) in &t.fields {
            nfields += 1;
            let c = c_fields.get(&(t.name.to_owned(), field.clone()));
            if c != Some(&(*off, *size)) {
                mismatches.push(format!(
                    "{}.{field}: Rust off {off} size {size}, C {c:?}",
                    t.name
                ));
            }
        }
    }
    for (name, value) in pmix::types::ALL_CONSTANTS {
        if c_consts.get(*name) != Some(value) {
            mismatches.push(format!("{name}: Rust {value}, C {:?}", c_consts.get(*name)));
        }
    }
    assert!(
        mismatches.is_empty(),
        "layout mismatches:\n{}",
        mismatches.join("\n")
    );
    assert!(nfields > 180, "only {nfields} fields checked");
    assert_eq!(c_consts.len(), pmix::types::ALL_CONSTANTS.len());
}

#[test]
fn util_program_passes_on_our_library() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    let dir = workdir("util");
    let lib = our_lib(&dir);
    let exe = compile(&source("util.c"), &dir, "util", &cflags, Some(&lib));
    let ran = run(with_lib(&exe, &lib), &dir, "util", Duration::from_secs(60));
    expect_ok(&ran, "util");
    assert!(ran.stdout.contains("checks passed"), "{}", ran.stdout);
}

#[test]
fn util_program_is_clean_under_valgrind() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    if !have("valgrind") {
        skip("valgrind");
        return;
    }
    let dir = workdir("util-valgrind");
    let lib = our_lib(&dir);
    let exe = compile(&source("util.c"), &dir, "util", &cflags, Some(&lib));
    let mut cmd = Command::new("valgrind");
    cmd.env("LD_LIBRARY_PATH", &lib).args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--show-leak-kinds=definite,indirect",
        "--errors-for-leak-kinds=definite,indirect",
        "-q",
    ]);
    cmd.arg(&exe);
    let ran = run(cmd, &dir, "valgrind-util", Duration::from_secs(300));
    expect_ok(&ran, "util under valgrind");
}

#[test]
fn strings_match_openpmix_4_2_2() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    let real = require!(
        openpmix_libdir(),
        "OpenPMIx libpmix.so.2 (package libpmix2)"
    );
    let dir = workdir("strings");
    let lib = our_lib(&dir);
    let attrs: String = pmix::layout::attribute_names()
        .iter()
        .map(|n| format!("ATTR({n})\n"))
        .collect();
    fs::write(dir.join("attr_items.h"), attrs).unwrap();
    let exe = compile(&source("strings.c"), &dir, "strings", &cflags, Some(&lib));

    let ours = run(
        with_lib(&exe, &lib),
        &dir,
        "strings-ours",
        Duration::from_secs(60),
    );
    expect_ok(&ours, "strings on pmix-rs");
    let theirs = run(
        with_lib(&exe, &real),
        &dir,
        "strings-openpmix",
        Duration::from_secs(60),
    );
    expect_ok(&theirs, "strings on OpenPMIx");

    let (a, b): (Vec<&str>, Vec<&str>) = (
        ours.stdout.lines().collect(),
        theirs.stdout.lines().collect(),
    );
    assert_eq!(a.len(), b.len(), "line counts differ");
    let mut diffs = Vec::new();
    let mut compared = 0;
    for (x, y) in a.iter().zip(&b) {
        // Before PMIx_Init, OpenPMIx names only some data types; pmix-rs
        // answers as an initialised OpenPMIx does (checked in strings.rs).
        if y.ends_with("NOT INITIALIZED") {
            continue;
        }
        compared += 1;
        if x != y {
            diffs.push(format!("pmix-rs : {x}\nOpenPMIx: {y}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    assert!(compared > 4000, "only {compared} lines compared");
}

#[test]
fn library_has_the_soname_and_only_standard_exports() {
    if !have("nm") || !have("readelf") {
        skip("binutils (nm, readelf)");
        return;
    }
    let dir = workdir("exports");
    let lib = our_lib(&dir).join("libpmix.so.2");

    let mut cmd = Command::new("readelf");
    cmd.arg("-d").arg(&lib);
    let ran = run(cmd, &dir, "readelf", Duration::from_secs(30));
    expect_ok(&ran, "readelf");
    assert!(
        ran.stdout.contains("Library soname: [libpmix.so.2]"),
        "{}",
        ran.stdout
    );

    let mut cmd = Command::new("nm");
    cmd.args(["-D", "--defined-only"]).arg(&lib);
    let ran = run(cmd, &dir, "nm", Duration::from_secs(30));
    expect_ok(&ran, "nm");
    let standard: BTreeSet<&str> = include_str!("data/libpmix_exports_PMIx.txt")
        .lines()
        .collect();
    assert_eq!(standard.len(), 141);
    // OpenPMIx 5.0 (the Open MPI 5.0.11 wheel's libpmix.so.2): a superset
    let v5: BTreeSet<&str> = include_str!("data/openpmix5_exports_PMIx.txt")
        .lines()
        .collect();
    assert_eq!(v5.len(), 289);
    assert!(standard.is_subset(&v5));
    let mut exported = BTreeSet::new();
    for line in ran.stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (kind, name) = match w.as_slice() {
            [_, k, n] => (*k, *n),
            [k, n] => (*k, *n),
            _ => panic!("unexpected nm line {line:?}"),
        };
        assert!(!name.contains('@'), "{name} is versioned");
        if name == "pmix_framework_names" {
            // the one data symbol (OpenPMIx 5; Open MPI 5 reads it)
            assert!(matches!(kind, "R" | "D"), "{name} is exported as {kind}");
            continue;
        }
        assert_eq!(kind, "T", "{name} is exported as {kind}, not as a function");
        assert!(
            v5.contains(name),
            "{name} is not an OpenPMIx 4.2.2 or 5.0 export"
        );
        exported.insert(name.to_owned());
    }
    for needed in [
        "PMIx_Get_version",
        "PMIx_Error_string",
        "PMIx_Info_load",
        "PMIx_Value_destruct",
        "PMIx_Value_load",
        "PMIx_Value_unload",
        "PMIx_Value_xfer",
        "PMIx_Data_array_destruct",
        "PMIx_Info_list_start",
        "PMIx_Info_list_release",
        "PMIx_Initialized",
    ]
    .into_iter()
    .chain(OMPI_CLIENT_IMPORTS)
    {
        assert!(exported.contains(needed), "{needed} is not exported");
    }
    // every OpenPMIx 5.0 function (docs/CAPI.md lists each with its status)
    let missing: Vec<&&str> = v5.iter().filter(|f| !exported.contains(**f)).collect();
    assert!(
        missing.is_empty(),
        "OpenPMIx 5.0 exports missing: {missing:?}"
    );
}

/// The functions Open MPI 4.1's `mca_pmix_ext3x.so` imports from
/// libpmix.so.2, server side excepted (docs/CAPI.md, "What Open MPI
/// needs").
const OMPI_CLIENT_IMPORTS: [&str; 35] = [
    "PMIx_Abort",
    "PMIx_Commit",
    "PMIx_Connect",
    "PMIx_Connect_nb",
    "PMIx_Deregister_event_handler",
    "PMIx_Disconnect",
    "PMIx_Disconnect_nb",
    "PMIx_Fence",
    "PMIx_Fence_nb",
    "PMIx_Finalize",
    "PMIx_Get",
    "PMIx_Get_nb",
    "PMIx_Get_version",
    "PMIx_Info_load",
    "PMIx_Init",
    "PMIx_Job_control_nb",
    "PMIx_Log_nb",
    "PMIx_Lookup",
    "PMIx_Lookup_nb",
    "PMIx_Notify_event",
    "PMIx_Publish",
    "PMIx_Publish_nb",
    "PMIx_Put",
    "PMIx_Query_info_nb",
    "PMIx_Register_event_handler",
    "PMIx_Resolve_nodes",
    "PMIx_Resolve_peers",
    "PMIx_Spawn",
    "PMIx_Spawn_nb",
    "PMIx_Store_internal",
    "PMIx_Unpublish",
    "PMIx_Unpublish_nb",
    "PMIx_Value_destruct",
    "PMIx_tool_finalize",
    "PMIx_tool_init",
];

// ---------------------------------------------------------------------------
// Clients under pmixrun

#[test]
fn client_gets_puts_and_fences_under_pmixrun() {
    let Some((dir, lib, mut cmd)) = client_program("client_basic") else {
        return;
    };
    cmd.push("4".into());
    let ran = run_job(
        &dir,
        &lib,
        4,
        &cmd,
        "client_basic",
        Duration::from_secs(120),
    );
    expect_ok(&ran, "client_basic under pmixrun -n 4");
    expect_all_passed(&ran, "client_basic", 4);
    for r in 0..4 {
        // PMIx_Log_nb(PMIX_LOG_STDERR) reached the rank's stderr
        let line = format!("client_basic log line from rank {r}");
        assert!(ran.stderr.contains(&line), "{line} missing: {}", ran.stderr);
    }
}

#[test]
fn client_event_handlers_run_in_placement_order_with_chained_results() {
    let Some((dir, lib, cmd)) = client_program("client_events") else {
        return;
    };
    let ran = run_job(
        &dir,
        &lib,
        4,
        &cmd,
        "client_events",
        Duration::from_secs(120),
    );
    expect_ok(&ran, "client_events under pmixrun -n 4");
    expect_all_passed(&ran, "client_events", 4);
    for r in 0..4 {
        for want in [
            format!("rank {r} order: first,prepend,append"),
            format!("rank {r} saw first: []"),
            format!("rank {r} saw prepend: [first=SUCCESS,first.ret=\"first\"]"),
            format!(
                "rank {r} saw append: [first=SUCCESS,first.ret=\"first\",\
                 prepend=SUCCESS,prepend.ret=\"prepend\"]"
            ),
        ] {
            assert!(
                ran.stdout.lines().any(|l| l == want),
                "missing {want:?} in\n{}",
                ran.stdout
            );
        }
    }
}

#[test]
fn client_init_finalize_is_reference_counted_and_cleans_up() {
    let Some((dir, lib, mut cmd)) = client_program("client_refcount") else {
        return;
    };
    let scratch = dir.join("scratch");
    fs::create_dir_all(&scratch).unwrap();
    cmd.push(scratch.display().to_string());
    let ran = run_job(
        &dir,
        &lib,
        4,
        &cmd,
        "client_refcount",
        Duration::from_secs(120),
    );
    expect_ok(&ran, "client_refcount under pmixrun -n 4");
    expect_all_passed(&ran, "client_refcount", 4);
    for r in 0..4 {
        // the MPI_Abort-style banner (PMIX_LOG_MSG byte object) on stderr
        let banner = format!("refcount banner from rank {r}\n");
        assert!(
            ran.stderr.contains(&banner),
            "{banner:?} missing: {}",
            ran.stderr
        );
        assert!(!scratch.join(format!("rank{r}-tree")).exists());
        assert!(!scratch.join(format!("rank{r}-file")).exists());
        let kept = scratch.join(format!("rank{r}-kept"));
        let left: Vec<_> = fs::read_dir(&kept)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec!["keep"], "{}", kept.display());
    }
}

#[test]
fn clients_publish_look_up_and_resolve_peers_under_pmixrun() {
    let Some((dir, lib, mut cmd)) = client_program("client_pubsub") else {
        return;
    };
    cmd.push("4".into());
    let ran = run_job(
        &dir,
        &lib,
        4,
        &cmd,
        "client_pubsub",
        Duration::from_secs(120),
    );
    expect_ok(&ran, "client_pubsub under pmixrun -n 4");
    expect_all_passed(&ran, "client_pubsub", 4);
}

#[test]
fn client_run_is_clean_under_valgrind() {
    if !have("valgrind") {
        skip("valgrind");
        return;
    }
    let Some((dir, lib, exe)) = client_program("client_basic") else {
        return;
    };
    let mut cmd: Vec<String> = [
        "valgrind",
        "--error-exitcode=99",
        "--leak-check=full",
        "--show-leak-kinds=definite",
        "--errors-for-leak-kinds=definite",
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    cmd.extend(exe);
    cmd.push("2".into());
    let ran = run_job(
        &dir,
        &lib,
        2,
        &cmd,
        "valgrind-client",
        Duration::from_secs(500),
    );
    expect_ok(&ran, "client_basic under valgrind");
    expect_all_passed(&ran, "client_basic", 2);
    assert!(
        !ran.stderr.contains("=="),
        "valgrind reported:\n{}",
        ran.stderr
    );
}

#[test]
fn server_host_launches_clients_through_the_server_api() {
    let Some(mut cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return;
    };
    cflags.push("-pthread".into());
    // its own directory: the other tests compile client_basic in theirs
    let dir = workdir("server_host");
    let lib = our_lib(&dir);
    let client = compile(
        &source("client_basic.c"),
        &dir,
        "client_basic",
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
    cmd.arg(&client).arg("2");
    let ran = run(cmd, &dir, "server_host", Duration::from_secs(120));
    expect_ok(&ran, "server_host");
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with("server_host: ") && l.ends_with("checks passed")),
        "{}\n{}",
        ran.stdout,
        ran.stderr
    );
    for r in 0..2 {
        let line = format!("rank {r}: client_basic: ");
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

/// Two pmix-rs servers driven as two nodes by a foreign host
/// (`two_nodes.c`, which forks itself): the host's `fence_nb` exchanges
/// the nodes' blobs and hands back their concatenation, and its
/// `direct_modex` is answered with `PMIx_server_dmodex_request` on the
/// other node; the clients (`two_nodes_client.c`) read the peer's data
/// that came each way. Run again under valgrind (servers and clients)
/// when it is installed: the host frees the fence blob the library hands
/// over, the library releases what the host hands back.
#[test]
fn two_servers_exchange_blobs_and_serve_direct_modex() {
    let Some(mut cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return;
    };
    cflags.push("-pthread".into());
    let dir = workdir("two_nodes");
    let lib = our_lib(&dir);
    let client = compile(
        &source("two_nodes_client.c"),
        &dir,
        "two_nodes_client",
        &cflags,
        Some(&lib),
    );
    let host = compile(
        &source("two_nodes.c"),
        &dir,
        "two_nodes",
        &cflags,
        Some(&lib),
    );
    let expect_passed = |ran: &Ran, tag: &str| {
        expect_ok(ran, tag);
        for prefix in [
            "two_nodes: node A: ",
            "two_nodes: node B: ",
            "two_nodes_client rank 0: ",
            "two_nodes_client rank 1: ",
        ] {
            assert!(
                ran.stdout
                    .lines()
                    .any(|l| l.starts_with(prefix) && l.ends_with(" checks passed")),
                "{tag}: no {prefix:?}pass line\n--- stdout\n{}\n--- stderr\n{}",
                ran.stdout,
                ran.stderr
            );
        }
    };
    let mut cmd = with_lib(&host, &lib);
    cmd.arg(&client);
    let ran = run(cmd, &dir, "two_nodes", Duration::from_secs(60));
    expect_passed(&ran, "two_nodes");

    if !have("valgrind") {
        skip("valgrind");
        return;
    }
    let mut cmd = Command::new("valgrind");
    cmd.env("LD_LIBRARY_PATH", &lib)
        .env("TWO_NODES_ALARM", "50")
        .args([
            "--error-exitcode=99",
            "--leak-check=full",
            "--show-leak-kinds=definite",
            "--errors-for-leak-kinds=definite",
            "--trace-children=yes",
            "-q",
        ])
        .arg(&host)
        .arg(&client);
    let ran = run(cmd, &dir, "valgrind-two_nodes", Duration::from_secs(60));
    expect_passed(&ran, "two_nodes under valgrind");
    assert!(
        !ran.stderr.contains("=="),
        "valgrind reported:\n{}",
        ran.stderr
    );
}
