//! A client that never reads its socket cannot stop the server serving
//! others (issue 14, item 2). Client S (rank 4, a raw socket with a valid
//! hello) enters a fence with rank 0 and then sends request after request
//! whose replies it never reads; then four real clients (this test binary
//! re-run as child processes, `fencer_child_entry`) fence 100 times, rank
//! 0 first entering the fence with S. They all complete within a generous
//! bound, and S is disconnected once its outbound queue would exceed the
//! (small) `max_outbound_bytes`.
//!
//! Before the reactor, the completing thread wrote the fence's answer to
//! S with a blocking write: rank 0's connection thread then hung for good
//! and the 100 fences never completed.

mod abuse;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use abuse::{p, register, server, RawClient};
use pmix_client::{Client, ClientConfig};
use pmix_core::codec::frame;
use pmix_core::proto::{self, Request};
use pmix_core::{Proc, Rank, Status};
use pmix_server::NullHost;

const ROLE: &str = "PMIXRS_STALL_TEST_RANK";
const FENCES: usize = 100;
const FENCERS: u32 = 4;
const STALLED: u32 = 4;
/// Bound for everything that must happen (generous: a shared machine).
const BOUND: Duration = Duration::from_secs(60);

/// Kills and reaps every child on drop (test failure included).
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The child side: a real client of rank `$ROLE` that fences `FENCES`
/// times with ranks 0..4 (rank 0 first enters a fence with the stalled
/// rank). Without the variable (the normal test run) it does nothing.
#[test]
fn fencer_child_entry() {
    let Ok(rank) = std::env::var(ROLE) else {
        return;
    };
    let rank: u32 = rank.parse().unwrap();
    let cfg = ClientConfig::from_env().unwrap();
    let c = Client::connect(&cfg).unwrap();
    let ns = c.nspace().clone();
    let proc = |r: u32| Proc::from_parts(ns.clone(), Rank(r));
    if rank == 0 {
        let r = c.fence(&[proc(0), proc(STALLED)], &[]);
        println!("WITH-STALLED {r:?}");
    }
    let all: Vec<Proc> = (0..FENCERS).map(proc).collect();
    let t = Instant::now();
    for _ in 0..FENCES {
        c.fence(&all, &[]).unwrap();
    }
    println!("FENCER-DONE {} ms", t.elapsed().as_millis());
    c.finalize().unwrap();
}

/// Sends `EVENT_INTEREST` requests (each answered) on `s` until a write
/// fails: the server closed the connection, or stopped reading it and the
/// socket's write timeout passed. The requests sent and the failure.
fn flood(mut s: UnixStream) -> (usize, String) {
    let req = Request::EventInterest {
        codes: vec![Status(-3001)],
        default: false,
    };
    let one =
        frame::encode_frame(proto::PROTOCOL_VERSION, req.msg_type(), 7, &req.encode()).unwrap();
    let batch: Vec<u8> = one.iter().copied().cycle().take(one.len() * 1000).collect();
    s.set_write_timeout(Some(Duration::from_secs(3))).unwrap();
    let mut sent = 0;
    for _ in 0..1000 {
        if let Err(e) = s.write_all(&batch) {
            return (sent, e.to_string());
        }
        sent += 1000;
    }
    (sent, "every request sent".into())
}

#[test]
fn a_client_that_never_reads_blocks_nobody_and_is_disconnected() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| {
        c.max_outbound_bytes = 64 << 10;
        c.log = true;
    });
    register(&server, "a", FENCERS + 1);

    // S enters a fence with rank 0, then floods and never reads.
    let mut stalled = RawClient::connect(&server, &p("a", STALLED));
    let fence = Request::Fence {
        procs: vec![p("a", 0), p("a", STALLED)],
        info: vec![],
    };
    stalled.send(&fence, 1);
    let writer = stalled.stream.try_clone().unwrap();
    let t = Instant::now();
    let (sent, end) = std::thread::spawn(move || flood(writer)).join().unwrap();
    println!(
        "stalled client: {sent}+ requests sent, then after {:?}: {end}",
        t.elapsed()
    );

    // Four real clients fence 100 times.
    let mut children = Children(Vec::new());
    let (tx, rx) = mpsc::channel();
    for rank in 0..FENCERS {
        let vars = server.setup_fork(&p("a", rank)).unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "fencer_child_entry",
                "--nocapture",
                "--test-threads=1",
            ])
            .envs(vars)
            .env(ROLE, rank.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        children.0.push(child);
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send((rank, line));
            }
        });
    }
    let t = Instant::now();
    let deadline = t + BOUND;
    let mut done = 0;
    while done < FENCERS {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((rank, line)) => {
                println!("rank {rank}: {line}");
                if line.contains("FENCER-DONE") {
                    done += 1;
                }
            }
            Err(_) => panic!(
                "only {done} of {FENCERS} clients completed {FENCES} fences within {BOUND:?} \
                 while a client did not read its socket"
            ),
        }
    }
    println!(
        "{FENCERS} clients x {FENCES} fences completed in {:?}",
        t.elapsed()
    );
    for c in &mut children.0 {
        let status = c.wait().unwrap();
        assert!(status.success(), "a fencing client failed: {status}");
    }

    // S was disconnected: its socket ends once it reads what was sent.
    let t = Instant::now();
    let mut s = stalled.stream;
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => assert!(
                t.elapsed() < Duration::from_secs(10),
                "the stalled client's socket still open ({e})"
            ),
        }
    }
    assert!(!server.is_connected(&p("a", STALLED)));
    assert_eq!(server.overflowed_connections(), 1);
    server.finalize();
}
