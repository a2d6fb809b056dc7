//! loom models of the MPSC ring (`pmix_shm::ring`): producers are threads,
//! the ring is built on the heap with a capacity of 4 cells.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 \
//!     cargo test -p pmix-loom-tests --release --test ring
//! ```
#![cfg(loom)]

use loom::thread;
use pmix_shm::ring::{Consumer, Ring, RingParams};
use pmix_shm::ring::{TryPopError, TryPushError};

/// A payload naming its producer and sequence, `len` bytes long, with a
/// pattern that shows a torn copy.
fn payload(id: u8, seq: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| match i {
            0 => id,
            1 => seq,
            _ => id.wrapping_mul(16).wrapping_add(seq).wrapping_add(i as u8),
        })
        .collect()
}

/// Pushes, yielding while the ring is full.
fn push(ring: &Ring, id: u8, seq: u8, len: usize) {
    let p = payload(id, seq, len);
    loop {
        match ring.try_push(u16::from(id), &p) {
            Ok(()) => return,
            Err(TryPushError::Full) => thread::yield_now(),
            Err(e) => panic!("push failed: {e}"),
        }
    }
}

/// Pops `n` records, yielding while empty; checks each payload is intact.
fn pop_n(c: &mut Consumer, n: usize) -> Vec<(u8, u8)> {
    let mut got = Vec::new();
    while got.len() < n {
        match c.try_pop(|kind, p| {
            assert!(p.len() >= 2);
            let (id, seq) = (p[0], p[1]);
            assert_eq!(u16::from(id), kind);
            assert_eq!(p, payload(id, seq, p.len()).as_slice(), "torn payload");
            (id, seq)
        }) {
            Ok(x) => got.push(x),
            Err(TryPopError::Empty) => thread::yield_now(),
        }
    }
    got
}

/// Per-producer FIFO, no loss, no duplicate.
fn assert_fifo(got: &[(u8, u8)], per_producer: &[u8]) {
    for (id, &count) in per_producer.iter().enumerate() {
        let seqs: Vec<u8> = got
            .iter()
            .filter(|(i, _)| usize::from(*i) == id)
            .map(|&(_, s)| s)
            .collect();
        assert_eq!(seqs, (0..count).collect::<Vec<_>>(), "producer {id}");
    }
    assert_eq!(
        got.len(),
        per_producer.iter().map(|&c| usize::from(c)).sum::<usize>()
    );
}

/// Two producers, one consumer, starting one cell before the end of the
/// lap: a two-cell record needs a padding record, and the ring (4 cells)
/// fills up, so producers see `Full` and wait for the consumer.
#[test]
fn two_producers_across_wrap_around_keep_fifo_without_loss() {
    loom::model(|| {
        let ring = Ring::new_heap_at(RingParams::new(4).unwrap(), 3);
        let mut c = ring.consumer().unwrap();
        let r0 = ring.clone();
        let p0 = thread::spawn(move || {
            push(&r0, 0, 0, 8); // 1 cell
            push(&r0, 0, 1, 8);
        });
        let r1 = ring.clone();
        let p1 = thread::spawn(move || {
            push(&r1, 1, 0, 60); // 2 cells: padded when it lands on the last cell
        });
        let got = pop_n(&mut c, 3);
        p0.join().unwrap();
        p1.join().unwrap();
        assert_fifo(&got, &[2, 1]);
        assert_eq!(c.try_pop(|_, _| ()), Err(TryPopError::Empty));
        assert_eq!(ring.lost(), 0);
        assert_eq!(ring.corrupt(), 0);
    });
}

