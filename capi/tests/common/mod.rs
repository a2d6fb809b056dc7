//! Helpers shared by the integration tests that build and run C programs
//! (`c_programs.rs`, `mpi_programs.rs`): skipping when a tool is missing,
//! scratch directories, the drop-in library laid out for
//! `LD_LIBRARY_PATH`, and running a command with a deadline.

#![allow(dead_code)] // each test file uses its own subset

pub mod cprog;
use std::env;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Skips a test whose tool is missing — except in CI, where `.ci/run`
/// installs every tool and sets `PMIXRS_REQUIRE_TOOLS=1`: a missing tool
/// there is a failure, not a silent skip.
pub fn skip(what: &str) {
    if std::env::var_os("PMIXRS_REQUIRE_TOOLS").is_some() {
        panic!("{what} not found, and PMIXRS_REQUIRE_TOOLS is set");
    }
    eprintln!("SKIP: {what} not found");
}

/// `require!(option, "what")`: the value inside `Some`, or [`skip`] and
/// return from the test.
macro_rules! require {
    ($opt:expr, $what:literal) => {
        match $opt {
            Some(v) => v,
            None => {
                $crate::common::skip($what);
                return;
            }
        }
    };
}

/// Whether `tool --version` runs and succeeds.
pub fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A fresh scratch directory for one test.
pub fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("capi-c")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The cdylib cargo built for this test run.
pub fn built_lib() -> PathBuf {
    let exe = env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [
        deps.join("libpmix.so"),
        deps.parent().unwrap().join("libpmix.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("cargo builds the cdylib before the integration tests")
}

/// [`built_lib`] laid out as a drop-in in `dir/lib`: `libpmix.so.2` plus
/// the `libpmix.so` link `-lpmix` needs.
pub fn our_lib(dir: &Path) -> PathBuf {
    let lib = dir.join("lib");
    fs::create_dir_all(&lib).unwrap();
    fs::copy(built_lib(), lib.join("libpmix.so.2")).unwrap();
    std::os::unix::fs::symlink("libpmix.so.2", lib.join("libpmix.so")).unwrap();
    lib
}

/// How a command ended and what it wrote (invalid UTF-8 replaced).
pub struct Ran {
    pub ok: bool,
    pub code: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// A captured output file, invalid UTF-8 replaced (rather than losing it
/// all: a crashing program may write anything).
fn read_lossy(path: &Path) -> String {
    fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// Runs `cmd` with a deadline, its output captured through files (no pipe
/// can fill up while we wait).
pub fn run(mut cmd: Command, dir: &Path, tag: &str, limit: Duration) -> Ran {
    let out_path = dir.join(format!("{tag}.stdout"));
    let err_path = dir.join(format!("{tag}.stderr"));
    cmd.stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{tag}: cannot start: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{tag}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ran {
        ok: status.success(),
        code: status.code(),
        signal: status.signal(),
        stdout: read_lossy(&out_path),
        stderr: read_lossy(&err_path),
    }
}

/// Panics, with the command's output, unless it succeeded.
pub fn expect_ok(ran: &Ran, tag: &str) {
    assert!(
        ran.ok,
        "{tag} failed (exit status {:?}, signal {:?})\n--- stdout\n{}\n--- stderr\n{}",
        ran.code, ran.signal, ran.stdout, ran.stderr
    );
}

/// `Some` when Debian's Open MPI tools are installed.
pub fn open_mpi() -> Option<()> {
    (have("mpicc") && have("mpirun")).then_some(())
}

/// Compiles `tests/mpi/<name>.c` with `mpicc` into `dir/<name>`.
pub fn mpi_program(name: &str, dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mpi")
        .join(format!("{name}.c"));
    let exe = dir.join(name);
    let mut cmd = Command::new("mpicc");
    cmd.args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-ldl");
    let ran = run(cmd, dir, &format!("mpicc-{name}"), Duration::from_secs(120));
    expect_ok(&ran, &format!("compiling {}", src.display()));
    exe
}

/// Compiler flags that find `pmix.h`, or `None` when the headers are absent.
pub fn pmix_cflags() -> Option<Vec<String>> {
    if let Ok(out) = Command::new("pkg-config")
        .args(["--cflags", "pmix"])
        .output()
    {
        if out.status.success() {
            let flags: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            let found = flags.iter().any(|f| {
                f.strip_prefix("-I")
                    .is_some_and(|d| Path::new(d).join("pmix.h").exists())
            });
            if found {
                return Some(flags);
            }
        }
    }
    ["/usr/lib/x86_64-linux-gnu/pmix2/include", "/usr/include"]
        .iter()
        .find(|d| Path::new(d).join("pmix.h").exists())
        .map(|d| vec![format!("-I{d}")])
}

/// This workspace's `pmixrun`, built in this test's profile.
pub fn pmixrun() -> PathBuf {
    launcher_bin("pmixrun")
}

/// This workspace's pmix-launcher binary `name` (`pmixrun`, `pmix`),
/// built in this test's profile once per test process.
pub fn launcher_bin(name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = built.iter().find(|(n, _)| n == name) {
        return p.clone();
    }
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let st = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "pmix-launcher", "--bin", name])
        .args(if cfg!(debug_assertions) {
            &[][..]
        } else {
            &["--release"][..]
        })
        .status()
        .unwrap();
    assert!(st.success(), "building {name} failed");
    let p = profile_dir.join(name);
    assert!(p.exists(), "no {}", p.display());
    built.push((name.to_owned(), p.clone()));
    p
}
