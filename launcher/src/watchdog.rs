//! The watchdog: a helper `sh` in pmixrun's own process group that cleans
//! up when pmixrun dies without doing so itself (Ctrl-C, SIGTERM,
//! SIGKILL: pmixrun cannot catch signals without `unsafe`).
//!
//! It ignores those signals and reads a pipe only pmixrun holds: a line
//! with each job's process group (written once the job's first process
//! runs: the first job's, then one per spawned job), then end-of-file,
//! which comes when pmixrun is gone. Then it sends SIGTERM to every
//! process group it was told, removes the server's socket and its
//! directory, sends SIGKILL 2 s later, and removes pmixrun's session
//! directory if its device and inode are still the ones pmixrun created
//! (`stat -c %d:%i`; `rm -rf` follows no symbolic link), and the tools'
//! rendezvous files the server wrote, each only while its first line is
//! still the server's URI. When pmixrun ends
//! normally it removes everything itself and kills the watchdog
//! ([`Watchdog::dismiss`]). Best effort: no watchdog when `sh` is missing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// A started watchdog.
#[derive(Debug)]
pub(crate) struct Watchdog {
    child: Child,
    pipe: ChildStdin,
}

impl Watchdog {
    /// `$1`: the server's socket; `$2`: the session directory; `$3` its
    /// `<dev>:<ino>`; `$4` the server's URI; the rest: its rendezvous
    /// files. No group line (pmixrun died before rank 0 ran) skips the
    /// signals.
    const SCRIPT: &'static str = "trap '' INT TERM HUP QUIT; \
         gs=; while read -r g; do gs=\"$gs $g\"; done; \
         for g in $gs; do kill -TERM \"-$g\" 2>/dev/null; done; \
         rm -f \"$1\"; rmdir \"${1%/*}\" 2>/dev/null; \
         [ -n \"$gs\" ] && sleep 2 && for g in $gs; do kill -KILL \"-$g\" 2>/dev/null; done; \
         [ \"$(stat -c %d:%i -- \"$2\" 2>/dev/null)\" = \"$3\" ] && rm -rf -- \"$2\"; \
         u=\"$4\"; shift 4; for f in \"$@\"; do \
         [ \"$(head -n 1 -- \"$f\" 2>/dev/null)\" = \"$u\" ] && rm -f -- \"$f\"; done";

    /// Starts a watchdog for the server's `socket`, the session
    /// directory `session` of identity `identity` (`<dev>:<ino>`), and the
    /// rendezvous files `(uri, files)`.
    pub(crate) fn start(
        socket: &Path,
        session: &Path,
        identity: &str,
        (uri, files): (&str, &[PathBuf]),
    ) -> Option<Watchdog> {
        let mut child = Command::new("sh")
            .args(["-c", Self::SCRIPT, "pmixrun-watchdog"])
            .arg(socket)
            .arg(session)
            .arg(identity)
            .arg(uri)
            .args(files)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let pipe = child.stdin.take()?;
        Some(Watchdog { child, pipe })
    }

    /// Tells the watchdog a job's process group (once per job).
    pub(crate) fn watch_group(&mut self, pgid: u32) {
        let _ = writeln!(self.pipe, "{pgid}");
        let _ = self.pipe.flush();
    }

    /// pmixrun cleaned up itself: the watchdog is not needed any more.
    pub(crate) fn dismiss(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
