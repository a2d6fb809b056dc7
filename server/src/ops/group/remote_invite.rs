//! Invitees on other nodes: the invite path across servers, carried by the
//! host's event relay (`Host::notify_event` on the sending node,
//! `Server::notify` on the others), as the connect machinery's events are.
//!
//! The leader's server raises every invite-path event at the invitees
//! wherever they are ([`forward`]: the local ones as always, those on other
//! nodes through the host, CUSTOM range naming only them). On an invitee's
//! node, its server reads the events the host hands it ([`host_event`])
//! before it delivers them:
//! - `PMIX_GROUP_INVITED` from a leader elsewhere records the invitation
//!   for the local invitees named ([`RemoteInvite`]); their `join` is
//!   answered here: the server raises `PMIX_GROUP_INVITE_ACCEPTED` /
//!   `_DECLINED` at the leader through the host (a decline returns at
//!   once), and an accept waits;
//! - `PMIX_GROUP_CONSTRUCT_COMPLETE` (with `PMIX_GROUP_MEMBERSHIP`,
//!   `PMIX_GROUP_CONTEXT_ID` when assigned, and the outcome in
//!   `PMIX_LOCAL_COLLECTIVE_STATUS`) registers the group here too and
//!   answers the waiting joins;
//! - `PMIX_GROUP_CONSTRUCT_ABORT` ends them with that status,
//!   `PMIX_GROUP_LEADER_FAILED` with `PMIX_ERR_LOST_CONNECTION` (invitees
//!   on other nodes take no part in the leader's succession).
//!
//! On the leader's node the answers of invitees elsewhere arrive the same
//! way: an `ACCEPTED` or `DECLINED` event from an invitee of an invitation
//! led here counts as its answer (the leader's handlers then decide as for
//! a local one). Such an invitee's death is not seen here: the invite's
//! `PMIX_TIMEOUT` bounds the wait. The group's `PMIX_GROUP_INFO` of members
//! on other nodes is not carried.

use std::collections::BTreeSet;
use std::sync::Arc;

use pmix_core::proto::Reply;
use pmix_core::{attrs, DataArray, DataRange, Error, Info, Proc, Rank, Status, Value};

use super::invite::{about, raise};
use super::invite_decide::overdue_at;
use super::register;
use super::tracker::Pending;
use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::ops::event::route::elsewhere;

/// An invitation led on another node, to local processes.
#[derive(Debug)]
pub(crate) struct RemoteInvite {
    leader: Proc,
    /// The local invitees named.
    invitees: BTreeSet<Proc>,
    /// Those that answered.
    answered: BTreeSet<Proc>,
    /// The accepted joins waiting here.
    joins: Vec<(Proc, ReplyTo)>,
}

/// Passes the event `status` from `source` (its `info` holds the CUSTOM
/// range) to the host for the targets on other nodes, naming only them.
pub(super) fn forward(inner: &Arc<Inner>, status: Status, source: &Proc, info: &[Info]) {
    let targets: Vec<Proc> =
        match pmix_core::info::find(info, attrs::EVENT_CUSTOM_RANGE).map(|i| &i.value) {
            Some(Value::DataArray(a)) => a
                .procs()
                .map(|v| v.into_iter().cloned().collect())
                .unwrap_or_default(),
            _ => return,
        };
    let remote: Vec<Proc> = {
        let st = inner.state.lock();
        targets
            .into_iter()
            .filter(|p| elsewhere(&st.registry, p))
            .collect()
    };
    if remote.is_empty() {
        return;
    }
    let mut info: Vec<Info> = info
        .iter()
        .filter(|i| !i.is(attrs::EVENT_CUSTOM_RANGE))
        .cloned()
        .collect();
    info.extend(Info::new(
        attrs::EVENT_CUSTOM_RANGE,
        Value::DataArray(Box::new(DataArray::from_procs(remote))),
    ));
    let logger = inner.logger();
    inner.host.notify_event(
        status,
        source,
        DataRange::CUSTOM,
        &info,
        Box::new(move |r| {
            if let Err(e) = r {
                logger.log(format_args!(
                    "group: event {status} not passed to the host for other nodes: {e}"
                ));
            }
        }),
    );
}

