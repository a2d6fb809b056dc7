//! Registration and job data: what the server publishes into the shared
//! job-data store, and the modex blobs it reads from clients' stores.

use std::collections::BTreeMap;

use pmix_core::codec::{self, blob};
use pmix_core::proto::{self, keys, peer_state};
use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Result, Scope, Status, Value};
use pmix_shm::layout::RegionKind;

use crate::state::{ClientRec, NsInfo};
use crate::{event, Inner};

fn bad(msg: impl Into<String>) -> Error {
    Error::with_context(Status::ERR_BAD_PARAM, msg)
}

/// `(key, value)` pairs of one level (job, or one rank).
type Entries = Vec<(String, Value)>;

/// Splits registration infos into job-level and per-rank entries.
fn flatten(info: &[Info]) -> Result<(Entries, BTreeMap<u32, Entries>)> {
    let mut job = Vec::new();
    let mut per_rank: BTreeMap<u32, Entries> = BTreeMap::new();
    for i in info {
        let key = i.key.as_str();
        if key == attrs::PROC_DATA {
            let inner = i
                .value
                .as_info_array()
                .map_err(|_| bad("PMIX_PROC_DATA must be an array of infos"))?;
            let rank = inner
                .iter()
                .find(|x| x.key.as_str() == attrs::RANK)
                .ok_or_else(|| bad("PMIX_PROC_DATA array without PMIX_RANK"))?;
            let rank = match &rank.value {
                Value::Rank(r) => r.0,
                v => u32::try_from(v.to_u64().map_err(|_| bad("bad PMIX_RANK"))?)
                    .map_err(|_| bad("bad PMIX_RANK"))?,
            };
            if !Rank(rank).is_valid() {
                return Err(bad(format!("PMIX_PROC_DATA for special rank {rank}")));
            }
            let entry = per_rank.entry(rank).or_default();
            for x in inner {
                entry.push((x.key.as_str().to_owned(), x.value.clone()));
            }
        } else if key == attrs::APP_INFO_ARRAY || key == attrs::NODE_INFO_ARRAY {
            // One node, one app per registration here: their keys describe
            // this job as a whole (later issues add per-app/per-node levels).
            if let Ok(inner) = i.value.as_info_array() {
                for x in inner {
                    job.push((x.key.as_str().to_owned(), x.value.clone()));
                }
            }
        } else if key != attrs::REGISTER_NODATA {
            job.push((key.to_owned(), i.value.clone()));
        }
    }
    Ok((job, per_rank))
}

pub(crate) fn register_nspace(
    inner: &Inner,
    nspace: &Nspace,
    nlocal: u32,
    info: &[Info],
) -> Result<()> {
    let (mut job, per_rank) = flatten(info)?;
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
        if st.nspaces.get(nspace).is_some_and(|n| n.registered) {
            return Err(bad(format!(
                "namespace {} is already registered",
                nspace.as_str()
            )));
        }
        let barrier = st.take_barrier().ok_or_else(|| {
            Error::with_context(Status::ERR_OUT_OF_RESOURCE, "no free barrier cell")
        })?;
        let ns = st.nspaces.entry(nspace.clone()).or_insert(NsInfo {
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
        let ns = st.nspaces.remove(nspace).ok_or_else(|| {
            Error::with_context(
                Status::ERR_NOT_FOUND,
                format!("namespace {} is not registered", nspace.as_str()),
            )
        })?;
        if let Some(b) = ns.barrier {
            st.free_barrier(b);
        }
        st.events.store.forget_nspace(nspace);
    }
    inner.dmodex.forget_nspace(nspace);
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
        return Err(bad(format!("cannot register special rank {:?}", proc.rank)));
    }
    let slot = {
        let mut st = inner.state.lock();
        if st.clients.contains_key(proc) {
            return Err(bad(format!("{proc:?} is already registered")));
        }
        let slot = st.take_slot().ok_or_else(|| {
            Error::with_context(Status::ERR_OUT_OF_RESOURCE, "every client slot is taken")
        })?;
        // Nothing it could have committed counts until its store is cleared
        // below (the store may still hold a previous occupant's generation).
        inner.dmodex.set_baseline(slot, u64::MAX);
        // A previous occupant's events must not reach this client; then it
        // gets the cached and held events meant for it.
        event::drain_stale(inner, slot);
        st.clients.insert(
            proc.clone(),
            ClientRec {
                uid,
                gid,
                slot,
                conn: None,
                finalized: false,
                dead: false,
            },
        );
        event::replay(inner, &mut st, proc, slot);
        slot
    };
    if let Some(cell) = inner.barriers.peer(slot) {
        cell.set_pid(0);
        cell.set_state(peer_state::REGISTERED);
    }
    let baseline = clear_modex(inner, slot);
    inner.dmodex.set_baseline(slot, baseline);
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

/// Empties a slot's modex store (a previous occupant's card must not leak);
/// the store's generation afterwards (the new occupant's commits raise it).
fn clear_modex(inner: &Inner, slot: u32) -> u64 {
    match inner.segment.store_writer(RegionKind::MODEX, slot) {
        Ok(mut w) => {
            if w.generation() > 0 {
                let _ = w.publish(pmix_shm::TableBuilder::new());
            }
            w.generation()
        }
        Err(_) => 0,
    }
}

pub(crate) fn deregister_client(inner: &Inner, proc: &Proc) -> Result<()> {
    // Keep what it committed: its peers may still ask for it after it left
    // (Open MPI's mpirun deregisters each client as soon as it exits, while
    // its peers may not have read its card yet). Recorded before the proc
    // leaves the registry, so a lookup always finds one or the other.
    let kept = live_card(inner, proc);
    if let Some(card) = &kept {
        inner.dmodex.depart(proc, card.entries.clone());
    }
    let rec = {
        let mut st = inner.state.lock();
        let rec = st.clients.remove(proc).ok_or_else(|| {
            Error::with_context(Status::ERR_NOT_FOUND, format!("{proc:?} is not registered"))
        })?;
        st.modex_readers.remove(&rec.slot);
        st.events.interest.forget(proc);
        rec
    };
    event::drive_host_calls(inner);
    if let Some(conn) = &rec.conn {
        conn.close();
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
    inner.state.lock().free_slot(rec.slot);
    moved.map_err(Error::from)?;
    Ok(())
}

/// What a local proc committed, as the server reads it.
#[derive(Debug)]
pub(crate) struct Card {
    /// Every entry with the scope it was put with.
    pub(crate) entries: Vec<(String, Scope, Value)>,
    /// It committed since it was registered.
    pub(crate) committed: bool,
    /// It can commit no more: finalized, dead or deregistered.
    pub(crate) ended: bool,
}

impl Card {
    /// The entries a reader on another node (`remote`) or on this node sees.
    pub(crate) fn visible(&self, remote: bool) -> impl Iterator<Item = &(String, Scope, Value)> {
        self.entries.iter().filter(move |(_, scope, _)| {
            if remote {
                *scope != Scope::LOCAL
            } else {
                *scope != Scope::REMOTE
            }
        })
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _, _)| k == key)
    }
}

