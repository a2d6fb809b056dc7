//! Helpers shared by the integration tests of pmix-launcher.
#![allow(dead_code)] // each test file uses its own subset

pub mod toolee;

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

/// A server in this test process, its socket directory under `dir`, with
/// one job of `n` ranks (namespace `job-<tag>`) registered on this node.
pub fn one_node_job(
    tag: &str,
    n: u32,
    host: std::sync::Arc<dyn pmix_server::Host>,
    dir: &std::path::Path,
) -> (pmix_server::Server, pmix_core::Nspace) {
    use pmix_core::{Nspace, Proc, Rank};
    use pmix_server::{Server, ServerConfig, SingleNodeJob};
    let mut cfg = ServerConfig::new(Nspace::new(format!("srv-{tag}")).unwrap());
    cfg.max_clients = 8;
    cfg.tmpdir = dir.to_path_buf();
    let server = Server::init(cfg, host).unwrap();
    let ns = Nspace::new(format!("job-{tag}")).unwrap();
    let (uid, gid) = ids();
    for r in 0..n {
        server
            .register_client(&Proc::from_parts(ns.clone(), Rank(r)), uid, gid)
            .unwrap();
    }
    let infos = SingleNodeJob::new(ns.clone(), n, "testnode")
        .infos()
        .unwrap();
    server.register_nspace(&ns, n, &infos).unwrap();
    (server, ns)
}

/// Starts the example `name` with `scenario` as rank `rank` of `ns` on
/// `server`, its output piped. A client that has no handler for a lost
/// server keeps running to report it (`PMIXRS_ON_LOST_SERVER=continue`).
pub fn start_client(
    name: &str,
    server: &pmix_server::Server,
    ns: &pmix_core::Nspace,
    rank: u32,
    scenario: &str,
) -> std::process::Child {
    use std::process::Stdio;
    let p = pmix_core::Proc::from_parts(ns.clone(), pmix_core::Rank(rank));
    Command::new(example(name))
        .arg(scenario)
        .envs(server.setup_fork(&p).unwrap())
        .env(pmix_client::ON_LOST_SERVER_ENV, "continue")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The pid `pmixrun --report-pid FILE` wrote, once the whole line is
/// there (`None` after 20 s).
pub fn reported_pid(file: &std::path::Path) -> Option<u32> {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(20) {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.strip_suffix('\n').and_then(|l| l.parse().ok()))
        {
            return Some(pid);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// `pmixrun --timeout timeout_s -n n EXAMPLE scenario`, run to its end
/// (pmixrun's own timeout bounds it).
pub fn run_scenario(example_name: &str, n: u32, scenario: &str, timeout_s: u32) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .args(["--timeout", &timeout_s.to_string(), "-n", &n.to_string()])
        .arg(example(example_name))
        .arg(scenario)
        .output()
        .unwrap()
}

/// The job exited 0, `n` ranks printed `ok done`, and none a `FAIL`.
pub fn assert_ok(o: &Output, n: usize) {
    assert!(o.status.success(), "{}", text(o));
    assert_eq!(text(o).matches("ok done").count(), n, "{}", text(o));
    assert!(!text(o).contains("FAIL"), "{}", text(o));
}
