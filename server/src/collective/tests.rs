//! The collective tracker without sockets: waiters are plain numbers, time
//! is a fixed `Instant` moved by hand.

use std::time::Duration;

use pmix_core::{Nspace, Rank};

use super::*;

fn p(r: u32) -> Proc {
    Proc::new("job", Rank(r)).unwrap()
}

fn key(procs: &[Proc]) -> Key {
    Key {
        kind: Kind::Fence,
        procs: procs.to_vec(),
    }
}

/// A fence-like opening: local participants `expected`, nobody gone.
fn opening(expected: &[Proc]) -> Opening {
    Opening {
        expected: expected.iter().cloned().collect(),
        departure_fails: true,
        ..Opening::default()
    }
}

fn waiting<W: std::fmt::Debug>(c: Contributed<W>) -> Option<Due> {
    match c {
        Contributed::Waiting(due) => due,
        other => panic!("expected to wait, got {other:?}"),
    }
}

fn complete<W: std::fmt::Debug>(c: Contributed<W>) -> Episode<W> {
    match c {
        Contributed::Complete(ep) => ep,
        other => panic!("expected completion, got {other:?}"),
    }
}

fn refused<W: std::fmt::Debug>(c: Contributed<W>) -> (W, Refusal) {
    match c {
        Contributed::Refused(w, why) => (w, why),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn waiters(ep: &Episode<u32>) -> Vec<u32> {
    ep.waiters().copied().collect()
}

#[test]
fn an_episode_completes_once_every_local_participant_contributed() {
    let all = [p(0), p(1), p(2)];
    let k = key(&all);
    let mut c = Collectives::default();
    let mut opened = 0;
    for (w, who) in all.iter().take(2).enumerate() {
        let got = c.contribute(k.clone(), who.clone(), w as u32, None, |_| {
            opened += 1;
            opening(&all)
        });
        assert_eq!(waiting(got), None);
    }
    let ep = complete(c.contribute(k.clone(), p(2), 2, None, |_| unreachable!()));
    assert_eq!(opened, 1, "one opening per episode");
    assert_eq!(waiters(&ep), [0, 1, 2]);
    assert_eq!(ep.key, k);
    // Nothing is left: the next episode opens afresh.
    let mut reopened = false;
    waiting(c.contribute(k, p(0), 9, None, |_| {
        reopened = true;
        opening(&all)
    }));
    assert!(reopened);
}

#[test]
fn strangers_and_second_contributions_are_refused() {
    let two = [p(0), p(1)];
    let k = key(&two);
    let mut c = Collectives::default();
    waiting(c.contribute(k.clone(), p(0), 0, None, |_| opening(&two)));
    assert_eq!(
        refused(c.contribute(k.clone(), p(0), 1, None, |_| unreachable!())),
        (1, Refusal::Twice)
    );
    assert_eq!(
        refused(c.contribute(k.clone(), p(5), 2, None, |_| unreachable!())),
        (2, Refusal::NotParticipant)
    );
    assert_eq!(
        waiters(&complete(c.contribute(
            k,
            p(1),
            3,
            None,
            |_| unreachable!()
        ))),
        [0, 3]
    );
}

#[test]
fn the_earliest_deadline_ends_the_episode_for_every_contributor() {
    let t0 = Instant::now();
    let (soon, late) = (t0 + Duration::from_secs(5), t0 + Duration::from_secs(9));
    let all = [p(0), p(1), p(2)];
    let k = key(&all);
    let mut c = Collectives::default();
    let first = waiting(c.contribute(k.clone(), p(0), 0, Some(late), |_| opening(&all))).unwrap();
    assert_eq!(first.at, late);
    // A later deadline does not move it; an earlier one does.
    let later = Some(late + Duration::from_secs(1));
    assert_eq!(
        waiting(c.contribute(k.clone(), p(1), 1, later, |_| unreachable!())),
        None
    );
    let mut c2 = Collectives::default();
    let d1 = waiting(c2.contribute(k.clone(), p(0), 0, Some(late), |_| opening(&all))).unwrap();
    let d2 = waiting(c2.contribute(k.clone(), p(1), 1, Some(soon), |_| unreachable!())).unwrap();
    assert_eq!((d2.id, d2.at), (d1.id, soon));
    // Too early, or a stale timer job: nothing ends.
    assert!(c2.expire(&d2, soon - Duration::from_millis(1)).is_none());
    match c2.expire(&d2, soon) {
        Some(Ended::TimedOut(ep)) => assert_eq!(waiters(&ep), [0, 1]),
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(c2.expire(&d1, late).is_none(), "the episode already ended");
}

#[test]
fn a_late_arrival_is_refused_and_not_counted_in_the_next_episode() {
    let t0 = Instant::now();
    let all = [p(0), p(1)];
    let k = key(&all);
    let mut c = Collectives::default();
    // Episode 1: rank 0 alone, times out.
    let due = waiting(c.contribute(k.clone(), p(0), 0, Some(t0), |_| opening(&all))).unwrap();
    assert!(matches!(c.expire(&due, t0), Some(Ended::TimedOut(_))));
    // Rank 0 enters episode 2 before rank 1 comes for episode 1.
    waiting(c.contribute(k.clone(), p(0), 1, None, |_| opening(&all)));
    assert_eq!(
        refused(c.contribute(k.clone(), p(1), 2, None, |_| unreachable!())),
        (2, Refusal::Late)
    );
    // Rank 1's next fence is episode 2: it completes with rank 0's.
    let ep = complete(c.contribute(k.clone(), p(1), 3, None, |_| unreachable!()));
    assert_eq!(waiters(&ep), [1, 3]);
    // In step again: the counts are gone, episode 3 works from scratch.
    assert!(c.behind.is_empty());
    waiting(c.contribute(k.clone(), p(1), 4, None, |_| opening(&all)));
    assert_eq!(
        waiters(&complete(c.contribute(
            k,
            p(0),
            5,
            None,
            |_| unreachable!()
        ))),
        [4, 5]
    );
}

#[test]
fn a_late_arrival_after_the_others_moved_on_puts_the_set_back_in_step() {
    let t0 = Instant::now();
    let all = [p(0), p(1)];
    let k = key(&all);
    let mut c = Collectives::default();
    let due = waiting(c.contribute(k.clone(), p(0), 0, Some(t0), |_| opening(&all))).unwrap();
    assert!(c.expire(&due, t0).is_some());
    assert_eq!(
        refused(c.contribute(k.clone(), p(1), 1, None, |_| opening(&all))).1,
        Refusal::Late
    );
    assert!(c.behind.is_empty(), "both entered the one ended episode");
    waiting(c.contribute(k.clone(), p(1), 2, None, |_| opening(&all)));
    assert_eq!(
        waiters(&complete(c.contribute(
            k,
            p(0),
            3,
            None,
            |_| unreachable!()
        ))),
        [2, 3]
    );
}

#[test]
fn a_departure_fails_every_episode_expecting_it_and_forgets_the_counts() {
    let t0 = Instant::now();
    let (a, b) = ([p(0), p(1)], [p(1), p(2)]);
    let (ka, kb) = (key(&a), key(&b));
    let other = key(&[p(3), p(4)]);
    let mut c = Collectives::default();
    waiting(c.contribute(ka.clone(), p(0), 0, None, |_| opening(&a)));
    waiting(c.contribute(kb.clone(), p(2), 1, None, |_| opening(&b)));
    waiting(c.contribute(other.clone(), p(3), 2, None, |_| opening(&[p(3), p(4)])));
    // An out-of-step set that has rank 1 in it.
    let behind = key(&[p(1), p(5)]);
    let due = waiting(c.contribute(behind.clone(), p(5), 3, Some(t0), |_| {
        opening(&[p(1), p(5)])
    }))
    .unwrap();
    assert!(c.expire(&due, t0).is_some());
    let ended = c.depart(&p(1));
    let aborted: Vec<(Key, Vec<u32>, Proc)> = ended
        .into_iter()
        .map(|e| match e {
            Ended::Aborted(ep, who) => (ep.key.clone(), waiters(&ep), who),
            other => panic!("expected an abort, got {other:?}"),
        })
        .collect();
    assert_eq!(aborted, [(ka, vec![0], p(1)), (kb, vec![1], p(1))]);
    assert!(c.behind.is_empty(), "rank 1's sets are forgotten");
    assert_eq!(
        waiters(&complete(c.contribute(
            other,
            p(4),
            4,
            None,
            |_| unreachable!()
        ))),
        [2, 4]
    );
}

#[test]
fn a_participant_already_gone_fails_the_opening_contribution() {
    let all = [p(0), p(1)];
    let k = key(&all);
    let mut c = Collectives::default();
    let gone = |_: &Key| Opening {
        departed: [p(1)].into(),
        ..opening(&all)
    };
    assert_eq!(
        refused(c.contribute(k.clone(), p(0), 0, None, gone)),
        (0, Refusal::Departed(p(1)))
    );
    assert!(c.open.is_empty(), "no episode was opened");
}

#[test]
fn a_counted_departure_completes_the_episode_with_the_rest() {
    let all = [p(0), p(1), p(2)];
    let k = key(&all);
    let counted = |departed: &[Proc]| Opening {
        departed: departed.iter().cloned().collect(),
        departure_fails: false,
        ..opening(&all)
    };
    let mut c = Collectives::default();
    // Rank 2 is gone before the episode opens, rank 1 leaves during it.
    waiting(c.contribute(k.clone(), p(0), 0, None, |_| counted(&[p(2)])));
    assert_eq!(
        refused(c.contribute(k.clone(), p(2), 1, None, |_| unreachable!())).1,
        Refusal::Twice
    );
    match c.depart(&p(1)).as_slice() {
        [Ended::Complete(ep)] => {
            assert_eq!(waiters(ep), [0]);
            assert_eq!(ep.departed, [p(1), p(2)].into());
        }
        other => panic!("expected a completion, got {other:?}"),
    }
    // A contributor that leaves afterwards does not end anything.
    waiting(c.contribute(k.clone(), p(0), 2, None, |_| counted(&[])));
    assert!(c.depart(&p(0)).is_empty());
    waiting(c.contribute(k.clone(), p(1), 3, None, |_| unreachable!()));
    assert_eq!(
        waiters(&complete(c.contribute(
            k,
            p(2),
            4,
            None,
            |_| unreachable!()
        ))),
        [2, 3, 4]
    );
}

#[test]
fn the_host_answer_and_the_deadline_take_a_handed_over_episode_once() {
    let t0 = Instant::now();
    let ns = Nspace::new("job").unwrap();
    let wide = [Proc::from_parts(ns, Rank::WILDCARD)];
    let k = key(&wide);
    let remote = |_: &Key| Opening {
        remote: true,
        ..opening(&[p(0)])
    };
    let mut c = Collectives::default();
    // Answered by the host first: the deadline then finds nothing.
    let ep = complete(c.contribute(k.clone(), p(0), 0, Some(t0), remote));
    assert!(ep.remote);
    let due = c.await_host(ep).expect("a deadline to keep");
    assert_eq!(
        c.host_answered(due.id).map(|ep| waiters(&ep)),
        Some(vec![0])
    );
    assert!(c.expire(&due, t0).is_none());
    // The deadline first: the host's answer then finds nothing.
    let ep = complete(c.contribute(k.clone(), p(0), 1, Some(t0), remote));
    let due = c.await_host(ep).unwrap();
    // A departure does not concern an episode the host has.
    assert!(c.depart(&p(0)).is_empty());
    match c.expire(&due, t0) {
        Some(Ended::HostTimedOut(ep)) => assert_eq!(waiters(&ep), [1]),
        other => panic!("expected a host timeout, got {other:?}"),
    }
    assert!(c.host_answered(due.id).is_none());
    // No deadline: only the host ends it.
    let ep = complete(c.contribute(k, p(0), 2, None, remote));
    let id = ep.id;
    assert_eq!(c.await_host(ep), None);
    assert!(c.host_answered(id).is_some());
}

#[test]
fn a_contribution_of_no_participant_opens_nothing() {
    let mut c: Collectives<u32> = Collectives::default();
    let k = key(&[p(1)]);
    assert_eq!(
        refused(c.contribute(k, p(0), 0, None, |_| opening(&[p(1)]))),
        (0, Refusal::NotParticipant)
    );
    assert_eq!(c.tracked(), 0);
}

#[test]
fn a_contributor_opens_at_most_its_limit_of_episodes() {
    let mut c: Collectives<u32> = Collectives::with_limit(2);
    for r in 1..=2 {
        let all = [p(0), p(r)];
        waiting(c.contribute(key(&all), p(0), r, None, |_| opening(&all)));
    }
    let all = [p(0), p(3)];
    assert_eq!(
        refused(c.contribute(key(&all), p(0), 3, None, |_| opening(&all))),
        (3, Refusal::TooMany(2))
    );
    // Another participant still joins an open episode.
    let first = [p(0), p(1)];
    complete(c.contribute(key(&first), p(1), 4, None, |_| unreachable!()));
    assert_eq!(c.pending_of(&p(0)), 1);
    assert_eq!(c.depart(&p(0)).len(), 1);
    assert_eq!(c.tracked(), 0);
}

fn connect_key(procs: &[Proc], id: &str) -> Key {
    Key {
        kind: Kind::Connect {
            id: Some(id.into()),
            xchg_only: false,
        },
        procs: procs.to_vec(),
    }
}

#[test]
fn connects_with_other_ids_are_other_operations_and_a_timeout_poisons_no_later_one() {
    let all = [p(0), p(1)];
    let now = Instant::now();
    let mut c: Collectives<u32> = Collectives::default();
    // two ids over one set: two episodes
    waiting(c.contribute(connect_key(&all, "a"), p(0), 1, None, |_| opening(&all)));
    waiting(c.contribute(connect_key(&all, "b"), p(0), 2, None, |_| opening(&all)));
    let ep = complete(c.contribute(connect_key(&all, "b"), p(1), 3, None, |_| opening(&all)));
    assert_eq!(waiters(&ep), [2, 3]);
    let ep = complete(c.contribute(connect_key(&all, "a"), p(1), 4, None, |_| opening(&all)));
    assert_eq!(waiters(&ep), [1, 4]);
    // generation 2 of "a" times out without p(1)
    let due = waiting(c.contribute(
        connect_key(&all, "a"),
        p(0),
        5,
        Some(now + Duration::from_secs(1)),
        |_| opening(&all),
    ))
    .unwrap();
    assert!(matches!(
        c.expire(&due, now + Duration::from_secs(2)),
        Some(Ended::TimedOut(_))
    ));
    // the late p(1) is refused at once, and generation 3 is whole again
    let (_, why) = refused(c.contribute(connect_key(&all, "a"), p(1), 6, None, |_| opening(&all)));
    assert_eq!(why, Refusal::Late);
    waiting(c.contribute(connect_key(&all, "a"), p(1), 7, None, |_| opening(&all)));
    let ep = complete(c.contribute(connect_key(&all, "a"), p(0), 8, None, |_| opening(&all)));
    assert_eq!(waiters(&ep), [7, 8]);
    assert_eq!(c.tracked(), 0);
}

#[test]
fn departing_from_connects_leaves_fences_alone() {
    let all = [p(0), p(1)];
    let mut c: Collectives<u32> = Collectives::default();
    waiting(c.contribute(key(&all), p(0), 1, None, |_| opening(&all)));
    waiting(c.contribute(connect_key(&all, "a"), p(0), 2, None, |_| opening(&all)));
    let ended = c.depart_from(&p(1), |k| !matches!(k, Kind::Fence));
    assert_eq!(ended.len(), 1);
    assert!(
        matches!(&ended[0], Ended::Aborted(ep, gone) if ep.key.kind != Kind::Fence && *gone == p(1))
    );
    // the fence still waits for p(1)
    let ep = complete(c.contribute(key(&all), p(1), 3, None, |_| opening(&all)));
    assert_eq!(waiters(&ep), [1, 3]);
}
