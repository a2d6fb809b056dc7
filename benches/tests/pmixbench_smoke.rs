//! `pmixbench` end to end at tiny sizes: every row of `pmixbench all
//! --quick --json` is present on pmix-rs native with sane figures (no
//! timed assertion: only counts, order of percentiles, positive rates and
//! the limits), and comparisons through the C driver: on pmix-rs's own
//! `libpmix.so.2` under `pmixrun`, and on Debian's OpenPMIx under `mpirun`
//! when that is installed. Every process runs under pmixbench's
//! own deadlines (120 s a job) and this test's 300 s bound.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// This workspace's `pmixrun`, built in this test's profile (`cargo test
/// -p pmix-benches` does not build other packages' binaries).
fn pmixrun() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_pmixbench"));
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

/// Runs pmixbench with `args` (bounded by 300 s, killed by its pid);
/// returns its exit success and parsed JSON.
fn pmixbench(args: &[&str]) -> (bool, Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pmixbench"))
        .args(args)
        .arg("--pmixrun")
        .arg(pmixrun())
        .args(["--json", "--no-progress-bar"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn pmixbench");
    let out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(300);
    let ok = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            break st.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pmixbench {args:?} ran past 300 s (killed)");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = reader.join().expect("reader");
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"));
    (ok, json)
}

fn rows_of<'a>(j: &'a Value, side: &str) -> Vec<&'a Value> {
    j["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["side"] == side)
        .collect()
}

/// A latency row's percentiles are ordered and positive; a rate row's
/// value is positive.
fn check_sane(r: &Value) {
    let f = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("no {k} in {r}"));
    assert!(r["count"].as_u64().unwrap_or(0) > 0, "empty row {r}");
    if r["unit"] == "ns" {
        let v = [f("min"), f("p50"), f("p90"), f("p99"), f("p999"), f("max")];
        assert!(v[0] >= 1.0, "{r}");
        assert!(
            v.windows(2).all(|w| w[0] <= w[1]),
            "percentiles out of order: {r}"
        );
        assert!(v[5] < 1e11, "{r}");
        assert_eq!(f("value"), f("p50"), "{r}");
    } else {
        assert_eq!(r["unit"], "ev/s", "{r}");
        assert!(f("value") > 0.0, "{r}");
    }
}

#[test]
fn all_quick_reports_every_row_with_sane_numbers() {
    let (ok, j) = pmixbench(&["all", "--quick", "--iters", "100", "--duration", "0.05"]);
    assert!(ok, "pmixbench failed: {}", j["failures"]);
    assert_eq!(
        j["failures"].as_array().map(Vec::len),
        Some(0),
        "{}",
        j["failures"]
    );
    let limits = j["limits"].as_array().expect("limits");
    assert_eq!(limits.len(), 4, "{limits:?}");
    for l in limits {
        assert!(l["oneway_ns"].as_f64().unwrap_or(0.0) > 0.0, "{l}");
    }
    let rows = rows_of(&j, "pmix-rs native");
    let want_prefixes = [
        "notify one-way handler→handler CUSTOM, spin",
        "notify one-way CUSTOM, sleep",
        "notify one-way handler→handler LOCAL+DO_NOT_CACHE, sleep",
        "notify one-way LOCAL+DO_NOT_CACHE, sleep",
        "PROC_LOCAL one-way, spin",
        "PROC_LOCAL burst of 10000 from 1 thread, sleep",
        "fan-out NAMESPACE to 2: sender's call",
        "fan-out NAMESPACE to 2: last handler ran",
        "client→peer throughput, 1 producer(s) × 10000 events",
        "get job key (JOB_SIZE)",
        "get peer's 64 B key",
        "fence 1 KiB collect, np 2",
        "fence 1 KiB collect, np 4",
        "PMIx_Init, np 2",
    ];
    for w in want_prefixes {
        let r = rows
            .iter()
            .find(|r| r["row"] == w)
            .unwrap_or_else(|| panic!("no row {w:?} in {}", j["rows"]));
        check_sane(r);
    }
    for r in &rows {
        check_sane(r);
        // spinning and sleeping rows are quoted against a limit
        if r["row"].as_str().is_some_and(|s| s.contains("one-way")) {
            assert!(r["x_limit"].as_f64().is_some_and(|x| x > 0.0), "{r}");
        }
    }
    // the init row holds one sample per rank
    let init = rows.iter().find(|r| r["row"] == "PMIx_Init, np 2").unwrap();
    assert_eq!(init["count"], 2, "{init}");
}

