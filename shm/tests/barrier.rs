//! The barrier table under threads (no early passage, poison, timeouts),
//! and the segment's wrappers for the barrier table, the job-data store and
//! the broadcast ring, through a real `Segment::create` and a second mapping
//! of the same memfd (`Segment::open` of a duplicated descriptor).
#![cfg(not(loom))]

use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::{Error, Status};
use pmix_shm::barrier::{
    BarrierAttachError, BarrierParams, BarrierTable, BarrierWaitError, BARRIER_HEADER_SIZE,
};
use pmix_shm::broadcast::{BroadcastAttachError, BroadcastParams};
use pmix_shm::error::RegionError;
use pmix_shm::layout::{caps, RegionKind};
use pmix_shm::segment::{InitRegionError, OpenRegionError, Segment, SegmentLayout};
use pmix_shm::store::{StoreAttachError, StoreParams, STORE_MAGIC};
use pmix_shm::sync::{AtomicU32, Ordering};

const LONG: Duration = Duration::from_secs(30);

fn deadline() -> Option<Instant> {
    Some(Instant::now() + LONG)
}

/// `parties` threads run `episodes` barrier episodes; before arriving, each
/// bumps the episode's counter, and after its wait it must find all
/// `parties` bumps there. With `owner_releases`, a separate thread releases
/// each generation once it has seen every arrival.
fn run_episodes(parties: u32, episodes: usize, owner_releases: bool) {
    let table = BarrierTable::new_heap(&BarrierParams {
        barriers: 3,
        peers: 0,
    });
    table.barrier(1).unwrap().reset(parties);
    let counters: Arc<Vec<AtomicU32>> =
        Arc::new((0..episodes).map(|_| AtomicU32::new(0)).collect());
    let threads: Vec<_> = (0..parties)
        .map(|t| {
            let (table, counters) = (table.clone(), counters.clone());
            std::thread::spawn(move || {
                let b = table.barrier(1).unwrap();
                // Half the threads spin a little first, half go to sleep at once.
                let spin = if t % 2 == 0 {
                    Duration::ZERO
                } else {
                    Duration::from_micros(20)
                };
                for (e, counter) in counters.iter().enumerate() {
                    // ORDERING: Relaxed — published by the barrier itself.
                    counter.fetch_add(1, Ordering::Relaxed);
                    let a = b.arrive(!owner_releases);
                    assert_eq!(a.generation, e as u64 + 1);
                    b.wait(a.generation, spin, deadline()).unwrap();
                    // ORDERING: Relaxed — every bump happens-before the
                    // release we waited for.
                    let seen = counter.load(Ordering::Relaxed);
                    assert_eq!(seen, parties, "thread {t} passed episode {e} early");
                }
            })
        })
        .collect();
    if owner_releases {
        let b = table.barrier(1).unwrap();
        for k in 1..=episodes as u64 {
            let start = Instant::now();
            while b.arrived() < k * u64::from(parties) {
                assert!(
                    start.elapsed() < LONG,
                    "arrivals of generation {k} never came"
                );
                std::thread::yield_now();
            }
            assert!(!b.is_released(k));
            b.release(k);
        }
    }
    for t in threads {
        t.join().unwrap();
    }
    let b = table.barrier(1).unwrap();
    assert_eq!(b.arrived(), episodes as u64 * u64::from(parties));
    assert_eq!(b.released(), episodes as u64);
    assert_eq!(
        table.barrier(0).unwrap().arrived(),
        0,
        "neighbours untouched"
    );
}

#[test]
fn threads_never_pass_a_generation_early() {
    run_episodes(4, 3000, false);
}

#[test]
fn an_owner_release_publishes_every_arrival() {
    run_episodes(3, 1000, true);
}

