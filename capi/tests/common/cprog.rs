//! Building and running the C test programs of `tests/c/`: compiling
//! against Debian's headers and the drop-in, running them as a `pmixrun`
//! job, and reading their pass lines.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::{expect_ok, our_lib, pmix_cflags, pmixrun, run, skip, workdir, Ran};

/// Where Debian's OpenPMIx library lives, if installed.
pub fn openpmix_libdir() -> Option<PathBuf> {
    let from_pkg = Command::new("pkg-config")
        .args(["--variable=libdir", "pmix"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    from_pkg
        .into_iter()
        .chain([PathBuf::from("/usr/lib/x86_64-linux-gnu/pmix2/lib")])
        .find(|d| d.join("libpmix.so.2").exists())
}

pub fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/c")
        .join(name)
}

/// Compiles `src` (plus `-I dir` for generated headers) into `dir/exe`,
/// linked against the drop-in in `lib` when given.
pub fn compile(
    src: &Path,
    dir: &Path,
    exe: &str,
    cflags: &[String],
    lib: Option<&Path>,
) -> PathBuf {
    let out = dir.join(exe);
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
    .arg(format!("-I{}", dir.display()))
    .arg(src)
    .arg("-o")
    .arg(&out);
    if let Some(lib) = lib {
        cmd.arg(format!("-L{}", lib.display())).arg("-lpmix");
    }
    let ran = run(cmd, dir, &format!("cc-{exe}"), Duration::from_secs(120));
    expect_ok(&ran, &format!("compiling {}", src.display()));
    out
}

/// A command running `exe` with `lib` first on the library path.
pub fn with_lib(exe: &Path, lib: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.env("LD_LIBRARY_PATH", lib);
    cmd
}

/// Compiles `tests/c/<name>.c` against Debian's headers and our drop-in;
/// `None` (after a SKIP) without the headers.
pub fn client_program(name: &str) -> Option<(PathBuf, PathBuf, Vec<String>)> {
    client_program_in(name, name)
}

/// [`client_program`] in the scratch directory `dir_name` (tests of one
/// program that run in parallel).
pub fn client_program_in(name: &str, dir_name: &str) -> Option<(PathBuf, PathBuf, Vec<String>)> {
    let Some(mut cflags) = pmix_cflags() else {
        skip("pmix.h (package libpmix-dev)");
        return None;
    };
    cflags.push("-pthread".into());
    let dir = workdir(dir_name);
    let lib = our_lib(&dir);
    let exe = compile(
        &source(&format!("{name}.c")),
        &dir,
        name,
        &cflags,
        Some(&lib),
    );
    Some((dir, lib, vec![exe.display().to_string()]))
}

/// Runs `cmd` (a program and its arguments) as `np` ranks of a `pmixrun`
/// job on the drop-in in `lib`.
pub fn run_job(dir: &Path, lib: &Path, np: u32, cmd: &[String], tag: &str, limit: Duration) -> Ran {
    let mut c = Command::new(pmixrun());
    c.env("LD_LIBRARY_PATH", lib)
        .arg("--timeout")
        .arg(limit.as_secs().saturating_sub(10).max(10).to_string())
        .arg("-n")
        .arg(np.to_string())
        .args(cmd);
    run(c, dir, tag, limit)
}

/// Every rank printed its pass line.
pub fn expect_all_passed(ran: &Ran, prog: &str, np: u32) {
    for r in 0..np {
        let line = format!("rank {r}: {prog}: ");
        assert!(
            ran.stdout
                .lines()
                .any(|l| l.starts_with(&line) && l.ends_with("checks passed")),
            "rank {r} did not pass {prog}\n--- stdout\n{}\n--- stderr\n{}",
            ran.stdout,
            ran.stderr
        );
    }
}
