//! loom models of the barrier table (`pmix_shm::barrier`): the futex is
//! emulated and timeouts never fire under loom, so a lost wake-up is a
//! deadlock that loom reports; a waiter that returns before every party
//! arrived fails the counter assertion. A party's deadline passing is
//! modelled by calling `time_out` directly.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test barrier
//! ```
#![cfg(loom)]

use std::sync::Arc;
use std::time::Duration;

use loom::thread;
use pmix_shm::barrier::{Barrier, BarrierParams, BarrierTable, BarrierWaitError};
use pmix_shm::sync::{AtomicU32, Ordering};

type Outcome = Result<(), BarrierWaitError>;

fn table(parties: u32) -> BarrierTable {
    let t = BarrierTable::new_heap(&BarrierParams {
        barriers: 1,
        peers: 0,
    });
    t.barrier(0).unwrap().reset(parties);
    t
}

fn never() -> Option<i32> {
    None
}

/// Arrives in `episode` and, unless this completed it, waits for it (no
/// deadline): what a client's fence does.
fn fence(b: &Barrier<'_>, episode: u32) -> Outcome {
    let a = b.arrive(episode)?;
    if a.last {
        Ok(())
    } else {
        b.wait(episode, Duration::ZERO, None, &never)
    }
}

/// One party: bump the counter, fence, and find every party's bump.
fn party(t: &BarrierTable, count: &AtomicU32, parties: u32) {
    let b = t.barrier(0).unwrap();
    // ORDERING: Relaxed — the barrier must publish it.
    count.fetch_add(1, Ordering::Relaxed);
    fence(&b, 1).expect("released");
    // ORDERING: Relaxed — ordered by the barrier (arrival AcqRel chain on
    // the episode word, Acquire load in `outcome`).
    assert_eq!(count.load(Ordering::Relaxed), parties, "passed early");
}

