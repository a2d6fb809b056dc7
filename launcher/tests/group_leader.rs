//! A construct whose declared leader dies, across real processes: the
//! participants' `PMIX_GROUP_LEADER_FAILED` handlers claim the lead or
//! abort; a member that dies first, and the leader's
//! `PMIX_GROUP_INVITE_FAILED` handler goes on without it or aborts; an
//! inviting leader's `PMIX_GROUP_INVITE_DECLINED` handler aborts; a group
//! fence with `PMIX_GROUP_FT_COLLECTIVE` adjusts to a member's death
//! (`examples/groupleader.rs`, in-test server).

use std::process::Output;
use std::sync::Arc;
use std::time::Duration;

use pmix_core::Status;
use pmix_server::NullHost;

mod common;
use common::{one_node_job, start_client, text, wait_all};

fn run(tmp: &tempfile::TempDir, tag: &str, scenario: &str) -> (pmix_server::Server, Vec<Output>) {
    run_n(tmp, tag, scenario, 4)
}

fn run_n(
    tmp: &tempfile::TempDir,
    tag: &str,
    scenario: &str,
    n: u32,
) -> (pmix_server::Server, Vec<Output>) {
    let (server, ns) = one_node_job(tag, n, Arc::new(NullHost), tmp.path());
    let kids = (0..n)
        .map(|r| start_client("groupleader", &server, &ns, r, scenario))
        .collect();
    let outs = wait_all(kids, Duration::from_secs(60));
    (server, outs)
}

/// The fields after `what` on the first line that starts with it.
fn line(o: &Output, what: &str) -> Option<Vec<String>> {
    String::from_utf8_lossy(&o.stdout).lines().find_map(|l| {
        let mut f = l.split(' ');
        (f.next() == Some(what)).then(|| f.map(str::to_owned).collect())
    })
}

/// Milliseconds from `died` to the time stamp `stamp` printed in `o`,
/// asserted under 2 s (`what` names the step in the failure message).
fn ms_after_death(o: &Output, stamp: &str, died: u128, what: &str) -> u128 {
    let ms = stamp.parse::<u128>().unwrap().saturating_sub(died);
    assert!(ms < 2000, "{what} {ms} ms after the death: {}", text(o));
    ms
}

/// `o` exited 0 and reported no failure.
fn passed(o: &Output) {
    assert!(o.status.success(), "{}", text(o));
    assert!(!text(o).contains("FAIL"), "{}", text(o));
}

fn died_at(o: &Output) -> u128 {
    line(o, "dying").unwrap_or_else(|| panic!("{}", text(o)))[0]
        .parse()
        .unwrap()
}

#[test]
fn a_participant_claims_the_lead_after_the_leader_died_and_the_construct_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "gclaim", "claim");
    let died = died_at(&outs[0]);
    let mut leaders = Vec::new();
    for o in &outs[1..] {
        passed(o);
        let c = line(o, "constructed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            c[0],
            Status::ERR_PARTIAL_SUCCESS.0.to_string(),
            "{}",
            text(o)
        );
        assert_eq!(c[1], "1,2,3", "the dead leader is dropped: {}", text(o));
        let after = ms_after_death(o, &c[2], died, "completed");
        eprintln!("construct completed {after} ms after the leader's SIGKILL (rank 3 arrives ~500 ms after it)");
        let sel: Vec<Vec<String>> = text(o)
            .lines()
            .filter_map(|l| l.strip_prefix("selected "))
            .map(|l| l.split(' ').map(str::to_owned).collect())
            .collect();
        assert_eq!(
            sel.len(),
            1,
            "exactly one PMIX_GROUP_LEADER_SELECTED: {}",
            text(o)
        );
        let heard = ms_after_death(o, &sel[0][1], died, "selected");
        eprintln!("PMIX_GROUP_LEADER_SELECTED {heard} ms after the leader's SIGKILL");
        leaders.push(sel[0][0].clone());
        assert!(text(o).contains("ok destructed"), "{}", text(o));
    }
    // one leader, the same everywhere, one of the two claimants
    assert!(leaders.iter().all(|l| *l == leaders[0]), "{leaders:?}");
    assert!(
        leaders[0] == "Some(1)" || leaders[0] == "Some(2)",
        "{leaders:?}"
    );
    assert!(server.groups().is_empty());
}

