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
//! - `all`: `get_all` (`PMIx_Get` with a NULL key) after a collecting
//!   fence: this rank's own puts in every scope and its job data, a
//!   `store_internal` value first, the peer's LOCAL/GLOBAL keys but not its
//!   REMOTE one, the job level for `WILDCARD`, each key once and nothing
//!   private to pmix-rs; rank `UNDEF` and an unknown namespace are errors.

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
        "all" => all(&c, &me, r, &peer(1 - r)),
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

/// The keys of a `get_all` answer, each checked to appear once and none
/// private to pmix-rs.
fn all_keys(what: &str, infos: &[Info]) -> Vec<String> {
    let keys: Vec<String> = infos.iter().map(|i| i.key.as_str().to_owned()).collect();
    for k in &keys {
        check(keys.iter().filter(|x| *x == k).count() == 1, || {
            format!("{what}: {k} more than once in {keys:?}")
        });
        check(!k.starts_with("pmixrs."), || {
            format!("{what}: private key {k} in {keys:?}")
        });
    }
    keys
}

fn value_of<'a>(infos: &'a [Info], key: &str) -> Option<&'a Value> {
    infos.iter().find(|i| i.is(key)).map(|i| &i.value)
}

fn all(c: &Client, me: &Proc, r: u32, peer: &Proc) {
    c.put(Scope::GLOBAL, "all.g", Value::Uint32(r)).unwrap();
    c.put(Scope::LOCAL, "all.l", Value::Uint32(r)).unwrap();
    c.put(Scope::REMOTE, "all.r", Value::Uint32(r)).unwrap();
    c.commit().unwrap_or_else(|e| fail(format!("commit: {e}")));
    fence(c, true);

    let mine = c
        .get_all(me)
        .unwrap_or_else(|e| fail(format!("get_all(me): {e}")));
    let keys = all_keys("own", &mine);
    for k in ["all.g", "all.l", "all.r", attrs::RANK, attrs::LOCAL_RANK] {
        check(keys.iter().any(|x| x == k), || {
            format!("own values lack {k}: {keys:?}")
        });
    }
    c.store_internal(me, "all.g", Value::Uint32(99)).unwrap();
    let mine = c.get_all(me).unwrap();
    check(value_of(&mine, "all.g") == Some(&Value::Uint32(99)), || {
        format!("a stored value does not come first: {mine:?}")
    });
    println!("ok own values");

    let theirs = c
        .get_all(peer)
        .unwrap_or_else(|e| fail(format!("get_all(peer): {e}")));
    let keys = all_keys("peer", &theirs);
    check(
        value_of(&theirs, "all.g") == Some(&Value::Uint32(peer.rank.0))
            && value_of(&theirs, "all.l") == Some(&Value::Uint32(peer.rank.0)),
        || format!("peer's GLOBAL and LOCAL keys: {keys:?}"),
    );
    check(!keys.iter().any(|k| k == "all.r"), || {
        format!("peer's REMOTE key seen on its own node: {keys:?}")
    });
    println!("ok peer values");

    let job = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let job = c
        .get_all(&job)
        .unwrap_or_else(|e| fail(format!("get_all(wildcard): {e}")));
    all_keys("job", &job);
    check(
        value_of(&job, attrs::JOB_SIZE).and_then(|v| v.to_u64().ok()) == Some(2),
        || format!("job size in {job:?}"),
    );
    check(value_of(&job, "all.g").is_none(), || {
        "a rank's key at the job level".into()
    });
    println!("ok job values");

    let undef = Proc::from_parts(me.nspace.clone(), Rank::UNDEF);
    check(
        c.get_all(&undef).map_err(|e| e.status()) == Err(Status::ERR_BAD_PARAM),
        || "get_all(UNDEF) is not BAD_PARAM".into(),
    );
    let nobody = Proc::new("nobody-knows", Rank(0)).unwrap();
    check(
        c.get_all(&nobody).map_err(|e| e.status()) == Err(Status::ERR_NOT_FOUND),
        || "get_all(unknown nspace) is not NOT_FOUND".into(),
    );
    println!("ok errors");
    fence(c, false);
}
