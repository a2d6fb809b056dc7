//! Structures in the regions of a real segment (`Segment::create`, and a
//! second mapping of the same memfd through `Segment::open` of a duplicated
//! descriptor): `Segment::init` and `Segment::attach` for each region type,
//! their errors, untrusted region headers, and the job-data store's one
//! writer per process. The named shorthands (`init_store`, `store_reader`,
//! `store_writer`, `barriers`) the server and client call are the same
//! calls.
#![cfg(not(loom))]

use pmix_core::{Error, Status};
use pmix_shm::barrier::{BarrierParams, BarrierTable, BARRIER_HEADER_SIZE, BARRIER_MAGIC};
use pmix_shm::error::{InitError, OpenError, RegionError};
use pmix_shm::layout::{caps, RegionKind};
use pmix_shm::lines::{Lines, LinesParams, LINES_MAGIC};
use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::store::{StoreParams, StoreReader, StoreWriter, STORE_MAGIC};
use pmix_shm::sync::{AtomicU32, Ordering};

/// The kind of the lines region (a kind the server never uses).
const PROBE: RegionKind = RegionKind(0x100);

fn barrier_params() -> BarrierParams {
    BarrierParams {
        barriers: 2,
        peers: 4,
    }
}

fn store_params() -> StoreParams {
    StoreParams {
        buffer_count: 3,
        buffer_size: 4096,
        reader_slots: 4,
    }
}

fn layout() -> SegmentLayout {
    SegmentLayout::new()
        .region_for::<BarrierTable>(RegionKind::BARRIERS, 0, &barrier_params())
        .region_for::<BarrierTable>(RegionKind::BARRIERS, 1, &barrier_params())
        .region_for::<StoreWriter>(RegionKind::JOB_STORE, 0, &store_params())
        .region_for::<StoreWriter>(RegionKind::MODEX, 0, &store_params())
        .region_for::<Lines>(PROBE, 0, &LinesParams { lines: 1 })
        .capabilities(caps::BARRIERS | caps::JOB_STORE)
}

/// A second mapping of the same memfd, as a client gets it.
fn reopen(seg: &Segment) -> Segment {
    Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap()
}

#[test]
fn init_and_attach_errors_through_the_segment() {
    let server = Segment::create(&layout()).unwrap();
    server
        .init::<BarrierTable>(RegionKind::BARRIERS, 0, &barrier_params())
        .unwrap();
    assert_eq!(
        server
            .init::<BarrierTable>(RegionKind::BARRIERS, 0, &barrier_params())
            .unwrap_err(),
        InitError::AlreadyInitialized
    );
    let missing = RegionError::NotFound {
        kind: RegionKind::BARRIERS,
        id: 9,
    };
    assert_eq!(
        server
            .init::<BarrierTable>(RegionKind::BARRIERS, 9, &barrier_params())
            .unwrap_err(),
        InitError::Region(missing)
    );
    // A table that does not fit its region.
    let e = server
        .init::<BarrierTable>(
            RegionKind::BARRIERS,
            1,
            &BarrierParams {
                barriers: 100,
                peers: 0,
            },
        )
        .unwrap_err();
    assert!(matches!(e, InitError::TooSmall { .. }), "{e}");
    // A store too big for its region.
    let big = StoreParams {
        buffer_size: 1 << 20,
        ..store_params()
    };
    let e = server
        .init::<StoreWriter>(RegionKind::JOB_STORE, 0, &big)
        .unwrap_err();
    assert!(matches!(e, InitError::TooSmall { .. }), "{e}");
    assert_eq!(Error::from(e).status(), Status::ERR_BAD_PARAM);
    server.publish();
    assert_eq!(
        server
            .init::<Lines>(PROBE, 0, &LinesParams { lines: 1 })
            .unwrap_err(),
        InitError::AlreadyPublished
    );

    let client = reopen(&server);
    let e = client
        .init::<BarrierTable>(RegionKind::BARRIERS, 1, &barrier_params())
        .unwrap_err();
    assert_eq!(e, InitError::NotCreator);
    assert_eq!(Error::from(e).status(), Status::ERR_BAD_PARAM);
    let e = client
        .attach::<BarrierTable>(RegionKind::BARRIERS, 9)
        .unwrap_err();
    assert_eq!(e, OpenError::Region(missing));
    assert_eq!(Error::from(e).status(), Status::ERR_NOT_FOUND);
    // Region 1 was never initialised (its init failed): zero magic.
    assert_eq!(
        client
            .attach::<BarrierTable>(RegionKind::BARRIERS, 1)
            .unwrap_err(),
        OpenError::NotReady
    );
    // Nothing was initialised in the store regions either.
    assert_eq!(
        client
            .attach::<StoreReader>(RegionKind::JOB_STORE, 0)
            .unwrap_err(),
        OpenError::NotReady
    );
    // A barrier table is not lines, and the message says which is which.
    let e = client.attach::<Lines>(RegionKind::BARRIERS, 0).unwrap_err();
    assert_eq!(
        e,
        OpenError::BadMagic {
            found: BARRIER_MAGIC,
            expected: LINES_MAGIC
        }
    );
    assert_eq!(
        e.to_string(),
        r#"OpenError::BadMagic: found "PMIXBARR", expected "PMIXLINE""#
    );
    assert_eq!(Error::from(e).status(), Status::ERR_INIT);
}

