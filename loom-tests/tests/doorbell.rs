//! loom models of the futex doorbell (`pmix_shm::doorbell`): the futex is
//! emulated and timeouts never fire under loom, so a lost wake-up is a
//! deadlock that loom reports.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test doorbell
//! ```
#![cfg(loom)]

use std::sync::Arc;
use std::time::Duration;

use loom::thread;
use pmix_shm::doorbell::Doorbell;
use pmix_shm::ring::{Ring, RingParams};
use pmix_shm::sync::{AtomicU32, Ordering};

/// The consumer goes to sleep on an empty ring while a producer pushes:
/// it always gets the record (a lost wake-up would leave it asleep forever,
/// which loom reports as a deadlock).
#[test]
fn sleeping_consumer_always_sees_the_pushed_record() {
    loom::model(|| {
        let ring = Ring::new_heap(RingParams::new(4).unwrap());
        let mut c = ring.consumer().unwrap();
        c.set_spin(Duration::ZERO);
        let r = ring.clone();
        let p = thread::spawn(move || r.try_push(5, b"event").unwrap());
        let got = c
            .pop_timeout(Duration::from_secs(3600), |k, p| (k, p.to_vec()))
            .expect("the record, not a timeout");
        assert_eq!(got, (5, b"event".to_vec()));
        p.join().unwrap();
    });
}

/// Two records from two producers, the consumer sleeping between them.
#[test]
fn consumer_sleeping_twice_is_woken_twice() {
    loom::model(|| {
        let ring = Ring::new_heap(RingParams::new(4).unwrap());
        let mut c = ring.consumer().unwrap();
        c.set_spin(Duration::ZERO);
        let hs: Vec<_> = (0..2u16)
            .map(|i| {
                let r = ring.clone();
                thread::spawn(move || r.try_push(i, &[i as u8]).unwrap())
            })
            .collect();
        let mut kinds = Vec::new();
        for _ in 0..2 {
            kinds.push(
                c.pop_timeout(Duration::from_secs(3600), |k, _| k)
                    .expect("a record, not a timeout"),
            );
        }
        kinds.sort_unstable();
        assert_eq!(kinds, vec![0, 1]);
        for h in hs {
            h.join().unwrap();
        }
    });
}

/// The bare protocol: announce, re-check, sleep vs publish, ring.
#[test]
fn waiter_never_misses_a_ring() {
    loom::model(|| {
        let bell = Arc::new(Doorbell::new());
        let data = Arc::new(AtomicU32::new(0));
        let (b, d) = (bell.clone(), data.clone());
        let ringer = thread::spawn(move || {
            d.store(1, Ordering::Release);
            b.ring();
        });
        assert!(bell.wait_until(|| data.load(Ordering::Acquire) == 1, Duration::ZERO, None));
        ringer.join().unwrap();
    });
}

/// Two waiters on one word (as producers waiting for ring space): one ring
/// wakes both; neither erases the other's announcement.
#[test]
fn two_waiters_are_both_woken_by_one_ring() {
    loom::model(|| {
        let bell = Arc::new(Doorbell::new());
        let data = Arc::new(AtomicU32::new(0));
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let (b, d) = (bell.clone(), data.clone());
                thread::spawn(move || {
                    assert!(b.wait_until(|| d.load(Ordering::Acquire) == 1, Duration::ZERO, None));
                })
            })
            .collect();
        data.store(1, Ordering::Release);
        bell.ring();
        for w in waiters {
            w.join().unwrap();
        }
    });
}
