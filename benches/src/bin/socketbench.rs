//! `socketbench`: what a request through the server's socket costs — the
//! control plane's own figures, with no shared-memory shortcut. One
//! process embeds a [`Server`] ([`NullHost`]) and its clients
//! (`Client::connect` with the `setup_fork` variables, each with its own
//! socket and reader thread, as in a separate process), and measures:
//!
//! - `connect`: `Client::connect` (the handshake: hello, checks, the
//!   host's `client_connected`, the welcome with the segment's fd),
//!   median of `--connects` clients;
//! - `rtt`: a fence over the caller alone (a subset of its namespace, so
//!   the server answers it: one request, one reply), median of batches;
//! - `rtt x4`: the same from 4 clients on 4 threads at once (ns per
//!   fence, each thread's median batch, the median thread).
//!
//! ```text
//! cargo build --release -p pmix-benches --bin socketbench
//! target/release/socketbench            # prints one line of figures
//! ```

use std::sync::Arc;
use std::time::Instant;

use pmix_client::{Client, ClientConfig};
use pmix_core::{attrs, Info, Nspace, Proc, Rank, Value};
use pmix_server::{NullHost, Server, ServerConfig};

const CONNECTS: u32 = 40;
const BATCHES: usize = 40;
const BATCH: usize = 250;
const THREADS: u32 = 4;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn client(server: &Server, proc: &Proc) -> Result<Client, String> {
    let vars = server.setup_fork(proc).map_err(|e| e.to_string())?;
    let cfg = ClientConfig::from_setup_fork(&vars).map_err(|e| e.to_string())?;
    Client::connect(&cfg).map_err(|e| e.to_string())
}

/// ns per self-fence, median of `BATCHES` batches of `BATCH`.
fn rtt(c: &Client) -> Result<f64, String> {
    let me = [c.proc().clone()];
    for _ in 0..BATCH {
        c.fence(&me, &[]).map_err(|e| e.to_string())?;
    }
    let mut per = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        let t = Instant::now();
        for _ in 0..BATCH {
            c.fence(&me, &[]).map_err(|e| e.to_string())?;
        }
        per.push(t.elapsed().as_nanos() as f64 / BATCH as f64);
    }
    Ok(median(per))
}

fn run() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("socketbench.{}", std::process::id()));
    std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = (|| {
        let mut cfg = ServerConfig::new(Nspace::new("socketbench-srv").map_err(|e| e.to_string())?);
        cfg.tmpdir = dir.clone();
        cfg.log = false;
        let n = CONNECTS + THREADS;
        cfg.max_clients = n;
        let server = Server::init(cfg, Arc::new(NullHost)).map_err(|e| e.to_string())?;
        let ns = Nspace::new("sb").map_err(|e| e.to_string())?;
        let info = [Info::new(attrs::JOB_SIZE, Value::Uint32(n)).map_err(|e| e.to_string())?];
        server
            .register_nspace(&ns, n, &info)
            .map_err(|e| e.to_string())?;
        let (uid, gid) = ids();
        let procs: Vec<Proc> = (0..n)
            .map(|r| Proc::from_parts(ns.clone(), Rank(r)))
            .collect();
        for p in &procs {
            server
                .register_client(p, uid, gid)
                .map_err(|e| e.to_string())?;
        }
        // Connect.
        let mut connects = Vec::new();
        let mut kept = Vec::new();
        for p in &procs[..CONNECTS as usize] {
            let t = Instant::now();
            let c = client(&server, p)?;
            connects.push(t.elapsed().as_nanos() as f64 / 1e3);
            kept.push(c);
        }
        // One client's round trips.
        let one = rtt(&kept[0])?;
        drop(kept);
        // Four at once.
        let many: Vec<Client> = procs[CONNECTS as usize..]
            .iter()
            .map(|p| client(&server, p))
            .collect::<Result<_, _>>()?;
        let handles: Vec<_> = many
            .into_iter()
            .map(|c| std::thread::spawn(move || rtt(&c)))
            .collect();
        let mut per_thread = Vec::new();
        for h in handles {
            per_thread.push(h.join().map_err(|_| "a thread panicked".to_string())??);
        }
        println!(
            "RESULT connect_us {:.1} rtt_ns {:.0} rtt_x4_ns {:.0}",
            median(connects),
            one,
            median(per_thread)
        );
        server.finalize();
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// This process's uid and gid (what the registered clients run as).
fn ids() -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or((0, 0), |m| (m.uid(), m.gid()))
}

fn main() {
    if let Err(e) = run() {
        eprintln!("socketbench: {e}");
        std::process::exit(1);
    }
}
