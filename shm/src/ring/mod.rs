//! MPSC ring of variable-length records in shared memory.
//!
//! Many producers (threads and processes) reserve space lock-free, write a
//! record and commit it; one consumer reads the records in reservation order
//! and releases their space. Records never straddle the end of the ring
//! (a padding record fills the rest of the lap instead), never overwrite
//! unread data (a full ring answers [`TryPushError::Full`]), and are never
//! split (a payload over [`Ring::max_payload`] answers `TooLarge`).
//!
//! # Layout
//!
//! A ring region is a [`RING_HEADER_SIZE`]-byte header (magic, version,
//! geometry, the `lost`/`corrupt` counters, and `tail`, `head` and two
//! doorbells each on its own 128-byte line), then `cells` 64-byte cells. A
//! record takes `ceil((16 + len) / 64)` consecutive cells; its first cell
//! starts with the 16-byte record header — the *state word* and the *meta
//! word* (see [`SlotState`] and [`RecordMeta`]) — and the payload follows,
//! contiguous and 8-byte aligned, running on through the next cells.
//! `docs/SHM-LAYOUT.md` has every byte.
//!
//! # Protocol
//!
//! Positions count cells and never wrap in practice (2^56 cells); cell index
//! = `position & (cells - 1)`.
//!
//! Producer, for a record of `k` cells at tail `t`:
//! 1. if the record would cross the end, it also reserves the `pad` cells
//!    to the end; it checks `t + pad + k <= head + cells` (a cached `head`
//!    first) or answers `Full`;
//! 2. `CAS(tail, t, t + pad + k)`;
//! 3. `CAS(state[t], Free(t), Padding)` if padding, then
//!    `CAS(state[p], Free(p), Reserved{pid, k})` — its pid goes in before
//!    anything else, and a failed CAS means the consumer already gave the
//!    reservation up (the producer then writes nothing and answers
//!    `Abandoned`);
//! 4. writes the meta word and the payload;
//! 5. `CAS(state[p], Reserved, Committed)` with `Release`; if it finds
//!    `Abandoned` instead, it stores `Acked` and answers `Abandoned`;
//! 6. rings the consumer's doorbell (a fence and a load; a syscall only when
//!    the consumer announced it sleeps).
//!
//! Consumer, at read position `r`: loads `state[r]` with `Acquire`;
//! `Committed` → hands the payload to the caller, then stamps every cell of
//! the record `Free(pos + cells)` and publishes `head` with `Release`;
//! `Padding` → the same without a caller; `Free(r)` → empty.
//!
//! # Dead and stalled producers
//!
//! A reservation at the read position that stays uncommitted is handled by
//! the consumer (never by another producer):
//!
//! | found at `r`                 | rule                                                     | lost |
//! |------------------------------|----------------------------------------------------------|------|
//! | `Reserved`, owner pid gone   | `kill(pid, 0)` = `ESRCH` or `/proc/pid/stat` says zombie, checked after 1 ms pending and then every 10 ms: free the cells at once | +1 |
//! | `Reserved`, owner alive      | after `abandon_after` (default 2 s): `CAS(Reserved → Abandoned)`, read on past it; its cells stay held (`head` stops there) until the producer stores `Acked` or dies, so a late writer never scribbles on reused cells | +1 |
//! | `Free(r)` but `tail > r`     | a producer died (or stalls) between the tail CAS and its pid write: after `abandon_after`, the consumer CASes each cell from `Free(p)` to `Free(p + cells)` up to the first cell that is not free; a late producer's own `Free → Reserved` CAS then fails and it writes nothing | +1 |
//!
//! # Untrusted bytes and corruption
//!
//! Every state and meta word is decoded and bounds-checked before use: the
//! claim's lap must match the position, its cell count must be at most
//! `max_record_cells` and end inside the ring, a padding must end exactly at
//! the end, and the payload length must fill exactly the claimed cells. The
//! consumer never panics on what it reads. A committed record with a bad
//! meta word is skipped (its claimed cells are trusted, being bounded); a
//! state word that decodes to nothing valid is freed and the consumer walks
//! on over free cells as in the anonymous case. Each such event counts in
//! `corrupt` and is skipped silently; nothing is delivered from it. The
//! payload slice handed to the caller lies inside the ring whatever the
//! bytes say; a misbehaving process could still change its contents while
//! the caller reads them, so callers decode payloads defensively.
//!
//! NB (design, LIMITS.md §2.4, §2.3, §4.2): the commit word sits in the
//! record's own first cache line together with the first 48 payload bytes,
//! so a consumer takes one serial miss per small record — the per-slot
//! sequence scheme the study measured at 149 ns against 226 ns for separate
//! head/tail indices — and the consumer never reads `tail` on its hot path.
//! Producers claim with a CAS on `tail`, not a `fetch_add`: a CAS can check
//! for room first, so a full ring answers `Full` without leaving a claimed
//! hole that the consumer would have to skip (and `try_push` never blocks);
//! the study measured 51 ns per contended CAS against 27 ns for `fetch_add`,
//! small next to that. Producers read `head` only when a cached copy says
//! the ring may be full, so the consumer's line stays in its cache.
//!
//! [`TryPushError::Full`]: TryPushError::Full
//! [`RING_HEADER_SIZE`]: crate::layout::RING_HEADER_SIZE
//! [`SlotState`]: crate::layout::SlotState
//! [`RecordMeta`]: crate::layout::RecordMeta