#[test]
fn a_participant_that_has_not_called_hears_the_leader_died_claims_and_the_construct_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "glate", "lateclaim");
    let died = died_at(&outs[0]);
    let heard = line(&outs[3], "heard").unwrap_or_else(|| panic!("{}", text(&outs[3])));
    let after = ms_after_death(&outs[3], &heard[2], died, "heard");
    eprintln!("PMIX_GROUP_LEADER_FAILED at a participant that had not called, {after} ms after the SIGKILL");
    for o in &outs[1..] {
        passed(o);
        let c = line(o, "constructed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            c[0],
            Status::ERR_PARTIAL_SUCCESS.0.to_string(),
            "{}",
            text(o)
        );
        assert_eq!(c[1], "1,2,3", "the dead leader is dropped: {}", text(o));
        let t = text(o);
        let sel: Vec<&str> = t
            .lines()
            .filter_map(|l| l.strip_prefix("selected "))
            .collect();
        assert_eq!(sel.len(), 1, "one PMIX_GROUP_LEADER_SELECTED: {}", text(o));
        assert!(sel[0].starts_with("Some(3) "), "{}", text(o));
        assert!(text(o).contains("ok destructed"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

#[test]
fn nobody_claims_the_lead_every_participant_hears_leader_selected_with_an_error_and_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "gnone", "noclaim");
    let died = died_at(&outs[0]);
    assert!(
        text(&outs[3]).contains("heard before calling"),
        "{}",
        text(&outs[3])
    );
    let lost = Status::ERR_LOST_CONNECTION.0.to_string();
    for o in &outs[1..] {
        passed(o);
        let t = text(o);
        let errs: Vec<&str> = t.lines().filter(|l| l.starts_with("selecterr ")).collect();
        assert_eq!(
            errs.len(),
            1,
            "one LEADER_SELECTED without leader: {}",
            text(o)
        );
        let e = line(o, "selecterr").unwrap();
        assert_eq!(e[0], lost, "{}", text(o));
        let heard = ms_after_death(o, &e[1], died, "heard");
        eprintln!("PMIX_GROUP_LEADER_SELECTED (no leader) {heard} ms after the SIGKILL");
        let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(f[0], lost, "{}", text(o));
        ms_after_death(o, &f[1], died, "failed");
        assert!(!text(o).contains("selected Some"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

#[test]
fn a_handler_aborting_after_the_leader_died_fails_every_waiting_construct() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "gabort", "abort");
    let died = died_at(&outs[0]);
    let o = &outs[3];
    assert!(o.status.success(), "{}", text(o));
    let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
    assert_eq!(
        f[0],
        Status::ERR_LOST_CONNECTION.0.to_string(),
        "{}",
        text(o)
    );
    for o in &outs[1..3] {
        passed(o);
        let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            f[0],
            Status::GROUP_CONSTRUCT_ABORT.0.to_string(),
            "{}",
            text(o)
        );
        let after = ms_after_death(o, &f[1], died, "aborted");
        eprintln!("construct aborted {after} ms after the leader's SIGKILL");
        assert!(!text(o).contains("selected Some"), "{}", text(o));
    }
    // every participant hears the abort, the late one too
    for o in &outs[1..] {
        assert!(text(o).contains("abort event from Some(2)"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

#[test]
fn the_leader_goes_on_without_a_member_that_died_before_construct() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "gon", "goon");
    let died = died_at(&outs[3]);
    for o in &outs[..3] {
        passed(o);
        let c = line(o, "constructed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            c[0],
            Status::ERR_PARTIAL_SUCCESS.0.to_string(),
            "{}",
            text(o)
        );
        assert_eq!(c[1], "0,1,2", "{}", text(o));
        let after = ms_after_death(o, &c[2], died, "completed");
        eprintln!("construct completed without the dead member {after} ms after its SIGKILL");
        assert!(text(o).contains("update 0,1,2"), "{}", text(o));
        assert!(text(o).contains("ok destructed"), "{}", text(o));
    }
    assert!(
        text(&outs[0]).contains("invite failed Some(3)"),
        "{}",
        text(&outs[0])
    );
    assert!(server.groups().is_empty());
}

#[test]
fn the_leader_aborts_a_construct_whose_member_died_before_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "gmab", "memberabort");
    let died = died_at(&outs[3]);
    for o in &outs[..3] {
        assert!(o.status.success(), "{}", text(o));
        let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            f[0],
            Status::GROUP_CONSTRUCT_ABORT.0.to_string(),
            "{}",
            text(o)
        );
        let after = ms_after_death(o, &f[1], died, "aborted");
        eprintln!("construct aborted by the leader {after} ms after the member's SIGKILL");
    }
    assert!(server.groups().is_empty());
}

#[test]
fn the_inviting_leader_aborts_from_its_declined_handler_and_every_invitee_hears_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run_n(&tmp, "giab", "inviteabort", 3);
    for o in &outs {
        passed(o);
    }
    for o in &outs[..2] {
        let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            f[0],
            Status::GROUP_CONSTRUCT_ABORT.0.to_string(),
            "{}",
            text(o)
        );
    }
    for o in &outs[1..] {
        assert!(text(o).contains("abort event from Some(0)"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

#[test]
fn an_invitee_that_accepted_claims_the_lead_after_the_inviting_leader_died() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "gicl", "inviteclaim");
    let died = died_at(&outs[0]);
    for o in &outs[1..] {
        passed(o);
        assert!(text(o).contains("leader failed Some(0)"), "{}", text(o));
        let s = line(o, "selected").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(s[0], "Some(1)", "{}", text(o));
        let heard = ms_after_death(o, &s[1], died, "selected");
        eprintln!("PMIX_GROUP_LEADER_SELECTED on the invite path {heard} ms after the SIGKILL");
        let j = line(o, "joined").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            j[0],
            Status::ERR_PARTIAL_SUCCESS.0.to_string(),
            "{}",
            text(o)
        );
        assert_eq!(j[1], "1,2,3", "the new leader first: {}", text(o));
        assert!(text(o).contains("ok destructed"), "{}", text(o));
    }
    assert!(server.groups().is_empty());
}

