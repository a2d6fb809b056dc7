//! C tools (issue 17, tools) written against Debian's `pmix_tool.h` and
//! run on this crate's `libpmix.so.2`: `tests/c/tool_ps.c` (the shape of
//! OpenPMIx's `pps` + `pevent`) attaches to a live job by the launcher's
//! pid, lists the servers, the namespaces and each job's process table,
//! and raises an event that every rank's handler (`tests/c/tool_target.c`)
//! sees — against `pmixrun` and against Debian's `mpirun` (Open MPI 4.1)
//! hosting pmix-rs's server through `LD_LIBRARY_PATH`.
//!
//! `tests/c/debugger.c` starts `pmixrun --stop-in-init all` itself,
//! waits for the job's `PMIX_READY_FOR_DEBUG`, reads the process table
//! and releases the ranks (`tests/c/dbg_target.c`) held in `PMIx_Init`.
//!
//! `tests/python/pmix_tool.py` does what `tool_ps` does with Debian's
//! `python3-pmix` (the OpenPMIx 4.2.2 bindings' `PMIxTool`), on pmix-rs.
//!
//! Each test prints `SKIP:` and passes when `cc`, `pmix.h`, `mpirun` or
//! `python3-pmix` is missing.

#[macro_use]
mod common;

use common::{expect_ok, have, launcher_bin, our_lib, pmix_cflags, pmixrun, run, workdir};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The two programs compiled against Debian's headers and linked with the
/// drop-in: `(tool_ps, tool_target, lib)`.
fn build(dir: &Path) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let (mut out, lib) = build_these(dir, &["tool_ps", "tool_target"])?;
    Some((out.remove(0), out.remove(0), lib))
}

/// `names` (in `tests/c`) compiled and linked with the drop-in in `dir`.
fn build_these(dir: &Path, names: &[&str]) -> Option<(Vec<PathBuf>, PathBuf)> {
    let cflags = pmix_cflags()?;
    if !have("cc") {
        return None;
    }
    let lib = our_lib(dir);
    let mut out = Vec::new();
    for name in names {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/c")
            .join(format!("{name}.c"));
        let exe = dir.join(name);
        let mut cmd = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
        cmd.args([
            "-std=gnu11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unused-parameter",
            "-g",
        ])
        .args(&cflags)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lpmix");
        expect_ok(
            &run(cmd, dir, &format!("cc-{name}"), Duration::from_secs(120)),
            name,
        );
        out.push(exe);
    }
    Some((out, lib))
}

/// A job started in the background, its output in files.
struct Job {
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
}

impl Job {
    fn start(mut cmd: Command, dir: &Path, tag: &str) -> Job {
        let stdout = dir.join(format!("{tag}.stdout"));
        let stderr = dir.join(format!("{tag}.stderr"));
        cmd.stdout(fs::File::create(&stdout).unwrap())
            .stderr(fs::File::create(&stderr).unwrap());
        Job {
            child: cmd.spawn().unwrap(),
            stdout,
            stderr,
        }
    }

    fn output(&self) -> String {
        format!(
            "{}{}",
            fs::read_to_string(&self.stdout).unwrap_or_default(),
            fs::read_to_string(&self.stderr).unwrap_or_default()
        )
    }

