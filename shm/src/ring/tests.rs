//! Unit tests of the ring, white-box where they need the raw words.

use std::ptr::NonNull;
use std::time::{Duration, Instant};

use super::header::RingHeader;
use super::{
    Consumer, ConsumerBusyError, PopTimeoutError, PushTimeoutError, Ring, RingParams, TryPushError,
};
use crate::error::{InitError, OpenError};
use crate::layout::{Claim, RecordMeta, SlotState, LAYOUT_VERSION, MAX_RING_CELLS};
use crate::region::{self, Memory, Region};
use crate::sync::{AtomicU64, Ordering};

fn sut(cells: usize) -> (Ring, Consumer) {
    let ring = Ring::new_heap(RingParams::new(cells).unwrap());
    let c = ring.consumer().unwrap();
    (ring, c)
}

fn pop(c: &mut Consumer) -> Option<(u16, Vec<u8>)> {
    c.try_pop(|k, p| (k, p.to_vec())).ok()
}

#[test]
fn params_reject_non_powers_of_two_and_out_of_range() {
    assert!(RingParams::new(0).is_err());
    assert!(RingParams::new(2).is_err());
    assert!(RingParams::new(48).is_err());
    assert!(RingParams::new(MAX_RING_CELLS * 2).is_err());
    assert_eq!(RingParams::new(1 << 20).unwrap().max_record_cells(), 65535);
}

#[test]
fn memory_size_is_a_multiple_of_128() {
    for cells in [4usize, 64, 1024] {
        assert_eq!(Ring::memory_size(&RingParams::new(cells).unwrap()) % 128, 0);
    }
}

#[test]
fn records_come_out_in_push_order_with_kind_and_payload() {
    let (ring, mut c) = sut(64);
    for i in 0..20u16 {
        let payload = vec![i as u8; i as usize * 7];
        ring.try_push(i, &payload).unwrap();
        assert_eq!(pop(&mut c), Some((i, payload)));
    }
    assert_eq!(pop(&mut c), None);
}

#[test]
fn empty_payload_is_a_record() {
    let (ring, mut c) = sut(4);
    ring.try_push(9, &[]).unwrap();
    assert_eq!(pop(&mut c), Some((9, vec![])));
}

#[test]
fn full_ring_refuses_and_keeps_existing_records() {
    let (ring, mut c) = sut(8);
    let mut n = 0u8;
    while ring.try_push(1, &[n; 40]).is_ok() {
        n += 1;
    }
    assert_eq!(n, 8);
    assert_eq!(ring.try_push(1, &[0; 40]), Err(TryPushError::Full));
    for i in 0..n {
        assert_eq!(pop(&mut c), Some((1, vec![i; 40])));
    }
    ring.try_push(2, &[1]).unwrap();
}

#[test]
fn payload_over_max_is_too_large_and_never_split() {
    let (ring, _c) = sut(16);
    let max = ring.max_payload();
    assert_eq!(max, 8 * 64 - 16);
    assert_eq!(
        ring.try_push(0, &vec![0; max + 1]),
        Err(TryPushError::TooLarge { len: max + 1, max })
    );
    assert_eq!(
        ring.push_timeout(0, &vec![0; max + 1], Duration::from_millis(1)),
        Err(PushTimeoutError::TooLarge { len: max + 1, max })
    );
    ring.try_push(0, &vec![0; max]).unwrap();
}

#[test]
fn record_that_would_straddle_the_end_goes_after_a_padding() {
    let (ring, mut c) = sut(8);
    for _ in 0..3 {
        ring.try_push(1, &[1; 40]).unwrap(); // 1 cell each: tail at 3
        pop(&mut c).unwrap();
    }
    for _ in 0..3 {
        ring.try_push(1, &[1; 40]).unwrap(); // tail at 6
        pop(&mut c).unwrap();
    }
    // 3 cells do not fit in cells 6..8: padding of 2, record at 8 (= idx 0).
    let big = vec![0xAB; 3 * 64 - 16];
    ring.try_push(5, &big).unwrap();
    assert_eq!(ring.used_cells(), 5);
    assert_eq!(pop(&mut c), Some((5, big)));
    assert_eq!(ring.used_cells(), 0);
    assert_eq!(ring.lost(), 0);
    assert_eq!(ring.corrupt(), 0);
}

#[test]
fn max_record_always_fits_an_empty_ring_after_padding() {
    let (ring, mut c) = sut(16);
    let max = vec![7u8; ring.max_payload()];
    for shift in 0..16 {
        for _ in 0..shift {
            ring.try_push(0, &[]).unwrap();
            pop(&mut c).unwrap();
        }
        ring.try_push(1, &max).unwrap();
        assert_eq!(pop(&mut c), Some((1, max.clone())));
    }
}

