//! The gate of each C event-handler registration.
//!
//! With a registration callback, the Rust registration hands over the id
//! before the handler is armed, but the C callback must run on the
//! callback thread: each registration has a gate the handler waits on
//! until that callback returned, so no event reaches a handler before its
//! registration callback (as the standard requires). Deregistration closes
//! the gate for good, so a handler deregistered from its own registration
//! callback never runs and never blocks the progress thread.
//!
//! Every event passes the gate: once it is open (or closed) that costs one
//! atomic load, no lock (issue 18); only a handler that must wait for its
//! registration callback takes the lock and sleeps on the condition.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use pmix_shm::sync::{AtomicU32, Ordering};

use crate::worker::lock;

/// One C registration's gate.
#[derive(Debug, Default)]
pub(super) struct Reg {
    /// [`READY`] and [`RETIRED`]; only set, only under `lock`, so a
    /// waiter that checked them under the lock cannot miss the change.
    flags: AtomicU32,
    lock: Mutex<()>,
    changed: Condvar,
}

/// The registration callback returned (or there was none).
const READY: u32 = 1;
/// Deregistered: the handler must not run any more.
const RETIRED: u32 = 2;

impl Reg {
    pub(super) fn new(ready: bool) -> Arc<Reg> {
        Arc::new(Reg {
            flags: AtomicU32::new(if ready { READY } else { 0 }),
            ..Reg::default()
        })
    }

    pub(super) fn open(&self) {
        self.set(READY);
    }

    pub(super) fn retire(&self) {
        self.set(RETIRED);
    }

    fn set(&self, flag: u32) {
        let _g = lock(&self.lock);
        // ORDERING: Release — publishes what happened before (the
        // registration callback returned) to the handler's Acquire load
        // in `wait_ready`; under the lock, so a waiter that checked the
        // flags under it is woken below.
        self.flags.fetch_or(flag, Ordering::Release);
        self.changed.notify_all();
    }

    /// Which of [`READY`] and [`RETIRED`] is decided, if one is (retiring
    /// wins).
    fn decided(&self) -> Option<bool> {
        // ORDERING: Acquire — pairs with the Release in `set`: a handler
        // that runs sees the registration callback's effects.
        let f = self.flags.load(Ordering::Acquire);
        if f & RETIRED != 0 {
            Some(false)
        } else if f & READY != 0 {
            Some(true)
        } else {
            None
        }
    }

    /// Waits until the handler may run; `false` once it is retired.
    pub(super) fn wait_ready(&self) -> bool {
        if let Some(d) = self.decided() {
            return d;
        }
        let mut g = lock(&self.lock);
        loop {
            if let Some(d) = self.decided() {
                return d;
            }
            g = self.changed.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The live C registrations by id.
pub(super) static REGS: Mutex<BTreeMap<u64, Arc<Reg>>> = Mutex::new(BTreeMap::new());

/// Closes every gate (the last finalize: the progress thread must not stay
/// blocked on a registration callback while it is being stopped).
pub(crate) fn retire_all() {
    let regs = std::mem::take(&mut *lock(&REGS));
    for r in regs.values() {
        r.retire();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_gate_opens_once_and_retiring_wins() {
        let r = Reg::new(false);
        let r2 = Arc::clone(&r);
        let t = std::thread::spawn(move || r2.wait_ready());
        std::thread::sleep(Duration::from_millis(20));
        r.open();
        assert!(t.join().unwrap());
        let r = Reg::new(false);
        let r2 = Arc::clone(&r);
        let t = std::thread::spawn(move || r2.wait_ready());
        r.retire();
        r.open();
        assert!(!t.join().unwrap());
    }

    /// Issue 18: an event passes a decided gate without its lock (which
    /// the progress thread would otherwise take twice per event).
    #[test]
    fn a_decided_gate_is_passed_without_its_lock() {
        use std::sync::mpsc;
        for (r, want) in [(Reg::new(true), true), (Reg::new(true), false)] {
            if !want {
                r.retire();
            }
            let held = lock(&r.lock);
            let (tx, rx) = mpsc::channel();
            let r2 = Arc::clone(&r);
            std::thread::spawn(move || tx.send(r2.wait_ready()));
            let got = rx.recv_timeout(Duration::from_secs(10));
            drop(held);
            assert_eq!(got, Ok(want), "the handler waited for the gate's lock");
        }
    }
}
