//! A job rank for the tool tests (`launcher/tests/tools.rs`): registers a
//! handler for code -3100, prints `ready`, waits (at most 30 s) for that
//! event — which a tool raises — prints `got <code> from <source>` and
//! finalizes. Without the event it prints `FAIL: …` and exits 1.

use std::sync::mpsc;
use std::time::Duration;

use pmix_client::Client;
use pmix_core::Status;

fn main() {
    let c = Client::init(&[]).unwrap_or_else(|e| {
        println!("FAIL: init: {e}");
        std::process::exit(1)
    });
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    c.register_event_handler(&[Status(-3100)], &[], move |e, done| {
        let src = e.source.map(|p| p.to_string()).unwrap_or_default();
        let _ = tx
            .lock()
            .unwrap()
            .send(format!("got {} from {src}", e.status.0));
        done.done(Status::SUCCESS, vec![]);
    })
    .unwrap_or_else(|e| {
        println!("FAIL: register: {e}");
        std::process::exit(1)
    });
    println!("ready {}", c.proc());
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(line) => println!("{line}"),
        Err(_) => {
            println!("FAIL: no event from a tool within 30 s");
            std::process::exit(1)
        }
    }
    let _ = c.finalize();
}
