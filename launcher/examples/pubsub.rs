//! A PMIx client driven by the publish / lookup / log integration tests
//! (`launcher/tests/pubsub.rs`): `pmixrun -n N pubsub <scenario>`, N ≥ 2.
//! It prints `ok …` lines and `ok done`, and exits 0 when every check
//! passed; a failed check prints `FAIL: …` and exits 1.
//!
//! Scenarios:
//! - `wait`: ranks 1.. look up `svc-wait` with `PMIX_WAIT` (rank 1 as a
//!   bool, rank 2 as a count of 1 out of two keys, rank 3 as 0 = all)
//!   before rank 0 publishes it, after a fence; rank 0 first sees
//!   `PMIX_ERR_NOT_FOUND` for it without waiting.
//! - `dup`: a key already published is `PMIX_ERR_DUPLICATE_KEY`, and
//!   nothing of that request is stored; the same key on another range is
//!   not a duplicate; `PROC_LOCAL` data is the publisher's alone.
//! - `firstread`: a `PMIX_PERSIST_FIRST_READ` datum goes after rank 1
//!   read it.
//! - `unpublish`: some keys, another rank's key (refused), then all.
//! - `timeout`: a waiting lookup of a key never published ends with
//!   `PMIX_ERR_TIMEOUT` after its `PMIX_TIMEOUT`.
//! - `log`: `PMIx_Log` to stderr, stdout and the message channel, and an
//!   unsupported channel.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::proto::PData;
use pmix_core::{attrs, DataRange, Info, Persistence, Proc, Rank, Result, Status, Value};

/// Longest any single wait of this program may take.
const WAIT: Duration = Duration::from_secs(30);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn info(key: &str, v: impl Into<Value>) -> Info {
    Info::new(key, v).unwrap_or_else(|e| fail(format!("info {key}: {e}")))
}

fn keys(k: &[&str]) -> Vec<String> {
    k.iter().map(|s| (*s).to_owned()).collect()
}

/// Checks that `r` failed with `want`.
fn expect_err<T: std::fmt::Debug>(r: Result<T>, want: Status, what: &str) {
    match r {
        Err(e) if e.status() == want => {}
        other => fail(format!("{what}: want {want}, got {other:?}")),
    }
}

/// Checks that `found` holds exactly `key` = `value` published by `owner`.
fn expect_one(found: &[PData], key: &str, value: &str, owner: &Proc, what: &str) {
    let ok = found.len() == 1
        && found[0].key == key
        && found[0].value == Value::from(value)
        && found[0].proc == *owner;
    check(ok, || {
        format!("{what}: want {key}={value} from {owner}, got {found:?}")
    });
}

struct Job {
    c: Client,
    me: Proc,
    size: u32,
}

impl Job {
    fn rank(&self) -> u32 {
        self.me.rank.0
    }

    fn peer(&self, r: u32) -> Proc {
        Proc::from_parts(self.me.nspace.clone(), Rank(r))
    }

    fn fence(&self) {
        self.c
            .fence(&[], &[])
            .unwrap_or_else(|e| fail(format!("fence: {e}")));
    }

    fn publish(&self, info: &[Info], what: &str) {
        self.c
            .publish(info)
            .unwrap_or_else(|e| fail(format!("publish {what}: {e}")));
    }

    fn lookup(&self, k: &[&str]) -> Result<Vec<PData>> {
        self.c.lookup(&keys(k), &[])
    }
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let size = c
        .get(&wild, attrs::JOB_SIZE, &[])
        .and_then(|v| v.to_u64())
        .unwrap_or_else(|e| fail(format!("job size: {e}")));
    let size = u32::try_from(size).unwrap_or_else(|e| fail(format!("job size: {e}")));
    check(size >= 2, || {
        format!("run with at least 2 ranks, not {size}")
    });
    let job = Job { c, me, size };
    match scenario.as_str() {
        "wait" => wait(&job),
        "dup" => dup(&job),
        "firstread" => first_read(&job),
        "unpublish" => unpublish(&job),
        "timeout" => timeout(&job),
        "log" => log(&job),
        other => fail(format!("unknown scenario {other:?}")),
    }
    job.fence();
    job.c
        .finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}

