//! Fence: a shared-memory barrier when the participants are exactly one
//! fully local namespace, otherwise a request to the server.

use std::time::Duration;

use pmix_core::codec;
use pmix_core::proto::{caps, keys, Request};
use pmix_core::{attrs, Error, Info, Proc, Rank, Result, Status, Value};
use pmix_shm::barrier::BarrierWaitError;

use crate::{deadline_from, Inner};

fn job_u32(inner: &Inner, ns: &str, key: &str) -> Option<u32> {
    let v = inner
        .job
        .with(ns, Rank::WILDCARD.0, key, |b| codec::decode_value(b).ok())
        .flatten()?;
    match v {
        Value::Uint32(x) => Some(x),
        v => v.to_u64().ok().and_then(|x| u32::try_from(x).ok()),
    }
}

/// The barrier cell serving `procs`, when they are one fully local
/// namespace (every rank of it, all on this node).
fn local_barrier(inner: &Inner, procs: &[Proc]) -> Option<u32> {
    if inner.caps & caps::SHM_FENCE == 0 {
        return None;
    }
    let first = procs.first()?;
    if procs.iter().any(|p| p.nspace != first.nspace) {
        return None;
    }
    let ns = first.nspace.as_str();
    let size = job_u32(inner, ns, attrs::JOB_SIZE)?;
    let local = job_u32(inner, ns, attrs::LOCAL_SIZE)?;
    if size != local {
        return None;
    }
    let whole = first.rank == Rank::WILDCARD
        || (procs.len() as u64 == u64::from(size)
            && procs
                .iter()
                .enumerate()
                .all(|(i, p)| p.rank.0 as usize == i));
    if !whole {
        return None;
    }
    job_u32(inner, ns, keys::BARRIER)
}

pub(crate) fn fence(inner: &Inner, procs: &[Proc], info: &[Info]) -> Result<()> {
    let deadline = deadline_from(info)?;
    let procs = if procs.is_empty() {
        vec![Proc::from_parts(inner.me.nspace.clone(), Rank::WILDCARD)]
    } else {
        pmix_core::proto::canonical_procs(procs.to_vec())
    };
    if let Some(p) = procs
        .iter()
        .find(|p| p.rank != Rank::WILDCARD && !p.rank.is_valid())
    {
        return Err(Error::with_context(
            Status::ERR_BAD_PARAM,
            format!("fence: rank {} is not a valid participant", p.rank.0),
        ));
    }
    if !procs.iter().any(|p| p.matches(&inner.me)) {
        return Err(Error::with_context(
            Status::ERR_BAD_PARAM,
            "fence: the calling process must be a participant",
        ));
    }
    // The whole own namespace is the common case: its barrier (or the lack
    // of one) never changes while this client lives, so it is looked up once
    // instead of three store lookups per fence.
    let own_whole =
        procs.len() == 1 && procs[0].nspace == inner.me.nspace && procs[0].rank == Rank::WILDCARD;
    // Only a found cell is kept: before the namespace is registered every
    // rank must keep taking the same (server) path.
    let barrier = match inner.own_barrier.get() {
        Some(b) if own_whole => Some(*b),
        _ => {
            let b = local_barrier(inner, &procs);
            if let (true, Some(b)) = (own_whole, b) {
                let _ = inner.own_barrier.set(b);
            }
            b
        }
    };
    if let Some(b) = barrier.and_then(|i| inner.barriers.barrier(i)) {
        // Committed data is already in shared memory: the barrier alone
        // makes every participant's card visible.
        let parties = b.parties();
        // Spin only when every participant can run at once.
        let spin = if (parties as usize) <= inner.cpus {
            Duration::from_micros(50)
        } else {
            Duration::ZERO
        };
        let arrival = b.arrive(true);
        return match b.wait(arrival.generation, spin, deadline) {
            Ok(()) => Ok(()),
            Err(BarrierWaitError::Poisoned(s)) => Err(Error::with_context(
                Status(s),
                "fence failed: a participant is gone or timed out",
            )),
            Err(BarrierWaitError::Timeout) => {
                // The others cannot complete this episode any more.
                b.poison(Status::ERR_TIMEOUT.0);
                Err(Error::with_context(Status::ERR_TIMEOUT, "fence timed out"))
            }
        };
    }
    let req = Request::Fence {
        procs,
        info: info.to_vec(),
    };
    if let Some(cap) = req.needs_cap() {
        if inner.caps & cap == 0 {
            return Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "fence across several namespaces is not supported by this server connection",
            ));
        }
    }
    inner
        .conn
        .request(&req, deadline)?
        .into_result()
        .map(|_| ())
}
