//! A PMIx client driven by `launcher/tests/client_caps.rs`:
//! `capclient <scenario> <limit>`, three ranks, a server whose
//! `max_pending_per_client` is `<limit>`. It prints `ok …` lines and exits
//! 0 when every check passed; a failed check prints `FAIL: …` and exits 1.
//!
//! - `gets`, rank 1 only: commits `late-key` after go 2 (ranks 0 and 2,
//!   whose `get`s wait for it in the server, are `examples/rawgets.rs`).
//! - `host` (a host that holds every publish until the test releases it):
//!   rank 0 publishes `<limit> + 4` keys non-blocking; the 4 beyond the
//!   limit must fail at once as above, the others succeed once the host
//!   answers, and a publish after that must succeed (the count went back
//!   down). Rank 2 publishes after go 1 and must succeed.
//!
//! Go `n` is the file `$CAPCLIENT_GO<n>` coming into existence.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{Info, Result, Status, Value};

/// Requests beyond the limit.
const OVER: usize = 4;

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

/// Waits (at most 30 s) until the test creates go file `n`.
fn wait_go(n: u32) {
    let var = format!("CAPCLIENT_GO{n}");
    let path = std::env::var_os(&var).unwrap_or_else(|| fail(format!("no {var}")));
    let t0 = Instant::now();
    while !std::path::Path::new(&path).exists() {
        if t0.elapsed() > Duration::from_secs(30) {
            fail(format!("no go {n} within 30 s"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Collects `limit + OVER` results from `rx`: the `OVER` refusals first
/// (at once), then, after the caller's go, the held ones.
fn refusals_then_answers<T: std::fmt::Debug>(
    rx: &mpsc::Receiver<Result<T>>,
    limit: usize,
    what: &str,
) {
    let t0 = Instant::now();
    for _ in 0..OVER {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Err(e)) if e.status() == Status::ERR_OUT_OF_RESOURCE => {
                let m = e.to_string();
                if !m.contains("max_pending_per_client") || !m.contains(&limit.to_string()) {
                    fail(format!("the refusal does not name the limit: {m}"));
                }
            }
            r => fail(format!("{what}: wanted a refusal first, got {r:?}")),
        }
    }
    println!(
        "ok refused {OVER} {what} requests beyond {limit} in {} ms",
        t0.elapsed().as_millis()
    );
    for i in 0..limit {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(Ok(_)) => {}
            r => fail(format!("held {what} {i}: {r:?}")),
        }
    }
    println!("ok {limit} held {what} requests answered");
}

/// Rank 1 of `gets`: commits the key after go 2 (ranks 0 and 2 there are
/// `rawgets`).
fn gets(c: &Client) {
    wait_go(2);
    c.put(pmix_core::Scope::LOCAL, "late-key", Value::Uint32(7))
        .and_then(|()| c.commit())
        .unwrap_or_else(|e| fail(format!("commit: {e}")));
    println!("ok rank 1 committed");
}

fn publish_info(key: &str) -> Vec<Info> {
    vec![Info::new(key, Value::Uint32(1)).unwrap()]
}

fn host(c: &Client, limit: usize) {
    match c.proc().rank.0 {
        0 => {
            let (tx, rx) = mpsc::channel();
            for i in 0..limit + OVER {
                let tx = tx.clone();
                c.publish_nb(&publish_info(&format!("cap-key-{i}")), move |r| {
                    let _ = tx.send(r);
                });
                std::thread::sleep(Duration::from_millis(20));
            }
            refusals_then_answers(&rx, limit, "publish");
            c.publish(&publish_info("cap-key-after"))
                .unwrap_or_else(|e| fail(format!("publish after the answers: {e}")));
            println!("ok publish after the answers");
        }
        1 => {}
        _ => {
            wait_go(1);
            c.publish(&publish_info("cap-key-other"))
                .unwrap_or_else(|e| fail(format!("rank 2's publish: {e}")));
            println!("ok other client's publish answered");
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let scenario = args.next().unwrap_or_default();
    let limit: usize = args.next().and_then(|l| l.parse().ok()).unwrap_or(8);
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("init: {e}")));
    match scenario.as_str() {
        "gets" => gets(&c),
        "host" => host(&c, limit),
        s => fail(format!("unknown scenario {s:?}")),
    }
    if let Err(e) = c.finalize() {
        fail(format!("finalize: {e}"));
    }
}
