//! `PMIx_Get`'s per-thread answers (`src/client/get_cache.rs`), through a
//! C client (`tests/c/client_get_cache.c`) under `pmixrun -n 2`: a repeated
//! get allocates only the memory the caller frees, and a kept answer never
//! outlives the data it was read from.

#[allow(unused_macros)] // `require!`: these tests skip through `client_program`
mod common;

use common::cprog::*;
use common::expect_ok;
use std::time::Duration;

#[test]
fn repeated_gets_allocate_only_what_the_caller_frees_and_stay_current() {
    let Some((dir, lib, cmd)) = client_program("client_get_cache") else {
        return;
    };
    let ran = run_job(
        &dir,
        &lib,
        2,
        &cmd,
        "client_get_cache",
        Duration::from_secs(60),
    );
    expect_ok(&ran, "client_get_cache under pmixrun -n 2");
    expect_all_passed(&ran, "client_get_cache", 2);
}
