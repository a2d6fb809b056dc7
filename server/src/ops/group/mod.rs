//! PMIx Groups (`PMIx_Group_construct` / `PMIx_Group_destruct`) in the
//! server, under any host: the host never needs to know a group exists.
//!
//! A construct is an episode of the collective tracker (`collective.rs`,
//! [`Kind::GroupConstruct`]) keyed by the group id and the canonical
//! member set; what each contributor brought (its member order, leader
//! flag, `PMIX_GROUP_INFO`) waits beside it in the [`GroupTracker`] under
//! the id. When every member is on this node the server completes it
//! alone; otherwise the host's `fence` carries every server's
//! contributions (`span.rs`) and each server reaches the same outcome.
//!
//! Group ranks: the order of the `PMIX_GROUP_LEADER`'s array; without a
//! leader, the order every member gave when they all gave the same one;
//! otherwise the canonical order (namespaces, then ranks, ascending).
//! Wildcards expand to every rank of their namespace, in rank order.
//!
//! Context ids (`PMIX_GROUP_ASSIGN_CONTEXT_ID`): a counter of this server,
//! skipping ids of live groups; across nodes, the largest of the servers'
//! proposals (each server's counter then moves past it), so the id is the
//! same at every member and not held by another live group of these
//! servers.
//!
//! Departures: a member that dies before the construct completes fails it
//! for every participant (`PMIX_ERR_LOST_CONNECTION`, naming it), unless
//! `PMIX_GROUP_OPTIONAL`: then it is dropped and the others get
//! `PMIX_ERR_PARTIAL_SUCCESS` with the reduced membership. A declared
//! leader that dies opens an election (`election.rs`): a participant may
//! claim the lead, and the construct goes on without the dead leader.
//!
//! Once complete the group is written into the job store under its id
//! (`store.rs`): members (and any local process) address it as
//! `(id, WILDCARD)` or `(id, group rank)` in fence, notify and get, which
//! the clients translate to the real processes before anything leaves
//! them (`client/src/group.rs`).

mod destruct;
mod election;
mod events;
mod invite;
mod invite_decide;
mod invite_election;
mod jobinfo;
mod leave;
mod remote_invite;
mod span;
mod store;
pub(crate) mod tracker;

pub(crate) use destruct::destruct;
pub(crate) use election::decide;
pub(crate) use invite::{invite, join};
pub(crate) use invite_decide::replace;
pub(crate) use leave::leave;
pub(crate) use remote_invite::host_event;

use std::sync::Arc;
use std::time::Instant;

use pmix_core::proto::connect::rank_map;
use pmix_core::proto::group::{encode_outcome, Outcome};
use pmix_core::proto::{canonical_procs, Reply};
use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Status};

use crate::collective::{Contributed, Due, Ended, Episode, Key, Kind, Refusal};
use crate::directives;
use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::ops::connect::opening;
use crate::ops::refusal;
use crate::timer::Timer;

use tracker::{GroupView, LiveGroup, Part, Pending};

/// Every live group of this server: what `PMIX_QUERY_NUM_GROUPS`,
/// `PMIX_QUERY_GROUP_NAMES` and `PMIX_QUERY_GROUP_MEMBERSHIP` answer from.
pub(crate) fn groups_snapshot(inner: &Inner) -> Vec<GroupView> {
    inner.state.lock().groups.snapshot()
}

/// Checks a group id: a string of 1 to 255 bytes without NUL.
pub(crate) fn check_id(id: &str) -> Result<Nspace, Error> {
    if id.is_empty() {
        return Err(Error::bad_param("group: the group id is empty"));
    }
    Nspace::new(id).map_err(|_| {
        Error::bad_param(format!(
            "group: the id {id:?} is not a valid group id (at most 255 bytes, no NUL)"
        ))
    })
}

