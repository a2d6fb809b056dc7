//! A client slot's event ring and modex store are written into the
//! segment when the slot is first registered, not by `Server::init`
//! (issue 18, start-up): before, every slot's regions were written at
//! start-up, touching pages for all `max_clients` slots (most of a host's
//! `PMIx_server_init`). Checked through a second mapping, as a client sees
//! it, and through the pages the segment's memory file holds.

mod abuse;

use std::os::unix::fs::MetadataExt;
use std::sync::Arc;

use abuse::{p, register, server};
use pmix_server::NullHost;
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::Ring;
use pmix_shm::segment::Segment;
use pmix_shm::store::StoreReader;

const SLOTS: u32 = 32;
const RING_CELLS: usize = 1024;

/// Bytes of memory the segment's file holds now.
fn resident(seg: &Segment) -> u64 {
    let f = std::fs::File::from(seg.fd().try_clone_to_owned().unwrap());
    f.metadata().unwrap().blocks() * 512
}

#[test]
fn a_slot_s_regions_are_written_when_it_is_first_registered() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| {
        c.max_clients = SLOTS;
        c.event_ring_cells = RING_CELLS;
    });
    let seg = Segment::open(server.segment().fd().try_clone_to_owned().unwrap()).unwrap();
    let ring_bytes = (RING_CELLS * 64) as u64;
    let at_start = resident(&seg);
    for s in 0..SLOTS {
        assert!(
            seg.attach::<Ring>(RegionKind::CLIENT_RING, s).is_err(),
            "slot {s}'s ring is there before any registration"
        );
        assert!(seg.attach::<StoreReader>(RegionKind::MODEX, s).is_err());
    }
    assert!(
        at_start < u64::from(SLOTS) * ring_bytes / 2,
        "the segment holds {at_start} bytes after init, as if the slots were written"
    );

    register(&server, "a", 2);
    let used = [
        server.slot_of(&p("a", 0)).unwrap(),
        server.slot_of(&p("a", 1)).unwrap(),
    ];
    for s in 0..SLOTS {
        let ring = seg.attach::<Ring>(RegionKind::CLIENT_RING, s);
        let store = seg.attach::<StoreReader>(RegionKind::MODEX, s);
        assert_eq!(ring.is_ok(), used.contains(&s), "slot {s}'s ring");
        assert_eq!(store.is_ok(), used.contains(&s), "slot {s}'s store");
    }
    let registered = resident(&seg);
    println!("segment memory: {at_start} bytes after init, {registered} after 2 registrations");
    assert!(registered >= at_start + 2 * ring_bytes);
}
