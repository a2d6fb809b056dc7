//! `PMIx_Group_invite` / `PMIx_Group_join`: a leader invites processes
//! into a new group; each invitee accepts or declines. The server keeps
//! the invitation (by group id) and raises the draft's events:
//! `PMIX_GROUP_INVITED` at the invitees (from the leader, with
//! `PMIX_GROUP_ID` and the proposed `PMIX_GROUP_MEMBERSHIP`), `PMIX_GROUP_INVITE_ACCEPTED` /
//! `PMIX_GROUP_INVITE_DECLINED` at the leader, `PMIX_GROUP_INVITE_FAILED`
//! at the leader when an invitee dies or finalizes before answering, and
//! `PMIX_GROUP_CONSTRUCT_COMPLETE` with the final membership at every
//! member once every invitee answered. Invitees that declined or failed
//! are dropped (the leader's invite then returns
//! `PMIX_ERR_PARTIAL_SUCCESS` with the membership); the group is the
//! leader followed by the accepting invitees in invitation order, and it
//! is registered (job store, context id with `PMIX_GROUP_ASSIGN_CONTEXT_ID`)
//! before anyone is answered. `PMIX_TIMEOUT` on the invite ends it for the
//! leader and every accepted invitee with `PMIX_ERR_TIMEOUT`. A leader that
//! dies opens an election among the invitees (`invite_election.rs`): an
//! accepted invitee may claim the lead, else the invitation ends.
//! An invitee on another node hears the events through the host and joins
//! at its own server (`remote_invite.rs`).
//! The leader's handlers decide on each event it hears before the
//! invitation completes (`invite_decide.rs`).

use std::collections::BTreeSet;
use std::sync::Arc;

use pmix_core::proto::connect::rank_map;
use pmix_core::proto::Reply;
use pmix_core::{attrs, DataArray, DataRange, Error, Info, Proc, Rank, Status, Value};

use super::tracker::{Part, Pending};
use super::{check_id, group_info, register, with_context_id};
use super::{invite_decide, invite_election, remote_invite};
use crate::directives;
use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::ops::event::route::host_notify;

/// An invitation under way.
#[derive(Debug)]
pub(crate) struct Invitation {
    /// Names this invitation for its timer.
    pub(super) serial: u64,
    pub(super) leader: Proc,
    /// The leader's invite, answered at completion.
    pub(super) leader_to: ReplyTo,
    /// The leader's directives.
    pub(super) info: Vec<Info>,
    /// The leader's `PMIX_GROUP_INFO` (a new leader's, after an election).
    pub(super) leader_info: Vec<Info>,
    /// Leaders that died, in order (a join may still name them).
    pub(super) past_leaders: Vec<Proc>,
    /// The leader died and no invitee claimed the lead yet
    /// (`invite_election.rs`): the invitation cannot complete.
    pub(super) electing: bool,
    /// Invitees whose `PMIX_GROUP_LEADER_FAILED` handlers did not claim.
    pub(super) lead_declined: BTreeSet<Proc>,
    /// Invitees the leader's handlers added in place of dropped ones
    /// (`invite_decide::replace`).
    pub(super) replacements: usize,
    /// The invitees, in invitation order.
    pub(super) invitees: Vec<Proc>,
    /// Accepted, with their joins and their `PMIX_GROUP_INFO`.
    pub(super) accepted: Vec<(Proc, ReplyTo, Vec<Info>)>,
    /// Declined, died or finalized before answering.
    pub(super) dropped: BTreeSet<Proc>,
    /// Invitees on other nodes (`remote_invite.rs`).
    pub(super) remote: BTreeSet<Proc>,
    /// Invitees on other nodes that accepted (their servers answer their
    /// joins).
    pub(super) remote_accepted: Vec<Proc>,
    /// Events raised at the leader (ACCEPTED, DECLINED, INVITE_FAILED)
    /// whose handlers' decision has not come back (`invite_decide.rs`).
    pub(super) awaiting: usize,
}

impl Invitation {
    /// Every invitee answered and the leader decided on every event.
    pub(super) fn ready(&self) -> bool {
        self.answered() && self.awaiting == 0 && !self.electing
    }

    pub(super) fn answered(&self) -> bool {
        self.accepted.len() + self.remote_accepted.len() + self.dropped.len() >= self.invitees.len()
    }