mod consumer; // Consumer: taking the role, pops, release of space
mod error; // operation errors: params, push, pop, consumer role
mod header; // RingHeader and RingCell: the bytes, asserted
mod inner; // shared state and raw access to words and payload
mod params; // RingParams
mod pid; // this process's pid, liveness of another
mod producer; // try_push / push_*, reservation, producer test hooks
mod recovery; // dead and stalled producers, holes, corrupt records
mod region; // the ring as a Region: geometry, image, header checks; new_heap
mod stuck; // Hole and Stall: what the consumer remembers about stuck records
#[cfg(all(test, not(loom)))]
mod tests;
mod wake; // waking the consumer: own doorbell or wake group, WakeBatch

pub use consumer::{Consumer, DEFAULT_ABANDON_AFTER, DEFAULT_SPIN};
pub use error::{
    ConsumerBusyError, PopTimeoutError, PushTimeoutError, RingParamsError, TryPopError,
    TryPushError,
};
pub use params::RingParams;
pub use region::RingGeometry;
pub use wake::WakeBatch;

use std::fmt;
use std::sync::Arc;

use crate::layout::{Claim, CELL_SIZE, RECORD_HEADER_SIZE};
use crate::sync::Ordering;
use inner::RingInner;

/// A handle to an MPSC ring: cheap to clone, `Send + Sync`; every clone may
/// push. The single consumer is taken with [`Ring::consumer`].
///
/// # Examples
/// ```
/// use pmix_shm::ring::{Ring, RingParams};
/// use std::time::Duration;
///
/// let ring = Ring::new_heap(RingParams::new(64).unwrap());
/// let mut consumer = ring.consumer().unwrap();
/// ring.try_push(7, b"hello").unwrap();
/// let got = consumer
///     .pop_timeout(Duration::from_secs(1), |kind, payload| (kind, payload.to_vec()))
///     .unwrap();
/// assert_eq!(got, (7, b"hello".to_vec()));
/// ```
#[derive(Clone)]
pub struct Ring {
    inner: Arc<RingInner>,
    /// The wake group of the ring's segment (`wake.rs`), if it has one.
    group: Option<crate::wake_group::WakeGroup>,
}

impl fmt::Debug for Ring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ring")
            .field("cells", &self.inner.cap)
            .field("max_payload", &self.max_payload())
            .field("lost", &self.lost())
            .field("corrupt", &self.corrupt())
            .finish_non_exhaustive()
    }
}

/// A reservation that has not been committed (test hook, see
/// [`Ring::reserve_for_test`]).
#[doc(hidden)]
#[derive(Debug)]
pub struct Reservation {
    ring: Ring,
    pos: u64,
    claim: Claim,
    len: usize,
}

impl Ring {
    /// The doorbell the consumer announces its sleep on and producers
    /// check after each commit. A consumer that also waits for other work
    /// (an in-process queue) sleeps with
    /// [`consumer_wait_until`](Self::consumer_wait_until), checking
    /// [`Consumer::is_ready`] and its other sources; whoever feeds those
    /// sources calls [`wake_consumer`](Self::wake_consumer) after
    /// publishing.
    pub fn consumer_doorbell(&self) -> &crate::doorbell::Doorbell {
        &self.inner.hdr().doorbell
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.inner.cap as usize
    }

    /// Bytes of the cell area.
    pub fn capacity_bytes(&self) -> usize {
        self.cells() * CELL_SIZE
    }

    /// Largest payload one record may carry.
    pub fn max_payload(&self) -> usize {
        self.inner.max_record_cells * CELL_SIZE - RECORD_HEADER_SIZE
    }

    /// Reservations the consumer skipped because their producer died or
    /// stalled past the deadline (readable by any process).
    pub fn lost(&self) -> u64 {
        // ORDERING: Relaxed — a statistic.
        self.inner.hdr().lost.load(Ordering::Relaxed)
    }

    /// Record headers the consumer found invalid and skipped.
    pub fn corrupt(&self) -> u64 {
        // ORDERING: Relaxed — a statistic.
        self.inner.hdr().corrupt.load(Ordering::Relaxed)
    }

    /// Cells reserved and not yet released (a snapshot; may be stale).
    pub fn used_cells(&self) -> usize {
        // ORDERING: Relaxed — a snapshot for diagnostics.
        let t = self.inner.hdr().tail.load(Ordering::Relaxed);
        let h = self.inner.hdr().head.load(Ordering::Relaxed);
        t.saturating_sub(h) as usize
    }
}
