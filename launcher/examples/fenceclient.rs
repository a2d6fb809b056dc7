//! A PMIx client driven by the fence-timeout tests
//! (`launcher/tests/fence_timeout.rs`): `fenceclient <scenario>`. It prints
//! `ok …` lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.
//!
//! - `timeout` (3 or more ranks): after a first fence of all ranks, the
//!   last rank sleeps [`LATE`] before its fence 1 while the others give up
//!   after a `PMIX_TIMEOUT` of 1 s: they must get `PMIX_ERR_TIMEOUT` after
//!   about 1 s, naming the last rank as not arrived, the last rank must get it at once, and then two fences of
//!   all ranks must succeed. Which path the fences take (shared memory or
//!   server) is the caller's choice (`PMIXRS_CAPS`).
//! - `host` (1 rank): a fence with a proc of another namespace, handed to a
//!   host that never answers, with a `PMIX_TIMEOUT` of 1 s: the server must
//!   answer `PMIX_ERR_TIMEOUT` at the deadline.

use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};

/// How late the last rank enters fence 1 in `timeout`.
const LATE: Duration = Duration::from_millis(2500);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn timeout(secs: i32) -> Vec<Info> {
    vec![Info::new(attrs::TIMEOUT, Value::Int32(secs)).unwrap()]
}

/// A fence that must succeed.
fn fence_ok(c: &Client, what: &str, info: &[Info]) {
    if let Err(e) = c.fence(&[], info) {
        fail(format!("{what}: {e}"));
    }
}

/// A fence that must end with `want`; returns how long it took and the
/// error's text.
fn fence_err(c: &Client, procs: &[Proc], info: &[Info], want: Status) -> (Duration, String) {
    let t0 = Instant::now();
    let r = c.fence(procs, info);
    let took = t0.elapsed();
    match r {
        Err(e) if e.status() == want => (took, e.to_string()),
        r => fail(format!("wanted {want:?}, got {r:?} after {took:?}")),
    }
}

fn timeout_scenario(c: &Client) {
    let me = c.proc().rank.0;
    let size = c
        .get(
            &Proc::from_parts(c.proc().nspace.clone(), Rank::WILDCARD),
            attrs::JOB_SIZE,
            &[],
        )
        .and_then(|v| v.to_u64())
        .unwrap_or_else(|e| fail(format!("JOB_SIZE: {e}"))) as u32;
    check(size >= 3, || format!("needs 3 ranks or more, not {size}"));
    fence_ok(c, "fence 0", &[]);
    if me == size - 1 {
        std::thread::sleep(LATE);
        // A timeout of its own far away: only the others' may end it.
        let (took, why) = fence_err(c, &[], &timeout(30), Status::ERR_TIMEOUT);
        check(took < Duration::from_millis(500), || {
            format!("the late fence took {took:?}, not at once")
        });
        check(why.contains("already timed out"), || {
            format!("the late fence's error does not say so: {why}")
        });
        println!("ok late fence answered in {} ms: {why}", took.as_millis());
    } else {
        let (took, why) = fence_err(c, &[], &timeout(1), Status::ERR_TIMEOUT);
        check(took >= Duration::from_millis(900) && took < LATE, || {
            format!("the timed-out fence took {took:?}")
        });
        let absent = format!("rank {} of namespace", size - 1);
        check(
            why.contains(&absent) && why.contains("had not arrived"),
            || {
                format!(
                    "the timeout does not name rank {} as absent: {why}",
                    size - 1
                )
            },
        );
        println!("ok fence timed out after {} ms: {why}", took.as_millis());
    }
    fence_ok(c, "fence 2 (after the timeout)", &timeout(30));
    fence_ok(c, "fence 3", &[]);
    println!("ok done rank {me}");
}

fn host_scenario(c: &Client) {
    let elsewhere = Nspace::new("fenceclient-elsewhere").unwrap();
    let procs = [c.proc().clone(), Proc::from_parts(elsewhere, Rank(0))];
    let (took, why) = fence_err(c, &procs, &timeout(1), Status::ERR_TIMEOUT);
    check(
        took >= Duration::from_millis(900) && took < Duration::from_millis(1900),
        || format!("the cross-node fence took {took:?}: {why}"),
    );
    check(why.contains("other nodes"), || {
        format!("not the server's answer: {why}")
    });
    println!(
        "ok host never answered; fence ended after {} ms",
        took.as_millis()
    );
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "timeout" => timeout_scenario(&c),
        "host" => host_scenario(&c),
        s => fail(format!("unknown scenario {s:?}")),
    }
    if let Err(e) = c.finalize() {
        fail(format!("finalize: {e}"));
    }
}
