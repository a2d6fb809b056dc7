//! Helpers shared by the integration tests of pmix-launcher.
#![allow(dead_code)] // each test file uses its own subset

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// This process's uid and gid (what the server must see from a child).
pub fn ids() -> (u32, u32) {
    let m = std::fs::metadata("/proc/self").unwrap();
    (m.uid(), m.gid())
}

/// Path of the example `name`, built once per test binary (`cargo test
/// --test x` does not build examples on its own).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let p = dir.join("examples").join(name);
    static BUILD: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILD.lock().unwrap();
    if !built.iter().any(|b| b == name) {
        let st = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "pmix-launcher", "--example", name])
            .args(if cfg!(debug_assertions) {
                &[][..]
            } else {
                &["--release"][..]
            })
            .status()
            .unwrap();
        assert!(st.success(), "building examples/{name} failed");
        built.push(name.to_owned());
    }
    assert!(p.exists(), "no {}", p.display());
    p
}

/// Waits for every child, killing them all and failing after `limit`.
pub fn wait_all(children: Vec<std::process::Child>, limit: Duration) -> Vec<Output> {
    let t0 = Instant::now();
    let mut children: Vec<_> = children.into_iter().map(Some).collect();
    loop {
        let mut running = false;
        for c in children.iter_mut().flatten() {
            if c.try_wait().unwrap().is_none() {
                running = true;
            }
        }
        if !running {
            break;
        }
        if t0.elapsed() > limit {
            for c in children.iter_mut().flatten() {
                let _ = c.kill();
            }
            let outs: Vec<_> = children
                .into_iter()
                .flatten()
                .map(|c| c.wait_with_output().unwrap())
                .collect();
            for o in &outs {
                eprintln!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
            }
            panic!("job hung for {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    children
        .into_iter()
        .flatten()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

/// A child's stdout and stderr.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