/// The card of a registered local client, read from its modex store.
fn live_card(inner: &Inner, proc: &Proc) -> Option<Card> {
    let mut st = inner.state.lock();
    let (slot, ended) = st
        .clients
        .get(proc)
        .map(|c| (c.slot, c.finalized || c.dead))?;
    let reader = match st.modex_readers.entry(slot) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            match inner.segment.store_reader(RegionKind::MODEX, slot) {
                Ok(r) => e.insert(r),
                Err(_) => {
                    return Some(Card {
                        entries: Vec::new(),
                        committed: false,
                        ended,
                    })
                }
            }
        }
    };
    let mut entries = Vec::new();
    let mut generation = 0;
    if let Ok(table) = reader.pin() {
        generation = table.generation();
        for (k, bytes) in table.keys_for(proc.nspace.as_str(), proc.rank.0) {
            if let Ok((scope, value)) = proto::decode_modex_value(bytes) {
                entries.push((k.to_owned(), scope, value));
            }
        }
    }
    drop(st);
    Some(Card {
        entries,
        committed: generation > inner.dmodex.baseline(slot),
        ended,
    })
}

/// The card of a local proc, registered or departed; `None` when `proc`
/// is not (and was not) a client of this server.
pub(crate) fn card(inner: &Inner, proc: &Proc) -> Option<Card> {
    live_card(inner, proc).or_else(|| {
        inner.dmodex.departed(proc).map(|entries| Card {
            entries,
            committed: true,
            ended: true,
        })
    })
}

/// The committed entries of the local client `proc` (registered or
/// departed) visible to readers on other nodes (`remote == true`: scopes
/// REMOTE and GLOBAL) or on this node.
pub(crate) fn committed(inner: &Inner, proc: &Proc, remote: bool) -> Result<Vec<Info>> {
    let card = card(inner, proc).ok_or_else(|| {
        Error::with_context(Status::ERR_NOT_FOUND, format!("{proc:?} is not local"))
    })?;
    card.visible(remote)
        .map(|(k, _, v)| Info::new(k, v.clone()))
        .collect()
}

/// One modex blob holding the remote-visible data of `procs` (local ones).
pub(crate) fn node_blob(inner: &Inner, procs: &[Proc]) -> Result<Vec<u8>> {
    let mut entries = Vec::with_capacity(procs.len());
    for p in procs {
        entries.push((p.clone(), committed(inner, p, true)?));
    }
    blob::encode_modex(&entries)
}

/// Stores remote procs' data from a concatenation of modex blobs into the
/// job store (local procs' entries are skipped: their stores are current).
pub(crate) fn import_blobs(inner: &Inner, bytes: &[u8]) -> Result<()> {
    let entries = blob::decode_modex_all(bytes)?;
    let remote: Vec<_> = {
        let st = inner.state.lock();
        entries
            .into_iter()
            .filter(|(p, _)| !st.clients.contains_key(p))
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
        if let Ok(committed) = committed(inner, proc, false) {
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

/// Writes a socket-committed card into the client's modex store.
pub(crate) fn socket_commit(
    inner: &Inner,
    proc: &Proc,
    entries: &[(String, u8, Value)],
) -> Result<()> {
    let slot = inner
        .state
        .lock()
        .clients
        .get(proc)
        .map(|c| c.slot)
        .ok_or_else(|| Error::with_context(Status::ERR_NOT_FOUND, "not registered"))?;
    let mut w = inner
        .segment
        .store_writer(RegionKind::MODEX, slot)
        .map_err(Error::from)?;
    // Keep what earlier commits wrote: start from the current table.
    let mut table = pmix_shm::TableBuilder::new();
    if let Ok(r) = inner.segment.store_reader(RegionKind::MODEX, slot) {
        if let Ok(pinned) = r.pin() {
            for (k, v) in pinned.keys_for(proc.nspace.as_str(), proc.rank.0) {
                table.insert(proc.nspace.as_str(), proc.rank.0, k, v.to_vec());
            }
        }
    }
    for (k, scope, v) in entries {
        if k.starts_with("pmix.") {
            return Err(bad(format!("reserved key {k} cannot be put")));
        }
        table.insert(
            proc.nspace.as_str(),
            proc.rank.0,
            k,
            proto::encode_modex_value(Scope(*scope), v),
        );
    }
    w.publish(table).map_err(Error::from)?;
    Ok(())
}