/// The lookups wait for a key rank 0 publishes only after a fence every
/// rank enters after starting its lookup.
fn wait(job: &Job) {
    let r = job.rank();
    if r == 0 {
        job.fence();
        expect_err(
            job.lookup(&["svc-wait"]),
            Status::ERR_NOT_FOUND,
            "lookup before publish",
        );
        println!("ok not found");
        // The others' lookups reached the server before their fence
        // request; give them time to be held by the host all the same.
        std::thread::sleep(Duration::from_millis(100));
        job.publish(&[info("svc-wait", "port-4711")], "svc-wait");
        println!("ok published");
        return;
    }
    let (want, wait): (&[&str], Value) = match r {
        1 => (&["svc-wait"], Value::Bool(true)),
        2 => (&["svc-wait", "svc-never"], Value::Int(1)),
        _ => (&["svc-wait"], Value::Int(0)),
    };
    let (tx, rx) = mpsc::sync_channel(1);
    let t0 = Instant::now();
    job.c.lookup_nb(
        &keys(want),
        &[
            info(attrs::WAIT, wait),
            info(attrs::TIMEOUT, Value::Int(30)),
        ],
        move |res| {
            let _ = tx.send(res);
        },
    );
    job.fence();
    let res = rx
        .recv_timeout(WAIT)
        .unwrap_or_else(|e| fail(format!("waiting lookup: no answer: {e}")));
    let found = res.unwrap_or_else(|e| fail(format!("waiting lookup: {e}")));
    expect_one(
        &found,
        "svc-wait",
        "port-4711",
        &job.peer(0),
        "waiting lookup",
    );
    println!("ok waited {:.0} ms", t0.elapsed().as_secs_f64() * 1e3);
}

fn dup(job: &Job) {
    let r = job.rank();
    let r0 = job.peer(0);
    if r == 0 {
        job.publish(&[info("dup-key", "from-0")], "dup-key");
        let local = info(attrs::RANGE, DataRange::PROC_LOCAL);
        job.publish(&[info("mine-0", "private"), local], "mine-0");
    }
    job.fence();
    match r {
        0 => {
            let found = job
                .lookup(&["mine-0"])
                .unwrap_or_else(|e| fail(format!("own PROC_LOCAL lookup: {e}")));
            expect_one(&found, "mine-0", "private", &r0, "own PROC_LOCAL lookup");
            expect_err(
                job.c.publish(&[info("dup-key", "again")]),
                Status::ERR_DUPLICATE_KEY,
                "republish by the publisher",
            );
        }
        1 => {
            expect_err(
                job.c.publish(&[info("dup-key", "from-1")]),
                Status::ERR_DUPLICATE_KEY,
                "duplicate publish",
            );
            expect_err(
                job.c
                    .publish(&[info("fresh-1", "x"), info("dup-key", "from-1")]),
                Status::ERR_DUPLICATE_KEY,
                "publish with one duplicate",
            );
            println!("ok duplicate refused");
        }
        2 => {
            let ns = info(attrs::RANGE, DataRange::NAMESPACE);
            job.publish(&[info("dup-key", "from-2"), ns], "dup-key on NAMESPACE");
            println!("ok same key on another range");
        }
        _ => {}
    }
    if r != 0 {
        expect_err(
            job.lookup(&["mine-0"]),
            Status::ERR_NOT_FOUND,
            "someone else's PROC_LOCAL datum",
        );
    }
    job.fence();
    expect_err(
        job.lookup(&["fresh-1"]),
        Status::ERR_NOT_FOUND,
        "key of a refused publish",
    );
    let found = job
        .lookup(&["dup-key"])
        .unwrap_or_else(|e| fail(format!("lookup dup-key: {e}")));
    expect_one(&found, "dup-key", "from-0", &r0, "lookup dup-key");
    println!("ok dup lookups");
}

