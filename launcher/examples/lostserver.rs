//! A library-only launcher for the lost-server tests
//! (`launcher/tests/lost_server.rs`): `lostserver <n> <dir> <client> [args…]`
//! embeds a [`Server`] (its socket directory under `dir`), registers one
//! namespace of `n` ranks on this node, starts `n` copies of `client`
//! with the environment `setup_fork` gives plus `LOST_DIR=<dir>`, prints
//! `started <pid>…` and then waits — forever: the test SIGKILLs it.
//!
//! Its host never completes `client_finalized`, so a client that calls
//! finalize stays in it until the server is gone. No watchdog kills the
//! clients when this process dies (that is what the tests look at).

use std::process::Command;
use std::sync::{Arc, Mutex};

use pmix_core::{Nspace, Proc, Rank};
use pmix_server::{Completion, Host, Server, ServerConfig, SingleNodeJob};

/// A host that holds every finalize.
#[derive(Default)]
struct HoldingHost {
    held: Mutex<Vec<Completion<()>>>,
}

impl Host for HoldingHost {
    fn client_finalized(&self, _proc: &Proc, done: Completion<()>) {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(done);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [n, dir, client, rest @ ..] = args.as_slice() else {
        eprintln!("usage: lostserver <n> <dir> <client> [args…]");
        std::process::exit(2);
    };
    let n: u32 = n.parse().expect("n is a number");
    let ns = Nspace::new(format!("lost-{}", std::process::id())).expect("nspace");
    let mut cfg = ServerConfig::new(Nspace::new("lostserver").expect("nspace"));
    cfg.tmpdir = dir.into();
    let server = Server::init(cfg, Arc::new(HoldingHost::default())).expect("server init");
    let meta = std::fs::metadata("/proc/self").expect("/proc/self");
    let (uid, gid) = {
        use std::os::unix::fs::MetadataExt;
        (meta.uid(), meta.gid())
    };
    for r in 0..n {
        server
            .register_client(&Proc::from_parts(ns.clone(), Rank(r)), uid, gid)
            .expect("register client");
    }
    let job = SingleNodeJob::new(ns.clone(), n, "lostnode").with_dirs(dir.clone(), dir.clone());
    server
        .register_nspace(&ns, n, &job.infos().expect("job infos"))
        .expect("register nspace");
    let mut children = Vec::new();
    for r in 0..n {
        let p = Proc::from_parts(ns.clone(), Rank(r));
        let child = Command::new(client)
            .args(rest)
            .envs(server.setup_fork(&p).expect("setup_fork"))
            .env("LOST_DIR", dir)
            .spawn()
            .expect("spawn client");
        children.push(child);
    }
    let pids: Vec<String> = children.iter().map(|c| c.id().to_string()).collect();
    println!("started {}", pids.join(" "));
    // Reap the clients that end; the test SIGKILLs this process.
    loop {
        for c in &mut children {
            let _ = c.try_wait();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
