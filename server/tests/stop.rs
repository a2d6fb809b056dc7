//! `Server::stop` ends whatever became of the server's socket file: it
//! used to wake its accept loop by connecting to that path, so a server
//! whose directory someone removed (Open MPI removed all of `/tmp` under
//! an older pmixrun) never stopped.

use std::sync::Arc;
use std::time::Duration;

use pmix_core::Nspace;
use pmix_server::{NullHost, Server, ServerConfig};

#[test]
fn a_server_whose_socket_directory_was_removed_still_stops() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = ServerConfig::new(Nspace::new("stop-test").unwrap());
    cfg.tmpdir = tmp.path().to_path_buf();
    cfg.log = false;
    let server = Server::init(cfg, Arc::new(NullHost)).unwrap();
    // Everything under the test's directory goes, the socket (and the
    // tools' rendezvous files) included.
    for e in std::fs::read_dir(tmp.path()).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            std::fs::remove_dir_all(p).unwrap();
        } else {
            std::fs::remove_file(p).unwrap();
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        server.finalize();
        let _ = tx.send(());
    });
    assert!(
        rx.recv_timeout(Duration::from_secs(10)).is_ok(),
        "finalize still running 10 s after the socket directory was removed"
    );
}
