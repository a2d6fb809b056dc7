//! One client cannot grow the server without bound (issue 14, item 3):
//! fences that name the sender as no participant store nothing, a
//! client's pending fences are capped, and everything a client's fences
//! left is dropped when it disconnects; a hello announcing more than the
//! hello limit is refused before its body is read; a hello sent one byte
//! at a time is dropped at the handshake deadline counted from the
//! accept. Each probe prints what it measured.

mod abuse;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abuse::{p, read_welcome, register, server, RawClient};
use pmix_core::codec::frame::FrameHeader;
use pmix_core::proto::{msg, Request};
use pmix_core::{Proc, Rank, Status};
use pmix_server::{NullHost, Server};

/// Waits (bounded) until the server tracks no fence state.
fn wait_untracked(server: &Server) -> usize {
    let end = Instant::now() + abuse::WAIT;
    while server.tracked_collectives() != 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    server.tracked_collectives()
}

#[test]
fn fences_naming_others_store_nothing_and_pending_fences_are_capped() {
    const BOGUS: u32 = 100_000;
    const BATCH: u32 = 100;
    const LIMIT: usize = 16;
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| {
        c.max_pending_per_client = LIMIT;
    });
    register(&server, "a", 12);
    let mut c = RawClient::connect(&server, &p("a", 0));
    let rss_before = abuse::self_status("VmRSS");

    // Fences the sender is no participant of: a registered peer, an
    // unknown namespace, a rank beyond the job.
    let started = Instant::now();
    for batch in 0..BOGUS / BATCH {
        for i in 0..BATCH {
            let n = batch * BATCH + i;
            let procs = match n % 3 {
                0 => vec![p("a", 1 + n % 11)],
                1 => vec![Proc::new(format!("ghost{n}"), Rank(0)).unwrap()],
                _ => vec![p("a", 12 + n)],
            };
            c.send(
                &Request::Fence {
                    procs,
                    info: vec![],
                },
                n + 1,
            );
        }
        for _ in 0..BATCH {
            let (_, r) = c.next_reply();
            assert_eq!(r.status, Status::ERR_BAD_PARAM, "{}", r.message);
        }
    }
    let tracked = server.tracked_collectives();
    let rss_after = abuse::self_status("VmRSS");
    println!(
        "{BOGUS} non-participant fences in {:?}: {tracked} trackers kept, test process RSS \
         {rss_before} -> {rss_after} kB",
        started.elapsed()
    );
    assert_eq!(
        tracked, 0,
        "fences the sender is no participant of left state"
    );

    // Distinct participant sets of a:0 and peers that never come: the
    // first LIMIT wait, the others are refused at once.
    let sets: Vec<Vec<Proc>> = (1..=LIMIT as u32 + 8)
        .map(|bits| {
            let mut procs = vec![p("a", 0)];
            procs.extend(
                (0..11)
                    .filter(|b| bits & (1 << b) != 0)
                    .map(|b| p("a", b + 1)),
            );
            procs
        })
        .collect();
    for (i, procs) in sets.iter().enumerate() {
        c.send(
            &Request::Fence {
                procs: procs.clone(),
                info: vec![],
            },
            1_000_000 + i as u32,
        );
    }
    for _ in 0..8 {
        let (tag, r) = c.next_reply();
        assert!(
            tag >= 1_000_000 + LIMIT as u32,
            "a fence within the limit was answered"
        );
        assert_eq!(r.status, Status::ERR_OUT_OF_RESOURCE, "{}", r.message);
        assert!(
            r.message.contains("max_pending_per_client"),
            "{}",
            r.message
        );
    }
    assert_eq!(server.tracked_collectives(), LIMIT);

    // The client goes: its episodes fail for everyone and are dropped.
    drop(c);
    let left = wait_untracked(&server);
    println!("after disconnect: {left} trackers kept");
    assert_eq!(left, 0, "the episodes of a disconnected client are kept");
    server.finalize();
}

#[test]
fn a_hello_announcing_64_mib_is_refused_before_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |_| {});
    let mut s = UnixStream::connect(server.socket_path()).unwrap();
    let header = FrameHeader {
        version: pmix_core::proto::PROTOCOL_VERSION,
        msg_type: msg::HELLO,
        tag: 0,
        len: 64 << 20,
    };
    s.write_all(&header.to_bytes()).unwrap();
    // The server may refuse and close before these bytes arrive (EPIPE):
    // that is the point, so the write's outcome does not matter.
    let _ = s.write_all(&[0u8; 1024]);
    let t = Instant::now();
    let w = read_welcome(&s, Duration::from_secs(3)).expect("an answer at once");
    println!(
        "64 MiB hello header: refused in {:?}: {}",
        t.elapsed(),
        w.message
    );
    assert_eq!(w.status, Status::ERR_HANDSHAKE_FAILED);
    assert!(w.message.contains("limit"), "{}", w.message);
    server.finalize();
}

#[test]
fn a_hello_dripped_a_byte_every_2_s_is_dropped_at_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| {
        c.handshake_timeout = Duration::from_secs(3);
    });
    register(&server, "a", 1);
    let s = UnixStream::connect(server.socket_path()).unwrap();
    let t = Instant::now();
    let mut w = s.try_clone().unwrap();
    let hello = abuse::hello_frame(&p("a", 0), abuse::secret_of(&server, &p("a", 0)));
    // The dripper ends at the first failed write (the server dropped the
    // connection) or after the whole hello.
    let dripper = std::thread::spawn(move || {
        for b in hello {
            if w.write_all(&[b]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_secs(2));
        }
    });
    let got = read_welcome(&s, Duration::from_secs(8));
    let took = t.elapsed();
    println!("one byte every 2 s, 3 s deadline: dropped after {took:?}: {got:?}");
    let w = got.expect("a refusing welcome at the deadline");
    assert_eq!(w.status, Status::ERR_TIMEOUT, "{}", w.message);
    assert!(took < Duration::from_secs(6), "dropped only after {took:?}");
    let _ = s.shutdown(std::net::Shutdown::Both);
    dripper.join().unwrap();
    server.finalize();
}

/// `get`s held for a peer's commit are dropped when the client that asked
/// goes: nobody reads their answers, and they must not count against the
/// rank's next connection (found by the request-dispatch fuzzer).
#[test]
fn gets_held_for_a_departed_client_are_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |_| {});
    register(&server, "h", 2);
    let mut c = RawClient::connect(&server, &p("h", 0));
    for tag in 1..=8 {
        c.send(
            &Request::Get {
                proc: p("h", 1),
                key: "never.committed".into(),
                info: Vec::new(),
            },
            tag,
        );
    }
    let end = Instant::now() + abuse::WAIT;
    while server.held_requests() < 8 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(server.held_requests(), 8, "the gets were not held");
    drop(c);
    let t = Instant::now();
    while server.held_requests() != 0 && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    println!(
        "8 held gets: {} left {:?} after their client went",
        server.held_requests(),
        t.elapsed()
    );
    assert_eq!(server.held_requests(), 0);
}
