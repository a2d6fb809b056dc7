//! An invitation whose leader died before it completed: the election of a
//! new leader on the invite path (the draft's *PMIx_Group_invite* and
//! *PMIx_Group_join*: the leader's failure raises
//! `PMIX_GROUP_LEADER_FAILED` at every participant "so they can optionally
//! declare a new leader").
//!
//! The invitation stays; every invitee that has not declined or died
//! hears `PMIX_GROUP_LEADER_FAILED` (naming the dead leader), and each
//! one's library sends what its handler chain decided (`GROUP_DECIDE`):
//! - `PMIX_GROUP_LEADER` (true) from an invitee that accepted: the first
//!   such claim wins. The claimant becomes the leader (its waiting join is
//!   answered as the invite would have been, and the answers still to come
//!   go to it); every invitee and the claimant hear
//!   `PMIX_GROUP_LEADER_SELECTED` naming it. The group completes without
//!   the dead leader (`PMIX_ERR_PARTIAL_SUCCESS`). A claim from an
//!   invitee that has not accepted is refused (`PMIX_ERR_BAD_PARAM`: accept
//!   first) and counts as no claim; a claim after the lead was taken is
//!   refused, naming the leader.
//! - `PMIX_GROUP_CONSTRUCT_ABORT`: the invitation ends; every accepted join
//!   returns `PMIX_GROUP_CONSTRUCT_ABORT` and every invitee hears that
//!   event.
//! - neither, from every remaining invitee (or [`CLAIM_WINDOW`] passes):
//!   every invitee hears `PMIX_GROUP_LEADER_SELECTED` without a leader
//!   (`PMIX_LOCAL_COLLECTIVE_STATUS` = `PMIX_ERR_LOST_CONNECTION`), every
//!   accepted join returns `PMIX_ERR_LOST_CONNECTION`, the invitation is
//!   over (a later join: `PMIX_ERR_NOT_FOUND`).
//!
//! Answers (joins) that arrive while the lead is vacant are recorded, and
//! nobody is asked to decide on them.

use std::sync::Arc;
use std::time::Instant;

use pmix_core::proto::group::decision;
use pmix_core::proto::Reply;
use pmix_core::{Error, Proc, Status};

use super::election::CLAIM_WINDOW;
use super::events;
use super::invite::{about, complete, raise, Invitation};
use crate::inner::Inner;
use crate::link::ReplyTo;

/// The invitees still in invitation `inv` (neither declined nor gone).
fn remaining(inv: &Invitation) -> Vec<Proc> {
    inv.invitees
        .iter()
        .filter(|p| !inv.dropped.contains(*p))
        .cloned()
        .collect()
}

/// Every remaining invitee decided not to claim.
fn nobody_left(inv: &Invitation) -> bool {
    remaining(inv).iter().all(|p| inv.lead_declined.contains(p))
}

/// The leader `gone` of invitation `id` died: open the election.
pub(super) fn start(inner: &Arc<Inner>, id: &str, gone: &Proc) {
    let targets = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let Some(inv) = st.groups.invites.get_mut(id) else {
            return;
        };
        inv.past_leaders.push(gone.clone());
        inv.electing = true;
        // the dead leader decides nothing more
        inv.awaiting = 0;
        inv.lead_declined.clear();
        let serial = inv.serial;
        let targets = remaining(inv);
        // invitees on other nodes take no part: their servers end their
        // joins on this event
        let remote: Vec<Proc> = inv.remote.iter().cloned().collect();
        inv.remote_accepted.clear();
        inv.dropped.extend(remote);
        let weak = Arc::downgrade(inner);
        let (gid, who) = (id.to_owned(), gone.clone());
        st.timer.at(
            Instant::now() + CLAIM_WINDOW,
            Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    window_closed(&inner, &gid, serial, &who);
                }
            }),
        );
        targets
    };
    raise(
        inner,
        Status::GROUP_LEADER_FAILED,
        gone,
        targets,
        about(id, gone),
    );
    check_over(inner, id);
}

/// The election of invitation `id` (number `serial`, leader `gone`) is
/// still open at its deadline: nobody leads.
fn window_closed(inner: &Arc<Inner>, id: &str, serial: u64, gone: &Proc) {
    let inv = {
        let mut st = inner.state.lock();
        let open = st.groups.invites.get(id).is_some_and(|i| {
            i.serial == serial && i.electing && i.past_leaders.last() == Some(gone)
        });
        if !open {
            return;
        }
        st.groups.invites.remove(id)
    };
    if let Some(inv) = inv {
        no_leader(inner, id, &inv);
    }
}

