//! A construct whose declared `PMIX_GROUP_LEADER` died before it
//! completed: the election of a new leader.
//!
//! Instead of failing the construct, the server keeps its episode here and
//! raises `PMIX_GROUP_LEADER_FAILED` at once at every local participant,
//! those that have not called construct yet too (they hear it as an event,
//! and may claim the lead before they call: their call then brings the
//! group-rank order). Each participant's library sends what its handler
//! chain decided (`GROUP_DECIDE`, `client/src/group_decide.rs`):
//! - `PMIX_GROUP_LEADER` (true) in the results: a claim. The first claim
//!   wins: the claimant's member array becomes the group-rank order,
//!   `PMIX_GROUP_LEADER_SELECTED` naming it goes to every local participant
//!   (those that have not called construct yet too), and
//!   the construct goes on without the dead leader (it completes with
//!   `PMIX_ERR_PARTIAL_SUCCESS` and the reduced membership). A later claim
//!   is refused (`PMIX_ERR_BAD_PARAM`, naming the chosen leader).
//! - `PMIX_GROUP_CONSTRUCT_ABORT` as a handler's status: every waiting
//!   call returns `PMIX_GROUP_CONSTRUCT_ABORT` at once, and every local
//!   participant hears the event `PMIX_GROUP_CONSTRUCT_ABORT` (naming the
//!   participant that aborted).
//! - neither: when every participant declined (or died or finalized),
//!   every local participant hears `PMIX_GROUP_LEADER_SELECTED` without a
//!   leader (no `PMIX_EVENT_AFFECTED_PROC`; `PMIX_LOCAL_COLLECTIVE_STATUS`
//!   holds the error, `PMIX_ERR_LOST_CONNECTION`), then every waiting
//!   construct fails with it (naming the dead leader); a later call is
//!   refused at once (its leader is gone).
//!
//! The same hold serves a member that died before it called construct
//! when a leader was declared and waits in the construct
//! ([`start_member`]): the leader hears `PMIX_GROUP_INVITE_FAILED` and its
//! handlers decide: a result `PMIX_GROUP_OPTIONAL` (true) goes on with a
//! smaller group (the construct completes with `PMIX_ERR_PARTIAL_SUCCESS`
//! and `PMIX_GROUP_MEMBERSHIP_UPDATE`), `PMIX_GROUP_CONSTRUCT_ABORT`
//! aborts as above, nothing fails the construct at once
//! (`PMIX_ERR_LOST_CONNECTION`, as without a leader). The draft leaves the
//! "proceed with a smaller group" result unnamed; `PMIX_GROUP_OPTIONAL` is
//! pmix-rs's reading.
//!
//! A participant that calls construct during the election joins it. With
//! no decision the election ends at [`CLAIM_WINDOW`] (or the construct's
//! `PMIX_TIMEOUT`, if earlier): as when nobody claims.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::proto::group::decision;
use pmix_core::proto::Reply;
use pmix_core::{Error, Proc, Status};

use crate::collective::{Episode, Reopened};
use crate::inner::Inner;
use crate::link::ReplyTo;

use super::tracker::GroupTracker;
use super::{complete, events, finish, gone_error};

/// How long a leaderless construct waits for its participants' decisions
/// when some never answer (a client whose library does not decide).
pub(crate) const CLAIM_WINDOW: Duration = Duration::from_secs(5);

/// A construct waiting for a new leader.
#[derive(Debug)]
pub(crate) struct Election {
    /// Names this election for its timer.
    serial: u64,
    /// The construct's episode (the dead leader's contribution removed).
    ep: Episode<ReplyTo>,
    /// The leader (or, with `decider`, the member) that died.
    gone: Proc,
    /// A member died, not the leader: only this leader decides (on
    /// `PMIX_GROUP_INVITE_FAILED`).
    decider: Option<Proc>,
    /// Participants whose handlers decided neither claim nor abort.
    declined: BTreeSet<Proc>,
}

/// The declared leader `gone` of construct `id` died before it completed
/// (`ep`, aborted by the tracker): elect a new one.
pub(super) fn start(inner: &Arc<Inner>, mut ep: Episode<ReplyTo>, gone: Proc, id: String) {
    ep.contributed.retain(|(p, _)| *p != gone);
    // every local participant hears it, those that have not called yet too
    let participants: Vec<Proc> = ep
        .expected
        .iter()
        .filter(|p| **p != gone)
        .cloned()
        .collect();
    if participants.is_empty() {
        inner.state.lock().groups.pending.remove(&id);
        return;
    }
    let at = Instant::now() + CLAIM_WINDOW;
    let at = ep.deadline.map_or(at, |d| d.min(at));
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let serial = st.groups.take_serial();
        if let Some(p) = st.groups.pending.get_mut(&id) {
            p.parts.remove(&gone);
        }
        st.groups.elections.insert(
            id.clone(),
            Election {
                serial,
                ep,
                gone: gone.clone(),
                decider: None,
                declined: BTreeSet::new(),
            },
        );
        arm(st, inner, &id, serial, at);
    }
    events::leader_failed(inner, &gone, &id, participants);
}

