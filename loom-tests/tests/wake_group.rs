//! loom models of the wake group (`pmix_shm::wake_group`,
//! `pmix_shm::ring::WakeBatch`): ring consumers sleeping on one shared
//! futex word, each on its own bit, woken by a fan-out's single group
//! wake. The futex (with its bitsets) is emulated and timeouts never fire
//! under loom, so a lost wake-up is a deadlock that loom reports.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test wake_group
//! ```
#![cfg(loom)]

use std::time::Duration;

use loom::thread;
use pmix_shm::ring::{Consumer, Ring, RingParams, WakeBatch};
use pmix_shm::wake_group::WakeGroup;

/// A consumer thread: sleeps in the group on `bit` until its ring has a
/// record, then returns the record's kind.
fn sleeping_consumer(ring: Ring, mut c: Consumer, bit: u32) -> thread::JoinHandle<u16> {
    thread::spawn(move || {
        c.set_spin(Duration::ZERO);
        assert!(ring.consumer_wait_until(bit, || c.is_ready(), Duration::ZERO, None));
        c.try_pop(|k, _| k).expect("a record after the wake-up")
    })
}

fn group_ring(group: &WakeGroup) -> Ring {
    Ring::new_heap(RingParams::new(4).unwrap()).with_wake_group(group.clone())
}

/// A fan-out to two sleeping consumers with different bits: quiet pushes,
/// then one batch. Both get their record (no lost wake-up), whatever the
/// interleaving with their announce / re-check / sleep.
#[test]
fn fan_out_wakes_every_group_sleeper() {
    loom::model(|| {
        let group = WakeGroup::new_heap();
        let rings = [group_ring(&group), group_ring(&group)];
        let consumers: Vec<_> = rings
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let c = r.consumer().unwrap();
                sleeping_consumer(r.clone(), c, WakeGroup::bit_for(i as u32))
            })
            .collect();
        for (i, r) in rings.iter().enumerate() {
            r.try_push_quiet(i as u16, b"ev").unwrap();
        }
        let mut batch = WakeBatch::new();
        for r in &rings {
            batch.add(r);
        }
        assert!(
            batch.finish() <= 1,
            "at most one wake-up call for the group"
        );
        for (i, h) in consumers.into_iter().enumerate() {
            assert_eq!(h.join().unwrap(), i as u16);
        }
    });
}

/// Two consumers whose bits alias (same bit): the wake for one may wake
/// the other, which finds nothing and must sleep again — and is still
/// woken by its own record's wake later.
#[test]
fn aliased_bits_sleep_again_and_are_woken_later() {
    loom::model(|| {
        let group = WakeGroup::new_heap();
        let rings = [group_ring(&group), group_ring(&group)];
        let bit = WakeGroup::bit_for(0);
        let consumers: Vec<_> = rings
            .iter()
            .map(|r| sleeping_consumer(r.clone(), r.consumer().unwrap(), bit))
            .collect();
        // one producer per ring, each waking through its push
        let producers: Vec<_> = rings
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let r = r.clone();
                thread::spawn(move || r.try_push(i as u16, b"x").unwrap())
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        for (i, h) in consumers.into_iter().enumerate() {
            assert_eq!(h.join().unwrap(), i as u16);
        }
    });
}

/// A consumer sleeping in the group while two producers push into its
/// ring (each waking it with `try_push`): it sees both records.
#[test]
fn group_sleeper_woken_twice() {
    loom::model(|| {
        let group = WakeGroup::new_heap();
        let ring = group_ring(&group);
        let mut c = ring.consumer().unwrap();
        c.set_spin(Duration::ZERO);
        let hs: Vec<_> = (0..2u16)
            .map(|i| {
                let r = ring.clone();
                thread::spawn(move || r.try_push(i, &[i as u8]).unwrap())
            })
            .collect();
        let bit = WakeGroup::bit_for(5);
        let mut kinds = Vec::new();
        while kinds.len() < 2 {
            assert!(ring.consumer_wait_until(bit, || c.is_ready(), Duration::ZERO, None));
            while let Ok(k) = c.try_pop(|k, _| k) {
                kinds.push(k);
            }
        }
        kinds.sort_unstable();
        assert_eq!(kinds, vec![0, 1]);
        for h in hs {
            h.join().unwrap();
        }
    });
}