    pub(super) fn has_answered(&self, p: &Proc) -> bool {
        self.dropped.contains(p)
            || self.remote_accepted.contains(p)
            || self.accepted.iter().any(|(q, _, _)| q == p)
    }
}

pub(super) fn raise(
    inner: &Arc<Inner>,
    status: Status,
    source: &Proc,
    targets: Vec<Proc>,
    mut info: Vec<Info>,
) {
    if targets.is_empty() {
        return;
    }
    if let Ok(i) = Info::new(
        attrs::EVENT_CUSTOM_RANGE,
        Value::DataArray(Box::new(DataArray::from_procs(targets))),
    ) {
        info.push(i);
    }
    if let Err(e) = host_notify(inner, status, Some(source), DataRange::CUSTOM, &info) {
        inner.log(format_args!("group: event {status} not raised: {e}"));
    }
    remote_invite::forward(inner, status, source, &info);
}

pub(super) fn about(id: &str, who: &Proc) -> Vec<Info> {
    [
        Info::new(attrs::GROUP_ID, id),
        Info::new(attrs::EVENT_AFFECTED_PROC, Value::Proc(who.clone())),
    ]
    .into_iter()
    .filter_map(Result::ok)
    .collect()
}

pub(super) fn membership(members: &[Proc]) -> Option<Info> {
    Info::new(
        attrs::GROUP_MEMBERSHIP,
        Value::DataArray(Box::new(DataArray::from_procs(members.to_vec()))),
    )
    .ok()
}

/// A client's `GROUP_INVITE`: the caller leads group `id` of itself and
/// `procs`.
pub(crate) fn invite(
    inner: &Arc<Inner>,
    to: ReplyTo,
    id: String,
    procs: Vec<Proc>,
    info: Vec<Info>,
) {
    let me = to.proc().clone();
    if let Err(e) = check_id(&id) {
        return to.send(&Reply::error(&e));
    }
    if procs.is_empty() {
        return to.send(&Reply::error(&Error::bad_param(
            "group invite: no invitees",
        )));
    }
    let deadline = directives::deadline(&info);
    let (serial, invitees, dead) = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let reg = &st.registry;
        let invitees = match rank_map(&procs, |ns| reg.sizes(ns).map(|(_, n)| n)) {
            Ok(v) => v,
            Err(e) => {
                drop(guard);
                return to.send(&Reply::error(&e));
            }
        };
        let mut seen = BTreeSet::new();
        let invitees: Vec<Proc> = invitees
            .into_iter()
            .filter(|p| *p != me && seen.insert(p.clone()))
            .collect();
        let refused = if invitees.is_empty() {
            Some(Error::bad_param(
                "group invite: no invitee besides the caller",
            ))
        } else if reg
            .sizes(&pmix_core::Nspace::new(&id).expect("checked"))
            .is_some()
        {
            Some(Error::bad_param(format!(
                "group invite: the id {id:?} is a registered namespace"
            )))
        } else if st.groups.live.contains_key(&id)
            || st.groups.pending.contains_key(&id)
            || st.groups.invites.contains_key(&id)
        {
            Some(Error::with_context(
                Status::ERR_EXISTS,
                format!("group invite: the id {id:?} is in use"),
            ))
        } else {
            None
        };
        if let Some(e) = refused {
            drop(guard);
            return to.send(&Reply::error(&e));
        }
        let dead: Vec<Proc> = invitees
            .iter()
            .filter(|p| reg.clients.get(p).is_some_and(|c| c.dead || c.finalized))
            .cloned()
            .collect();
        let serial = st.groups.take_serial();
        st.groups.invites.insert(
            id.clone(),
            Invitation {
                serial,
                leader: me.clone(),
                leader_to: to,
                info: info.clone(),
                leader_info: group_info(&info),
                past_leaders: Vec::new(),
                electing: false,
                lead_declined: BTreeSet::new(),
                replacements: 0,
                invitees: invitees.clone(),
                remote: invitees
                    .iter()
                    .filter(|p| !reg.clients.contains_key(*p))
                    .cloned()
                    .collect(),
                remote_accepted: Vec::new(),
                accepted: Vec::new(),
                dropped: BTreeSet::new(),
                awaiting: 0,
            },
        );
        (serial, invitees, dead)
    };
    if let Some(at) = deadline {
        let weak = Arc::downgrade(inner);
        let gid = id.clone();
        inner.state.lock().timer.at(
            at,
            Box::new(move || {
                if let Some(inner) = weak.upgrade() {
                    timed_out(&inner, &gid, serial);
                }
            }),
        );
    }
    let mut proposed = vec![me.clone()];
    proposed.extend(invitees.iter().cloned());
    let mut ev = vec![];
    ev.extend(Info::new(attrs::GROUP_ID, id.as_str()));
    ev.extend(membership(&proposed));
    raise(inner, Status::GROUP_INVITED, &me, invitees, ev);
    for p in dead {
        invitee_gone(inner, &p);
    }
}

