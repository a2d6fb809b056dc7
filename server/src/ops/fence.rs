//! `PMIx_Fence` in the server: the fences the shared-memory barrier cannot
//! do (subsets, several namespaces, participants on other nodes). Each is
//! an episode of the collective tracker (`collective.rs`, [`Kind::Fence`]);
//! this module works out its participants, answers its contributors, arms
//! the timer, and hands the node's part to the host.
//!
//! # Timeouts
//!
//! An episode's deadline is the earliest of its arrivals' `PMIX_TIMEOUT`s,
//! each counted from that arrival; the server's [timer](crate::timer)
//! ends the episode then: every arrived participant gets
//! `PMIX_ERR_TIMEOUT`. A participant that arrives for an episode that
//! already ended is answered `PMIX_ERR_TIMEOUT` at once and is not counted
//! in the next, so the next fence of all participants works. A fence handed
//! to the host (`fence_nb`) with a deadline is answered `PMIX_ERR_TIMEOUT`
//! at that deadline if the host has not answered by then (a late answer of
//! the host is dropped).
//!
//! # Departures
//!
//! A participant that dies fails every pending local episode that expects
//! it with `PMIX_ERR_LOST_CONNECTION` ([`proc_lost`]), naming it — the
//! code OpenPMIx uses for a lost participant of a collective (Debian's 4.2
//! completes the fence among the survivors with `PMIX_ERR_PARTIAL_SUCCESS`
//! instead; `docs/RELIABILITY.md`, "Fence failure: which status") — and a
//! fence whose participant is already dead fails at once, the same way.
//! A timed-out episode names the participants that had not arrived.
//! With `PMIX_GROUP_FT_COLLECTIVE` (the Groups draft, *PMIx_Group_leave*)
//! the fence adjusts instead: a participant that died (before or during
//! it) or left a group (`PMIX_Group_leave`, [`proc_left`]) counts as
//! arrived, and the others complete with `PMIX_SUCCESS`.

use std::sync::Arc;
use std::time::Instant;

use pmix_core::proto::{canonical_procs, Reply};
use pmix_core::{attrs, Error, Info, Proc, Rank, Status};

use crate::collective::{Contributed, Due, Ended, Episode, Key, Kind, Opening, Refusal};
use crate::data::job::import_blobs;
use crate::data::modex::node_blob;
use crate::directives;
use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::registry::Registry;
use crate::timer::Timer;

/// A `FENCE` request over `procs`, answered to `to`.
pub(crate) fn arrive(inner: &Arc<Inner>, to: ReplyTo, procs: Vec<Proc>, info: Vec<Info>) {
    if procs.is_empty() {
        return to.send(&Reply::error(&Error::bad_param(
            "fence with no participants",
        )));
    }
    let key = Key {
        kind: Kind::Fence,
        procs: canonical_procs(procs),
    };
    let deadline = directives::deadline(&info);
    let ft = directives::flag(&info, attrs::GROUP_FT_COLLECTIVE);
    let step = {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        let registry = &st.registry;
        if let Err(e) = check_participants(registry, &key.procs) {
            drop(guard);
            return to.send(&Reply::error(&e));
        }
        let step = st
            .collectives
            .contribute(key, to.proc().clone(), to, deadline, |key| {
                let members = registry.members(&key.procs);
                Opening {
                    expected: members.local,
                    departed: members.dead,
                    remote: members.remote,
                    departure_fails: !ft,
                    directives: info,
                }
            });
        if let Contributed::Waiting(Some(due)) = &step {
            expire_at(&st.timer, inner, due.clone());
        }
        step
    };
    match step {
        Contributed::Refused(to, why) => to.send(&Reply::error(&refusal_error(&why, to.proc()))),
        Contributed::Waiting(_) => {}
        Contributed::Complete(ep) => complete_locally(inner, ep),
    }
}

/// A participant list that names no process: a rank that is neither a
/// valid rank nor the wildcard, or a rank beyond its registered
/// namespace's job size. (An unknown namespace may live on other nodes:
/// the host decides.)
fn check_participants(registry: &Registry, procs: &[Proc]) -> Result<(), Error> {
    for p in procs {
        if p.rank == Rank::WILDCARD {
            continue;
        }
        if !p.rank.is_valid() {
            return Err(Error::bad_param(format!(
                "fence: rank {} is not a valid participant",
                p.rank.0
            )));
        }
        if let Some((_, job_size)) = registry.sizes(&p.nspace) {
            if job_size > 0 && p.rank.0 >= job_size {
                return Err(Error::bad_param(format!(
                    "fence: {p:?} is beyond its namespace's job size {job_size}"
                )));
            }
        }
    }
    Ok(())
}

fn refusal_error(why: &Refusal, me: &Proc) -> Error {
    match why {
        Refusal::Late => Error::with_context(
            Status::ERR_TIMEOUT,
            "that fence episode already timed out: another participant's PMIX_TIMEOUT ended \
             it before this process entered it",
        ),
        Refusal::NotParticipant => {
            Error::bad_param(format!("{me:?} is not a participant of this fence"))
        }
        Refusal::Twice => Error::bad_param(format!("{me:?} entered the same fence twice")),
        Refusal::Departed(gone) => gone_error(gone),
        Refusal::TooMany(n) => Error::with_context(
            Status::ERR_OUT_OF_RESOURCE,
            format!(
                "{me:?} already takes part in {n} pending fences, the server's limit per \
                 client (ServerConfig::max_pending_per_client); wait for some to complete"
            ),
        ),
    }
}

