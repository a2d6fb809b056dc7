//! Server-side fence trackers (fences the shared-memory barrier cannot do:
//! subsets, several namespaces, participants on other nodes); the
//! server-side `get` is in `dmodex.rs`.
//!
//! # Timeouts
//!
//! A tracker is one fence *episode* of its participant set (its key). Its
//! deadline is the earliest of its arrivals' `PMIX_TIMEOUT`s, each counted
//! from that arrival; the server's [timer](crate::timer) ends the episode
//! then: every arrived participant gets `PMIX_ERR_TIMEOUT` and the tracker
//! is removed. [`FenceEpisodes`] then remembers, for the set, how many
//! episodes ended and how many each participant entered: a participant that
//! arrives for an episode that already ended is answered `PMIX_ERR_TIMEOUT`
//! at once and is not counted in the next, so the next fence of all
//! participants works. A fence handed to the host (`fence_nb`) with a
//! deadline is answered `PMIX_ERR_TIMEOUT` at that deadline if the host has
//! not answered by then (a late answer of the host is dropped).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use pmix_core::proto::{msg, Reply};
use pmix_core::{attrs, Error, Info, Proc, Rank, Status};

use crate::conn::Conn;
use crate::state::{Entry, FenceEpisodes, State};
use crate::{data, Inner};

/// One pending fence (one episode of its participant set).
#[derive(Debug)]
pub(crate) struct Tracker {
    /// Names this episode for the timer.
    id: u64,
    /// Local procs that must arrive.
    expected: BTreeSet<Proc>,
    /// Arrived: who, on which connection, with which tag.
    arrived: Vec<(Proc, Arc<Conn>, u32)>,
    /// Directives of the first arrival.
    info: Vec<Info>,
    /// Some participant lives on another node (or in an unknown namespace).
    spans_nodes: bool,
    collect: bool,
    /// The earliest deadline of the arrivals' `PMIX_TIMEOUT`s.
    deadline: Option<Instant>,
}

fn collect_requested(info: &[Info]) -> bool {
    pmix_core::info::find(info, attrs::COLLECT_DATA)
        .is_some_and(|i| i.value.is_true().unwrap_or(true))
}

/// The arrival's `PMIX_TIMEOUT` (seconds; 0, negative or not an integer:
/// none — the client already refused the last).
fn timeout_of(info: &[Info]) -> Option<Duration> {
    let secs = pmix_core::info::find(info, attrs::TIMEOUT)?
        .value
        .to_i64()
        .ok()?;
    (secs > 0).then(|| Duration::from_secs(secs.unsigned_abs()))
}

fn timed_out_error() -> Error {
    Error::with_context(
        Status::ERR_TIMEOUT,
        "fence timed out: a participant's PMIX_TIMEOUT passed before every participant \
         arrived; the fence episode is over for every participant",
    )
}

fn late_error() -> Error {
    Error::with_context(
        Status::ERR_TIMEOUT,
        "that fence episode already timed out: another participant's PMIX_TIMEOUT ended it \
         before this process entered it",
    )
}

