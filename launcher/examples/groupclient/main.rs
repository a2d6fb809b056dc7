//! A PMIx client driven by the group tests (`launcher/tests/groups.rs`):
//! `groupclient <scenario>`. It prints `ok …` lines and exits 0 when every
//! check passed; a failed check prints `FAIL: …` and exits 1.
//!
//! - `overlap` (4 ranks): "a" = {0,1,2} (given as [2,0,1]) and "b" =
//!   {1,2,3} constructed at once (ranks 1, 2 from two threads), then two
//!   ids over all four at once; group ranks follow the given order;
//!   distinct context ids; a fence over `("a", WILDCARD)`, a get through
//!   `("a", r)`, a CUSTOM notify to `("a", WILDCARD)` and to `("b", 0)`
//!   reach exactly the members; bad inputs; destruct, then "a" again with
//!   other members; a blocking construct from an event handler fails fast.
//! - `ompi5` (any size): Open MPI 5's `MPI_Comm_create_from_group` sequence:
//!   construct over the job with `PMIX_GROUP_ASSIGN_CONTEXT_ID` and
//!   `PMIX_GROUP_INFO` = {`PMIX_GROUP_LOCAL_CID`: 100 + rank}, destruct at
//!   once, then a get of every peer's `PMIX_GROUP_LOCAL_CID` qualified by
//!   the context id; prints `cid <n>`.
//! - `kill` (4 ranks): rank 3 prints `dying <unix-ms>` and SIGKILLs itself;
//!   the others construct over the job and print `failed <status> <unix-ms>`,
//!   and hear `PMIX_GROUP_INVITE_FAILED` naming rank 3.
//! - `killleader` (4 ranks): rank 0 declares itself `PMIX_GROUP_LEADER`,
//!   calls construct (`_nb`) and SIGKILLs itself 300 ms later; ranks 1, 2
//!   wait in the construct (rank 3 never calls it) and get
//!   `PMIX_ERR_LOST_CONNECTION` and `PMIX_GROUP_LEADER_FAILED` naming rank 0.
//! - `memberdied` (4 ranks): all construct "t" with
//!   `PMIX_GROUP_NOTIFY_TERMINATION` and "u" without; rank 3 prints
//!   `dying <unix-ms>` and SIGKILLs itself; the others print `member failed
//!   <rank> <unix-ms>` when `PMIX_GROUP_MEMBER_FAILED` names it, then
//!   destruct "t" (succeeds) and "u" (`PMIX_ERR_LOST_CONNECTION`).
//! - `timeout` (3 ranks): rank 2 arrives 2.5 s late at a construct whose
//!   `PMIX_TIMEOUT` is 1 s: ranks 0, 1 get `PMIX_ERR_TIMEOUT` after about
//!   1 s, rank 2 at once; then a construct of the same id works.
//! - `leave` (3 ranks): rank 0 starts a construct of "m" = {0, 1} and
//!   tries to leave it while rank 1 is still away (refused); all construct
//!   "l"; rank 2 leaves it: ranks 0, 1 hear `PMIX_GROUP_LEFT` naming it,
//!   the group's size is 2, a second leave is `NOT_A_MEMBER`, an unknown
//!   group `NOT_FOUND`; ranks 0, 1 destruct "l" without rank 2.
//! - `invite` (4 ranks): rank 0 invites 1, 2, 3 into "inv" (`_nb`, with
//!   `PMIX_GROUP_ASSIGN_CONTEXT_ID`); rank 1 accepts (answering from a
//!   thread woken by its `PMIX_GROUP_INVITED` handler), rank 2 declines,
//!   rank 3 SIGKILLs itself once invited. The leader hears ACCEPTED,
//!   DECLINED and INVITE_FAILED; its invite completes with
//!   `PMIX_ERR_PARTIAL_SUCCESS` and members {0, 1}; rank 1's join gets the
//!   same members and context id; both hear CONSTRUCT_COMPLETE; a fence
//!   over the group and its destruct work; a join without invitation is
//!   `NOT_FOUND`.
//! - `optional` (4 ranks): rank 3 leaves at once; the others construct
//!   with `PMIX_GROUP_OPTIONAL` and get `PMIX_ERR_PARTIAL_SUCCESS` with
//!   ranks 0–2, and `PMIX_GROUP_MEMBERSHIP_UPDATE` with them.

