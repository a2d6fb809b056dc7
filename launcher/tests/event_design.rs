//! The event design's registration and replay rules with real processes:
//! `pmixrun` jobs running `examples/evorder.rs`.

use std::process::{Command, Output};

mod common;
use common::{example, text};

fn pmixrun(n: u32, scenario: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", &n.to_string()])
        .arg(example("evorder"))
        .arg(scenario)
        .output()
        .unwrap()
}

fn assert_ok(o: &Output, n: usize) {
    assert!(o.status.success(), "{}", text(o));
    assert_eq!(text(o).matches("ok done").count(), n, "{}", text(o));
    assert!(!text(o).contains("FAIL"), "{}", text(o));
}

/// EV-04 and EV-13 through a client: unnamed handlers cannot be cited;
/// one FIRST_IN_CATEGORY and one LAST_IN_CATEGORY per category, nothing
/// before the first or after the last; the accepted handlers run in their
/// placement order, refused ones never.
#[test]
fn placement_rules_refuse_what_they_must_and_order_the_rest() {
    let o = pmixrun(1, "names");
    assert_ok(&o, 1);
    for line in [
        "ok unnamed handlers cannot be cited",
        "ok a second first/last in a category and before first/after last refused",
        "ok dispatch order",
    ] {
        assert!(text(&o).contains(line), "{line}:\n{}", text(&o));
    }
}

/// EVD-08: the replay of a cached event reaches the new registration
/// only; a handler that already ran for it does not run again.
#[test]
fn a_replay_reaches_the_new_registration_only() {
    let o = pmixrun(2, "replay_once");
    assert_ok(&o, 2);
    assert_eq!(
        text(&o)
            .matches("ok replay reached the new registration only")
            .count(),
        2,
        "{}",
        text(&o)
    );
}
