//! PMIx groups across two servers: two `Server`s ("nodes") in this process
//! joined by the test resource manager (`two_node_rm`), which completes a
//! fence across them the way a real host's `fence_nb` does. The members
//! are real processes (this test binary re-run, `child_entry`), one per
//! node, each of its own job.
//!
//! GRP-07: after a construct, a member has the job-level info of every
//! namespace in the group, also one only the other node's server holds:
//! job "b" is registered (with `PMIX_MAX_PROCS` 5) on node B only, and
//! its member on node A reads it with a plain `get` once the construct
//! returned. Before the servers carried the job-level entries in their
//! construct blobs, node A had nothing to answer with (its host has no
//! direct modex).
//!
//! Remote invitees: a leader on node A invites a process on node B; the
//! invitation reaches it through the host's event relay, its server
//! answers its join once the leader's server completed the group (context
//! id included), and both use the group (a fence over it) and destruct
//! it. Before, an invitee on another node was refused
//! (`PMIX_ERR_NOT_SUPPORTED`).

mod child_procs;
mod two_node_rm;

use std::io::Write;
use std::sync::mpsc;
use std::time::Duration;

use child_procs::{launch, Children, Lines, BOUND, ROLE};
use pmix_client::{Client, ClientConfig};
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Value};
use two_node_rm::Rm;

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

/// A member: constructs "g7" of a:0 and b:0, reads the other job's
/// job-level info, destructs.
fn member(c: &Client, other: &str) {
    let a0 = Proc::new("a", Rank(0)).unwrap();
    let b0 = Proc::new("b", Rank(0)).unwrap();
    let limit = Info::new(attrs::TIMEOUT, Value::Int32(30)).unwrap();
    match c.group_construct("g7", &[a0, b0], std::slice::from_ref(&limit)) {
        Ok(x) => say(format!("CONSTRUCTED {}", x.status.0)),
        Err(e) => return say(format!("FAILED construct {e}")),
    }
    let job = Proc::from_parts(Nspace::new(other).unwrap(), Rank::WILDCARD);
    let show = |key: &str| match c.get(&job, key, &[]) {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("error({})", e.status().0),
    };
    say(format!(
        "JOBINFO max={} size={} local={}",
        show(attrs::MAX_PROCS),
        show(attrs::JOB_SIZE),
        show(attrs::LOCAL_PEERS)
    ));
    match c.group_destruct("g7", &[limit]) {
        Ok(()) => say("DESTRUCTED".into()),
        Err(e) => say(format!("FAILED destruct {e}")),
    }
    c.finalize().unwrap();
}

fn outcome(x: &pmix_client::GroupConstructed) -> String {
    let members = match pmix_core::info::find(&x.results, attrs::GROUP_MEMBERSHIP).map(|i| &i.value)
    {
        Some(Value::DataArray(a)) => a
            .procs()
            .unwrap_or_default()
            .iter()
            .map(|p| format!("{}:{}", p.nspace.as_str(), p.rank.0))
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    };
    let cid = pmix_core::info::find(&x.results, attrs::GROUP_CONTEXT_ID).map(|i| i.value.clone());
    format!("{} {members} {cid:?}", x.status.0)
}

/// The invite path across nodes: `leader` invites b:0 into "gi", `!leader`
/// accepts; both fence over the group and destruct it.
fn invitation(c: &Client, leader: bool) {
    let limit = Info::new(attrs::TIMEOUT, Value::Int32(30)).unwrap();
    let r = if leader {
        // the invitee registered for PMIX_GROUP_INVITED before this
        std::thread::sleep(Duration::from_millis(500));
        let cid = Info::new(attrs::GROUP_ASSIGN_CONTEXT_ID, Value::Bool(true)).unwrap();
        let b0 = Proc::new("b", Rank(0)).unwrap();
        c.group_invite("gi", &[b0], &[limit.clone(), cid])
    } else {
        let (tx, rx) = mpsc::sync_channel::<()>(1);
        c.register_event_handler(&[pmix_core::Status::GROUP_INVITED], &[], move |_, done| {
            let _ = tx.try_send(());
            done.done(pmix_core::Status::SUCCESS, vec![]);
        })
        .unwrap();
        if rx.recv_timeout(BOUND).is_err() {
            return say("FAILED never invited".into());
        }
        let a0 = Proc::new("a", Rank(0)).unwrap();
        c.group_join("gi", &a0, true, std::slice::from_ref(&limit))
    };
    match r {
        Ok(x) => say(format!("GROUP {}", outcome(&x))),
        Err(e) => return say(format!("FAILED group {e}")),
    }
    let group = Proc::from_parts(Nspace::new("gi").unwrap(), Rank::WILDCARD);
    match c.fence(&[group], std::slice::from_ref(&limit)) {
        Ok(()) => say("FENCED".into()),
        Err(e) => say(format!("FAILED fence {e}")),
    }
    match c.group_destruct("gi", &[limit]) {
        Ok(()) => say("DESTRUCTED".into()),
        Err(e) => say(format!("FAILED destruct {e}")),
    }
    c.finalize().unwrap();
}

