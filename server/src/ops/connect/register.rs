//! A connected group's namespace in the job store, registered like a job:
//! `PMIX_NSPACE`, `PMIX_JOB_SIZE`, the rank map and, per rank, the real
//! process (`pmix_core::proto::connect` names the keys); and the job-level
//! info of participating namespaces this node lacks.

use pmix_core::proto::connect::{GROUP_CANONICAL, GROUP_MEMBER, GROUP_MEMBERS};
use pmix_core::{attrs, codec, DataArray, Error, Info, Nspace, Proc, Rank, Result, Value};

use crate::inner::Inner;

/// Writes group `ns` (rank map `ranks`, made from `canonical`) unless it
/// ended meanwhile. The check and the write hold the state lock, and a
/// disconnect drops the group from the state before it removes it from
/// the store: a late write never resurrects an ended group.
pub(crate) fn store_group(
    inner: &Inner,
    ns: &Nspace,
    canonical: &[Proc],
    ranks: &[Proc],
) -> Result<()> {
    let st = inner.state.lock();
    if !st.connects.live.contains_key(ns) {
        return Ok(());
    }
    let size = u32::try_from(ranks.len()).map_err(|_| Error::bad_param("group too large"))?;
    let w = Rank::WILDCARD.0;
    let n = ns.as_str();
    let job: Vec<(&str, Value)> = vec![
        (attrs::NSPACE, Value::String(n.to_owned())),
        (attrs::JOBID, Value::String(n.to_owned())),
        (attrs::JOB_SIZE, Value::Uint32(size)),
        (
            GROUP_CANONICAL,
            Value::DataArray(Box::new(DataArray::from_procs(canonical.to_vec()))),
        ),
        (
            GROUP_MEMBERS,
            Value::DataArray(Box::new(DataArray::from_procs(ranks.to_vec()))),
        ),
    ];
    inner
        .store
        .lock()
        .update(|t| {
            for (k, v) in &job {
                t.insert(n, w, k, codec::encode_value(v));
            }
            for (r, p) in (0u32..).zip(ranks) {
                t.insert(
                    n,
                    r,
                    GROUP_MEMBER,
                    codec::encode_value(&Value::Proc(p.clone())),
                );
                t.insert(
                    n,
                    r,
                    attrs::RANK,
                    codec::encode_value(&Value::Rank(Rank(r))),
                );
            }
        })
        .map(|_| ())
        .map_err(Error::from)?;
    drop(st);
    Ok(())
}

/// Removes group `ns` from the job store.
pub(crate) fn remove_group(inner: &Inner, ns: &Nspace) {
    let _ = inner.store.lock().update(|t| {
        t.remove_nspace(ns.as_str());
    });
}

/// Writes the job-level `info` of namespace `ns` (from the host's
/// outcome) when this node has no registered namespace of that name.
pub(crate) fn import_job_info(inner: &Inner, ns: &Nspace, info: &[Info]) -> Result<()> {
    if inner.state.lock().registry.sizes(ns).is_some() {
        return Ok(());
    }
    let w = Rank::WILDCARD.0;
    inner
        .store
        .lock()
        .update(|t| {
            for i in info {
                t.insert(
                    ns.as_str(),
                    w,
                    i.key.as_str(),
                    codec::encode_value(&i.value),
                );
            }
        })
        .map(|_| ())
        .map_err(Error::from)
}
