//! The sides of a comparison and how a job runs on each: pmix-rs native
//! (this binary's `client` roles under `pmixrun`), or the C driver
//! (`benches/c/pmixbench_driver.c`, compiled here at run time with `cc`
//! against `pkg-config pmix`'s pmix.h) on the `libpmix.so.2` of a
//! directory — under `pmixrun` when that library is pmix-rs's C ABI, under
//! Debian's `mpirun` (Open MPI's OpenPMIx server) otherwise.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pmix_benches::harness::Job;

use crate::cli::{LauncherChoice, Progress};

/// The C driver's source, carried inside the binary.
const DRIVER_C: &str = include_str!("../../../c/pmixbench_driver.c");

/// How long one job may run before it is killed (pmixrun's own
/// `--timeout` is a little shorter).
pub const JOB_DEADLINE: Duration = Duration::from_secs(120);
const PMIXRUN_TIMEOUT_S: u64 = 100;

/// The progress-spin knob of pmix-rs's client (native and C ABI).
pub const SPIN_ENV: &str = "PMIXRS_PROGRESS_SPIN_US";
/// Where a fan-out job finds the parent's counter segment.
pub const SHM_ENV: &str = "PMIXBENCH_SHM";

/// The sample every job gets from the parent: the launcher's wall time
/// from spawn to exit (start-up, the measurement, shutdown).
pub const JOB_WALL: &str = "job_wall";

/// Which launcher starts a C-ABI side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// This workspace's `pmixrun` (pmix-rs server).
    Pmixrun,
    /// Debian's `mpirun` (Open MPI with its OpenPMIx server).
    Mpirun,
}

/// One implementation measured.
#[derive(Clone, Debug)]
pub enum Side {
    /// pmix-rs through its Rust API.
    Native,
    /// The C ABI of `dir/libpmix.so.2`.
    CAbi {
        /// The directory holding libpmix.so.2.
        dir: PathBuf,
        /// How its jobs are launched.
        launcher: Launcher,
        /// The name in the report.
        name: String,
    },
}

impl Side {
    /// A C-ABI side for `dir`, named after what the library says it is
    /// and launched as `choice` says (auto: after what it is).
    ///
    /// # Errors
    /// When `dir/libpmix.so.2` cannot be read.
    pub fn c_abi(dir: &Path, choice: LauncherChoice) -> Result<Side, String> {
        let lib = dir.join("libpmix.so.2");
        let bytes = std::fs::read(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
        let has = |s: &[u8]| bytes.windows(s.len()).any(|w| w == s);
        // pmix-rs's library also quotes "OpenPMIx" (in its version
        // strings for compatibility): look for its own name first
        let (launcher, name) = if has(b"pmix-rs") {
            (Launcher::Pmixrun, "pmix-rs C ABI".to_owned())
        } else if has(b"OpenPMIx") {
            (Launcher::Mpirun, "OpenPMIx".to_owned())
        } else {
            (
                Launcher::Mpirun,
                format!("libpmix.so.2 of {}", dir.display()),
            )
        };
        let (launcher, name) = match (choice, launcher) {
            (LauncherChoice::Auto, l) => (l, name),
            (LauncherChoice::Pmixrun, Launcher::Pmixrun)
            | (LauncherChoice::Mpirun, Launcher::Mpirun) => (launcher, name),
            (LauncherChoice::Pmixrun, _) => (Launcher::Pmixrun, format!("{name} under pmixrun")),
            (LauncherChoice::Mpirun, _) => (Launcher::Mpirun, format!("{name} under mpirun")),
        };
        let dir = dir
            .canonicalize()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Side::CAbi {
            dir,
            launcher,
            name,
        })
    }

    /// The name in the report.
    pub fn name(&self) -> &str {
        match self {
            Side::Native => "pmix-rs native",
            Side::CAbi { name, .. } => name,
        }
    }

    /// Renames a C-ABI side (two libraries of the same kind).
    pub fn rename(&mut self, to: String) {
        if let Side::CAbi { name, .. } = self {
            *name = to;
        }
    }

