//! loom models of the swappable snapshot (`pmix_shm::local::snapshot`): a reader
//! racing writers never holds a value that was dropped (each value clears
//! its `alive` flag in `Drop`), sees the values in store order, and no value
//! leaks (each carries a loom `Arc` token, which loom checks for leaks).
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test snapshot
//! ```
#![cfg(loom)]

use std::sync::Arc;

use loom::thread;
use pmix_shm::local::snapshot::SnapshotCell;
use pmix_shm::sync::{AtomicBool, Ordering};

/// A stored value: knows whether it was dropped.
struct Val {
    id: u32,
    alive: AtomicBool,
    /// Leak detector: loom fails the model if this is never dropped.
    _token: loom::sync::Arc<()>,
}

impl Val {
    fn new(id: u32) -> Arc<Val> {
        Arc::new(Val {
            id,
            alive: AtomicBool::new(true),
            _token: loom::sync::Arc::new(()),
        })
    }

    /// Asserts the value was not dropped and returns its id.
    fn check(&self) -> u32 {
        // ORDERING: Relaxed — on purpose: if the cell let a writer drop the
        // value while we hold it, that drop's store is not ordered after
        // this load, and loom explores the executions where the load reads
        // `false`.
        assert!(self.alive.load(Ordering::Relaxed), "use after free");
        self.id
    }
}

impl Drop for Val {
    fn drop(&mut self) {
        // ORDERING: Relaxed — see `check`.
        assert!(self.alive.swap(false, Ordering::Relaxed), "double drop");
    }
}

/// A reader loads twice while a writer stores twice: every loaded value is
/// alive, the ids never go backwards, and nothing leaks.
#[test]
fn reader_never_sees_a_dropped_value() {
    loom::model(|| {
        let cell = Arc::new(SnapshotCell::new(Val::new(0)));
        let c2 = cell.clone();
        let reader = thread::spawn(move || {
            let a = c2.load();
            let ia = a.check();
            let b = c2.load();
            let ib = b.check();
            assert!(ia <= ib, "went backwards: {ia} then {ib}");
            // A value held across the writer's stores stays alive.
            a.check();
        });
        cell.store(Val::new(1));
        cell.store(Val::new(2));
        reader.join().unwrap();
        assert_eq!(cell.load().check(), 2);
    });
}

/// Two readers (both hazard slots in use under loom) and a writer.
#[test]
fn two_readers_and_a_writer() {
    loom::model(|| {
        let cell = Arc::new(SnapshotCell::new(Val::new(0)));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let c = cell.clone();
                thread::spawn(move || {
                    let v = c.load();
                    assert!(v.check() <= 1);
                })
            })
            .collect();
        cell.store(Val::new(1));
        for r in readers {
            r.join().unwrap();
        }
    });
}

/// Two writers (`update` and `store`) are serialised: the update's
/// closure sees whole values, and the final value is one of the two
/// orders.
#[test]
fn update_and_store_are_serialised() {
    loom::model(|| {
        let cell = Arc::new(SnapshotCell::new(Val::new(1)));
        let c2 = cell.clone();
        let updater = thread::spawn(move || {
            let new = c2
                .update(|old| {
                    Ok::<_, ()>(Val {
                        id: old.check() * 10,
                        alive: AtomicBool::new(true),
                        _token: loom::sync::Arc::new(()),
                    })
                })
                .unwrap();
            new.check()
        });
        cell.store(Val::new(2));
        let made = updater.join().unwrap();
        let last = cell.load().check();
        assert!(
            (made == 10 && last == 2) || (made == 20 && last == 20),
            "made {made}, last {last}"
        );
    });
}

/// A reader that keeps its snapshot and refreshes it (`refresh`, the event
/// progress thread's use) while a writer stores twice: the kept value is
/// alive after every refresh, ids never go backwards, and after the
/// writer is joined a refresh gives the last value.
#[test]
fn a_kept_snapshot_refreshes_to_the_current_value() {
    loom::model(|| {
        let cell = Arc::new(SnapshotCell::new(Val::new(0)));
        let c2 = cell.clone();
        let writer = thread::spawn(move || {
            c2.store(Val::new(1));
            c2.store(Val::new(2));
        });
        let mut kept = cell.load();
        let mut last = kept.check();
        for _ in 0..2 {
            cell.refresh(&mut kept);
            let now = kept.check();
            assert!(last <= now, "went backwards: {last} then {now}");
            last = now;
        }
        writer.join().unwrap();
        cell.refresh(&mut kept);
        assert_eq!(kept.check(), 2, "a refresh after the store missed it");
    });
}
