//! A client of a job whose data changes while it runs
//! (`launcher/tests/job_updates.rs`, use case UC-11). Scenario `update`:
//! it reads the registered `PMIX_UNIV_SIZE` and `PMIX_JOB_SIZE`, prints
//! `ready`, and waits (at most 30 s) for event -3180, which the test's
//! server raises after `Server::update_job_info`. Then `get` — plain and
//! with `PMIX_GET_REFRESH_CACHE` — must return the new values: universe
//! size 16, job size registered + 2, job-level `app.phase` = "grown", and
//! the other rank's (of two) new `PMIX_LOCALITY_STRING` = `CR<rank>` (it
//! was rebound). Prints `ok …` lines and
//! `ok done`, or `FAIL: …` and exits 1.

use std::sync::mpsc;
use std::time::Duration;

use pmix_client::Client;
use pmix_core::{attrs, Info, Proc, Rank, Status, Value};

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

fn main() {
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let peer = Proc::from_parts(me.nspace.clone(), Rank(me.rank.0 ^ 1));
    let get = |p: &Proc, k: &str, info: &[Info]| {
        c.get(p, k, info)
            .unwrap_or_else(|e| fail(format!("get {k}: {e}")))
    };
    let size = match get(&wild, attrs::JOB_SIZE, &[]) {
        Value::Uint32(n) => n,
        other => fail(format!("job size {other:?}")),
    };
    let univ = get(&wild, attrs::UNIV_SIZE, &[]);
    if univ == Value::Uint32(16) {
        fail("the universe size is 16 before the update".into());
    }
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.register_event_handler(&[Status(-3180)], &[], move |_, done| {
        let _ = tx.lock().unwrap().send(());
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| fail(format!("register: {e}")));
    println!("ready");
    rx.recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| fail("no update event within 30 s".into()));
    let refresh = [Info::new(attrs::GET_REFRESH_CACHE, Value::Bool(true)).unwrap()];
    for info in [&[][..], &refresh[..]] {
        let want = [
            (&wild, attrs::UNIV_SIZE, Value::Uint32(16)),
            (&wild, attrs::JOB_SIZE, Value::Uint32(size + 2)),
            (&wild, "app.phase", Value::String("grown".into())),
            (
                &peer,
                attrs::LOCALITY_STRING,
                Value::String(format!("CR{}", peer.rank.0)),
            ),
        ];
        for (p, k, v) in want {
            let got = get(p, k, info);
            if got != v {
                fail(format!(
                    "{k} after the update: {got:?}, not {v:?} ({info:?})"
                ));
            }
        }
    }
    println!("ok job info updated");
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done");
}
