//! Unit tests of the episode protocol of one barrier cell (single thread,
//! every interleaving spelled out; the threaded and loom tests race them).

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::word::EpisodeWord;
use super::*;
use crate::sync::Ordering;

fn table() -> BarrierTable {
    BarrierTable::new_heap(&BarrierParams {
        barriers: 2,
        peers: 0,
    })
}

fn never() -> Option<i32> {
    None
}

fn word(episode: u32, prev_released: bool, count: u32) -> EpisodeWord {
    EpisodeWord {
        episode,
        prev_released,
        count,
    }
}

#[test]
fn the_last_arrival_releases_its_episode() {
    let t = table();
    let b = t.barrier(1).unwrap();
    b.reset(3);
    assert_eq!(b.open_episode(), EpisodeWord::RESET);
    let lasts: Vec<bool> = (0..3).map(|_| b.arrive(1).unwrap().last).collect();
    assert_eq!(lasts, [false, false, true]);
    assert_eq!(b.open_episode(), word(2, true, 0));
    assert_eq!(b.outcome(1), Some(Ok(())));
    assert_eq!(b.outcome(2), None, "episode 2 is open");
    assert_eq!(b.wait(1, Duration::ZERO, None, &never), Ok(()));
    assert_eq!(
        b.arrive(2),
        Ok(Arrival {
            episode: 2,
            last: false
        })
    );
    assert_eq!(b.open_episode(), word(2, true, 1));
    assert_eq!(t.barrier(0).unwrap().open_episode(), EpisodeWord::RESET);
}

/// The scenario on one cell: a timeout ends the episode for every
/// party; the late party is told at once and counted nowhere; the next
/// episode works (the old sticky poison failed every later fence).
#[test]
fn a_timeout_ends_the_episode_and_the_next_one_works() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(3);
    b.arrive(1).unwrap(); // party 0
    b.arrive(1).unwrap(); // party 1
    assert_eq!(b.time_out(1), Err(BarrierWaitError::Timeout)); // party 0
    assert_eq!(b.open_episode(), word(2, false, 0));
    assert_eq!(b.outcome(1), Some(Err(BarrierWaitError::EpisodeTimedOut))); // party 1
    assert_eq!(b.status(), 0, "no poison");
    assert_eq!(b.arrive(1), Err(BarrierWaitError::Late)); // party 2, late
    assert_eq!(
        b.open_episode().count,
        0,
        "the late arrival is counted nowhere"
    );
    for p in 0..3 {
        assert_eq!(b.arrive(2).unwrap().last, p == 2);
    }
    assert_eq!(b.outcome(2), Some(Ok(())));
    for p in 0..3 {
        assert_eq!(b.arrive(3).unwrap().last, p == 2);
    }
    assert_eq!(b.open_episode(), word(4, true, 0));
}

/// A deadline that passes just after the last arrival changes nothing:
/// the episode was released for everyone, the timing-out party included.
#[test]
fn a_timeout_after_the_last_arrival_reports_the_release() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(2);
    b.arrive(1).unwrap();
    assert!(b.arrive(1).unwrap().last);
    assert_eq!(b.time_out(1), Ok(()));
    assert_eq!(b.open_episode(), word(2, true, 0));
    // And the other way round: the timeout first, the "last" arrival late.
    b.arrive(2).unwrap();
    assert_eq!(b.time_out(2), Err(BarrierWaitError::Timeout));
    assert_eq!(b.arrive(2), Err(BarrierWaitError::Late));
    assert_eq!(b.time_out(2), Err(BarrierWaitError::EpisodeTimedOut));
}

/// A party slow to read its outcome, after the others moved on and timed
/// out the next episode without it, still learns the truth (`released`).
#[test]
fn outcomes_stay_exact_two_episodes_later() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(2);
    // Episode 1 released; party A has not looked yet.
    b.arrive(1).unwrap(); // A
    assert!(b.arrive(1).unwrap().last); // B
    b.arrive(2).unwrap(); // B
    assert_eq!(b.time_out(2), Err(BarrierWaitError::Timeout)); // B
    assert_eq!(b.released(), 1, "B recorded episode 1 before moving on");
    assert_eq!(b.open_episode(), word(3, false, 0));
    assert_eq!(b.outcome(1), Some(Ok(()))); // A
    assert_eq!(b.arrive(2), Err(BarrierWaitError::Late)); // A

    // Three parties: episode 1 times out while A waits, and episode 2
    // times out too (without A) before A looks.
    let b = t.barrier(1).unwrap();
    b.reset(3);
    b.arrive(1).unwrap(); // A
    b.arrive(1).unwrap(); // B
    assert_eq!(b.time_out(1), Err(BarrierWaitError::Timeout)); // B
    assert_eq!(b.arrive(1), Err(BarrierWaitError::Late)); // C
    b.arrive(2).unwrap(); // B
    b.arrive(2).unwrap(); // C
    assert_eq!(b.time_out(2), Err(BarrierWaitError::Timeout)); // C
    assert_eq!(b.open_episode(), word(3, false, 0));
    assert_eq!(b.outcome(1), Some(Err(BarrierWaitError::EpisodeTimedOut))); // A
    assert_eq!(b.released(), 0);
}

