//! The job data in the shared job-data store, as the server reads and
//! extends it: a value of a proc or its job, other nodes' cards imported
//! from modex blobs, and the host's own `get`.

use pmix_core::codec::{self, blob};
use pmix_core::proto::keys;
use pmix_core::{Error, Info, Proc, Rank, Result, Status, Value};

use crate::data::modex;
use crate::inner::Inner;

/// Stores remote procs' data from a concatenation of modex blobs into the
/// job store (local procs' entries are skipped: their stores are current).
pub(crate) fn import_blobs(inner: &Inner, bytes: &[u8]) -> Result<()> {
    let entries = blob::decode_modex_all(bytes)?;
    let remote: Vec<_> = {
        let st = inner.state.lock();
        entries
            .into_iter()
            .filter(|(p, _)| !st.registry.clients.contains_key(p))
            .collect()
    };
    if remote.is_empty() {
        return Ok(());
    }
    inner
        .store
        .lock()
        .update(|t| {
            for (p, infos) in &remote {
                for i in infos {
                    t.insert(
                        p.nspace.as_str(),
                        p.rank.0,
                        i.key.as_str(),
                        codec::encode_value(&i.value),
                    );
                }
            }
        })
        .map_err(Error::from)?;
    Ok(())
}

/// A value from the job store, as the server sees it.
pub(crate) fn job_value(inner: &Inner, proc: &Proc, key: &str) -> Option<Value> {
    let store = inner.store.lock();
    let bytes = store.table().get(proc.nspace.as_str(), proc.rank.0, key)?;
    codec::decode_value(bytes).ok()
}

/// [`Server::get`](crate::Server::get) past the internal values: the
/// rank's registered entry, the job-level one, then a local client's
/// committed data.
pub(crate) fn server_get(inner: &Inner, proc: &Proc, key: &str) -> Result<Value> {
    if let Some(v) = job_value(inner, proc, key) {
        return Ok(v);
    }
    if proc.rank != Rank::WILDCARD {
        let job = Proc::from_parts(proc.nspace.clone(), Rank::WILDCARD);
        if let Some(v) = job_value(inner, &job, key) {
            return Ok(v);
        }
    }
    if proc.rank.is_valid() {
        if let Ok(committed) = modex::committed(inner, proc, false) {
            if let Some(i) = committed.into_iter().find(|i| i.is(key)) {
                return Ok(i.value);
            }
        }
    }
    Err(Error::with_context(
        Status::ERR_NOT_FOUND,
        format!("{key} is not known for {proc:?}"),
    ))
}

/// Every entry of the job store for `proc` (its rank's, or the job level
/// for `WILDCARD`) that is not private to pmix-rs, in key id order.
pub(crate) fn job_entries(inner: &Inner, proc: &Proc) -> Vec<Info> {
    let store = inner.store.lock();
    store
        .table()
        .entries_of(proc.nspace.as_str(), proc.rank.0)
        .filter(|(k, _)| !k.starts_with(keys::PRIVATE_PREFIX))
        .filter_map(|(k, b)| Info::new(k, codec::decode_value(b).ok()?).ok())
        .collect()
}

/// [`Server::get_all`](crate::Server::get_all) past the internal values:
/// the job store's entries of `proc`, then (a valid rank of a local
/// client) its committed card in any scope. The first of a key wins.
pub(crate) fn server_get_all(inner: &Inner, proc: &Proc, out: &mut Vec<Info>) {
    let mut add = |i: Info| {
        if !out.iter().any(|o| o.key == i.key) {
            out.push(i);
        }
    };
    job_entries(inner, proc).into_iter().for_each(&mut add);
    if proc.rank.is_valid() {
        if let Ok(committed) = modex::committed(inner, proc, false) {
            committed.into_iter().for_each(&mut add);
        }
    }
}
