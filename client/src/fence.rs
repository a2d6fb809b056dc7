//! Fence: a shared-memory barrier when the participants are exactly one
//! fully local namespace, otherwise a request to the server.
//!
//! A `PMIX_TIMEOUT` ends the fence *episode* for every participant: on the
//! barrier, the first participant whose deadline passes closes the episode
//! and every other one (waiting, or arriving late) gets `PMIX_ERR_TIMEOUT`;
//! on the server path the server's tracker does the same. Either way the
//! next fence of all participants works (`pmix_shm::barrier`, "Episodes";
//! `docs/PROTOCOL.md`, "Fence").

use std::time::Duration;

use pmix_core::proto::{caps, keys, Request};
use pmix_core::{attrs, Error, Info, Proc, Rank, Result, Status};
use pmix_shm::barrier::Barrier;
use pmix_shm::sync::Ordering;

use crate::{deadline_from, fence_failure, peers, Inner};

/// How much longer than its `PMIX_TIMEOUT` a client waits for the server's
/// answer to a fence: the server times the episode out itself (so that
/// every participant gets the same answer), and this grace only ends the
/// wait of a client whose server (or host) never answers.
const SERVER_FENCE_GRACE: Duration = Duration::from_secs(1);

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
    let size = peers::job_u32(inner, ns, attrs::JOB_SIZE)?;
    let local = peers::job_u32(inner, ns, attrs::LOCAL_SIZE)?;
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
    peers::job_u32(inner, ns, keys::BARRIER)
}

pub(crate) fn fence(inner: &Inner, procs: &[Proc], info: &[Info]) -> Result<()> {
    let deadline = deadline_from(info)?;
    let procs = if procs.is_empty() {
        vec![Proc::from_parts(inner.me.nspace.clone(), Rank::WILDCARD)]
    } else {
        // a connected group's namespace stands for its real processes
        pmix_core::proto::canonical_procs(crate::group::translate(inner, procs))
    };
    if let Some(p) = procs
        .iter()
        .find(|p| p.rank != Rank::WILDCARD && !p.rank.is_valid())
    {
        return Err(Error::bad_param(format!(
            "fence: rank {} is not a valid participant",
            p.rank.0
        )));
    }
    if !procs.iter().any(|p| p.matches(&inner.me)) {
        return Err(Error::bad_param(
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
    // PMIX_GROUP_FT_COLLECTIVE: the server's fence counts a departed
    // participant as arrived; the barrier cannot.
    let ft = pmix_core::info::find(info, attrs::GROUP_FT_COLLECTIVE)
        .is_some_and(|i| i.value.is_true().unwrap_or(true));
    if let Some(b) = barrier
        .filter(|_| !ft)
        .and_then(|i| inner.barriers.barrier(i))
    {
        // Committed data is already in shared memory: the barrier alone
        // makes every participant's card visible.
        return shm_fence(inner, &b, deadline);
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
        .request(&req, deadline.map(|d| d + SERVER_FENCE_GRACE))?
        .into_result()
        .map(|_| ())
}

/// A fence on the namespace's barrier cell: this process's next episode
/// there, ended by the last arrival, the first deadline of any participant,
/// the death of a participant (poison), or the loss of the server; a
/// failure names the ranks it waited for (`fence_failure.rs`).
fn shm_fence(inner: &Inner, b: &Barrier<'_>, deadline: Option<std::time::Instant>) -> Result<()> {
    // Spin only when every participant can run at once.
    let spin = if (b.parties() as usize) <= inner.cpus {
        Duration::from_micros(50)
    } else {
        Duration::ZERO
    };
    // ORDERING: Relaxed — this process's own count of its fences on the
    // cell; the barrier orders the fences themselves.
    let episode = inner.fence_episode.fetch_add(1, Ordering::Relaxed);
    let lost = || {
        inner
            .conn
            .is_lost()
            .then_some(Status::ERR_LOST_CONNECTION.0)
    };
    // Recorded for the messages of the others' failed fences (who had
    // not arrived); one store to this process's own peer cell.
    let slot = *inner
        .own_slot
        .get_or_init(|| peers::slot_of(inner, &inner.me));
    if let Some(cell) = slot.and_then(|s| inner.barriers.peer(s)) {
        cell.set_arrived(episode);
    }
    b.arrive(episode)
        .and_then(|a| {
            if a.last {
                return Ok(());
            }
            if spin.is_zero() {
                if let Some(done) = yield_for_outcome(b, episode) {
                    return done;
                }
            }
            b.wait(episode, spin, deadline, &lost)
        })
        .map_err(|e| fence_failure::shm_fence_error(inner, e, episode))
}

/// More participants than CPUs: before sleeping, give the CPU to the
/// others (one of them is the last to arrive) for up to [`YIELD_FOR`],
/// checking the outcome between yields. A CPU that goes idle is slow to
/// wake on a virtual machine (the futex one-way across CPUs is 20-80 µs
/// on the project's VM, against ~1 µs on one CPU).
fn yield_for_outcome(
    b: &Barrier<'_>,
    episode: u32,
) -> Option<std::result::Result<(), pmix_shm::barrier::BarrierWaitError>> {
    let end = std::time::Instant::now() + YIELD_FOR;
    loop {
        if let Some(done) = b.outcome(episode) {
            return Some(done);
        }
        if std::time::Instant::now() >= end {
            return None;
        }
        std::thread::yield_now();
    }
}

/// How long a fence of more participants than CPUs yields before it
/// sleeps.
const YIELD_FOR: Duration = Duration::from_micros(50);
