//! The publish/lookup store: scoping, ranges, waits, timeouts, persistence.

use super::*;
use pmix_core::{InfoFlags, Rank};
use std::sync::mpsc::{channel, Receiver};

const UID: u32 = 1000;

fn p(r: u32) -> Proc {
    Proc::new("job", Rank(r)).unwrap()
}

fn uid(u: u32) -> Info {
    Info::new(attrs::USERID, Value::Uint32(u)).unwrap()
}

fn kv(k: &str, v: &str) -> Info {
    Info::new(k, v).unwrap()
}

fn keys(k: &[&str]) -> Vec<String> {
    k.iter().map(|s| (*s).to_owned()).collect()
}

fn publish(s: &DataStore, r: u32, mut info: Vec<Info>) -> Result<()> {
    info.push(uid(UID));
    s.publish(&p(r), &info)
}

/// Starts a lookup; its outcome arrives on the receiver.
fn lookup_rx(s: &DataStore, r: u32, k: &[&str], info: Vec<Info>) -> Receiver<Result<Vec<PData>>> {
    let (tx, rx) = channel();
    s.lookup(
        &p(r),
        &keys(k),
        &info,
        Box::new(move |res| {
            let _ = tx.send(res);
        }),
    );
    rx
}

fn lookup(s: &DataStore, r: u32, k: &[&str]) -> Result<Vec<PData>> {
    lookup_rx(s, r, k, vec![uid(UID)]).try_recv().unwrap()
}

fn status<T: std::fmt::Debug>(r: Result<T>) -> Status {
    r.unwrap_err().status()
}

fn unpublish(s: &DataStore, r: u32, k: &[&str]) -> Result<()> {
    s.unpublish(&p(r), &keys(k), &[uid(UID)])
}

fn one(found: &[PData]) -> (&str, &Value, u32) {
    assert_eq!(found.len(), 1, "{found:?}");
    (&found[0].key, &found[0].value, found[0].proc.rank.0)
}

#[test]
fn publish_then_lookup_returns_the_value_and_publisher() {
    let s = DataStore::new();
    publish(&s, 0, vec![kv("svc", "port-1"), kv("other", "x")]).unwrap();
    let found = lookup(&s, 1, &["svc"]).unwrap();
    assert_eq!(one(&found), ("svc", &Value::from("port-1"), 0));
    // found twice: the default persistence keeps it
    let found = lookup(&s, 2, &["svc", "missing", "svc", "other"]).unwrap();
    let got: Vec<&str> = found.iter().map(|d| d.key.as_str()).collect();
    assert_eq!(got, ["svc", "other"]);
    assert_eq!(status(lookup(&s, 1, &["missing"])), Status::ERR_NOT_FOUND);
}

#[test]
fn a_duplicate_key_is_refused_and_nothing_of_that_request_is_stored() {
    let s = DataStore::new();
    publish(&s, 0, vec![kv("dup", "a")]).unwrap();
    let e = publish(&s, 1, vec![kv("fresh", "b"), kv("dup", "c")]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_DUPLICATE_KEY);
    assert_eq!(status(lookup(&s, 2, &["fresh"])), Status::ERR_NOT_FOUND);
    let found = lookup(&s, 2, &["dup"]).unwrap();
    assert_eq!(one(&found), ("dup", &Value::from("a"), 0));
    // the same key twice in one request
    let e = publish(&s, 1, vec![kv("twice", "b"), kv("twice", "c")]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_DUPLICATE_KEY);
    assert_eq!(status(lookup(&s, 2, &["twice"])), Status::ERR_NOT_FOUND);
    // another range is another name space; its own duplicate is refused
    let ns = Info::new(attrs::RANGE, DataRange::NAMESPACE).unwrap();
    publish(&s, 1, vec![kv("dup", "d"), ns.clone()]).unwrap();
    let e = publish(&s, 2, vec![kv("dup", "e"), ns]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_DUPLICATE_KEY);
    // the oldest visible datum answers
    assert_eq!(lookup(&s, 3, &["dup"]).unwrap()[0].value, Value::from("a"));
}

