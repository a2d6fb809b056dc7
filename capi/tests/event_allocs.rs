//! Heap allocations per event through the C ABI (issue 18): a C client
//! (`tests/c/client_event_allocs.c`) under `pmixrun -n 2` counts every
//! allocation of its process while it sends and handles PROC_LOCAL events
//! and while it receives NAMESPACE events from its peer, each with one
//! scalar info, and while it sends or receives CUSTOM-range events whose
//! `PMIX_EVENT_CUSTOM_RANGE` is a `pmix_data_array_t` of one proc (the
//! receiver checks it sees exactly the infos sent); on the steady state
//! there are none.

#[allow(unused_macros)] // `require!`: these tests skip through `client_program`
mod common;

use common::cprog::*;
use common::expect_ok;
use std::time::Duration;

#[test]
fn events_through_the_c_abi_allocate_nothing_on_the_steady_state() {
    let Some((dir, lib, cmd)) = client_program("client_event_allocs") else {
        return;
    };
    let ran = run_job(
        &dir,
        &lib,
        2,
        &cmd,
        "client_event_allocs",
        Duration::from_secs(120),
    );
    println!("{}", ran.stdout);
    expect_ok(&ran, "client_event_allocs under pmixrun -n 2");
    expect_all_passed(&ran, "client_event_allocs", 2);
}
