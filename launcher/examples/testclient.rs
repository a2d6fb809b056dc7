//! A PMIx client driven by the wire-up integration tests
//! (`launcher/tests/wireup.rs`): `testclient <scenario>`. It prints `ok`
//! lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.

use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, DataType, Info, Proc, Rank, Scope, Status, Value};

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn card(rank: u32) -> Vec<u8> {
    (0..64u32).map(|i| (i * 7 + rank) as u8).collect()
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let wild = Proc::from_parts(ns.clone(), Rank::WILDCARD);
    let size = match c.get(&wild, attrs::JOB_SIZE, &[]) {
        Ok(Value::Uint32(n)) => n,
        other => fail(format!("job size: {other:?}")),
    };
    let peer = |r: u32| Proc::from_parts(ns.clone(), Rank(r));
    match scenario.as_str() {
        "wireup" => wireup(&c, &me, size, &wild, &peer),
        "late" => late(&c, &me, &peer),
        "die_before_fence" => {
            if me.rank.0 == size - 1 {
                println!("exiting without finalize");
                std::process::exit(0);
            }
            let t0 = Instant::now();
            let r = c.fence(&[], &[]);
            println!(
                "fence: {:?} after {} ms",
                r.as_ref().map_err(|e| e.status()),
                t0.elapsed().as_millis()
            );
            check(r.is_err(), || {
                "fence succeeded with a dead participant".into()
            });
            let _ = c.finalize();
            return;
        }
        "die_before_subset_fence" => {
            // ranks 0 and 1 fence through the server; rank 1 dies first
            if me.rank.0 == 1 {
                std::process::exit(0);
            }
            if me.rank.0 == 0 {
                let r = c.fence(&[peer(0), peer(1)], &[]);
                println!("subset fence: {:?}", r.as_ref().map_err(|e| e.status()));
                check(r.is_err(), || {
                    "subset fence succeeded with a dead participant".into()
                });
            }
            let _ = c.finalize();
            return;
        }
        "two_nspaces" => {
            let other =
                std::env::var("OTHER_NSPACE").unwrap_or_else(|_| fail("OTHER_NSPACE".into()));
            let other = Proc::new(other, Rank::WILDCARD).unwrap();
            let r = c.fence(&[wild.clone(), other], &[]);
            println!(
                "two-namespace fence: {:?} (version {})",
                r.as_ref().map_err(|e| e.status()),
                c.protocol_version()
            );
        }
        "remote" => remote(&c, &me, &peer),
        "version" => println!(
            "version {} caps {:#x}",
            c.protocol_version(),
            c.capabilities()
        ),
        "abort" => {
            if me.rank.0 == 0 {
                let _ = c.abort(Status(7), "testclient abort", &[]);
                std::thread::sleep(Duration::from_secs(30));
            } else {
                let _ = c.fence(&[], &[]);
                std::thread::sleep(Duration::from_secs(30));
            }
        }
        "no_finalize" => {
            println!("leaving without finalize");
            std::process::exit(0);
        }
        other => fail(format!("unknown scenario {other:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}

fn wireup(c: &Client, me: &Proc, size: u32, wild: &Proc, peer: &dyn Fn(u32) -> Proc) {
    // Job data with exact types.
    let expect_type = |p: &Proc, key: &str, ty: DataType| match c.get(p, key, &[]) {
        Ok(v) if v.data_type() == ty => v,
        other => fail(format!("{key}: {other:?}, wanted {ty}")),
    };
    expect_type(wild, attrs::MAX_PROCS, DataType::UINT32);
    expect_type(wild, attrs::LOCAL_SIZE, DataType::UINT32);
    expect_type(wild, attrs::UNIV_SIZE, DataType::UINT32);
    expect_type(wild, attrs::NUM_NODES, DataType::UINT32);
    expect_type(wild, attrs::LOCAL_PEERS, DataType::STRING);
    expect_type(wild, attrs::NODE_LIST, DataType::STRING);
    expect_type(wild, attrs::PROC_MAP, DataType::STRING);
    expect_type(wild, attrs::NODE_MAP, DataType::STRING);
    expect_type(wild, attrs::NSPACE, DataType::STRING);
    expect_type(wild, attrs::JOBID, DataType::STRING);
    expect_type(wild, attrs::TMPDIR, DataType::STRING);
    expect_type(me, attrs::LOCAL_RANK, DataType::UINT16);
    expect_type(me, attrs::NODE_RANK, DataType::UINT16);
    expect_type(me, attrs::GLOBAL_RANK, DataType::PROC_RANK);
    expect_type(me, attrs::RANK, DataType::PROC_RANK);
    expect_type(me, attrs::APPNUM, DataType::UINT32);
    expect_type(me, attrs::NODEID, DataType::UINT32);
    expect_type(me, attrs::HOSTNAME, DataType::STRING);
    expect_type(me, attrs::LOCALITY_STRING, DataType::STRING);
    // A job-level key asked with a specific rank falls back to the job level.
    expect_type(me, attrs::JOB_SIZE, DataType::UINT32);
    match c.get(me, attrs::LOCAL_RANK, &[]) {
        Ok(Value::Uint16(r)) if u32::from(r) == me.rank.0 => {}
        other => fail(format!("local rank {other:?}")),
    }
    println!("ok job data");

    // Reserved keys cannot be put.
    match c.put(Scope::GLOBAL, "pmix.mine", Value::Uint32(1)) {
        Err(e) if e.status() == Status::ERR_BAD_PARAM => {}
        other => fail(format!("reserved put: {other:?}")),
    }
    c.put(
        Scope::GLOBAL,
        "test.card",
        Value::ByteObject(card(me.rank.0)),
    )
    .unwrap();
    c.put(Scope::LOCAL, "test.local", Value::Uint32(me.rank.0 + 100))
        .unwrap();
    c.put(Scope::REMOTE, "test.remote", Value::Uint32(me.rank.0))
        .unwrap();
    // Own data is visible before commit.
    check(c.get(me, "test.local", &[]).is_ok(), || "own get".into());
    c.commit().unwrap();
    let collect = [Info::new(attrs::COLLECT_DATA, Value::Bool(true)).unwrap()];
    c.fence(&[], &collect)
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    for r in 0..size {
        match c.get(&peer(r), "test.card", &[]) {
            Ok(Value::ByteObject(b)) if b == card(r) => {}
            other => fail(format!("card of {r}: {other:?}")),
        }
        match c.get(&peer(r), "test.local", &[]) {
            Ok(Value::Uint32(v)) if v == r + 100 => {}
            other => fail(format!("local of {r}: {other:?}")),
        }
        if r != me.rank.0 {
            match c.get(&peer(r), "test.remote", &[]) {
                Err(e) if e.status() == Status::ERR_NOT_FOUND => {}
                other => fail(format!("remote-scope key of local peer {r}: {other:?}")),
            }
        }
    }
    println!("ok cards");

    // Missing keys: at once with OPTIONAL; at once too for a committed peer.
    let optional = [Info::new(attrs::OPTIONAL, Value::Bool(true)).unwrap()];
    let t0 = Instant::now();
    match c.get(&peer((me.rank.0 + 1) % size), "test.nope", &optional) {
        Err(e) if e.status() == Status::ERR_NOT_FOUND => {}
        other => fail(format!("missing optional: {other:?}")),
    }
    match c.get(wild, "pmix.no.such.key", &[]) {
        Err(e) if e.status() == Status::ERR_NOT_FOUND => {}
        other => fail(format!("missing job key: {other:?}")),
    }
    check(t0.elapsed() < Duration::from_secs(1), || {
        "missing key was slow".into()
    });
    println!("ok missing");

    // A second init/finalize pair must not tear the client down.
    let c2 = Client::init(&[]).unwrap();
    c2.finalize().unwrap();
    check(Client::init_count() == 1, || "refcount".into());
    c.get(wild, attrs::JOB_SIZE, &[])
        .unwrap_or_else(|e| fail(format!("get after inner finalize: {e}")));
    println!("ok refcount");

    // A sync-only fence, and a subset fence through the server.
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("sync fence: {e}")));
    if size >= 2 && me.rank.0 < 2 {
        c.fence(&[peer(1), peer(0)], &collect)
            .unwrap_or_else(|e| fail(format!("subset fence: {e}")));
        println!("ok subset fence");
    }
    // Non-blocking forms.
    let (tx, rx) = std::sync::mpsc::channel();
    c.fence_nb(&[], &[], move |r| {
        let _ = tx.send(r);
    });
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap()
        .unwrap_or_else(|e| fail(format!("fence_nb: {e}")));
    let (tx, rx) = std::sync::mpsc::channel();
    c.get_nb(&peer(0), "test.card", &[], move |r| {
        let _ = tx.send(r);
    });
    check(
        matches!(
            rx.recv_timeout(Duration::from_secs(30)).unwrap(),
            Ok(Value::ByteObject(_))
        ),
        || "get_nb".into(),
    );
    println!("ok nb");
}

/// Rank 1 commits late: rank 0's get with a short timeout fails with
/// PMIX_ERR_TIMEOUT after the timeout; without a timeout it waits for the commit.
fn late(c: &Client, me: &Proc, peer: &dyn Fn(u32) -> Proc) {
    if me.rank.0 == 1 {
        std::thread::sleep(Duration::from_millis(2500));
        c.put(Scope::GLOBAL, "test.late", Value::Uint32(42))
            .unwrap();
        c.commit().unwrap();
    } else if me.rank.0 == 0 {
        let t0 = Instant::now();
        let timeout = [Info::new(attrs::TIMEOUT, Value::Int(1)).unwrap()];
        match c.get(&peer(1), "test.late", &timeout) {
            Err(e) if e.status() == Status::ERR_TIMEOUT => {}
            other => fail(format!("late get with timeout: {other:?}")),
        }
        let waited = t0.elapsed();
        check(
            waited >= Duration::from_millis(900) && waited < Duration::from_millis(2400),
            || format!("timeout took {waited:?}"),
        );
        println!("ok timeout after {} ms", waited.as_millis());
        match c.get(&peer(1), "test.late", &[]) {
            Ok(Value::Uint32(42)) => {}
            other => fail(format!("late get: {other:?}")),
        }
        println!("ok waited for the commit");
    }
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
}

/// Ranks 0 and 1 are local, rank 2 lives on a "remote node" the test's host
/// simulates: its card arrives through the host's fence, and one more key
/// through direct modex.
fn remote(c: &Client, me: &Proc, peer: &dyn Fn(u32) -> Proc) {
    c.put(
        Scope::GLOBAL,
        "test.card",
        Value::ByteObject(card(me.rank.0)),
    )
    .unwrap();
    c.put(Scope::LOCAL, "test.local", Value::Uint32(1)).unwrap();
    c.put(Scope::REMOTE, "test.remote", Value::Uint32(2))
        .unwrap();
    c.commit().unwrap();
    let collect = [Info::new(attrs::COLLECT_DATA, Value::Bool(true)).unwrap()];
    c.fence(&[], &collect)
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    match c.get(&peer(2), "test.card", &[]) {
        Ok(Value::ByteObject(b)) if b == card(2) => {}
        other => fail(format!("remote card: {other:?}")),
    }
    println!("ok remote card");
    match c.get(&peer(2), "test.sparse", &[]) {
        Ok(Value::Uint32(77)) => {}
        other => fail(format!("direct modex: {other:?}")),
    }
    println!("ok direct modex");
    let optional = [Info::new(attrs::OPTIONAL, Value::Bool(true)).unwrap()];
    match c.get(&peer(2), "test.none", &optional) {
        Err(e) if e.status() == Status::ERR_NOT_FOUND => {}
        other => fail(format!("optional remote miss: {other:?}")),
    }
    node_sizes(c, me);
    c.fence(&[peer(0), peer(1)], &[])
        .unwrap_or_else(|e| fail(format!("local subset fence: {e}")));
}

/// The per-node values of the `remote` job (node 0 "testnode" here with
/// 2 of its ranks, node 1 "othernode" with 1, registered as node arrays):
/// any node's, by `PMIX_NODEID` or `PMIX_HOSTNAME`, qualifier-flagged or
/// not; this node's plain job level unchanged.
fn node_sizes(c: &Client, me: &Proc) {
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let by = |k: &str, v: Value| Info::new(k, v).unwrap();
    let mut flagged = by(attrs::NODEID, Value::Uint32(1));
    flagged.flags = pmix_core::InfoFlags::QUALIFIER;
    for (key, node, want) in [
        (
            attrs::NODE_SIZE,
            by(attrs::NODEID, Value::Uint32(1)),
            Value::Uint32(1),
        ),
        (attrs::LOCAL_SIZE, flagged, Value::Uint32(1)),
        (
            attrs::LOCAL_SIZE,
            by(attrs::HOSTNAME, Value::String("othernode".into())),
            Value::Uint32(1),
        ),
        (
            attrs::HOSTNAME,
            by(attrs::NODEID, Value::Uint32(1)),
            Value::String("othernode".into()),
        ),
        (
            attrs::NODE_SIZE,
            by(attrs::NODEID, Value::Uint32(0)),
            Value::Uint32(2),
        ),
        (
            attrs::LOCAL_SIZE,
            by(attrs::HOSTNAME, Value::String("testnode".into())),
            Value::Uint32(2),
        ),
    ] {
        match c.get(&wild, key, std::slice::from_ref(&node)) {
            Ok(v) if v == want => {}
            other => fail(format!(
                "{key} of node {node:?}: {other:?}, wanted {want:?}"
            )),
        }
    }
    match c.get(&wild, attrs::LOCAL_SIZE, &[]) {
        Ok(Value::Uint32(2)) => {}
        other => fail(format!("this node's local size: {other:?}")),
    }
    match c.get(
        &wild,
        attrs::NODE_SIZE,
        &[by(attrs::NODEID, Value::Uint32(7))],
    ) {
        Err(e) if e.status() == Status::ERR_NOT_FOUND => {}
        other => fail(format!("size of a node not in the job: {other:?}")),
    }
    println!("ok remote node sizes");
}