#[test]
fn first_read_data_goes_away_after_the_first_lookup_that_returns_it() {
    let s = DataStore::new();
    let once = Info::new(attrs::PERSISTENCE, Persistence::FIRST_READ).unwrap();
    publish(&s, 0, vec![kv("once", "v"), kv("twice", "w"), once]).unwrap();
    let found = lookup(&s, 1, &["once"]).unwrap();
    assert_eq!(one(&found), ("once", &Value::from("v"), 0));
    assert_eq!(status(lookup(&s, 2, &["once"])), Status::ERR_NOT_FOUND);
    // the other key of that publish is still there until its first read
    assert_eq!(lookup(&s, 2, &["twice"]).unwrap().len(), 1);
    assert_eq!(status(lookup(&s, 2, &["twice"])), Status::ERR_NOT_FOUND);
    // and the key can be published again
    publish(&s, 3, vec![kv("once", "again")]).unwrap();
    assert_eq!(lookup(&s, 1, &["once"]).unwrap().len(), 1);
    assert_eq!(lookup(&s, 1, &["once"]).unwrap().len(), 1);
}

#[test]
fn only_the_publishers_uid_sees_the_data() {
    let s = DataStore::new();
    publish(&s, 0, vec![kv("mine", "v")]).unwrap();
    let other = lookup_rx(&s, 1, &["mine"], vec![uid(UID + 1)]);
    assert_eq!(status(other.try_recv().unwrap()), Status::ERR_NOT_FOUND);
    // another uid may publish the same key: it does not see the first
    s.publish(&p(1), &[kv("mine", "theirs"), uid(UID + 1)])
        .unwrap();
    let theirs = lookup_rx(&s, 2, &["mine"], vec![uid(UID + 1)]);
    let found = theirs.try_recv().unwrap().unwrap();
    assert_eq!(one(&found), ("mine", &Value::from("theirs"), 1));
    assert_eq!(lookup(&s, 2, &["mine"]).unwrap()[0].value, Value::from("v"));
    // another uid cannot unpublish it either
    let e = s
        .unpublish(&p(0), &keys(&["mine"]), &[uid(UID + 1)])
        .unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_FOUND);
    // no uid at all: refused
    let e = s.publish(&p(0), &[kv("x", "y")]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    let anon = lookup_rx(&s, 1, &["mine"], vec![]);
    assert_eq!(status(anon.try_recv().unwrap()), Status::ERR_BAD_PARAM);
    let e = s.unpublish(&p(0), &[], &[]).unwrap_err();
    assert_eq!(e.status(), Status::ERR_BAD_PARAM);
}