#[test]
fn a_garbage_barrier_header_is_refused() {
    let server = Segment::create(&layout()).unwrap();
    let st: BarrierTable = server
        .init(RegionKind::BARRIERS, 0, &barrier_params())
        .unwrap();
    server.publish();
    // A misbehaving process rewrites the peer count (header offset 16).
    let region = server.memory(RegionKind::BARRIERS, 0).unwrap();
    // SAFETY: offset 16 of the region lies inside its header (128 bytes),
    // 4-aligned; the header's fields are atomics; `region` keeps the
    // mapping alive.
    let peer_count = unsafe { &*region.base().as_ptr().add(16).cast::<AtomicU32>() };
    // ORDERING: Relaxed — the test's own later attach is in this thread.
    peer_count.store(1 << 20, Ordering::Relaxed);
    let client = reopen(&server);
    let e = client
        .attach::<BarrierTable>(RegionKind::BARRIERS, 0)
        .unwrap_err();
    assert!(matches!(e, OpenError::BadGeometry { .. }), "{e}");
    assert_eq!(Error::from(e).status(), Status::ERR_INIT);
    // More peers than the region holds, within the maximum.
    peer_count.store(1000, Ordering::Relaxed);
    assert!(matches!(
        client.attach::<BarrierTable>(RegionKind::BARRIERS, 0),
        Err(OpenError::TooSmall { .. })
    ));
    // The handle made at init kept its own copy of the geometry.
    assert_eq!(st.peer_count(), 4);
    assert!(st.peer(3).is_some() && st.peer(4).is_none());
    assert!(region.len() >= BARRIER_HEADER_SIZE);
}

#[test]
fn store_writers_and_readers_through_the_segment() {
    let server = Segment::create(&layout()).unwrap();
    let mut job = server
        .init::<StoreWriter>(RegionKind::JOB_STORE, 0, &store_params())
        .unwrap();
    // The server initialises the client's modex store but never writes it.
    drop(
        server
            .init::<StoreWriter>(RegionKind::MODEX, 0, &store_params())
            .unwrap(),
    );
    server.publish();
    job.update(|t| {
        t.insert("job", 0, "pmix.local.size", vec![2]);
    })
    .unwrap();

    let client = reopen(&server);
    let reader = client
        .attach::<StoreReader>(RegionKind::JOB_STORE, 0)
        .unwrap();
    assert_eq!(reader.get("job", 0, "pmix.local.size"), Some(vec![2]));
    // The job store has a live writer in this process (the server's).
    assert_eq!(
        client
            .attach::<StoreWriter>(RegionKind::JOB_STORE, 0)
            .unwrap_err(),
        OpenError::WriterExists
    );
    assert_eq!(
        Error::from(OpenError::WriterExists).status(),
        Status::ERR_RESOURCE_BUSY
    );

    // The client owns its modex store.
    let mut modex = client.attach::<StoreWriter>(RegionKind::MODEX, 0).unwrap();
    assert_eq!(modex.generation(), 0);
    assert!(modex.table().is_empty(), "an adopted writer starts empty");
    let mut card = modex.builder();
    card.insert("job", 1, "card", b"tcp://n1:1".to_vec());
    assert_eq!(modex.publish(card).unwrap(), 1);
    assert!(matches!(
        server.attach::<StoreWriter>(RegionKind::MODEX, 0),
        Err(OpenError::WriterExists)
    ));
    let server_view = server.attach::<StoreReader>(RegionKind::MODEX, 0).unwrap();
    assert_eq!(
        server_view.get("job", 1, "card"),
        Some(b"tcp://n1:1".to_vec())
    );

    // Hand-over: once the writer is gone, another attach adopts its
    // generation and publishes the next one.
    drop(modex);
    let again = reopen(&server);
    let mut modex = again.attach::<StoreWriter>(RegionKind::MODEX, 0).unwrap();
    assert_eq!(modex.generation(), 1);
    let mut card = modex.builder();
    card.insert("job", 1, "card", b"tcp://n1:2".to_vec());
    for round in 0..5 {
        // Several publications: the adopted writer rotates through the
        // buffers without touching the pinned one.
        let pinned = server_view.pin().unwrap();
        assert_eq!(modex.publish(card.clone()).unwrap(), 2 + round);
        assert_eq!(pinned.get("job", 1, "card").unwrap().len(), 10);
    }
    assert_eq!(server_view.generation(), 6);
    assert_eq!(
        server_view.get("job", 1, "card"),
        Some(b"tcp://n1:2".to_vec())
    );
    // A store region holds no barrier table.
    assert_eq!(
        again
            .attach::<BarrierTable>(RegionKind::MODEX, 0)
            .unwrap_err(),
        OpenError::BadMagic {
            found: STORE_MAGIC,
            expected: BARRIER_MAGIC
        }
    );
}
