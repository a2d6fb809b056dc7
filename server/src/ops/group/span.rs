//! A construct that spans nodes completes through the host's fence: each
//! server's blob carries its local contributions (member order, leader
//! flag, group info), its flags and its context-id proposal; every server
//! merges the same concatenation and so reaches the same outcome (the
//! context id is the largest proposal, which no server has given out).
//!
//! Blob: `u64` context-id proposal, `u8` assign-context-id, `u8`
//! notify-termination, `u32` count, then per contribution: the
//! contributor (proc), `u8` leader, its order (proc list), its group info
//! (info list); then `u32` count, and per namespace of the group this
//! server holds: its name (string), `u32` count, per job-level entry its
//! key (string) and encoded value (bytes) (`jobinfo.rs`). Blobs
//! concatenate.

use std::collections::BTreeMap;

use pmix_core::codec::{Decoder, Encoder};
use pmix_core::Result;

use super::tracker::{Part, Pending};

/// This server's blob for construct `p`.
pub(crate) fn encode(p: &Pending, proposal: u64) -> Vec<u8> {
    let mut e = Encoder::new();
    e.put_u64(proposal);
    e.put_u8(u8::from(p.assign_context_id));
    e.put_u8(u8::from(p.notify_termination));
    e.put_u32(u32::try_from(p.parts.len()).unwrap_or(u32::MAX));
    for (who, part) in &p.parts {
        e.put_proc(who);
        e.put_u8(u8::from(part.leader));
        e.put_procs(&part.order);
        e.put_infos(&part.info);
    }
    e.put_u32(u32::try_from(p.jobs.len()).unwrap_or(u32::MAX));
    for (ns, entries) in &p.jobs {
        e.put_str(ns);
        e.put_u32(u32::try_from(entries.len()).unwrap_or(u32::MAX));
        for (k, v) in entries {
            e.put_str(k);
            e.put_bytes(v);
        }
    }
    e.finish()
}

/// Every node's contributions merged into `p`; the largest context-id
/// proposal.
///
/// # Errors
/// The decoder's, for a malformed blob.
pub(crate) fn merge(p: &mut Pending, all: &[u8]) -> Result<u64> {
    let mut d = Decoder::new(all);
    let mut floor = 0;
    let mut parts = BTreeMap::new();
    while !d.is_at_end() {
        floor = floor.max(d.get_u64()?);
        p.assign_context_id |= d.get_u8()? != 0;
        p.notify_termination |= d.get_u8()? != 0;
        let n = d.get_u32()?;
        for _ in 0..n {
            let who = d.get_proc()?;
            let leader = d.get_u8()? != 0;
            let order = d.get_procs()?;
            let info = d.get_infos()?;
            parts.insert(
                who,
                Part {
                    order,
                    leader,
                    info,
                },
            );
        }
        let n = d.get_count("namespace list", 8)?;
        for _ in 0..n {
            let ns = d.get_str()?.to_owned();
            let m = d.get_count("job-level entries", 8)?;
            let mut entries = Vec::with_capacity(m);
            for _ in 0..m {
                let k = d.get_str()?.to_owned();
                entries.push((k, d.get_bytes()?.to_vec()));
            }
            p.jobs.insert(ns, entries);
        }
    }
    p.parts.extend(parts);
    Ok(floor)
}

/// The contributors of `p`, for the record.
#[cfg(test)]
fn contributors(p: &Pending) -> Vec<pmix_core::Proc> {
    p.parts.keys().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::{Nspace, Proc, Rank};

    fn proc(ns: &str, r: u32) -> Proc {
        Proc::from_parts(Nspace::new(ns).unwrap(), Rank(r))
    }

    #[test]
    fn blobs_of_two_nodes_merge_into_one_outcome() {
        let mut a = Pending::default();
        a.parts.insert(
            proc("x", 0),
            Part {
                order: vec![proc("x", 1), proc("x", 0)],
                leader: true,
                info: vec![],
            },
        );
        a.assign_context_id = true;
        let mut b = Pending::default();
        b.parts.insert(proc("x", 1), Part::default());
        b.notify_termination = true;
        b.jobs
            .insert("y".into(), vec![("pmix.job.size".into(), vec![1, 2])]);
        let mut all = encode(&a, 4);
        all.extend(encode(&b, 9));
        let mut merged = Pending::default();
        assert_eq!(merge(&mut merged, &all).unwrap(), 9);
        assert_eq!(contributors(&merged), vec![proc("x", 0), proc("x", 1)]);
        assert!(merged.assign_context_id && merged.notify_termination);
        assert!(merged.parts[&proc("x", 0)].leader);
        assert_eq!(
            merged.jobs["y"],
            vec![("pmix.job.size".to_owned(), vec![1, 2])]
        );
        assert!(merge(&mut merged, &[1, 2, 3]).is_err());
    }
}