use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pmix_client::{Client, GroupConstructed};
use pmix_core::Value;
use pmix_core::{attrs, DataArray, DataRange, Info, InfoFlags, Nspace, Proc, Rank, Scope, Status};

const CUSTOM_EV: Status = Status(-3201);
const POKE: Status = Status(-3202);

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

fn timeout(secs: i32) -> Info {
    Info::new(attrs::TIMEOUT, Value::Int32(secs)).unwrap()
}

fn flag(key: &str) -> Info {
    Info::new(key, Value::Bool(true)).unwrap()
}

fn p(ns: &Nspace, r: u32) -> Proc {
    Proc::from_parts(ns.clone(), Rank(r))
}

fn wild(ns: &Nspace) -> Proc {
    Proc::from_parts(ns.clone(), Rank::WILDCARD)
}

fn gid(id: &str) -> Nspace {
    Nspace::new(id).unwrap()
}

fn result<'a>(g: &'a GroupConstructed, key: &str) -> &'a Value {
    &pmix_core::info::find(&g.results, key)
        .unwrap_or_else(|| fail(format!("no {key} in the results {:?}", g.results)))
        .value
}

fn membership(g: &GroupConstructed) -> Vec<Proc> {
    match result(g, attrs::GROUP_MEMBERSHIP) {
        Value::DataArray(a) => a.procs().unwrap().into_iter().cloned().collect(),
        v => fail(format!("membership {v:?}")),
    }
}

fn want_err<T: std::fmt::Debug>(r: pmix_core::Result<T>, want: Status, what: &str) {
    match r {
        Err(e) if e.status() == want => println!("ok {what}"),
        r => fail(format!("{what}: wanted {want}, got {r:?}")),
    }
}

/// A construct that must succeed with `want` as its membership.
fn construct_ok(
    c: &Client,
    id: &str,
    procs: &[Proc],
    info: &[Info],
    want: &[Proc],
) -> GroupConstructed {
    let g = c
        .group_construct(id, procs, info)
        .unwrap_or_else(|e| fail(format!("construct {id}: {e}")));
    check(g.status == Status::SUCCESS, || {
        format!("construct {id}: {}", g.status)
    });
    let m = membership(&g);
    check(m == want, || {
        format!("construct {id}: members {m:?}, want {want:?}")
    });
    let mine = want.iter().position(|q| q == c.proc()).unwrap() as u32;
    check(result(&g, attrs::RANK) == &Value::Rank(Rank(mine)), || {
        format!(
            "construct {id}: rank {:?}, want {mine}",
            result(&g, attrs::RANK)
        )
    });
    let size = c
        .get(&wild(&gid(id)), attrs::JOB_SIZE, &[])
        .unwrap_or_else(|e| fail(format!("{id}: JOB_SIZE of the group: {e}")));
    check(size.to_u64().ok() == Some(want.len() as u64), || {
        format!("{id}: JOB_SIZE {size:?}")
    });
    g
}

fn context_id(g: &GroupConstructed) -> u64 {
    result(g, attrs::GROUP_CONTEXT_ID)
        .to_u64()
        .unwrap_or_else(|e| fail(format!("context id: {e}")))
}

fn bad_input(c: &Client, ns: &Nspace) {
    let me = [c.proc().clone()];
    want_err(
        c.group_construct("", &me, &[]),
        Status::ERR_BAD_PARAM,
        "empty id",
    );
    want_err(
        c.group_construct(&"x".repeat(256), &me, &[]),
        Status::ERR_BAD_PARAM,
        "too long id",
    );
    want_err(
        c.group_construct(ns.as_str(), &me, &[]),
        Status::ERR_BAD_PARAM,
        "namespace id",
    );
    want_err(
        c.group_construct("z", &[], &[]),
        Status::ERR_BAD_PARAM,
        "zero procs",
    );
    let other = p(ns, (c.proc().rank.0 + 1) % 4);
    want_err(
        c.group_construct("z", std::slice::from_ref(&other), &[]),
        Status::ERR_NOT_A_MEMBER,
        "caller not a member",
    );
    want_err(
        c.group_destruct("never", &[]),
        Status::ERR_NOT_FOUND,
        "unknown group",
    );
}