    /// Waits until `n` ranks printed `ready` (killing the job after 60 s).
    fn wait_ready(&mut self, n: usize) {
        let t0 = Instant::now();
        while fs::read_to_string(&self.stdout)
            .unwrap_or_default()
            .matches("ready ")
            .count()
            < n
        {
            if t0.elapsed() > Duration::from_secs(60) || self.child.try_wait().unwrap().is_some() {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the job's ranks never got ready:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the job's end (killing it after 60 s); its output.
    fn finish(mut self) -> (bool, String) {
        let t0 = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return (st.success(), self.output());
            }
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the job did not end:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Debian's `mpirun` running `np` copies of `target` with pmix-rs as its
/// server library (`lib` first in `LD_LIBRARY_PATH`), its files under
/// `dir/tmp`, once every rank printed `ready`.
fn mpirun_job(dir: &Path, lib: &Path, target: &Path, np: usize) -> (Job, PathBuf) {
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new("mpirun");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("LD_LIBRARY_PATH", lib)
        .env("TMPDIR", &tmp)
        .args(["--oversubscribe", "-np", &np.to_string()])
        .arg(target);
    let mut job = Job::start(cmd, dir, "mpirun");
    job.wait_ready(np);
    (job, tmp)
}

/// Runs `tool_ps` against the job of launcher `pid` (files under `tmp`),
/// then checks both sides: every rank listed, every rank saw the tool's
/// event.
fn tool_against(job: Job, ps: &Path, lib: &Path, dir: &Path, tmp: &Path, n: u32, tag: &str) {
    let pid = job.child.id();
    let mut cmd = Command::new(ps);
    cmd.env("LD_LIBRARY_PATH", lib)
        .arg(pid.to_string())
        .arg(tmp);
    let ran = run(cmd, dir, &format!("{tag}-tool"), Duration::from_secs(60));
    let (ok, out) = job.finish();
    expect_ok(&ran, &format!("{tag}: tool_ps"));
    let tool = ran
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("tool "))
        .expect("the tool's identity")
        .to_owned();
    let procs: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|l| l.starts_with("proc "))
        .collect();
    assert_eq!(procs.len(), n as usize, "{tag}: {}", ran.stdout);
    for r in 0..n {
        assert!(
            procs
                .iter()
                .any(|l| l.split(' ').nth(2) == Some(&r.to_string())),
            "{tag}: rank {r} not listed\n{}",
            ran.stdout
        );
    }
    assert!(ran.stdout.contains("tool done"), "{}", ran.stdout);
    assert!(ok, "{tag}: the job failed\n{out}");
    assert_eq!(
        out.matches(&format!("got -3100 from {tool}")).count(),
        n as usize,
        "{tag}: every rank sees the tool's event\n{out}"
    );
}

#[test]
fn a_c_tool_lists_a_pmixrun_job_and_its_event_reaches_every_rank() {
    let dir = workdir("tool-pmixrun");
    let (ps, target, lib) = require!(build(&dir), "cc and pmix.h");
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new(pmixrun());
    cmd.env("LD_LIBRARY_PATH", &lib)
        .env("TMPDIR", &tmp)
        .args(["--timeout", "60", "-n", "3"])
        .arg(&target);
    let mut job = Job::start(cmd, &dir, "pmixrun");
    job.wait_ready(3);
    tool_against(job, &ps, &lib, &dir, &tmp, 3, "pmixrun");
}

#[test]
fn a_c_tool_lists_a_debian_mpirun_job_hosting_pmix_rs() {
    let dir = workdir("tool-mpirun");
    let built = build(&dir).filter(|_| have("mpirun"));
    let (ps, target, lib) = require!(built, "cc, pmix.h and mpirun");
    let (job, tmp) = mpirun_job(&dir, &lib, &target, 2);
    tool_against(job, &ps, &lib, &dir, &tmp, 2, "mpirun");
}

#[test]
fn a_c_debugger_holds_a_job_in_init_reads_its_proc_table_and_releases_it() {
    let dir = workdir("tool-debugger");
    let (exes, lib) = require!(
        build_these(&dir, &["debugger", "dbg_target"]),
        "cc and pmix.h"
    );
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new(&exes[0]);
    cmd.env("LD_LIBRARY_PATH", &lib)
        .env("TMPDIR", &tmp)
        .arg(pmixrun())
        .arg("3")
        .arg(&exes[1])
        .arg(dir.join("pid"));
    let ran = run(cmd, &dir, "debugger", Duration::from_secs(120));
    expect_ok(&ran, "debugger");
    let out = &ran.stdout;
    let ns = out
        .lines()
        .find_map(|l| l.strip_prefix("ready-for-debug "))
        .expect("READY_FOR_DEBUG")
        .to_owned();
    assert!(ns.ends_with("-job at pmix-init"), "{out}");
    // Every rank was held in init, listed while held, released after.
    let released = out.find("releasing").expect("released");
    for r in 0..3 {
        let past = out
            .find(&format!("past init {r}"))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            past > released,
            "rank {r} passed init before the release:\n{out}"
        );
        assert!(
            out.lines().any(|l| l.starts_with("proc ")
                && l.split(' ').nth(2) == Some(&r.to_string())
                && l.contains("EXECUTING")),
            "rank {r} not in the proc table:\n{out}"
        );
    }
    assert!(out.contains("job exit 0"), "{out}");
}

/// UC-15 through the C API: `tests/c/iof_tool.c` spawns a job with
/// `PMIX_FWD_STDOUT` from a tool and pulls it with `PMIx_IOF_pull`: the
/// spawned ranks' lines reach its handler with their source and channel,
/// not pmixrun's stdout; a second `PMIx_IOF_deregister` is
/// `PMIX_ERR_NOT_FOUND`.
#[test]
fn a_c_tool_pulls_the_stdout_of_a_job_it_spawned_with_fwd_stdout() {
    let dir = workdir("tool-iof");
    let (exes, lib) = require!(
        build_these(&dir, &["iof_tool", "dbg_target"]),
        "cc and pmix.h"
    );
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let launcher_out = dir.join("launcher.out");
    let mut cmd = Command::new(&exes[0]);
    cmd.env("LD_LIBRARY_PATH", &lib)
        .env("TMPDIR", &tmp)
        .arg(pmixrun())
        .arg(&exes[1])
        .arg(dir.join("pid"))
        .arg(&launcher_out);
    let ran = run(cmd, &dir, "iof_tool", Duration::from_secs(120));
    expect_ok(&ran, "iof_tool");
    let out = &ran.stdout;
    let child = out
        .lines()
        .find_map(|l| l.strip_prefix("pulled "))
        .and_then(|l| l.split(' ').next())
        .expect("pulled")
        .to_owned();
    for r in 0..2 {
        let want = format!("iof {child} {r} ch2: past init {r}");
        assert!(out.lines().any(|l| l == want), "{want} missing:\n{out}");
    }
    assert!(out.contains("second deregister: NOT-FOUND"), "{out}");
    assert!(out.contains("job exit 0"), "{out}");
    let shown = fs::read_to_string(&launcher_out).unwrap();
    assert_eq!(
        shown.matches("past init").count(),
        1,
        "pmixrun showed the forwarded lines itself:\n{shown}"
    );
}

/// Debian's `python3-pmix` as a tool: `tests/python/pmix_tool.py`
/// (`PMIxTool.init` with `PMIX_SERVER_PIDINFO`) attaches to a `pmixrun`
/// job of `tool_target`s, lists the namespaces and the job's process
/// table — each rank with its pid, `PMIX_PROC_STATE_RUNNING` and its
/// executable — and raises event -3100 at the job, which every rank's
/// handler sees. Before: the bindings crashed (SIGSEGV) converting the
/// proc table, whose `executable_name` was NULL under `pmixrun` (it
/// registers no `PMIX_APP_ARGV`); the server now names the executable
/// from `/proc/<pid>/exe`, as PRRTE gives its absolute path.
#[test]
fn python3_pmix_tool_lists_a_pmixrun_job_and_its_event_reaches_every_rank() {
    const PYTHON: &str = "/usr/bin/python3";
    let dir = workdir("tool-python");
    let has_bindings = Command::new(PYTHON)
        .args(["-c", "import pmix"])
        .output()
        .is_ok_and(|o| o.status.success());
    let built = build_these(&dir, &["tool_target"]).filter(|_| has_bindings);
    let (exes, lib) = require!(built, "cc, pmix.h and python3-pmix");
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new(pmixrun());
    cmd.env("LD_LIBRARY_PATH", &lib)
        .env("TMPDIR", &tmp)
        .args(["--timeout", "60", "-n", "3"])
        .arg(&exes[0]);
    let mut job = Job::start(cmd, &dir, "pmixrun");
    job.wait_ready(3);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/pmix_tool.py");
    let mut cmd = Command::new(PYTHON);
    cmd.env("LD_LIBRARY_PATH", &lib)
        .args(["-W", "ignore"])
        .arg(script)
        .arg(job.child.id().to_string())
        .arg(&tmp);
    let ran = run(cmd, &dir, "pytool", Duration::from_secs(60));
    let (ok, out) = job.finish();
    expect_ok(&ran, "python3-pmix tool");
    let tool = ran
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("pytool ").filter(|t| t.contains(':')))
        .expect("the tool's identity")
        .to_owned();
    for r in 0..3 {
        assert!(
            ran.stdout.lines().any(|l| {
                let w: Vec<&str> = l.split(' ').collect();
                w.len() == 8
                    && w[..2] == ["pytool", "proc"]
                    && w[3] == r.to_string()
                    && w[4].parse::<u32>().is_ok_and(|pid| pid > 0)
                    && w[5..7] == ["PROC", "EXECUTING"]
                    && w[7] == "tool_target"
            }),
            "rank {r} not listed with its pid, state and executable:\n{}",
            ran.stdout
        );
    }
    assert!(ran.stdout.contains("pytool done"), "{}", ran.stdout);
    assert!(ok, "the job failed\n{out}");
    assert_eq!(
        out.matches(&format!("got -3100 from {tool}")).count(),
        3,
        "every rank sees the tool's event\n{out}"
    );
}

