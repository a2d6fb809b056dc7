//! A PMIx client for the `get` rules (docs/GET-RULES.md), driven by
//! `launcher/tests/get_rules.rs`: `getclient <scenario>`, two ranks. It
//! prints `ok …` lines and exits 0 when every check passed; a failed check
//! prints `FAIL: …` and exits 1.
//!
//! Scenarios (rank 1 is the peer whose data rank 0 asks for):
//! - `late`: rank 1 commits a key 300 ms after a fence that carried its
//!   earlier card; rank 0's plain get waits for it. Before that commit,
//!   `PMIX_OPTIONAL`, `PMIX_IMMEDIATE`, `PMIX_GET_REFRESH_CACHE`, an unknown
//!   job-level key, an unknown reserved key and an own key never put all
//!   answer `PMIX_ERR_NOT_FOUND` at once.
//! - `timeout`: rank 0 asks with `PMIX_TIMEOUT` 1 for a key rank 1 never
//!   commits, before and after rank 1's first commit: `PMIX_ERR_TIMEOUT`
//!   after about 1 s, both times.
//! - `finalized`: rank 1 commits, fences, finalizes 300 ms later; rank 0's
//!   plain get of a key it never committed waits until then and answers
//!   `PMIX_ERR_NOT_FOUND`.
//! - `dead`: as `finalized`, but rank 1 exits without finalizing.
//! - `lost`: only rank 0 runs; it waits for a key of rank 1, registered
//!   but never started; the test stops the server. Prints
//!   `lost at <ms since the epoch>`.
//! - `remote`: ranks on two servers ("nodes"): a collecting fence carries
//!   the cards, then rank 1 commits a key 300 ms later; rank 0's get goes
//!   through direct modex and is held on rank 1's node until that commit.
//!   A key never committed, with `PMIX_TIMEOUT` 1: `PMIX_ERR_TIMEOUT`.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pmix_client::Client;
use pmix_core::{attrs, Info, Proc, Rank, Result, Scope, Status, Value};

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn info(key: &str, value: Value) -> Vec<Info> {
    vec![Info::new(key, value).unwrap()]
}

/// `r` failed with `want`; how long `t0` ago.
fn expect_err(r: Result<Value>, want: Status, what: &str, t0: Instant) -> Duration {
    let took = t0.elapsed();
    match r {
        Err(e) if e.status() == want => took,
        other => fail(format!("{what}: {other:?} after {took:?}, want {want}")),
    }
}

/// `r` failed with NOT_FOUND within 500 ms.
fn at_once_not_found(r: Result<Value>, what: &str, t0: Instant) {
    let took = expect_err(r, Status::ERR_NOT_FOUND, what, t0);
    check(took < Duration::from_millis(500), || {
        format!("{what}: NOT_FOUND only after {took:?}")
    });
}

fn put_commit(c: &Client, key: &str, v: u32) {
    c.put(Scope::GLOBAL, key, Value::Uint32(v))
        .unwrap_or_else(|e| fail(format!("put {key}: {e}")));
    c.commit()
        .unwrap_or_else(|e| fail(format!("commit {key}: {e}")));
}