/// pmix-rs's `libpmix.so.2`, built in this test's profile and installed
/// into a fresh directory under the target dir (removed afterwards).
fn pmix_rs_lib() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_pmixbench"));
    let st = Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "pmix-capi"])
        .args(if cfg!(debug_assertions) {
            &[][..]
        } else {
            &["--release"][..]
        })
        .status()
        .expect("cargo build pmix-capi");
    assert!(st.success(), "building pmix-capi failed");
    let built = exe.with_file_name("libpmix.so");
    let dir = exe.with_file_name(format!("pmixbench-smoke-lib-{}", std::process::id()));
    std::fs::create_dir(&dir).expect("lib dir");
    std::fs::copy(&built, dir.join("libpmix.so.2")).expect("copy libpmix.so");
    dir
}

fn have(p: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(p).is_file()))
}

#[test]
fn compare_lib_runs_the_c_driver_on_pmix_rs_under_pmixrun() {
    if !(have("cc") && have("pkg-config")) {
        eprintln!("skipped: needs cc and pkg-config with libpmix-dev (CI installs them)");
        return;
    }
    let lib = pmix_rs_lib();
    let lib_s = lib.to_string_lossy().into_owned();
    let (ok, j) = pmixbench(&[
        "notify",
        "--quick",
        "--range",
        "custom",
        "--progress",
        "sleep",
        "--compare-lib",
        &lib_s,
    ]);
    std::fs::remove_dir_all(&lib).expect("remove the lib dir");
    assert!(ok, "pmixbench failed: {}", j["failures"]);
    assert_eq!(
        j["sides"],
        serde_json::json!(["pmix-rs native", "pmix-rs C ABI"])
    );
    let rows = rows_of(&j, "pmix-rs C ABI");
    assert_eq!(rows.len(), 1, "{}", j["rows"]);
    assert_eq!(rows[0]["row"], "notify one-way CUSTOM, sleep");
    check_sane(rows[0]);
    assert!(
        rows[0]["x_first"].as_f64().is_some_and(|x| x > 0.0),
        "{}",
        rows[0]
    );
}

#[test]
fn compare_lib_runs_the_c_driver_on_openpmix() {
    let lib = "/usr/lib/x86_64-linux-gnu/pmix2/lib";
    let installed = have("mpirun")
        && have("cc")
        && have("pkg-config")
        && std::path::Path::new(lib).join("libpmix.so.2").exists();
    if !installed {
        eprintln!("skipped: needs Debian's mpirun, cc, pkg-config and {lib} (CI installs them)");
        return;
    }
    let (ok, j) = pmixbench(&["get", "--quick", "--compare-lib", lib]);
    assert!(ok, "pmixbench failed: {}", j["failures"]);
    assert_eq!(
        j["sides"],
        serde_json::json!(["pmix-rs native", "OpenPMIx"])
    );
    for side in ["pmix-rs native", "OpenPMIx"] {
        let rows = rows_of(&j, side);
        assert_eq!(rows.len(), 2, "{side}: {}", j["rows"]);
        for r in rows {
            check_sane(r);
            if side == "OpenPMIx" {
                assert!(r["x_first"].as_f64().is_some_and(|x| x > 0.0), "{r}");
            }
        }
    }
}
