//! The impersonation probe (`launcher/tests/impersonation.rs`), run as
//! `pmixrun -n 3 impostor`. Rank 0 starts a child of its own that claims
//! to be rank 2 (`PMIX_RANK=2` in the environment it inherits, rank 0's
//! client secret with it) before the real rank 2 connects: the server must
//! refuse the child and serve the real rank 2. Every rank prints `ok …`
//! lines and exits 0 when every check passed; a failed check prints
//! `FAIL: …` and exits 1.

use std::process::Command;
use std::time::Duration;

use pmix_client::{Client, ClientConfig};
use pmix_core::{Proc, Rank, Scope, Status, Value};

const CHILD: &str = "IMPOSTOR_CHILD";

fn fail(msg: String) -> ! {
    println!("FAIL: {msg}");
    std::process::exit(1)
}

/// The child: connect as rank 2 with rank 0's environment.
fn impostor() {
    let cfg = ClientConfig::from_env().unwrap_or_else(|e| fail(format!("config: {e}")));
    match Client::connect(&cfg) {
        Ok(c) => {
            let _ = c.disconnect();
            fail("the server let a child of rank 0 connect as rank 2".into());
        }
        Err(e) if e.status() == Status::ERR_INVALID_CRED => {
            println!("ok impostor refused: {e}");
        }
        Err(e) => fail(format!("impostor refused with the wrong status: {e}")),
    }
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        return impostor();
    }
    let rank: u32 = std::env::var("PMIX_RANK")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| fail("PMIX_RANK".into()));
    if rank == 2 {
        // Let the impostor try first.
        std::thread::sleep(Duration::from_millis(1500));
    }
    let c = Client::init(&[]).unwrap_or_else(|e| fail(format!("rank {rank} init: {e}")));
    let ns = c.proc().nspace.clone();
    if rank == 0 {
        let exe = std::env::current_exe().unwrap_or_else(|e| fail(e.to_string()));
        let st = Command::new(exe)
            .env(CHILD, "1")
            .env("PMIX_RANK", "2")
            .status()
            .unwrap_or_else(|e| fail(format!("spawn the impostor: {e}")));
        if !st.success() {
            fail(format!("the impostor check failed: {st}"));
        }
    }
    c.put(Scope::GLOBAL, "impostor.rank", Value::Uint32(rank))
        .and_then(|()| c.commit())
        .unwrap_or_else(|e| fail(format!("put/commit: {e}")));
    c.fence(&[], &[])
        .unwrap_or_else(|e| fail(format!("fence: {e}")));
    let two = Proc::from_parts(ns, Rank(2));
    match c.get(&two, "impostor.rank", &[]) {
        Ok(Value::Uint32(2)) => {}
        other => fail(format!("rank 2's card: {other:?}")),
    }
    c.finalize()
        .unwrap_or_else(|e| fail(format!("finalize: {e}")));
    println!("ok done rank {rank}");
}