#[test]
fn zero_parties_behave_as_one() {
    let t = table();
    let b = t.barrier(0).unwrap();
    assert_eq!(b.parties(), 0);
    assert!(b.arrive(1).unwrap().last);
    assert!(b.arrive(2).unwrap().last);
    assert_eq!(b.outcome(2), Some(Ok(())));
}

#[test]
fn garbage_words_never_panic() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(2);
    // ORDERING: Relaxed — single-threaded test.
    b.cell.word.store(u64::MAX, Ordering::Relaxed);
    let a = b.arrive(u32::MAX).unwrap();
    assert!(a.last, "a count at or above parties closes the episode");
    assert_eq!(b.open_episode(), word(0, true, 0), "the episode wraps");
    assert_eq!(b.outcome(u32::MAX), Some(Ok(())));
    b.cell.released.store(u32::MAX, Ordering::Relaxed);
    assert_eq!(
        b.arrive(7),
        Err(BarrierWaitError::OutOfStep {
            episode: 7,
            open: 0
        })
    );
    assert_eq!(
        b.wait(7, Duration::ZERO, None, &never),
        Err(BarrierWaitError::OutOfStep {
            episode: 7,
            open: 0
        })
    );
}

#[test]
fn first_poison_wins_is_sticky_and_clears() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(2);
    assert!(!b.poison(0));
    b.arrive(1).unwrap();
    assert!(b.poison(-24));
    assert!(!b.poison(-25));
    assert_eq!(b.status(), -24);
    assert_eq!(b.arrive(1), Err(BarrierWaitError::Poisoned(-24)));
    assert_eq!(b.time_out(1), Err(BarrierWaitError::Poisoned(-24)));
    assert_eq!(
        b.wait(1, Duration::ZERO, None, &never),
        Err(BarrierWaitError::Poisoned(-24))
    );
    b.clear_poison();
    b.reset(2);
    assert_eq!(
        (b.open_episode(), b.released(), b.status()),
        (EpisodeWord::RESET, 0, 0)
    );
    assert_eq!(b.arrive(1).map(|a| a.last), Ok(false));
}

#[test]
fn a_wait_ends_at_its_deadline_by_ending_the_episode() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(2);
    b.arrive(1).unwrap();
    let start = Instant::now();
    let deadline = start + Duration::from_millis(15);
    assert_eq!(
        b.wait(1, Duration::from_micros(50), Some(deadline), &never),
        Err(BarrierWaitError::Timeout)
    );
    assert!(Instant::now() >= deadline);
    assert_eq!(b.cell.waiters.load(Ordering::Relaxed), 0);
    assert_eq!(b.open_episode(), word(2, false, 0));
}

/// The interruption is polled while spinning and, during a long sleep
/// with no deadline, at least every `MAX_SLEEP`; the episode is left open.
#[test]
fn an_interruption_ends_a_wait_within_a_poll_period() {
    let t = table();
    let b = t.barrier(0).unwrap();
    b.reset(2);
    b.arrive(1).unwrap();
    // While spinning: the first poll says so.
    let polls = Cell::new(0u32);
    let now = || {
        polls.set(polls.get() + 1);
        Some(-61)
    };
    assert_eq!(
        b.wait(1, Duration::from_secs(5), None, &now),
        Err(BarrierWaitError::Interrupted(-61))
    );
    assert_eq!(polls.get(), 1);
    // Asleep: the interruption turns up 250 ms in.
    let start = Instant::now();
    let later = || (start.elapsed() >= Duration::from_millis(250)).then_some(-61);
    assert_eq!(
        b.wait(1, Duration::ZERO, None, &later),
        Err(BarrierWaitError::Interrupted(-61))
    );
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(250), "{took:?}");
    assert!(
        took < Duration::from_millis(250) + 8 * MAX_SLEEP,
        "{took:?}: not polled while asleep"
    );
    assert_eq!(b.open_episode(), word(1, false, 1), "still open");
    assert_eq!(b.cell.waiters.load(Ordering::Relaxed), 0);
}
