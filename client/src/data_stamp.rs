//! [`DataStamp`]: a witness that what a `get` read has not changed since,
//! so that a caller (the C ABI's `PMIx_Get`) may keep the answer and hand
//! it out again without reading, decoding and converting it each time.
//!
//! A get of the caller's own job without directives reads, apart from the
//! caller's own puts and `store_internal` values, only shared memory: the
//! job store, and for a local peer's non-reserved key that peer's modex
//! store. Both are published as whole new versions whose generations never
//! repeat, so equal generations mean equal contents. A stamp records them
//! (taken before the get, so that the answer is at least as new as the
//! stamp); it holds while they are unchanged and nothing was ever stored
//! with `store_internal`.

use pmix_core::proto::connect::{CONNECT_NSPACE, CONNECT_RANK};
use pmix_core::{attrs, Proc, Rank};
use pmix_shm::sync::Ordering;

use crate::{peers, Client};

/// A slot number no local peer has: the stamp reads no modex store.
const NO_SLOT: u32 = u32::MAX;

/// The generations a `get` of one key read (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataStamp {
    /// The job store's generation.
    job: u64,
    /// The local peer whose modex store holds the key, or [`NO_SLOT`].
    slot: u32,
    /// That store's generation (0 without one).
    peer: u64,
}

impl Client {
    /// The stamp of a `get` of `key` at `proc` without directives, to be
    /// taken *before* that get; `None` when its answer may change without
    /// a new shared-memory version (another namespace, a group or connect
    /// answer, the caller's own puts, `store_internal` values, rank
    /// `UNDEF`, a key the server answers, a programming-model declaration,
    /// process-set membership). Only a successful get may be kept.
    pub fn data_stamp(&self, proc: &Proc, key: &str) -> Option<DataStamp> {
        let inner = &self.inner;
        // ORDERING: Relaxed — as in `data::get`: a hint read in program
        // order with this thread's own `store_internal` calls.
        if inner.has_internal.load(Ordering::Relaxed)
            || proc.nspace != inner.me.nspace
            || key == CONNECT_NSPACE
            || key == CONNECT_RANK
            || key == attrs::PSET_MEMBERS
            || crate::model::is_declared_key(key)
        {
            return None;
        }
        let job = inner.job.generation();
        if job == 0 {
            return None;
        }
        let reserved = pmix_core::proc::is_reserved_key(key);
        let rank = proc.rank;
        let job_only = DataStamp {
            job,
            slot: NO_SLOT,
            peer: 0,
        };
        let ns = proc.nspace.as_str();
        // In the job store now, so a successful get reads it there (a
        // miss there asks the server, whose answers are not kept).
        let in_job = |r: Rank| peers::job_value(inner, ns, r.0, key).is_some();
        if rank == Rank::WILDCARD || (reserved && rank.is_valid()) {
            let found = in_job(rank) || (reserved && in_job(Rank::WILDCARD));
            return found.then_some(job_only);
        }
        if !rank.is_valid() || proc == &inner.me {
            return None;
        }
        match peers::slot_of(inner, proc) {
            Some(slot) => {
                let peer = peers::store(inner, slot)?.generation();
                Some(DataStamp { job, slot, peer })
            }
            // A departed local proc's card or an imported remote one.
            None => in_job(rank).then_some(job_only),
        }
    }

    /// Whether nothing a get stamped with `stamp` read has changed since
    /// (a few loads from shared memory, no lock).
    pub fn data_stamp_holds(&self, stamp: &DataStamp) -> bool {
        let inner = &self.inner;
        // ORDERING: Relaxed — see `data_stamp`.
        if inner.has_internal.load(Ordering::Relaxed) || inner.job.generation() != stamp.job {
            return false;
        }
        stamp.slot == NO_SLOT
            || peers::store(inner, stamp.slot).is_some_and(|r| r.generation() == stamp.peer)
    }
}
