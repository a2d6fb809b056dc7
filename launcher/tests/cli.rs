//! The real `pmixrun` binary with plain (non-PMIx) programs: output
//! forwarding, environment, exit statuses, timeouts and usage errors.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn pmixrun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run pmixrun")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn echo_three_times() {
    let o = pmixrun(&["-n", "3", "/bin/echo", "hi"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "hi\nhi\nhi\n");
    assert_eq!(stderr(&o), "");
}

#[test]
fn non_zero_exit_is_the_jobs_status() {
    let o = pmixrun(&["-n", "2", "sh", "-c", "exit 3"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("exited with status 3"), "{err}");
    assert!(err.starts_with("pmixrun: rank "), "{err}");
}

#[test]
fn one_failure_terminates_the_others() {
    let t0 = Instant::now();
    let o = pmixrun(&[
        "-n",
        "3",
        "sh",
        "-c",
        "if [ \"$PMIX_RANK\" = 1 ]; then exit 5; fi; sleep 30",
    ]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("pmixrun: rank 1 (pid "),
        "{}",
        stderr(&o)
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

#[test]
fn killed_by_a_signal() {
    let o = pmixrun(&["-n", "1", "sh", "-c", "kill -KILL $$"]);
    assert_eq!(o.status.code(), Some(128 + 9));
    let err = stderr(&o);
    assert!(err.contains("rank 0") && err.contains("signal 9"), "{err}");
}

#[test]
fn timeout_kills_the_job() {
    let t0 = Instant::now();
    let o = pmixrun(&["--timeout", "0.5", "-n", "1", "sleep", "30"]);
    let took = t0.elapsed();
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("pmixrun: job timed out after 0.5 s"),
        "{}",
        stderr(&o)
    );
    assert!(took >= Duration::from_millis(500), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn timeout_escalates_to_sigkill() {
    // The shell and its sleep ignore SIGTERM: SIGKILL follows after 2 s.
    let t0 = Instant::now();
    let o = pmixrun(&[
        "--timeout",
        "0.2",
        "-n",
        "2",
        "sh",
        "-c",
        "trap '' TERM; sleep 30",
    ]);
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    assert!(t0.elapsed() < Duration::from_secs(8), "{:?}", t0.elapsed());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["-n", "x", "prog"][..],
        &["-n", "0", "prog"][..],
        &["--bogus", "prog"][..],
        &["-n", "2"][..],
        &["/bin/echo", "hi"][..],
    ] {
        let o = pmixrun(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains("usage: pmixrun"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert_eq!(stdout(&o), "", "{args:?}");
    }
}

#[test]
fn help_exits_0() {
    for flag in ["-h", "--help"] {
        let o = pmixrun(&[flag]);
        assert_eq!(o.status.code(), Some(0));
        assert!(stdout(&o).contains("usage: pmixrun"));
    }
}

#[test]
fn exported_variables() {
    let o = pmixrun(&["-x", "FOO=bar", "-n", "1", "sh", "-c", "echo $FOO"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "bar\n");

    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args([
            "-x",
            "PMIXRUN_TEST_VAR",
            "-n",
            "2",
            "sh",
            "-c",
            "echo $PMIXRUN_TEST_VAR",
        ])
        .env("PMIXRUN_TEST_VAR", "inherited")
        .output()
        .unwrap();
    assert_eq!(stdout(&o), "inherited\ninherited\n");
}

#[test]
fn tag_output() {
    let o = pmixrun(&[
        "--tag-output",
        "-n",
        "2",
        "sh",
        "-c",
        "echo out$PMIX_RANK; echo err$PMIX_RANK >&2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        sorted_lines(&stdout(&o)),
        ["[1,0]<stdout>: out0", "[1,1]<stdout>: out1"]
    );
    assert_eq!(
        sorted_lines(&stderr(&o)),
        ["[1,0]<stderr>: err0", "[1,1]<stderr>: err1"]
    );
}

#[test]
fn tagged_partial_last_line_gets_a_newline() {
    let o = pmixrun(&["--tag-output", "-n", "1", "printf", "a\\nb"]);
    assert_eq!(stdout(&o), "[1,0]<stdout>: a\n[1,0]<stdout>: b\n");
    // Untagged output is passed through byte for byte.
    let o = pmixrun(&["-n", "1", "printf", "a\\nb"]);
    assert_eq!(stdout(&o), "a\nb");
}

#[test]
fn lines_never_interleave() {
    let o = pmixrun(&[
        "-n",
        "4",
        "sh",
        "-c",
        "i=0; while [ $i -lt 200 ]; do echo rank$PMIX_RANK-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-$i; i=$((i+1)); done",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 800);
    for l in out.lines() {
        let (head, tail) = l.split_once("-x").expect(l);
        assert!(head.starts_with("rank") && head.len() == 5, "{l}");
        let n: u32 = tail.rsplit('-').next().unwrap().parse().expect(l);
        assert!(n < 200, "{l}");
    }
}

#[test]
fn program_that_cannot_run() {
    let o = pmixrun(&["-n", "2", "/nonexistent/prog"]);
    assert_eq!(o.status.code(), Some(127));
    assert!(stderr(&o).contains("/nonexistent/prog"), "{}", stderr(&o));
}

#[test]
fn pmix_environment() {
    let o = pmixrun(&[
        "-n",
        "4",
        "sh",
        "-c",
        "echo $PMIX_RANK $OMPI_COMM_WORLD_RANK $OMPI_COMM_WORLD_SIZE $PMIX_NAMESPACE",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = sorted_lines(&stdout(&o));
    assert_eq!(lines.len(), 4);
    let ns = lines[0].split(' ').nth(3).unwrap().to_owned();
    assert!(ns.starts_with("run-") && ns.ends_with("-job"), "{ns}");
    for (r, l) in lines.iter().enumerate() {
        assert_eq!(*l, format!("{r} {r} 4 {ns}"));
    }
}

#[test]
fn stdin_goes_to_rank_0_only() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["-n", "2", "sh", "-c", "echo $PMIX_RANK:$(cat)"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"data").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(sorted_lines(&stdout(&o)), ["0:data", "1:"]);
}

#[test]
fn program_arguments_pass_through() {
    let o = pmixrun(&[
        "--np",
        "1",
        "--oversubscribe",
        "--bind-to",
        "core",
        "/bin/echo",
        "-n",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "x");
}
