//! Connections that never send their hello cost the server no thread
//! (issue 14, items 2 and 3): one reactor thread serves every connection,
//! beyond `max_handshakes` the oldest connection without a hello is closed
//! for a new one (so a real client still gets in), and once the idle ones
//! go clients connect as usual — 64 of them, still without
//! a thread more. Alone in its binary so that the thread count is this
//! test's.

mod abuse;

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abuse::{p, register, server, RawClient};
use pmix_server::NullHost;

/// Makes room for `n` more descriptors than a default soft limit of 1024.
fn allow_descriptors(n: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut l = getrlimit(Resource::Nofile);
    let want = n + 256;
    if l.current.is_some_and(|c| c < want) {
        l.current = Some(l.maximum.map_or(want, |m| m.min(want)));
        let _ = setrlimit(Resource::Nofile, l);
    }
}

#[test]
fn idle_connections_and_connected_clients_cost_no_thread() {
    const IDLE: usize = 1500;
    const LIMIT: usize = 64;
    const CLIENTS: u32 = 64;
    allow_descriptors(2 * IDLE as u64);
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| {
        c.max_handshakes = LIMIT;
        c.max_clients = CLIENTS + 1;
    });
    register(&server, "a", CLIENTS);
    register(&server, "b", 1);
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
        // Closed: at once (EOF), or after a refusing welcome.
        if (&*s).read(&mut b).is_ok() {
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
        threads <= before,
        "{threads} threads for {IDLE} idle connections (limit {LIMIT}), {before} before"
    );
    assert_eq!(in_handshake, LIMIT);
    assert_eq!(closed, IDLE - LIMIT);
    // Every place is held by a connection that never sends its hello: a
    // real client still gets in (the oldest idle one is closed for it).
    let real = RawClient::connect(&server, &p("b", 0));
    drop(real);
    drop(idle);
    let end = Instant::now() + abuse::WAIT;
    while server.connections_in_handshake() > 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(server.connections_in_handshake(), 0);
    let clients: Vec<RawClient> = (0..CLIENTS)
        .map(|r| RawClient::connect(&server, &p("a", r)))
        .collect();
    let threads = abuse::self_status("Threads");
    println!("{CLIENTS} connected clients: threads {before} -> {threads}");
    assert!(
        threads <= before,
        "{threads} threads for {CLIENTS} connected clients, {before} before"
    );
    drop(clients);
    server.finalize();
}