/// Two parties: neither returns before both arrived, and the one that
/// sleeps is always woken.
#[test]
fn two_parties_never_pass_early() {
    loom::model(|| {
        let t = table(2);
        let count = Arc::new(AtomicU32::new(0));
        let (t2, c2) = (t.clone(), count.clone());
        let h = thread::spawn(move || party(&t2, &c2, 2));
        party(&t, &count, 2);
        h.join().unwrap();
        assert_eq!(t.barrier(0).unwrap().outcome(1), Some(Ok(())));
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

/// A sleeper of an episode that never completes is woken by a poison (no
/// lost wake-up), and reports it.
#[test]
fn poison_wakes_a_sleeper() {
    loom::model(|| {
        let t = table(2);
        let t2 = t.clone();
        let waiter = thread::spawn(move || fence(&t2.barrier(0).unwrap(), 1));
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
        let waiter = thread::spawn(move || fence(&t2.barrier(0).unwrap(), 1));
        let t3 = t.clone();
        let poisoner = thread::spawn(move || t3.barrier(0).unwrap().poison(-61));
        let b = t.barrier(0).unwrap();
        let mine = fence(&b, 1);
        let theirs = waiter.join().unwrap();
        assert!(poisoner.join().unwrap());
        for r in [mine, theirs] {
            assert!(
                matches!(r, Ok(()) | Err(BarrierWaitError::Poisoned(-61))),
                "{r:?}"
            );
        }
        assert_eq!(b.status(), -61);
    });
}

/// Two parties; one's deadline passes right after its arrival, racing the
/// other's arrival. Both get the same answer — released (and then the
/// timing-out party's write is visible to the other), or timed out (the
/// other is told it is late) — and nobody is left asleep.
#[test]
fn a_timeout_racing_the_last_arrival_gives_both_one_answer() {
    loom::model(|| {
        let t = table(2);
        let data = Arc::new(AtomicU32::new(0));
        let (t2, d2) = (t.clone(), data.clone());
        let timer = thread::spawn(move || {
            let b = t2.barrier(0).unwrap();
            // ORDERING: Relaxed — published by the barrier when released.
            d2.store(7, Ordering::Relaxed);
            if b.arrive(1).unwrap().last {
                return Ok(());
            }
            b.time_out(1)
        });
        let b = t.barrier(0).unwrap();
        let mine = fence(&b, 1);
        let theirs = timer.join().unwrap();
        match (mine, theirs) {
            (Ok(()), Ok(())) => {
                // ORDERING: Relaxed — ordered by the barrier.
                assert_eq!(data.load(Ordering::Relaxed), 7, "release without the data");
            }
            (Err(BarrierWaitError::Late), Err(BarrierWaitError::Timeout)) => {}
            other => panic!("inconsistent outcomes {other:?}"),
        }
        assert_eq!(b.open_episode().episode, 2);
        assert_eq!(b.open_episode().count, 0);
    });
}

/// Three parties: one sleeps in the episode, one times it out, one arrives
/// (last, or late). The sleeper is always woken and all three agree.
#[test]
fn a_sleeper_gets_the_same_answer_as_the_timeout_and_the_last_arrival() {
    loom::model(|| {
        let t = table(3);
        let t2 = t.clone();
        let sleeper = thread::spawn(move || fence(&t2.barrier(0).unwrap(), 1));
        let t3 = t.clone();
        let timer = thread::spawn(move || {
            let b = t3.barrier(0).unwrap();
            if b.arrive(1).unwrap().last {
                return Ok(());
            }
            b.time_out(1)
        });
        let last = fence(&t.barrier(0).unwrap(), 1);
        let slept = sleeper.join().unwrap();
        let timed = timer.join().unwrap();
        let released = [last, slept, timed].iter().filter(|r| r.is_ok()).count();
        assert!(
            released == 0 || released == 3,
            "{last:?} {slept:?} {timed:?}"
        );
        if released == 0 {
            let timeouts = [last, slept, timed]
                .iter()
                .filter(|r| **r == Err(BarrierWaitError::Timeout))
                .count();
            assert_eq!(timeouts, 1, "{last:?} {slept:?} {timed:?}");
        }
    });
}

/// A late arrival is counted in no episode: after a timeout, both parties'
/// next fence needs both of them (neither passes early) and is released.
#[test]
fn a_late_arrival_is_never_counted_in_the_next_episode() {
    loom::model(|| {
        let t = table(2);
        let count = Arc::new(AtomicU32::new(0));
        let (t2, c2) = (t.clone(), count.clone());
        let timer = thread::spawn(move || {
            let b = t2.barrier(0).unwrap();
            let first = if b.arrive(1).unwrap().last {
                Ok(())
            } else {
                b.time_out(1)
            };
            // ORDERING: Relaxed — published by the barrier.
            c2.fetch_add(1, Ordering::Relaxed);
            fence(&b, 2).expect("episode 2 released");
            // ORDERING: Relaxed — ordered by the barrier.
            assert_eq!(c2.load(Ordering::Relaxed), 2, "passed episode 2 early");
            first
        });
        let b = t.barrier(0).unwrap();
        let first = fence(&b, 1);
        // ORDERING: Relaxed — as above.
        count.fetch_add(1, Ordering::Relaxed);
        fence(&b, 2).expect("episode 2 released");
        // ORDERING: Relaxed — as above.
        assert_eq!(count.load(Ordering::Relaxed), 2, "passed episode 2 early");
        let theirs = timer.join().unwrap();
        assert_eq!(first.is_ok(), theirs.is_ok(), "{first:?} {theirs:?}");
    });
}

/// A party slow to read the outcome of a released episode, while the other
/// party goes on and times out the next one without it, still reads
/// "released" (the timing-out party records it in `released` first).
#[test]
fn a_release_is_remembered_when_the_next_episode_times_out() {
    loom::model(|| {
        let t = table(2);
        let t2 = t.clone();
        let other = thread::spawn(move || {
            let b = t2.barrier(0).unwrap();
            fence(&b, 1).expect("episode 1 released");
            b.arrive(2).unwrap();
            b.time_out(2)
        });
        let b = t.barrier(0).unwrap();
        assert_eq!(fence(&b, 1), Ok(()), "episode 1 was released");
        assert_eq!(other.join().unwrap(), Err(BarrierWaitError::Timeout));
        assert_eq!(b.arrive(2), Err(BarrierWaitError::Late));
    });
}