/// A client's `GROUP_JOIN`: its answer to the invitation to group `id`.
pub(crate) fn join(
    inner: &Arc<Inner>,
    to: ReplyTo,
    id: String,
    leader: Proc,
    accept: bool,
    info: Vec<Info>,
) {
    let me = to.proc().clone();
    if let Err(e) = check_id(&id) {
        return to.send(&Reply::error(&e));
    }
    let elsewhere = {
        let st = inner.state.lock();
        !st.groups.invites.contains_key(&id) && st.groups.remote_invites.contains_key(&id)
    };
    if elsewhere {
        return remote_invite::join(inner, to, &id, &leader, accept, &info);
    }
    let step = {
        let mut st = inner.state.lock();
        match st.groups.invites.get_mut(&id) {
            None => Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("group join: no invitation to a group {id:?}"),
            )),
            Some(inv) if !inv.invitees.contains(&me) => Err(Error::with_context(
                Status::ERR_NOT_A_MEMBER,
                format!("group join: {me:?} was not invited to group {id:?}"),
            )),
            Some(inv)
                if !leader_matches(&leader, &inv.leader)
                    && !inv.past_leaders.iter().any(|l| leader_matches(&leader, l)) =>
            {
                Err(Error::bad_param(format!(
                    "group join: group {id:?} is led by {:?}, not {leader:?}",
                    inv.leader
                )))
            }
            Some(inv) if inv.has_answered(&me) => Err(Error::bad_param(format!(
                "group join: {me:?} already answered the invitation to {id:?}"
            ))),
            Some(inv) => {
                let leader = inv.leader.clone();
                if accept {
                    inv.accepted
                        .push((me.clone(), to.clone(), group_info(&info)));
                } else {
                    inv.dropped.insert(me.clone());
                }
                // while the lead is vacant nobody decides on the answer
                let tell = !inv.electing;
                if tell {
                    inv.awaiting += 1;
                }
                Ok((tell.then_some(leader), inv.answered().then_some(inv.serial)))
            }
        }
    };
    let (leader, whole) = match step {
        Ok(x) => x,
        Err(e) => return to.send(&Reply::error(&e)),
    };
    let status = if accept {
        Status::GROUP_INVITE_ACCEPTED
    } else {
        Status::GROUP_INVITE_DECLINED
    };
    if let Some(leader) = leader {
        raise(inner, status, &me, vec![leader], about(&id, &me));
    }
    if !accept {
        to.send(&Reply::status(Status::SUCCESS));
    }
    if let Some(serial) = whole {
        invite_decide::overdue_at(inner, &id, serial);
    }
}

fn leader_matches(given: &Proc, leader: &Proc) -> bool {
    given.nspace.as_str().is_empty()
        || given == leader
        || (given.nspace == leader.nspace && matches!(given.rank, Rank::WILDCARD | Rank::UNDEF))
}