fn first_read(job: &Job) {
    let r = job.rank();
    if r == 0 {
        let once = info(attrs::PERSISTENCE, Persistence::FIRST_READ);
        job.publish(&[info("once-key", "read-me"), once], "once-key");
    }
    job.fence();
    if r == 1 {
        let found = job
            .lookup(&["once-key"])
            .unwrap_or_else(|e| fail(format!("first read: {e}")));
        expect_one(&found, "once-key", "read-me", &job.peer(0), "first read");
        println!("ok first read");
    }
    job.fence();
    expect_err(
        job.lookup(&["once-key"]),
        Status::ERR_NOT_FOUND,
        "lookup after the first read",
    );
    println!("ok gone after first read");
}

fn unpublish(job: &Job) {
    let r = job.rank();
    let key = |owner: u32, k: &str| format!("u-{owner}-{k}");
    let mine: Vec<String> = ["a", "b", "c"].iter().map(|k| key(r, k)).collect();
    let data: Vec<Info> = mine.iter().map(|k| info(k, format!("v-{k}"))).collect();
    job.publish(&data, "three keys");
    job.fence();
    let a = key(r, "a");
    job.c
        .unpublish(std::slice::from_ref(&a), &[])
        .unwrap_or_else(|e| fail(format!("unpublish {a}: {e}")));
    expect_err(
        job.lookup(&[a.as_str()]),
        Status::ERR_NOT_FOUND,
        "lookup of an unpublished key",
    );
    expect_err(
        job.c.unpublish(std::slice::from_ref(&a), &[]),
        Status::ERR_NOT_FOUND,
        "unpublish twice",
    );
    let theirs = key((r + 1) % job.size, "b");
    expect_err(
        job.c.unpublish(std::slice::from_ref(&theirs), &[]),
        Status::ERR_NOT_FOUND,
        "unpublish of another rank's key",
    );
    job.fence();
    let b = key(r, "b");
    let found = job
        .lookup(&[&b])
        .unwrap_or_else(|e| fail(format!("lookup {b} after a peer's unpublish: {e}")));
    expect_one(&found, &b, &format!("v-{b}"), &job.me, "own key kept");
    job.c
        .unpublish(&[], &[])
        .unwrap_or_else(|e| fail(format!("unpublish all: {e}")));
    let c = key(r, "c");
    expect_err(
        job.lookup(&[b.as_str(), c.as_str()]),
        Status::ERR_NOT_FOUND,
        "lookup after unpublish all",
    );
    println!("ok unpublish");
}

fn timeout(job: &Job) {
    let never = format!("never-{}", job.rank());
    let t0 = Instant::now();
    let r = job.c.lookup(
        &[never],
        &[info(attrs::WAIT, true), info(attrs::TIMEOUT, Value::Int(1))],
    );
    let took = t0.elapsed();
    expect_err(r, Status::ERR_TIMEOUT, "lookup of a key never published");
    check(
        took >= Duration::from_millis(900) && took < Duration::from_secs(10),
        || format!("the 1 s timeout took {took:?}"),
    );
    println!("ok timeout after {:.1} s", took.as_secs_f64());
}

fn log(job: &Job) {
    let r = job.rank();
    let msg = format!("pubsub-log msg rank {r}\0").into_bytes();
    job.c
        .log(
            &[
                info(attrs::LOG_STDERR, format!("pubsub-log stderr rank {r}")),
                info(attrs::LOG_STDOUT, format!("pubsub-log stdout rank {r}")),
                info(attrs::LOG_MSG, Value::ByteObject(msg)),
            ],
            &[],
        )
        .unwrap_or_else(|e| fail(format!("log: {e}")));
    expect_err(
        job.c.log(
            &[
                info(attrs::LOG_SYSLOG, "pubsub-log syslog"),
                info(attrs::LOG_STDERR, format!("pubsub-log partial rank {r}")),
            ],
            &[],
        ),
        Status::ERR_NOT_SUPPORTED,
        "log to syslog",
    );
    println!("ok log");
}
