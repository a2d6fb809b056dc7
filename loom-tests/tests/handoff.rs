//! loom models of the completion handoff (`pmix_shm::local::handoff`): exactly
//! one of the completer and the dispatcher ends up with the value, the
//! value is whole when the dispatcher takes it, and loom's cell tracking
//! finds no conflicting access and its leak check no lost value.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test handoff
//! ```
#![cfg(loom)]

use std::sync::Arc;

use loom::thread;
use pmix_shm::local::handoff::{AlreadyCompleted, Handoff};
use pmix_shm::sync::{AtomicU32, Ordering};

/// The completed value: a loom `Arc` (leak-checked) carrying a number.
type Done = loom::sync::Arc<u32>;

/// Completer thread against the dispatcher's `after_call`.
#[test]
fn exactly_one_side_gets_the_value() {
    loom::model(|| {
        let h = Arc::new(Handoff::<Done>::new());
        let got = Arc::new(AtomicU32::new(0));
        let (h2, g2) = (h.clone(), got.clone());
        let completer = thread::spawn(move || {
            if let Some(v) = h2.complete(loom::sync::Arc::new(42)) {
                assert_eq!(*v, 42);
                // ORDERING: Relaxed — read after join.
                g2.fetch_add(1, Ordering::Relaxed);
            }
        });
        if let Some(v) = h.after_call() {
            assert_eq!(*v, 42, "torn value");
            // ORDERING: Relaxed — read after join.
            got.fetch_add(1, Ordering::Relaxed);
        }
        completer.join().unwrap();
        // ORDERING: Relaxed — after join.
        assert_eq!(got.load(Ordering::Relaxed), 1);
    });
}

/// Two completers (a caller bug) against the dispatcher: the second
/// completion is refused with its value, one value is delivered exactly
/// once, and no access to the cell conflicts.
#[test]
fn second_completion_is_refused() {
    loom::model(|| {
        let h = Arc::new(Handoff::<Done>::new());
        let delivered = Arc::new(AtomicU32::new(0));
        let refused = Arc::new(AtomicU32::new(0));
        let completers: Vec<_> = (0..2u32)
            .map(|i| {
                let (h2, d2, r2) = (h.clone(), delivered.clone(), refused.clone());
                thread::spawn(move || match h2.try_complete(loom::sync::Arc::new(i)) {
                    Ok(None) => {}
                    Ok(Some(_posted)) => {
                        // ORDERING: Relaxed — read after join.
                        d2.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(AlreadyCompleted(_)) => {
                        // ORDERING: Relaxed — read after join.
                        r2.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        if h.after_call().is_some() {
            // ORDERING: Relaxed — read after join.
            delivered.fetch_add(1, Ordering::Relaxed);
        }
        for c in completers {
            c.join().unwrap();
        }
        // ORDERING: Relaxed — after join.
        assert_eq!(delivered.load(Ordering::Relaxed), 1);
        assert_eq!(refused.load(Ordering::Relaxed), 1);
    });
}

/// Reuse by a pooling dispatcher (`client/src/event/pools.rs`): after an
/// inline completion the dispatcher resets the handoff only when it holds
/// the only reference (`get_mut`), then runs a second round on it. The
/// completer's last access to the cell must be ordered before the reset
/// (loom's cell tracking checks it), and each round delivers its value
/// exactly once.
#[test]
fn a_handoff_held_alone_is_reset_and_reused() {
    loom::model(|| {
        let mut h = loom::sync::Arc::new(Handoff::<Done>::new());
        let h1 = h.clone();
        let first = thread::spawn(move || {
            let posted = h1.complete(loom::sync::Arc::new(1)).is_some();
            drop(h1);
            posted
        });
        let inline = h.after_call();
        if inline.is_some() {
            if let Some(fresh) = loom::sync::Arc::get_mut(&mut h) {
                fresh.reset();
                let h2 = h.clone();
                let second = thread::spawn(move || h2.complete(loom::sync::Arc::new(2)).is_some());
                let got = h.after_call();
                let posted = second.join().unwrap();
                assert!(got.is_some() != posted, "round 2 delivered once");
                if let Some(v) = got {
                    assert_eq!(*v, 2, "a value of round 1 leaked into round 2");
                }
            }
        }
        let posted = first.join().unwrap();
        assert!(inline.is_some() != posted, "round 1 delivered once");
    });
}