/// `PMIx_IOF_push` from a C tool: it spawns a rank that reads its stdin
/// with `PMIX_FWD_STDIN`, pushes two lines (blocking, then with a callback
/// and `PMIX_IOF_COMPLETE`), and the rank reads both and then end-of-file;
/// a push after the close is `PMIX_ERR_NOT_FOUND`.
#[test]
fn a_c_tool_pushes_lines_to_the_stdin_of_a_rank_it_spawned() {
    let dir = workdir("tool-push");
    let (exes, lib) = require!(
        build_these(&dir, &["push_tool", "dbg_target", "stdin_target"]),
        "cc and pmix.h"
    );
    let tmp = dir.join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new(&exes[0]);
    cmd.env("LD_LIBRARY_PATH", &lib)
        .env("TMPDIR", &tmp)
        .arg(pmixrun())
        .arg(&exes[1])
        .arg(&exes[2])
        .arg(dir.join("pid"));
    let ran = run(cmd, &dir, "push_tool", Duration::from_secs(120));
    expect_ok(&ran, "push_tool");
    let out = &ran.stdout;
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("iof 0: ")).collect();
    assert_eq!(
        lines,
        [
            "iof 0: read alpha",
            "iof 0: read beta",
            "iof 0: eof after 2 lines"
        ],
        "{out}"
    );
    assert!(out.contains("push after close: NOT-FOUND"), "{out}");
    assert!(out.contains("job exit 0"), "{out}");
}

