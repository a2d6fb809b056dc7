//! `tests/c/v5_helpers.c`: the PMIx v5 helper functions Open MPI 5 uses
//! (construct/destruct/create/free/load/xfer of the public structs, info
//! flags, argv and setenv, the info-list additions, text helpers,
//! `pmix_framework_names`), compiled against Debian's OpenPMIx 4.2.2
//! headers (the v5 prototypes declared in the program) and run on this
//! crate's `libpmix.so.2`, plain and under valgrind (leaks, invalid
//! accesses and double frees are errors: every create has its free).
//!
//! Each test prints `SKIP:` and passes when the headers or valgrind are
//! missing, except under `PMIXRS_REQUIRE_TOOLS=1` (CI).

#[macro_use]
mod common;

use common::{expect_ok, have, our_lib, pmix_cflags, run, skip, workdir};
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Compiles `tests/c/v5_helpers.c` into `dir/v5_helpers`, linked against
/// the drop-in in `lib`.
fn compile(dir: &Path, cflags: &[String], lib: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/v5_helpers.c");
    let out = dir.join("v5_helpers");
    let mut cmd = Command::new(env::var("CC").unwrap_or_else(|_| "cc".into()));
    cmd.args([
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-Wno-unused-parameter",
        "-g",
    ])
    .args(cflags)
    .arg(&src)
    .arg("-o")
    .arg(&out)
    .arg(format!("-L{}", lib.display()))
    .arg("-lpmix");
    let ran = run(cmd, dir, "cc-v5_helpers", Duration::from_secs(120));
    expect_ok(&ran, &format!("compiling {}", src.display()));
    out
}

#[test]
fn v5_helpers_program_passes_on_our_library() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    let dir = workdir("v5-helpers");
    let lib = our_lib(&dir);
    let exe = compile(&dir, &cflags, &lib);
    let mut cmd = Command::new(&exe);
    cmd.env("LD_LIBRARY_PATH", &lib);
    let ran = run(cmd, &dir, "v5_helpers", Duration::from_secs(60));
    expect_ok(&ran, "v5_helpers");
    assert!(ran.stdout.contains("checks passed"), "{}", ran.stdout);
}

#[test]
fn v5_helpers_program_is_clean_under_valgrind() {
    let cflags = require!(pmix_cflags(), "pmix.h (package libpmix-dev)");
    if !have("valgrind") {
        skip("valgrind");
        return;
    }
    let dir = workdir("v5-helpers-valgrind");
    let lib = our_lib(&dir);
    let exe = compile(&dir, &cflags, &lib);
    let mut cmd = Command::new("valgrind");
    cmd.env("LD_LIBRARY_PATH", &lib).args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--show-leak-kinds=definite,indirect",
        "--errors-for-leak-kinds=definite,indirect",
        "-q",
    ]);
    cmd.arg(&exe);
    let ran = run(cmd, &dir, "valgrind-v5_helpers", Duration::from_secs(300));
    expect_ok(&ran, "v5_helpers under valgrind");
    assert!(ran.stdout.contains("checks passed"), "{}", ran.stdout);
}