fn fence(c: &Client, collect: bool) {
    let i = info(attrs::COLLECT_DATA, Value::Bool(collect));
    c.fence(&[], &i)
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let me = c.proc().clone();
    let peer = |r: u32| Proc::from_parts(me.nspace.clone(), Rank(r));
    let r = me.rank.0;
    match scenario.as_str() {
        "late" => late(&c, &me, r, &peer(1)),
        "timeout" => timeout(&c, r, &peer(1)),
        "finalized" | "dead" => ended(&c, r, &peer(1), scenario == "dead"),
        "lost" => lost(&c, &peer(1)),
        "remote" => remote(&c, r, &peer(1)),
        s => fail(format!("unknown scenario {s:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}

/// Rank 0 tells rank 1 to go on by committing `get.go`, which rank 1
/// waits for with a plain get.
fn go(c: &Client, r: u32, zero: &Proc) {
    if r == 0 {
        put_commit(c, "get.go", 7);
    } else {
        let t0 = Instant::now();
        match c.get(zero, "get.go", &[]) {
            Ok(Value::Uint32(7)) => {}
            other => fail(format!("go: {other:?} after {:?}", t0.elapsed())),
        }
    }
}

/// Rank 1 commits `get.late` 300 ms after rank 0's go; rank 0's plain get
/// of it waits.
fn late_key(c: &Client, r: u32, zero: &Proc, one: &Proc, what: &str) {
    go(c, r, zero);
    if r == 1 {
        std::thread::sleep(Duration::from_millis(300));
        put_commit(c, "get.late", 42);
        return;
    }
    let t0 = Instant::now();
    match c.get(one, "get.late", &[]) {
        Ok(Value::Uint32(42)) => {}
        other => fail(format!(
            "{what} late key: {other:?} after {:?}",
            t0.elapsed()
        )),
    }
    let took = t0.elapsed();
    check(took >= Duration::from_millis(200), || {
        format!("{what} late key after {took:?}, before it was committed")
    });
    println!("ok {what} late key after {} ms", took.as_millis());
}

fn late(c: &Client, me: &Proc, r: u32, one: &Proc) {
    put_commit(c, "get.card", r);
    fence(c, false);
    let zero = Proc::from_parts(me.nspace.clone(), Rank(0));
    if r == 0 {
        // rank 1 has a card but not get.late: nothing here waits
        for (what, i) in [
            ("OPTIONAL", info(attrs::OPTIONAL, Value::Bool(true))),
            ("IMMEDIATE", info(attrs::IMMEDIATE, Value::Bool(true))),
            ("REFRESH", info(attrs::GET_REFRESH_CACHE, Value::Bool(true))),
        ] {
            at_once_not_found(c.get(one, "get.late", &i), what, Instant::now());
        }
        let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
        at_once_not_found(c.get(&wild, "get.nokey", &[]), "job level", Instant::now());
        at_once_not_found(
            c.get(one, "pmix.no.such.key", &[]),
            "reserved",
            Instant::now(),
        );
        at_once_not_found(c.get(me, "get.never", &[]), "own", Instant::now());
        println!("ok at once");
    }
    late_key(c, r, &zero, one, "local");
    fence(c, false);
}

fn timed_out(c: &Client, one: &Proc, what: &str) {
    let t0 = Instant::now();
    let i = info(attrs::TIMEOUT, Value::Int(1));
    let took = expect_err(c.get(one, "get.never", &i), Status::ERR_TIMEOUT, what, t0);
    check(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        || format!("{what}: PMIX_TIMEOUT 1 ended after {took:?}"),
    );
    println!("ok {what} timeout after {} ms", took.as_millis());
}

fn timeout(c: &Client, r: u32, one: &Proc) {
    if r == 0 {
        timed_out(c, one, "uncommitted");
    }
    put_commit(c, "get.card", r);
    fence(c, false);
    if r == 0 {
        timed_out(c, one, "committed");
    }
    fence(c, false);
}

fn ended(c: &Client, r: u32, one: &Proc, die: bool) {
    put_commit(c, "get.card", r);
    fence(c, false);
    if r == 1 {
        std::thread::sleep(Duration::from_millis(300));
        if die {
            println!("ok exiting without finalize");
            std::process::exit(0);
        }
        c.finalize()
            .unwrap_or_else(|e| fail(format!("finalize: {e}")));
        println!("ok done");
        std::process::exit(0);
    }
    let t0 = Instant::now();
    let took = expect_err(
        c.get(one, "get.never", &[]),
        Status::ERR_NOT_FOUND,
        "key of a peer that ended",
        t0,
    );
    check(took >= Duration::from_millis(200), || {
        format!("NOT_FOUND after {took:?}, before the peer ended")
    });
    println!(
        "ok not found when the peer ended, after {} ms",
        took.as_millis()
    );
}

fn lost(c: &Client, other: &Proc) {
    println!("ok waiting");
    let r = c.get(other, "get.never", &[]);
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis();
    match r {
        Err(e) if e.status() == Status::ERR_LOST_CONNECTION => {}
        other => fail(format!("get while the server went away: {other:?}")),
    }
    println!("ok lost at {at}");
    // Nothing to finalize with.
    std::process::exit(0);
}

fn remote(c: &Client, r: u32, one: &Proc) {
    put_commit(c, "get.card", r);
    fence(c, true);
    let zero = Proc::from_parts(one.nspace.clone(), Rank(0));
    let other = if r == 0 { one } else { &zero };
    match c.get(other, "get.card", &[]) {
        Ok(Value::Uint32(v)) if v == 1 - r => {}
        other => fail(format!("card from the fence: {other:?}")),
    }
    if r == 0 {
        let opt = info(attrs::OPTIONAL, Value::Bool(true));
        at_once_not_found(
            c.get(one, "get.late", &opt),
            "remote OPTIONAL",
            Instant::now(),
        );
        let imm = info(attrs::IMMEDIATE, Value::Bool(true));
        at_once_not_found(
            c.get(one, "get.late", &imm),
            "remote IMMEDIATE",
            Instant::now(),
        );
    }
    // Both ways through direct modex, each held on the other node until
    // the commit: rank 1's get of get.go, rank 0's get of get.late.
    late_key(c, r, &zero, one, "remote");
    if r == 0 {
        timed_out(c, one, "remote");
    }
    fence(c, false);
}