fn overlap(c: &Client) {
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let r = me.rank.0;
    bad_input(c, &ns);
    let a_order = vec![p(&ns, 2), p(&ns, 0), p(&ns, 1)];
    let b_order = vec![p(&ns, 1), p(&ns, 2), p(&ns, 3)];
    let ctx = [flag(attrs::GROUP_ASSIGN_CONTEXT_ID), timeout(20)];
    // "a" and "b" at once: ranks 1 and 2 are in both (two threads)
    let (ga, gb) = {
        let c2 = c.clone();
        let (bo, ctx2) = (b_order.clone(), ctx.clone());
        let tb =
            (r >= 1).then(|| std::thread::spawn(move || construct_ok(&c2, "b", &bo, &ctx2, &bo)));
        let ga = (r <= 2).then(|| construct_ok(c, "a", &a_order, &ctx, &a_order));
        (ga, tb.map(|t| t.join().unwrap()))
    };
    if let (Some(a), Some(b)) = (&ga, &gb) {
        check(context_id(a) != context_id(b), || {
            "a and b share a context id".into()
        });
    }
    if let Some(a) = &ga {
        println!("ok a cid {}", context_id(a));
    }
    if let Some(b) = &gb {
        println!("ok b cid {}", context_id(b));
    }
    println!("ok overlap");
    // two ids over the same procs at once
    let all = vec![wild(&ns)];
    let every: Vec<Proc> = (0..4).map(|i| p(&ns, i)).collect();
    let c2 = c.clone();
    let (al, ev, ctx2) = (all.clone(), every.clone(), ctx.clone());
    let t = std::thread::spawn(move || construct_ok(&c2, "y", &al, &ctx2, &ev));
    let gx = construct_ok(c, "x", &all, &ctx, &every);
    let gy = t.join().unwrap();
    check(context_id(&gx) != context_id(&gy), || {
        "x and y share a context id".into()
    });
    println!("ok same procs twice");
    // the server's group queries: a, b, x, y are live at every member
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let q = |key: &str, quals: Vec<Info>| pmix_core::Query {
        keys: vec![key.to_owned()],
        qualifiers: quals,
    };
    let got = c
        .query(&[
            q(attrs::QUERY_NUM_GROUPS, vec![]),
            q(attrs::QUERY_GROUP_NAMES, vec![]),
            q(
                attrs::QUERY_GROUP_MEMBERSHIP,
                vec![Info::new(attrs::GROUP_ID, "a").unwrap()],
            ),
        ])
        .unwrap_or_else(|e| fail(format!("group queries: {e}")));
    let val = |key: &str| {
        pmix_core::info::find(&got, key)
            .map(|i| i.value.clone())
            .unwrap_or_else(|| fail(format!("no {key} in {got:?}")))
    };
    check(
        val(attrs::QUERY_NUM_GROUPS).to_u64().ok() == Some(4),
        || format!("NUM_GROUPS {got:?}"),
    );
    let names = val(attrs::QUERY_GROUP_NAMES);
    let mut names: Vec<String> = names
        .as_str()
        .unwrap_or_default()
        .split(',')
        .map(str::to_owned)
        .collect();
    names.sort();
    check(names == ["a", "b", "x", "y"], || {
        format!("GROUP_NAMES {names:?}")
    });
    let members = match val(attrs::QUERY_GROUP_MEMBERSHIP) {
        Value::DataArray(a) => a
            .procs()
            .map(|v| v.into_iter().cloned().collect::<Vec<_>>()),
        v => fail(format!("GROUP_MEMBERSHIP {v:?}")),
    };
    check(members.as_ref().ok() == Some(&a_order), || {
        format!("GROUP_MEMBERSHIP of a {members:?}")
    });
    println!("ok group queries");
    // a fence over ("a", WILDCARD): only a's members take part
    if r <= 2 {
        c.fence(&[wild(&gid("a"))], &[timeout(10)])
            .unwrap_or_else(|e| fail(format!("fence over a: {e}")));
        println!("ok group fence");
    }
    // a get through a group rank: ("a", 0) is rank 2
    c.put(Scope::GLOBAL, "card", Value::Uint32(100 + r))
        .and_then(|()| c.commit())
        .unwrap_or_else(|e| fail(format!("put: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let v = c
        .get(&p(&gid("a"), 0), "card", &[])
        .unwrap_or_else(|e| fail(format!("get via a: {e}")));
    check(v == Value::Uint32(102), || format!("group get {v:?}"));
    println!("ok group get");
    // CUSTOM notify: rank 3 to ("a", WILDCARD), rank 0 to ("b", 0) = rank 1
    let seen = Arc::new(Mutex::new(Vec::<u32>::new()));
    let s2 = Arc::clone(&seen);
    c.register_event_handler(&[CUSTOM_EV], &[], move |e, done| {
        let tag = pmix_core::info::find(e.info, "tag")
            .and_then(|i| i.value.to_u64().ok())
            .unwrap_or(0) as u32;
        s2.lock().unwrap().push(tag);
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let send = |target: Proc, tag: u32| {
        let range = Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(vec![target]))),
        )
        .unwrap();
        let t = Info::new("tag", Value::Uint32(tag)).unwrap();
        c.notify_event(CUSTOM_EV, DataRange::CUSTOM, &[range, t])
            .unwrap_or_else(|e| fail(format!("notify: {e}")));
    };
    if r == 3 {
        send(wild(&gid("a")), 1);
    }
    if r == 0 {
        send(p(&gid("b"), 0), 2);
    }
    let mut want: Vec<u32> = Vec::new();
    if r <= 2 {
        want.push(1);
    }
    if r == 1 {
        want.push(2);
    }
    let end = Instant::now() + Duration::from_secs(5);
    while seen.lock().unwrap().len() < want.len() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let mut got = seen.lock().unwrap().clone();
    got.sort_unstable();
    check(got == want, || {
        format!("rank {r} saw {got:?}, want {want:?}")
    });
    println!("ok custom notify");
    // non-member destruct; then destruct everything
    if r == 3 {
        want_err(
            c.group_destruct("a", &[]),
            Status::ERR_NOT_A_MEMBER,
            "non-member destruct",
        );
    }
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    for (id, mine) in [("a", r <= 2), ("b", r >= 1), ("x", true), ("y", true)] {
        if mine {
            c.group_destruct(id, &[timeout(10)])
                .unwrap_or_else(|e| fail(format!("destruct {id}: {e}")));
        }
    }
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    if r <= 2 {
        want_err(
            c.group_destruct("a", &[]),
            Status::ERR_NOT_FOUND,
            "second destruct",
        );
    }
    // "a" again, other members
    if r == 1 || r == 3 {
        let two = vec![p(&ns, 3), p(&ns, 1)];
        construct_ok(c, "a", &two, &[timeout(20)], &two);
        c.fence(&[wild(&gid("a"))], &[timeout(10)])
            .unwrap_or_else(|e| fail(format!("fence over the new a: {e}")));
        c.group_destruct("a", &[])
            .unwrap_or_else(|e| fail(format!("destruct new a: {e}")));
        println!("ok reuse");
    }
    // a blocking construct in an event handler fails fast
    let (tx, rx) = sync_channel(1);
    let c3 = c.clone();
    let tx = Mutex::new(tx);
    c.register_event_handler(&[POKE], &[], move |_e, done| {
        let t0 = Instant::now();
        let r = c3.group_construct("h", &[c3.proc().clone()], &[]);
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
        "blocking construct in a handler",
    );
}

fn ompi5(c: &Client) {
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let size = c
        .get(&wild(&ns), attrs::JOB_SIZE, &[])
        .ok()
        .and_then(|v| v.to_u64().ok())
        .unwrap_or_else(|| fail("JOB_SIZE".into())) as u32;
    let local_cid = Info::new(
        attrs::GROUP_LOCAL_CID,
        Value::Size(100 + u64::from(me.rank.0)),
    )
    .unwrap();
    let info = [
        flag(attrs::GROUP_ASSIGN_CONTEXT_ID),
        Info::new(
            attrs::GROUP_INFO,
            Value::DataArray(Box::new(DataArray::from_infos(vec![local_cid]))),
        )
        .unwrap(),
        timeout(20),
    ];
    let procs: Vec<Proc> = (0..size).map(|r| p(&ns, r)).collect();
    let g = construct_ok(c, "ompi5-tag", &procs, &info, &procs);
    let cid = context_id(&g);
    c.group_destruct("ompi5-tag", &[])
        .unwrap_or_else(|e| fail(format!("destruct: {e}")));
    let mut q = Info::new(attrs::GROUP_CONTEXT_ID, Value::Size(cid)).unwrap();
    q.flags = q.flags.with(InfoFlags::QUALIFIER);
    for r in 0..size {
        let v = c
            .get(&p(&ns, r), attrs::GROUP_LOCAL_CID, &[timeout(5), q.clone()])
            .unwrap_or_else(|e| fail(format!("qualified get of rank {r}: {e}")));
        check(v.to_u64().ok() == Some(100 + u64::from(r)), || {
            format!("rank {r}'s local cid {v:?}")
        });
    }
    // another context id selects nothing
    let mut other = Info::new(attrs::GROUP_CONTEXT_ID, Value::Size(cid + 1000)).unwrap();
    other.flags = other.flags.with(InfoFlags::QUALIFIER);
    want_err(
        c.get(&p(&ns, 0), attrs::GROUP_LOCAL_CID, &[other]),
        Status::ERR_NOT_FOUND,
        "other context id",
    );
    println!("cid {cid}");
    println!("ok qualified gets");
}

fn leave_scenario(c: &Client) {
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let r = me.rank.0;
    let heard = Arc::new(Mutex::new(Vec::<Proc>::new()));
    let h2 = Arc::clone(&heard);
    c.register_event_handler(&[Status::GROUP_LEFT], &[], move |e, done| {
        if let Some(Value::Proc(p)) =
            pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC).map(|i| i.value.clone())
        {
            h2.lock().unwrap().push(p);
        }
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    // leave during construct
    let pair = [p(&ns, 0), p(&ns, 1)];
    if r == 0 {
        let (tx, rx) = sync_channel(1);
        c.group_construct_nb("m", &pair, &[timeout(20)], move |res| {
            let _ = tx.send(res.map(|g| g.status));
        });
        std::thread::sleep(Duration::from_millis(100));
        want_err(
            c.group_leave("m", &[]),
            Status::ERR_BAD_PARAM,
            "leave during construct",
        );
        let got = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| fail("construct m never completed".into()));
        check(got == Ok(Status::SUCCESS), || {
            format!("construct m: {got:?}")
        });
    } else if r == 1 {
        std::thread::sleep(Duration::from_millis(600));
        c.group_construct("m", &pair, &[timeout(20)])
            .unwrap_or_else(|e| fail(format!("construct m: {e}")));
    }
    if r < 2 {
        c.group_destruct("m", &[timeout(10)])
            .unwrap_or_else(|e| fail(format!("destruct m: {e}")));
    }
    let every: Vec<Proc> = (0..3).map(|i| p(&ns, i)).collect();
    construct_ok(c, "l", &every, &[timeout(20)], &every);
    // every member checked the group before rank 2 leaves it
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    if r == 2 {
        c.group_leave("l", &[])
            .unwrap_or_else(|e| fail(format!("leave: {e}")));
        want_err(
            c.group_leave("l", &[]),
            Status::ERR_NOT_A_MEMBER,
            "second leave",
        );
        want_err(
            c.group_leave("nope", &[]),
            Status::ERR_NOT_FOUND,
            "unknown group leave",
        );
        return;
    }
    let end = Instant::now() + Duration::from_secs(10);
    while heard.lock().unwrap().is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
    }
    let got = heard.lock().unwrap().clone();
    check(got == vec![p(&ns, 2)], || format!("heard {got:?}"));
    println!("ok group left");
    let size = c
        .get(&wild(&gid("l")), attrs::JOB_SIZE, &[])
        .unwrap_or_else(|e| fail(format!("JOB_SIZE: {e}")));
    check(size.to_u64().ok() == Some(2), || {
        format!("size after leave {size:?}")
    });
    c.fence(&[wild(&gid("l"))], &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("fence over l: {e}")));
    c.group_destruct("l", &[timeout(10)])
        .unwrap_or_else(|e| fail(format!("destruct after leave: {e}")));
    println!("ok destruct after leave");
}

fn invite_scenario(c: &Client) {
    let me = c.proc().clone();
    let ns = me.nspace.clone();
    let r = me.rank.0;
    let seen = Arc::new(Mutex::new(Vec::<(i32, u32)>::new()));
    let s2 = Arc::clone(&seen);
    let codes = [
        Status::GROUP_INVITED,
        Status::GROUP_INVITE_ACCEPTED,
        Status::GROUP_INVITE_DECLINED,
        Status::GROUP_INVITE_FAILED,
        Status::GROUP_CONSTRUCT_COMPLETE,
    ];
    c.register_event_handler(&codes, &[], move |e, done| {
        let who = match pmix_core::info::find(e.info, attrs::EVENT_AFFECTED_PROC) {
            Some(i) => match &i.value {
                Value::Proc(p) => p.rank.0,
                _ => u32::MAX,
            },
            None => u32::MAX,
        };
        s2.lock().unwrap().push((e.status.0, who));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    want_err(
        c.group_join("nope", &p(&ns, 0), true, &[]),
        Status::ERR_NOT_FOUND,
        "join without invitation",
    );
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let wait_for = |code: Status| {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            if seen.lock().unwrap().iter().any(|(s, _)| *s == code.0) {
                return;
            }
            check(Instant::now() < end, || {
                format!("rank {r} never heard {code}")
            });
            std::thread::sleep(Duration::from_millis(2));
        }
    };
    let want = vec![p(&ns, 0), p(&ns, 1)];
    match r {
        0 => {
            let (tx, rx) = sync_channel(1);
            let invitees = [p(&ns, 1), p(&ns, 2), p(&ns, 3)];
            c.group_invite_nb(
                "inv",
                &invitees,
                &[flag(attrs::GROUP_ASSIGN_CONTEXT_ID), timeout(20)],
                move |res| {
                    let _ = tx.send(res);
                },
            );
            let g = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| fail("the _nb invite never completed".into()))
                .unwrap_or_else(|e| fail(format!("invite: {e}")));
            check(g.status == Status::ERR_PARTIAL_SUCCESS, || {
                format!("invite {}", g.status)
            });
            check(membership(&g) == want, || {
                format!("members {:?}", membership(&g))
            });
            println!("ok invite cid {}", context_id(&g));
            for code in [
                Status::GROUP_INVITE_ACCEPTED,
                Status::GROUP_INVITE_DECLINED,
                Status::GROUP_INVITE_FAILED,
                Status::GROUP_CONSTRUCT_COMPLETE,
            ] {
                wait_for(code);
            }
            let got = seen.lock().unwrap().clone();
            for (code, who) in [
                (Status::GROUP_INVITE_ACCEPTED, 1),
                (Status::GROUP_INVITE_DECLINED, 2),
                (Status::GROUP_INVITE_FAILED, 3),
            ] {
                check(got.contains(&(code.0, who)), || {
                    format!("leader heard {got:?}")
                });
            }
            println!("ok leader events");
        }
        1..=3 => {
            wait_for(Status::GROUP_INVITED);
            if r == 3 {
                println!("dying {}", now_ms());
                let pid = std::process::id().to_string();
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid])
                    .status();
                std::thread::sleep(Duration::from_secs(30));
                fail("still alive".into());
            }
            if r == 2 {
                let g = c
                    .group_join("inv", &p(&ns, 0), false, &[])
                    .unwrap_or_else(|e| fail(format!("decline: {e}")));
                check(g.results.is_empty(), || format!("decline results {g:?}"));
                println!("ok declined");
                return;
            }
            let g = c
                .group_join("inv", &wild(&ns), true, &[timeout(20)])
                .unwrap_or_else(|e| fail(format!("accept: {e}")));
            check(membership(&g) == want, || {
                format!("members {:?}", membership(&g))
            });
            println!("ok invite cid {}", context_id(&g));
            wait_for(Status::GROUP_CONSTRUCT_COMPLETE);
            println!("ok joined");
        }
        _ => {}
    }
    if r <= 1 {
        c.fence(&[wild(&gid("inv"))], &[timeout(10)])
            .unwrap_or_else(|e| fail(format!("fence over inv: {e}")));
        c.group_destruct("inv", &[timeout(10)])
            .unwrap_or_else(|e| fail(format!("destruct inv: {e}")));
        println!("ok invited group works");
    }
}

mod failures;
use failures::{kill_leader, kill_scenario, member_died, optional, timeout_scenario};

fn main() {
    let scenario = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "overlap" => overlap(&c),
        "ompi5" => ompi5(&c),
        "kill" => kill_scenario(&c),
        "optional" => optional(&c),
        "timeout" => timeout_scenario(&c),
        "leave" => leave_scenario(&c),
        "invite" => invite_scenario(&c),
        "memberdied" => member_died(&c),
        "killleader" => kill_leader(&c),
        s => fail(format!("unknown scenario {s:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}
