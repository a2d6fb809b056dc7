//! Behaviour of the broadcast ring (the event cache) through its public API,
//! plus corruption injected at the byte offsets of docs/SHM-LAYOUT-STORE.md.
#![cfg(not(loom))]

mod common;
use common::Region;

use std::ptr::NonNull;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use pmix_shm::broadcast::{
    BroadcastAttachError, BroadcastInitError, BroadcastParams, BroadcastReader, BroadcastWriter,
    Event, PayloadTooLarge, ReadError, Snapshot, BROADCAST_MAGIC,
};
use pmix_shm::sync::{AtomicBool, Ordering};

/// Offsets from the layout document.
const HEAD: usize = 64;
const CELLS: usize = 128;
const CELL_SEQ: usize = 0;
const CELL_LEN: usize = 8;
const CELL_PAYLOAD: usize = 16;

fn params(cell_count: u32, payload_size: u32) -> BroadcastParams {
    BroadcastParams {
        cell_count,
        payload_size,
    }
}

/// A writer in a test region, and the region for poking at bytes.
fn writer_in_region(p: &BroadcastParams) -> (BroadcastWriter, Arc<Region>) {
    let region = Region::new(BroadcastWriter::memory_size(p));
    // SAFETY: the region is valid for its length and kept alive by the owner.
    let w = unsafe { BroadcastWriter::init_in_owned(region.ptr, region.len(), p, region.clone()) }
        .unwrap();
    (w, region)
}

fn attach(region: &Arc<Region>, len: usize) -> Result<BroadcastReader, BroadcastAttachError> {
    // SAFETY: the region is valid for `len <= region.len()` bytes and kept alive.
    unsafe { BroadcastReader::attach_owned(region.ptr, len, region.clone()) }
}

#[test]
fn read_next_returns_events_in_order_then_empty() {
    let mut w = BroadcastWriter::new_heap(&params(4, 64));
    let mut r = w.reader();
    assert_eq!(r.read_next(), Err(ReadError::Empty));
    for i in 0..3u8 {
        assert_eq!(w.write(&vec![i; usize::from(i) * 9]).unwrap(), u64::from(i));
    }
    for i in 0..3u8 {
        let ev = r.read_next().unwrap();
        assert_eq!(ev.index, u64::from(i));
        assert_eq!(ev.payload, vec![i; usize::from(i) * 9]);
    }
    assert_eq!(r.read_next(), Err(ReadError::Empty));
    assert_eq!(r.cursor(), 3);
}

#[test]
fn lapped_reader_reports_missed_events_and_resumes_at_oldest() {
    let mut w = BroadcastWriter::new_heap(&params(4, 16));
    let mut r = w.reader();
    for i in 0..10u64 {
        w.write(&i.to_le_bytes()).unwrap();
    }
    assert_eq!(r.read_next(), Err(ReadError::Lapped { missed: 6 }));
    for i in 6..10u64 {
        let ev = r.read_next().unwrap();
        assert_eq!((ev.index, ev.payload), (i, i.to_le_bytes().to_vec()));
    }
    assert_eq!(r.read_next(), Err(ReadError::Empty));
}

#[test]
fn payload_larger_than_a_cell_is_refused_without_writing() {
    let mut w = BroadcastWriter::new_heap(&params(2, 48));
    assert_eq!(w.payload_capacity(), 48);
    assert_eq!(w.write(&[7; 49]), Err(PayloadTooLarge { len: 49, max: 48 }));
    assert_eq!(w.written(), 0);
    assert_eq!(w.write(&[7; 48]).unwrap(), 0);
    assert_eq!(w.reader().read_next().unwrap().payload, vec![7; 48]);
}

#[test]
fn empty_payload_round_trips() {
    let mut w = BroadcastWriter::new_heap(&params(2, 8));
    let mut r = w.reader();
    w.write(&[]).unwrap();
    assert_eq!(
        r.read_next().unwrap(),
        Event {
            index: 0,
            payload: vec![]
        }
    );
}

