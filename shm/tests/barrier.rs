//! The barrier table under threads (no early passage, poison, timeouts),
//! and across two mappings of one memfd (a real `Segment::create` and a
//! `Segment::open` of a duplicated descriptor).
#![cfg(not(loom))]

use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::{Error, Status};
use pmix_shm::barrier::{BarrierParams, BarrierTable, BarrierWaitError};
use pmix_shm::layout::{caps, RegionKind};
use pmix_shm::segment::{Segment, SegmentLayout};
use pmix_shm::sync::{AtomicU32, Ordering};

const LONG: Duration = Duration::from_secs(30);

fn deadline() -> Option<Instant> {
    Some(Instant::now() + LONG)
}

fn never() -> Option<i32> {
    None
}

fn table(barriers: u32) -> BarrierTable {
    BarrierTable::new_heap(&BarrierParams { barriers, peers: 0 })
}

/// `parties` threads run `episodes` barrier episodes; before arriving, each
/// bumps the episode's counter, and after its wait it must find all
/// `parties` bumps there.
fn run_episodes(parties: u32, episodes: usize) {
    let table = table(3);
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
                    let episode = e as u32 + 1;
                    // ORDERING: Relaxed — published by the barrier itself.
                    counter.fetch_add(1, Ordering::Relaxed);
                    let a = b.arrive(episode).unwrap();
                    if !a.last {
                        b.wait(episode, spin, deadline(), &never).unwrap();
                    }
                    // ORDERING: Relaxed — every bump happens-before the
                    // release we waited for.
                    let seen = counter.load(Ordering::Relaxed);
                    assert_eq!(seen, parties, "thread {t} passed episode {e} early");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let b = table.barrier(1).unwrap();
    assert_eq!(b.open_episode().episode, episodes as u32 + 1);
    assert_eq!(b.open_episode().count, 0);
    assert_eq!(
        table.barrier(0).unwrap().open_episode().episode,
        1,
        "neighbours untouched"
    );
}

#[test]
fn threads_never_pass_an_episode_early() {
    run_episodes(4, 3000);
}

/// Three threads; in every odd episode one of them (in turn) comes 30 ms
/// late while the others give up after 5 ms. However the race goes, every
/// party of an episode gets the same answer (all released, or all timed
/// out: `Timeout`, `EpisodeTimedOut` or `Late`), no late arrival is counted
/// in the next episode, and every even episode (no deadline) is released.
/// The old barrier poisoned itself at the first timeout and failed every
/// later episode.
#[test]
fn timed_out_episodes_give_every_party_one_answer_and_the_next_works() {
    const EPISODES: u32 = 12;
    let table = table(1);
    table.barrier(0).unwrap().reset(3);
    let threads: Vec<_> = (0..3u32)
        .map(|t| {
            let table = table.clone();
            std::thread::spawn(move || {
                let b = table.barrier(0).unwrap();
                let mut got = Vec::new();
                for episode in 1..=EPISODES {
                    let timed = episode % 2 == 1;
                    let late = timed && (episode / 2) % 3 == t;
                    if late {
                        std::thread::sleep(Duration::from_millis(30));
                    }
                    let limit = if timed && !late {
                        Some(Instant::now() + Duration::from_millis(5))
                    } else {
                        deadline()
                    };
                    let r = b.arrive(episode).and_then(|a| {
                        if a.last {
                            Ok(())
                        } else {
                            b.wait(episode, Duration::from_micros(20), limit, &never)
                        }
                    });
                    got.push(r);
                }
                got
            })
        })
        .collect();
    let got: Vec<Vec<Result<(), BarrierWaitError>>> =
        threads.into_iter().map(|t| t.join().unwrap()).collect();
    let mut timed_out = 0;
    for e in 0..EPISODES as usize {
        let answers: Vec<_> = got.iter().map(|g| g[e]).collect();
        let released = answers.iter().filter(|r| r.is_ok()).count();
        assert!(
            released == 0 || released == 3,
            "episode {}: answers differ: {answers:?}",
            e + 1
        );
        if e % 2 == 1 {
            assert_eq!(released, 3, "episode {}: {answers:?}", e + 1);
        }
        if released == 0 {
            timed_out += 1;
            assert!(answers.iter().all(|r| matches!(
                r,
                Err(BarrierWaitError::Timeout
                    | BarrierWaitError::EpisodeTimedOut
                    | BarrierWaitError::Late)
            )));
            assert_eq!(
                answers
                    .iter()
                    .filter(|r| **r == Err(BarrierWaitError::Timeout))
                    .count(),
                1,
                "episode {}: one party ended it: {answers:?}",
                e + 1
            );
        }
    }
    // 30 ms against 5 ms: at least some episodes must have timed out, or
    // the test tested nothing.
    assert!(timed_out > 0, "no episode timed out: {got:?}");
    let b = table.barrier(0).unwrap();
    assert_eq!(b.open_episode().episode, EPISODES + 1);
    assert_eq!((b.open_episode().count, b.status()), (0, 0));
}

