//! A PMIx client driven by the connect tests (`launcher/tests/connect.rs`):
//! `connectclient <scenario>`. It prints `ok …` lines and exits 0 when every
//! check passed; a failed check prints `FAIL: …` and exits 1.
//!
//! - `pairs` (4 ranks): {0,1} and {2,3} connect at once with different
//!   ids, then all four twice at once (two threads, two ids); namespaces
//!   and ranks are checked against the deterministic names; a fence over
//!   `(group, WILDCARD)`, a CUSTOM notify to a group and a get through a
//!   group address reach exactly the members; bad inputs; disconnect and
//!   reconnect; a blocking connect from an event handler fails fast.
//! - `timeout` (3 ranks): rank 2 arrives 2.5 s late at a connect whose
//!   `PMIX_TIMEOUT` is 1 s: ranks 0, 1 get `PMIX_ERR_TIMEOUT`, rank 2 at
//!   once; then a connect of all three over the same set and id succeeds.
//! - `kill` (3 ranks): ranks 0, 1 connect over the namespace; rank 2
//!   prints `dying <unix-ms>` and SIGKILLs itself; the others print
//!   `failed <status> <unix-ms>`.
//! - `term` (3 ranks): all connect; rank 2 exits without disconnecting;
//!   ranks 0, 1 must hear `PMIX_ERR_PROC_TERM_WO_SYNC` naming it, then
//!   disconnect.
//!   A second group made with `PMIX_CONNECT_EARLY_TERM_ALLOWED` raises
//!   nothing.
//! - `options` (3 ranks): `NOTIFY_EACH`, `NOTIFY_REQ` (ranks 1, 2 connect
//!   once asked), `XCHG_ONLY`.
//! - `optional` (3 ranks): rank 2 leaves at once; ranks 0, 1 connect with
//!   `PMIX_CONNECT_OPTIONAL` and get a group of two.
//! - `finalized` (3 ranks): rank 2 finalizes without connecting; a connect
//!   of all three fails with `PMIX_ERR_PROC_TERM_WO_SYNC`, an optional one
//!   completes with ranks 0 and 1.
//! - `xns_a` / `xns_b` (one rank each of two namespaces, `XNS_OTHER` = the
//!   other's namespace): connect across namespaces; each reads the other's
//!   committed key directly and through the group.

use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pmix_client::Client;
use pmix_core::proto::canonical_procs;
use pmix_core::proto::connect::mint_nspace;
use pmix_core::{attrs, DataArray, DataRange, Info, Nspace, Proc, Rank, Scope, Status, Value};

