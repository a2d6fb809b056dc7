//! loom models of the handler gate (`pmix_shm::local::gate`): after
//! `retire(true)` returns no call is in progress and none starts (a call
//! asserts the flag the retirer sets afterwards is clear); arming publishes
//! the handler's set-up; arming races retiring.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test gate
//! ```
#![cfg(loom)]

use std::sync::Arc;

use loom::thread;
use pmix_shm::local::gate::HandlerGate;
use pmix_shm::sync::{AtomicBool, AtomicU32, Ordering};

/// The dispatcher's two calls through the gate; each call checks that the
/// retirer has not finished. Returns how many calls went through.
fn dispatch_twice(gate: &HandlerGate, retired: &AtomicBool) -> u32 {
    let mut calls = 0;
    for _ in 0..2 {
        if gate.enter() {
            // ORDERING: Relaxed — the gate must order it: this load
            // happens-before `exit`, which happens-before `retire(true)`
            // returns and the flag is set.
            assert!(!retired.load(Ordering::Relaxed), "call after retire");
            calls += 1;
            gate.exit();
        }
    }
    calls
}

/// Dispatcher `enter`/`exit` against `retire(true)`.
#[test]
fn no_call_after_retire_returns() {
    loom::model(|| {
        let gate = Arc::new(HandlerGate::new());
        assert!(gate.arm());
        let retired = Arc::new(AtomicBool::new(false));
        let (g, r) = (gate.clone(), retired.clone());
        let dispatcher = thread::spawn(move || dispatch_twice(&g, &r));
        gate.retire(true);
        // ORDERING: Relaxed — see `dispatch_twice`.
        retired.store(true, Ordering::Relaxed);
        let calls = dispatcher.join().unwrap();
        assert!(calls <= 2);
        assert!(!gate.enter(), "enter after retire");
        assert!(gate.is_retired() && !gate.is_armed());
    });
}

/// `arm` against `retire(true)` with a dispatcher calling: a call only
/// happens while armed and before the retirer finishes, and sees the
/// handler's set-up that `arm` published.
#[test]
fn arm_races_retire() {
    loom::model(|| {
        let gate = Arc::new(HandlerGate::new());
        let setup = Arc::new(AtomicU32::new(0));
        let retired = Arc::new(AtomicBool::new(false));
        let (g, s) = (gate.clone(), setup.clone());
        let armer = thread::spawn(move || {
            // ORDERING: Relaxed — published by `arm`'s Release.
            s.store(7, Ordering::Relaxed);
            g.arm()
        });
        let (g, s, r) = (gate.clone(), setup.clone(), retired.clone());
        let dispatcher = thread::spawn(move || {
            if g.enter() {
                // ORDERING: Relaxed — `enter`'s Acquire pairs with `arm`.
                assert_eq!(s.load(Ordering::Relaxed), 7, "set-up not visible");
                // ORDERING: Relaxed — see `dispatch_twice`.
                assert!(!r.load(Ordering::Relaxed), "call after retire");
                g.exit();
                true
            } else {
                false
            }
        });
        gate.retire(true);
        // ORDERING: Relaxed — see `dispatch_twice`.
        retired.store(true, Ordering::Relaxed);
        let armed = armer.join().unwrap();
        let called = dispatcher.join().unwrap();
        assert!(!called || armed, "called without being armed");
        assert!(!gate.arm() && !gate.enter());
    });
}

/// A handler that deregisters itself from inside its call
/// (`retire(false)` on the dispatcher thread), racing a second
/// deregistration that waits.
#[test]
fn self_retire_inside_the_call() {
    loom::model(|| {
        let gate = Arc::new(HandlerGate::new());
        gate.arm();
        let retired = Arc::new(AtomicBool::new(false));
        let (g, r) = (gate.clone(), retired.clone());
        let dispatcher = thread::spawn(move || {
            if g.enter() {
                // ORDERING: Relaxed — see `dispatch_twice`.
                assert!(!r.load(Ordering::Relaxed), "call after retire");
                g.retire(false);
                g.exit();
            }
            assert!(!g.enter());
        });
        gate.retire(true);
        // ORDERING: Relaxed — see `dispatch_twice`.
        retired.store(true, Ordering::Relaxed);
        dispatcher.join().unwrap();
    });
}
