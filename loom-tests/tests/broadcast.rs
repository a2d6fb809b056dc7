//! loom models of the broadcast ring (the event cache): a reader racing the
//! writer on a 1- or 2-cell ring never accepts a torn cell, and the events
//! it reads plus the ones it is told it missed account for every write.
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p pmix-loom-tests --release --test broadcast
//! ```
#![cfg(loom)]

use loom::thread;
use pmix_shm::broadcast::{BroadcastParams, BroadcastReader, BroadcastWriter, ReadError};

/// Event `i`: two words that both name it, so a copy mixing two events (or
/// reporting the wrong index) is caught.
fn payload(i: u64) -> Vec<u8> {
    let mut p = (i + 1).to_le_bytes().to_vec();
    p.extend_from_slice(&(!(i + 1)).to_le_bytes());
    p
}

/// What a reader saw: events delivered, events reported missed, and the
/// index it expects next (checked on every step).
#[derive(Default)]
struct Tally {
    delivered: u64,
    missed: u64,
    expected: u64,
}

impl Tally {
    /// One `read_next`; false when it reported `Empty`.
    fn step(&mut self, r: &mut BroadcastReader) -> bool {
        match r.read_next() {
            Ok(e) => {
                assert_eq!(e.index, self.expected, "indices are consecutive");
                assert_eq!(e.payload, payload(e.index), "torn cell accepted");
                self.delivered += 1;
                self.expected += 1;
                true
            }
            Err(ReadError::Lapped { missed }) => {
                assert!(missed > 0);
                self.missed += missed;
                self.expected += missed;
                assert_eq!(r.cursor(), self.expected);
                true
            }
            Err(ReadError::Empty) => false,
            Err(ReadError::Corrupt { index }) => panic!("corrupt event {index}"),
        }
    }
}

fn ring(cells: u32) -> BroadcastWriter {
    BroadcastWriter::new_heap(&BroadcastParams {
        cell_count: cells,
        payload_size: 16,
    })
}

#[test]
fn lapped_reader_never_accepts_a_torn_cell_and_counts_what_it_missed() {
    loom::model(|| {
        let mut w = ring(2);
        let mut r = w.reader();
        let reader = thread::spawn(move || {
            let mut t = Tally::default();
            for _ in 0..2 {
                t.step(&mut r);
            }
            (r, t)
        });
        for i in 0..3 {
            w.write(&payload(i)).unwrap();
        }
        let (mut r, mut t) = reader.join().unwrap();
        while t.step(&mut r) {}
        assert_eq!(
            t.delivered + t.missed,
            3,
            "every event read or reported missed"
        );
        assert_eq!(r.cursor(), 3);
        // Only events older than the ring can be missed.
        assert!(t.missed <= 1);
    });
}

#[test]
fn copy_overwritten_mid_read_is_rejected() {
    loom::model(|| {
        let mut w = ring(1);
        w.write(&payload(0)).unwrap();
        let mut r = w.reader();
        let writer = thread::spawn(move || {
            w.write(&payload(1)).unwrap();
            w
        });
        let mut t = Tally::default();
        t.step(&mut r);
        t.step(&mut r);
        let _w = writer.join().unwrap();
        while t.step(&mut r) {}
        assert_eq!(t.delivered + t.missed, 2);
        assert!(t.delivered >= 1, "the last event is always readable");
    });
}

#[test]
fn reader_racing_four_writes_into_two_cells_stays_consistent() {
    loom::model(|| {
        let mut w = ring(2);
        let mut r = w.reader();
        let reader = thread::spawn(move || {
            let mut t = Tally::default();
            for _ in 0..3 {
                t.step(&mut r);
            }
            (r, t)
        });
        for i in 0..4 {
            w.write(&payload(i)).unwrap();
        }
        let (mut r, mut t) = reader.join().unwrap();
        while t.step(&mut r) {}
        assert_eq!(t.delivered + t.missed, 4);
        assert!(t.delivered >= 2, "the last two events are always readable");
    });
}
