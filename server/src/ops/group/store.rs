//! A group in the job store, so every local process can address it by
//! its id: at `(id, WILDCARD)` `PMIX_NSPACE`, `PMIX_JOB_SIZE`,
//! `PMIX_GROUP_ID`, `PMIX_GROUP_MEMBERSHIP`, `PMIX_GROUP_CONTEXT_ID` and
//! the rank map under `proto::connect::GROUP_MEMBERS` (the key the clients'
//! group addressing reads, shared with connected groups); at `(id, r)` the
//! real process and `PMIX_RANK`. Each contributor's `PMIX_GROUP_INFO`
//! entries go to the contributor's own `(nspace, rank)` under qualified
//! keys (`proto::group::qualified_key`): qualified by `PMIX_GROUP_ID`, and
//! by `PMIX_GROUP_CONTEXT_ID` when one was assigned. They outlive the
//! group: Open MPI 5 reads them after the destruct.

use pmix_core::proto::connect::{GROUP_MEMBER, GROUP_MEMBERS};
use pmix_core::proto::group::qualified_key;
use pmix_core::{attrs, codec, DataArray, Error, Info, Proc, Rank, Result, Value};

use crate::inner::Inner;

/// Writes group `id`: its members, its context id and every
/// contributor's group info (a group already there is replaced in the
/// same update: readers see the old membership or the new one).
pub(crate) fn write_group(
    inner: &Inner,
    id: &str,
    members: &[Proc],
    context_id: Option<u64>,
    infos: &[(Proc, Vec<Info>)],
) -> Result<()> {
    let size = u32::try_from(members.len()).map_err(|_| Error::bad_param("group too large"))?;
    let w = Rank::WILDCARD.0;
    let procs = || Value::DataArray(Box::new(DataArray::from_procs(members.to_vec())));
    let mut job: Vec<(&str, Value)> = vec![
        (attrs::NSPACE, Value::String(id.to_owned())),
        (attrs::JOB_SIZE, Value::Uint32(size)),
        (attrs::GROUP_ID, Value::String(id.to_owned())),
        (attrs::GROUP_MEMBERSHIP, procs()),
        (GROUP_MEMBERS, procs()),
    ];
    if let Some(c) = context_id {
        job.push((attrs::GROUP_CONTEXT_ID, Value::Size(c)));
    }
    let gid = Value::String(id.to_owned());
    let cid = context_id.map(Value::Size);
    let mut per_proc: Vec<(Proc, String, Value)> = Vec::new();
    for (p, list) in infos {
        for i in list {
            let k = i.key.as_str();
            per_proc.push((
                p.clone(),
                qualified_key(k, &[(attrs::GROUP_ID, &gid)]),
                i.value.clone(),
            ));
            if let Some(c) = &cid {
                per_proc.push((
                    p.clone(),
                    qualified_key(k, &[(attrs::GROUP_CONTEXT_ID, c)]),
                    i.value.clone(),
                ));
            }
        }
    }
    inner
        .store
        .lock()
        .update(|t| {
            t.remove_nspace(id);
            for (k, v) in &job {
                t.insert(id, w, k, codec::encode_value(v));
            }
            for (r, p) in (0u32..).zip(members) {
                t.insert(
                    id,
                    r,
                    GROUP_MEMBER,
                    codec::encode_value(&Value::Proc(p.clone())),
                );
                t.insert(
                    id,
                    r,
                    attrs::RANK,
                    codec::encode_value(&Value::Rank(Rank(r))),
                );
            }
            for (p, k, v) in &per_proc {
                t.insert(p.nspace.as_str(), p.rank.0, k, codec::encode_value(v));
            }
        })
        .map(|_| ())
        .map_err(Error::from)
}

/// Removes group `id` from the job store (its members' qualified group
/// info stays).
pub(crate) fn remove_group(inner: &Inner, id: &str) {
    let _ = inner.store.lock().update(|t| {
        t.remove_nspace(id);
    });
}
