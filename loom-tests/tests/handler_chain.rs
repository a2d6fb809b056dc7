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
use pmix_shm::local::gate::HandlerGate;
use pmix_shm::local::handoff::Handoff;
use pmix_shm::local::snapshot::SnapshotCell;
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

/// The completion of one call of entry 2.
type Done = loom::sync::Arc<u32>;

/// One event: walk a snapshot of the chain and call every entry through its
/// gate. Entry 1 asserts it is not deregistered yet. Entry 2 completes on
/// another thread (`async_completion`) or inside its call; returns how many
/// times its completion continued (inline or from the completer's post).
fn dispatch(
    chain: &SnapshotCell<Vec<Arc<Entry>>>,
    deregistered: &AtomicBool,
    async_completion: bool,
) -> u32 {
    let mut continued = 0;
    let snapshot = chain.load();
    for e in snapshot.iter() {
        if !e.gate.enter() {
            continue;
        }
        if e.id == 1 {
            // ORDERING: Relaxed — see the deregisterer.
            assert!(!deregistered.load(Ordering::Relaxed), "call after retire");
            e.gate.exit();
            continue;
        }
        // Entry 2's handler starts an operation, then returns.
        let h = Arc::new(Handoff::<Done>::new());
        let completer = if async_completion {
            let h2 = h.clone();
            Some(thread::spawn(move || h2.complete(loom::sync::Arc::new(5))))
        } else {
            assert!(h.complete(loom::sync::Arc::new(5)).is_none());
            None
        };
        e.gate.exit();
        if let Some(v) = h.after_call() {
            assert_eq!(*v, 5);
            continued += 1; // inline
        }
        // The completer's post, which this thread drains later.
        if let Some(v) = completer.and_then(|c| c.join().unwrap()) {
            assert_eq!(*v, 5);
            continued += 1;
        }
    }
    continued
}

/// Two events (the first with an asynchronous completion) race the
/// deregistration of entry 1.
#[test]
fn deregistration_and_async_completion_race_dispatch() {
    loom::model(|| {
        let (one, two) = (entry(1), entry(2));
        let chain = Arc::new(SnapshotCell::new(Arc::new(vec![one.clone(), two])));
        let deregistered = Arc::new(AtomicBool::new(false));
        let retired = one.clone();

        let (c2, d2) = (chain.clone(), deregistered.clone());
        let deregisterer = thread::spawn(move || {
            c2.update(|v| Ok::<_, ()>(v.iter().filter(|e| e.id != 1).cloned().collect()))
                .unwrap();
            one.gate.retire(true);
            // ORDERING: Relaxed — the gate orders it after every call of
            // entry 1 (see `pmix_shm::local::gate`).
            d2.store(true, Ordering::Relaxed);
        });

        // The dispatcher (this thread).
        assert_eq!(dispatch(&chain, &deregistered, true), 1, "continued once");
        assert_eq!(dispatch(&chain, &deregistered, false), 1, "continued once");
        deregisterer.join().unwrap();
        let ids: Vec<u32> = chain.load().iter().map(|e| e.id).collect();
        assert_eq!(ids, [2]);
        assert!(retired.gate.is_retired() && !retired.gate.enter());
    });
}