    /// Whether this side progresses with pmix-rs's client (honours
    /// [`SPIN_ENV`]).
    pub fn is_pmix_rs(&self) -> bool {
        matches!(
            self,
            Side::Native
                | Side::CAbi {
                    launcher: Launcher::Pmixrun,
                    ..
                }
        )
    }
}

/// What a job printed: `SAMPLES` lines (ns), `RESULT` lines.
#[derive(Debug, Default)]
pub struct Output {
    /// Samples by name, every rank's appended.
    pub samples: HashMap<String, Vec<u64>>,
    /// Figures by name (the last rank's wins).
    pub results: HashMap<String, f64>,
}

/// Parses a job's stdout; `FAILED` lines make it an error.
///
/// # Errors
/// When a rank said `FAILED`.
pub fn parse_output(lines: &[String]) -> Result<Output, String> {
    let mut out = Output::default();
    let mut failed = Vec::new();
    for l in lines {
        let mut it = l.split_whitespace();
        match it.next() {
            Some("SAMPLES") => {
                let name = it.next().unwrap_or("").to_owned();
                let v = out.samples.entry(name).or_default();
                v.extend(it.filter_map(|x| x.parse::<u64>().ok()));
            }
            Some("RESULT") => {
                if let (Some(k), Some(v)) = (it.next(), it.next().and_then(|v| v.parse().ok())) {
                    out.results.insert(k.to_owned(), v);
                }
            }
            Some("FAILED") => failed.push(l.trim_start_matches("FAILED ").to_owned()),
            _ => {}
        }
    }
    if failed.is_empty() {
        Ok(out)
    } else {
        Err(failed.join("; "))
    }
}

/// Everything a job needs besides its arguments.
#[derive(Debug)]
pub struct Launch {
    /// This binary (the native roles).
    pub exe: PathBuf,
    /// The pmixrun to use.
    pub pmixrun: PathBuf,
    /// The compiled C driver, when a C-ABI side is measured.
    pub driver: Option<PathBuf>,
    /// `taskset -c` list.
    pub cpus: Option<String>,
    /// A directory of this run's own, for the launchers' stderr.
    pub tmp: PathBuf,
}

impl Launch {
    /// Runs `args` as `np` ranks on `side` with the progress mode and
    /// extra environment; returns what the ranks printed.
    ///
    /// # Errors
    /// A failed rank, a launcher error, or the deadline.
    pub fn run(
        &self,
        side: &Side,
        np: u32,
        progress: Option<Progress>,
        env: &[(&str, String)],
        args: &[String],
    ) -> Result<Output, String> {
        let mut cmd = match &self.cpus {
            Some(list) => {
                let mut c = Command::new("taskset");
                c.arg("-c").arg(list);
                c
            }
            None => Command::new("env"),
        };
        match side {
            Side::Native => {
                cmd.arg(&self.pmixrun)
                    .arg("-n")
                    .arg(np.to_string())
                    .arg("--timeout")
                    .arg(PMIXRUN_TIMEOUT_S.to_string())
                    .arg(&self.exe)
                    .arg("client");
            }
            Side::CAbi { dir, launcher, .. } => {
                let driver = self.driver.as_ref().ok_or("the C driver was not built")?;
                let ld = match std::env::var("LD_LIBRARY_PATH") {
                    Ok(old) if !old.is_empty() => format!("{}:{old}", dir.display()),
                    _ => dir.display().to_string(),
                };
                cmd.env("LD_LIBRARY_PATH", ld);
                match launcher {
                    Launcher::Pmixrun => {
                        cmd.arg(&self.pmixrun)
                            .arg("-n")
                            .arg(np.to_string())
                            .arg("--timeout")
                            .arg(PMIXRUN_TIMEOUT_S.to_string());
                    }
                    Launcher::Mpirun => {
                        cmd.args(["mpirun", "--allow-run-as-root", "--oversubscribe"])
                            .args(["--bind-to", "none", "-x", "LD_LIBRARY_PATH"])
                            .args(["--timeout", &PMIXRUN_TIMEOUT_S.to_string()])
                            .arg("-n")
                            .arg(np.to_string());
                        for (k, _) in env {
                            cmd.arg("-x").arg(k);
                        }
                    }
                }
                cmd.arg(driver);
            }
        }
        cmd.args(args);
        match progress {
            Some(Progress::Spin) => cmd.env(SPIN_ENV, "1000000"),
            Some(Progress::Sleep) => cmd.env(SPIN_ENV, "0"),
            None => cmd.env_remove(SPIN_ENV),
        };
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Open MPI 4.1's server logs two lines per CUSTOM-range event on
        // stderr: keep a launcher's stderr in a file, quoted on failure
        let log = self.tmp.join("launcher.stderr");
        let file = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let t0 = Instant::now();
        let mut job = Job::new();
        job.spawn_with_stderr(cmd, file.into())?;
        let r = job
            .finish(Instant::now() + JOB_DEADLINE)
            .and_then(|(lines, st)| {
                let mut out = parse_output(&lines)?;
                out.samples
                    .insert(JOB_WALL.to_owned(), vec![t0.elapsed().as_nanos() as u64]);
                match st.first() {
                    Some(s) if s.success() => Ok(out),
                    Some(s) => Err(format!("the launcher exited with {s}")),
                    None => Err("no process".into()),
                }
            });
        r.map_err(|e| {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = lines[lines.len().saturating_sub(5)..].join("\n    ");
            if tail.is_empty() {
                e
            } else {
                format!("{e}; its stderr ends:\n    {tail}")
            }
        })
    }
}

