//! `PMIx_Connect` / `PMIx_Disconnect` (RFC0003) in the server.
//!
//! A connect is an episode of the collective tracker (`collective.rs`,
//! [`Kind::Connect`]) keyed by the canonical participant set, the
//! `PMIX_CONNECT_ID` and `PMIX_CONNECT_XCHG_ONLY`: calls that differ in
//! any of them are different operations, so one process may be in several
//! at once. When every participant is on this node the server completes it
//! alone: the rank map is the canonical set with wildcards expanded (new
//! rank = index), the namespace is minted from (set, id, generation)
//! (`pmix_core::proto::connect::mint_nspace`) and registered in the job
//! store like a job (`register.rs`). Otherwise the host completes it
//! (`Host::connect`), given the minted name as `PMIX_GROUP_ID` for hosts that
//! cannot name the group; the job info of namespaces this node lacks is
//! imported from its outcome.
//!
//! A disconnect is an episode of [`Kind::Disconnect`] over the group's
//! members; it ends the group (its namespace leaves the job store) once
//! every live member disconnected. Departures: a participant that dies
//! before arriving fails the connect (`PMIX_ERR_PROC_ABORTED`) unless
//! `PMIX_CONNECT_OPTIONAL`; a member of a live group that dies raises
//! `PMIX_ERR_PROC_TERM_WO_SYNC` at the other members unless the group was
//! made with `PMIX_CONNECT_EARLY_TERM_ALLOWED` (`events.rs`).

mod departures;
mod disconnect;
mod events;
pub(crate) mod groups;
mod register;

pub(crate) use departures::{proc_finalized, proc_lost};
pub(crate) use disconnect::disconnect;

use std::sync::Arc;
use std::time::Instant;

use pmix_core::proto::connect::{encode_outcome, mint_nspace, rank_map};
use pmix_core::proto::{canonical_procs, Reply};
use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Status};

use crate::collective::{Contributed, Due, Ended, Episode, Key, Kind, Opening, Refusal};
use crate::directives;
use crate::host::ConnectOutcome;
use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::ops::refusal;
use crate::registry::Registry;
use crate::timer::Timer;

use groups::Group;

/// `PMIX_CONNECT_ID` of a request.
fn connect_id(info: &[Info]) -> Option<String> {
    pmix_core::info::find(info, attrs::CONNECT_ID)
        .and_then(|i| i.value.as_str().ok().map(str::to_owned))
}

/// Who of `procs` is here, counting a named process of a namespace that
/// lives wholly on this node but is no longer registered as gone (not
/// remote).
pub(crate) fn opening(
    reg: &Registry,
    procs: &[Proc],
    departure_fails: bool,
    info: Vec<Info>,
) -> Opening {
    let m = reg.members(procs);
    // A finalized client will never arrive either.
    let mut departed = m.dead;
    departed.extend(
        m.local
            .iter()
            .filter(|p| reg.clients.get(*p).is_some_and(|c| c.finalized))
            .cloned(),
    );
    let mut o = Opening {
        expected: m.local,
        departed,
        remote: false,
        departure_fails,
        directives: info,
    };
    for p in procs {
        let here = reg.sizes(&p.nspace).is_some() && !reg.spans_nodes(&p.nspace);
        if p.rank == Rank::WILDCARD {
            o.remote |= !here;
        } else if !o.expected.contains(p) {
            if here {
                o.expected.insert(p.clone());
                o.departed.insert(p.clone());
            } else {
                o.remote = true;
            }
        }
    }
    o
}

fn check_procs(procs: &[Proc], me: &Proc) -> Result<(), Error> {
    if procs.is_empty() {
        return Err(Error::bad_param("connect: no participants"));
    }
    if let Some(p) = procs
        .iter()
        .find(|p| p.rank != Rank::WILDCARD && !p.rank.is_valid())
    {
        return Err(Error::bad_param(format!(
            "connect: rank {} is not a valid participant",
            p.rank.0
        )));
    }
    if !procs.iter().any(|p| p.matches(me)) {
        return Err(Error::with_context(
            Status::ERR_NOT_A_MEMBER,
            format!("connect: the caller {me:?} is not among the participants"),
        ));
    }
    Ok(())
}

