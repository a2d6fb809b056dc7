//! Hybrid applications coordinating at run time with several event
//! handlers (use cases UC-26, UC-27): three libraries of one process,
//! each registering from its own thread, see a phase change
//! (`PMIX_MODEL_RESOURCES` with `PMIX_MODEL_PHASE_NAME` / `_TYPE`) and the
//! OpenMP-style `PMIX_OPENMP_PARALLEL_ENTERED` / `EXITED` exactly once
//! each, in order, PROC_LOCAL (the peer rank sees none of them)
//! (`examples/hybridclient.rs`). Bounded by `pmixrun --timeout`.

use std::process::Command;

mod common;
use common::{example, text};

#[test]
fn phase_and_openmp_events_reach_handlers_of_every_thread_exactly_once() {
    let o = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", "60", "-n", "2"])
        .arg(example("hybridclient"))
        .output()
        .unwrap();
    let all = text(&o);
    assert!(o.status.success(), "{all}");
    assert!(!all.contains("FAIL"), "{all}");
    for l in [
        "ok phase change seen by every library once",
        "ok openmp events reach handlers of three threads once each",
        "ok done",
    ] {
        assert_eq!(all.matches(l).count(), 2, "{l:?}:\n{all}");
    }
}