/// The child side; without `$ROLE` (the normal test run) it does nothing.
#[test]
fn child_entry() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let c = Client::connect(&ClientConfig::from_env().unwrap()).unwrap();
    match role.as_str() {
        "grp-a" => member(&c, "b"),
        "grp-b" => member(&c, "a"),
        "inv-a" => invitation(&c, true),
        "inv-b" => invitation(&c, false),
        r => panic!("unknown role {r}"),
    }
}

#[test]
fn members_read_the_job_level_info_of_a_namespace_only_the_other_node_holds() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rm = Rm::new();
    let (na, sa) = rm.add_node("c1", da.path());
    let (nb, sb) = rm.add_node("c1", db.path());
    let max = |n: u32| [Info::new(attrs::MAX_PROCS, Value::Uint32(n)).unwrap()];
    rm.add_job_with(na, &sa, "a", 1, &max(3));
    rm.add_job_with(nb, &sb, "b", 1, &max(5));
    let (tx, rx) = mpsc::channel();
    let mut lines = Lines::new(rx);
    let mut children = Children(Vec::new());
    launch(
        &mut children,
        &sa,
        &Proc::new("a", Rank(0)).unwrap(),
        "grp-a",
        &tx,
        "a",
    );
    launch(
        &mut children,
        &sb,
        &Proc::new("b", Rank(0)).unwrap(),
        "grp-b",
        &tx,
        "b",
    );
    for tag in ["a", "b"] {
        let c = lines.next(tag, &["CONSTRUCTED", "FAILED"]);
        assert_eq!(c, "CONSTRUCTED 0", "{tag}");
    }
    let ja = lines.next("a", &["JOBINFO"]);
    let jb = lines.next("b", &["JOBINFO"]);
    println!("a: {ja}\nb: {jb}");
    assert!(
        ja.starts_with("JOBINFO max=Uint32(5) size=Uint32(1) "),
        "{ja}"
    );
    assert!(
        jb.starts_with("JOBINFO max=Uint32(3) size=Uint32(1) "),
        "{jb}"
    );
    // a key that describes the other node, not the job, stays there
    assert!(!ja.contains("local=String"), "{ja}");
    for tag in ["a", "b"] {
        let d = lines.next(tag, &["DESTRUCTED", "FAILED"]);
        assert_eq!(d, "DESTRUCTED", "{tag}");
    }
    for c in &mut children.0 {
        let st = c.wait().unwrap();
        assert!(st.success(), "{st:?}");
    }
}

#[test]
fn a_leader_invites_a_process_of_another_node_which_accepts_and_both_use_the_group() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rm = Rm::new();
    let (na, sa) = rm.add_node("c1", da.path());
    let (nb, sb) = rm.add_node("c1", db.path());
    rm.add_job(na, &sa, "a", 1);
    rm.add_job(nb, &sb, "b", 1);
    let (tx, rx) = mpsc::channel();
    let mut lines = Lines::new(rx);
    let mut children = Children(Vec::new());
    let a0 = Proc::new("a", Rank(0)).unwrap();
    launch(&mut children, &sa, &a0, "inv-a", &tx, "a");
    let b0 = Proc::new("b", Rank(0)).unwrap();
    launch(&mut children, &sb, &b0, "inv-b", &tx, "b");
    let ga = lines.next("a", &["GROUP", "FAILED"]);
    let gb = lines.next("b", &["GROUP", "FAILED"]);
    println!("a: {ga}\nb: {gb}");
    // the same membership (leader first) and context id on both nodes
    assert!(ga.starts_with("GROUP 0 a:0,b:0 Some(Size("), "{ga}");
    assert_eq!(ga, gb);
    for tag in ["a", "b"] {
        assert_eq!(lines.next(tag, &["FENCED", "FAILED"]), "FENCED");
        assert_eq!(lines.next(tag, &["DESTRUCTED", "FAILED"]), "DESTRUCTED");
    }
    for c in &mut children.0 {
        let st = c.wait().unwrap();
        assert!(st.success(), "{st:?}");
    }
    assert!(sa.groups().is_empty() && sb.groups().is_empty());
}