/// A client's `CONNECT`.
pub(crate) fn connect(inner: &Arc<Inner>, to: ReplyTo, procs: Vec<Proc>, info: Vec<Info>) {
    let me = to.proc().clone();
    if let Err(e) = check_procs(&procs, &me) {
        return to.send(&Reply::error(&e));
    }
    let key = Key {
        kind: Kind::Connect {
            id: connect_id(&info),
            xchg_only: directives::flag(&info, attrs::CONNECT_XCHG_ONLY),
        },
        procs: canonical_procs(procs),
    };
    let optional = directives::flag(&info, attrs::CONNECT_OPTIONAL);
    let notify_req = directives::flag(&info, attrs::CONNECT_NOTIFY_REQ);
    let notify_each = directives::flag(&info, attrs::CONNECT_NOTIFY_EACH);
    let deadline = directives::deadline(&info);
    let set = key.procs.clone();
    let mut invited: Option<Vec<Proc>> = None;
    let step = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let registry = &st.registry;
        let step = st
            .collectives
            .contribute(key, me.clone(), to, deadline, |key| {
                let o = opening(registry, &key.procs, !optional, info.clone());
                invited = Some(o.expected.iter().filter(|p| **p != me).cloned().collect());
                o
            });
        if let Contributed::Waiting(Some(due)) = &step {
            expire_at(&st.timer, inner, due.clone());
        }
        step
    };
    if !matches!(step, Contributed::Refused(..)) {
        if let (true, Some(targets)) = (notify_req, invited) {
            events::connect_requested(inner, &me, &targets, &info);
        }
        if notify_each {
            events::has_connected(inner, &me, &set);
        }
    }
    match step {
        Contributed::Refused(to, why) => {
            to.send(&Reply::error(&refusal_error(inner, &why, to.proc())))
        }
        Contributed::Waiting(_) => {}
        Contributed::Complete(ep) => complete(inner, ep),
    }
}

/// How connect names itself in its errors.
const WORDING: refusal::Wording = refusal::Wording {
    op: "connect",
    who: "participant",
    twice_hint: "give concurrent calls (same participants) different PMIX_CONNECT_IDs",
};

pub(super) fn refusal_error(inner: &Inner, why: &Refusal, me: &Proc) -> Error {
    refusal::refusal_error(inner, why, me, &WORDING)
}

