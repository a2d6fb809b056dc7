//! A client for the lost-server tests (`launcher/tests/lost_server.rs`),
//! started by `examples/lostserver.rs` with `LOST_DIR` set. Each rank
//! writes lines to `$LOST_DIR/rank<r>`: `pid <pid>`, `waiting <what>` just
//! before it blocks, and `<what> <code> <name> <unix-ms>` when the call
//! returned (`<code>` 0 for success). What each rank waits in:
//!
//! - rank 0: a fence of the whole namespace (rank 3 never enters it);
//! - rank 1: a `get` of a key rank 3 never commits;
//! - rank 2: finalize (the launcher's host never completes it);
//! - rank 3: nothing — it sleeps with no event handler and the default
//!   lost-server policy, so it should be terminated.
//!
//! Ranks 0–2 run with the `Continue` policy so that they live to report.

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pmix_client::{Client, ClientConfig, LostServer};
use pmix_core::{Proc, Rank, Status};

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

struct Report(std::fs::File);

impl Report {
    fn line(&mut self, s: &str) {
        let _ = writeln!(self.0, "{s}");
        let _ = self.0.sync_data();
    }

    fn ended(&mut self, what: &str, r: pmix_core::Result<()>) {
        let s = r.err().map_or(Status::SUCCESS, |e| e.status());
        self.line(&format!("{what} {} {s} {}", s.0, now_ms()));
    }
}

fn main() {
    let dir = std::env::var("LOST_DIR").expect("LOST_DIR");
    let mut cfg = ClientConfig::from_env().expect("client environment");
    let rank = cfg.proc.rank.0;
    let file = std::fs::File::create(format!("{dir}/rank{rank}")).expect("report file");
    let mut out = Report(file);
    out.line(&format!("pid {}", std::process::id()));
    let c = if rank == 3 {
        Client::init(&[]).expect("init")
    } else {
        cfg.on_lost_server = LostServer::Continue;
        Client::connect(&cfg).expect("connect")
    };
    let ns = c.proc().nspace.clone();
    match rank {
        0 => {
            out.line("waiting fence");
            let r = c.fence(&[], &[]);
            out.ended("fence", r);
        }
        1 => {
            out.line("waiting get");
            let r = c
                .get(&Proc::from_parts(ns, Rank(3)), "never.committed", &[])
                .map(|_| ());
            out.ended("get", r);
        }
        2 => {
            out.line("waiting finalize");
            let r = c.disconnect();
            out.ended("finalize", r);
            return;
        }
        _ => {
            out.line("waiting sleep");
            std::thread::sleep(Duration::from_secs(60));
            out.line("sleep 0 SUCCESS 0");
        }
    }
    // The server is gone: finalize must not hang either.
    let r = c.disconnect();
    out.ended("after", r);
}
