//! loom model of the client's event-handler dispatch, built from the three
//! primitives: the handler chain is a `SnapshotCell<Vec<Arc<Entry>>>`, each
//! entry has a `HandlerGate`, and an asynchronous completion comes back
//! through a `Handoff`.
//!
//! The dispatcher walks a snapshot of the chain and calls each entry through
//! its gate. Meanwhile a deregistering thread publishes a chain without
//! entry 1, retires entry 1's gate with `retire(true)` and then sets
//! `deregistered`: a call of entry 1 asserts `!deregistered`. Entry 2's
//! handler starts an asynchronous operation whose completion (a third
//! thread) races the dispatcher's `after_call`: exactly one side continues.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test handler_chain
//! ```
#![cfg(loom)]

use std::sync::Arc;

use loom::thread;
use pmix_shm::gate::HandlerGate;
use pmix_shm::handoff::Handoff;
use pmix_shm::snapshot::SnapshotCell;
use pmix_shm::sync::{AtomicBool, Ordering};

/// A registered handler.
struct Entry {
    id: u32,
    gate: HandlerGate,
}

fn entry(id: u32) -> Arc<Entry> {
    let e = Arc::new(Entry {
        id,
        gate: HandlerGate::new(),
    });
    assert!(e.gate.arm());
    e
}

#[test]
fn deregistration_and_async_completion_race_dispatch() {
    loom::model(|| {
        let (one, two) = (entry(1), entry(2));
        let chain = Arc::new(SnapshotCell::new(Arc::new(vec![one.clone(), two])));
        let deregistered = Arc::new(AtomicBool::new(false));

        let (c2, d2) = (chain.clone(), deregistered.clone());
        let deregisterer = thread::spawn(move || {
            c2.update(|v| Ok::<_, ()>(v.iter().filter(|e| e.id != 1).cloned().collect()))
                .unwrap();
            // NB: let go of the cell before the last loom operations: if
            // the model fails, loom tears the threads down, and a cell
            // whose last owner is a cancelled loom thread would be dropped
            // outside the execution (that ends in SIGABRT, not in the
            // assertion's message).
            drop(c2);
            one.gate.retire(true);
            // ORDERING: Relaxed — the gate orders it after every call of
            // entry 1 (see `pmix_shm::gate`).
            d2.store(true, Ordering::Relaxed);
        });

        // The dispatcher (this thread).
        let mut continued = 0;
        let snapshot = chain.load();
        for e in snapshot.iter() {
            if !e.gate.enter() {
                continue;
            }
            match e.id {
                1 => {
                    // ORDERING: Relaxed — see the deregisterer.
                    assert!(!deregistered.load(Ordering::Relaxed), "call after retire");
                    e.gate.exit();
                }
                _ => {
                    // The handler starts an operation that completes on
                    // another thread, then returns.
                    let h = Arc::new(Handoff::<loom::sync::Arc<u32>>::new());
                    let h2 = h.clone();
                    let completer =
                        thread::spawn(move || h2.complete(loom::sync::Arc::new(5)));
                    e.gate.exit();
                    if let Some(v) = h.after_call() {
                        assert_eq!(*v, 5);
                        continued += 1; // inline
                    }
                    // The completer's post, drained by this thread later.
                    if let Some(v) = completer.join().unwrap() {
                        assert_eq!(*v, 5);
                        continued += 1;
                    }
                }
            }
        }
        assert_eq!(continued, 1, "the completion continued once");
        deregisterer.join().unwrap();
        let ids: Vec<u32> = chain.load().iter().map(|e| e.id).collect();
        assert_eq!(ids, [2]);
        assert!(snapshot.iter().all(|e| e.id != 1 || !e.gate.enter()));
    });
}