/// A directory this process created, removed (with what it holds) when
/// dropped.
#[derive(Debug)]
pub struct OwnDir(pub PathBuf);

impl OwnDir {
    /// A fresh directory under the system's temporary directory.
    ///
    /// # Errors
    /// When it cannot be created.
    pub fn create() -> Result<OwnDir, String> {
        let base = std::env::temp_dir();
        for i in 0..100 {
            let p = base.join(format!("pmixbench-{}-{i}", std::process::id()));
            if std::fs::create_dir(&p).is_ok() {
                return Ok(OwnDir(p));
            }
        }
        Err(format!(
            "cannot create a directory under {}",
            base.display()
        ))
    }
}

impl Drop for OwnDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compiles the C driver into `dir` with `cc` and `pkg-config pmix`.
///
/// # Errors
/// With the compiler's message, or what is missing.
pub fn build_driver(dir: &Path) -> Result<PathBuf, String> {
    let src = dir.join("pmixbench_driver.c");
    std::fs::write(&src, DRIVER_C).map_err(|e| format!("{}: {e}", src.display()))?;
    let flags = |what: &str| -> Result<Vec<String>, String> {
        let o = Command::new("pkg-config")
            .args([what, "pmix"])
            .output()
            .map_err(|e| format!("pkg-config: {e} (install pkg-config and libpmix-dev)"))?;
        if !o.status.success() {
            return Err(format!(
                "pkg-config {what} pmix: {} (install libpmix-dev for pmix.h)",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect())
    };
    let exe = dir.join("pmixbench_driver");
    let o = Command::new("cc")
        .args(["-O2", "-std=gnu11"])
        .args(flags("--cflags")?)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .args(flags("--libs")?)
        .arg("-lpthread")
        .output()
        .map_err(|e| format!("cc: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "compiling the C driver failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines_parse_and_failures_surface() {
        let lines: Vec<String> = [
            "SAMPLES oneway 10 20 30",
            "noise",
            "SAMPLES oneway 40",
            "RESULT burst_ev_s 1.5e6",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = parse_output(&lines).unwrap();
        assert_eq!(o.samples["oneway"], vec![10, 20, 30, 40]);
        assert_eq!(o.results["burst_ev_s"], 1.5e6);
        let bad = vec!["FAILED rank 1: no PING".to_string()];
        assert_eq!(parse_output(&bad).unwrap_err(), "rank 1: no PING");
    }
}