fn gone_error(gone: &Proc) -> Error {
    Error::with_context(
        Status::ERR_LOST_CONNECTION,
        format!(
            "fence failed: rank {} of namespace {} died: its connection to the server closed \
             without PMIx_Finalize",
            gone.rank.0, gone.nspace
        ),
    )
}

/// The local participants of `ep` that neither contributed nor departed,
/// for a message ("rank 2 of namespace x", at most 16 named).
fn missing(ep: &Episode<ReplyTo>) -> String {
    let absent: Vec<String> = ep
        .expected
        .iter()
        .filter(|p| !ep.departed.contains(p) && !ep.contributed.iter().any(|(q, _)| q == *p))
        .map(|p| format!("rank {} of namespace {}", p.rank.0, p.nspace))
        .collect();
    match absent.len() {
        0 => String::new(),
        n if n > 16 => format!(
            " ({} and {} more had not arrived)",
            absent[..16].join(", "),
            n - 16
        ),
        _ => format!(" ({} had not arrived)", absent.join(", ")),
    }
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

/// Answers an episode that ended other than by its last arrival.
fn settle(inner: &Arc<Inner>, ended: Ended<ReplyTo>) {
    match ended {
        Ended::TimedOut(ep) => finish(
            &ep,
            &Reply::error(&Error::with_context(
                Status::ERR_TIMEOUT,
                format!(
                    "fence timed out: a participant's PMIX_TIMEOUT passed before every \
                     participant arrived{}; the fence episode is over for every participant",
                    missing(&ep)
                ),
            )),
        ),
        Ended::HostTimedOut(ep) => finish(
            &ep,
            &Reply::error(&Error::with_context(
                Status::ERR_TIMEOUT,
                "fence timed out: PMIX_TIMEOUT passed before the other nodes completed the \
                 fence",
            )),
        ),
        Ended::Aborted(ep, gone) => finish(&ep, &Reply::error(&gone_error(&gone))),
        Ended::Complete(ep) => complete_locally(inner, ep),
    }
}

fn finish(ep: &Episode<ReplyTo>, r: &Reply) {
    for to in ep.waiters() {
        to.send(r);
    }
}

/// Every local participant arrived: finish, or hand the node's part to the
/// host when the fence spans nodes (answering `PMIX_ERR_TIMEOUT` at the
/// fence's deadline if the host has not answered by then).
fn complete_locally(inner: &Arc<Inner>, ep: Episode<ReplyTo>) {
    if !ep.remote {
        return finish(&ep, &Reply::status(Status::SUCCESS));
    }
    let collect = directives::flag(&ep.directives, attrs::COLLECT_DATA);
    let blob = if collect {
        let locals: Vec<Proc> = ep.expected.iter().cloned().collect();
        match node_blob(inner, &locals) {
            Ok(b) => b,
            Err(e) => return finish(&ep, &Reply::error(&e)),
        }
    } else {
        Vec::new()
    };
    let mut info = ep.directives.clone();
    if !collect {
        info.retain(|i| i.key.as_str() != attrs::COLLECT_DATA);
    }
    let procs = ep.key.procs.clone();
    let id = ep.id;
    // Whoever takes the episode answers: the host's completion, or the
    // timer at the deadline.
    {
        let mut guard = inner.state.lock();
        let st = &mut *guard;
        if let Some(due) = st.collectives.await_host(ep) {
            expire_at(&st.timer, inner, due);
        }
    }
    let i = Arc::clone(inner);
    inner.host.fence_nb(
        &procs,
        &info,
        blob,
        Box::new(move |r| {
            let Some(ep) = i.state.lock().collectives.host_answered(id) else {
                return; // timed out: answered already
            };
            let reply = match r.and_then(|bytes| {
                if bytes.is_empty() {
                    Ok(())
                } else {
                    import_blobs(&i, &bytes)
                }
            }) {
                Ok(()) => Reply::status(Status::SUCCESS),
                Err(e) => Reply::error(&e),
            };
            finish(&ep, &reply);
        }),
    );
}

/// `proc` is gone: every fence waiting for it fails, and its sets' episode
/// counts are forgotten (their fences fail at once from now on).
/// `proc` left a group: the `PMIX_GROUP_FT_COLLECTIVE` fences waiting for
/// it go on without it.
pub(crate) fn proc_left(inner: &Arc<Inner>, proc: &Proc) {
    let ended = inner.state.lock().collectives.leave_lenient(proc);
    for e in ended {
        settle(inner, e);
    }
}

pub(crate) fn proc_lost(inner: &Arc<Inner>, proc: &Proc) {
    let ended = inner.state.lock().collectives.depart(proc);
    for e in ended {
        if crate::ops::connect::owns(&e) {
            crate::ops::connect::settle(inner, e);
        } else if crate::ops::group::owns(&e) {
            crate::ops::group::settle(inner, e);
        } else {
            settle(inner, e);
        }
    }
    crate::ops::connect::proc_lost(inner, proc);
    crate::ops::group::proc_lost(inner, proc);
}
