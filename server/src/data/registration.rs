//! Registration: the host's `register_nspace` / `register_client` and
//! their inverses, as the shared stores, the barrier table, the event
//! rings and the registry see them.

use std::collections::BTreeMap;

use pmix_core::codec;
use pmix_core::proto::{keys, peer_state};
use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Result, Scope, Status, Value};

use crate::data::modex::{clear_modex, live_card};
use crate::inner::Inner;
use crate::ops::event::host_calls::drive_host_calls;
use crate::ops::event::replay::{drain_stale, replay};
use crate::registry::{ClientRec, NsInfo};

/// `(key, value)` pairs of one level (job, or one rank).
type Entries = Vec<(String, Value)>;

/// Registration infos split: job-level entries, per-rank entries, and the
/// node arrays (`data/nodes.rs`).
type Flat = (Entries, BTreeMap<u32, Entries>, Vec<Vec<Info>>);

/// Splits registration infos into job-level, per-rank and per-node entries.
pub(crate) fn flatten(info: &[Info]) -> Result<Flat> {
    let mut job = Vec::new();
    let mut per_rank: BTreeMap<u32, Entries> = BTreeMap::new();
    let mut nodes = Vec::new();
    for i in info {
        let key = i.key.as_str();
        if key == attrs::PROC_DATA {
            let inner = i
                .value
                .as_info_array()
                .map_err(|_| Error::bad_param("PMIX_PROC_DATA must be an array of infos"))?;
            let rank = inner
                .iter()
                .find(|x| x.key.as_str() == attrs::RANK)
                .ok_or_else(|| Error::bad_param("PMIX_PROC_DATA array without PMIX_RANK"))?;
            let rank = match &rank.value {
                Value::Rank(r) => r.0,
                v => u32::try_from(v.to_u64().map_err(|_| Error::bad_param("bad PMIX_RANK"))?)
                    .map_err(|_| Error::bad_param("bad PMIX_RANK"))?,
            };
            if !Rank(rank).is_valid() {
                return Err(Error::bad_param(format!(
                    "PMIX_PROC_DATA for special rank {rank}"
                )));
            }
            let entry = per_rank.entry(rank).or_default();
            for x in inner {
                entry.push((x.key.as_str().to_owned(), x.value.clone()));
            }
        } else if key == attrs::NODE_INFO_ARRAY {
            let inner = i
                .value
                .as_info_array()
                .map_err(|_| Error::bad_param("PMIX_NODE_INFO_ARRAY must be an array of infos"))?;
            nodes.push(inner.into_iter().cloned().collect());
        } else if key == attrs::APP_INFO_ARRAY {
            // One app per registration here: its keys describe this job as
            // a whole (a later issue adds the per-app level).
            if let Ok(inner) = i.value.as_info_array() {
                for x in inner {
                    job.push((x.key.as_str().to_owned(), x.value.clone()));
                }
            }
        } else if key != attrs::REGISTER_NODATA {
            job.push((key.to_owned(), i.value.clone()));
        }
    }
    Ok((job, per_rank, nodes))
}

pub(crate) fn register_nspace(
    inner: &Inner,
    nspace: &Nspace,
    nlocal: u32,
    info: &[Info],
) -> Result<()> {
    let (mut job, per_rank, nodes) = flatten(info)?;
    crate::data::nodes::add_node_arrays(&mut job, &nodes, &inner.cfg.hostname);
    let has = |job: &[(String, Value)], k: &str| job.iter().any(|(key, _)| key == k);
    if !has(&job, attrs::NSPACE) {
        job.push((attrs::NSPACE.into(), Value::String(nspace.as_str().into())));
    }
    if !has(&job, attrs::JOBID) {
        job.push((attrs::JOBID.into(), Value::String(nspace.as_str().into())));
    }
    if !has(&job, attrs::LOCAL_SIZE) {
        job.push((attrs::LOCAL_SIZE.into(), Value::Uint32(nlocal)));
    }
    if !has(&job, attrs::APPNUM) {
        // One application unless the host says otherwise (OpenPMIx does the
        // same; Open MPI reads each rank's appnum).
        job.push((attrs::APPNUM.into(), Value::Uint32(0)));
    }
    if !has(&job, attrs::JOB_SIZE) {
        job.push((attrs::JOB_SIZE.into(), Value::Uint32(nlocal)));
    }
    let job_size = job
        .iter()
        .find(|(k, _)| k == attrs::JOB_SIZE)
        .and_then(|(_, v)| v.to_u64().ok())
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(nlocal);

    let (barrier, slots) = {
        let mut st = inner.state.lock();
        if st
            .registry
            .nspaces
            .get(nspace)
            .is_some_and(|n| n.registered)
        {
            return Err(Error::bad_param(format!(
                "namespace {} is already registered",
                nspace.as_str()
            )));
        }
        let barrier = st.registry.take_barrier().ok_or_else(|| {
            Error::with_context(Status::ERR_OUT_OF_RESOURCE, "no free barrier cell")
        })?;
        let ns = st.registry.nspaces.entry(nspace.clone()).or_insert(NsInfo {
            registered: false,
            nlocal,
            job_size,
            barrier: None,
        });
        ns.registered = true;
        ns.nlocal = nlocal;
        ns.job_size = job_size;
        ns.barrier = Some(barrier);
        let slots: Vec<(u32, u32)> = st
            .registry
            .clients
            .iter()
            .filter(|(p, _)| &p.nspace == nspace)
            .map(|(p, c)| (p.rank.0, c.slot))
            .collect();
        (barrier, slots)
    };
    if let Some(b) = inner.barriers.barrier(barrier) {
        b.reset(nlocal);
    }
    let ns = nspace.as_str();
    let mut store = inner.store.lock();
    store
        .update(|t| {
            let w = Rank::WILDCARD.0;
            for (k, v) in &job {
                t.insert(ns, w, k, codec::encode_value(v));
            }
            for (rank, entries) in &per_rank {
                for (k, v) in entries {
                    t.insert(ns, *rank, k, codec::encode_value(v));
                }
            }
            t.insert(
                ns,
                w,
                keys::BARRIER,
                codec::encode_value(&Value::Uint32(barrier)),
            );
            for (rank, slot) in &slots {
                t.insert(
                    ns,
                    *rank,
                    keys::SLOT,
                    codec::encode_value(&Value::Uint32(*slot)),
                );
            }
        })
        .map_err(Error::from)?;
    Ok(())
}

