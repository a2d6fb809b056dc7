//! The gate of each C event-handler registration.
//!
//! With a registration callback, the Rust registration hands over the id
//! before the handler is armed, but the C callback must run on the
//! callback thread: each registration has a gate the handler waits on
//! until that callback returned, so no event reaches a handler before its
//! registration callback (as the standard requires). Deregistration closes
//! the gate for good, so a handler deregistered from its own registration
//! callback never runs and never blocks the progress thread.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::worker::lock;

/// One C registration's gate.
#[derive(Debug, Default)]
pub(super) struct Reg {
    state: Mutex<RegState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct RegState {
    /// The registration callback returned (or there was none).
    ready: bool,
    /// Deregistered: the handler must not run any more.
    retired: bool,
}

impl Reg {
    pub(super) fn new(ready: bool) -> Arc<Reg> {
        let r = Arc::new(Reg::default());
        lock(&r.state).ready = ready;
        r
    }

    pub(super) fn open(&self) {
        lock(&self.state).ready = true;
        self.changed.notify_all();
    }

    pub(super) fn retire(&self) {
        lock(&self.state).retired = true;
        self.changed.notify_all();
    }

    /// Waits until the handler may run; `false` once it is retired.
    pub(super) fn wait_ready(&self) -> bool {
        let mut st = lock(&self.state);
        loop {
            if st.retired {
                return false;
            }
            if st.ready {
                return true;
            }
            st = self
                .changed
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
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
}
