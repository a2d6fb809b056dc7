//! Why a job failed ([`Failure`]), how a process's end is judged
//! ([`classify`]), and the messages and exit statuses pmixrun reports.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use pmix_core::Status;

use crate::host::JobEvents;

/// Exit status when the job timed out (as `timeout(1)`).
pub const EXIT_TIMEOUT: i32 = 124;
/// Exit status when the program cannot be executed.
pub const EXIT_NOEXEC: i32 = 127;
/// Exit status when pmixrun itself fails (server setup, registration).
pub const EXIT_INTERNAL: i32 = 1;

/// A process of some job: its rank, and the job's number (1 for the job
/// pmixrun started, 2, 3, … for the jobs spawned later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Who {
    /// Job number.
    pub job: u32,
    /// Rank in that job.
    pub rank: u32,
}

impl Who {
    /// Rank `rank` of the first job.
    #[cfg(test)]
    pub(crate) fn first(rank: u32) -> Who {
        Who { job: 1, rank }
    }
}

impl std::fmt::Display for Who {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.job == 1 {
            write!(f, "rank {}", self.rank)
        } else {
            write!(f, "rank {} of spawned job {}", self.rank, self.job)
        }
    }
}

/// Why a job ended early or failed; the first one observed decides the
/// exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// A rank exited with a non-zero status.
    Exit { who: Who, pid: u32, code: i32 },
    /// A rank was killed by a signal.
    Signal { who: Who, pid: u32, signal: i32 },
    /// A rank called `PMIx_Abort`.
    Abort {
        who: Who,
        status: i32,
        message: String,
    },
    /// A rank connected to the server and exited (status 0) without
    /// calling finalize.
    NoFinalize { who: Who, pid: u32 },
    /// `--timeout` expired.
    Timeout(Duration),
    /// The program could not be started.
    NoExec { program: String, error: String },
    /// pmixrun itself failed while starting the job.
    Internal(String),
}

impl Failure {
    /// pmixrun's exit status for this failure.
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            Failure::Exit { code, .. } => *code,
            Failure::Signal { signal, .. } => 128 + signal,
            Failure::Abort { status, .. } => (*status).clamp(1, 255),
            Failure::NoFinalize { .. } => 1,
            Failure::Timeout(_) => EXIT_TIMEOUT,
            Failure::NoExec { .. } => EXIT_NOEXEC,
            Failure::Internal(_) => EXIT_INTERNAL,
        }
    }

    /// The job's `PMIX_JOB_TERM_STATUS` when this failure ended it.
    pub(crate) fn term_status(&self) -> Status {
        match self {
            Failure::Exit { .. } => Status::ERR_JOB_NON_ZERO_TERM,
            Failure::Signal { .. } => Status::ERR_JOB_ABORTED_BY_SIG,
            Failure::Abort { .. } => Status::ERR_JOB_ABORTED,
            Failure::NoFinalize { .. } => Status::ERR_JOB_TERM_WO_SYNC,
            Failure::Timeout(_) => Status::ERR_TIMEOUT,
            Failure::NoExec { .. } => Status::ERR_JOB_FAILED_TO_LAUNCH,
            Failure::Internal(_) => Status::ERR_JOB_FAILED_TO_LAUNCH,
        }
    }

    /// The line pmixrun prints on stderr.
    pub(crate) fn message(&self) -> String {
        match self {
            Failure::Exit { who, pid, code } => {
                format!("pmixrun: {who} (pid {pid}) exited with status {code}")
            }
            Failure::Signal { who, pid, signal } => format!(
                "pmixrun: {who} (pid {pid}) was killed by signal {signal}{}",
                signal_name(*signal).map_or(String::new(), |n| format!(" ({n})"))
            ),
            Failure::Abort {
                who,
                status,
                message,
            } => format!("pmixrun: {who} called abort with status {status}: {message}"),
            Failure::NoFinalize { who, pid } => {
                format!("pmixrun: {who} (pid {pid}) exited without calling finalize")
            }
            Failure::Timeout(t) => {
                format!("pmixrun: job timed out after {} s", t.as_secs_f64())
            }
            Failure::NoExec { program, error } => {
                format!("pmixrun: cannot execute {program:?}: {error}")
            }
            Failure::Internal(msg) => format!("pmixrun: {msg}"),
        }
    }
}

