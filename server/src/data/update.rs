//! Job-level data that changes while the job runs (use case "Business
//! Card Exchange": job info may change in a dynamic job, and a `get`
//! after the update returns the new value): the host's
//! [`Server::update_job_info`](crate::Server::update_job_info) writes the
//! new entries over the registered ones in the shared job-data store,
//! which every local client reads on each `get` (with or without
//! `PMIX_GET_REFRESH_CACHE`: no client keeps a copy of job data).

use pmix_core::codec;
use pmix_core::proto::keys;
use pmix_core::{attrs, Error, Info, Nspace, Rank, Result, Status};

use crate::data::registration::flatten;
use crate::inner::Inner;

/// Writes `info` (as a registration gives it: job-level entries,
/// `PMIX_PROC_DATA` arrays, `PMIX_NODE_INFO_ARRAY`s) over `nspace`'s data.
pub(crate) fn update_job_info(inner: &Inner, nspace: &Nspace, info: &[Info]) -> Result<()> {
    let (mut job, per_rank, nodes) = flatten(info)?;
    crate::data::nodes::add_node_arrays(&mut job, &nodes, &inner.cfg.hostname);
    let refused = job
        .iter()
        .map(|(k, _)| k.as_str())
        .chain(per_rank.values().flatten().map(|(k, _)| k.as_str()))
        .find(|k| {
            k.starts_with(keys::PRIVATE_PREFIX) || *k == attrs::LOCAL_SIZE || *k == attrs::NSPACE
        });
    if let Some(k) = refused {
        return Err(Error::bad_param(format!(
            "update_job_info: {k} cannot change while the job runs (the local processes \
             and the namespace are what the host registered)"
        )));
    }
    let new_size = job
        .iter()
        .find(|(k, _)| k == attrs::JOB_SIZE)
        .map(|(_, v)| v.to_u64().ok().and_then(|n| u32::try_from(n).ok()))
        .map(|n| {
            n.ok_or_else(|| Error::bad_param("update_job_info: PMIX_JOB_SIZE must be a count"))
        })
        .transpose()?;
    {
        let mut st = inner.state.lock();
        let ns = st
            .registry
            .nspaces
            .get_mut(nspace)
            .filter(|n| n.registered)
            .ok_or_else(|| {
                Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("update_job_info: namespace {nspace} is not registered"),
                )
            })?;
        if let Some(n) = new_size {
            ns.job_size = n;
        }
    }
    let ns = nspace.as_str();
    inner
        .store
        .lock()
        .update(|t| {
            for (k, v) in &job {
                t.insert(ns, Rank::WILDCARD.0, k, codec::encode_value(v));
            }
            for (rank, entries) in &per_rank {
                for (k, v) in entries {
                    t.insert(ns, *rank, k, codec::encode_value(v));
                }
            }
        })
        .map_err(Error::from)?;
    Ok(())
}
