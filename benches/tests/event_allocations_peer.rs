//! The native event path between two processes allocates nothing in the
//! steady state (issue 18): `alloc-probe` (a counting global allocator)
//! under `pmixrun -n 2` reports what each rank allocated over 2 000 round
//! trips after a warm-up, for LOCAL + DO_NOT_CACHE (peer's ring only) and
//! CUSTOM naming the peer. The job runs under a 120 s bound, killed by its
//! pid; its directories are pmixrun's own.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// This workspace's `pmixrun`, built in this test's profile.
fn pmixrun() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_alloc-probe"));
    let st = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "pmix-launcher", "--bin", "pmixrun"])
        .args(if cfg!(debug_assertions) {
            &[][..]
        } else {
            &["--release"][..]
        })
        .status()
        .expect("cargo build pmixrun");
    assert!(st.success(), "building pmixrun failed");
    let p = exe.with_file_name("pmixrun");
    assert!(p.is_file(), "no {}", p.display());
    p
}

#[test]
fn peer_events_allocate_nothing_in_the_steady_state() {
    let mut child = Command::new(pmixrun())
        .args(["-n", "2", env!("CARGO_BIN_EXE_alloc-probe"), "2000", "3000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn pmixrun");
    let out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(120);
    let ok = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pmixrun alloc-probe ran past 120 s (killed)");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = reader.join().expect("reader");
    assert!(ok, "the job failed:\n{text}");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter_map(|l| l.strip_prefix("ALLOCS "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 4, "two ranges × two ranks:\n{text}");
    for r in &rows {
        assert_eq!(r.len(), 4, "{r:?}");
        let n: u64 = r[2].parse().expect("a count");
        assert_eq!(
            n, 0,
            "rank {} allocated {n} times over {} {} round trips",
            r[1], r[3], r[0]
        );
    }
}