#[test]
fn proc_local_and_namespace_ranges() {
    let s = DataStore::new();
    let local = Info::new(attrs::RANGE, DataRange::PROC_LOCAL).unwrap();
    publish(&s, 0, vec![kv("self", "v"), local.clone()]).unwrap();
    assert_eq!(status(lookup(&s, 1, &["self"])), Status::ERR_NOT_FOUND);
    assert_eq!(lookup(&s, 0, &["self"]).unwrap().len(), 1);
    // a lookup on PROC_LOCAL considers only the caller's own data
    publish(&s, 1, vec![kv("shared", "w")]).unwrap();
    let rx = lookup_rx(&s, 0, &["shared"], vec![local, uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_NOT_FOUND);
    let ns = Info::new(attrs::RANGE, DataRange::NAMESPACE).unwrap();
    let stranger = Proc::new("other-job", Rank(0)).unwrap();
    s.publish(&stranger, &[kv("nsonly", "x"), ns, uid(UID)])
        .unwrap();
    assert_eq!(status(lookup(&s, 1, &["nsonly"])), Status::ERR_NOT_FOUND);
}

#[test]
fn a_waiting_lookup_is_answered_by_the_publish_that_completes_it() {
    let s = DataStore::new();
    let wait = Info::new(attrs::WAIT, true).unwrap();
    let rx = lookup_rx(&s, 1, &["a", "b"], vec![wait, uid(UID)]);
    assert!(rx.try_recv().is_err(), "answered before any publish");
    publish(&s, 0, vec![kv("a", "1")]).unwrap();
    assert!(rx.try_recv().is_err(), "answered with one key of two");
    // an unrelated publish does not answer it
    publish(&s, 0, vec![kv("c", "3")]).unwrap();
    assert!(rx.try_recv().is_err());
    publish(&s, 2, vec![kv("b", "2")]).unwrap();
    let found = rx.try_recv().unwrap().unwrap();
    let got: Vec<(&str, u32)> = found
        .iter()
        .map(|d| (d.key.as_str(), d.proc.rank.0))
        .collect();
    assert_eq!(got, [("a", 0), ("b", 2)]);
    // PMIX_WAIT as a count: one key of two is enough
    let rx = lookup_rx(
        &s,
        1,
        &["x", "y"],
        vec![Info::new(attrs::WAIT, Value::Int(1)).unwrap(), uid(UID)],
    );
    assert!(rx.try_recv().is_err());
    publish(&s, 0, vec![kv("y", "1")]).unwrap();
    let found = rx.try_recv().unwrap().unwrap();
    assert_eq!(one(&found).0, "y");
    // already there: answered at once
    let rx = lookup_rx(
        &s,
        1,
        &["y"],
        vec![Info::new(attrs::WAIT, Value::Int(0)).unwrap(), uid(UID)],
    );
    assert_eq!(rx.try_recv().unwrap().unwrap().len(), 1);
}

#[test]
fn a_waiting_lookup_of_another_uid_is_not_answered_and_first_read_goes_to_the_oldest() {
    let s = DataStore::new();
    let wait = || Info::new(attrs::WAIT, true).unwrap();
    let stranger = lookup_rx(&s, 1, &["k"], vec![wait(), uid(UID + 1)]);
    let first = lookup_rx(&s, 2, &["k"], vec![wait(), uid(UID)]);
    let second = lookup_rx(&s, 3, &["k"], vec![wait(), uid(UID)]);
    let once = Info::new(attrs::PERSISTENCE, Persistence::FIRST_READ).unwrap();
    publish(&s, 0, vec![kv("k", "v"), once]).unwrap();
    assert_eq!(first.try_recv().unwrap().unwrap().len(), 1);
    assert!(second.try_recv().is_err());
    assert!(stranger.try_recv().is_err());
    drop(s);
    // the job ended: the held lookups get an error
    assert_eq!(status(second.try_recv().unwrap()), Status::ERR_UNREACH);
    assert_eq!(status(stranger.try_recv().unwrap()), Status::ERR_UNREACH);
}

#[test]
fn a_waiting_lookup_times_out() {
    let s = DataStore::new();
    let info = |secs: i32| {
        vec![
            Info::new(attrs::WAIT, true).unwrap(),
            Info::new(attrs::TIMEOUT, Value::Int(secs)).unwrap(),
            uid(UID),
        ]
    };
    let t0 = Instant::now();
    let long = lookup_rx(&s, 2, &["never"], info(30));
    let short = lookup_rx(&s, 1, &["never"], info(1));
    let r = short.recv_timeout(Duration::from_secs(10)).unwrap();
    let took = t0.elapsed();
    assert_eq!(status(r), Status::ERR_TIMEOUT);
    assert!(took >= Duration::from_secs(1), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // the other one still waits, and a publish still answers it
    assert!(long.try_recv().is_err());
    publish(&s, 0, vec![kv("never", "now")]).unwrap();
    assert_eq!(long.try_recv().unwrap().unwrap().len(), 1);
    // dropping the store stops the timer thread
    let held = lookup_rx(&s, 3, &["later"], info(30));
    drop(s);
    assert_eq!(status(held.try_recv().unwrap()), Status::ERR_UNREACH);
}

#[test]
fn unpublish_some_then_all() {
    let s = DataStore::new();
    publish(&s, 0, vec![kv("a", "1"), kv("b", "2"), kv("c", "3")]).unwrap();
    publish(&s, 1, vec![kv("d", "4")]).unwrap();
    unpublish(&s, 0, &["a", "zz"]).unwrap();
    assert_eq!(status(lookup(&s, 1, &["a"])), Status::ERR_NOT_FOUND);
    assert_eq!(status(unpublish(&s, 0, &["a"])), Status::ERR_NOT_FOUND);
    // not the publisher
    assert_eq!(status(unpublish(&s, 1, &["b"])), Status::ERR_NOT_FOUND);
    assert_eq!(lookup(&s, 1, &["b"]).unwrap().len(), 1);
    // only on the given range
    let ns = Info::new(attrs::RANGE, DataRange::NAMESPACE).unwrap();
    let e = s
        .unpublish(&p(0), &keys(&["b"]), &[ns, uid(UID)])
        .unwrap_err();
    assert_eq!(e.status(), Status::ERR_NOT_FOUND);
    // all of rank 0's, none of rank 1's
    unpublish(&s, 0, &[]).unwrap();
    assert_eq!(
        status(lookup(&s, 1, &["a", "b", "c"])),
        Status::ERR_NOT_FOUND
    );
    assert_eq!(lookup(&s, 0, &["d"]).unwrap().len(), 1);
    assert_eq!(status(unpublish(&s, 0, &[])), Status::ERR_NOT_FOUND);
    // the keys can be published again, by anyone
    publish(&s, 2, vec![kv("b", "new")]).unwrap();
}

#[test]
fn bad_requests_are_typed_errors() {
    let s = DataStore::new();
    // nothing but directives
    let e = publish(
        &s,
        0,
        vec![Info::new(attrs::RANGE, DataRange::LOCAL).unwrap()],
    );
    assert_eq!(status(e), Status::ERR_BAD_PARAM);
    let e = publish(
        &s,
        0,
        vec![kv("k", "v"), Info::new(attrs::RANGE, "session").unwrap()],
    );
    assert_eq!(status(e), Status::ERR_TYPE_MISMATCH);
    let e = publish(
        &s,
        0,
        vec![
            kv("k", "v"),
            Info::new(attrs::RANGE, DataRange::INVALID).unwrap(),
        ],
    );
    assert_eq!(status(e), Status::ERR_BAD_PARAM);
    let e = publish(
        &s,
        0,
        vec![
            kv("k", "v"),
            Info::new(attrs::PERSISTENCE, Persistence::INVALID).unwrap(),
        ],
    );
    assert_eq!(status(e), Status::ERR_BAD_PARAM);
    let auids = Info::new(attrs::ACCESS_USERIDS, Value::Uint32(5)).unwrap();
    assert_eq!(
        status(publish(&s, 0, vec![kv("k", "v"), auids])),
        Status::ERR_NOT_SUPPORTED
    );
    let mut reqd = Info::new("pmix.some.future", true).unwrap();
    reqd.flags = InfoFlags::REQD;
    assert_eq!(
        status(publish(&s, 0, vec![kv("k", "v"), reqd.clone()])),
        Status::ERR_NOT_SUPPORTED
    );
    let optional = Info::new("pmix.some.future", true).unwrap();
    publish(&s, 0, vec![kv("k", "v"), optional]).unwrap();
    let rx = lookup_rx(&s, 0, &[], vec![uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
    let rx = lookup_rx(&s, 0, &[""], vec![uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
    let rx = lookup_rx(&s, 0, &["k"], vec![reqd, uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_NOT_SUPPORTED);
    let bad_wait = Info::new(attrs::WAIT, Value::Int(-1)).unwrap();
    let rx = lookup_rx(&s, 0, &["k"], vec![bad_wait, uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
    let bad_wait = Info::new(attrs::WAIT, "soon").unwrap();
    let rx = lookup_rx(&s, 0, &["k"], vec![bad_wait, uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_TYPE_MISMATCH);
    let w = Info::new(attrs::WAIT, true).unwrap();
    let t = Info::new(attrs::TIMEOUT, Value::Int(-2)).unwrap();
    let rx = lookup_rx(&s, 0, &["nope"], vec![w, t, uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
    let wrong_uid = Info::new(attrs::USERID, "root").unwrap();
    let rx = lookup_rx(&s, 0, &["k"], vec![wrong_uid]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_TYPE_MISMATCH);
    // a false PMIX_WAIT does not wait
    let nowait = Info::new(attrs::WAIT, false).unwrap();
    let rx = lookup_rx(&s, 0, &["nope"], vec![nowait, uid(UID)]);
    assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_NOT_FOUND);
}

#[test]
fn a_completion_may_call_back_into_the_store() {
    let s = Arc::new(DataStore::new());
    let (tx, rx) = channel();
    let s2 = Arc::clone(&s);
    s.lookup(
        &p(1),
        &keys(&["k"]),
        &[Info::new(attrs::WAIT, true).unwrap(), uid(UID)],
        Box::new(move |r| {
            assert!(r.is_ok());
            // re-entering the store from the publish that answered us
            let again = lookup(&s2, 1, &["k"]);
            let _ = tx.send(again.map(|v| v.len()));
        }),
    );
    publish(&s, 0, vec![kv("k", "v")]).unwrap();
    assert_eq!(rx.try_recv().unwrap().unwrap(), 1);
}
