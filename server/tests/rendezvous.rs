//! The rendezvous files a server leaves for tools (OpenPMIx's names and
//! contents): written at init, a stale one (its pid dead) reclaimed, one
//! of a live server left alone, all of its own removed at stop.

use std::process::Command;
use std::sync::Arc;

use pmix_core::proto::tool::{files, parse_uri, Rendezvous};
use pmix_core::Nspace;
use pmix_server::{NullHost, Server, ServerConfig};

fn stale(pid: u32) -> String {
    Rendezvous {
        uri: "old.0;unix:/nonexistent/server.sock".into(),
        version: "4.2.2".into(),
        pid,
        uid: 0,
        gid: 0,
    }
    .format("0")
}

#[test]
fn stale_files_are_reclaimed_live_ones_kept_and_own_ones_removed_at_stop() {
    let tmp = tempfile::tempdir().unwrap();
    let host = pmix_server::hostname();
    // A pid that is surely dead: a child that exited and was reaped.
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    // A live one: a child kept until the end (killed by its pid).
    let mut live = Command::new("sleep").arg("60").spawn().unwrap();
    let session = tmp.path().join(files::session(&host));
    let by_ns = tmp.path().join(files::by_nspace(&host, "rdv-test"));
    let system = tmp.path().join(files::system(&host));
    std::fs::write(&session, stale(live.id())).unwrap();
    std::fs::write(&by_ns, stale(dead_pid)).unwrap();
    std::fs::write(&system, stale(dead_pid)).unwrap();

    let mut cfg = ServerConfig::new(Nspace::new("rdv-test").unwrap());
    cfg.tmpdir = tmp.path().to_owned();
    cfg.system_support = true;
    cfg.log = false;
    let server = Server::init(cfg, Arc::new(NullHost)).unwrap();
    let by_pid = tmp.path().join(files::by_pid(&host, std::process::id()));
    let read =
        |p: &std::path::Path| Rendezvous::parse(&std::fs::read_to_string(p).unwrap()).unwrap();
    for f in [&by_pid, &by_ns, &system] {
        let r = read(f);
        assert_eq!(r.uri, server.uri(), "{}", f.display());
        assert_eq!(r.pid, std::process::id());
        let (proc, socket) = parse_uri(&r.uri).unwrap();
        assert_eq!(&proc, server.proc());
        assert_eq!(socket, server.socket_path());
    }
    assert_eq!(
        read(&session).pid,
        live.id(),
        "a live server's file is kept"
    );
    let mut written = server.rendezvous_files();
    written.sort();
    let mut want = vec![by_pid.clone(), by_ns.clone(), system.clone()];
    want.sort();
    assert_eq!(written, want);

    server.finalize();
    for f in [&by_pid, &by_ns, &system] {
        assert!(!f.exists(), "{} left behind", f.display());
    }
    assert!(session.exists(), "another server's file removed");
    live.kill().unwrap();
    live.wait().unwrap();
}