fn group_id(info: &[Info]) -> Option<String> {
    pmix_core::info::find(info, attrs::GROUP_ID)
        .and_then(|i| i.value.as_str().ok().map(str::to_owned))
}

fn procs_of(info: &[Info], key: &str) -> Vec<Proc> {
    match pmix_core::info::find(info, key).map(|i| &i.value) {
        Some(Value::DataArray(a)) => a
            .procs()
            .map(|v| v.into_iter().cloned().collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// An event the host hands this server (from another node), read before
/// it is delivered.
pub(crate) fn host_event(inner: &Arc<Inner>, status: Status, source: Option<&Proc>, info: &[Info]) {
    let (Some(source), Some(id)) = (source, group_id(info)) else {
        return;
    };
    if status == Status::GROUP_INVITED {
        invited(inner, source, &id, info);
    } else if status == Status::GROUP_INVITE_ACCEPTED || status == Status::GROUP_INVITE_DECLINED {
        answered_elsewhere(inner, source, &id, status == Status::GROUP_INVITE_ACCEPTED);
    } else if status == Status::GROUP_CONSTRUCT_COMPLETE {
        completed(inner, source, &id, info);
    } else if status == Status::GROUP_CONSTRUCT_ABORT || status == Status::GROUP_LEADER_FAILED {
        ended(inner, source, &id, status);
    }
}

/// `PMIX_GROUP_INVITED` from `leader` on another node.
fn invited(inner: &Arc<Inner>, leader: &Proc, id: &str, info: &[Info]) {
    let mut st = inner.state.lock();
    let st = &mut *st;
    if st.registry.clients.contains_key(leader) || st.groups.invites.contains_key(id) {
        return; // led here: not an invitation from elsewhere
    }
    let local: Vec<Proc> = procs_of(info, attrs::EVENT_CUSTOM_RANGE)
        .into_iter()
        .filter(|p| p.rank != Rank::WILDCARD && st.registry.clients.contains_key(p))
        .collect();
    if local.is_empty() {
        return;
    }
    let r = st
        .groups
        .remote_invites
        .entry(id.to_owned())
        .or_insert_with(|| RemoteInvite {
            leader: leader.clone(),
            invitees: BTreeSet::new(),
            answered: BTreeSet::new(),
            joins: Vec::new(),
        });
    if r.leader == *leader {
        r.invitees.extend(local);
    }
}

/// A local invitee's `GROUP_JOIN` to the invitation `id` led elsewhere.
pub(super) fn join(
    inner: &Arc<Inner>,
    to: ReplyTo,
    id: &str,
    leader: &Proc,
    accept: bool,
    _info: &[Info],
) {
    let me = to.proc().clone();
    let step = {
        let mut st = inner.state.lock();
        match st.groups.remote_invites.get_mut(id) {
            Some(r) if !r.invitees.contains(&me) => Err(Error::with_context(
                Status::ERR_NOT_A_MEMBER,
                format!("group join: {me:?} was not invited to group {id:?}"),
            )),
            Some(r) if !leads(leader, &r.leader) => Err(Error::bad_param(format!(
                "group join: group {id:?} is led by {:?}, not {leader:?}",
                r.leader
            ))),
            Some(r) if r.answered.contains(&me) => Err(Error::bad_param(format!(
                "group join: {me:?} already answered the invitation to {id:?}"
            ))),
            Some(r) => {
                r.answered.insert(me.clone());
                if accept {
                    r.joins.push((me.clone(), to.clone()));
                }
                let leader = r.leader.clone();
                if r.joins.is_empty() && r.answered.len() >= r.invitees.len() {
                    // every local invitee declined: nothing here waits
                    st.groups.remote_invites.remove(id);
                }
                Ok(leader)
            }
            None => Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("group join: no invitation to a group {id:?}"),
            )),
        }
    };
    let leader = match step {
        Ok(l) => l,
        Err(e) => return to.send(&Reply::error(&e)),
    };
    let status = if accept {
        Status::GROUP_INVITE_ACCEPTED
    } else {
        Status::GROUP_INVITE_DECLINED
    };
    raise(inner, status, &me, vec![leader], about(id, &me));
    if !accept {
        to.send(&Reply::status(Status::SUCCESS));
    }
}

fn leads(given: &Proc, leader: &Proc) -> bool {
    given.nspace.as_str().is_empty()
        || given == leader
        || (given.nspace == leader.nspace && matches!(given.rank, Rank::WILDCARD | Rank::UNDEF))
}

/// On the leader's node: invitee `who` (on another node) answered
/// invitation `id`.
fn answered_elsewhere(inner: &Arc<Inner>, who: &Proc, id: &str, accept: bool) {
    let whole = {
        let mut st = inner.state.lock();
        let Some(inv) = st.groups.invites.get_mut(id) else {
            return;
        };
        if !inv.remote.contains(who) || inv.has_answered(who) || inv.electing {
            return;
        }
        if accept {
            inv.remote_accepted.push(who.clone());
        } else {
            inv.dropped.insert(who.clone());
        }
        // the leader's library decides on the event it is about to get
        inv.awaiting += 1;
        inv.answered().then_some(inv.serial)
    };
    if let Some(serial) = whole {
        overdue_at(inner, id, serial);
    }
}

/// `PMIX_GROUP_CONSTRUCT_COMPLETE` of invitation `id` from its `leader`:
/// the group is registered here and the waiting joins answered.
fn completed(inner: &Arc<Inner>, leader: &Proc, id: &str, info: &[Info]) {
    let r = {
        let mut st = inner.state.lock();
        match st.groups.remote_invites.get(id) {
            Some(r) if r.leader == *leader => st.groups.remote_invites.remove(id),
            _ => None,
        }
    };
    let Some(r) = r else { return };
    let members = procs_of(info, attrs::GROUP_MEMBERSHIP);
    let context_id =
        pmix_core::info::find(info, attrs::GROUP_CONTEXT_ID).and_then(|i| i.value.to_u64().ok());
    let partial = matches!(
        pmix_core::info::find(info, attrs::LOCAL_COLLECTIVE_STATUS).map(|i| &i.value),
        Some(Value::Status(s)) if *s == Status::ERR_PARTIAL_SUCCESS
    );
    if !r.invitees.iter().any(|p| members.contains(p)) {
        return;
    }
    let pending = Pending {
        set: members.clone(),
        ..Pending::default()
    };
    let answer = |reply: &Reply| {
        for (_, t) in &r.joins {
            t.send(reply);
        }
    };
    register(inner, &answer, id, &pending, (members, partial), context_id);
}

/// The invitation `id` led elsewhere was aborted, or its leader died.
fn ended(inner: &Arc<Inner>, source: &Proc, id: &str, status: Status) {
    let r = {
        let mut st = inner.state.lock();
        match st.groups.remote_invites.get(id) {
            // an abort comes from the leader, or from an invitee elsewhere
            Some(r) if status == Status::GROUP_CONSTRUCT_ABORT || r.leader == *source => {
                st.groups.remote_invites.remove(id)
            }
            _ => None,
        }
    };
    let Some(r) = r else { return };
    let e = if status == Status::GROUP_CONSTRUCT_ABORT {
        Error::with_context(
            Status::GROUP_CONSTRUCT_ABORT,
            format!(
                "group invite {id:?}: aborted (rank {} of {})",
                source.rank.0, source.nspace
            ),
        )
    } else {
        Error::with_context(
            Status::ERR_LOST_CONNECTION,
            format!(
                "group invite {id:?}: its leader, rank {} of {} on another node, is gone",
                source.rank.0, source.nspace
            ),
        )
    };
    let reply = Reply::error(&e);
    for (_, t) in &r.joins {
        t.send(&reply);
    }
}
