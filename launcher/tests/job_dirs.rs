//! The job's scratch directories under the real `pmixrun`
//! (`examples/dirclient.rs` reports what it got): `PMIX_TMPDIR` is a fresh
//! 0700 session directory of pmixrun's under `$TMPDIR` — never `$TMPDIR`
//! itself — and `PMIX_NSDIR` a fresh 0700 directory of the job in it,
//! with `PMIX_TDIR_RMCLEAN` true; both are gone when pmixrun has ended,
//! however the job ended (success, a failed rank, an abort, `--timeout`,
//! pmixrun killed by SIGTERM or SIGKILL), and nothing else in `$TMPDIR` is
//! touched.
//!
//! Every test runs with `TMPDIR` set to a scratch directory of its own
//! holding a canary file.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{example, text};

/// A scratch `TMPDIR` with a canary, removed at the end of the test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("launcher-job-dirs")
            .join(tag);
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("canary"), b"still here").unwrap();
        fs::create_dir(d.join("someone-elses")).unwrap();
        fs::write(d.join("someone-elses/file"), b"x").unwrap();
        Scratch(d)
    }

    /// Everything in it but the canary and the other directory.
    fn leftovers(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "canary" && n != "someone-elses")
            .collect();
        v.sort();
        v
    }

    fn assert_untouched(&self) {
        assert_eq!(
            fs::read(self.0.join("canary")).unwrap(),
            b"still here".to_vec()
        );
        assert!(self.0.join("someone-elses/file").exists());
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// What one rank printed.
#[derive(Debug, Clone, PartialEq)]
struct Dirs {
    rank: u32,
    tmpdir: String,
    tmpmode: String,
    nsdir: String,
    nsmode: String,
    rmclean: String,
}

fn parse(out: &str) -> Vec<Dirs> {
    let mut v: Vec<Dirs> = out
        .lines()
        .filter_map(|l| l.strip_prefix("dirs "))
        .map(|l| {
            let field = |k: &str| {
                l.split(' ')
                    .find_map(|f| f.strip_prefix(&format!("{k}=")))
                    .unwrap_or_else(|| panic!("no {k} in {l:?}"))
                    .to_owned()
            };
            Dirs {
                rank: field("rank").parse().unwrap(),
                tmpdir: field("tmpdir"),
                tmpmode: field("tmpmode"),
                nsdir: field("nsdir"),
                nsmode: field("nsmode"),
                rmclean: field("rmclean"),
            }
        })
        .collect();
    v.sort_by_key(|d| d.rank);
    v
}

/// Checks what `n` ranks reported: one fresh 0700 session directory of
/// pmixrun's directly under `scratch`, one 0700 job directory in it, the
/// RM-cleans flag; returns the session directory.
fn check_reported(out: &str, n: u32, scratch: &Scratch) -> PathBuf {
    let dirs = parse(out);
    assert_eq!(dirs.len(), n as usize, "{out}");
    let uid = fs::metadata("/proc/self").unwrap().uid();
    let first = &dirs[0];
    let session = PathBuf::from(&first.tmpdir);
    assert_eq!(
        session.parent(),
        Some(scratch.0.as_path()),
        "PMIX_TMPDIR must be a directory of its own under $TMPDIR, not $TMPDIR: {first:?}"
    );
    let name = session.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with(&format!("pmixrun.{uid}.")), "{name}");
    assert_eq!(
        Path::new(&first.nsdir).parent(),
        Some(session.as_path()),
        "{first:?}"
    );
    for (r, d) in dirs.iter().enumerate() {
        assert_eq!(d.rank, r as u32);
        assert_eq!((&d.tmpdir, &d.nsdir), (&first.tmpdir, &first.nsdir));
        assert_eq!(
            (d.tmpmode.as_str(), d.nsmode.as_str()),
            ("700", "700"),
            "{d:?}"
        );
        assert_eq!(d.rmclean, "true", "{d:?}");
    }
    session
}

fn pmixrun(scratch: &Scratch) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pmixrun"));
    c.env("TMPDIR", &scratch.0).stdin(Stdio::null());
    c
}

/// Runs `pmixrun <args> dirclient <what>` to the end (it has its own
/// `--timeout`).
fn run(scratch: &Scratch, args: &[&str], what: &str) -> Output {
    pmixrun(scratch)
        .args(args)
        .arg(example("dirclient"))
        .arg(what)
        .output()
        .unwrap()
}

#[test]
fn fresh_private_directories_gone_after_a_normal_end() {
    let s = Scratch::new("normal");
    let o = run(&s, &["--timeout", "60", "-n", "2"], "ok");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let session = check_reported(&String::from_utf8_lossy(&o.stdout), 2, &s);
    assert!(!session.exists());
    assert_eq!(s.leftovers(), Vec::<String>::new());
    s.assert_untouched();
}

#[test]
fn directories_gone_after_a_rank_failed() {
    let s = Scratch::new("rankfail");
    let o = run(&s, &["--timeout", "60", "-n", "3"], "fail");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let session = check_reported(&String::from_utf8_lossy(&o.stdout), 3, &s);
    assert!(!session.exists());
    assert_eq!(s.leftovers(), Vec::<String>::new());
    s.assert_untouched();
}

#[test]
fn directories_gone_after_an_abort() {
    let s = Scratch::new("abort");
    let o = run(&s, &["--timeout", "60", "-n", "2"], "abort");
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    let session = check_reported(&String::from_utf8_lossy(&o.stdout), 2, &s);
    assert!(!session.exists());
    assert_eq!(s.leftovers(), Vec::<String>::new());
    s.assert_untouched();
}

#[test]
fn directories_gone_after_the_timeout() {
    let s = Scratch::new("timeout");
    let o = run(&s, &["--timeout", "5", "-n", "2"], "hang");
    assert_eq!(o.status.code(), Some(124), "{}", text(&o));
    let session = check_reported(&String::from_utf8_lossy(&o.stdout), 2, &s);
    assert!(!session.exists());
    assert_eq!(s.leftovers(), Vec::<String>::new());
    s.assert_untouched();
}

/// Polls `cond` every 20 ms for up to `limit`.
fn eventually(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

#[test]
fn directories_gone_after_pmixrun_is_killed() {
    for sig in ["TERM", "KILL"] {
        let s = Scratch::new(&format!("sig{sig}"));
        let out_path = s.0.join("out");
        let out_file = fs::File::create(&out_path).unwrap();
        let mut child = pmixrun(&s)
            .args(["--timeout", "60", "-n", "2"])
            .arg(example("dirclient"))
            .arg("hang")
            .stdout(out_file)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = || fs::read_to_string(&out_path).unwrap_or_default();
        let up = eventually(Duration::from_secs(30), || parse(&out()).len() == 2);
        if !up {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the ranks did not report in 30 s:\n{}", out());
        }
        let session = check_reported(&out(), 2, &s);
        let st = Command::new("kill")
            .args(["-s", sig, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let t0 = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "pmixrun ignored SIG{sig}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The watchdog terminates the job, waits 2 s, kills what is
        // left, then removes the session directory.
        let gone = eventually(Duration::from_secs(15), || {
            !session.exists() && s.leftovers() == ["out"]
        });
        assert!(gone, "SIG{sig}: left behind {:?}", s.leftovers());
        s.assert_untouched();
    }
}
