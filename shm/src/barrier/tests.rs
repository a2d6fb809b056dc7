//! Unit tests of the table: the documented layout, attach and init
//! validation, peer cells, error mapping. The episode protocol's are in
//! `episode_tests.rs`.

use std::ptr::NonNull;

use super::region::TableHeader;
use super::*;
use crate::error::{InitError, OpenError};
use crate::region::{self, Memory, Region};
use crate::sync::Ordering;

fn table(barriers: u32, peers: u32) -> BarrierTable {
    BarrierTable::new_heap(&BarrierParams { barriers, peers })
}

#[test]
fn magic_has_the_documented_value() {
    assert_eq!(BARRIER_MAGIC, 0x5252_4142_5849_4D50);
    assert_eq!(BarrierTable::MAGIC, BARRIER_MAGIC);
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

fn heap_table(params: &BarrierParams) -> (Memory, BarrierTable) {
    let mem = Memory::heap::<BarrierTable>(params).unwrap();
    // SAFETY: fresh heap memory, used by this test's handles only.
    let t = unsafe { region::init_in::<BarrierTable>(mem.clone(), params) }.unwrap();
    (mem, t)
}

fn attach(mem: &Memory, len: usize) -> Result<BarrierTable, OpenError> {
    // SAFETY: the heap memory of `heap_table`, kept alive by its keep-alive;
    // `len` is at most its length.
    let mem = unsafe { Memory::from_raw(mem.base(), len, Some(std::sync::Arc::new(mem.clone()))) };
    // SAFETY: as above.
    unsafe { region::attach::<BarrierTable>(mem) }
}

#[test]
fn attach_sees_the_same_cells() {
    let params = BarrierParams {
        barriers: 3,
        peers: 5,
    };
    let (mem, t) = heap_table(&params);
    let a = attach(&mem, mem.len()).unwrap();
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
    let (mem, _t) = heap_table(&params);
    let part = mem.header::<TableHeader>();
    let h = &part[0];
    let needed = BarrierTable::memory_size(&params);
    assert_eq!(
        attach(&mem, needed - 1).unwrap_err(),
        OpenError::TooSmall {
            needed,
            len: needed - 1
        }
    );
    assert!(matches!(
        attach(&mem, 64).unwrap_err(),
        OpenError::TooSmall { .. }
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
    let counts = OpenError::BadGeometry {
        reason: "more than 65536 barrier cells or 65536 peer cells",
    };
    let offsets = OpenError::BadGeometry {
        reason: "cell offsets do not match the counts",
    };
    type Case<'a> = (&'a dyn Fn(&TableHeader), OpenError);
    let cases: [Case<'_>; 8] = [
        (
            &|t| t.magic.store(0, Ordering::Relaxed),
            OpenError::NotReady,
        ),
        (
            &|t| t.ready.store(0, Ordering::Relaxed),
            OpenError::NotReady,
        ),
        (
            &|t| t.magic.store(7, Ordering::Relaxed),
            OpenError::BadMagic {
                found: 7,
                expected: BARRIER_MAGIC,
            },
        ),
        (
            &|t| t.layout_version.store(9, Ordering::Relaxed),
            OpenError::VersionMismatch {
                found: 9,
                expected: BARRIER_LAYOUT_VERSION,
            },
        ),
        (
            &|t| t.barrier_count.store(MAX_BARRIERS + 1, Ordering::Relaxed),
            counts,
        ),
        (&|t| t.peers_offset.store(0, Ordering::Relaxed), offsets),
        (&|t| t.barriers_offset.store(64, Ordering::Relaxed), offsets),
        (
            &|t| {
                t.peer_count.store(3, Ordering::Relaxed);
            },
            OpenError::TooSmall {
                needed: 128 + 256 + 3 * 64,
                len: 128 + 256 + 2 * 64,
            },
        ),
    ];
    for (i, (corrupt, want)) in cases.iter().enumerate() {
        restore(h);
        corrupt(h);
        assert_eq!(attach(&mem, needed).unwrap_err(), *want, "case {i}");
    }
    restore(h);
    assert!(attach(&mem, needed).is_ok());
}

#[test]
fn init_validates_its_arguments() {
    let ok = BarrierParams {
        barriers: 4,
        peers: 4,
    };
    let backing = Memory::heap::<BarrierTable>(&ok).unwrap();
    let init = |p: BarrierParams, off: usize, len: usize| {
        // SAFETY: `base + off` lies in the heap memory and `len` fits after
        // it (kept alive by the keep-alive); no handle lives in it.
        unsafe {
            let at = NonNull::new_unchecked(backing.base().as_ptr().add(off));
            let keep = std::sync::Arc::new(backing.clone());
            region::init_in::<BarrierTable>(Memory::from_raw(at, len, Some(keep)), &p)
        }
    };
    assert_eq!(
        init(
            BarrierParams {
                barriers: MAX_BARRIERS + 1,
                peers: 0
            },
            0,
            backing.len()
        )
        .unwrap_err(),
        InitError::InvalidParams {
            reason: "more than 65536 barrier cells or 65536 peer cells"
        }
    );
    assert!(matches!(
        init(ok, 64, 512).unwrap_err(),
        InitError::Misaligned { align: 128, .. }
    ));
    assert_eq!(
        init(ok, 0, 100).unwrap_err(),
        InitError::TooSmall {
            needed: 128 + 512 + 256,
            len: 100
        }
    );
    assert!(init(ok, 0, backing.len()).is_ok());
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
    assert!(BarrierWaitError::Poisoned(-25)
        .to_string()
        .contains("status -25"));
}