fn check_procs(procs: &[Proc], me: &Proc) -> Result<(), Error> {
    if procs.is_empty() {
        return Err(Error::bad_param("group construct: no members"));
    }
    if let Some(p) = procs
        .iter()
        .find(|p| p.rank != Rank::WILDCARD && !p.rank.is_valid())
    {
        return Err(Error::bad_param(format!(
            "group construct: rank {} is not a valid member",
            p.rank.0
        )));
    }
    if !procs.iter().any(|p| p.matches(me)) {
        return Err(Error::with_context(
            Status::ERR_NOT_A_MEMBER,
            format!("group construct: the caller {me:?} is not among the members"),
        ));
    }
    Ok(())
}

pub(super) fn group_info(info: &[Info]) -> Vec<Info> {
    pmix_core::info::find(info, attrs::GROUP_INFO)
        .and_then(|i| match &i.value {
            pmix_core::Value::DataArray(a) => a.infos().ok(),
            _ => None,
        })
        .map(|v| v.into_iter().cloned().collect())
        .unwrap_or_default()
}

/// A client's `GROUP_CONSTRUCT`.
pub(crate) fn construct(
    inner: &Arc<Inner>,
    to: ReplyTo,
    id: String,
    procs: Vec<Proc>,
    info: Vec<Info>,
) {
    let me = to.proc().clone();
    if let Err(e) = check_id(&id).and_then(|_| check_procs(&procs, &me)) {
        return to.send(&Reply::error(&e));
    }
    let set = canonical_procs(procs.clone());
    let key = Key {
        kind: Kind::GroupConstruct(id.clone()),
        procs: set.clone(),
    };
    let optional = directives::flag(&info, attrs::GROUP_OPTIONAL);
    let deadline = directives::deadline(&info);
    let step = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let ns = Nspace::new(&id).expect("checked above");
        let refused = if st.registry.sizes(&ns).is_some() {
            Some(Error::bad_param(format!(
                "group construct: the id {id:?} is a registered namespace; give the group \
                 an id of its own (an application prefix, e.g. \"myapp-{id}\")"
            )))
        } else if st.groups.live.contains_key(&id) {
            Some(Error::with_context(
                Status::ERR_EXISTS,
                format!("group construct: a group {id:?} exists already; destruct it first"),
            ))
        } else if st.groups.pending.get(&id).is_some_and(|p| p.set != set) {
            Some(Error::bad_param(format!(
                "group construct: another construct of {id:?} is under way with other members"
            )))
        } else {
            None
        };
        if let Some(e) = refused {
            drop(guard);
            return to.send(&Reply::error(&e));
        }
        let p = st
            .groups
            .pending
            .entry(id.clone())
            .or_insert_with(|| Pending {
                set: set.clone(),
                ..Pending::default()
            });
        p.assign_context_id |= directives::flag(&info, attrs::GROUP_ASSIGN_CONTEXT_ID);
        p.notify_termination |= directives::flag(&info, attrs::GROUP_NOTIFY_TERMINATION);
        let part = Part {
            order: procs.clone(),
            leader: directives::flag(&info, attrs::GROUP_LEADER) || p.claimed.as_ref() == Some(&me),
            info: group_info(&info),
        };
        let had = p.parts.insert(me.clone(), part).is_some();
        let Some(to) = election::admit_locked(&mut st.groups, &id, &me, to) else {
            return; // its leader died: it waits for the election's outcome
        };
        let registry = &st.registry;
        let step = st
            .collectives
            .contribute(key, me.clone(), to, deadline, |key| {
                opening(registry, &key.procs, !optional, info.clone())
            });
        if let Contributed::Refused(..) = &step {
            if !had {
                st.groups.withdraw(&id, &me);
            }
        }
        if let Contributed::Waiting(Some(due)) = &step {
            expire_at(&st.timer, inner, due.clone());
        }
        step
    };
    match step {
        Contributed::Refused(to, why) => {
            if let Refusal::Departed(gone) = &why {
                events::invite_failed(inner, gone, &id, vec![to.proc().clone()]);
            }
            to.send(&Reply::error(&refusal_error(inner, &why, to.proc())));
        }
        Contributed::Waiting(_) => {}
        Contributed::Complete(ep) => complete(inner, ep),
    }
}