/// Five one-cell records through a four-cell ring: at least one push finds
/// the ring full and must wait for the consumer to release space.
#[test]
fn full_ring_applies_back_pressure_without_loss() {
    loom::model(|| {
        let ring = Ring::new_heap_at(RingParams::new(4).unwrap(), 2);
        let mut c = ring.consumer().unwrap();
        // Pre-fill two cells from the model thread.
        push(&ring, 2, 0, 4);
        push(&ring, 2, 1, 4);
        let r0 = ring.clone();
        let p0 = thread::spawn(move || {
            push(&r0, 0, 0, 4);
            push(&r0, 0, 1, 4);
        });
        let r1 = ring.clone();
        let p1 = thread::spawn(move || push(&r1, 1, 0, 4));
        let got = pop_n(&mut c, 5);
        p0.join().unwrap();
        p1.join().unwrap();
        assert_fifo(&got, &[2, 1, 2]);
        assert_eq!(ring.used_cells(), 0);
    });
}

/// Three producers, one record each.
#[test]
fn three_producers_one_record_each_all_arrive_intact() {
    loom::model(|| {
        let ring = Ring::new_heap(RingParams::new(4).unwrap());
        let mut c = ring.consumer().unwrap();
        let handles: Vec<_> = (0..3u8)
            .map(|id| {
                let r = ring.clone();
                thread::spawn(move || push(&r, id, 0, 12))
            })
            .collect();
        let got = pop_n(&mut c, 3);
        for h in handles {
            h.join().unwrap();
        }
        assert_fifo(&got, &[1, 1, 1]);
    });
}

/// A producer that stalls between reserve and commit while the consumer
/// gives it up: either the commit wins and the record is delivered once, or
/// the producer is told `Abandoned`, its cells stay held until it
/// acknowledges, and nothing races on the payload (loom checks the cells).
#[test]
fn abandoned_producer_never_races_the_consumer() {
    loom::model(|| {
        let ring = Ring::new_heap_at(RingParams::new(4).unwrap(), 3);
        let mut c = ring.consumer().unwrap();
        let res = ring.reserve_for_test(60).unwrap(); // 2 cells after a padding
        let p = thread::spawn(move || res.commit(1, &payload(1, 0, 60)));
        let first = c.try_pop(|_, p| p.to_vec()).ok();
        let abandoned = first.is_none() && c.abandon_stalled_now(false);
        let outcome = p.join().unwrap();
        let later = c.try_pop(|_, p| p.to_vec()).ok();
        match outcome {
            Ok(()) => {
                assert!(!abandoned);
                let got = first.or(later).expect("committed record delivered");
                assert_eq!(got, payload(1, 0, 60));
                assert_eq!(ring.lost(), 0);
            }
            Err(TryPushError::Abandoned) => {
                assert!(abandoned);
                assert!(first.is_none() && later.is_none());
                assert_eq!(ring.lost(), 1);
                assert_eq!(c.open_holes(), 0, "acked hole released");
            }
            Err(e) => panic!("unexpected {e}"),
        }
        assert_eq!(ring.used_cells(), 0);
        // The ring still works.
        push(&ring, 0, 0, 8);
        assert_eq!(pop_n(&mut c, 1), vec![(0, 0)]);
    });
}

/// A consumer walking over what looks like an anonymous reservation (tail
/// moved, no claim word yet) races the producer's claim CAS: exactly one of
/// them wins, and the loser touches nothing.
#[test]
fn anonymous_walk_and_late_claim_agree_on_one_owner() {
    loom::model(|| {
        let ring = Ring::new_heap(RingParams::new(4).unwrap());
        let mut c = ring.consumer().unwrap();
        let r = ring.clone();
        let p = thread::spawn(move || r.try_push(1, &payload(1, 0, 60)));
        let walked = c.abandon_stalled_now(false);
        let outcome = p.join().unwrap();
        let got = c.try_pop(|_, p| p.to_vec()).ok();
        match outcome {
            Ok(()) => {
                assert!(!walked);
                assert_eq!(got, Some(payload(1, 0, 60)));
                assert_eq!(ring.lost(), 0);
            }
            Err(TryPushError::Abandoned) => {
                assert!(walked);
                assert_eq!(got, None);
                assert_eq!(ring.lost(), 1);
            }
            Err(e) => panic!("unexpected {e}"),
        }
        assert_eq!(ring.used_cells(), 0);
    });
}