pub(crate) fn arrive(
    inner: &Arc<Inner>,
    conn: &Arc<Conn>,
    tag: u32,
    procs: Vec<Proc>,
    info: Vec<Info>,
) {
    let reply_err = |e: Error| conn.reply(msg::FENCE, tag, &Reply::error(&e));
    if procs.is_empty() {
        return reply_err(Error::with_context(
            Status::ERR_BAD_PARAM,
            "fence with no participants",
        ));
    }
    let key = pmix_core::proto::canonical_procs(procs);
    let me = conn.proc.clone();
    let deadline = timeout_of(&info).map(|t| Instant::now() + t);
    let done = {
        let mut st = inner.state.lock();
        if let Some(h) = st.fence_episodes.get_mut(&key) {
            if h.expected.contains(&me) && h.enter(&me) == Entry::Late {
                if h.in_step() {
                    st.fence_episodes.remove(&key);
                }
                drop(st);
                return reply_err(late_error());
            }
        }
        if !st.trackers.contains_key(&key) {
            let mut expected = BTreeSet::new();
            let mut spans = false;
            for p in &key {
                let ns = st.nspaces.get(&p.nspace);
                if p.rank == Rank::WILDCARD {
                    let locals = st.local_ranks(&p.nspace);
                    let job_size = ns.map_or(0, |n| n.job_size);
                    if ns.is_none() || (locals.len() as u64) < u64::from(job_size) {
                        spans = true;
                    }
                    for r in locals {
                        expected.insert(Proc::from_parts(p.nspace.clone(), r));
                    }
                } else if st.clients.contains_key(p) {
                    expected.insert(p.clone());
                } else {
                    spans = true;
                }
            }
            // A participant that already died fails the fence at once.
            if let Some(dead) = expected
                .iter()
                .find(|p| st.clients.get(*p).is_some_and(|c| c.dead))
            {
                let e = Error::with_context(
                    Status::ERR_PROC_ABORTED,
                    format!("fence participant {dead:?} is gone"),
                );
                drop(st);
                return reply_err(e);
            }
            let id = st.next_tracker_id;
            st.next_tracker_id += 1;
            st.trackers.insert(
                key.clone(),
                Tracker {
                    id,
                    expected,
                    arrived: Vec::new(),
                    collect: collect_requested(&info),
                    info,
                    spans_nodes: spans,
                    deadline: None,
                },
            );
        }
        let t = st.trackers.get_mut(&key).expect("inserted above");
        if !t.expected.contains(&me) {
            drop(st);
            return reply_err(Error::with_context(
                Status::ERR_BAD_PARAM,
                format!("{me:?} is not a participant of this fence"),
            ));
        }
        if t.arrived.iter().any(|(p, _, _)| p == &me) {
            drop(st);
            return reply_err(Error::with_context(
                Status::ERR_BAD_PARAM,
                format!("{me:?} entered the same fence twice"),
            ));
        }
        t.arrived.push((me, Arc::clone(conn), tag));
        // The episode ends at the earliest deadline of its arrivals.
        let earlier = deadline.filter(|d| t.deadline.map_or(true, |old| *d < old));
        if earlier.is_some() {
            t.deadline = earlier;
        }
        let (id, complete) = (t.id, t.arrived.len() == t.expected.len());
        if complete {
            let t = st.trackers.remove(&key);
            episode_completed(&mut st, &key);
            t
        } else {
            if let Some(d) = earlier {
                expire_at(&st, inner, key.clone(), id, d);
            }
            None
        }
    };
    if let Some(t) = done {
        complete_locally(inner, key, t);
    }
}

/// Has the timer end tracker `id` of `key` at `when` (if it is still
/// pending then and `when` is still its deadline).
fn expire_at(st: &State, inner: &Arc<Inner>, key: Vec<Proc>, id: u64, when: Instant) {
    let weak = Arc::downgrade(inner);
    st.timer.at(
        when,
        Box::new(move || {
            if let Some(inner) = weak.upgrade() {
                expire(&inner, &key, id);
            }
        }),
    );
}

/// The timer's job: ends tracker `id` of `key` as timed out if its
/// deadline has come.
fn expire(inner: &Inner, key: &[Proc], id: u64) {
    let t = {
        let mut st = inner.state.lock();
        let due = st
            .trackers
            .get(key)
            .is_some_and(|t| t.id == id && t.deadline.is_some_and(|d| d <= Instant::now()));
        let Some(t) = due.then(|| st.trackers.remove(key)).flatten() else {
            return;
        };
        episode_timed_out(&mut st, key, &t);
        t
    };
    finish(&t, &Reply::error(&timed_out_error()));
}

