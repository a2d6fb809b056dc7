//! The inviting leader's handler decisions (the draft's *PMIx_Group_invite*:
//! "actions taken by the inviting process in response to these events must
//! be communicated at the end of the event handler by returning the
//! corresponding result").
//!
//! Every `PMIX_GROUP_INVITE_ACCEPTED`, `_DECLINED` and
//! `PMIX_GROUP_INVITE_FAILED` raised at the leader waits for its library's
//! `GROUP_DECIDE` (`client/src/group_decide.rs`) before the invitation may
//! complete: a handler status `PMIX_GROUP_CONSTRUCT_ABORT` aborts it (the
//! leader's invite and every accepted join return
//! `PMIX_GROUP_CONSTRUCT_ABORT`, every invitee hears that event); anything
//! else drops a declined or failed invitee as before. If the decisions do
//! not come (a handler that never completes), the invitation completes
//! [`CLAIM_WINDOW`] after the last invitee answered.

use std::sync::Arc;
use std::time::Instant;

use pmix_core::proto::connect::rank_map;
use pmix_core::proto::group::decision;
use pmix_core::proto::Reply;
use pmix_core::{attrs, Error, Info, Proc, Status};

use super::election::CLAIM_WINDOW;
use super::invite::{about, complete, invitee_gone, membership, raise, Invitation};
use crate::inner::Inner;
use crate::link::ReplyTo;

/// The events of the invite path whose decisions this file reads (and
/// `PMIX_GROUP_CONSTRUCT_ABORT`: the leader notified it itself).
pub(super) fn is_invite_event(event: Status) -> bool {
    event == Status::GROUP_INVITE_ACCEPTED
        || event == Status::GROUP_INVITE_DECLINED
        || event == Status::GROUP_INVITE_FAILED
        || event == Status::GROUP_CONSTRUCT_ABORT
}

/// Every invitee of invitation `id` (number `serial`) answered: it
/// completes now if the leader decided on every event, else when the last
/// decision comes, or at the latest after [`CLAIM_WINDOW`].
pub(super) fn overdue_at(inner: &Arc<Inner>, id: &str, serial: u64) {
    let ready = {
        let st = inner.state.lock();
        st.groups.invites.get(id).map(Invitation::ready)
    };
    match ready {
        Some(true) => complete(inner, id),
        Some(false) => {
            let weak = Arc::downgrade(inner);
            let gid = id.to_owned();
            inner.state.lock().timer.at(
                Instant::now() + CLAIM_WINDOW,
                Box::new(move || {
                    let Some(inner) = weak.upgrade() else { return };
                    let due = {
                        let mut st = inner.state.lock();
                        match st.groups.invites.get_mut(&gid) {
                            Some(inv) if inv.serial == serial => {
                                inv.awaiting = 0;
                                true
                            }
                            _ => false,
                        }
                    };
                    if due {
                        complete(&inner, &gid);
                    }
                }),
            );
        }
        None => {}
    }
}

/// The leader's `GROUP_DECIDE` on an invite event of invitation `id`;
/// `Err(to)` back when `id` is no invitation `to`'s process leads.
pub(super) fn decide(
    inner: &Arc<Inner>,
    to: ReplyTo,
    id: &str,
    event: Status,
    what: u8,
) -> Result<(), ReplyTo> {
    let me = to.proc().clone();
    enum Step {
        Abort(Box<Invitation>),
        Complete,
        Wait,
    }
    let step = {
        let mut st = inner.state.lock();
        match st.groups.invites.get_mut(id) {
            Some(inv) if inv.leader == me => {
                if event != Status::GROUP_CONSTRUCT_ABORT {
                    inv.awaiting = inv.awaiting.saturating_sub(1);
                }
                if what == decision::ABORT {
                    st.groups
                        .invites
                        .remove(id)
                        .map_or(Step::Wait, |i| Step::Abort(Box::new(i)))
                } else if inv.ready() {
                    Step::Complete
                } else {
                    Step::Wait
                }
            }
            _ => return Err(to),
        }
    };
    to.send_status(Ok(()));
    match step {
        Step::Abort(inv) => {
            let r = Reply::error(&Error::with_context(
                Status::GROUP_CONSTRUCT_ABORT,
                if event == Status::GROUP_CONSTRUCT_ABORT {
                    format!("group invite {id:?}: the leader notified PMIX_GROUP_CONSTRUCT_ABORT")
                } else {
                    format!("group invite {id:?}: the leader's handler aborted it")
                },
            ));
            inv.leader_to.send(&r);
            for (_, t, _) in &inv.accepted {
                t.send(&r);
            }
            raise(
                inner,
                Status::GROUP_CONSTRUCT_ABORT,
                &me,
                inv.invitees.clone(),
                about(id, &me),
            );
        }
        Step::Complete => complete(inner, id),
        Step::Wait => {}
    }
    Ok(())
}

/// The leader's `GROUP_REPLACE`: its handler (on `PMIX_GROUP_INVITE_DECLINED`
/// or `_FAILED`) returned `PMIX_GROUP_ADD_MEMBERS`: `procs` are invited
/// into invitation `id` as well (they hear `PMIX_GROUP_INVITED` with the
/// proposed membership, and the invitation waits for their answers). A
/// proc invited already is skipped; one on another node is invited as
/// for `invite` (`remote_invite.rs`).
pub(crate) fn replace(inner: &Arc<Inner>, to: ReplyTo, id: String, procs: Vec<Proc>) {
    let me = to.proc().clone();
    let step = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let reg = &st.registry;
        match st.groups.invites.get_mut(&id) {
            Some(inv) if inv.leader == me && !inv.electing => {
                rank_map(&procs, |ns| reg.sizes(ns).map(|(_, n)| n)).map(|all| {
                    let mut fresh: Vec<Proc> = Vec::new();
                    for p in all {
                        if p != me && !inv.invitees.contains(&p) && !fresh.contains(&p) {
                            fresh.push(p);
                        }
                    }
                    // one on another node is answered by its own server
                    inv.remote.extend(
                        fresh
                            .iter()
                            .filter(|p| !reg.clients.contains_key(*p))
                            .cloned(),
                    );
                    let dead: Vec<Proc> = fresh
                        .iter()
                        .filter(|p| reg.clients.get(*p).is_some_and(|c| c.dead || c.finalized))
                        .cloned()
                        .collect();
                    inv.invitees.extend(fresh.iter().cloned());
                    inv.replacements += fresh.len();
                    let mut proposed = vec![me.clone()];
                    proposed.extend(
                        inv.invitees
                            .iter()
                            .filter(|p| !inv.dropped.contains(*p))
                            .cloned(),
                    );
                    (fresh, proposed, dead)
                })
            }
            _ => Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("group invite {id:?}: no invitation of it led by {me:?} is under way"),
            )),
        }
    };
    let (fresh, proposed, dead) = match step {
        Ok(x) => x,
        Err(e) => return to.send(&Reply::error(&e)),
    };
    to.send_status(Ok(()));
    let mut ev = vec![];
    ev.extend(Info::new(attrs::GROUP_ID, id.as_str()));
    ev.extend(membership(&proposed));
    raise(inner, Status::GROUP_INVITED, &me, fresh, ev);
    for p in dead {
        invitee_gone(inner, &p);
    }
}
