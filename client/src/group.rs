//! Addressing a connected group by its namespace: `(group ns, WILDCARD)`
//! and `(group ns, r)` stand for the real processes of the group: for a
//! member, the rank map its connect reply carried; for any other local
//! process, the one the server writes into the job store once the connect
//! completed (`pmix_core::proto::connect::GROUP_MEMBERS`). Fence, notify (CUSTOM)
//! and get translate them before anything leaves the process.

use pmix_core::proto::connect::GROUP_MEMBERS;
use pmix_core::{Proc, Rank, Value};

use crate::{peers, Inner};

/// The rank map of group namespace `ns`, or `None` when `ns` is not a
/// group this node knows.
pub(crate) fn rank_map(inner: &Inner, ns: &str) -> Option<Vec<Proc>> {
    // the process's own job is never a group: the hot paths (gets and
    // fences within the job) pay nothing
    if ns == inner.me.nspace.as_str() {
        return None;
    }
    // a group of this process's own: the map its connect reply carried
    if let Some(map) = crate::connect::own_rank_map(inner, ns) {
        return Some(map);
    }
    match peers::job_value(inner, ns, Rank::WILDCARD.0, GROUP_MEMBERS)? {
        Value::DataArray(a) => a.procs().ok().map(|v| v.into_iter().cloned().collect()),
        _ => None,
    }
}

/// The real process behind `(group ns, r)`, when `p` names a member of a
/// group.
pub(crate) fn real_proc(inner: &Inner, p: &Proc) -> Option<Proc> {
    if !p.rank.is_valid() {
        return None;
    }
    rank_map(inner, p.nspace.as_str())?
        .get(p.rank.0 as usize)
        .cloned()
}

/// `procs` with every group address replaced by its real processes (a
/// wildcard by all members). A rank beyond the group stays as it is (and
/// fails where it is used).
pub(crate) fn translate(inner: &Inner, procs: &[Proc]) -> Vec<Proc> {
    let mut out = Vec::with_capacity(procs.len());
    for p in procs {
        match rank_map(inner, p.nspace.as_str()) {
            Some(map) if p.rank == Rank::WILDCARD => out.extend(map),
            Some(map) => match map.get(p.rank.0 as usize) {
                Some(real) if p.rank.is_valid() => out.push(real.clone()),
                _ => out.push(p.clone()),
            },
            None => out.push(p.clone()),
        }
    }
    out
}
