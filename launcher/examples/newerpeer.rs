//! Values from a newer peer over a real socket (use case "Cross-Version
//! Compatibility", UC-33), under `pmixrun -n 2`
//! (`launcher/tests/cross_version.rs`).
//!
//! Rank 0 speaks the protocol on its own socket, as a newer
//! implementation would: once rank 1 committed `ready`, it sends a `GET`
//! whose info carries a data type tag this version does not know (it must
//! be answered `PMIX_ERR_UNPACK_FAILURE`, and the connection keep
//! serving: the same `GET` with a known tag is answered), then notifies
//! an event whose code (-98765) and info values (a status -98766, a data
//! range 200) this version has no name for.
//!
//! Rank 1 is an ordinary client: its default handler prints the event as
//! it arrived, `got <code> from <source>: status <s> range <r>`, with the
//! unknown values unchanged and printed as numbers.
//!
//! Both print `ok …` lines, or `FAIL: …` and exit 1.

use std::sync::mpsc;
use std::time::Duration;

mod raw_client;

use pmix_client::Client;
use pmix_core::event::EventMsg;
use pmix_core::proto::{self, Request};
use pmix_core::{attrs, DataRange, Info, Proc, Rank, Scope, Status, Value};
use raw_client::{connect, env, fail};

/// The unknown code, status value and range value a newer peer sends.
const NEW_CODE: Status = Status(-98765);
const NEW_STATUS: Status = Status(-98766);
const NEW_RANGE: DataRange = DataRange(200);
/// The payload whose type tag rank 0 replaces with an unknown one.
const MARK: u32 = 0xA5A5_A5A5;
const UNKNOWN_TAG: u16 = 0xFEFE;

fn newer_peer(me: Proc) {
    let peer = Proc::from_parts(me.nspace.clone(), Rank(1));
    let mut raw = connect(me.clone());
    // Wait (in the server) for rank 1's handler to be in place.
    let ready = Request::Get {
        proc: peer.clone(),
        key: "ready".into(),
        info: vec![Info::new(attrs::TIMEOUT, Value::Int32(30)).unwrap()],
    };
    let r = raw.ask(ready.msg_type(), 1, &ready.encode());
    if r.value != Some(Value::Uint32(1)) {
        fail(format!("ready: {} {} {:?}", r.status, r.message, r.value));
    }
    // A qualifier of a type this version does not know.
    let get = Request::Get {
        proc: peer.clone(),
        key: "ready".into(),
        info: vec![Info::new("x.newer.qualifier", Value::Uint32(MARK)).unwrap()],
    };
    let good = get.encode();
    let at = good
        .windows(6)
        .position(|w| {
            w[..2] == pmix_core::DataType::UINT32.0.to_le_bytes() && w[2..] == MARK.to_le_bytes()
        })
        .unwrap_or_else(|| fail("the marked value is not in the encoding".into()));
    let mut bad = good.clone();
    bad[at..at + 2].copy_from_slice(&UNKNOWN_TAG.to_le_bytes());
    let r = raw.ask(get.msg_type(), 2, &bad);
    if r.status != Status::ERR_UNPACK_FAILURE || r.value.is_some() {
        fail(format!(
            "unknown type tag: {} {} {:?}",
            r.status, r.message, r.value
        ));
    }
    println!("ok unknown type tag refused: {}: {}", r.status, r.message);
    // The connection still serves.
    let r = raw.ask(get.msg_type(), 3, &good);
    if r.value != Some(Value::Uint32(1)) {
        fail(format!("after the refusal: {} {}", r.status, r.message));
    }
    println!("ok still served");
    let info = [
        Info::new("x.newer.status", Value::Status(NEW_STATUS)).unwrap(),
        Info::new("x.newer.range", Value::DataRange(NEW_RANGE)).unwrap(),
    ];
    let ev = EventMsg::for_notify(NEW_CODE, Some(me), DataRange::NAMESPACE, &info)
        .unwrap_or_else(|e| fail(format!("event: {e}")));
    let notify = Request::Notify {
        event: ev,
        delivered: vec![],
    };
    raw.send(notify.msg_type(), 0, &notify.encode());
    // Rank 1 publishes `seen` once its handler ran.
    let seen = Request::Get {
        proc: peer,
        key: "seen".into(),
        info: vec![Info::new(attrs::TIMEOUT, Value::Int32(30)).unwrap()],
    };
    let r = raw.ask(seen.msg_type(), 4, &seen.encode());
    if r.value != Some(Value::Uint32(1)) {
        fail(format!("seen: {} {}", r.status, r.message));
    }
    let fin = Request::Finalize;
    let r = raw.ask(fin.msg_type(), 5, &fin.encode());
    if !r.status.is_success() {
        fail(format!("finalize: {} {}", r.status, r.message));
    }
    println!("ok done");
}

fn raw_ns() -> String {
    env(proto::env::NAMESPACE)
}

fn me_ns(ns: &str) -> pmix_core::Nspace {
    pmix_core::Nspace::new(ns).unwrap_or_else(|e| fail(format!("namespace: {e}")))
}

fn listener() {
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.register_event_handler(&[], &[], move |e, done| {
        if e.status == NEW_CODE {
            let of = |k: &str| {
                e.info
                    .iter()
                    .find(|i| i.is(k))
                    .map(|i| i.value.clone())
                    .unwrap_or(Value::Undef)
            };
            let src = e.source.map(ToString::to_string).unwrap_or_default();
            let _ =
                tx.lock()
                    .unwrap()
                    .send((e.status, src, of("x.newer.status"), of("x.newer.range")));
        }
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    c.put(Scope::LOCAL, "ready", Value::Uint32(1))
        .unwrap_or_else(|e| fail(format!("put: {e}")));
    c.commit().unwrap_or_else(|e| fail(format!("commit: {e}")));
    let (code, src, st, range) = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| fail("no event from the newer peer within 30 s".into()));
    let (Value::Status(st), Value::DataRange(range)) = (&st, &range) else {
        fail(format!("values changed on the way: {st:?} {range:?}"))
    };
    if code != NEW_CODE || *st != NEW_STATUS || *range != NEW_RANGE {
        fail(format!("got {code:?} {st:?} {range:?}"));
    }
    println!("ok got {code} from {src}: status {st} range {range}");
    c.put(Scope::LOCAL, "seen", Value::Uint32(1))
        .unwrap_or_else(|e| fail(format!("put: {e}")));
    c.commit().unwrap_or_else(|e| fail(format!("commit: {e}")));
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}

fn main() {
    let ns = raw_ns();
    let rank: u32 = env(proto::env::RANK)
        .parse()
        .unwrap_or_else(|e| fail(format!("rank: {e}")));
    let me = Proc::from_parts(me_ns(&ns), Rank(rank));
    if rank == 0 {
        newer_peer(me);
    } else {
        listener();
    }
}