/// Member `gone` of construct `id` died before it called; its declared
/// `leader` waits in the construct (`ep`, aborted by the tracker) and
/// decides. The episode back when the leader has not called yet (it
/// cannot decide).
pub(super) fn start_member(
    inner: &Arc<Inner>,
    ep: Episode<ReplyTo>,
    gone: Proc,
    leader: Proc,
    id: String,
) -> Option<Episode<ReplyTo>> {
    if !ep.contributed.iter().any(|(p, _)| *p == leader) {
        return Some(ep);
    }
    let at = Instant::now() + CLAIM_WINDOW;
    let at = ep.deadline.map_or(at, |d| d.min(at));
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let serial = st.groups.take_serial();
        st.groups.elections.insert(
            id.clone(),
            Election {
                serial,
                ep,
                gone: gone.clone(),
                decider: Some(leader.clone()),
                declined: BTreeSet::new(),
            },
        );
        arm(st, inner, &id, serial, at);
    }
    events::invite_failed(inner, &gone, &id, vec![leader]);
    None
}

fn arm(st: &mut crate::inner::State, inner: &Arc<Inner>, id: &str, serial: u64, at: Instant) {
    let weak = Arc::downgrade(inner);
    let eid = id.to_owned();
    st.timer.at(
        at,
        Box::new(move || {
            if let Some(inner) = weak.upgrade() {
                window_closed(&inner, &eid, serial);
            }
        }),
    );
}

/// A construct call of `me` for `id` while its leader is being elected
/// joins the election's episode; `Some(to)` back when there is no
/// election for `id` to join.
pub(super) fn admit_locked(
    groups: &mut GroupTracker,
    id: &str,
    me: &Proc,
    to: ReplyTo,
) -> Option<ReplyTo> {
    let Some(el) = groups.elections.get_mut(id) else {
        return Some(to);
    };
    if !el.ep.expected.contains(me) || el.ep.contributed.iter().any(|(p, _)| p == me) {
        return Some(to);
    }
    el.ep.contributed.push((me.clone(), to));
    None
}

/// The election of `id` (number `serial`) is still open at its deadline:
/// nobody claimed the lead, the construct fails.
fn window_closed(inner: &Arc<Inner>, id: &str, serial: u64) {
    let el = {
        let mut st = inner.state.lock();
        if st.groups.elections.get(id).map(|e| e.serial) != Some(serial) {
            return;
        }
        st.groups.pending.remove(id);
        st.groups.elections.remove(id)
    };
    if let Some(el) = el {
        no_leader(inner, &el);
    }
}

/// Nobody claimed the lead: every local participant hears
/// `PMIX_GROUP_LEADER_SELECTED` with the error, then every waiting
/// construct fails with it (a later one is refused at once: the leader is
/// gone).
fn no_leader(inner: &Arc<Inner>, el: &Election) {
    let e = gone_error(inner, &el.gone);
    let e = Error::with_context(
        e.status(),
        format!("{e}; no participant claimed the lead (PMIX_GROUP_LEADER in a handler's results)"),
    );
    if el.decider.is_none() {
        let id = match &el.ep.key.kind {
            crate::collective::Kind::GroupConstruct(id) => id.clone(),
            _ => String::new(),
        };
        let all: Vec<Proc> = el
            .ep
            .expected
            .iter()
            .filter(|p| **p != el.gone)
            .cloned()
            .collect();
        events::no_leader_selected(inner, &id, &e, all);
    }
    finish(&el.ep, &Reply::error(&e));
}