pub(crate) fn deregister_nspace(inner: &Inner, nspace: &Nspace) -> Result<()> {
    {
        let mut st = inner.state.lock();
        let ns = st.registry.nspaces.remove(nspace).ok_or_else(|| {
            Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("namespace {} is not registered", nspace.as_str()),
            )
        })?;
        if let Some(b) = ns.barrier {
            st.registry.free_barrier(b);
        }
        st.events.forget_nspace(nspace);
    }
    inner.commits.forget_nspace(nspace);
    inner
        .store
        .lock()
        .update(|t| {
            t.remove_nspace(nspace.as_str());
        })
        .map_err(Error::from)?;
    Ok(())
}

pub(crate) fn register_client(inner: &Inner, proc: &Proc, uid: u32, gid: u32) -> Result<()> {
    if !proc.rank.is_valid() {
        return Err(Error::bad_param(format!(
            "cannot register special rank {:?}",
            proc.rank
        )));
    }
    let secret = crate::secret::new_secret()?;
    let slot = {
        let mut st = inner.state.lock();
        if st.registry.clients.contains_key(proc) {
            return Err(Error::bad_param(format!("{proc:?} is already registered")));
        }
        let slot = st.registry.take_slot().ok_or_else(|| {
            Error::with_context(Status::ERR_OUT_OF_RESOURCE, "every client slot is taken")
        })?;
        if let Err(e) = inner.rings.ensure(&inner.segment, slot) {
            st.registry.free_slot(slot);
            return Err(e);
        }
        // Nothing it could have committed counts until its store is cleared
        // below (the store may still hold a previous occupant's generation).
        inner.commits.set_baseline(slot, u64::MAX);
        // A previous occupant's events must not reach this client; then it
        // gets the cached and held events meant for it.
        drain_stale(inner, slot);
        st.registry.clients.insert(
            proc.clone(),
            ClientRec {
                uid,
                gid,
                slot,
                secret,
                pid: None,
                link: None,
                finalized: false,
                dead: false,
            },
        );
        replay(inner, &mut st, proc, slot);
        slot
    };
    if let Some(cell) = inner.barriers.peer(slot) {
        cell.set_pid(0);
        cell.set_state(peer_state::REGISTERED);
    }
    let baseline = clear_modex(inner, slot);
    inner.commits.set_baseline(slot, baseline);
    inner
        .store
        .lock()
        .update(|t| {
            t.insert(
                proc.nspace.as_str(),
                proc.rank.0,
                keys::SLOT,
                codec::encode_value(&Value::Uint32(slot)),
            );
        })
        .map_err(Error::from)?;
    Ok(())
}

pub(crate) fn deregister_client(inner: &Inner, proc: &Proc) -> Result<()> {
    // Keep what it committed: its peers may still ask for it after it left
    // (Open MPI's mpirun deregisters each client as soon as it exits, while
    // its peers may not have read its card yet). Recorded before the proc
    // leaves the registry, so a lookup always finds one or the other.
    let kept = live_card(inner, proc);
    if let Some(card) = &kept {
        inner.commits.depart(proc, card.entries.clone());
    }
    let rec = {
        let mut st = inner.state.lock();
        let rec = st.registry.clients.remove(proc).ok_or_else(|| {
            Error::with_context(Status::ERR_NOT_FOUND, format!("{proc:?} is not registered"))
        })?;
        st.modex_readers.remove(&rec.slot);
        st.interest.forget(proc);
        rec
    };
    drive_host_calls(inner);
    if let Some(link) = &rec.link {
        link.close();
    }
    // One publication moves the locally visible card into the job store and
    // drops the slot: a reader sees either the slot (whose store still holds
    // the card: the slot is not reused before it is freed below) or the card.
    let (ns, rank) = (proc.nspace.as_str(), proc.rank.0);
    let moved = {
        let mut store = inner.store.lock();
        let moved = store.update(|t| {
            t.remove(ns, rank, keys::SLOT);
            for (k, scope, v) in kept.iter().flat_map(|c| &c.entries) {
                if *scope != Scope::REMOTE {
                    t.insert(ns, rank, k, codec::encode_value(v));
                }
            }
        });
        // A card that does not fit: only the slot goes (the server still
        // answers for the departed proc).
        moved.or_else(|_| {
            store.update(|t| {
                t.remove(ns, rank, keys::SLOT);
            })
        })
    };
    if let Some(cell) = inner.barriers.peer(rec.slot) {
        cell.set_state(peer_state::FREE);
    }
    inner.state.lock().registry.free_slot(rec.slot);
    moved.map_err(Error::from)?;
    Ok(())
}