/// The usual Linux name of signal `sig`.
fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => return None,
    })
}

/// How a rank ended, from its wait status and what its job's clients told
/// the server.
pub(crate) fn classify(who: Who, pid: u32, status: ExitStatus, ev: &JobEvents) -> Option<Failure> {
    let r = who.rank as usize;
    if let Some(signal) = status.signal() {
        return Some(Failure::Signal { who, pid, signal });
    }
    let code = status.code().unwrap_or(1);
    if code != 0 {
        return Some(Failure::Exit { who, pid, code });
    }
    let connected = ev.connected.get(r).copied().unwrap_or(false);
    let finalized = ev.finalized.get(r).copied().unwrap_or(false);
    (connected && !finalized).then_some(Failure::NoFinalize { who, pid })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(connected: bool, finalized: bool) -> JobEvents {
        JobEvents {
            debug_waiting: Vec::new(),
            connected: vec![connected],
            finalized: vec![finalized],
        }
    }

    #[test]
    fn classification() {
        let w = Who::first(0);
        let ok = ExitStatus::from_raw(0);
        let three = ExitStatus::from_raw(3 << 8);
        let segv = ExitStatus::from_raw(11);
        assert_eq!(classify(w, 9, ok, &ev(false, false)), None);
        assert_eq!(classify(w, 9, ok, &ev(true, true)), None);
        assert_eq!(
            classify(w, 9, ok, &ev(true, false)),
            Some(Failure::NoFinalize { who: w, pid: 9 })
        );
        assert_eq!(
            classify(w, 9, three, &ev(true, false)),
            Some(Failure::Exit {
                who: w,
                pid: 9,
                code: 3
            })
        );
        assert_eq!(
            classify(w, 9, segv, &ev(false, false)),
            Some(Failure::Signal {
                who: w,
                pid: 9,
                signal: 11
            })
        );
    }

    #[test]
    fn exit_codes_and_messages() {
        let abort = |status| Failure::Abort {
            who: Who::first(1),
            status,
            message: "bye".into(),
        };
        assert_eq!(abort(7).exit_code(), 7);
        assert_eq!(abort(0).exit_code(), 1);
        assert_eq!(abort(-5).exit_code(), 1);
        assert_eq!(abort(1000).exit_code(), 255);
        assert_eq!(
            abort(7).message(),
            "pmixrun: rank 1 called abort with status 7: bye"
        );
        let sig = Failure::Signal {
            who: Who::first(2),
            pid: 5,
            signal: 9,
        };
        assert_eq!(sig.exit_code(), 137);
        assert_eq!(
            sig.message(),
            "pmixrun: rank 2 (pid 5) was killed by signal 9 (SIGKILL)"
        );
        assert_eq!(sig.term_status(), Status::ERR_JOB_ABORTED_BY_SIG);
        let t = Failure::Timeout(Duration::from_millis(500));
        assert_eq!(t.exit_code(), 124);
        assert_eq!(t.message(), "pmixrun: job timed out after 0.5 s");
        assert_eq!(
            Failure::NoFinalize {
                who: Who::first(0),
                pid: 1
            }
            .message(),
            "pmixrun: rank 0 (pid 1) exited without calling finalize"
        );
        let spawned = Failure::Exit {
            who: Who { job: 2, rank: 1 },
            pid: 4,
            code: 3,
        };
        assert_eq!(
            spawned.message(),
            "pmixrun: rank 1 of spawned job 2 (pid 4) exited with status 3"
        );
        assert_eq!(spawned.term_status(), Status::ERR_JOB_NON_ZERO_TERM);
    }
}
