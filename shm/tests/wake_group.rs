//! The segment's wake group with real futexes: consumers of several client
//! rings sleep in the group (each on its bit); a producer on another
//! mapping of the segment pushes into every ring quietly and wakes all the
//! sleepers with one `FUTEX_WAKE_BITSET`.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use pmix_shm::layout::RegionKind;
use pmix_shm::ring::{Ring, RingParams, WakeBatch};
use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::wake_group::WakeGroup;

const RINGS: u32 = 4;

fn segment() -> (Segment, Vec<Ring>) {
    let params = RingParams::new(64).unwrap();
    let mut layout = SegmentLayout::new();
    for id in 0..RINGS {
        layout = layout.region_for::<Ring>(RegionKind::CLIENT_RING, id, &params);
    }
    let seg = Segment::create(&layout).unwrap();
    let rings = (0..RINGS)
        .map(|id| seg.init(RegionKind::CLIENT_RING, id, &params).unwrap())
        .collect();
    seg.publish();
    (seg, rings)
}

/// Waits (bounded) until every ring's consumer announced sleep.
fn all_asleep(rings: &[Ring]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while rings.iter().any(|r| r.consumer_doorbell().raw() & 1 == 0) {
        assert!(Instant::now() < deadline, "consumers never went to sleep");
        std::thread::sleep(Duration::from_millis(1));
    }
    // the announcement precedes the FUTEX_WAIT by a few instructions
    std::thread::sleep(Duration::from_millis(20));
}

#[test]
fn rings_of_one_segment_share_its_wake_group() {
    let (seg, rings) = segment();
    let other = Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap();
    let theirs: Ring = other.attach(RegionKind::CLIENT_RING, 0).unwrap();
    let (a, b) = (rings[0].wake_group().unwrap(), theirs.wake_group().unwrap());
    assert!(a.same(rings[1].wake_group().unwrap()));
    // two mappings: different addresses, one word
    let e = b.epoch();
    assert!(a.wake(WakeGroup::bit_for(0)));
    assert_eq!(b.epoch(), e.wrapping_add(1));
}

#[test]
fn one_wake_call_wakes_every_sleeping_consumer_of_a_fan_out() {
    let (seg, rings) = segment();
    let (tx, rx) = mpsc::channel();
    let consumers: Vec<_> = rings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (r, tx) = (r.clone(), tx.clone());
            std::thread::spawn(move || {
                let mut c = r.consumer().unwrap();
                let deadline = Instant::now() + Duration::from_secs(20);
                let ok = r.consumer_wait_until(
                    WakeGroup::bit_for(i as u32),
                    || c.is_ready(),
                    Duration::ZERO,
                    Some(deadline),
                );
                let got = c.try_pop(|k, _| k).ok();
                tx.send((i, ok, got, Instant::now())).unwrap();
            })
        })
        .collect();
    all_asleep(&rings);
    // the sender: another mapping of the segment, as another process has
    let other = Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap();
    let targets: Vec<Ring> = (0..RINGS)
        .map(|id| other.attach(RegionKind::CLIENT_RING, id).unwrap())
        .collect();
    let sent = Instant::now();
    let mut batch = WakeBatch::new();
    for (i, t) in targets.iter().enumerate() {
        t.try_push_quiet(i as u16, b"fan-out").unwrap();
        batch.add(t);
    }
    assert_eq!(
        batch.finish(),
        1,
        "one wake-up system call for {RINGS} sleepers"
    );
    let mut seen = vec![false; RINGS as usize];
    for _ in 0..RINGS {
        let (i, ok, got, at) = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert!(
            ok,
            "consumer {i} ended by its deadline: its wake-up was lost"
        );
        assert_eq!(got, Some(i as u16));
        // generous: a lost wake-up ends by the 20 s deadline instead
        assert!(
            at - sent < Duration::from_secs(10),
            "consumer {i} woke late"
        );
        seen[i] = true;
    }
    assert!(seen.iter().all(|s| *s));
    for c in consumers {
        c.join().unwrap();
    }
}

#[test]
fn waking_an_awake_consumer_makes_no_system_call() {
    let (_seg, rings) = segment();
    let mut batch = WakeBatch::new();
    for r in &rings {
        r.try_push_quiet(1, b"x").unwrap();
        batch.add(r);
    }
    assert_eq!(batch.finish(), 0);
    assert!(!rings[0].wake_consumer());
}
