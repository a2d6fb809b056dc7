//! loom models of the barrier table (`pmix_shm::barrier`): the futex is
//! emulated and timeouts never fire under loom, so a lost wake-up is a
//! deadlock that loom reports; a waiter that returns before every party
//! arrived fails the counter assertion.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test barrier
//! ```
#![cfg(loom)]

use std::sync::Arc;
use std::time::Duration;

use loom::thread;
use pmix_shm::barrier::{BarrierParams, BarrierTable, BarrierWaitError};
use pmix_shm::sync::{AtomicU32, Ordering};

fn table(parties: u32) -> BarrierTable {
    let t = BarrierTable::new_heap(&BarrierParams {
        barriers: 1,
        peers: 0,
    });
    t.barrier(0).unwrap().reset(parties);
    t
}

/// One party: bump the counter, arrive (the last one releases), wait, and
/// find every party's bump.
fn party(t: &BarrierTable, count: &AtomicU32, parties: u32) {
    let b = t.barrier(0).unwrap();
    // ORDERING: Relaxed — the barrier must publish it.
    count.fetch_add(1, Ordering::Relaxed);
    let a = b.arrive(true);
    assert_eq!(a.generation, 1);
    b.wait(a.generation, Duration::ZERO, None)
        .expect("released, not poisoned");
    // ORDERING: Relaxed — ordered by the barrier (arrive AcqRel chain,
    // release/wait Release/Acquire).
    assert_eq!(count.load(Ordering::Relaxed), parties, "passed early");
}

/// Two parties with auto-release: neither returns before both arrived,
/// and the one that sleeps is always woken.
#[test]
fn two_parties_never_pass_early() {
    loom::model(|| {
        let t = table(2);
        let count = Arc::new(AtomicU32::new(0));
        let (t2, c2) = (t.clone(), count.clone());
        let h = thread::spawn(move || party(&t2, &c2, 2));
        party(&t, &count, 2);
        h.join().unwrap();
        assert!(t.barrier(0).unwrap().is_released(1));
    });
}

/// Three parties (two threads and this one).
#[test]
fn three_parties_never_pass_early() {
    loom::model(|| {
        let t = table(3);
        let count = Arc::new(AtomicU32::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let (t2, c2) = (t.clone(), count.clone());
                thread::spawn(move || party(&t2, &c2, 3))
            })
            .collect();
        party(&t, &count, 3);
        for h in hs {
            h.join().unwrap();
        }
    });
}

/// A releaser that is not a party (the server after the host's allgather):
/// it releases once it has seen the arrival; the waiter sees the party's
/// writes and is never left asleep.
#[test]
fn an_owner_release_wakes_the_waiter() {
    loom::model(|| {
        let t = table(1);
        let data = Arc::new(AtomicU32::new(0));
        let (t2, d2) = (t.clone(), data.clone());
        let owner = thread::spawn(move || {
            let b = t2.barrier(0).unwrap();
            while b.arrived() < 1 {
                thread::yield_now();
            }
            b.release(1);
            // ORDERING: Relaxed — only read by this test's final assert.
            d2.load(Ordering::Relaxed)
        });
        let b = t.barrier(0).unwrap();
        // ORDERING: Relaxed — published by the barrier.
        data.store(7, Ordering::Relaxed);
        let a = b.arrive(false);
        assert!(a.last);
        b.wait(1, Duration::ZERO, None).unwrap();
        assert_eq!(
            owner.join().unwrap(),
            7,
            "the releaser saw the arrival's write"
        );
    });
}

/// A sleeper of a generation that never completes is woken by a poison
/// (no lost wake-up), and reports it.
#[test]
fn poison_wakes_a_sleeper() {
    loom::model(|| {
        let t = table(2);
        let t2 = t.clone();
        let waiter = thread::spawn(move || {
            let b = t2.barrier(0).unwrap();
            let a = b.arrive(true);
            b.wait(a.generation, Duration::ZERO, None)
        });
        assert!(t.barrier(0).unwrap().poison(-24));
        assert_eq!(waiter.join().unwrap(), Err(BarrierWaitError::Poisoned(-24)));
    });
}

/// Poison races the last arrival's release: the first party's wait ends
/// either released or poisoned, never stuck; the status is sticky.
#[test]
fn poison_races_release() {
    loom::model(|| {
        let t = table(2);
        let t2 = t.clone();
        let waiter = thread::spawn(move || {
            let b = t2.barrier(0).unwrap();
            let a = b.arrive(true);
            b.wait(a.generation, Duration::ZERO, None)
        });
        let t3 = t.clone();
        let poisoner = thread::spawn(move || t3.barrier(0).unwrap().poison(-61));
        let b = t.barrier(0).unwrap();
        let a = b.arrive(true);
        let mine = b.wait(a.generation, Duration::ZERO, None);
        let theirs = waiter.join().unwrap();
        assert!(poisoner.join().unwrap());
        for r in [mine, theirs] {
            assert!(
                matches!(r, Ok(()) | Err(BarrierWaitError::Poisoned(-61))),
                "{r:?}"
            );
        }
        assert_eq!(b.status(), -61);
        assert!(b.is_released(1));
    });
}