#[test]
fn snapshot_returns_cached_events_without_moving_the_cursor() {
    let mut w = BroadcastWriter::new_heap(&params(3, 8));
    let r = w.reader();
    assert_eq!(r.snapshot(), Snapshot::default());
    for i in 0..5u8 {
        w.write(&[i]).unwrap();
    }
    let snap = r.snapshot();
    let indices: Vec<u64> = snap.events.iter().map(|e| e.index).collect();
    assert_eq!(indices, [2, 3, 4]);
    assert_eq!(snap.events[0].payload, [2]);
    assert_eq!((snap.missed, snap.next), (0, 5));
    assert_eq!(r.cursor(), 0);
    let mut late = r.clone();
    late.seek(snap.next);
    assert_eq!(late.read_next(), Err(ReadError::Empty));
    w.write(&[5]).unwrap();
    assert_eq!(late.read_next().unwrap().index, 5);
}

#[test]
fn default_cache_keeps_the_last_512_events() {
    let mut w = BroadcastWriter::new_heap(&BroadcastParams::default());
    for i in 0..2000u32 {
        w.write(&i.to_le_bytes()).unwrap();
    }
    let snap = w.reader().snapshot();
    assert_eq!(snap.events.len(), 512);
    assert_eq!(snap.events[0].index, 2000 - 512);
    assert_eq!(snap.events[511].payload, 1999u32.to_le_bytes());
}

#[test]
fn seek_latest_skips_existing_events() {
    let mut w = BroadcastWriter::new_heap(&params(8, 8));
    w.write(b"old").unwrap();
    let mut r = w.reader();
    r.seek_latest();
    assert_eq!(r.read_next(), Err(ReadError::Empty));
    w.write(b"new").unwrap();
    assert_eq!(r.read_next().unwrap().payload, b"new");
}

#[test]
fn torn_cell_of_a_dead_writer_is_never_accepted() {
    let p = params(2, 16);
    let (mut w, region) = writer_in_region(&p);
    let mut r = attach(&region, region.len()).unwrap();
    w.write(b"zero").unwrap();
    // A writer that died half-way through event 1 (cell 1, stride 64):
    // odd sequence word, part of a new payload.
    region
        .u64_at(CELLS + 64 + CELL_SEQ)
        .store(3, Ordering::Relaxed);
    region
        .u64_at(CELLS + 64 + CELL_PAYLOAD)
        .store(0xdead, Ordering::Relaxed);
    assert_eq!(r.read_next().unwrap().payload, b"zero");
    assert_eq!(r.read_next(), Err(ReadError::Empty));
    assert!(r.snapshot().events.iter().all(|e| e.index == 0));
}

#[test]
fn corrupt_length_is_reported_and_skipped() {
    let (mut w, region) = writer_in_region(&params(2, 16));
    let mut r = attach(&region, region.len()).unwrap();
    w.write(b"x").unwrap();
    w.write(b"y").unwrap();
    region
        .u32_at(CELLS + CELL_LEN)
        .store(u32::MAX, Ordering::Relaxed);
    assert_eq!(r.read_next(), Err(ReadError::Corrupt { index: 0 }));
    assert_eq!(r.read_next().unwrap().payload, b"y");
}

#[test]
fn garbage_sequence_words_and_head_never_panic() {
    let (mut w, region) = writer_in_region(&params(2, 16));
    let r = attach(&region, region.len()).unwrap();
    w.write(b"a").unwrap();
    for bad in [u64::MAX, u64::MAX - 1, 3, 1 << 63, 2] {
        region
            .u64_at(CELLS + CELL_SEQ)
            .store(bad, Ordering::Relaxed);
        region.u64_at(HEAD).store(bad, Ordering::Relaxed);
        let mut rr = r.clone();
        let _ = rr.read_next();
        let _ = rr.read_next();
        let _ = rr.snapshot();
        rr.seek_oldest();
        let _ = rr.read_next();
        rr.seek(u64::MAX);
        let _ = rr.read_next();
    }
}

