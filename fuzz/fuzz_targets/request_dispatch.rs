//! Fuzz the server's request dispatch with a real server state: one
//! in-process `pmix_server::Server` (started once, under
//! `$TMPDIR/pmix-fuzz-dispatch.<pid>`), fed each input as a sequence of
//! frames by an authenticated client; after each input a second client's
//! well-formed request must be answered and the server's bookkeeping must
//! stay bounded. The harness is `server/tests/dispatch_harness/`, which
//! the stable test `server/tests/dispatch_fuzz.rs` runs too.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;

#[path = "../../server/tests/dispatch_harness/mod.rs"]
mod dispatch_harness;

use dispatch_harness::Harness;

static HARNESS: OnceLock<Mutex<Harness>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let h = HARNESS.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("pmix-fuzz-dispatch.{}", std::process::id()));
        std::fs::create_dir(&dir).expect("the fuzz target's own directory");
        Mutex::new(Harness::new(&dir))
    });
    h.lock().unwrap_or_else(|e| e.into_inner()).run(data);
});
