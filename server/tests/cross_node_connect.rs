//! Connected groups across two servers: two `Server`s ("nodes") in this
//! process joined by a test resource manager (`two_node_rm`) that
//! completes connects across them, relays events and shares one publish
//! store. The clients are real processes (this test binary re-run,
//! `child_entry`), one per node.
//!
//! - CON-21: a member on node A killed with SIGKILL while connected; the
//!   member on node B hears `PMIX_ERR_PROC_TERM_WO_SYNC` with
//!   `PMIX_EVENT_AFFECTED_PROC` and `PMIX_GROUP_ID`. Before node A's
//!   server passed the event for members elsewhere to its host
//!   (`Host::notify_event`), only node A's own members heard it.
//! - CON-23: two clusters, whose jobs have the same plain name; each
//!   process publishes its cluster-qualified name (`PMIX_CLUSTER_ID` +
//!   `:` + namespace) with `PMIX_RANGE_GLOBAL`, looks the other's up and
//!   connects to it by that name.

mod child_procs;
mod two_node_rm;

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use child_procs::{launch, Children, Lines, BOUND, ROLE};
use pmix_client::{Client, ClientConfig};
use pmix_core::cluster::multicluster_nspace;
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use two_node_rm::Rm;

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}

fn wild(ns: &Nspace) -> Proc {
    Proc::from_parts(ns.clone(), Rank::WILDCARD)
}

/// CON-21, node A's member: connects with job "b" and waits to be killed
/// (bounded).
fn term_a(c: &Client) {
    let procs = [wild(c.nspace()), wild(&Nspace::new("b").unwrap())];
    let (ns, rank) = c.connect_procs(&procs, &[]).unwrap();
    say(format!("CONNECTED {} {}", ns.as_str(), rank.0));
    std::thread::sleep(BOUND);
}

/// CON-21, node B's member: registers for `PMIX_ERR_PROC_TERM_WO_SYNC`,
/// connects with job "a", reports the event (or its absence).
fn term_b(c: &Client) {
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.register_event_handler(&[Status::ERR_PROC_TERM_WO_SYNC], &[], move |ev, done| {
        let find = |k: &str| ev.info.iter().find(|i| i.is(k)).map(|i| i.value.clone());
        let _ = tx
            .lock()
            .unwrap()
            .send((find(attrs::EVENT_AFFECTED_PROC), find(attrs::GROUP_ID)));
        done.done(Status::EVENT_ACTION_COMPLETE, vec![]);
    })
    .unwrap();
    let procs = [wild(c.nspace()), wild(&Nspace::new("a").unwrap())];
    let (ns, rank) = c.connect_procs(&procs, &[]).unwrap();
    say(format!("CONNECTED {} {}", ns.as_str(), rank.0));
    match rx.recv_timeout(BOUND) {
        Ok((Some(Value::Proc(p)), Some(Value::String(g)))) => {
            say(format!("EVENT {}:{} {g}", p.nspace.as_str(), p.rank.0))
        }
        other => say(format!("NO-EVENT {other:?}")),
    }
}

/// CON-23: publishes this process's cluster-qualified name under
/// `svc-<cluster>` with `PMIX_RANGE_GLOBAL`, looks up `svc-<peer>`,
/// connects to the name found and reads the peer job's size.
fn rendezvous(c: &Client, peer_cluster: &str) {
    let me = wild(c.nspace());
    let cluster = c.get(&me, attrs::CLUSTER_ID, &[]).unwrap();
    let cluster = cluster.as_str().unwrap();
    let name = multicluster_nspace(cluster, c.nspace().as_str()).unwrap();
    c.publish(&[
        Info::new(format!("svc-{cluster}"), name.as_str()).unwrap(),
        Info::new(attrs::RANGE, Value::DataRange(DataRange::GLOBAL)).unwrap(),
    ])
    .unwrap();
    let key = format!("svc-{peer_cluster}");
    let t = Instant::now();
    let peer = loop {
        match c.lookup(std::slice::from_ref(&key), &[]) {
            Ok(found) => break found[0].value.as_str().unwrap().to_owned(),
            Err(e) if e.status() == Status::ERR_NOT_FOUND && t.elapsed() < BOUND => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("lookup {key}: {e}"),
        }
    };
    let peer = Nspace::new(peer).unwrap();
    let (ns, rank) = c.connect_procs(&[me, wild(&peer)], &[]).unwrap();
    let size = c.get(&wild(&peer), attrs::JOB_SIZE, &[]).unwrap();
    say(format!(
        "CONNECTED {} {} peer={} size={size:?}",
        ns.as_str(),
        rank.0,
        peer.as_str()
    ));
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
        "term-a" => term_a(&c),
        "term-b" => term_b(&c),
        "east" => rendezvous(&c, "west"),
        "west" => rendezvous(&c, "east"),
        r => panic!("unknown role {r}"),
    }
}

#[test]
fn a_member_killed_on_one_node_is_reported_to_the_member_on_the_other() {
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
    launch(&mut children, &sa, &a0, "term-a", &tx, "a");
    let b0 = Proc::new("b", Rank(0)).unwrap();
    launch(&mut children, &sb, &b0, "term-b", &tx, "b");
    let ca = lines.next("a", &["CONNECTED"]);
    let cb = lines.next("b", &["CONNECTED"]);
    let group = ca.split(' ').nth(1).unwrap().to_owned();
    assert_eq!(ca, format!("CONNECTED {group} 0"));
    assert_eq!(cb, format!("CONNECTED {group} 1"));

    let t = Instant::now();
    children.0[0].kill().unwrap(); // SIGKILL: no finalize, no disconnect
    let got = lines.next("b", &["EVENT", "NO-EVENT"]);
    let took = t.elapsed();
    println!("PMIX_ERR_PROC_TERM_WO_SYNC reached node B {took:?} after the SIGKILL on node A");
    assert_eq!(got, format!("EVENT a:0 {group}"));
    assert!(took < Duration::from_secs(5), "{took:?}");
    let relayed = rm.relayed.lock().unwrap().clone();
    assert!(
        relayed.contains(&(na, Status::ERR_PROC_TERM_WO_SYNC, nb)),
        "{relayed:?}"
    );
}

#[test]
fn a_remote_clusters_name_published_globally_is_looked_up_and_connected_to() {
    let (de, dw) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let rm = Rm::new();
    let (ne, se) = rm.add_node("east", de.path());
    let (nw, sw) = rm.add_node("west", dw.path());
    // the same plain name in both clusters: only the cluster tells them apart
    rm.add_job(ne, &se, "job", 1);
    rm.add_job(nw, &sw, "job", 1);
    let (tx, rx) = mpsc::channel();
    let mut lines = Lines::new(rx);
    let mut children = Children(Vec::new());
    let p0 = Proc::new("job", Rank(0)).unwrap();
    launch(&mut children, &se, &p0, "east", &tx, "east");
    launch(&mut children, &sw, &p0, "west", &tx, "west");
    let e = lines.next("east", &["CONNECTED"]);
    let w = lines.next("west", &["CONNECTED"]);
    let group = e.split(' ').nth(1).unwrap().to_owned();
    // canonical order of the qualified names: east:job before west:job
    assert_eq!(
        e,
        format!("CONNECTED {group} 0 peer=west:job size=Uint32(1)")
    );
    assert_eq!(
        w,
        format!("CONNECTED {group} 1 peer=east:job size=Uint32(1)")
    );
    for c in &mut children.0 {
        let st = c.wait().unwrap();
        assert!(st.success(), "{st:?}");
    }
}