#[test]
fn poison_wakes_sleepers_promptly_with_its_status() {
    let table = BarrierTable::new_heap(&BarrierParams {
        barriers: 1,
        peers: 0,
    });
    table.barrier(0).unwrap().reset(3);
    let sleepers: Vec<_> = (0..2)
        .map(|_| {
            let table = table.clone();
            std::thread::spawn(move || {
                let b = table.barrier(0).unwrap();
                let a = b.arrive(true);
                let r = b.wait(a.generation, Duration::ZERO, deadline());
                (r, Instant::now())
            })
        })
        .collect();
    // Let them fall asleep (not needed for correctness).
    std::thread::sleep(Duration::from_millis(50));
    let b = table.barrier(0).unwrap();
    let poisoned_at = Instant::now();
    assert!(b.poison(-25));
    for s in sleepers {
        let (r, woke_at) = s.join().unwrap();
        assert_eq!(r, Err(BarrierWaitError::Poisoned(-25)));
        assert!(
            woke_at.duration_since(poisoned_at) < Duration::from_secs(2),
            "woken {:?} after the poison",
            woke_at.duration_since(poisoned_at)
        );
    }
    assert_eq!(b.status(), -25);
    let e = Error::from(BarrierWaitError::Poisoned(b.status()));
    assert_eq!(e.status(), Status(-25));
}

#[test]
fn a_wait_ends_at_its_deadline() {
    let table = BarrierTable::new_heap(&BarrierParams {
        barriers: 1,
        peers: 0,
    });
    let b = table.barrier(0).unwrap();
    b.reset(2);
    let a = b.arrive(true);
    let start = Instant::now();
    let r = b.wait(
        a.generation,
        Duration::from_micros(100),
        Some(start + Duration::from_millis(30)),
    );
    assert_eq!(r, Err(BarrierWaitError::Timeout));
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(30), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(
        Error::from(BarrierWaitError::Timeout).status(),
        Status::ERR_TIMEOUT
    );
}

// ---------------------------------------------------------------------------
// Through a segment.

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

fn broadcast_params() -> BroadcastParams {
    BroadcastParams {
        cell_count: 8,
        payload_size: 48,
    }
}

fn layout() -> SegmentLayout {
    SegmentLayout::new()
        .barriers(RegionKind::BARRIERS, 0, &barrier_params())
        .barriers(RegionKind::BARRIERS, 1, &barrier_params())
        .store(RegionKind::JOB_STORE, 0, &store_params())
        .store(RegionKind::MODEX, 0, &store_params())
        .broadcast(RegionKind::EVENT_CACHE, 0, &broadcast_params())
        .capabilities(caps::BARRIERS | caps::JOB_STORE | caps::EVENT_CACHE)
}

/// A second mapping of the same memfd, as a client gets it.
fn reopen(seg: &Segment) -> Segment {
    Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap()
}

#[test]
fn barriers_work_across_two_mappings_of_one_memfd() {
    let server = Segment::create(&layout()).unwrap();
    let st = server
        .init_barriers(RegionKind::BARRIERS, 0, &barrier_params())
        .unwrap();
    st.barrier(1).unwrap().reset(2);
    server.publish();
    let client = reopen(&server);
    assert_ne!(client.capabilities() & caps::BARRIERS, 0);
    let ct = client.barriers(RegionKind::BARRIERS, 0).unwrap();
    assert_eq!((ct.barrier_count(), ct.peer_count()), (2, 4));
    assert_eq!(ct.barrier(1).unwrap().parties(), 2);

    // Peer cells: written through one mapping, read through the other.
    let p = ct.peer(3).unwrap();
    p.set_pid(77);
    assert_eq!(p.compare_set_state(0, 5), Ok(1));
    let sp = st.peer(3).unwrap();
    assert_eq!((sp.state(), sp.pid(), sp.epoch()), (5, 77, 1));

    // Episodes between a thread on the client mapping and this thread on
    // the server's: both sleep on the futex (no spin), so every episode
    // needs a cross-mapping wake-up (shared futexes are keyed by the file,
    // not the address).
    const EPISODES: u64 = 500;
    let ct2 = ct.clone();
    drop(client); // the table handle keeps the mapping alive
    let peer = std::thread::spawn(move || {
        let b = ct2.barrier(1).unwrap();
        for k in 1..=EPISODES {
            let a = b.arrive(true);
            assert_eq!(a.generation, k);
            b.wait(k, Duration::ZERO, deadline()).unwrap();
        }
    });
    let b = st.barrier(1).unwrap();
    for k in 1..=EPISODES {
        assert_eq!(b.arrive(true).generation, k);
        b.wait(k, Duration::ZERO, deadline()).unwrap();
    }
    peer.join().unwrap();
    assert_eq!(ct.barrier(1).unwrap().released(), EPISODES);

    // Poison through one mapping, seen through the other.
    let cb = ct.barrier(0).unwrap();
    cb.reset(2);
    let a = cb.arrive(true);
    let waiter = std::thread::spawn(move || {
        ct.barrier(0)
            .unwrap()
            .wait(a.generation, Duration::ZERO, deadline())
    });
    std::thread::sleep(Duration::from_millis(20));
    assert!(st.barrier(0).unwrap().poison(-61));
    assert_eq!(waiter.join().unwrap(), Err(BarrierWaitError::Poisoned(-61)));
}

