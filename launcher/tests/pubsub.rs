//! Publish / lookup / unpublish and `PMIx_Log` through `pmixrun`'s host,
//! across real processes: `pmixrun -n 4 examples/pubsub <scenario>`.
//! Every run is bounded by pmixrun's `--timeout` (and each waiting lookup
//! by its own `PMIX_TIMEOUT`).

use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod common;
use common::{example, text};

const NP: usize = 4;

fn pmixrun(scenario: &str, extra: &[&str]) -> Output {
    let client = example("pubsub");
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", &NP.to_string()])
        .args(extra)
        .arg(client)
        .arg(scenario)
        .output()
        .unwrap()
}

/// Every rank passed and finalized; `line` appears `n` times.
fn assert_ok(o: &Output, line: &str, n: usize) {
    let all = text(o);
    assert!(o.status.success(), "{all}");
    assert!(!all.contains("FAIL"), "{all}");
    assert_eq!(all.matches("ok done").count(), NP, "{all}");
    assert_eq!(all.matches(line).count(), n, "{line:?}:\n{all}");
}

#[test]
fn lookups_with_wait_are_answered_by_a_later_publish() {
    let o = pmixrun("wait", &[]);
    assert_ok(&o, "ok waited", NP - 1);
    assert_ok(&o, "ok not found", 1);
    assert_ok(&o, "ok published", 1);
}

#[test]
fn a_duplicate_publish_is_refused_whole_and_ranges_separate_keys() {
    let o = pmixrun("dup", &[]);
    assert_ok(&o, "ok dup lookups", NP);
    assert_ok(&o, "ok duplicate refused", 1);
    assert_ok(&o, "ok same key on another range", 1);
}

#[test]
fn first_read_data_is_gone_after_one_lookup() {
    let o = pmixrun("firstread", &[]);
    assert_ok(&o, "ok first read", 1);
    assert_ok(&o, "ok gone after first read", NP);
}

#[test]
fn unpublish_removes_only_the_callers_keys() {
    let o = pmixrun("unpublish", &[]);
    assert_ok(&o, "ok unpublish", NP);
}

#[test]
fn a_waiting_lookup_ends_at_its_timeout() {
    let t0 = Instant::now();
    let o = pmixrun("timeout", &[]);
    assert_ok(&o, "ok timeout", NP);
    // the four 1 s waits run side by side
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
}

#[test]
fn log_messages_reach_pmixruns_own_stdout_and_stderr() {
    // With --tag-output the ranks' own lines are tagged; what the host
    // writes is not, which shows it came through PMIx_Log.
    let o = pmixrun("log", &["--tag-output"]);
    assert_ok(&o, "ok log", NP);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let lines = |s: &str| -> Vec<String> { s.lines().map(str::to_owned).collect() };
    let (out, err) = (lines(&out), lines(&err));
    for r in 0..NP {
        let has = |v: &[String], l: String| {
            assert!(v.contains(&l), "no line {l:?} in {v:#?}");
        };
        has(&err, format!("pubsub-log stderr rank {r}"));
        has(&err, format!("pubsub-log msg rank {r}"));
        has(&err, format!("pubsub-log partial rank {r}"));
        has(&out, format!("pubsub-log stdout rank {r}"));
        has(&out, format!("[1,{r}]<stdout>: ok log"));
    }
    assert!(!text(&o).contains("pubsub-log syslog"), "{}", text(&o));
}
