//! Clients as real processes for the two-node tests: this test binary
//! re-run in a role (`child_entry` reads [`ROLE`]), its stdout lines read
//! back, each wait bounded by [`BOUND`], every child killed and reaped
//! when the test ends (failed ones included).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix_core::Proc;
use pmix_server::Server;

/// The environment variable that names a child's role.
pub const ROLE: &str = "PMIXRS_RM_TEST_ROLE";

/// The longest any step of a test waits.
pub const BOUND: Duration = Duration::from_secs(60);

/// Kills and reaps every child on drop (test failure included).
pub struct Children(pub Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A line a child printed, tagged with the child's tag.
pub type Tagged = (&'static str, String);

/// Starts `proc` of `server` in `role`; its stdout lines go to `tx`
/// tagged with `tag`.
pub fn launch(
    children: &mut Children,
    server: &Server,
    proc: &Proc,
    role: &str,
    tx: &mpsc::Sender<Tagged>,
    tag: &'static str,
) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_entry", "--nocapture", "--test-threads=1"])
        .envs(server.setup_fork(proc).unwrap())
        .env(ROLE, role)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    children.0.push(child);
    let tx = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send((tag, line)).is_err() {
                break;
            }
        }
    });
}

/// The children's lines, kept until asked for.
pub struct Lines {
    rx: mpsc::Receiver<Tagged>,
    kept: Vec<Tagged>,
}

impl Lines {
    pub fn new(rx: mpsc::Receiver<Tagged>) -> Lines {
        Lines {
            rx,
            kept: Vec::new(),
        }
    }

    /// The first line of `tag` holding one of `prefixes` (from there on),
    /// within [`BOUND`].
    pub fn next(&mut self, tag: &str, prefixes: &[&str]) -> String {
        // libtest's "test child_entry ... " may precede it on the line
        let hit = |from: &str, line: &str| {
            let at = prefixes.iter().filter_map(|p| line.find(p)).min()?;
            (from == tag).then(|| line[at..].to_owned())
        };
        if let Some(i) = self.kept.iter().position(|(f, l)| hit(f, l).is_some()) {
            let (f, l) = self.kept.remove(i);
            return hit(f, &l).unwrap();
        }
        let t = Instant::now();
        while t.elapsed() < BOUND {
            if let Ok((from, line)) = self.rx.recv_timeout(Duration::from_millis(100)) {
                if let Some(found) = hit(from, &line) {
                    return found;
                }
                println!("{from}: {line}");
                self.kept.push((from, line));
            }
        }
        panic!("no {prefixes:?} line from {tag} within {BOUND:?}");
    }
}
