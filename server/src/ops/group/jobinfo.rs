//! The job-level info of every namespace in a group, for the members on
//! nodes that do not hold it (the draft: "each member of the group is
//! provided with the job-level information of any other nspace represented
//! in the group").
//!
//! A construct that spans nodes completes through the host's fence
//! (`span.rs`); each server adds to its blob the job-level entries
//! (`(nspace, WILDCARD)` in its job store) of the namespaces of the group
//! that the host registered with it, and every server writes those of the
//! namespaces it does not hold into its own job store, where its clients
//! read them from shared memory. Entries that describe the sending node
//! rather than the job (local peers, node size, scratch directories, …)
//! and pmix-rs's private keys stay behind. A namespace this server holds
//! keeps its own entries; imported ones stay after the group ends (the
//! job-level info of a job does not change).

use std::collections::{BTreeMap, BTreeSet};

use pmix_core::proto::keys::PRIVATE_PREFIX;
use pmix_core::{attrs, Error, Proc, Rank, Result};

use crate::inner::Inner;

/// One namespace's job-level entries: (key, encoded value).
pub(crate) type Entries = Vec<(String, Vec<u8>)>;

/// Keys at `(nspace, WILDCARD)` that describe this node, not the job.
const NODE_LOCAL: &[&str] = &[
    attrs::LOCAL_SIZE,
    attrs::LOCAL_PEERS,
    attrs::LOCALLDR,
    attrs::LOCAL_CPUSETS,
    attrs::NODEID,
    attrs::NODE_SIZE,
    attrs::HOSTNAME,
    attrs::TMPDIR,
    attrs::NSDIR,
    attrs::TDIR_RMCLEAN,
];

fn travels(key: &str) -> bool {
    !key.starts_with(PRIVATE_PREFIX) && !NODE_LOCAL.contains(&key)
}

/// The job-level entries of the namespaces of `members` that the host
/// registered with this server.
pub(crate) fn local_jobs(inner: &Inner, members: &[Proc]) -> BTreeMap<String, Entries> {
    let held: BTreeSet<&str> = {
        let st = inner.state.lock();
        members
            .iter()
            .map(|p| p.nspace.as_str())
            .filter(|ns| pmix_core::Nspace::new(*ns).is_ok_and(|n| st.registry.sizes(&n).is_some()))
            .collect()
    };
    let store = inner.store.lock();
    let table = store.table();
    held.into_iter()
        .map(|ns| {
            let entries = table
                .entries_of(ns, Rank::WILDCARD.0)
                .filter(|(k, _)| travels(k))
                .map(|(k, v)| (k.to_owned(), v.to_vec()))
                .collect();
            (ns.to_owned(), entries)
        })
        .collect()
}

/// Writes the entries of every namespace in `jobs` that this server does
/// not hold into its job store (one update).
///
/// # Errors
/// The job store's, when it is full.
pub(crate) fn import(inner: &Inner, jobs: &BTreeMap<String, Entries>) -> Result<()> {
    let foreign: Vec<(&String, &Entries)> = {
        let st = inner.state.lock();
        jobs.iter()
            .filter(|(ns, _)| {
                pmix_core::Nspace::new(ns.as_str()).is_ok_and(|n| st.registry.sizes(&n).is_none())
            })
            .collect()
    };
    if foreign.is_empty() {
        return Ok(());
    }
    let w = Rank::WILDCARD.0;
    inner
        .store
        .lock()
        .update(|t| {
            for (ns, entries) in &foreign {
                for (k, v) in *entries {
                    if travels(k) {
                        t.insert(ns, w, k, v.clone());
                    }
                }
            }
        })
        .map(|_| ())
        .map_err(|e| {
            let e = Error::from(e);
            Error::with_context(
                e.status(),
                format!("group construct: the job-level info of the other nodes' namespaces: {e}"),
            )
        })
}