#[test]
fn nobody_claims_the_lead_of_an_invitation_every_invitee_hears_it_and_the_joins_end() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "ginc", "invitenoclaim");
    let died = died_at(&outs[0]);
    let lost = Status::ERR_LOST_CONNECTION.0.to_string();
    for (i, o) in outs[1..].iter().enumerate() {
        passed(o);
        let e = line(o, "selecterr").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(e[0], lost, "{}", text(o));
        ms_after_death(o, &e[1], died, "heard");
        let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        // the accepted joins end with the error; a late join finds no invitation
        let want = if i < 2 {
            lost.clone()
        } else {
            Status::ERR_NOT_FOUND.0.to_string()
        };
        assert_eq!(f[0], want, "{}", text(o));
        let after = ms_after_death(o, &f[1], died, "ended");
        eprintln!("invitation over {after} ms after the leader's SIGKILL");
    }
    assert!(server.groups().is_empty());
}

#[test]
fn the_leaders_declined_handler_invites_a_replacement_that_accepts_and_the_group_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run(&tmp, "grep", "replace");
    for o in &outs {
        passed(o);
    }
    assert!(
        text(&outs[0]).contains("declined by Some(2)"),
        "{}",
        text(&outs[0])
    );
    // the replacement hears the proposed membership with itself in it
    assert!(
        text(&outs[3]).contains("invited 0,1,3"),
        "{}",
        text(&outs[3])
    );
    for r in [0, 1, 3] {
        let o = &outs[r];
        let j = line(o, "joined").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(j[0], "0", "replaced, not partial: {}", text(o));
        assert_eq!(j[1], "0,1,3", "{}", text(o));
        assert!(text(o).contains("ok destructed"), "{}", text(o));
    }
    assert!(line(&outs[2], "joined").is_none(), "{}", text(&outs[2]));
    assert!(server.groups().is_empty());
}

#[test]
fn the_leader_notifying_construct_abort_ends_its_invitation_for_every_invitee() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, outs) = run_n(&tmp, "gnab", "notifyabort", 3);
    let abort = Status::GROUP_CONSTRUCT_ABORT.0.to_string();
    for o in &outs {
        passed(o);
    }
    for o in &outs[..2] {
        let f = line(o, "failed").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(f[0], abort, "{}", text(o));
    }
    for o in &outs[1..] {
        let t = text(o);
        let heard = t.lines().filter(|l| l.starts_with("abort event")).count();
        assert_eq!(heard, 1, "one abort event, from the leader: {t}");
        assert!(t.contains("abort event from Some(0)"), "{t}");
    }
    let late = line(&outs[2], "late").unwrap_or_else(|| panic!("{}", text(&outs[2])));
    assert_eq!(
        late[1],
        Status::ERR_NOT_FOUND.0.to_string(),
        "the invitation is over: {}",
        text(&outs[2])
    );
    assert!(server.groups().is_empty());
}

#[test]
fn a_ft_collective_group_fence_completes_without_a_member_that_died_in_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (_server, outs) = run_n(&tmp, "gft", "ftfence", 3);
    let died = died_at(&outs[2]);
    for o in &outs[..2] {
        passed(o);
        let f = line(o, "fenced").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(f[0], "0", "PMIX_GROUP_FT_COLLECTIVE fence: {}", text(o));
        let after = ms_after_death(o, &f[1], died, "completed");
        eprintln!("FT_COLLECTIVE group fence completed {after} ms after the member's SIGKILL");
        // without the attribute a fence fails as it always did
        let p = line(o, "plain").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(
            p[0],
            Status::ERR_LOST_CONNECTION.0.to_string(),
            "{}",
            text(o)
        );
    }
}

#[test]
fn a_ft_collective_group_fence_completes_without_a_member_that_left_the_group() {
    let tmp = tempfile::tempdir().unwrap();
    let (_server, outs) = run_n(&tmp, "gfl", "ftleave", 3);
    let left = line(&outs[2], "leaving").unwrap_or_else(|| panic!("{}", text(&outs[2])))[0]
        .parse::<u128>()
        .unwrap();
    for o in &outs {
        passed(o);
    }
    for o in &outs[..2] {
        let f = line(o, "fenced").unwrap_or_else(|| panic!("{}", text(o)));
        assert_eq!(f[0], "0", "PMIX_GROUP_FT_COLLECTIVE fence: {}", text(o));
        let after = f[1].parse::<u128>().unwrap().saturating_sub(left);
        eprintln!("FT_COLLECTIVE group fence completed {after} ms after the member's leave");
        assert!(
            after < 2000,
            "completed {after} ms after the leave: {}",
            text(o)
        );
    }
}
