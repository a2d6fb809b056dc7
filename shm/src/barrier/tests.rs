//! Unit tests of the table: the documented layout, attach and init
//! validation, peer cells, error mapping. The episode protocol's are in
//! `episode_tests.rs`.

use std::mem::{align_of, offset_of, size_of};
use std::ptr::NonNull;
use std::sync::Arc;

use super::cell::RawBarrier;
use super::peer::RawPeer;
use super::table::TableHeader;
use super::*;
use crate::heap::HeapRegion;
use crate::layout::HOT_LINE;
use crate::sync::Ordering;

fn table(barriers: u32, peers: u32) -> BarrierTable {
    BarrierTable::new_heap(&BarrierParams { barriers, peers })
}

// The numbers below are the tables of docs/SHM-LAYOUT.md.
#[test]
fn structures_match_the_documented_layout() {
    assert_eq!(size_of::<TableHeader>(), BARRIER_HEADER_SIZE);
    assert_eq!(align_of::<TableHeader>(), 128);
    assert_eq!(offset_of!(TableHeader, magic), 0);
    assert_eq!(offset_of!(TableHeader, layout_version), 8);
    assert_eq!(offset_of!(TableHeader, barrier_count), 12);
    assert_eq!(offset_of!(TableHeader, peer_count), 16);
    assert_eq!(offset_of!(TableHeader, barriers_offset), 20);
    assert_eq!(offset_of!(TableHeader, peers_offset), 24);
    assert_eq!(offset_of!(TableHeader, ready), 64);
    assert_eq!(size_of::<RawBarrier>(), BARRIER_CELL_SIZE);
    assert_eq!(BARRIER_CELL_SIZE, crate::layout::HOT_LINE);
    assert_eq!(offset_of!(RawBarrier, parties), 0);
    assert_eq!(offset_of!(RawBarrier, status), 4);
    assert_eq!(offset_of!(RawBarrier, word), 8);
    assert_eq!(offset_of!(RawBarrier, released), 16);
    assert_eq!(offset_of!(RawBarrier, seq), 24);
    assert_eq!(offset_of!(RawBarrier, waiters), 28);
    assert_eq!(size_of::<RawPeer>(), PEER_CELL_SIZE);
    assert_eq!(offset_of!(RawPeer, state), 0);
    assert_eq!(offset_of!(RawPeer, pid), 4);
    assert_eq!(offset_of!(RawPeer, epoch), 8);
    assert_eq!(BARRIER_MAGIC, 0x5252_4142_5849_4D50);
}

#[test]
fn handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<BarrierTable>();
    send_sync::<Barrier<'static>>();
    send_sync::<PeerCell<'static>>();
}

#[test]
fn out_of_range_cells_are_none() {
    let t = table(2, 3);
    assert!(t.barrier(2).is_none());
    assert!(t.peer(3).is_none());
    assert_eq!((t.barrier_count(), t.peer_count()), (2, 3));
    assert_eq!(t.peer(2).unwrap().index(), 2);
}

#[test]
fn peer_cells_bump_their_epoch_on_every_change() {
    let t = table(0, 2);
    let p = t.peer(1).unwrap();
    assert_eq!((p.state(), p.pid(), p.epoch()), (PEER_FREE, 0, 0));
    assert_eq!(p.compare_set_state(PEER_FREE, 7), Ok(1));
    assert_eq!(p.compare_set_state(PEER_FREE, 8), Err(7));
    p.set_pid(4242);
    assert_eq!(p.set_state(7), 2, "same value, still a change");
    assert_eq!((p.state(), p.pid(), p.epoch()), (7, 4242, 2));
    assert_eq!(t.peer(0).unwrap().epoch(), 0);
}

fn heap_table(params: &BarrierParams) -> (Arc<HeapRegion>, BarrierTable) {
    let region = Arc::new(HeapRegion::zeroed_aligned(
        BarrierTable::memory_size(params),
        HOT_LINE,
    ));
    // SAFETY: the region is valid for its length, 128-aligned, and kept
    // alive by the owner handle.
    let t =
        unsafe { BarrierTable::init_in_owned(region.base(), region.len(), params, region.clone()) }
            .unwrap();
    (region, t)
}

fn attach(region: &Arc<HeapRegion>, len: usize) -> Result<BarrierTable, BarrierAttachError> {
    // SAFETY: as in `heap_table`; `len` is at most the region's length.
    unsafe { BarrierTable::attach_owned(region.base(), len, region.clone()) }
}

#[test]
fn attach_sees_the_same_cells() {
    let params = BarrierParams {
        barriers: 3,
        peers: 5,
    };
    let (region, t) = heap_table(&params);
    let a = attach(&region, region.len()).unwrap();
    assert_eq!((a.barrier_count(), a.peer_count()), (3, 5));
    t.barrier(2).unwrap().reset(4);
    t.peer(4).unwrap().set_state(9);
    assert_eq!(a.barrier(2).unwrap().parties(), 4);
    assert_eq!(a.peer(4).unwrap().state(), 9);
}