#[test]
fn drain_pops_everything_and_publishes_once() {
    let (ring, mut c) = sut(64);
    for i in 0..10u8 {
        ring.try_push(u16::from(i), &[i; 100]).unwrap();
    }
    let mut seen = vec![];
    assert_eq!(c.drain(4, |k, p| seen.push((k, p[0]))), 4);
    assert_eq!(c.drain(usize::MAX, |k, p| seen.push((k, p[0]))), 6);
    assert_eq!(seen.len(), 10);
    assert!(seen
        .iter()
        .enumerate()
        .all(|(i, &(k, b))| k as usize == i && b as usize == i));
    assert_eq!(ring.used_cells(), 0);
}

#[test]
fn second_consumer_is_busy_until_the_first_is_dropped() {
    let (ring, c) = sut(4);
    let me = std::process::id();
    assert_eq!(ring.consumer().unwrap_err(), ConsumerBusyError { pid: me });
    drop(c);
    ring.consumer().unwrap();
}

#[test]
fn pop_timeout_times_out_on_an_empty_ring() {
    let (_ring, mut c) = sut(4);
    let t0 = Instant::now();
    assert_eq!(
        c.pop_timeout(Duration::from_millis(20), |_, _| ()),
        Err(PopTimeoutError::Timeout)
    );
    assert!(t0.elapsed() >= Duration::from_millis(20));
}

#[test]
fn push_timeout_times_out_on_a_full_ring() {
    let (ring, _c) = sut(4);
    for _ in 0..4 {
        ring.try_push(0, &[]).unwrap();
    }
    assert_eq!(
        ring.push_timeout(0, &[], Duration::from_millis(20)),
        Err(PushTimeoutError::Timeout)
    );
}

#[test]
fn sleeping_consumer_is_woken_by_a_push() {
    let (ring, mut c) = sut(16);
    let r2 = ring.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        r2.try_push(3, b"wake").unwrap();
    });
    let got = c.pop_timeout(Duration::from_secs(20), |k, p| (k, p.to_vec()));
    assert_eq!(got, Ok((3, b"wake".to_vec())));
    t.join().unwrap();
}

#[test]
fn blocked_producer_is_woken_by_pops() {
    let (ring, mut c) = sut(4);
    for _ in 0..4 {
        ring.try_push(0, &[1; 48]).unwrap();
    }
    let r2 = ring.clone();
    let t = std::thread::spawn(move || r2.push_timeout(1, &[2; 48], Duration::from_secs(20)));
    std::thread::sleep(Duration::from_millis(20));
    for _ in 0..4 {
        c.pop_timeout(Duration::from_secs(5), |_, _| ()).unwrap();
    }
    assert_eq!(t.join().unwrap(), Ok(()));
    assert_eq!(pop(&mut c), Some((1, vec![2; 48])));
}

#[test]
fn threads_keep_per_producer_order_without_loss() {
    const PRODUCERS: u32 = 3;
    const PER: u32 = 20_000;
    let (ring, mut c) = sut(256);
    let handles: Vec<_> = (0..PRODUCERS)
        .map(|id| {
            let r = ring.clone();
            std::thread::spawn(move || {
                for seq in 0..PER {
                    let len = (seq % 150) as usize + 8;
                    let mut p = vec![(seq % 251) as u8; len];
                    p[..4].copy_from_slice(&seq.to_le_bytes());
                    r.push_timeout(id as u16, &p, Duration::from_secs(30))
                        .unwrap();
                }
            })
        })
        .collect();
    let mut next = [0u32; PRODUCERS as usize];
    for _ in 0..PRODUCERS * PER {
        c.pop_timeout(Duration::from_secs(30), |k, p| {
            let seq = u32::from_le_bytes(p[..4].try_into().unwrap());
            assert_eq!(seq, next[k as usize], "producer {k} out of order");
            assert_eq!(p.len(), (seq % 150) as usize + 8);
            assert!(
                p[4..].iter().all(|&b| b == (seq % 251) as u8),
                "torn payload"
            );
            next[k as usize] += 1;
        })
        .unwrap();
    }
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(next, [PER; PRODUCERS as usize]);
    assert_eq!(pop(&mut c), None);
    assert_eq!(ring.lost(), 0);
}