#[test]
fn init_in_refuses_bad_params_short_and_misaligned_regions() {
    let region = Region::new(4096);
    for p in [params(0, 8), params(1 << 21, 8), params(2, (1 << 20) + 1)] {
        // SAFETY: the region is valid, aligned and outlives the result.
        let e = unsafe { BroadcastWriter::init_in(region.ptr, region.len(), &p) };
        assert!(matches!(e, Err(BroadcastInitError::InvalidParams { .. })));
    }
    // SAFETY: as above.
    let e = unsafe { BroadcastWriter::init_in(region.ptr, 64, &params(2, 8)) };
    assert_eq!(
        e.unwrap_err(),
        BroadcastInitError::RegionTooSmall {
            needed: 256,
            len: 64
        }
    );
    // SAFETY: one byte in keeps 4095 valid bytes.
    let base = unsafe { NonNull::new_unchecked(region.ptr.as_ptr().add(1)) };
    // SAFETY: as above.
    let e = unsafe { BroadcastWriter::init_in(base, 1024, &params(2, 8)) };
    assert_eq!(e.unwrap_err(), BroadcastInitError::Misaligned);
}

#[test]
fn attach_refuses_unready_garbage_and_short_headers() {
    let p = params(4, 32);
    let size = BroadcastWriter::memory_size(&p);
    assert_eq!(size, 128 + 4 * 64);
    let region = Region::new(size);
    let count = |len| attach(&region, len).map(|r| r.cell_count());
    assert_eq!(count(size).unwrap_err(), BroadcastAttachError::NotReady);
    let (_w, region) = {
        // SAFETY: the region is valid and kept alive by the owner.
        let w = unsafe { BroadcastWriter::init_in_owned(region.ptr, size, &p, region.clone()) }
            .unwrap();
        (w, region)
    };
    let count = |len| attach(&region, len).map(|r| r.cell_count());
    assert_eq!(count(size), Ok(4));
    assert_eq!(region.u64_at(0).load(Ordering::Relaxed), BROADCAST_MAGIC);
    assert_eq!(
        count(size - 1).unwrap_err(),
        BroadcastAttachError::RegionTooSmall {
            needed: size,
            len: size - 1
        }
    );
    assert!(matches!(
        count(10),
        Err(BroadcastAttachError::RegionTooSmall { .. })
    ));
    // cell_count (offset 12) = 0, then absurd.
    for bad in [0, u32::MAX] {
        region.u32_at(12).store(bad, Ordering::Relaxed);
        assert_eq!(count(size).unwrap_err(), BroadcastAttachError::BadGeometry);
    }
    region.u32_at(12).store(4, Ordering::Relaxed);
    // cell_stride (offset 20) inconsistent with payload_size (offset 16).
    region.u32_at(20).store(128, Ordering::Relaxed);
    assert_eq!(count(size).unwrap_err(), BroadcastAttachError::BadGeometry);
    region.u32_at(20).store(64, Ordering::Relaxed);
    region.u32_at(16).store(40, Ordering::Relaxed);
    assert_eq!(count(size).unwrap_err(), BroadcastAttachError::BadGeometry);
    region.u32_at(16).store(48, Ordering::Relaxed);
    // cells_offset (offset 24).
    region.u32_at(24).store(64, Ordering::Relaxed);
    assert_eq!(count(size).unwrap_err(), BroadcastAttachError::BadGeometry);
    region.u32_at(24).store(128, Ordering::Relaxed);
    assert_eq!(count(size), Ok(4));
    region.u32_at(8).store(9, Ordering::Relaxed);
    assert_eq!(
        count(size).unwrap_err(),
        BroadcastAttachError::VersionMismatch { found: 9 }
    );
    region.u64_at(0).store(1, Ordering::Relaxed);
    assert_eq!(
        count(size).unwrap_err(),
        BroadcastAttachError::BadMagic { found: 1 }
    );
    // SAFETY: one byte in: misaligned but in bounds.
    let base = unsafe { NonNull::new_unchecked(region.ptr.as_ptr().add(1)) };
    // SAFETY: valid for size - 1 bytes.
    let e = unsafe { BroadcastReader::attach(base, size - 1) };
    assert_eq!(e.unwrap_err(), BroadcastAttachError::Misaligned);
}

#[test]
fn attached_reader_reads_what_the_writer_wrote() {
    let (mut w, region) = writer_in_region(&params(4, 32));
    let mut r = attach(&region, region.len()).unwrap();
    w.write(b"hello").unwrap();
    assert_eq!(r.read_next().unwrap().payload, b"hello");
    assert_eq!(r.written(), 1);
    assert_eq!(region.u64_at(HEAD).load(Ordering::Relaxed), 1);
    // Event 0 complete: seq = 2 * 0 + 2.
    assert_eq!(region.u64_at(CELLS + CELL_SEQ).load(Ordering::Relaxed), 2);
    assert_eq!(region.u32_at(CELLS + CELL_LEN).load(Ordering::Relaxed), 5);
}