/// An invitee left invitation `id` during its election: it may be over.
pub(super) fn check_over(inner: &Arc<Inner>, id: &str) {
    let inv = {
        let mut st = inner.state.lock();
        let over = st
            .groups
            .invites
            .get(id)
            .is_some_and(|i| i.electing && nobody_left(i));
        if !over {
            return;
        }
        st.groups.invites.remove(id)
    };
    if let Some(inv) = inv {
        no_leader(inner, id, &inv);
    }
}

fn no_leader(inner: &Arc<Inner>, id: &str, inv: &Invitation) {
    let gone = inv
        .past_leaders
        .last()
        .cloned()
        .unwrap_or_else(|| inv.leader.clone());
    let e = Error::with_context(
        Status::ERR_LOST_CONNECTION,
        format!(
            "group invite {id:?}: its leader, rank {} of {}, is gone and no invitee claimed \
             the lead (PMIX_GROUP_LEADER in a PMIX_GROUP_LEADER_FAILED handler's results); \
             the invitation is over",
            gone.rank.0, gone.nspace
        ),
    );
    events::no_leader_selected(inner, id, &e, remaining(inv));
    let r = Reply::error(&e);
    for (_, t, _) in &inv.accepted {
        t.send(&r);
    }
}

/// An invitee's `GROUP_DECIDE` on `PMIX_GROUP_LEADER_FAILED` of
/// invitation `id`; `Err(to)` back when `id` is no invitation `to`'s
/// process takes part in (a construct's election, if any, reads it).
pub(super) fn decide(inner: &Arc<Inner>, to: ReplyTo, id: &str, what: u8) -> Result<(), ReplyTo> {
    let me = to.proc().clone();
    enum Step {
        Claimed(Vec<Proc>, bool),
        Refused(Error),
        Abort(Box<Invitation>),
        NoLeader(Box<Invitation>),
        Noted,
    }
    let step = {
        let mut st = inner.state.lock();
        let Some(inv) = st.groups.invites.get_mut(id) else {
            return Err(to);
        };
        let leads = inv.leader == me && !inv.past_leaders.is_empty();
        if !inv.invitees.contains(&me) && !leads {
            return Err(to);
        }
        if !inv.electing {
            if what == decision::LEADER && inv.leader != me {
                Step::Refused(Error::bad_param(format!(
                    "group {id:?}: the lead is taken already: rank {} of {} claimed it first",
                    inv.leader.rank.0, inv.leader.nspace
                )))
            } else {
                Step::Noted
            }
        } else if what == decision::ABORT {
            st.groups
                .invites
                .remove(id)
                .map_or(Step::Noted, |i| Step::Abort(Box::new(i)))
        } else if what == decision::LEADER {
            match inv.accepted.iter().position(|(p, _, _)| *p == me) {
                Some(i) => {
                    let (_, t, gi) = inv.accepted.remove(i);
                    inv.invitees.retain(|p| *p != me);
                    inv.leader = me.clone();
                    inv.leader_to = t;
                    inv.leader_info = gi;
                    inv.electing = false;
                    let mut all = remaining(inv);
                    all.push(me.clone());
                    Step::Claimed(all, inv.ready())
                }
                None => {
                    inv.lead_declined.insert(me.clone());
                    let e = Error::bad_param(format!(
                        "group {id:?}: only an invitee that accepted may claim the lead; \
                         accept (PMIx_Group_join) before claiming"
                    ));
                    if nobody_left(inv) {
                        // answered below, after the invitation ends
                        drop(st);
                        to.send(&Reply::error(&e));
                        check_over(inner, id);
                        return Ok(());
                    }
                    Step::Refused(e)
                }
            }
        } else {
            inv.lead_declined.insert(me.clone());
            if nobody_left(inv) {
                st.groups
                    .invites
                    .remove(id)
                    .map_or(Step::Noted, |i| Step::NoLeader(Box::new(i)))
            } else {
                Step::Noted
            }
        }
    };
    match step {
        Step::Refused(e) => to.send(&Reply::error(&e)),
        Step::Noted => to.send_status(Ok(())),
        Step::Claimed(all, ready) => {
            to.send_status(Ok(()));
            events::leader_selected(inner, &me, id, all);
            if ready {
                complete(inner, id);
            }
        }
        Step::NoLeader(inv) => {
            to.send_status(Ok(()));
            no_leader(inner, id, &inv);
        }
        Step::Abort(inv) => {
            to.send_status(Ok(()));
            let r = Reply::error(&Error::with_context(
                Status::GROUP_CONSTRUCT_ABORT,
                format!(
                    "group invite {id:?}: aborted by rank {} of {} after its leader died",
                    me.rank.0, me.nspace
                ),
            ));
            for (_, t, _) in &inv.accepted {
                t.send(&r);
            }
            raise(
                inner,
                Status::GROUP_CONSTRUCT_ABORT,
                &me,
                remaining(&inv),
                about(id, &me),
            );
        }
    }
    Ok(())
}