#[test]
fn reservation_of_a_dead_pid_is_skipped_and_counted_lost() {
    let (ring, mut c) = sut(16);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    ring.try_push(1, b"before").unwrap();
    ring.try_push_reserve_only(100, Some(dead)).unwrap();
    ring.try_push(2, b"after").unwrap();
    assert_eq!(pop(&mut c), Some((1, b"before".to_vec())));
    let got = c.pop_timeout(Duration::from_secs(10), |k, p| (k, p.to_vec()));
    assert_eq!(got, Ok((2, b"after".to_vec())));
    assert_eq!(ring.lost(), 1);
    assert_eq!(c.open_holes(), 0);
    assert_eq!(ring.used_cells(), 0);
}

#[test]
fn anonymous_reservation_is_skipped_after_the_deadline() {
    let (ring, mut c) = sut(16);
    c.set_abandon_after(Duration::from_millis(30));
    ring.try_reserve_anonymous(70).unwrap();
    ring.try_push(2, b"after").unwrap();
    let t0 = Instant::now();
    let got = c.pop_timeout(Duration::from_secs(10), |k, p| (k, p.to_vec()));
    assert_eq!(got, Ok((2, b"after".to_vec())));
    assert!(t0.elapsed() >= Duration::from_millis(30));
    assert_eq!(ring.lost(), 1);
    assert_eq!(ring.used_cells(), 0);
}

#[test]
fn late_producer_of_an_abandoned_record_is_told_and_its_cells_come_back() {
    let (ring, mut c) = sut(8);
    let r = ring.reserve_for_test(40).unwrap();
    ring.try_push(2, b"next").unwrap();
    assert!(c.abandon_stalled_now(false));
    assert_eq!(pop(&mut c), Some((2, b"next".to_vec())));
    assert_eq!(c.open_holes(), 1);
    assert_eq!(ring.used_cells(), 2, "the hole holds head back");
    assert_eq!(r.commit(1, &[9; 40]), Err(TryPushError::Abandoned));
    assert_eq!(pop(&mut c), None);
    assert_eq!(c.open_holes(), 0);
    assert_eq!(ring.used_cells(), 0);
    assert_eq!(ring.lost(), 1);
    // The ring keeps working across laps.
    for i in 0..40u8 {
        ring.try_push(3, &[i; 60]).unwrap();
        assert_eq!(pop(&mut c), Some((3, vec![i; 60])));
    }
}

#[test]
fn late_anonymous_producer_writes_nothing() {
    let (ring, mut c) = sut(8);
    // Reserve anonymously, let the consumer walk over it, then claim:
    // the claim CAS must fail.
    ring.try_reserve_anonymous(10).unwrap();
    assert!(c.abandon_stalled_now(false));
    assert_eq!(ring.lost(), 1);
    ring.try_push(4, b"ok").unwrap();
    assert_eq!(pop(&mut c), Some((4, b"ok".to_vec())));
}

/// The raw state word of the cell at `pos` (white-box tests).
fn state_word(ring: &Ring, pos: u64) -> &AtomicU64 {
    ring.inner.state(pos)
}

#[test]
fn garbage_state_word_is_counted_and_skipped() {
    let (ring, mut c) = sut(8);
    ring.try_push(1, &[1; 100]).unwrap(); // cells 0..2
    ring.try_push(2, b"good").unwrap(); // cell 2
    state_word(&ring, 0).store(0xFFFF_0000_1234_5678, Ordering::Relaxed);
    // The garbage cell and its payload cell are walked over.
    let mut got = None;
    for _ in 0..4 {
        if let Some(g) = pop(&mut c) {
            got = Some(g);
            break;
        }
    }
    assert_eq!(got, Some((2, b"good".to_vec())));
    assert!(ring.corrupt() >= 1);
}

#[test]
fn committed_record_with_bad_length_is_skipped() {
    let (ring, mut c) = sut(8);
    ring.try_push(1, &[1; 10]).unwrap();
    ring.try_push(2, b"good").unwrap();
    ring.inner.meta(0).store(
        RecordMeta { len: 5000, kind: 1 }.encode(),
        Ordering::Relaxed,
    );
    assert_eq!(pop(&mut c), Some((2, b"good".to_vec())));
    assert_eq!(ring.corrupt(), 1);
}

#[test]
fn claim_from_another_lap_is_corrupt() {
    let (ring, mut c) = sut(8);
    ring.try_push(1, &[1; 10]).unwrap();
    let w = SlotState::Committed(Claim {
        pid: 1,
        cells: 1,
        lap: 3,
    })
    .encode();
    state_word(&ring, 0).store(w, Ordering::Relaxed);
    assert_eq!(pop(&mut c), None);
    assert_eq!(ring.corrupt(), 1);
    ring.try_push(2, b"x").unwrap();
    assert_eq!(pop(&mut c), Some((2, b"x".to_vec())));
}