/// How group operations name themselves in their errors.
const WORDING: refusal::Wording = refusal::Wording {
    op: "group operation",
    who: "member",
    twice_hint: "concurrent constructs need distinct ids",
};

fn refusal_error(inner: &Inner, why: &Refusal, me: &Proc) -> Error {
    refusal::refusal_error(inner, why, me, &WORDING)
}

/// A member left before the operation completed (`ops/refusal.rs`).
fn gone_error(inner: &Inner, gone: &Proc) -> Error {
    refusal::gone_error(inner, gone, &WORDING)
}

/// Has the timer expire `due` at its time.
pub(super) fn expire_at(timer: &Timer, inner: &Arc<Inner>, due: Due) {
    let weak = Arc::downgrade(inner);
    timer.at(
        due.at,
        Box::new(move || {
            if let Some(inner) = weak.upgrade() {
                let ended = inner.state.lock().collectives.expire(&due, Instant::now());
                if let Some(ended) = ended {
                    settle(&inner, ended);
                }
            }
        }),
    );
}

/// Whether `ended` is a group operation's.
pub(crate) fn owns(ended: &Ended<ReplyTo>) -> bool {
    matches!(
        ended.episode().key.kind,
        Kind::GroupConstruct(_) | Kind::GroupDestruct(_)
    )
}

/// Answers a group operation that ended other than by its last arrival.
pub(crate) fn settle(inner: &Arc<Inner>, ended: Ended<ReplyTo>) {
    let fail = |ep: &Episode<ReplyTo>, e: Error| {
        if let Kind::GroupConstruct(id) = &ep.key.kind {
            inner.state.lock().groups.pending.remove(id);
        }
        finish(ep, &Reply::error(&e));
    };
    match ended {
        Ended::TimedOut(ep) | Ended::HostTimedOut(ep) => fail(
            &ep,
            Error::with_context(
                Status::ERR_TIMEOUT,
                "group operation timed out: PMIX_TIMEOUT passed before every member arrived; \
                 the operation is over for every member",
            ),
        ),
        Ended::Aborted(ep, gone) => {
            if let Kind::GroupConstruct(id) = ep.key.kind.clone() {
                let id = &id;
                let (leader, targets) = failure_targets(inner, id, &ep);
                match leader {
                    // the participants may claim the lead (election.rs)
                    Some(l) if l == gone => return election::start(inner, ep, gone, id.clone()),
                    // the waiting leader decides (election.rs)
                    Some(l) => match election::start_member(inner, ep, gone.clone(), l, id.clone())
                    {
                        None => return,
                        Some(ep) => {
                            events::invite_failed(inner, &gone, id, targets);
                            return fail(&ep, gone_error(inner, &gone));
                        }
                    },
                    None => events::invite_failed(inner, &gone, id, targets),
                }
            }
            fail(&ep, gone_error(inner, &gone));
        }
        Ended::Complete(ep) => complete(inner, ep),
    }
}

/// The declared `PMIX_GROUP_LEADER` of construct `id`, if any, and who
/// hears that a member is gone: the leader when one declared itself, else
/// every participant that called.
fn failure_targets(inner: &Inner, id: &str, ep: &Episode<ReplyTo>) -> (Option<Proc>, Vec<Proc>) {
    let st = inner.state.lock();
    let leader = st
        .groups
        .pending
        .get(id)
        .and_then(|p| p.parts.iter().find(|(_, part)| part.leader))
        .map(|(who, _)| who.clone());
    let targets = match &leader {
        Some(l) => vec![l.clone()],
        None => ep.contributed.iter().map(|(p, _)| p.clone()).collect(),
    };
    (leader, targets)
}