#[test]
fn init_and_open_errors_of_the_wrappers() {
    let server = Segment::create(&layout()).unwrap();
    server
        .init_barriers(RegionKind::BARRIERS, 0, &barrier_params())
        .unwrap();
    assert_eq!(
        server
            .init_barriers(RegionKind::BARRIERS, 0, &barrier_params())
            .unwrap_err(),
        InitRegionError::AlreadyInitialized
    );
    let missing = RegionError::NotFound {
        kind: RegionKind::BARRIERS,
        id: 9,
    };
    assert_eq!(
        server
            .init_barriers(RegionKind::BARRIERS, 9, &barrier_params())
            .unwrap_err(),
        InitRegionError::Region(missing)
    );
    // A table that does not fit its region.
    assert!(matches!(
        server.init_barriers(
            RegionKind::BARRIERS,
            1,
            &BarrierParams {
                barriers: 100,
                peers: 0
            }
        ),
        Err(InitRegionError::Barriers(_))
    ));
    // A store too big for its region.
    let big = StoreParams {
        buffer_size: 1 << 20,
        ..store_params()
    };
    let e = server
        .init_store(RegionKind::JOB_STORE, 0, &big)
        .unwrap_err();
    assert!(matches!(e, InitRegionError::Store(_)), "{e}");
    assert_eq!(Error::from(e).status(), Status::ERR_INIT);
    server.publish();
    assert_eq!(
        server
            .init_broadcast(RegionKind::EVENT_CACHE, 0, &broadcast_params())
            .unwrap_err(),
        InitRegionError::AlreadyPublished
    );

    let client = reopen(&server);
    let e = client
        .init_barriers(RegionKind::BARRIERS, 1, &barrier_params())
        .unwrap_err();
    assert_eq!(e, InitRegionError::NotCreator);
    assert_eq!(Error::from(e).status(), Status::ERR_BAD_PARAM);
    let e = client.barriers(RegionKind::BARRIERS, 9).unwrap_err();
    assert_eq!(e, OpenRegionError::Region(missing));
    assert_eq!(Error::from(e).status(), Status::ERR_NOT_FOUND);
    // Region 1 was never initialised (its init failed): zero magic.
    assert_eq!(
        client.barriers(RegionKind::BARRIERS, 1).unwrap_err(),
        OpenRegionError::Barriers(BarrierAttachError::NotReady)
    );
    // Nothing was initialised in the store regions either.
    assert_eq!(
        client.store_reader(RegionKind::JOB_STORE, 0).unwrap_err(),
        OpenRegionError::Store(StoreAttachError::NotReady)
    );
    assert_eq!(
        client
            .broadcast_reader(RegionKind::BARRIERS, 0)
            .unwrap_err(),
        OpenRegionError::Broadcast(BroadcastAttachError::BadMagic {
            found: u64::from_le_bytes(*b"PMIXBARR")
        })
    );
    let e = client.barriers(RegionKind::EVENT_CACHE, 0).unwrap_err();
    assert!(
        matches!(e, OpenRegionError::Barriers(BarrierAttachError::NotReady)),
        "{e}"
    );
    assert!(e.to_string().starts_with("OpenRegionError::Barriers"));
}

