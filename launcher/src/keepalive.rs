//! `PMIX_KEEPALIVE_PIPE` (indirect launch): a tool that starts pmixrun
//! may hand it the read end of a pipe whose write end the tool keeps
//! open, naming its descriptor in `PMIX_KEEPALIVE_PIPE`. When the pipe
//! reports its end (every write end closed: the tool exited or died),
//! pmixrun terminates the job, as a launcher must not outlive the tool
//! that owns it.

use std::io::Read;
use std::sync::Arc;

use crate::host::Events;

/// The environment variable naming the descriptor.
pub(crate) const KEEPALIVE_PIPE: &str = "PMIX_KEEPALIVE_PIPE";

/// Starts watching the pipe `PMIX_KEEPALIVE_PIPE` names, if any; its end
/// sets `keepalive_lost` in `events`.
///
/// # Errors
/// A message when the variable is set but names no readable descriptor.
pub(crate) fn watch(events: &Arc<Events>) -> Result<(), String> {
    let Ok(v) = std::env::var(KEEPALIVE_PIPE) else {
        return Ok(());
    };
    let fd: u32 = v
        .trim()
        .parse()
        .map_err(|_| format!("{KEEPALIVE_PIPE}={v:?} is not a file descriptor"))?;
    // A new descriptor on the same pipe (no unsafe `from_raw_fd`).
    let mut pipe = std::fs::File::open(format!("/proc/self/fd/{fd}"))
        .map_err(|e| format!("{KEEPALIVE_PIPE}={fd}: {e}"))?;
    let events = Arc::clone(events);
    std::thread::Builder::new()
        .name("pmixrun-keepalive".into())
        .spawn(move || {
            let mut buf = [0u8; 64];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            events.set_keepalive_lost();
        })
        .map(|_| ())
        .map_err(|e| format!("keepalive thread: {e}"))
}