#[test]
fn attach_sees_the_same_ring_and_rejects_bad_headers() {
    let params = RingParams::new(16).unwrap();
    let size = Ring::memory_size(&params);
    let layout = std::alloc::Layout::from_size_align(size, 128).unwrap();
    // SAFETY: non-zero size.
    let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }).unwrap();
    // SAFETY: exclusive, aligned, large enough; freed at the end after
    // every handle is dropped.
    let mem = |at: usize, len: usize| unsafe {
        Memory::from_raw(NonNull::new_unchecked(ptr.as_ptr().add(at)), len, None)
    };
    // SAFETY: every `init_in`/`attach` below uses the memory above, which
    // this test alone uses; no handle of an earlier ring lives at an
    // `init_in`; the header is only accessed through atomics.
    unsafe {
        assert_eq!(
            region::attach::<Ring>(mem(0, size)).unwrap_err(),
            OpenError::NotReady
        );
        assert_eq!(
            region::init_in::<Ring>(mem(0, size - 1), &params).unwrap_err(),
            InitError::TooSmall {
                len: size - 1,
                needed: size
            }
        );
        let a = region::init_in::<Ring>(mem(0, size), &params).unwrap();
        let b = region::attach::<Ring>(mem(0, size)).unwrap();
        assert!(matches!(
            region::attach::<Ring>(mem(0, size - 64)),
            Err(OpenError::TooSmall { .. })
        ));
        let mut c = b.consumer().unwrap();
        a.try_push(5, b"via a").unwrap();
        assert_eq!(pop(&mut c), Some((5, b"via a".to_vec())));
        // A header claiming more cells than the memory holds.
        let hdr = ptr.cast::<RingHeader>().as_ref();
        hdr.cells.store(1 << 20, Ordering::Relaxed);
        assert!(matches!(
            region::attach::<Ring>(mem(0, size)),
            Err(OpenError::BadGeometry { .. }) | Err(OpenError::TooSmall { .. })
        ));
        hdr.cells.store(12, Ordering::Relaxed);
        assert!(matches!(
            region::attach::<Ring>(mem(0, size)),
            Err(OpenError::BadGeometry { .. })
        ));
        hdr.cells.store(16, Ordering::Relaxed);
        hdr.max_record_cells.store(9, Ordering::Relaxed);
        assert!(matches!(
            region::attach::<Ring>(mem(0, size)),
            Err(OpenError::BadGeometry { .. })
        ));
        hdr.max_record_cells.store(8, Ordering::Relaxed);
        hdr.version.store(99, Ordering::Relaxed);
        assert_eq!(
            region::attach::<Ring>(mem(0, size)).unwrap_err(),
            OpenError::VersionMismatch {
                found: 99,
                expected: LAYOUT_VERSION
            }
        );
        hdr.version.store(LAYOUT_VERSION, Ordering::Relaxed);
        hdr.magic.store(7, Ordering::Relaxed);
        assert_eq!(
            region::attach::<Ring>(mem(0, size)).unwrap_err(),
            OpenError::BadMagic {
                found: 7,
                expected: Ring::MAGIC
            }
        );
        assert!(matches!(
            region::attach::<Ring>(mem(64, size - 64)),
            Err(OpenError::Misaligned { align: 128, .. })
        ));
        drop(c);
        drop((a, b));
        std::alloc::dealloc(ptr.as_ptr(), layout);
    }
}

#[test]
fn a_clone_keeps_the_heap_memory_alive_after_the_creator_drops() {
    let ring = Ring::new_heap(RingParams::new(4).unwrap());
    let r2 = ring.clone();
    drop(ring);
    r2.try_push(1, b"x").unwrap();
    let mut c = r2.consumer().unwrap();
    assert_eq!(pop(&mut c), Some((1, b"x".to_vec())));
}

#[test]
fn positions_far_into_the_run_wrap_correctly() {
    let ring = Ring::new_heap_at(RingParams::new(8).unwrap(), (1 << 40) + 5);
    let mut c = ring.consumer().unwrap();
    for i in 0..50u8 {
        let p = vec![i; (i as usize * 13) % 241];
        ring.try_push(u16::from(i), &p).unwrap();
        assert_eq!(pop(&mut c), Some((u16::from(i), p)));
    }
}