#[test]
fn a_garbage_barrier_header_is_refused() {
    let server = Segment::create(&layout()).unwrap();
    let st = server
        .init_barriers(RegionKind::BARRIERS, 0, &barrier_params())
        .unwrap();
    server.publish();
    // A misbehaving process rewrites the peer count (header offset 16).
    let region = server.region(RegionKind::BARRIERS, 0).unwrap();
    // SAFETY: offset 16 of the region lies inside its header (128 bytes),
    // 4-aligned; the header's fields are atomics.
    let peer_count = unsafe { &*region.ptr().as_ptr().add(16).cast::<AtomicU32>() };
    // ORDERING: Relaxed — the test's own later attach is in this thread.
    peer_count.store(1 << 20, Ordering::Relaxed);
    let client = reopen(&server);
    let e = client.barriers(RegionKind::BARRIERS, 0).unwrap_err();
    assert_eq!(
        e,
        OpenRegionError::Barriers(BarrierAttachError::BadGeometry)
    );
    assert_eq!(Error::from(e).status(), Status::ERR_INIT);
    // More peers than the region holds, within the maximum.
    peer_count.store(1000, Ordering::Relaxed);
    assert!(matches!(
        client.barriers(RegionKind::BARRIERS, 0),
        Err(OpenRegionError::Barriers(
            BarrierAttachError::BadGeometry | BarrierAttachError::RegionTooSmall { .. }
        ))
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
        .init_store(RegionKind::JOB_STORE, 0, &store_params())
        .unwrap();
    // The server initialises the client's modex store but never writes it.
    drop(
        server
            .init_store(RegionKind::MODEX, 0, &store_params())
            .unwrap(),
    );
    server.publish();
    job.update(|t| {
        t.insert("job", 0, "pmix.local.size", vec![2]);
    })
    .unwrap();

    let client = reopen(&server);
    let reader = client.store_reader(RegionKind::JOB_STORE, 0).unwrap();
    assert_eq!(reader.get("job", 0, "pmix.local.size"), Some(vec![2]));
    // The job store has a live writer in this process (the server's).
    assert_eq!(
        client.store_writer(RegionKind::JOB_STORE, 0).unwrap_err(),
        OpenRegionError::WriterExists
    );
    assert_eq!(
        Error::from(OpenRegionError::WriterExists).status(),
        Status::ERR_RESOURCE_BUSY
    );

    // The client owns its modex store.
    let mut modex = client.store_writer(RegionKind::MODEX, 0).unwrap();
    assert_eq!(modex.generation(), 0);
    assert!(modex.table().is_empty(), "an adopted writer starts empty");
    let mut card = modex.builder();
    card.insert("job", 1, "card", b"tcp://n1:1".to_vec());
    assert_eq!(modex.publish(card).unwrap(), 1);
    assert!(matches!(
        server.store_writer(RegionKind::MODEX, 0),
        Err(OpenRegionError::WriterExists)
    ));
    let server_view = server.store_reader(RegionKind::MODEX, 0).unwrap();
    assert_eq!(
        server_view.get("job", 1, "card"),
        Some(b"tcp://n1:1".to_vec())
    );

    // Hand-over: once the writer is gone, another attach adopts its
    // generation and publishes the next one.
    drop(modex);
    let again = reopen(&server);
    let mut modex = again.store_writer(RegionKind::MODEX, 0).unwrap();
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
        again.barriers(RegionKind::MODEX, 0).unwrap_err(),
        OpenRegionError::Barriers(BarrierAttachError::BadMagic { found: STORE_MAGIC })
    );
}

#[test]
fn broadcast_through_the_segment() {
    let server = Segment::create(&layout()).unwrap();
    let mut w = server
        .init_broadcast(RegionKind::EVENT_CACHE, 0, &broadcast_params())
        .unwrap();
    w.write(b"before publish").unwrap();
    server.publish();
    let client = reopen(&server);
    let mut r = client.broadcast_reader(RegionKind::EVENT_CACHE, 0).unwrap();
    drop(client);
    assert_eq!(r.read_next().unwrap().payload, b"before publish");
    w.write(b"after").unwrap();
    let ev = r.read_next().unwrap();
    assert_eq!((ev.index, ev.payload.as_slice()), (1, &b"after"[..]));
    drop(server);
    drop(w);
    // The reader alone keeps the mapping alive.
    assert_eq!(r.snapshot().events.len(), 2);
}