/// `proc` died: the other members of every live group made with
/// `PMIX_GROUP_NOTIFY_TERMINATION` it was in hear
/// `PMIX_GROUP_MEMBER_FAILED`. It stays a member: the group's destruct
/// counts it as done (with NOTIFY_TERMINATION) or fails. (Its pending
/// constructs and destructs are settled by the tracker's departure,
/// `fence::proc_lost`.)
pub(crate) fn proc_lost(inner: &Arc<Inner>, proc: &Proc) {
    let hit: Vec<(String, Vec<Proc>)> = inner
        .state
        .lock()
        .groups
        .live
        .iter()
        .filter(|(_, g)| g.notify_termination && g.members.contains(proc))
        .map(|(id, g)| (id.clone(), g.members.clone()))
        .collect();
    for (id, members) in hit {
        events::member_failed(inner, proc, &id, &members);
    }
    invite::invitee_gone(inner, proc);
}

/// `proc` finalized: a group whose local members all finalized or died is
/// forgotten here (its id is free again).
pub(crate) fn proc_finalized(inner: &Arc<Inner>, proc: &Proc) {
    invite::invitee_gone(inner, proc);
    let ended: Vec<String> = {
        let mut st = inner.state.lock();
        let st = &mut *st;
        let reg = &st.registry;
        let done: Vec<String> = st
            .groups
            .live
            .iter()
            .filter(|(_, g)| g.members.contains(proc))
            .filter(|(_, g)| {
                g.members.iter().all(|p| match reg.clients.get(p) {
                    Some(c) => c.finalized || c.dead,
                    None => true, // not here
                })
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in &done {
            st.groups.live.remove(id);
        }
        done
    };
    for id in &ended {
        store::remove_group(inner, id);
    }
}

pub(super) fn finish(ep: &Episode<ReplyTo>, r: &Reply) {
    for to in ep.waiters() {
        to.send(r);
    }
}

fn complete(inner: &Arc<Inner>, ep: Episode<ReplyTo>) {
    match ep.key.kind.clone() {
        Kind::GroupConstruct(id) => construct_done(inner, ep, id),
        Kind::GroupDestruct(id) => destruct::done(inner, ep, id),
        _ => {}
    }
}

/// Every local member arrived (or departed, with `PMIX_GROUP_OPTIONAL`).
fn construct_done(inner: &Arc<Inner>, ep: Episode<ReplyTo>, id: String) {
    let Some(pending) = inner.state.lock().groups.pending.remove(&id) else {
        return finish(
            &ep,
            &Reply::error(&Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("group construct {id:?}: its contributions were lost"),
            )),
        );
    };
    if !ep.remote {
        return conclude(inner, ep, id, pending, 0);
    }
    let mut pending = pending;
    pending.jobs = jobinfo::local_jobs(inner, &pending.set);
    let blob = span::encode(&pending, inner.state.lock().groups.context_id_proposal());
    let eid = ep.id;
    let set = ep.key.procs.clone();
    let info = ep.directives.clone();
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        if let Some(due) = st.collectives.await_host(ep) {
            expire_at(&st.timer, inner, due);
        }
    }
    let i = Arc::clone(inner);
    inner.host.fence_nb(
        &set,
        &info,
        blob,
        Box::new(move |r| {
            let Some(ep) = i.state.lock().collectives.host_answered(eid) else {
                return; // timed out: answered already
            };
            let mut pending = Pending {
                set: pending.set.clone(),
                ..Pending::default()
            };
            let merged = r
                .and_then(|all| span::merge(&mut pending, &all))
                .and_then(|floor| jobinfo::import(&i, &pending.jobs).map(|()| floor));
            match merged {
                Ok(floor) => conclude(&i, ep, id, pending, floor),
                Err(e) => finish(&ep, &Reply::error(&e)),
            }
        }),
    );
}

/// The membership in group-rank order (see the module docs).
fn order_of(pending: &Pending) -> Vec<Proc> {
    if let Some(l) = pending.parts.values().find(|p| p.leader) {
        return l.order.clone();
    }
    let mut orders = pending.parts.values().map(|p| &p.order);
    match orders.next() {
        Some(first) if orders.all(|o| o == first) => first.clone(),
        _ => pending.set.clone(),
    }
}

