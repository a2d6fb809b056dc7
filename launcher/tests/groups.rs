//! PMIx Groups (construct / destruct, context ids, qualified gets, a
//! member's death) across real processes: `pmixrun` jobs and in-test
//! servers running `examples/groupclient/`.

use std::process::Output;
use std::sync::Arc;
use std::time::Duration;

use pmix_core::{attrs, Info, Proc, Value};
use pmix_server::{Completion, Host, NullHost};

mod common;
use common::{assert_ok, one_node_job, start_client, text, wait_all};

fn pmixrun(n: u32, scenario: &str) -> Output {
    common::run_scenario("groupclient", n, scenario, 90)
}

/// The values after `prefix` on the lines that start with it.
fn values<'a>(t: &'a str, prefix: &str) -> Vec<&'a str> {
    t.lines().filter_map(|l| l.strip_prefix(prefix)).collect()
}

#[test]
fn overlapping_groups_at_once_rank_address_and_reuse_their_ids() {
    let o = pmixrun(4, "overlap");
    assert_ok(&o, 4);
    let t = text(&o);
    for (what, n) in [
        ("ok empty id", 4),
        ("ok too long id", 4),
        ("ok namespace id", 4),
        ("ok zero procs", 4),
        ("ok caller not a member", 4),
        ("ok unknown group", 4),
        ("ok overlap", 4),
        ("ok same procs twice", 4),
        ("ok group queries", 4),
        ("ok group fence", 3),
        ("ok group get", 4),
        ("ok custom notify", 4),
        ("ok non-member destruct", 1),
        ("ok second destruct", 3),
        ("ok reuse", 2),
        ("ok blocking construct in a handler", 4),
    ] {
        assert_eq!(t.matches(what).count(), n, "{what}: {t}");
    }
    // one context id per group, the same at every member
    let mut a = values(&t, "ok a cid ");
    let mut b = values(&t, "ok b cid ");
    a.dedup();
    b.dedup();
    assert_eq!((a.len(), b.len()), (1, 1), "{t}");
    assert_ne!(a, b, "{t}");
}

#[test]
fn open_mpi_5_sequence_context_id_group_info_destruct_then_qualified_get() {
    let o = pmixrun(4, "ompi5");
    assert_ok(&o, 4);
    let t = text(&o);
    assert_eq!(t.matches("ok qualified gets").count(), 4, "{t}");
    assert_eq!(t.matches("ok other context id").count(), 4, "{t}");
    let mut cids = values(&t, "cid ");
    assert_eq!(cids.len(), 4, "{t}");
    cids.dedup();
    assert_eq!(cids.len(), 1, "the members disagree on the context id: {t}");
}

/// The `(kind, unix-ms)` lines a client printed.
fn stamp(o: &Output, what: &str) -> Option<(i32, u128)> {
    String::from_utf8_lossy(&o.stdout).lines().find_map(|l| {
        let f: Vec<&str> = l.split(' ').collect();
        match (f.first(), f.len()) {
            (Some(w), 3) if *w == what => Some((f[1].parse().ok()?, f[2].parse().ok()?)),
            (Some(w), 2) if *w == what => Some((0, f[1].parse().ok()?)),
            _ => None,
        }
    })
}