/// Has the timer expire `due` at its time.
fn expire_at(timer: &Timer, inner: &Arc<Inner>, due: Due) {
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

/// Whether `ended` is a connect's or a disconnect's.
pub(crate) fn owns(ended: &Ended<ReplyTo>) -> bool {
    matches!(
        ended.episode().key.kind,
        Kind::Connect { .. } | Kind::Disconnect(_)
    )
}

/// Answers a connect or disconnect that ended other than by its last
/// arrival.
pub(crate) fn settle(inner: &Arc<Inner>, ended: Ended<ReplyTo>) {
    match ended {
        Ended::TimedOut(ep) | Ended::HostTimedOut(ep) => finish(
            &ep,
            &Reply::error(&Error::with_context(
                Status::ERR_TIMEOUT,
                "timed out: PMIX_TIMEOUT passed before every participant arrived; the \
                 operation is over for every participant",
            )),
        ),
        Ended::Aborted(ep, gone) => finish(
            &ep,
            &Reply::error(&refusal::gone_error(inner, &gone, &WORDING)),
        ),
        Ended::Complete(ep) => complete(inner, ep),
    }
}

fn finish(ep: &Episode<ReplyTo>, r: &Reply) {
    for to in ep.waiters() {
        to.send(r);
    }
}

fn complete(inner: &Arc<Inner>, ep: Episode<ReplyTo>) {
    match ep.key.kind.clone() {
        Kind::Connect { id, xchg_only } => connect_done(inner, ep, id, xchg_only),
        Kind::Disconnect(ns) => disconnect::done(inner, ep, ns),
        Kind::Fence | Kind::GroupConstruct(_) | Kind::GroupDestruct(_) => {}
    }
}

/// Every local participant of a connect arrived.
fn connect_done(inner: &Arc<Inner>, ep: Episode<ReplyTo>, id: Option<String>, xchg_only: bool) {
    let set = ep.key.procs.clone();
    let optional = directives::flag(&ep.directives, attrs::CONNECT_OPTIONAL);
    let (minted, ranks) = {
        let mut st = inner.state.lock();
        let minted = (!xchg_only).then(|| {
            mint_nspace(
                &set,
                id.as_deref(),
                st.connects.take_generation(&set, id.as_deref()),
            )
        });
        let ranks = if ep.remote {
            Ok(Vec::new())
        } else {
            let reg = &st.registry;
            rank_map(&set, |ns| reg.sizes(ns).map(|(_, size)| size))
        };
        (minted, ranks)
    };
    if !ep.remote {
        let ranks = match ranks {
            Ok(mut r) => {
                if optional {
                    // only who arrived
                    r.retain(|p| ep.contributed.iter().any(|(q, _)| q == p));
                }
                r
            }
            Err(e) => return finish(&ep, &Reply::error(&e)),
        };
        return publish(inner, &ep, minted, ranks);
    }
    let mut info = ep.directives.clone();
    if let Some(m) = &minted {
        info.retain(|i| i.key.as_str() != attrs::GROUP_ID);
        if let Ok(i) = Info::new(attrs::GROUP_ID, m.as_str()) {
            info.push(i);
        }
    }
    let eid = ep.id;
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        if let Some(due) = st.collectives.await_host(ep) {
            expire_at(&st.timer, inner, due);
        }
    }
    let i = Arc::clone(inner);
    inner.host.connect(
        &set,
        &info,
        Box::new(move |r: pmix_core::Result<ConnectOutcome>| {
            let Some(ep) = i.state.lock().collectives.host_answered(eid) else {
                return; // timed out: answered already
            };
            match r {
                Ok(out) => {
                    for (ns, infos) in &out.job_info {
                        if let Err(e) = register::import_job_info(&i, ns, infos) {
                            return finish(&ep, &Reply::error(&e));
                        }
                    }
                    let ns = if xchg_only {
                        None
                    } else {
                        out.nspace.or(minted)
                    };
                    // A host that gives no rank map (the C module's 4.2
                    // connect answers a status only): the canonical set
                    // expanded with the registered job sizes.
                    let ranks = if out.ranks.is_empty() {
                        let st = i.state.lock();
                        rank_map(&ep.key.procs, |ns| st.registry.sizes(ns).map(|(_, n)| n))
                    } else {
                        Ok(out.ranks)
                    };
                    match ranks {
                        Ok(r) => publish(&i, &ep, ns, r),
                        Err(e) => finish(&ep, &Reply::error(&e)),
                    }
                }
                Err(e) => finish(&ep, &Reply::error(&e)),
            }
        }),
    );
}

/// Registers the group (unless `XCHG_ONLY`) and answers every contributor.
/// The reply carries the rank map, which the members translate group
/// addresses with; the job store's copy (for every other local process)
/// is written after the replies, off the members' path.
fn publish(inner: &Arc<Inner>, ep: &Episode<ReplyTo>, ns: Option<Nspace>, ranks: Vec<Proc>) {
    if let Some(ns) = &ns {
        let g = Group {
            canonical: ep.key.procs.clone(),
            ranks: ranks.clone(),
            early_term: directives::flag(&ep.directives, attrs::CONNECT_EARLY_TERM_ALLOWED),
            notify_each: directives::flag(&ep.directives, attrs::CONNECT_NOTIFY_EACH),
        };
        inner.state.lock().connects.live.insert(ns.clone(), g);
    }
    let r = Reply {
        status: Status::SUCCESS,
        value: Some(encode_outcome(ns.as_ref(), &ranks)),
        message: String::new(),
    };
    finish(ep, &r);
    if let Some(ns) = &ns {
        if let Err(e) = register::store_group(inner, ns, &ep.key.procs, &ranks) {
            inner.log(format_args!(
                "connect: group {} not written to the job store: {e}",
                ns.as_str()
            ));
        }
    }
}
