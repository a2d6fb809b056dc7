//! The library-owned thread that runs C callbacks (rule T3).
//!
//! A callback is never called inside the API call that was given it: it is
//! queued here and run, in order, by one thread of the library
//! (`pmix-capi-cb`), as OpenPMIx runs them on its progress thread. Like
//! there, a callback that blocks until another queued callback ran would
//! wait forever; the callbacks Open MPI passes only record a result and
//! wake a waiter. Get/fence completions do not come through here: the
//! Rust client already calls them on a thread of its own per operation.

use std::collections::VecDeque;
use std::os::raw::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

type Job = Box<dyn FnOnce() + Send>;

/// Jobs waiting for the thread.
static QUEUE: Mutex<VecDeque<Job>> = Mutex::new(VecDeque::new());
/// Signalled when a job is queued.
static READY: Condvar = Condvar::new();
/// Whether the thread runs (`false`: it could not be started).
static STARTED: OnceLock<bool> = OnceLock::new();

/// Locks `m`, ignoring poisoning (a panic inside a callback job is caught
/// before it can poison anything, but the C side must never see a panic).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `job` on the callback thread, after every job queued before it.
/// If the thread cannot be started the job runs here: a callback is late
/// rather than lost.
pub(crate) fn defer(job: impl FnOnce() + Send + 'static) {
    let started = *STARTED.get_or_init(|| {
        std::thread::Builder::new()
            .name("pmix-capi-cb".into())
            .spawn(run)
            .is_ok()
    });
    if !started {
        job();
        return;
    }
    lock(&QUEUE).push_back(Box::new(job));
    READY.notify_one();
}

fn run() {
    loop {
        let job = {
            let mut q = lock(&QUEUE);
            loop {
                if let Some(j) = q.pop_front() {
                    break j;
                }
                q = READY.wait(q).unwrap_or_else(PoisonError::into_inner);
            }
        };
        // A panic in our own glue must not kill the thread that every later
        // callback needs; C code cannot unwind.
        let _ = catch_unwind(AssertUnwindSafe(job));
    }
}

/// A caller's opaque `void *cbdata` (or another pointer the library hands
/// back to C without reading it), movable to the callback thread.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CPtr(*mut c_void);

// SAFETY: the library never dereferences the pointer; it only passes it
// back to the C code that supplied it, which made it valid for use from
// the library's threads (the PMIx API lets callbacks run on any thread).
unsafe impl Send for CPtr {}

impl CPtr {
    pub(crate) fn new(p: *mut c_void) -> CPtr {
        CPtr(p)
    }

    /// The pointer (a method, so closures capture the whole `Send` value).
    pub(crate) fn get(self) -> *mut c_void {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn deferred_jobs_run_in_order_on_another_thread() {
        let (tx, rx) = mpsc::channel();
        let me = std::thread::current().id();
        for i in 0..5 {
            let tx = tx.clone();
            defer(move || {
                tx.send((i, std::thread::current().id())).unwrap();
            });
        }
        for i in 0..5 {
            let (j, id) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_eq!(i, j);
            assert_ne!(id, me);
        }
    }

    #[test]
    fn a_panicking_job_does_not_stop_the_thread() {
        defer(|| panic!("job panics"));
        let (tx, rx) = mpsc::channel();
        defer(move || tx.send(()).unwrap());
        rx.recv_timeout(Duration::from_secs(10)).unwrap();
    }
}
