//! A PMIx client driven by `launcher/tests/group_leader.rs`: a construct
//! whose declared leader dies, and what the participants' handlers for
//! `PMIX_GROUP_LEADER_FAILED` decide. `groupleader <scenario>` prints
//! `ok …` lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.
//!
//! `claim` and `abort` (4 ranks): rank 0 declares itself `PMIX_GROUP_LEADER`,
//! calls construct of "nl" over the job (`_nb`) and SIGKILLs itself
//! 300 ms later (printing `dying <unix-ms>`); ranks 1, 2 call the blocking
//! construct at once, rank 3 800 ms later (after the death).
//! - `claim`: ranks 1 and 2 answer `PMIX_GROUP_LEADER_FAILED` with the
//!   result `PMIX_GROUP_LEADER` (true). Every one
//!   prints `selected Some(<rank>) <unix-ms>` for each `PMIX_GROUP_LEADER_SELECTED` it
//!   hears and `constructed <status> <ranks,...> <unix-ms>`; then a fence
//!   over the group and its destruct.
//! - `abort`: rank 2's handler returns `PMIX_GROUP_CONSTRUCT_ABORT`;
//!   every one prints `failed <status> <unix-ms>` (rank 3, arriving after
//!   the abort, finds its construct failed by the leader's death) and
//!   `abort event from Some(2)` when the `PMIX_GROUP_CONSTRUCT_ABORT` event
//!   arrives.
//!
//! - `lateclaim`: ranks 1 and 2 decide nothing; rank 3 waits (at most
//!   3 s) for `PMIX_GROUP_LEADER_FAILED` before it calls construct
//!   (printing `heard before calling <unix-ms>`), claims the lead from
//!   its handler, waits 200 ms and calls; output as in `claim`.
//! - `noclaim`: nobody claims; rank 3 waits for the event as in
//!   `lateclaim`. Every one prints `selecterr <status> <unix-ms>` for the
//!   `PMIX_GROUP_LEADER_SELECTED` without a leader (its
//!   `PMIX_LOCAL_COLLECTIVE_STATUS`) and `failed <status> <unix-ms>`.
//!
//! `goon` and `memberabort` (4 ranks): a member's death decided by the
//! leader. Rank 3 SIGKILLs itself 300 ms in without calling construct
//! (printing `dying <unix-ms>`); ranks 0 (declared `PMIX_GROUP_LEADER`),
//! 1, 2 call the blocking construct of "gm" at once. Rank 0's
//! `PMIX_GROUP_INVITE_FAILED` handler returns the result
//! `PMIX_GROUP_OPTIONAL` (true) (`goon`) or the status
//! `PMIX_GROUP_CONSTRUCT_ABORT` (`memberabort`). Each prints
//! `constructed <status> <ranks> <unix-ms>` or `failed <status> <unix-ms>`,
//! and `update <ranks>` for a `PMIX_GROUP_MEMBERSHIP_UPDATE`.
//!
//! `inviteabort` (3 ranks): rank 0 invites 1 and 2 into "ia"; its
//! `PMIX_GROUP_INVITE_DECLINED` handler returns
//! `PMIX_GROUP_CONSTRUCT_ABORT`. Rank 1 accepts at once (a blocking join
//! from a thread woken by its `PMIX_GROUP_INVITED` handler), rank 2
//! declines 500 ms later. Ranks 0 and 1 print `failed <status>`; ranks 1
//! and 2 print `abort event from Some(0)` for the `PMIX_GROUP_CONSTRUCT_ABORT`
//! event.
//!
//! `ftfence` (3 ranks): all construct "ft"; rank 2 SIGKILLs itself 300 ms
//! later (printing `dying <unix-ms>`); ranks 0, 1 fence over
//! `("ft", WILDCARD)` with `PMIX_GROUP_FT_COLLECTIVE` and print `fenced
//! <status> <unix-ms>`, then fence again without it and print `plain
//! <status>`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pmix_client::Client;
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Status, Value};

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

fn info(key: &str, v: Value) -> Info {
    Info::new(key, v).unwrap()
}

fn affected(infos: &[Info]) -> Option<u32> {
    match pmix_core::info::find(infos, attrs::EVENT_AFFECTED_PROC).map(|i| &i.value) {
        Some(Value::Proc(p)) => Some(p.rank.0),
        _ => None,
    }
}

