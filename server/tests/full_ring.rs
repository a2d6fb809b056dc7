//! A client that stops draining its event ring delays nobody (issue 14,
//! item 2): the reactor never waits for room in a ring. Rank 0 sends
//! events only rank 1 is to get, while rank 1's ring is full and nobody
//! drains it: each `NOTIFY` is answered at once (before, the sender's
//! request waited `event_push_timeout` per event), another client is
//! served meanwhile, and once the ring is drained every event arrives, in
//! order.

mod abuse;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abuse::{p, register, server, RawClient};
use pmix_core::event::{EventId, EventMsg, RECORD_EVENT};
use pmix_core::proto::Request;
use pmix_core::{DataRange, Info, Status, Value};
use pmix_server::NullHost;
use pmix_shm::layout::RegionKind;
use pmix_shm::ring::Ring;
use pmix_shm::segment::Segment;

const EVENTS: u32 = 60;
/// How long the server may wait for room in a ring (long, so that a
/// request held by it shows).
const PUSH_TIMEOUT: Duration = Duration::from_secs(5);
/// What an answer may take on a shared machine (generous).
const ANSWER: Duration = Duration::from_secs(1);

fn notify(n: u32, skip: Vec<u32>) -> Request {
    let info = [Info::new("pmix.test.n", Value::Uint32(n)).unwrap()];
    let mut event =
        EventMsg::for_notify(Status(-3001), Some(p("a", 0)), DataRange::NAMESPACE, &info).unwrap();
    event.id = EventId {
        origin: EventId::client_origin(4321),
        seq: u64::from(n),
    };
    Request::Notify {
        event,
        delivered: skip,
    }
}

fn number(ev: &EventMsg) -> u32 {
    ev.info
        .iter()
        .find(|i| i.key.as_str() == "pmix.test.n")
        .and_then(|i| i.value.to_u64().ok())
        .map_or(u32::MAX, |n| n as u32)
}

#[test]
fn a_full_event_ring_delays_no_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = server(dir.path(), Arc::new(NullHost), |c| {
        c.event_push_timeout = PUSH_TIMEOUT;
    });
    register(&server, "a", 3);
    let mut sender = RawClient::connect(&server, &p("a", 0));
    let _slow = RawClient::connect(&server, &p("a", 1));
    let mut other = RawClient::connect(&server, &p("a", 2));
    let skip = vec![
        server.slot_of(&p("a", 0)).unwrap(),
        server.slot_of(&p("a", 2)).unwrap(),
    ];

    let mut slowest = Duration::ZERO;
    for n in 0..EVENTS {
        let t = Instant::now();
        sender.send(&notify(n, skip.clone()), n + 1);
        let (tag, reply) = sender.next_reply();
        let took = t.elapsed();
        assert_eq!((tag, reply.status), (n + 1, Status::SUCCESS));
        assert!(
            took < ANSWER,
            "event {n}: the NOTIFY was answered after {took:?} (rank 1's ring is full)"
        );
        slowest = slowest.max(took);
    }
    let t = Instant::now();
    other.send(
        &Request::EventInterest {
            codes: vec![Status(-3001)],
            default: false,
        },
        9,
    );
    let (tag, reply) = other.next_reply();
    let other_took = t.elapsed();
    assert_eq!((tag, reply.status), (9, Status::SUCCESS));
    assert!(other_took < ANSWER, "another client waited {other_took:?}");
    println!(
        "{EVENTS} events for a full ring: slowest NOTIFY answer {slowest:?}; another client's \
         request answered in {other_took:?}"
    );

    // Rank 1's ring, drained as its client would: every event, in order.
    let seg = Segment::open(server.segment().fd().try_clone_to_owned().unwrap()).unwrap();
    let slot = server.slot_of(&p("a", 1)).unwrap();
    let ring = seg.attach::<Ring>(RegionKind::CLIENT_RING, slot).unwrap();
    let mut consumer = ring.consumer().unwrap();
    let mut got = Vec::new();
    let end = Instant::now() + 4 * PUSH_TIMEOUT;
    while got.len() < EVENTS as usize && Instant::now() < end {
        consumer.drain(usize::MAX, |kind, bytes| {
            assert_eq!(kind, RECORD_EVENT);
            got.push(number(&EventMsg::decode(bytes).unwrap()));
        });
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        got,
        (0..EVENTS).collect::<Vec<_>>(),
        "every event, in order"
    );
    server.finalize();
}
