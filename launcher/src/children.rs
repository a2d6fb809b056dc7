//! One job's started processes: reaping them and terminating them (SIGTERM
//! to the job's process group, SIGKILL [`GRACE`] later).

use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Time between SIGTERM and SIGKILL when a job is terminated.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// One started rank.
#[derive(Debug)]
pub(crate) struct Rankproc {
    /// Its rank in its job.
    pub rank: u32,
    /// Its pid.
    pub pid: u32,
    /// The child.
    pub child: Child,
    /// Reaped.
    pub ended: bool,
}

/// Signals process group `pgid` with `kill -s SIG -- -PGID`, or a shell's
/// builtin `kill -SIG -PGID` when there is no kill(1) in `PATH` (dash's
/// builtin takes neither `-s SIG -PGID` nor `--`); `false` when neither
/// could be run.
fn signal_group(pgid: u32, sig: &str) -> bool {
    let quiet = |c: &mut Command| {
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    let target = format!("-{pgid}");
    quiet(Command::new("kill").args(["-s", sig, "--", &target]))
        || quiet(Command::new("sh").args(["-c", "kill -\"$1\" \"$2\"", "sh", sig, &target]))
}

/// The processes of one job, in one process group led by its first
/// process, and the state of their termination.
#[derive(Debug, Default)]
pub(crate) struct JobProcs {
    /// The started ranks.
    pub procs: Vec<Rankproc>,
    /// The job's process group (the first process's pid).
    pub pgid: Option<u32>,
    term_sent: Option<Instant>,
    kill_sent: bool,
}

impl JobProcs {
    /// How many have not been reaped.
    pub(crate) fn running(&self) -> usize {
        self.procs.iter().filter(|p| !p.ended).count()
    }

    /// Reaps every child that ended; returns their indices.
    pub(crate) fn reap(&mut self) -> Vec<(usize, ExitStatus)> {
        let mut out = Vec::new();
        for (i, p) in self.procs.iter_mut().enumerate().filter(|(_, p)| !p.ended) {
            match p.child.try_wait() {
                Ok(Some(st)) => {
                    p.ended = true;
                    out.push((i, st));
                }
                Ok(None) => {}
                Err(e) => {
                    eprintln!(
                        "pmixrun: cannot wait for rank {} (pid {}): {e}",
                        p.rank, p.pid
                    );
                    p.ended = true;
                    out.push((i, ExitStatus::from_raw(1 << 8)));
                }
            }
        }
        out
    }

    /// One step of terminating the job: SIGTERM to the group first, SIGKILL
    /// to the group and every remaining child [`GRACE`] later.
    pub(crate) fn terminate_step(&mut self, now: Instant) {
        if self.running() == 0 {
            return;
        }
        match self.term_sent {
            None => {
                let sent = self.pgid.is_some_and(|g| signal_group(g, "TERM"));
                self.term_sent = Some(now);
                if !sent {
                    self.kill_all();
                }
            }
            Some(t) if !self.kill_sent && now.duration_since(t) >= GRACE => self.kill_all(),
            Some(_) => {}
        }
    }

    /// SIGKILL to the group and to every child not reaped.
    pub(crate) fn kill_all(&mut self) {
        if let Some(g) = self.pgid {
            signal_group(g, "KILL");
        }
        for p in self.procs.iter_mut().filter(|p| !p.ended) {
            let _ = p.child.kill();
        }
        self.kill_sent = true;
    }

    /// Kills every child at once and waits for each (a partly started job
    /// that must not run).
    pub(crate) fn kill_and_reap(&mut self) {
        self.kill_all();
        for p in self.procs.iter_mut().filter(|p| !p.ended) {
            let _ = p.child.wait();
            p.ended = true;
        }
    }
}