/// A participant's `GROUP_DECIDE` on event `event` of group `id`.
pub(crate) fn decide(inner: &Arc<Inner>, to: ReplyTo, id: String, event: Status, what: u8) {
    let to = if event == Status::GROUP_LEADER_FAILED {
        match super::invite_election::decide(inner, to, &id, what) {
            Ok(()) => return,
            Err(to) => to, // no invitation: a construct's election, if any
        }
    } else {
        to
    };
    let to = if super::invite_decide::is_invite_event(event) {
        match super::invite_decide::decide(inner, to, &id, event, what) {
            Ok(()) => return,
            Err(to) => to, // no invitation: a construct's hold, if any
        }
    } else {
        to
    };
    let me = to.proc().clone();
    let mut guard = inner.state.lock();
    let st = &mut *guard;
    let waits_for = |el: &Election| match &el.decider {
        None => event == Status::GROUP_LEADER_FAILED,
        Some(l) => event == Status::GROUP_INVITE_FAILED && *l == me,
    };
    let ignored = match st.groups.elections.get(&id) {
        Some(el) => !waits_for(el),
        None => event != Status::GROUP_LEADER_FAILED,
    };
    if ignored {
        // nothing waits for this decision (the invite path drops a failed
        // invitee itself; a member's answer to its own leader's hold)
        drop(guard);
        return to.send_status(Ok(()));
    }
    let Some(el) = st.groups.elections.get_mut(&id) else {
        let leader = st.groups.pending.get(&id).and_then(|p| {
            p.parts
                .iter()
                .find(|(_, part)| part.leader)
                .map(|(who, _)| who.clone())
                .or_else(|| p.claimed.clone())
        });
        drop(guard);
        if what != decision::LEADER {
            return to.send_status(Ok(()));
        }
        let why = match leader {
            Some(l) => format!(
                "group {id:?}: the lead is taken already: rank {} of {} claimed it first",
                l.rank.0, l.nspace
            ),
            None => format!("group {id:?}: no construct of it is waiting for a leader"),
        };
        return to.send(&Reply::error(&Error::bad_param(why)));
    };
    let participates = match &el.decider {
        // a member's death: only the waiting leader decides
        Some(_) => el.ep.contributed.iter().any(|(p, _)| *p == me),
        // the leader's: every participant, called or not
        None => el.ep.expected.contains(&me) && me != el.gone,
    };
    if !participates {
        drop(guard);
        return to.send(&Reply::error(&Error::with_context(
            Status::ERR_NOT_A_MEMBER,
            format!("group {id:?}: {me:?} is not a participant of its construct"),
        )));
    }
    let what = match (&el.decider, what) {
        // a member's death: the leader goes on, aborts, or lets it fail
        (Some(_), decision::CONTINUE) => decision::CONTINUE,
        (Some(_), decision::ABORT) => decision::ABORT,
        (Some(_), _) => decision::NONE,
        (None, decision::CONTINUE) => decision::NONE,
        (None, w) => w,
    };
    match what {
        decision::CONTINUE => {
            let Some(el) = st.groups.elections.remove(&id) else {
                return;
            };
            let reopened = st.collectives.reopen(el.ep, el.gone);
            drop(guard);
            to.send_status(Ok(()));
            reopened_ends(inner, &id, reopened);
        }
        decision::LEADER => {
            let Some(el) = st.groups.elections.remove(&id) else {
                return;
            };
            if let Some(p) = st.groups.pending.get_mut(&id) {
                match p.parts.get_mut(&me) {
                    Some(part) => part.leader = true,
                    // it has not called yet: its call brings the order
                    None => p.claimed = Some(me.clone()),
                }
            }
            // every local participant, arrived or not, hears it
            let participants: Vec<Proc> = el.ep.expected.iter().cloned().collect();
            let reopened = st.collectives.reopen(el.ep, el.gone);
            drop(guard);
            events::leader_selected(inner, &me, &id, participants);
            to.send_status(Ok(()));
            reopened_ends(inner, &id, reopened);
        }
        decision::ABORT => {
            let el = st.groups.elections.remove(&id);
            st.groups.pending.remove(&id);
            drop(guard);
            to.send_status(Ok(()));
            if let Some(el) = el {
                let all: Vec<Proc> = el.ep.expected.iter().cloned().collect();
                events::construct_abort(inner, &me, &id, all);
                let e = Error::with_context(
                    Status::GROUP_CONSTRUCT_ABORT,
                    format!(
                        "group {id:?}: construct aborted by rank {} of {} after its leader died",
                        me.rank.0, me.nspace
                    ),
                );
                finish(&el.ep, &Reply::error(&e));
            }
        }
        _ => {
            if el.decider.is_some() {
                // the leader lets the construct fail
                st.groups.pending.remove(&id);
                let el = st.groups.elections.remove(&id);
                drop(guard);
                to.send_status(Ok(()));
                if let Some(el) = el {
                    finish(&el.ep, &Reply::error(&gone_error(inner, &el.gone)));
                }
                return;
            }
            el.declined.insert(me);
            let reg = &st.registry;
            let undecided = el.ep.expected.iter().any(|p| {
                *p != el.gone
                    && !el.declined.contains(p)
                    && !reg.clients.get(p).is_some_and(|c| c.dead || c.finalized)
            });
            let ended = if undecided {
                None
            } else {
                st.groups.pending.remove(&id);
                st.groups.elections.remove(&id)
            };
            drop(guard);
            to.send_status(Ok(()));
            if let Some(el) = ended {
                no_leader(inner, &el);
            }
        }
    }
}

/// What follows [`Collectives::reopen`](crate::collective::Collectives::reopen).
fn reopened_ends(inner: &Arc<Inner>, id: &str, reopened: Reopened<ReplyTo>) {
    match reopened {
        Reopened::Waiting => {}
        Reopened::Whole(ep) => complete(inner, ep),
        Reopened::Taken(ep) => {
            inner.state.lock().groups.pending.remove(id);
            finish(
                &ep,
                &Reply::error(&Error::with_context(
                    Status::ERR_EXISTS,
                    format!("group {id:?}: another construct of it began meanwhile"),
                )),
            );
        }
    }
}