fn die() -> ! {
    println!("dying {}", now_ms());
    let pid = std::process::id().to_string();
    let _ = std::process::Command::new("kill")
        .args(["-9", &pid])
        .status();
    std::thread::sleep(Duration::from_secs(30));
    fail("still alive".into())
}

/// What the participants of the leader-death scenarios do.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Ranks 1 and 2 claim the lead.
    Claim,
    /// Rank 2 aborts.
    Abort,
    /// Only rank 3, which has not called construct yet, claims.
    LateClaim,
    /// Nobody claims.
    NoClaim,
}

fn scenario(c: &Client, mode: Mode) {
    let me = c.proc().clone();
    let all = [Proc::from_parts(me.nspace.clone(), Rank::WILDCARD)];
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    if me.rank.0 == 0 {
        let lead = info(attrs::GROUP_LEADER, Value::Bool(true));
        c.group_construct_nb("nl", &all, &[lead, limit], |_| {});
        std::thread::sleep(Duration::from_millis(300));
        die();
    }
    let claims = match mode {
        Mode::Claim => me.rank.0 != 3,
        Mode::LateClaim => me.rank.0 == 3,
        Mode::Abort | Mode::NoClaim => false,
    };
    let aborts = mode == Mode::Abort && me.rank.0 == 2;
    let (heard_tx, heard_rx) = std::sync::mpsc::sync_channel::<u128>(4);
    c.register_event_handler(&[Status::GROUP_LEADER_FAILED], &[], move |e, done| {
        println!("leader failed {:?}", affected(e.info));
        let _ = heard_tx.try_send(now_ms());
        if aborts {
            done.done(Status::GROUP_CONSTRUCT_ABORT, vec![]);
        } else if claims {
            let claim = info(attrs::GROUP_LEADER, Value::Bool(true));
            done.done(Status::SUCCESS, vec![claim]);
        } else {
            done.done(Status::SUCCESS, vec![]);
        }
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    let selected = Arc::new(Mutex::new(Vec::<(Option<u32>, u128)>::new()));
    let s2 = Arc::clone(&selected);
    c.register_event_handler(&[Status::GROUP_LEADER_SELECTED], &[], move |e, done| {
        let who = affected(e.info);
        if who.is_none() {
            // nobody claimed: the status says why
            let st = match pmix_core::info::find(e.info, attrs::LOCAL_COLLECTIVE_STATUS)
                .map(|i| &i.value)
            {
                Some(Value::Status(s)) => s.0,
                _ => 0,
            };
            println!("selecterr {st} {}", now_ms());
        }
        s2.lock().unwrap().push((who, now_ms()));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.register_event_handler(&[Status::GROUP_CONSTRUCT_ABORT], &[], move |e, done| {
        println!("abort event from {:?}", affected(e.info));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    if me.rank.0 == 3 {
        if matches!(mode, Mode::LateClaim | Mode::NoClaim) {
            // it has not called construct: it hears the death as an event
            match heard_rx.recv_timeout(Duration::from_secs(3)) {
                Ok(at) => println!("heard before calling {at}"),
                Err(_) => println!("never heard before calling"),
            }
            std::thread::sleep(Duration::from_millis(200));
        } else {
            // arrives after the leader's death
            std::thread::sleep(Duration::from_millis(800));
        }
    }
    match c.group_construct("nl", &all, &[limit]) {
        Err(e) => {
            println!("failed {} {}", e.status().0, now_ms());
            println!("why {e}");
        }
        Ok(x) => {
            let members = match pmix_core::info::find(&x.results, attrs::GROUP_MEMBERSHIP)
                .map(|i| &i.value)
            {
                Some(Value::DataArray(a)) => a.procs().unwrap_or_default(),
                _ => vec![],
            };
            let ranks: Vec<String> = members.iter().map(|p| p.rank.0.to_string()).collect();
            println!(
                "constructed {} {} {}",
                x.status.0,
                ranks.join(","),
                now_ms()
            );
            let group = Proc::from_parts(Nspace::new("nl").unwrap(), Rank::WILDCARD);
            c.fence(&[group], &[])
                .unwrap_or_else(|e| fail(format!("fence over the group: {e}")));
            c.group_destruct("nl", &[info(attrs::TIMEOUT, Value::Int32(10))])
                .unwrap_or_else(|e| fail(format!("destruct: {e}")));
            println!("ok destructed");
        }
    }
    // a second LEADER_SELECTED would come right after the first
    std::thread::sleep(Duration::from_millis(300));
    for (s, at) in selected.lock().unwrap().iter() {
        println!("selected {s:?} {at}");
    }
}

fn members(infos: &[Info]) -> String {
    let procs = match pmix_core::info::find(infos, attrs::GROUP_MEMBERSHIP).map(|i| &i.value) {
        Some(Value::DataArray(a)) => a.procs().unwrap_or_default(),
        _ => vec![],
    };
    let ranks: Vec<String> = procs.iter().map(|p| p.rank.0.to_string()).collect();
    ranks.join(",")
}

fn member_scenario(c: &Client, abort: bool) {
    let me = c.proc().clone();
    let all = [Proc::from_parts(me.nspace.clone(), Rank::WILDCARD)];
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    if me.rank.0 == 3 {
        std::thread::sleep(Duration::from_millis(300));
        die();
    }
    c.register_event_handler(&[Status::GROUP_MEMBERSHIP_UPDATE], &[], |e, done| {
        println!("update {}", members(e.info));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    let mut directives = vec![limit];
    if me.rank.0 == 0 {
        c.register_event_handler(&[Status::GROUP_INVITE_FAILED], &[], move |e, done| {
            println!("invite failed {:?}", affected(e.info));
            if abort {
                done.done(Status::GROUP_CONSTRUCT_ABORT, vec![]);
            } else {
                let on = info(attrs::GROUP_OPTIONAL, Value::Bool(true));
                done.done(Status::SUCCESS, vec![on]);
            }
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        directives.push(info(attrs::GROUP_LEADER, Value::Bool(true)));
    }
    match c.group_construct("gm", &all, &directives) {
        Err(e) => println!("failed {} {}", e.status().0, now_ms()),
        Ok(x) => {
            println!(
                "constructed {} {} {}",
                x.status.0,
                members(&x.results),
                now_ms()
            );
            c.group_destruct("gm", &[info(attrs::TIMEOUT, Value::Int32(10))])
                .unwrap_or_else(|e| fail(format!("destruct: {e}")));
            println!("ok destructed");
        }
    }
    std::thread::sleep(Duration::from_millis(300));
}

fn invite_abort(c: &Client) {
    let me = c.proc().clone();
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    c.register_event_handler(&[Status::GROUP_CONSTRUCT_ABORT], &[], |e, done| {
        println!("abort event from {:?}", affected(e.info));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    if me.rank.0 == 0 {
        c.register_event_handler(&[Status::GROUP_INVITE_DECLINED], &[], |_, done| {
            done.done(Status::GROUP_CONSTRUCT_ABORT, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        // the invitees registered for PMIX_GROUP_INVITED before this
        std::thread::sleep(Duration::from_millis(300));
        let them = [
            Proc::from_parts(me.nspace.clone(), Rank(1)),
            Proc::from_parts(me.nspace.clone(), Rank(2)),
        ];
        match c.group_invite("ia", &them, &[limit]) {
            Err(e) => println!("failed {}", e.status().0),
            Ok(x) => fail(format!("invite completed after the abort: {x:?}")),
        }
    } else {
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
        c.register_event_handler(&[Status::GROUP_INVITED], &[], move |_, done| {
            let _ = tx.try_send(());
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        rx.recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| fail("never invited".into()));
        let leader = Proc::from_parts(me.nspace.clone(), Rank(0));
        if me.rank.0 == 2 {
            std::thread::sleep(Duration::from_millis(500));
            c.group_join("ia", &leader, false, &[])
                .unwrap_or_else(|e| fail(format!("decline: {e}")));
        } else {
            match c.group_join("ia", &leader, true, &[limit]) {
                Err(e) => println!("failed {}", e.status().0),
                Ok(x) => fail(format!("join completed after the abort: {x:?}")),
            }
        }
    }
    std::thread::sleep(Duration::from_millis(300));
}

/// `inviteclaim` and `invitenoclaim` (4 ranks): rank 0 invites 1, 2, 3
/// into "ic" (`_nb`) and SIGKILLs itself (printing `dying <unix-ms>`) once
/// ranks 1 and 2 accepted (blocking joins). Rank 3 answers only after it
/// heard `PMIX_GROUP_LEADER_SELECTED` (at most 4 s), accepting with the
/// leader's rank `WILDCARD`. In `inviteclaim` rank 1's
/// `PMIX_GROUP_LEADER_FAILED` handler claims the lead; in `invitenoclaim`
/// nobody does. Each prints `leader failed <rank>`, `selected Some(<rank>)
/// <unix-ms>` or `selecterr <status> <unix-ms>`, and `joined <status>
/// <ranks> <unix-ms>` or `failed <status> <unix-ms>`; the members of a
/// group made destruct it.
fn invite_leader(c: &Client, claim: bool) {
    let me = c.proc().clone();
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    if me.rank.0 == 0 {
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(4);
        c.register_event_handler(&[Status::GROUP_INVITE_ACCEPTED], &[], move |_, done| {
            let _ = tx.try_send(());
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        // the invitees registered for PMIX_GROUP_INVITED before this
        std::thread::sleep(Duration::from_millis(300));
        let them: Vec<Proc> = (1..4)
            .map(|r| Proc::from_parts(me.nspace.clone(), Rank(r)))
            .collect();
        c.group_invite_nb("ic", &them, &[limit], |_| {});
        for _ in 0..2 {
            rx.recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|_| fail("no acceptance".into()));
        }
        die();
    }
    let claims = claim && me.rank.0 == 1;
    c.register_event_handler(&[Status::GROUP_LEADER_FAILED], &[], move |e, done| {
        println!("leader failed {:?}", affected(e.info));
        if claims {
            let lead = info(attrs::GROUP_LEADER, Value::Bool(true));
            done.done(Status::SUCCESS, vec![lead]);
        } else {
            done.done(Status::SUCCESS, vec![]);
        }
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    let (sel_tx, sel_rx) = std::sync::mpsc::sync_channel::<()>(4);
    c.register_event_handler(&[Status::GROUP_LEADER_SELECTED], &[], move |e, done| {
        match affected(e.info) {
            Some(r) => println!("selected Some({r}) {}", now_ms()),
            None => {
                let st = match pmix_core::info::find(e.info, attrs::LOCAL_COLLECTIVE_STATUS)
                    .map(|i| &i.value)
                {
                    Some(Value::Status(s)) => s.0,
                    _ => 0,
                };
                println!("selecterr {st} {}", now_ms());
            }
        }
        let _ = sel_tx.try_send(());
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
    c.register_event_handler(&[Status::GROUP_INVITED], &[], move |_, done| {
        let _ = tx.try_send(());
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    rx.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| fail("never invited".into()));
    let leader = if me.rank.0 == 3 {
        if sel_rx.recv_timeout(Duration::from_secs(4)).is_err() {
            println!("no leader selected event");
        }
        Proc::from_parts(me.nspace.clone(), Rank::WILDCARD)
    } else {
        Proc::from_parts(me.nspace.clone(), Rank(0))
    };
    match c.group_join("ic", &leader, true, &[limit]) {
        Err(e) => println!("failed {} {}", e.status().0, now_ms()),
        Ok(x) => {
            println!("joined {} {} {}", x.status.0, members(&x.results), now_ms());
            c.group_destruct("ic", &[info(attrs::TIMEOUT, Value::Int32(10))])
                .unwrap_or_else(|e| fail(format!("destruct: {e}")));
            println!("ok destructed");
        }
    }
    std::thread::sleep(Duration::from_millis(300));
}

/// `replace` (4 ranks): rank 0 invites 1 and 2 into "rp"; its
/// `PMIX_GROUP_INVITE_DECLINED` handler returns `PMIX_GROUP_ADD_MEMBERS`
/// naming rank 3. Rank 1 accepts, rank 2 declines 300 ms later; rank 3
/// waits (at most 5 s) for `PMIX_GROUP_INVITED`, prints `invited
/// <ranks>` (the proposed membership) and accepts. Each prints
/// `joined <status> <ranks> <unix-ms>` (rank 0: its invite's) or
/// `failed <status>`; the members destruct the group.
fn replace(c: &Client) {
    let me = c.proc().clone();
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    let outcome = |r: pmix_core::Result<pmix_client::GroupConstructed>| match r {
        Err(e) => println!("failed {} {}", e.status().0, now_ms()),
        Ok(x) => {
            println!("joined {} {} {}", x.status.0, members(&x.results), now_ms());
            c.group_destruct("rp", &[info(attrs::TIMEOUT, Value::Int32(10))])
                .unwrap_or_else(|e| fail(format!("destruct: {e}")));
            println!("ok destructed");
        }
    };
    if me.rank.0 == 0 {
        let ns = me.nspace.clone();
        c.register_event_handler(&[Status::GROUP_INVITE_DECLINED], &[], move |e, done| {
            println!("declined by {:?}", affected(e.info));
            let other = Proc::from_parts(ns.clone(), Rank(3));
            let add = info(
                attrs::GROUP_ADD_MEMBERS,
                Value::DataArray(Box::new(pmix_core::DataArray::from_procs(vec![other]))),
            );
            done.done(Status::SUCCESS, vec![add]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        std::thread::sleep(Duration::from_millis(300));
        let them = [
            Proc::from_parts(me.nspace.clone(), Rank(1)),
            Proc::from_parts(me.nspace.clone(), Rank(2)),
        ];
        outcome(c.group_invite("rp", &them, &[limit]));
    } else {
        let (tx, rx) = std::sync::mpsc::sync_channel::<String>(2);
        c.register_event_handler(&[Status::GROUP_INVITED], &[], move |e, done| {
            let _ = tx.try_send(members(e.info));
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        let wait = if me.rank.0 == 3 { 5 } else { 20 };
        let proposed = rx
            .recv_timeout(Duration::from_secs(wait))
            .unwrap_or_else(|_| fail("never invited".into()));
        println!("invited {proposed}");
        let leader = Proc::from_parts(me.nspace.clone(), Rank(0));
        if me.rank.0 == 2 {
            std::thread::sleep(Duration::from_millis(300));
            c.group_join("rp", &leader, false, &[])
                .unwrap_or_else(|e| fail(format!("decline: {e}")));
            if rx.recv_timeout(Duration::from_millis(500)).is_ok() {
                fail("invited again after declining".into());
            }
        } else {
            outcome(c.group_join("rp", &leader, true, &[limit]));
        }
    }
    std::thread::sleep(Duration::from_millis(300));
}

/// `notifyabort` (3 ranks): rank 0 invites 1 and 2 into "na" (`_nb`);
/// once rank 1 accepted (a blocking join) rank 0 calls
/// `PMIx_Notify_event(PMIX_GROUP_CONSTRUCT_ABORT)` (range `LOCAL`, with
/// `PMIX_GROUP_ID` "na") and prints `failed <status>` for its invite's
/// outcome (`invite not over` if none within 5 s). Rank 1 prints `failed
/// <status>` for its join; rank 2 waits (at most 5 s) for the abort event,
/// then joins and prints `late join <status>`. Ranks 1 and 2 print `abort
/// event from <rank>` for each `PMIX_GROUP_CONSTRUCT_ABORT` event.
fn notify_abort(c: &Client) {
    let me = c.proc().clone();
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    if me.rank.0 == 0 {
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(2);
        c.register_event_handler(&[Status::GROUP_INVITE_ACCEPTED], &[], move |_, done| {
            let _ = tx.try_send(());
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        std::thread::sleep(Duration::from_millis(300));
        let them = [
            Proc::from_parts(me.nspace.clone(), Rank(1)),
            Proc::from_parts(me.nspace.clone(), Rank(2)),
        ];
        let (otx, orx) = std::sync::mpsc::sync_channel::<i32>(1);
        c.group_invite_nb("na", &them, &[limit], move |r| {
            let _ = otx.try_send(r.map_or_else(|e| e.status().0, |x| x.status.0));
        });
        rx.recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| fail("no acceptance".into()));
        let id = info(attrs::GROUP_ID, Value::String("na".into()));
        c.notify_event(
            Status::GROUP_CONSTRUCT_ABORT,
            pmix_core::DataRange::LOCAL,
            &[id],
        )
        .unwrap_or_else(|e| fail(format!("notify: {e}")));
        match orx.recv_timeout(Duration::from_secs(5)) {
            Ok(st) => println!("failed {st}"),
            Err(_) => println!("invite not over"),
        }
    } else {
        let (atx, arx) = std::sync::mpsc::sync_channel::<()>(4);
        c.register_event_handler(&[Status::GROUP_CONSTRUCT_ABORT], &[], move |e, done| {
            println!("abort event from {:?}", affected(e.info));
            let _ = atx.try_send(());
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
        c.register_event_handler(&[Status::GROUP_INVITED], &[], move |_, done| {
            let _ = tx.try_send(());
            done.done(Status::SUCCESS, vec![]);
        })
        .unwrap_or_else(|e| fail(format!("register: {e}")));
        rx.recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| fail("never invited".into()));
        let leader = Proc::from_parts(me.nspace.clone(), Rank(0));
        if me.rank.0 == 1 {
            match c.group_join("na", &leader, true, &[limit]) {
                Err(e) => println!("failed {}", e.status().0),
                Ok(x) => fail(format!("join completed after the abort: {x:?}")),
            }
        } else {
            let _ = arx.recv_timeout(Duration::from_secs(5));
            let r = c.group_join("na", &leader, true, &[limit]);
            println!(
                "late join {}",
                r.map_or_else(|e| e.status().0, |x| x.status.0)
            );
        }
    }
    std::thread::sleep(Duration::from_millis(300));
}

fn ft_fence(c: &Client) {
    let me = c.proc().clone();
    let all = [Proc::from_parts(me.nspace.clone(), Rank::WILDCARD)];
    c.group_construct("ft", &all, &[info(attrs::TIMEOUT, Value::Int32(20))])
        .unwrap_or_else(|e| fail(format!("construct: {e}")));
    if me.rank.0 == 2 {
        std::thread::sleep(Duration::from_millis(300));
        die();
    }
    let group = [Proc::from_parts(Nspace::new("ft").unwrap(), Rank::WILDCARD)];
    let ft = info(attrs::GROUP_FT_COLLECTIVE, Value::Bool(true));
    let limit = info(attrs::TIMEOUT, Value::Int32(20));
    let status = |r: pmix_core::Result<()>| r.map_or_else(|e| e.status().0, |()| 0);
    let r = c.fence(&group, &[ft, limit.clone()]);
    println!("fenced {} {}", status(r), now_ms());
    let r = c.fence(&group, &[limit]);
    println!("plain {}", status(r));
}

/// `ftleave` (3 ranks): all construct "fl"; ranks 0, 1 fence over it with
/// `PMIX_GROUP_FT_COLLECTIVE`; rank 2 leaves the group 300 ms later
/// (printing `leaving <unix-ms>`) instead of joining the fence; ranks 0, 1
/// print `fenced <status> <unix-ms>`.
fn ft_leave(c: &Client) {
    let me = c.proc().clone();
    let all = [Proc::from_parts(me.nspace.clone(), Rank::WILDCARD)];
    c.group_construct("fl", &all, &[info(attrs::TIMEOUT, Value::Int32(20))])
        .unwrap_or_else(|e| fail(format!("construct: {e}")));
    if me.rank.0 == 2 {
        std::thread::sleep(Duration::from_millis(300));
        println!("leaving {}", now_ms());
        c.group_leave("fl", &[])
            .unwrap_or_else(|e| fail(format!("leave: {e}")));
        std::thread::sleep(Duration::from_millis(500));
        return;
    }
    let group = [Proc::from_parts(Nspace::new("fl").unwrap(), Rank::WILDCARD)];
    let ft = info(attrs::GROUP_FT_COLLECTIVE, Value::Bool(true));
    let limit = info(attrs::TIMEOUT, Value::Int32(5));
    let r = c.fence(&group, &[ft, limit]);
    println!(
        "fenced {} {}",
        r.map_or_else(|e| e.status().0, |()| 0),
        now_ms()
    );
    c.group_destruct("fl", &[info(attrs::TIMEOUT, Value::Int32(10))])
        .unwrap_or_else(|e| fail(format!("destruct: {e}")));
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match which.as_str() {
        "claim" => scenario(&c, Mode::Claim),
        "abort" => scenario(&c, Mode::Abort),
        "lateclaim" => scenario(&c, Mode::LateClaim),
        "noclaim" => scenario(&c, Mode::NoClaim),
        "goon" => member_scenario(&c, false),
        "memberabort" => member_scenario(&c, true),
        "inviteabort" => invite_abort(&c),
        "inviteclaim" => invite_leader(&c, true),
        "replace" => replace(&c),
        "notifyabort" => notify_abort(&c),
        "invitenoclaim" => invite_leader(&c, false),
        "ftfence" => ft_fence(&c),
        "ftleave" => ft_leave(&c),
        s => fail(format!("unknown scenario {s:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}
