//! mpi4py's dynamic processes (Debian `python3-mpi4py` on Debian's Open
//! MPI 4.1) under Debian's `mpirun`, on pmix-rs (`LD_LIBRARY_PATH` at this
//! crate's `libpmix.so.2`: `mpirun`'s server with the C host adapter's
//! spawn/connect slots, and every rank's client) and on Debian's OpenPMIx
//! 4.2 as the baseline, in the same test:
//!
//! - `tests/python/mpi4py_spawn.py`: `MPI.COMM_SELF.Spawn` of 2 children
//!   that exchange a value with the parent, then `Disconnect`;
//! - `tests/python/mpi4py_connect.py`: `Open_port`, `Publish_name`,
//!   `Lookup_name`, `Accept`/`Connect` between the two halves of a 4-rank
//!   job, `Merge`, `Disconnect`, `Unpublish_name`.
//!
//! Every Python process names on stderr the libpmix it mapped, so each run
//! is checked to be on the library it claims. Each test prints `SKIP:` and
//! passes when `/usr/bin/python3` lacks mpi4py or `mpirun` is missing (CI
//! installs them).

#[allow(unused_macros)] // `require!`: this file skips through `ready`
mod common;

use common::{have, our_lib, run, skip, workdir, Ran};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Debian's interpreter: the Debian packages install there only.
const PYTHON: &str = "/usr/bin/python3";
const DEADLINE: Duration = Duration::from_secs(120);

fn ready() -> bool {
    let mpi4py = Command::new(PYTHON)
        .args(["-c", "import mpi4py"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !mpi4py {
        skip(&format!("{PYTHON} with mpi4py (package python3-mpi4py)"));
        return false;
    }
    if !have("mpirun") {
        skip("mpirun (package openmpi-bin)");
        return false;
    }
    true
}

/// `mpirun -np <np> python3 <script> <args>` on our library in `lib`, or
/// on Debian's with `None`.
fn mpirun(lib: Option<&Path>, dir: &Path, np: u32, script: &str, args: &[&str], tag: &str) -> Ran {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let mut cmd = Command::new("mpirun");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args([
            "--oversubscribe",
            "-np",
            &np.to_string(),
            PYTHON,
            "-W",
            "ignore",
        ])
        .arg(script)
        .args(args)
        .current_dir(dir);
    match lib {
        Some(l) => cmd.env("LD_LIBRARY_PATH", l),
        // cargo puts its own directories on the path of test binaries
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    run(cmd, dir, tag, DEADLINE)
}

fn show(ran: &Ran) -> String {
    format!(
        "exit status {:?}, signal {:?}\n--- stdout\n{}\n--- stderr\n{}",
        ran.code, ran.signal, ran.stdout, ran.stderr
    )
}

/// The run succeeded, every one of its `procs` Python processes mapped
/// the library it should (ours from `lib`, else not ours), and it printed
/// every line of `want` once.
fn expect(ran: &Ran, tag: &str, lib: Option<&Path>, procs: usize, want: &[String]) {
    assert!(ran.ok, "{tag}: {}", show(ran));
    // mpirun may run two processes' lines together
    let mapped: Vec<&str> = ran
        .stderr
        .split("libpmix: ")
        .skip(1)
        .filter_map(|s| s.split_whitespace().next())
        .collect();
    assert_eq!(mapped.len(), procs, "{tag}: {}", show(ran));
    for m in &mapped {
        let ours = lib.is_some_and(|l| Path::new(m).starts_with(l));
        assert_eq!(ours, lib.is_some(), "{tag}: mapped {m}\n{}", show(ran));
    }
    // each wanted line once (mpirun may run lines together), nothing wrong
    for w in want {
        let n = ran.stdout.matches(w.as_str()).count();
        assert_eq!(n, 1, "{tag}: {w:?} printed {n} times\n{}", show(ran));
    }
    assert!(!ran.stdout.contains("WRONG"), "{tag}: {}", show(ran));
}

#[test]
fn mpi4py_comm_self_spawn_on_pmix_rs_and_openpmix() {
    if !ready() {
        return;
    }
    let dir = workdir("mpi4py-spawn");
    let lib = our_lib(&dir);
    let mut want: Vec<String> = (0..2)
        .map(|i| format!("child {i} of 2 got {}", 100 + i))
        .collect();
    want.push("parent got 2 answers".into());
    for (l, tag) in [
        (None, "mpi4py-spawn-openpmix"),
        (Some(&*lib), "mpi4py-spawn-ours"),
    ] {
        let ran = mpirun(l, &dir, 1, "mpi4py_spawn.py", &["2"], tag);
        expect(&ran, tag, l, 3, &want);
    }
}

#[test]
fn mpi4py_publish_lookup_connect_accept_on_pmix_rs_and_openpmix() {
    if !ready() {
        return;
    }
    let dir = workdir("mpi4py-connect");
    let lib = our_lib(&dir);
    let want: Vec<String> = (0..4)
        .map(|r| {
            let side = if r % 2 == 0 { "server" } else { "client" };
            format!("mpi4py {r} {side} got 42 sum 6")
        })
        .collect();
    for (l, tag) in [
        (None, "mpi4py-connect-openpmix"),
        (Some(&*lib), "mpi4py-connect-ours"),
    ] {
        let ran = mpirun(l, &dir, 4, "mpi4py_connect.py", &[], tag);
        expect(&ran, tag, l, 4, &want);
    }
}