/// Every invitee answered: registers the group and answers the leader and
/// the accepting invitees.
pub(super) fn complete(inner: &Arc<Inner>, id: &str) {
    let Some(inv) = inner.state.lock().groups.invites.remove(id) else {
        return;
    };
    let mut members = vec![inv.leader.clone()];
    let mut parts = std::collections::BTreeMap::new();
    parts.insert(
        inv.leader.clone(),
        Part {
            order: Vec::new(),
            leader: true,
            info: inv.leader_info.clone(),
        },
    );
    for p in &inv.invitees {
        if inv.remote_accepted.contains(p) {
            members.push(p.clone());
            parts.insert(p.clone(), Part::default());
        } else if let Some((_, _, gi)) = inv.accepted.iter().find(|(q, _, _)| q == p) {
            members.push(p.clone());
            parts.insert(
                p.clone(),
                Part {
                    order: Vec::new(),
                    leader: false,
                    info: gi.clone(),
                },
            );
        }
    }
    let pending = Pending {
        set: members.clone(),
        parts,
        assign_context_id: directives::flag(&inv.info, attrs::GROUP_ASSIGN_CONTEXT_ID),
        notify_termination: directives::flag(&inv.info, attrs::GROUP_NOTIFY_TERMINATION),
        claimed: None,
        jobs: std::collections::BTreeMap::new(),
    };
    let partial = inv.dropped.len() > inv.replacements || !inv.past_leaders.is_empty();
    let assign = pending.assign_context_id;
    let (m, info) = (pending.set.clone(), inv.info.clone());
    let id = id.to_owned();
    let id2 = id.clone();
    let i = Arc::clone(inner);
    let finish = move |cid: Option<u64>| {
        let waiters: Vec<ReplyTo> = std::iter::once(inv.leader_to.clone())
            .chain(inv.accepted.iter().map(|(_, t, _)| t.clone()))
            .collect();
        let answer = |r: &Reply| {
            for t in &waiters {
                t.send(r);
            }
        };
        register(&i, &answer, &id, &pending, (members.clone(), partial), cid);
        let mut ev = vec![];
        ev.extend(Info::new(attrs::GROUP_ID, id.as_str()));
        ev.extend(membership(&members));
        if let Some(c) = cid {
            ev.extend(Info::new(attrs::GROUP_CONTEXT_ID, Value::Size(c)));
        }
        // the invitees' servers on other nodes answer their joins with it
        let outcome = if partial {
            Status::ERR_PARTIAL_SUCCESS
        } else {
            Status::SUCCESS
        };
        ev.extend(Info::new(
            attrs::LOCAL_COLLECTIVE_STATUS,
            Value::Status(outcome),
        ));
        raise(
            &i,
            Status::GROUP_CONSTRUCT_COMPLETE,
            &inv.leader,
            members.clone(),
            ev,
        );
    };
    if assign {
        with_context_id(
            inner,
            &id2,
            &m,
            &info,
            0,
            Box::new(move |c| finish(Some(c))),
        );
    } else {
        finish(None);
    }
}

/// An invitation's `PMIX_TIMEOUT` passed: the leader and every accepted
/// invitee get `PMIX_ERR_TIMEOUT`; the invitation is over.
fn timed_out(inner: &Arc<Inner>, id: &str, serial: u64) {
    let inv = {
        let mut st = inner.state.lock();
        if !st
            .groups
            .invites
            .get(id)
            .is_some_and(|i| i.serial == serial)
        {
            return;
        }
        st.groups.invites.remove(id)
    };
    let Some(inv) = inv else { return };
    let r = Reply::error(&Error::with_context(
        Status::ERR_TIMEOUT,
        format!("group invite {id:?}: PMIX_TIMEOUT passed before every invitee answered"),
    ));
    inv.leader_to.send(&r);
    for (_, t, _) in &inv.accepted {
        t.send(&r);
    }
}

/// `p` died or finalized: as an invitee that has not answered (or
/// accepted, but the group is not complete) it is dropped and the leader
/// hears `PMIX_GROUP_INVITE_FAILED`; as a leader its invitations end.
pub(crate) fn invitee_gone(inner: &Arc<Inner>, p: &Proc) {
    let mut failed = Vec::new();
    let mut elections = Vec::new();
    let mut vacant = Vec::new();
    {
        let mut st = inner.state.lock();
        let ids: Vec<String> = st.groups.invites.keys().cloned().collect();
        for id in ids {
            let Some(inv) = st.groups.invites.get_mut(&id) else {
                continue;
            };
            if inv.leader == *p && !inv.electing {
                elections.push(id);
            } else if inv.invitees.contains(p) && !inv.dropped.contains(p) {
                inv.accepted.retain(|(q, _, _)| q != p);
                inv.dropped.insert(p.clone());
                if inv.electing {
                    // nobody leads to hear it; the election may be over
                    vacant.push(id);
                    continue;
                }
                inv.awaiting += 1;
                failed.push((id, inv.leader.clone(), inv.answered().then_some(inv.serial)));
            }
        }
    }
    for (id, leader, whole) in failed {
        raise(
            inner,
            Status::GROUP_INVITE_FAILED,
            p,
            vec![leader],
            about(&id, p),
        );
        if let Some(serial) = whole {
            invite_decide::overdue_at(inner, &id, serial);
        }
    }
    for id in elections {
        invite_election::start(inner, &id, p);
    }
    for id in vacant {
        invite_election::check_over(inner, &id);
    }
}