#[test]
fn a_member_killed_before_construct_fails_the_others_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("gkill", 4, Arc::new(NullHost), tmp.path());
    let kids = (0..4)
        .map(|r| start_client("groupclient", &server, &ns, r, "kill"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    let died = stamp(&outs[3], "dying").unwrap_or_else(|| panic!("{}", text(&outs[3])));
    for o in &outs[..3] {
        assert!(o.status.success(), "{}", text(o));
        let f = stamp(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(f.0, pmix_core::Status::ERR_LOST_CONNECTION.0, "{}", text(o));
        let after = f.1.saturating_sub(died.1);
        eprintln!("group construct failed {after} ms after the member's SIGKILL");
        assert!(
            after < 1000,
            "failed {after} ms after the death: {}",
            text(o)
        );
        assert!(text(o).contains("ok invite failed"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

#[test]
fn an_optional_construct_completes_with_who_arrived_as_partial_success() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("gopt", 4, Arc::new(NullHost), tmp.path());
    let kids = (0..4)
        .map(|r| start_client("groupclient", &server, &ns, r, "optional"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    for o in &outs[..3] {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok optional"), "{}", text(o));
        assert!(text(o).contains("ok membership update"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

/// A host that assigns context ids from 7000 up and counts its group
/// up-calls.
#[derive(Default)]
struct CidHost {
    calls: std::sync::Mutex<u64>,
}

impl Host for CidHost {
    fn group(&self, op: u8, _g: &str, procs: &[Proc], info: &[Info], done: Completion<Vec<Info>>) {
        assert_eq!(op, pmix_core::proto::group::op::CONSTRUCT);
        assert!(pmix_core::info::find(info, attrs::GROUP_ASSIGN_CONTEXT_ID).is_some());
        assert_eq!(procs.len(), 4);
        let n = {
            let mut c = self.calls.lock().unwrap();
            *c += 1;
            *c - 1
        };
        done(Ok(vec![Info::new(
            attrs::GROUP_CONTEXT_ID,
            Value::Size(7000 + n),
        )
        .unwrap()]));
    }
}

#[test]
fn the_host_assigns_the_context_id_when_it_can() {
    let tmp = tempfile::tempdir().unwrap();
    let host = Arc::new(CidHost::default());
    let (server, ns) = one_node_job("gcid", 4, host.clone(), tmp.path());
    let kids = (0..4)
        .map(|r| start_client("groupclient", &server, &ns, r, "ompi5"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    for o in &outs {
        assert!(o.status.success(), "{}", text(o));
        assert!(text(o).contains("ok qualified gets"), "{}", text(o));
        assert!(text(o).contains("cid 7000\n"), "{}", text(o));
    }
    // once per construct, from the server, not per member
    assert_eq!(*host.calls.lock().unwrap(), 1);
}

#[test]
fn a_member_dying_after_construct_raises_member_failed_and_destruct_follows_notify_termination() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("gdied", 4, Arc::new(NullHost), tmp.path());
    let kids = (0..4)
        .map(|r| start_client("groupclient", &server, &ns, r, "memberdied"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    let died = stamp(&outs[3], "dying").unwrap_or_else(|| panic!("{}", text(&outs[3])));
    for o in &outs[..3] {
        assert!(o.status.success(), "{}", text(o));
        let heard = String::from_utf8_lossy(&o.stdout).lines().find_map(|l| {
            let f: Vec<&str> = l.strip_prefix("member failed ")?.split(' ').collect();
            Some((f[0].parse::<u32>().ok()?, f.get(1)?.parse::<u128>().ok()?))
        });
        let (rank, at) = heard.unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(rank, 3, "{}", text(o));
        let after = at.saturating_sub(died.1);
        eprintln!("PMIX_GROUP_MEMBER_FAILED {after} ms after the member's SIGKILL");
        assert!(
            after < 1000,
            "heard {after} ms after the death: {}",
            text(o)
        );
        assert!(
            text(o).contains("ok destruct with notify termination"),
            "{}",
            text(o)
        );
        assert!(
            text(o).contains("ok destruct without notify termination"),
            "{}",
            text(o)
        );
    }
    // "t" is gone; "u" stays until its members finalize, then goes too
    assert!(server.groups().is_empty(), "{:?}", server.groups());
}

#[test]
fn a_timed_out_construct_fails_everyone_refuses_the_late_one_and_the_id_works_again() {
    let o = pmixrun(3, "timeout");
    assert_ok(&o, 3);
    assert_eq!(text(&o).matches("ok timed out").count(), 3, "{}", text(&o));
    assert_eq!(
        text(&o).matches("ok next construct").count(),
        3,
        "{}",
        text(&o)
    );
}

#[test]
fn a_member_leaves_the_others_hear_it_and_go_on_without_it_and_leave_during_construct_is_refused() {
    let o = pmixrun(3, "leave");
    assert_ok(&o, 3);
    let t = text(&o);
    for (what, n) in [
        ("ok leave during construct", 1),
        ("ok second leave", 1),
        ("ok unknown group leave", 1),
        ("ok group left", 2),
        ("ok destruct after leave", 2),
    ] {
        assert_eq!(t.matches(what).count(), n, "{what}: {t}");
    }
}

#[test]
fn invite_with_an_accept_a_decline_and_a_death_completes_with_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("ginv", 4, Arc::new(NullHost), tmp.path());
    let kids = (0..4)
        .map(|r| start_client("groupclient", &server, &ns, r, "invite"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    for o in &outs[..3] {
        assert!(o.status.success(), "{}", text(o));
        assert!(
            text(o).contains("ok join without invitation"),
            "{}",
            text(o)
        );
    }
    assert!(
        text(&outs[0]).contains("ok leader events"),
        "{}",
        text(&outs[0])
    );
    assert!(text(&outs[1]).contains("ok joined"), "{}", text(&outs[1]));
    assert!(text(&outs[2]).contains("ok declined"), "{}", text(&outs[2]));
    let cid = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("ok invite cid ").map(str::to_owned))
    };
    assert!(cid(&outs[0]).is_some(), "{}", text(&outs[0]));
    assert_eq!(cid(&outs[0]), cid(&outs[1]));
    for o in &outs[..2] {
        assert!(text(o).contains("ok invited group works"), "{}", text(o));
    }
    assert!(server.groups().is_empty(), "{:?}", server.groups());
}

#[test]
fn the_leader_killed_mid_construct_fails_it_with_leader_failed_within_a_second() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, ns) = one_node_job("gleader", 4, Arc::new(NullHost), tmp.path());
    let kids = (0..4)
        .map(|r| start_client("groupclient", &server, &ns, r, "killleader"))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    let died = stamp(&outs[0], "dying").unwrap_or_else(|| panic!("{}", text(&outs[0])));
    for o in &outs[1..3] {
        assert!(o.status.success(), "{}", text(o));
        let f = stamp(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(f.0, pmix_core::Status::ERR_LOST_CONNECTION.0, "{}", text(o));
        let after = f.1.saturating_sub(died.1);
        eprintln!("group construct failed {after} ms after the leader's SIGKILL");
        assert!(
            after < 1000,
            "failed {after} ms after the death: {}",
            text(o)
        );
        assert!(text(o).contains("ok leader failed"), "{}", text(o));
    }
    assert!(outs[3].status.success(), "{}", text(&outs[3]));
    assert!(server.groups().is_empty());
}