/// Bookkeeping of an episode of `key` that timed out: the participants
/// that did not arrive are now one episode behind.
fn episode_timed_out(st: &mut State, key: &[Proc], t: &Tracker) {
    let in_step = match st.fence_episodes.get_mut(key) {
        // Its arrivals were counted as they came.
        Some(h) => {
            h.ended += 1;
            h.in_step()
        }
        None => {
            let h = FenceEpisodes {
                expected: t.expected.clone(),
                ended: 1,
                entered: t.arrived.iter().map(|(p, _, _)| (p.clone(), 1)).collect(),
            };
            let in_step = h.in_step();
            st.fence_episodes.insert(key.to_vec(), h);
            in_step
        }
    };
    if in_step {
        st.fence_episodes.remove(key);
    }
}

/// Bookkeeping of an episode of `key` that every local participant
/// reached.
fn episode_completed(st: &mut State, key: &[Proc]) {
    if let Some(h) = st.fence_episodes.get_mut(key) {
        h.ended += 1;
        if h.in_step() {
            st.fence_episodes.remove(key);
        }
    }
}

fn finish(t: &Tracker, r: &Reply) {
    for (_, c, tag) in &t.arrived {
        c.reply(msg::FENCE, *tag, r);
    }
}

/// Every local participant arrived: finish, or hand the node's part to the
/// host when the fence spans nodes (answering `PMIX_ERR_TIMEOUT` at the
/// fence's deadline if the host has not answered by then).
fn complete_locally(inner: &Arc<Inner>, procs: Vec<Proc>, t: Tracker) {
    if !t.spans_nodes {
        return finish(&t, &Reply::status(Status::SUCCESS));
    }
    let blob = if t.collect {
        let locals: Vec<Proc> = t.expected.iter().cloned().collect();
        match data::node_blob(inner, &locals) {
            Ok(b) => b,
            Err(e) => return finish(&t, &Reply::error(&e)),
        }
    } else {
        Vec::new()
    };
    let mut info = t.info.clone();
    if !t.collect {
        info.retain(|i| i.key.as_str() != attrs::COLLECT_DATA);
    }
    let deadline = t.deadline;
    // Whoever takes the tracker answers: the host's completion, or the
    // timer at the deadline.
    let pending = Arc::new(Mutex::new(Some(t)));
    if let Some(d) = deadline {
        let p = Arc::clone(&pending);
        inner.state.lock().timer.at(
            d,
            Box::new(move || {
                if let Some(t) = p.lock().take() {
                    let e = Error::with_context(
                        Status::ERR_TIMEOUT,
                        "fence timed out: PMIX_TIMEOUT passed before the other nodes \
                         completed the fence",
                    );
                    finish(&t, &Reply::error(&e));
                }
            }),
        );
    }
    let i = Arc::clone(inner);
    inner.host.fence_nb(
        &procs,
        &info,
        blob,
        Box::new(move |r| {
            let Some(t) = pending.lock().take() else {
                return; // timed out: answered already
            };
            let reply = match r.and_then(|bytes| {
                if bytes.is_empty() {
                    Ok(())
                } else {
                    data::import_blobs(&i, &bytes)
                }
            }) {
                Ok(()) => Reply::status(Status::SUCCESS),
                Err(e) => Reply::error(&e),
            };
            finish(&t, &reply);
        }),
    );
}

/// `proc` is gone: every fence waiting for it fails, and its sets' episode
/// counts are forgotten (their fences fail at once from now on).
pub(crate) fn proc_lost(inner: &Inner, proc: &Proc) {
    let failed: Vec<Tracker> = {
        let mut st = inner.state.lock();
        st.fence_episodes.retain(|_, h| !h.expected.contains(proc));
        let keys: Vec<Vec<Proc>> = st
            .trackers
            .iter()
            .filter(|(_, t)| t.expected.contains(proc))
            .map(|(k, _)| k.clone())
            .collect();
        keys.iter().filter_map(|k| st.trackers.remove(k)).collect()
    };
    let e = Error::with_context(
        Status::ERR_PROC_ABORTED,
        format!("fence participant {proc:?} is gone"),
    );
    for t in failed {
        finish(&t, &Reply::error(&e));
    }
}
