//! loom models of the one header publication protocol of every region
//! (`pmix_shm::region`): an attacher racing the initialiser of the same
//! memory either finds nothing published (`NotReady`) or the whole
//! structure — version, geometry and every cell's initial value — never a
//! half-written header. Weakening the `Release` store of the magic in
//! `region::header::publish` (or the `Acquire` load in `check`) lets loom
//! find an execution where the attacher sees the magic but an older
//! version or geometry.
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p pmix-loom-tests --release --test region
//! ```
#![cfg(loom)]

use loom::thread;
use pmix_shm::barrier::{BarrierParams, BarrierTable};
use pmix_shm::error::OpenError;
use pmix_shm::region::{Attach, Fresh, Region};
use pmix_shm::ring::{Ring, RingParams, TryPopError};
use pmix_shm::store::{PinError, StoreParams, StoreReader, StoreWriter};

/// Initialises an `R` in fresh memory while another thread attaches an `A`
/// to it; `check` runs on what the attacher got, if anything.
fn race<R, A>(params: R::Params, check: impl Fn(A) + Send + 'static)
where
    R: Region + Attach<Region = R> + 'static,
    A: Attach<Region = R> + 'static,
{
    let fresh = Fresh::<R>::new(&params).unwrap();
    let theirs = fresh.attacher();
    let attacher = thread::spawn(move || match theirs.attach::<A>() {
        Ok(handle) => check(handle),
        Err(OpenError::NotReady) => {}
        Err(e) => panic!("the attacher saw a half-written header: {e}"),
    });
    let _mine = fresh.init(&params).unwrap();
    attacher.join().unwrap();
}

#[test]
fn ring_attacher_sees_nothing_or_the_whole_ring() {
    loom::model(|| {
        race::<Ring, Ring>(RingParams::new(4).unwrap(), |ring| {
            assert_eq!((ring.cells(), ring.lost(), ring.used_cells()), (4, 0, 0));
            // Every cell's state word is the initial free stamp: the
            // consumer finds an empty ring, not a corrupt record.
            let mut c = ring.consumer().unwrap();
            assert_eq!(c.try_pop(|_, _| ()), Err(TryPopError::Empty));
            assert_eq!(ring.corrupt(), 0);
        });
    });
}

#[test]
fn store_attacher_sees_nothing_or_the_whole_store() {
    loom::model(|| {
        let params = StoreParams {
            buffer_count: 2,
            buffer_size: 64,
            reader_slots: 1,
        };
        race::<StoreWriter, StoreReader>(params, |reader| {
            // Its slot was free and the publication word is 0.
            assert_eq!(reader.generation(), 0);
            assert_eq!(reader.pin().unwrap_err(), PinError::NotPublished);
        });
    });
}

#[test]
fn barrier_attacher_sees_nothing_or_the_whole_table() {
    loom::model(|| {
        let params = BarrierParams {
            barriers: 1,
            peers: 1,
        };
        race::<BarrierTable, BarrierTable>(params, |table| {
            assert_eq!((table.barrier_count(), table.peer_count()), (1, 1));
            // The cell's word is the initial one: episode 1, open, empty.
            assert_eq!(table.barrier(0).unwrap().open_episode().episode, 1);
        });
    });
}
