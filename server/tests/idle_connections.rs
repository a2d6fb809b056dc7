//! Connections that never send their hello hold a bounded number of the
//! server's threads (issue 14, item 3): beyond `max_handshakes` a new
//! connection is closed at once, and once the idle ones go a client
//! connects as usual. Alone in its binary so that the thread count is
//! this test's.

mod abuse;

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abuse::{p, register, server, RawClient};
use pmix_server::NullHost;

#[test]
fn two_hundred_idle_connections_hold_a_bounded_number_of_threads() {
    const IDLE: usize = 200;
    const LIMIT: usize = 64;
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| c.max_handshakes = LIMIT);
    register(&server, "a", 1);
    let before = abuse::self_status("Threads");
    let idle: Vec<UnixStream> = (0..IDLE)
        .map(|_| UnixStream::connect(server.socket_path()).unwrap())
        .collect();
    // Every connection accepted (the refused ones closed).
    let end = Instant::now() + abuse::WAIT;
    let mut closed = 0;
    for s in &idle {
        s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut b = [0u8; 1];
        if matches!((&*s).read(&mut b), Ok(0)) {
            closed += 1;
        }
    }
    while server.connections_in_handshake() < LIMIT && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    let threads = abuse::self_status("Threads");
    let in_handshake = server.connections_in_handshake();
    println!(
        "{IDLE} idle connections, limit {LIMIT}: threads {before} -> {threads}, {in_handshake} \
         in handshake, {closed} closed at once"
    );
    assert!(
        threads <= before + LIMIT as u64 + 4,
        "{threads} threads for {IDLE} idle connections (limit {LIMIT})"
    );
    assert_eq!(in_handshake, LIMIT);
    assert_eq!(closed, IDLE - LIMIT);
    drop(idle);
    let end = Instant::now() + abuse::WAIT;
    while server.connections_in_handshake() > 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(server.connections_in_handshake(), 0);
    let c = RawClient::connect(&server, &p("a", 0));
    drop(c);
    server.finalize();
}
