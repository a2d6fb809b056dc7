//! The event soak at CI size (`examples/soak.rs`): 16 processes under the
//! real `pmixrun`, each notifying 50,000 events to its peer (and every
//! 10,000th to the namespace), with the launcher's RSS and thread count
//! printed every 2 s and bounded (no growth beyond 8 threads or 32 MiB
//! over the first sample). The long run (16 × 10^6) is the documented
//! command in `examples/soak.rs` and `docs/RELIABILITY.md`.

use std::process::Command;
use std::time::Duration;

mod common;
use common::{example, text, wait_all};

#[test]
fn sixteen_processes_notify_their_peers_with_the_server_bounded() {
    let child = Command::new(example("soak"))
        .args(["--procs", "16", "--events", "50000", "--every", "2"])
        .args(["--timeout", "240"])
        .env("PMIXRUN", env!("CARGO_BIN_EXE_pmixrun"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_all(vec![child], Duration::from_secs(300)).remove(0);
    let t = text(&out);
    eprintln!("{}", t.trim());
    assert!(out.status.success(), "{t}");
    assert!(t.lines().any(|l| l == "soak ok"), "{t}");
    assert!(t.contains("16 of 16 ranks done"), "{t}");
}
