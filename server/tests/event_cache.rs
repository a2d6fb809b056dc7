//! EVD-04: the server's event cache holds 512 events unless configured
//! otherwise: a client registered after 600 environment events is given
//! the newest 512, in arrival order (its ring made large enough to take
//! them all, the cache left at its default).

mod abuse;

use std::os::unix::fs::MetadataExt;
use std::sync::Arc;

use abuse::{p, server};
use pmix_core::event::{EventMsg, RECORD_EVENT};
use pmix_core::{attrs, DataRange, Info, Nspace, Status, Value};
use pmix_server::{NullHost, ServerConfig};
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::Ring;
use pmix_shm::segment::Segment;

#[test]
fn the_default_cache_keeps_the_newest_512_events() {
    assert_eq!(
        ServerConfig::new(Nspace::new("x").unwrap()).event_cache_size,
        512
    );
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |cfg| {
        cfg.max_clients = 2;
        cfg.event_ring_cells = 8192;
        // the cache size stays ServerConfig::new's
        cfg.event_cache_size = ServerConfig::new(Nspace::new("x").unwrap()).event_cache_size;
    });
    let ns = Nspace::new("a").unwrap();
    let info = [Info::new(attrs::JOB_SIZE, Value::Uint32(1)).unwrap()];
    server.register_nspace(&ns, 1, &info).unwrap();
    for n in 1..=600u32 {
        let i = Info::new("pmix.test.n", Value::Uint32(n)).unwrap();
        server
            .notify(Status(-3001), None, DataRange::GLOBAL, &[i])
            .unwrap();
    }
    let m = std::fs::metadata("/proc/self").unwrap();
    server
        .register_client(&p("a", 0), m.uid(), m.gid())
        .unwrap();
    // the replay is in the new client's ring, read as its client would
    let slot = server.slot_of(&p("a", 0)).unwrap();
    let seg = Segment::open(server.segment().fd().try_clone_to_owned().unwrap()).unwrap();
    let ring = seg.attach::<Ring>(RegionKind::CLIENT_RING, slot).unwrap();
    let mut c = ring.consumer().unwrap();
    let mut got = Vec::new();
    c.drain(usize::MAX, |kind, bytes| {
        assert_eq!(kind, RECORD_EVENT);
        let e = EventMsg::decode(bytes).unwrap();
        let n = e
            .info
            .iter()
            .find(|i| i.key.as_str() == "pmix.test.n")
            .and_then(|i| i.value.to_u64().ok())
            .unwrap();
        got.push(n);
    });
    let want: Vec<u64> = (89..=600).collect();
    assert_eq!(got.len(), 512, "{got:?}");
    assert_eq!(got, want);
}