/// Event `i`: 8 bytes of index, a body derived from it, a checksum byte.
fn event_payload(i: u64) -> Vec<u8> {
    let body = (i % 50) as usize;
    let mut p = i.to_le_bytes().to_vec();
    p.extend((0..body).map(|k| (i as u8).wrapping_mul(31).wrapping_add(k as u8)));
    let sum = p.iter().fold(0u8, |a, b| a.wrapping_add(*b));
    p.push(sum);
    p
}

fn check_payload(index: u64, payload: &[u8]) {
    assert_eq!(payload, event_payload(index), "torn or wrong event {index}");
}

#[test]
fn concurrent_readers_see_intact_events_in_order_and_count_every_loss() {
    let total: u64 = if cfg!(miri) { 2_000 } else { 200_000 };
    let p = params(16, 64);
    let (mut w, region) = writer_in_region(&p);
    let done = Arc::new(AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs(60);

    let readers: Vec<_> = (0..3)
        .map(|id| {
            let mut r = attach(&region, region.len()).unwrap();
            let done = done.clone();
            thread::spawn(move || {
                let slow = id == 2;
                let (mut delivered, mut missed, mut laps) = (0u64, 0u64, 0u64);
                let mut expected = 0u64;
                let mut buf = Vec::new();
                loop {
                    assert!(Instant::now() < deadline, "reader {id} timed out");
                    match r.read_next_into(&mut buf) {
                        Ok(index) => {
                            assert_eq!(index, expected, "indices must be consecutive");
                            check_payload(index, &buf);
                            delivered += 1;
                            expected = index + 1;
                            if slow && delivered % 16 == 0 {
                                thread::sleep(Duration::from_millis(1));
                            }
                        }
                        Err(ReadError::Lapped { missed: m }) => {
                            assert!(m > 0);
                            missed += m;
                            laps += 1;
                            expected += m;
                            assert_eq!(r.cursor(), expected);
                        }
                        Err(ReadError::Corrupt { index }) => panic!("corrupt event {index}"),
                        Err(ReadError::Empty) => {
                            // ORDERING: Acquire — pairs with the writer's Release store of `done`.
                            if done.load(Ordering::Acquire) && r.cursor() == total {
                                break;
                            }
                            thread::yield_now();
                        }
                    }
                }
                (delivered, missed, laps)
            })
        })
        .collect();

    for i in 0..total {
        assert_eq!(w.write(&event_payload(i)).unwrap(), i);
        if i % 4096 == 0 {
            thread::yield_now();
        }
    }
    // ORDERING: Release — pairs with the readers' Acquire loads of `done`.
    done.store(true, Ordering::Release);
    let mut any_lapped = false;
    for h in readers {
        let (delivered, missed, laps) = h.join().unwrap();
        assert_eq!(
            delivered + missed,
            total,
            "every event delivered or counted missed"
        );
        any_lapped |= laps > 0;
    }
    // The slow reader sleeps 1 ms per 16 events against a 16-cell ring.
    assert!(any_lapped, "the slow reader should have been lapped");
}

#[test]
fn snapshot_during_writes_is_ordered_and_intact() {
    let rounds = if cfg!(miri) { 50 } else { 2_000 };
    let (mut w, region) = writer_in_region(&params(8, 64));
    let r = attach(&region, region.len()).unwrap();
    let writer = thread::spawn(move || {
        for i in 0..rounds * 8 {
            w.write(&event_payload(i)).unwrap();
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    for _ in 0..rounds {
        assert!(Instant::now() < deadline, "snapshots timed out");
        let snap = r.snapshot();
        assert!(snap.events.len() as u64 + snap.missed <= 8);
        for pair in snap.events.windows(2) {
            assert!(pair[0].index < pair[1].index);
        }
        for e in &snap.events {
            check_payload(e.index, &e.payload);
            assert!(e.index < snap.next);
        }
    }
    writer.join().unwrap();
}
