//! The C server API supplies fresh job directories to a host that gives
//! none (`tests/c/server_dirs.c`, compiled against Debian's OpenPMIx 4.2.2
//! headers and run on this crate's `libpmix.so.2`): `PMIX_TMPDIR` a 0700
//! session directory of the library's under the host's
//! `PMIX_SERVER_TMPDIR`, `PMIX_NSDIR` a 0700 directory of the namespace in
//! it, `PMIX_TDIR_RMCLEAN` true; the namespace's directory goes at
//! deregistration, the session directory at finalize; a host's own
//! directory keys are kept and nothing is created for them. Afterwards the
//! base directory holds exactly what the test put there.
//!
//! Prints `SKIP:` and passes when the headers are missing; CI installs
//! them (`libpmix-dev`).

#[macro_use]
mod common;

use common::{expect_ok, our_lib, pmix_cflags, run, workdir};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Compiles `tests/c/<name>.c` into `dir/<name>`, linked against the
/// drop-in in `lib`.
fn compile(name: &str, dir: &Path, cflags: &[String], lib: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(format!("{name}.c"));
    let out = dir.join(name);
    let mut cmd = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cmd.args([
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
        "-pthread",
    ])
    .args(cflags)
    .arg(&src)
    .arg("-o")
    .arg(&out)
    .arg(format!("-L{}", lib.display()))
    .arg("-lpmix");
    let ran = run(cmd, dir, &format!("cc-{name}"), Duration::from_secs(120));
    expect_ok(&ran, &format!("compiling {}", src.display()));
    out
}

#[test]
fn the_server_api_supplies_and_removes_job_directories() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    let dir = workdir("server_dirs");
    let lib = our_lib(&dir);
    let exe = compile("server_dirs", &dir, &cflags, &lib);
    let base = dir.join("base");
    fs::create_dir(&base).unwrap();
    fs::write(base.join("canary"), b"still here").unwrap();

    let mut cmd = Command::new(&exe);
    cmd.arg(&base).env("LD_LIBRARY_PATH", &lib);
    let ran = run(cmd, &dir, "server_dirs", Duration::from_secs(60));
    expect_ok(&ran, "server_dirs");
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with("server_dirs: ") && l.ends_with("checks passed")),
        "{}\n{}",
        ran.stdout,
        ran.stderr
    );
    // The session directory and the server's socket directory are gone.
    let left: Vec<String> = fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["canary"], "{}", ran.stdout);
    assert_eq!(fs::read(base.join("canary")).unwrap(), b"still here");
    fs::remove_dir_all(&dir).unwrap();
}