#[test]
fn attach_validates_the_header() {
    let params = BarrierParams {
        barriers: 2,
        peers: 2,
    };
    let (region, t) = heap_table(&params);
    let h = t.shared.header();
    let needed = BarrierTable::memory_size(&params);
    assert_eq!(
        attach(&region, needed - 1).unwrap_err(),
        BarrierAttachError::RegionTooSmall {
            needed,
            len: needed - 1
        }
    );
    assert!(matches!(
        attach(&region, 64).unwrap_err(),
        BarrierAttachError::RegionTooSmall { .. }
    ));
    let restore = |t: &TableHeader| {
        t.magic.store(BARRIER_MAGIC, Ordering::Relaxed);
        t.layout_version
            .store(BARRIER_LAYOUT_VERSION, Ordering::Relaxed);
        t.barrier_count.store(2, Ordering::Relaxed);
        t.peer_count.store(2, Ordering::Relaxed);
        t.barriers_offset.store(128, Ordering::Relaxed);
        t.peers_offset.store(128 + 256, Ordering::Relaxed);
        t.ready.store(BARRIER_READY, Ordering::Relaxed);
    };
    type Case<'a> = (&'a dyn Fn(&TableHeader), BarrierAttachError);
    let cases: [Case<'_>; 8] = [
        (
            &|t| t.magic.store(0, Ordering::Relaxed),
            BarrierAttachError::NotReady,
        ),
        (
            &|t| t.ready.store(0, Ordering::Relaxed),
            BarrierAttachError::NotReady,
        ),
        (
            &|t| t.magic.store(7, Ordering::Relaxed),
            BarrierAttachError::BadMagic { found: 7 },
        ),
        (
            &|t| t.layout_version.store(9, Ordering::Relaxed),
            BarrierAttachError::VersionMismatch { found: 9 },
        ),
        (
            &|t| t.barrier_count.store(MAX_BARRIERS + 1, Ordering::Relaxed),
            BarrierAttachError::BadGeometry,
        ),
        (
            &|t| t.peers_offset.store(0, Ordering::Relaxed),
            BarrierAttachError::BadGeometry,
        ),
        (
            &|t| t.barriers_offset.store(64, Ordering::Relaxed),
            BarrierAttachError::BadGeometry,
        ),
        (
            &|t| {
                t.peer_count.store(3, Ordering::Relaxed);
            },
            BarrierAttachError::RegionTooSmall {
                needed: 128 + 256 + 3 * 64,
                len: 128 + 256 + 2 * 64,
            },
        ),
    ];
    for (i, (corrupt, want)) in cases.iter().enumerate() {
        restore(h);
        corrupt(h);
        assert_eq!(attach(&region, needed).unwrap_err(), *want, "case {i}");
    }
    restore(h);
    assert!(attach(&region, needed).is_ok());
}

#[test]
fn init_validates_its_arguments() {
    let region = Arc::new(HeapRegion::zeroed_aligned(4096, HOT_LINE));
    let base = region.base();
    let init = |p: BarrierParams, off: usize, len: usize| {
        // SAFETY: `base + off` lies in the region and `len` fits after it.
        unsafe {
            BarrierTable::init_in_owned(
                NonNull::new_unchecked(base.as_ptr().add(off)),
                len,
                &p,
                region.clone(),
            )
        }
    };
    let ok = BarrierParams {
        barriers: 4,
        peers: 4,
    };
    assert_eq!(
        init(
            BarrierParams {
                barriers: MAX_BARRIERS + 1,
                peers: 0
            },
            0,
            4096
        )
        .unwrap_err(),
        BarrierInitError::InvalidParams {
            barriers: MAX_BARRIERS + 1,
            peers: 0
        }
    );
    assert!(matches!(
        init(ok, 64, 1024).unwrap_err(),
        BarrierInitError::Misaligned { .. }
    ));
    assert_eq!(
        init(ok, 0, 100).unwrap_err(),
        BarrierInitError::RegionTooSmall {
            needed: 128 + 512 + 256,
            len: 100
        }
    );
    assert!(init(ok, 0, 4096).is_ok());
}

#[test]
fn errors_map_to_statuses() {
    use pmix_core::{Error, Status};
    assert_eq!(
        Error::from(BarrierWaitError::Timeout).status(),
        Status::ERR_TIMEOUT
    );
    assert_eq!(
        Error::from(BarrierWaitError::Poisoned(-25)).status(),
        Status(-25)
    );
    assert_eq!(
        Error::from(BarrierWaitError::Poisoned(3)).status(),
        Status::ERROR
    );
    for e in [BarrierWaitError::EpisodeTimedOut, BarrierWaitError::Late] {
        assert_eq!(Error::from(e).status(), Status::ERR_TIMEOUT);
    }
    assert_eq!(
        Error::from(BarrierWaitError::Interrupted(-61)).status(),
        Status(-61)
    );
    assert_eq!(
        Error::from(BarrierWaitError::OutOfStep {
            episode: 3,
            open: 1
        })
        .status(),
        Status::ERROR
    );
    assert!(BarrierWaitError::Late
        .to_string()
        .contains("already timed out"));
    assert_eq!(
        Error::from(BarrierAttachError::VersionMismatch { found: 1 }).status(),
        Status::ERR_NOT_SUPPORTED
    );
    assert_eq!(
        Error::from(BarrierAttachError::NotReady).status(),
        Status::ERR_INIT
    );
    assert_eq!(
        Error::from(BarrierInitError::InvalidParams {
            barriers: 0,
            peers: u32::MAX
        })
        .status(),
        Status::ERR_BAD_PARAM
    );
    assert!(BarrierWaitError::Poisoned(-25)
        .to_string()
        .contains("status -25"));
}