#[test]
fn poison_wakes_sleepers_promptly_with_its_status() {
    let table = table(1);
    table.barrier(0).unwrap().reset(3);
    let sleepers: Vec<_> = (0..2)
        .map(|_| {
            let table = table.clone();
            std::thread::spawn(move || {
                let b = table.barrier(0).unwrap();
                let a = b.arrive(1).unwrap();
                let r = b.wait(a.episode, Duration::ZERO, deadline(), &never);
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
    assert_eq!(b.arrive(1), Err(BarrierWaitError::Poisoned(-25)), "sticky");
    let e = Error::from(BarrierWaitError::Poisoned(b.status()));
    assert_eq!(e.status(), Status(-25));
}

/// A timeout wakes the other sleepers of the episode at once (they do not
/// sleep on until their own, later, deadlines).
#[test]
fn a_timeout_wakes_the_other_sleepers_promptly() {
    let table = table(1);
    let b = table.barrier(0).unwrap();
    b.reset(3);
    let sleeper = {
        let table = table.clone();
        std::thread::spawn(move || {
            let b = table.barrier(0).unwrap();
            b.arrive(1).unwrap();
            let r = b.wait(1, Duration::ZERO, deadline(), &never);
            (r, Instant::now())
        })
    };
    b.arrive(1).unwrap();
    let start = Instant::now();
    let r = b.wait(
        1,
        Duration::from_micros(100),
        Some(start + Duration::from_millis(30)),
        &never,
    );
    let ended_at = Instant::now();
    assert_eq!(r, Err(BarrierWaitError::Timeout));
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(30), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let (theirs, woke_at) = sleeper.join().unwrap();
    assert_eq!(theirs, Err(BarrierWaitError::EpisodeTimedOut));
    assert!(
        woke_at.saturating_duration_since(ended_at) < Duration::from_secs(2),
        "woken {:?} after the timeout",
        woke_at.saturating_duration_since(ended_at)
    );
    assert_eq!(b.arrive(1), Err(BarrierWaitError::Late));
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

fn layout() -> SegmentLayout {
    SegmentLayout::new()
        .region_for::<BarrierTable>(RegionKind::BARRIERS, 0, &barrier_params())
        .capabilities(caps::BARRIERS)
}

/// A second mapping of the same memfd, as a client gets it.
fn reopen(seg: &Segment) -> Segment {
    Segment::open(seg.fd().try_clone_to_owned().unwrap()).unwrap()
}

#[test]
fn barriers_work_across_two_mappings_of_one_memfd() {
    let server = Segment::create(&layout()).unwrap();
    let st: BarrierTable = server
        .init(RegionKind::BARRIERS, 0, &barrier_params())
        .unwrap();
    st.barrier(1).unwrap().reset(2);
    server.publish();
    let client = reopen(&server);
    assert_ne!(client.capabilities() & caps::BARRIERS, 0);
    let ct: BarrierTable = client.attach(RegionKind::BARRIERS, 0).unwrap();
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
    const EPISODES: u32 = 500;
    let ct2 = ct.clone();
    drop(client); // the table handle keeps the mapping alive
    let peer = std::thread::spawn(move || {
        let b = ct2.barrier(1).unwrap();
        for k in 1..=EPISODES {
            if !b.arrive(k).unwrap().last {
                b.wait(k, Duration::ZERO, deadline(), &never).unwrap();
            }
        }
    });
    let b = st.barrier(1).unwrap();
    for k in 1..=EPISODES {
        if !b.arrive(k).unwrap().last {
            b.wait(k, Duration::ZERO, deadline(), &never).unwrap();
        }
    }
    peer.join().unwrap();
    assert_eq!(ct.barrier(1).unwrap().open_episode().episode, EPISODES + 1);

    // A timeout through one mapping wakes a sleeper on the other.
    st.barrier(0).unwrap().reset(3);
    let ct3 = ct.clone();
    let sleeper = std::thread::spawn(move || {
        let b = ct3.barrier(0).unwrap();
        b.arrive(1).unwrap();
        b.wait(1, Duration::ZERO, deadline(), &never)
    });
    let sb = st.barrier(0).unwrap();
    sb.arrive(1).unwrap();
    let soon = Some(Instant::now() + Duration::from_millis(20));
    assert_eq!(
        sb.wait(1, Duration::ZERO, soon, &never),
        Err(BarrierWaitError::Timeout)
    );
    assert_eq!(
        sleeper.join().unwrap(),
        Err(BarrierWaitError::EpisodeTimedOut)
    );

    // Poison through one mapping, seen through the other.
    let cb = ct.barrier(0).unwrap();
    cb.reset(2);
    let a = cb.arrive(1).unwrap();
    let waiter = std::thread::spawn(move || {
        ct.barrier(0)
            .unwrap()
            .wait(a.episode, Duration::ZERO, deadline(), &never)
    });
    std::thread::sleep(Duration::from_millis(20));
    assert!(st.barrier(0).unwrap().poison(-61));
    assert_eq!(waiter.join().unwrap(), Err(BarrierWaitError::Poisoned(-61)));
}
