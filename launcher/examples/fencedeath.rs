//! A PMIx client driven by `launcher/tests/fence_death.rs`:
//! `fencedeath <scenario>`, three ranks. It prints `ok …` lines and exits
//! 0 when every check passed; a failed check prints `FAIL: …` and exits 1.
//!
//! - `kill`: rank 2 prints `entering` and enters a fence the test kills it
//!   in (SIGKILL); rank 0 is in the same fence and must get
//!   `PMIX_ERR_LOST_CONNECTION` naming rank 2 as died, and prints the
//!   wall-clock time it did (`at <ms since the epoch>`); rank 1 enters its
//!   fence once the test says go (after the kill) and must get the same
//!   answer at once.
//! - `finalize`: rank 2 enters a fence (`fence_nb`), waits until it has
//!   arrived, then finalizes and exits; ranks 0 and 1 enter the fence once
//!   the test says go (after rank 2 exited) and it must succeed.
//!
//! "Go" is the file named by `FENCEDEATH_GO` coming into existence (waited
//! for at most [`GO_LIMIT`]).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pmix_client::Client;
use pmix_core::{attrs, Info, Status, Value};

/// The longest wait for the test's go.
const GO_LIMIT: Duration = Duration::from_secs(30);

/// Waits until the test creates the file `FENCEDEATH_GO` names.
fn wait_go() {
    let path = std::env::var_os("FENCEDEATH_GO").unwrap_or_else(|| fail("no FENCEDEATH_GO".into()));
    let t0 = Instant::now();
    while !std::path::Path::new(&path).exists() {
        if t0.elapsed() > GO_LIMIT {
            fail(format!("no go within {GO_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn timeout(secs: i32) -> Vec<Info> {
    vec![Info::new(attrs::TIMEOUT, Value::Int32(secs)).unwrap()]
}

fn epoch_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

fn kill_scenario(c: &Client) {
    let me = c.proc().rank.0;
    if me == 2 {
        println!("entering");
        let r = c.fence(&[], &timeout(60));
        fail(format!("rank 2 was not killed in its fence: {r:?}"));
    }
    if me == 1 {
        wait_go();
    }
    let t0 = Instant::now();
    // A deadline far away: only the death may end the fence.
    let r = c.fence(&[], &timeout(60));
    let (at, took) = (epoch_ms(), t0.elapsed());
    match r {
        Err(e) if e.status() == Status::ERR_LOST_CONNECTION => {
            let why = e.to_string();
            if !why.contains("rank 2 of namespace") || !why.contains("died") {
                fail(format!("the error does not name rank 2 as died: {why}"));
            }
            println!(
                "ok rank {me} failed at {at} after {} ms: {why}",
                took.as_millis()
            );
        }
        r => fail(format!(
            "rank {me}: wanted PMIX_ERR_LOST_CONNECTION, got {r:?}"
        )),
    }
}

fn finalize_scenario(c: &Client) {
    let me = c.proc().rank.0;
    if me == 2 {
        c.fence_nb(&[], &timeout(60), |r| println!("rank 2 fence_nb: {r:?}"));
        // Time to arrive (the fence cannot complete without ranks 0 and 1).
        std::thread::sleep(Duration::from_millis(500));
        if let Err(e) = c.finalize() {
            fail(format!("rank 2 finalize: {e}"));
        }
        println!("ok rank 2 finalized with its fence pending");
        std::process::exit(0);
    }
    wait_go();
    let t0 = Instant::now();
    if let Err(e) = c.fence(&[], &timeout(20)) {
        fail(format!("rank {me}: the fence failed: {e}"));
    }
    println!(
        "ok rank {me} fence completed in {} ms",
        t0.elapsed().as_millis()
    );
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "kill" => kill_scenario(&c),
        "finalize" => finalize_scenario(&c),
        s => fail(format!("unknown scenario {s:?}")),
    }
    if let Err(e) = c.finalize() {
        fail(format!("finalize: {e}"));
    }
}