/// The outcome, the same on every server: the membership, then the
/// context id (the host's, else this server's counter), then the group is
/// registered and every local contributor answered.
fn conclude(inner: &Arc<Inner>, ep: Episode<ReplyTo>, id: String, pending: Pending, floor: u64) {
    let order = order_of(&pending);
    let members = {
        let st = inner.state.lock();
        rank_map(&order, |ns| st.registry.sizes(ns).map(|(_, n)| n))
    };
    let mut members = match members {
        Ok(m) => m,
        Err(e) => return finish(&ep, &Reply::error(&e)),
    };
    let mut seen = std::collections::BTreeSet::new();
    members.retain(|p| seen.insert(p.clone()));
    let before = members.len();
    members.retain(|p| !ep.departed.contains(p));
    let partial = members.len() != before;
    if !pending.assign_context_id {
        return register(
            inner,
            &|r| finish(&ep, r),
            &id,
            &pending,
            (members, partial),
            None,
        );
    }
    let eid = ep.id;
    let info = ep.directives.clone();
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        if let Some(due) = st.collectives.await_host(ep) {
            expire_at(&st.timer, inner, due);
        }
    }
    let i = Arc::clone(inner);
    let m = members.clone();
    let gid = id.clone();
    with_context_id(
        inner,
        &gid,
        &members,
        &info,
        floor,
        Box::new(move |cid| {
            let Some(ep) = i.state.lock().collectives.host_answered(eid) else {
                return; // timed out: answered already
            };
            register(
                &i,
                &|r| finish(&ep, r),
                &id,
                &pending,
                (m, partial),
                Some(cid),
            );
        }),
    );
}

/// The context id of a new group `id`: the host's (its `group` up-call,
/// asked once per construct), else this server's counter (at least
/// `floor`); `then` gets it.
pub(super) fn with_context_id(
    inner: &Arc<Inner>,
    id: &str,
    members: &[Proc],
    directives: &[Info],
    floor: u64,
    then: Box<dyn FnOnce(u64) + Send>,
) {
    let mut info = directives.to_vec();
    if pmix_core::info::find(&info, attrs::GROUP_ASSIGN_CONTEXT_ID).is_none() {
        if let Ok(i) = Info::new(attrs::GROUP_ASSIGN_CONTEXT_ID, pmix_core::Value::Bool(true)) {
            info.push(i);
        }
    }
    let i = Arc::clone(inner);
    inner.host.group(
        pmix_core::proto::group::op::CONSTRUCT,
        id,
        members,
        &info,
        Box::new(move |r| {
            let from_host = r.ok().and_then(|infos| {
                pmix_core::info::find(&infos, attrs::GROUP_CONTEXT_ID)
                    .and_then(|c| c.value.to_u64().ok())
            });
            then(from_host.unwrap_or_else(|| i.state.lock().groups.take_context_id(floor)));
        }),
    );
}

/// Registers group `id` and answers every local contributor through
/// `answer`.
pub(super) fn register(
    inner: &Arc<Inner>,
    answer: &dyn Fn(&Reply),
    id: &str,
    pending: &Pending,
    (members, partial): (Vec<Proc>, bool),
    context_id: Option<u64>,
) {
    inner.state.lock().groups.live.insert(
        id.to_owned(),
        LiveGroup {
            members: members.clone(),
            context_id,
            notify_termination: pending.notify_termination,
        },
    );
    let infos: Vec<(Proc, Vec<Info>)> = pending
        .parts
        .iter()
        .filter(|(_, p)| !p.info.is_empty())
        .map(|(who, p)| (who.clone(), p.info.clone()))
        .collect();
    if let Err(e) = store::write_group(inner, id, &members, context_id, &infos) {
        inner.state.lock().groups.live.remove(id);
        return answer(&Reply::error(&e));
    }
    let update = partial.then(|| members.clone());
    let r = Reply {
        status: Status::SUCCESS,
        value: Some(encode_outcome(&Outcome {
            partial,
            context_id,
            members,
        })),
        message: String::new(),
    };
    answer(&r);
    if let Some(m) = update {
        events::membership_update(inner, id, &m);
    }
}