/// The `pmix` command (a PMIx tool of pmix-rs's own) against a Debian
/// `mpirun` job whose server is pmix-rs (`libpmix.so.2` first in
/// `LD_LIBRARY_PATH`): `pmix ps` lists both ranks under the mpirun's pid,
/// `pmix query pmix.qry.ns` names the job, and `pmix notify -3100 --range
/// session` reaches every rank, which then ends.
#[test]
fn the_pmix_command_lists_queries_and_notifies_a_debian_mpirun_job() {
    let dir = workdir("tool-pmixcli-mpirun");
    let built = build(&dir).filter(|_| have("mpirun"));
    let (_ps, target, lib) = require!(built, "cc, pmix.h and mpirun");
    let (job, tmp) = mpirun_job(&dir, &lib, &target, 2);
    let pid = job.child.id().to_string();
    let pmix = launcher_bin("pmix");
    let tmp_s = tmp.to_str().unwrap();
    let cli = |args: &[&str], tag: &str| {
        let mut c = Command::new(&pmix);
        c.args(["--pid", &pid, "--tmpdir", tmp_s]).args(args);
        run(c, &dir, tag, Duration::from_secs(60))
    };
    let ps = cli(&["ps"], "pmix-ps");
    expect_ok(&ps, "pmix ps");
    let ranks: Vec<&str> = ps
        .stdout
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(pid.as_str()))
        .collect();
    assert_eq!(
        ranks.len(),
        2,
        "both ranks under mpirun's pid:\n{}",
        ps.stdout
    );
    let q = cli(&["query", "pmix.qry.ns"], "pmix-query");
    expect_ok(&q, "pmix query");
    let ns = ranks[0].split_whitespace().nth(1).unwrap().to_owned();
    assert!(q.stdout.contains(&ns), "{ns} in:\n{}", q.stdout);
    let n = cli(&["notify", "-3100", "--range", "session"], "pmix-notify");
    expect_ok(&n, "pmix notify");
    let (ok, out) = job.finish();
    assert!(ok, "the job failed\n{out}");
    assert_eq!(out.matches("got -3100 from ").count(), 2, "{out}");
}
