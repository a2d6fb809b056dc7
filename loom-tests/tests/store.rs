//! loom models of job-data publication: a reader racing publications sees
//! the old or the new table whole, and a buffer a reader holds is never
//! rewritten (loom's cell tracking would flag the write).
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p pmix-loom-tests --release --test store
//! ```
#![cfg(loom)]

use loom::thread;
use pmix_shm::store::{PinError, PublishError, StoreParams, StoreWriter, TableBuilder};

/// Version `g`: two entries that both carry `g`.
fn table(g: u8) -> TableBuilder {
    let mut t = TableBuilder::new();
    t.insert("ns", 0, "a", vec![g; 3]);
    t.insert("ns", 1, "b", vec![g; 5]);
    t
}

fn store(buffers: u32) -> StoreWriter {
    StoreWriter::new_heap(&StoreParams {
        buffer_count: buffers,
        buffer_size: 256,
        reader_slots: 1,
    })
}

#[test]
fn reader_sees_old_or_new_table_whole_and_its_buffer_is_not_reused() {
    loom::model(|| {
        let mut w = store(2);
        w.try_publish(table(1)).unwrap();
        let r = w.reader().unwrap();
        let reader = thread::spawn(move || {
            let t = r.pin().unwrap();
            let g = t.generation() as u8;
            assert!((1..=3).contains(&g), "generation {g}");
            assert_eq!(t.get("ns", 0, "a"), Some(&[g; 3][..]), "mixed versions");
            assert_eq!(t.get("ns", 1, "b"), Some(&[g; 5][..]), "mixed versions");
        });
        // Buffer 1 is free: generation 2 always publishes.
        assert_eq!(w.try_publish(table(2)).unwrap(), 2);
        // Generation 3 needs buffer 0 back: refused while the reader may
        // hold it, and if not refused, loom checks no read overlaps.
        match w.try_publish(table(3)) {
            Ok(g) => assert_eq!(g, 3),
            Err(PublishError::BuffersPinned { .. }) => {}
            Err(e) => panic!("unexpected {e:?}"),
        }
        reader.join().unwrap();
    });
}

#[test]
fn reader_racing_the_first_publication_sees_nothing_or_all() {
    loom::model(|| {
        let mut w = store(2);
        let r = w.reader().unwrap();
        let reader = thread::spawn(move || match r.pin() {
            Ok(t) => {
                assert_eq!(t.generation(), 1);
                assert_eq!(t.get("ns", 0, "a"), Some(&[1; 3][..]));
                assert_eq!(t.get("ns", 1, "b"), Some(&[1; 5][..]));
            }
            Err(e) => assert_eq!(e, PinError::NotPublished),
        });
        w.try_publish(table(1)).unwrap();
        reader.join().unwrap();
    });
}

#[test]
fn successive_pins_never_go_back_while_three_buffers_rotate() {
    loom::model(|| {
        let mut w = store(3);
        w.try_publish(table(1)).unwrap();
        let r = w.reader().unwrap();
        let reader = thread::spawn(move || {
            let mut last = 0;
            for _ in 0..2 {
                let t = r.pin().unwrap();
                let g = t.generation() as u8;
                assert!(g >= last, "generation went back");
                assert_eq!(t.get("ns", 0, "a"), Some(&[g; 3][..]));
                assert_eq!(t.get("ns", 1, "b"), Some(&[g; 5][..]));
                last = g;
            }
        });
        for g in 2..=4 {
            match w.try_publish(table(g)) {
                Ok(published) => assert_eq!(published, u64::from(g)),
                // Only possible while the reader pins the one spare buffer.
                Err(PublishError::BuffersPinned { .. }) => break,
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
        reader.join().unwrap();
    });
}

#[test]
fn two_readers_in_two_slots_both_block_reuse_of_what_they_hold() {
    loom::model(|| {
        let mut w = StoreWriter::new_heap(&StoreParams {
            buffer_count: 2,
            buffer_size: 256,
            reader_slots: 2,
        });
        w.try_publish(table(1)).unwrap();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let r = w.reader().unwrap();
                thread::spawn(move || {
                    let t = r.pin().unwrap();
                    let g = t.generation() as u8;
                    assert_eq!(t.get("ns", 0, "a"), Some(&[g; 3][..]), "mixed versions");
                    assert_eq!(t.get("ns", 1, "b"), Some(&[g; 5][..]), "mixed versions");
                })
            })
            .collect();
        for g in 2..=3 {
            match w.try_publish(table(g)) {
                Ok(published) => assert_eq!(published, u64::from(g)),
                Err(PublishError::BuffersPinned { .. }) => break,
                Err(e) => panic!("unexpected {e:?}"),
            }
        }
        for h in readers {
            h.join().unwrap();
        }
    });
}