const CUSTOM_EV: Status = Status(-3101);
const POKE: Status = Status(-3102);

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn check(cond: bool, msg: impl FnOnce() -> String) {
    if !cond {
        fail(msg());
    }
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

fn id(s: &str) -> Info {
    Info::new(attrs::CONNECT_ID, s).unwrap()
}

fn timeout(secs: i32) -> Info {
    Info::new(attrs::TIMEOUT, Value::Int32(secs)).unwrap()
}

fn p(ns: &Nspace, r: u32) -> Proc {
    Proc::from_parts(ns.clone(), Rank(r))
}

fn wild(ns: &Nspace) -> Proc {
    Proc::from_parts(ns.clone(), Rank::WILDCARD)
}

/// A connect that must succeed with the deterministic name of generation
/// `generation` and this process's canonical index as rank.
fn connect_ok(c: &Client, procs: &[Proc], cid: &str, generation: u64, what: &str) -> Nspace {
    let (ns, rank) = c
        .connect_procs(procs, &[id(cid), timeout(20)])
        .unwrap_or_else(|e| fail(format!("{what}: {e}")));
    let set = canonical_procs(procs.to_vec());
    let want = mint_nspace(&set, Some(cid), generation);
    check(ns == want, || {
        format!("{what}: namespace {ns:?}, want {want:?}")
    });
    let members = c
        .group_members(&ns)
        .unwrap_or_else(|| fail(format!("{what}: no rank map")));
    let idx = members.iter().position(|m| m == c.proc());
    check(idx.map(|i| i as u32) == Some(rank.0), || {
        format!("{what}: rank {rank:?}, members {members:?}")
    });
    let size = c
        .get(&wild(&ns), attrs::JOB_SIZE, &[])
        .unwrap_or_else(|e| fail(format!("{what}: JOB_SIZE of the group: {e}")));
    check(size.to_u64().ok() == Some(members.len() as u64), || {
        format!("{what}: JOB_SIZE {size:?}")
    });
    ns
}

fn want_err<T: std::fmt::Debug>(r: pmix_core::Result<T>, want: Status, what: &str) {
    match r {
        Err(e) if e.status() == want => println!("ok {what}"),
        r => fail(format!("{what}: wanted {want}, got {r:?}")),
    }
}

fn pairs(c: &Client) {
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let r = me.rank.0;
    let all = wild(&ns);
    // the cluster id, from which multi-cluster names are built
    let cluster = c
        .get(&all, attrs::CLUSTER_ID, &[])
        .unwrap_or_else(|e| fail(format!("PMIX_CLUSTER_ID: {e}")));
    let cluster = cluster.as_str().unwrap_or_default().to_owned();
    let mc = pmix_core::cluster::multicluster_nspace(&cluster, ns.as_str())
        .unwrap_or_else(|e| fail(format!("multi-cluster name: {e}")));
    check(
        pmix_core::cluster::split_multicluster(mc.as_str())
            == (Some(cluster.as_str()), ns.as_str()),
        || format!("{mc:?} does not split back"),
    );
    println!("ok cluster id");
    // bad input
    want_err(
        c.connect_procs(&[], &[]),
        Status::ERR_BAD_PARAM,
        "zero procs",
    );
    let other = p(&ns, (r + 1) % 4);
    want_err(
        c.connect_procs(std::slice::from_ref(&other), &[]),
        Status::ERR_NOT_A_MEMBER,
        "caller not a member",
    );
    want_err(
        c.disconnect_nspace(&Nspace::new("no-such-group").unwrap(), &[]),
        Status::ERR_NOT_FOUND,
        "unknown namespace",
    );
    // {0,1} and {2,3} at once, different ids
    let (pair, pid) = if r < 2 {
        (vec![p(&ns, 1), p(&ns, 0)], "low")
    } else {
        (vec![p(&ns, 3), p(&ns, 2)], "high")
    };
    let g = connect_ok(c, &pair, pid, 0, "pair connect");
    println!("ok pair {} rank {}", g.as_str(), r % 2);
    // all four, two ids at once from two threads
    let c2 = c.clone();
    let t =
        std::thread::spawn(move || connect_ok(&c2, &[wild(&c2.proc().nspace)], "y", 0, "all y"));
    let gx = connect_ok(c, std::slice::from_ref(&all), "x", 0, "all x");
    let gy = t.join().unwrap();
    check(gx != gy, || "two ids made one group".into());
    println!("ok all four twice");
    // a fence over the pair's group: only the pair takes part
    c.fence(&[wild(&g)], &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("fence over the group: {e}")));
    println!("ok group fence");
    // get through the group address
    c.put(Scope::GLOBAL, "card", Value::Uint32(100 + r))
        .and_then(|()| c.commit())
        .unwrap_or_else(|e| fail(format!("put: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let peer_rank = 1 - (r % 2);
    let v = c
        .get(&p(&g, peer_rank), "card", &[])
        .unwrap_or_else(|e| fail(format!("get via the group: {e}")));
    let want = 100 + (r - r % 2) + peer_rank;
    check(v == Value::Uint32(want), || {
        format!("group get {v:?}, want {want}")
    });
    println!("ok group get");
    // a CUSTOM notify from rank 2 to the {0,1} group reaches 0 and 1 only
    let seen = Arc::new(Mutex::new(0u32));
    let s2 = Arc::clone(&seen);
    c.register_event_handler(&[CUSTOM_EV], &[], move |_e, done| {
        *s2.lock().unwrap() += 1;
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    if r == 2 {
        let low = mint_nspace(&canonical_procs(vec![p(&ns, 0), p(&ns, 1)]), Some("low"), 0);
        // a non-member sees the group once the server wrote it into the
        // job store, just after answering the members
        let end = Instant::now() + Duration::from_secs(5);
        while c.group_members(&low).is_none() {
            check(Instant::now() < end, || {
                "the {0,1} group never appeared".into()
            });
            std::thread::sleep(Duration::from_millis(1));
        }
        let range = Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(vec![wild(&low)]))),
        )
        .unwrap();
        c.notify_event(CUSTOM_EV, DataRange::CUSTOM, &[range])
            .unwrap_or_else(|e| fail(format!("notify: {e}")));
    }
    let end = Instant::now() + Duration::from_secs(5);
    while r < 2 && *seen.lock().unwrap() == 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let n = *seen.lock().unwrap();
    check(n == u32::from(r < 2), || {
        format!("rank {r} saw the custom event {n} times")
    });
    println!("ok custom notify");
    // non-member disconnect
    if r >= 2 {
        let low = mint_nspace(&canonical_procs(vec![p(&ns, 0), p(&ns, 1)]), Some("low"), 0);
        want_err(
            c.disconnect_nspace(&low, &[]),
            Status::ERR_NOT_A_MEMBER,
            "non-member disconnect",
        );
    }
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    // disconnect, then again (gone), then reconnect the same set and id
    c.disconnect_nspace(&g, &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("disconnect: {e}")));
    want_err(
        c.disconnect_nspace(&g, &[]),
        Status::ERR_NOT_FOUND,
        "second disconnect",
    );
    let g2 = connect_ok(c, &pair, pid, 1, "reconnect");
    check(g2 != g, || "reconnect reused the namespace".into());
    c.disconnect_nspace(&g2, &[])
        .unwrap_or_else(|e| fail(format!("disconnect 2: {e}")));
    println!("ok reconnect");
    for n in [&gx, &gy] {
        c.disconnect_nspace(n, &[])
            .unwrap_or_else(|e| fail(format!("disconnect all: {e}")));
    }
    // a blocking connect inside an event handler fails fast
    let (tx, rx) = sync_channel(1);
    let c3 = c.clone();
    let tx = Mutex::new(tx);
    c.register_event_handler(&[POKE], &[], move |_e, done| {
        let t0 = Instant::now();
        let r = c3.connect_procs(&[wild(&c3.proc().nspace)], &[]);
        let _ = tx.lock().unwrap().send((r.map(|_| ()), t0.elapsed()));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.notify_event(POKE, DataRange::PROC_LOCAL, &[])
        .unwrap_or_else(|e| fail(format!("notify: {e}")));
    let (res, took) = rx
        .recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| fail("the handler never ran".into()));
    check(took < Duration::from_secs(1), || format!("took {took:?}"));
    want_err(
        res,
        Status::ERR_WOULD_BLOCK,
        "blocking connect in a handler",
    );
}

fn timeout_scenario(c: &Client) {
    let me = c.proc().clone();
    let all = [wild(&me.nspace)];
    let t0 = Instant::now();
    if me.rank.0 == 2 {
        std::thread::sleep(Duration::from_millis(2500));
    }
    let r = c.connect_procs(&all, &[id("t"), timeout(1)]);
    let took = t0.elapsed();
    match r {
        Err(e) if e.status() == Status::ERR_TIMEOUT => {}
        r => fail(format!("wanted a timeout, got {r:?}")),
    }
    if me.rank.0 == 2 {
        check(took < Duration::from_millis(2500 + 500), || {
            format!("the late arrival waited: {took:?}")
        });
    } else {
        check(
            took >= Duration::from_millis(900) && took < Duration::from_secs(2),
            || format!("the timeout came after {took:?}"),
        );
    }
    println!("ok timed out");
    // the next operation over the same set and id is not poisoned
    connect_ok(c, &all, "t", 0, "after the timeout");
    println!("ok next connect");
}

fn kill_scenario(c: &Client) {
    let me = c.proc().clone();
    if me.rank.0 == 2 {
        std::thread::sleep(Duration::from_millis(500));
        println!("dying {}", now_ms());
        let pid = std::process::id().to_string();
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status();
        std::thread::sleep(Duration::from_secs(30));
        fail("still alive".into());
    }
    let r = c.connect_procs(&[wild(&me.nspace)], &[timeout(20)]);
    match r {
        Err(e) => println!("failed {} {}", e.status().0, now_ms()),
        Ok(x) => fail(format!("connect succeeded without rank 2: {x:?}")),
    }
}

fn term_scenario(c: &Client) {
    let me = c.proc().clone();
    let heard = Arc::new(Mutex::new(Vec::<Proc>::new()));
    let h2 = Arc::clone(&heard);
    c.register_event_handler(&[Status::ERR_PROC_TERM_WO_SYNC], &[], move |e, done| {
        if let Some(a) = pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC) {
            if let Value::Proc(p) = &a.value {
                h2.lock().unwrap().push(p.clone());
            }
        }
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    let g = connect_ok(c, &[wild(&me.nspace)], "term", 0, "connect");
    if me.rank.0 == 2 {
        println!("ok leaving without disconnect");
        std::process::exit(0);
    }
    let gone = p(&me.nspace, 2);
    let end = Instant::now() + Duration::from_secs(10);
    while !heard.lock().unwrap().contains(&gone) {
        check(Instant::now() < end, || {
            "no PMIX_ERR_PROC_TERM_WO_SYNC".into()
        });
        std::thread::sleep(Duration::from_millis(5));
    }
    println!("ok term without sync");
    c.disconnect_nspace(&g, &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("disconnect after a death: {e}")));
    println!("ok disconnect");
}

/// An event seen: its code, its affected proc, its connect id.
type Seen = (Status, Proc, Option<String>);

/// NOTIFY_EACH, NOTIFY_REQ and XCHG_ONLY (3 ranks).
fn options(c: &Client) {
    let me = c.proc().clone();
    let all = [wild(&me.nspace)];
    let seen = Arc::new(Mutex::new(Vec::<Seen>::new()));
    let s2 = Arc::clone(&seen);
    c.register_event_handler(
        &[
            Status::PROC_HAS_CONNECTED,
            Status::CONNECT_REQUESTED,
            Status::PROC_HAS_DISCONNECTED,
        ],
        &[],
        move |e, done| {
            let who = pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC).and_then(|a| {
                match &a.value {
                    Value::Proc(p) => Some(p.clone()),
                    _ => None,
                }
            });
            let cid = pmix_core::info::find(e.info, attrs::CONNECT_ID)
                .and_then(|i| i.value.as_str().ok().map(str::to_owned));
            if let Some(w) = who {
                s2.lock().unwrap().push((e.status, w, cid));
            }
            done.done(Status::SUCCESS, vec![]);
        },
    )
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let wait = |what: &str, pred: &dyn Fn(&[Seen]) -> bool| {
        let end = Instant::now() + Duration::from_secs(10);
        while !pred(&seen.lock().unwrap()) {
            check(Instant::now() < end, || {
                format!("{what}: seen {:?}", seen.lock().unwrap())
            });
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    // NOTIFY_EACH: every participant hears each arrival
    let each = [
        id("each"),
        Info::new(attrs::CONNECT_NOTIFY_EACH, true).unwrap(),
    ];
    let (g, _) = c
        .connect_procs(&all, &each)
        .unwrap_or_else(|e| fail(format!("notify-each connect: {e}")));
    wait("PROC_HAS_CONNECTED for all three", &|s| {
        (0..3).all(|r| {
            s.iter()
                .any(|(st, p, _)| *st == Status::PROC_HAS_CONNECTED && p.rank.0 == r)
        })
    });
    println!("ok notify each");
    c.disconnect_nspace(&g, &[])
        .unwrap_or_else(|e| fail(format!("disconnect: {e}")));
    wait("PROC_HAS_DISCONNECTED from the two others", &|s| {
        (0..3).filter(|r| *r != me.rank.0).all(|r| {
            s.iter()
                .any(|(st, p, _)| *st == Status::PROC_HAS_DISCONNECTED && p.rank.0 == r)
        })
    });
    let own = seen
        .lock()
        .unwrap()
        .iter()
        .any(|(st, p, _)| *st == Status::PROC_HAS_DISCONNECTED && *p == me);
    check(!own, || "heard of its own disconnect".into());
    println!("ok notify each disconnect");
    // NOTIFY_REQ: rank 0 asks; the others connect when asked
    if me.rank.0 == 0 {
        let req = [
            id("req"),
            Info::new(attrs::CONNECT_NOTIFY_REQ, true).unwrap(),
        ];
        c.connect_procs(&all, &req)
            .unwrap_or_else(|e| fail(format!("requesting connect: {e}")));
    } else {
        wait("CONNECT_REQUESTED from rank 0", &|s| {
            s.iter().any(|(st, p, cid)| {
                *st == Status::CONNECT_REQUESTED && p.rank.0 == 0 && cid.as_deref() == Some("req")
            })
        });
        c.connect_procs(&all, &[id("req")])
            .unwrap_or_else(|e| fail(format!("requested connect: {e}")));
    }
    println!("ok notify req");
    // XCHG_ONLY: no group, rank undefined
    let x = [id("x"), Info::new(attrs::CONNECT_XCHG_ONLY, true).unwrap()];
    let (ns, rank) = c
        .connect_procs(&all, &x)
        .unwrap_or_else(|e| fail(format!("exchange-only connect: {e}")));
    check(ns == me.nspace && rank == Rank::UNDEF, || {
        format!("exchange only gave {ns:?} {rank:?}")
    });
    println!("ok xchg only");
}

/// OPTIONAL (3 ranks): rank 2 leaves at once; 0 and 1 connect without it.
fn optional(c: &Client) {
    let me = c.proc().clone();
    if me.rank.0 == 2 {
        println!("ok leaving");
        std::process::exit(0);
    }
    let opt = [
        id("opt"),
        timeout(20),
        Info::new(attrs::CONNECT_OPTIONAL, true).unwrap(),
    ];
    let (g, rank) = c
        .connect_procs(&[wild(&me.nspace)], &opt)
        .unwrap_or_else(|e| fail(format!("optional connect: {e}")));
    let members = c.group_members(&g).unwrap_or_default();
    check(
        members == [p(&me.nspace, 0), p(&me.nspace, 1)] && rank == me.rank,
        || format!("members {members:?}, rank {rank:?}"),
    );
    println!("ok optional");
}

/// (3 ranks) rank 2 finalizes without connecting: a connect waiting for it
/// fails, an optional one completes without it.
fn finalized(c: &Client) {
    let me = c.proc().clone();
    if me.rank.0 == 2 {
        c.finalize()
            .unwrap_or_else(|e| fail(format!("finalize: {e}")));
        println!("ok finalized early");
        println!("ok done");
        std::process::exit(0);
    }
    let all = [wild(&me.nspace)];
    let t0 = Instant::now();
    match c.connect_procs(&all, &[id("fin"), timeout(20)]) {
        Err(e) if e.status() == Status::ERR_PROC_TERM_WO_SYNC => {}
        r => fail(format!("wanted PROC_TERM_WO_SYNC, got {r:?}")),
    }
    let took = t0.elapsed();
    check(took < Duration::from_secs(5), || format!("took {took:?}"));
    println!("ok connect without a finalized rank fails");
    let opt = [
        id("fin-opt"),
        timeout(20),
        Info::new(attrs::CONNECT_OPTIONAL, true).unwrap(),
    ];
    let (g, _) = c
        .connect_procs(&all, &opt)
        .unwrap_or_else(|e| fail(format!("optional connect: {e}")));
    let members = c.group_members(&g).unwrap_or_default();
    check(members.len() == 2, || format!("members {members:?}"));
    println!("ok optional without a finalized rank");
}

fn xns(c: &Client, first: bool) {
    let me = c.proc().clone();
    let other = Nspace::new(std::env::var("XNS_OTHER").unwrap()).unwrap();
    c.put(
        Scope::GLOBAL,
        "xcard",
        Value::String(me.nspace.as_str().into()),
    )
    .and_then(|()| c.commit())
    .unwrap_or_else(|e| fail(format!("put: {e}")));
    let set = if first {
        vec![wild(&me.nspace), wild(&other)]
    } else {
        vec![wild(&other), wild(&me.nspace)]
    };
    let g = connect_ok(c, &set, "xns", 0, "cross-namespace connect");
    let direct = c
        .get(&p(&other, 0), "xcard", &[timeout(5)])
        .unwrap_or_else(|e| fail(format!("get across namespaces: {e}")));
    check(direct == Value::String(other.as_str().into()), || {
        format!("got {direct:?}")
    });
    let members = c.group_members(&g).unwrap();
    let idx = members.iter().position(|m| m.nspace == other).unwrap() as u32;
    let via = c
        .get(&p(&g, idx), "xcard", &[timeout(5)])
        .unwrap_or_else(|e| fail(format!("get through the group: {e}")));
    check(via == direct, || format!("via the group {via:?}"));
    let size = c
        .get(&wild(&other), attrs::JOB_SIZE, &[])
        .unwrap_or_else(|e| fail(format!("job info of the other namespace: {e}")));
    check(size.to_u64().ok() == Some(1), || {
        format!("JOB_SIZE {size:?}")
    });
    c.disconnect_nspace(&g, &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("disconnect: {e}")));
    println!("ok cross namespace");
}

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "pairs" => pairs(&c),
        "timeout" => timeout_scenario(&c),
        "kill" => kill_scenario(&c),
        "term" => term_scenario(&c),
        "options" => options(&c),
        "optional" => optional(&c),
        "finalized" => finalized(&c),
        "xns_a" => xns(&c, true),
        "xns_b" => xns(&c, false),
        s => fail(format!("unknown scenario {s:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}
