//! A client process that speaks the protocol on its own socket (as a
//! client of another implementation would): it asks the server for
//! `get`s of a local peer's key, which the server holds until the peer
//! commits. Driven by `launcher/tests/client_caps.rs`:
//! `rawgets <count> <refused>`, with the environment `setup_fork` gave it.
//!
//! It sends `<count>` `GET`s of rank 1's `late-key` (after the go file
//! `$CAPCLIENT_GO1` exists when `<refused>` is 0); the last `<refused>`
//! must be answered at once `PMIX_ERR_OUT_OF_RESOURCE` naming the limit,
//! the others (held) with the value 7 once rank 1 commits it. Prints `ok …`
//! lines, or `FAIL: …` and exits 1.

mod raw_client;

use std::time::{Duration, Instant};

use pmix_core::proto::{self, Reply, Request};
use pmix_core::{attrs, Info, Proc, Rank, Status, Value};
use raw_client::{connect, env, fail};

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let refused: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let ns = env(proto::env::NAMESPACE);
    let rank: u32 = env(proto::env::RANK).parse().unwrap();
    let me = Proc::new(&ns, Rank(rank)).unwrap();
    let peer = Proc::new(&ns, Rank(1)).unwrap();
    let mut raw = connect(me);
    if refused == 0 {
        let path = env("CAPCLIENT_GO1");
        let t0 = Instant::now();
        while !std::path::Path::new(&path).exists() {
            if t0.elapsed() > Duration::from_secs(30) {
                fail("no go 1 within 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let info = vec![Info::new(attrs::TIMEOUT, Value::Int32(30)).unwrap()];
    let req = Request::Get {
        proc: peer,
        key: "late-key".into(),
        info,
    };
    let t0 = Instant::now();
    for tag in 1..=count {
        raw.send(req.msg_type(), tag, &req.encode());
    }
    let mut answered = 0;
    let mut refusals = 0;
    while answered + refusals < count {
        let f = raw.next(Duration::from_secs(30));
        let r = Reply::decode(&f.body).unwrap_or_else(|e| fail(format!("reply: {e}")));
        if r.status == Status::ERR_OUT_OF_RESOURCE {
            if !r.message.contains("max_pending_per_client") {
                fail(format!(
                    "the refusal does not name the limit: {}",
                    r.message
                ));
            }
            if answered > 0 {
                fail(format!("refused after an answer: {}", r.message));
            }
            refusals += 1;
            if refusals == refused {
                println!(
                    "ok refused {refused} gets in {} ms: {}",
                    t0.elapsed().as_millis(),
                    r.message
                );
            }
        } else if r.status.is_success() && r.value == Some(Value::Uint32(7)) {
            answered += 1;
        } else {
            fail(format!("tag {}: {} {}", f.header.tag, r.status, r.message));
        }
    }
    if refusals != refused {
        fail(format!("{refusals} refusals, not {refused}"));
    }
    println!("ok {answered} held gets answered");
}
