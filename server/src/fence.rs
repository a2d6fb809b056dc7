//! Server-side fence trackers (fences the shared-memory barrier cannot do:
//! subsets, several namespaces, participants on other nodes).

use std::collections::BTreeSet;
use std::sync::Arc;

use pmix_core::proto::{msg, Reply};
use pmix_core::{attrs, Error, Info, Proc, Rank, Status};

use crate::conn::Conn;
use crate::{data, Inner};

/// One pending fence.
#[derive(Debug)]
pub(crate) struct Tracker {
    /// Local procs that must arrive.
    expected: BTreeSet<Proc>,
    /// Arrived: who, on which connection, with which tag.
    arrived: Vec<(Proc, Arc<Conn>, u32)>,
    /// Directives of the first arrival.
    info: Vec<Info>,
    /// Some participant lives on another node (or in an unknown namespace).
    spans_nodes: bool,
    collect: bool,
}

fn collect_requested(info: &[Info]) -> bool {
    pmix_core::info::find(info, attrs::COLLECT_DATA)
        .is_some_and(|i| i.value.is_true().unwrap_or(true))
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
    let done = {
        let mut st = inner.state.lock();
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
            st.trackers.insert(
                key.clone(),
                Tracker {
                    expected,
                    arrived: Vec::new(),
                    collect: collect_requested(&info),
                    info,
                    spans_nodes: spans,
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
        if t.arrived.len() == t.expected.len() {
            st.trackers.remove(&key)
        } else {
            None
        }
    };
    if let Some(t) = done {
        complete_locally(inner, key, t);
    }
}

fn finish(t: &Tracker, r: &Reply) {
    for (_, c, tag) in &t.arrived {
        c.reply(msg::FENCE, *tag, r);
    }
}

/// Every local participant arrived: finish, or hand the node's part to the
/// host when the fence spans nodes.
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
    let i = Arc::clone(inner);
    inner.host.fence_nb(
        &procs,
        &info,
        blob,
        Box::new(move |r| {
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

/// `proc` is gone: every fence waiting for it fails.
pub(crate) fn proc_lost(inner: &Inner, proc: &Proc) {
    let failed: Vec<Tracker> = {
        let mut st = inner.state.lock();
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
