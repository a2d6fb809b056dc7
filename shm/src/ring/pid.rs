//! Process ids: this process's (cached; refreshed in a forked child), and
//! whether another one is gone.

#[cfg(not(loom))]
use crate::sync::{AtomicU32, Ordering};
#[cfg(not(loom))]
use std::sync::Once;

#[cfg(not(loom))]
static CACHED: AtomicU32 = AtomicU32::new(0);
#[cfg(not(loom))]
static HOOK: Once = Once::new();

#[cfg(not(loom))]
extern "C" fn forget_in_child() {
    // ORDERING: Relaxed — the child is single-threaded at this point.
    CACHED.store(0, Ordering::Relaxed);
}

/// `getpid()` without a syscall on the hot path (glibc no longer
/// caches it). A `pthread_atfork` child hook forgets the cached value.
#[cfg(not(loom))]
pub(super) fn current() -> u32 {
    // ORDERING: Relaxed — the value is the same for every thread of the
    // process; a race only makes two threads both call getpid().
    let p = CACHED.load(Ordering::Relaxed);
    if p != 0 {
        return p;
    }
    HOOK.call_once(|| {
        // SAFETY: registers a plain function with no captured state as
        // the fork child handler; it only does an atomic store.
        unsafe {
            libc::pthread_atfork(None, None, Some(forget_in_child));
        }
    });
    // SAFETY: getpid has no preconditions.
    let p = unsafe { libc::getpid() } as u32;
    // ORDERING: Relaxed — see above.
    CACHED.store(p, Ordering::Relaxed);
    p
}

/// Whether process `pid` is gone: `kill(pid, 0)` answers `ESRCH`, or
/// `/proc/<pid>/stat` shows a zombie (a killed child its parent has not
/// reaped yet still answers `kill`). A pid that is not a positive
/// `i32` is never called dead (its record waits for the deadline).
#[cfg(not(loom))]
pub(super) fn is_dead(pid: u32) -> bool {
    let Ok(p) = i32::try_from(pid) else {
        return false;
    };
    if p <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; kill only checks that the process
    // exists and may be signalled.
    let r = unsafe { libc::kill(p, 0) };
    if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return true;
    }
    match std::fs::read(format!("/proc/{p}/stat")) {
        Ok(stat) => {
            // "pid (comm) S ...": the state follows the last ')'.
            let Some(close) = stat.iter().rposition(|&b| b == b')') else {
                return false;
            };
            matches!(stat.get(close + 2), Some(b'Z') | Some(b'X'))
        }
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// Under loom: the real pid, uncached (every model runs in this process).
#[cfg(loom)]
pub(super) fn current() -> u32 {
    std::process::id()
}
