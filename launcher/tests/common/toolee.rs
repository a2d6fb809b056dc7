//! Jobs of the `toolee` example under `pmixrun`, and tools attached to
//! them (`tools.rs`, `tool_support.rs`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pmix_client::tool::Tool;
use pmix_core::{attrs, DataRange, Info, Status, Value};
use pmix_shm::sync::{AtomicU32, Ordering};

use super::{example, reported_pid};

/// An info, or a panic: the tests' directives are always valid.
pub fn info(k: &str, v: impl Into<Value>) -> Info {
    Info::new(k, v).unwrap()
}

/// A `pmixrun -n n toolee` job whose server tmpdir is `tmp`, its ranks'
/// stdout going to `stdout`, and pmixrun's pid once `--report-pid` wrote
/// it (each job its own pid file, so several may share `tmp`).
pub fn start_toolee(tmp: &Path, n: u32, stdout: impl Into<Stdio>) -> (Child, u32) {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    // ORDERING: Relaxed — only a distinct number per job.
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    let pidfile = tmp.join(format!("pid.{k}"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmixrun"))
        .env("TMPDIR", tmp)
        .args(["--timeout", "60", "--report-pid"])
        .arg(&pidfile)
        .args(["-n", &n.to_string()])
        .arg(example("toolee"))
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    match reported_pid(&pidfile) {
        Some(pid) => (child, pid),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pmixrun wrote no --report-pid file");
        }
    }
}

/// Attaches to the job of pmixrun `pid` (found under `tmp` by pid),
/// retrying for 20 s while its server is not up yet.
pub fn attach_by_pid(tmp: &Path, pid: u32) -> Tool {
    let t0 = Instant::now();
    loop {
        let r = Tool::init(&[
            info(attrs::SERVER_PIDINFO, Value::Pid(pid as i32)),
            info(attrs::SERVER_TMPDIR, tmp.to_str().unwrap()),
        ]);
        match r {
            Ok(t) => return t,
            Err(e)
                if e.status() == Status::ERR_UNREACH && t0.elapsed() < Duration::from_secs(20) =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("tool init: {e}"),
        }
    }
}

/// Raises the event the `toolee` ranks wait for before they finalize.
pub fn release(t: &Tool) {
    t.client()
        .unwrap()
        .notify_event(Status(-3100), DataRange::SESSION, &[])
        .unwrap();
}
