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

use std::any::Any;
use std::collections::VecDeque;
use std::fmt;
#[cfg(not(loom))]
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(not(loom))]
use crate::error::{AttachError, RingInitError};
use crate::error::{
    ConsumerBusyError, PopTimeoutError, PushTimeoutError, RingParamsError, TryPopError,
    TryPushError,
};
use crate::layout::{
    cells_for_payload, Claim, RecordMeta, RingHeader, SlotState, CELL_SIZE, MAX_RECORD_CELLS,
    MAX_RING_CELLS, MIN_RING_CELLS, POS_MASK, RECORD_HEADER_SIZE, RING_HEADER_SIZE,
};
#[cfg(not(loom))]
use crate::layout::{LAYOUT_VERSION, RING_MAGIC};
use crate::sync::{spin_loop, AtomicU64, Ordering};

/// How long a `Reserved` record may wait at the read position before the
/// consumer checks whether its producer is alive.
#[cfg(not(loom))]
const LIVENESS_AFTER: Duration = Duration::from_millis(1);
/// How often the consumer re-checks a pending producer's pid.
#[cfg(not(loom))]
const LIVENESS_EVERY: Duration = Duration::from_millis(10);
/// Longest sleep of a consumer while a reservation is pending (so the
/// checks above run), and of a producer waiting for space.
const PENDING_POLL: Duration = Duration::from_millis(10);
/// Longest sleep of a producer waiting for space (it re-checks after).
const SPACE_POLL: Duration = Duration::from_millis(2);
/// `try_pop` looks at `tail` once per this many empty polls (to notice a
/// reservation whose producer never wrote its pid).
#[cfg(not(loom))]
const EMPTY_POLLS_PER_TAIL_CHECK: u32 = 1024;

/// The default for [`Consumer::set_abandon_after`].
pub const DEFAULT_ABANDON_AFTER: Duration = Duration::from_secs(2);
/// The default for [`Consumer::set_spin`].
pub const DEFAULT_SPIN: Duration = Duration::from_micros(2);

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// Geometry of a ring: its number of 64-byte cells (a power of two in
/// `MIN_RING_CELLS..=MAX_RING_CELLS`).
///
/// # Examples
/// ```
/// use pmix_shm::ring::RingParams;
/// let p = RingParams::new(1024).unwrap();
/// assert_eq!(p.max_record_cells(), 512);
/// assert_eq!(p.max_payload(), 512 * 64 - 16);
/// assert!(RingParams::new(1000).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingParams {
    cells: usize,
}

impl RingParams {
    /// A ring of `cells` cells.
    ///
    /// # Errors
    /// [`RingParamsError`] unless `cells` is a power of two in
    /// `MIN_RING_CELLS..=MAX_RING_CELLS`.
    pub fn new(cells: usize) -> Result<Self, RingParamsError> {
        if cells.is_power_of_two() && (MIN_RING_CELLS..=MAX_RING_CELLS).contains(&cells) {
            Ok(RingParams { cells })
        } else {
            Err(RingParamsError { cells })
        }
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Most cells one record may take: half the ring (so a record always
    /// fits after at most one padding record), at most `u16::MAX`.
    pub fn max_record_cells(&self) -> usize {
        (self.cells / 2).min(MAX_RECORD_CELLS)
    }

    /// Largest payload one record may carry.
    pub fn max_payload(&self) -> usize {
        self.max_record_cells() * CELL_SIZE - RECORD_HEADER_SIZE
    }
}

// ---------------------------------------------------------------------------
// Process id (cached; refreshed in a forked child)
// ---------------------------------------------------------------------------

#[cfg(not(loom))]
mod pid {
    use crate::sync::{AtomicU32, Ordering};
    use std::sync::Once;

    static CACHED: AtomicU32 = AtomicU32::new(0);
    static HOOK: Once = Once::new();

    extern "C" fn forget_in_child() {
        // ORDERING: Relaxed — the child is single-threaded at this point.
        CACHED.store(0, Ordering::Relaxed);
    }

    /// `getpid()` without a syscall on the hot path (glibc no longer
    /// caches it). A `pthread_atfork` child hook forgets the cached value.
    pub(super) fn current() -> u32 {
        // ORDERING: Relaxed — the value is the same for every thread of the
        // process; a race only makes two threads both call getpid().
        let p = CACHED.load(Ordering::Relaxed);
        if p != 0 {
            return p;
        }
        HOOK.call_once(|| {
            // SAFETY: registers a plain function with no captured state as
            // the fork child handler; it only does an atomic store.
            unsafe {
                libc::pthread_atfork(None, None, Some(forget_in_child));
            }
        });
        // SAFETY: getpid has no preconditions.
        let p = unsafe { libc::getpid() } as u32;
        // ORDERING: Relaxed — see above.
        CACHED.store(p, Ordering::Relaxed);
        p
    }

    /// Whether process `pid` is gone: `kill(pid, 0)` answers `ESRCH`, or
    /// `/proc/<pid>/stat` shows a zombie (a killed child its parent has not
    /// reaped yet still answers `kill`). A pid that is not a positive
    /// `i32` is never called dead (its record waits for the deadline).
    pub(super) fn is_dead(pid: u32) -> bool {
        let Ok(p) = i32::try_from(pid) else {
            return false;
        };
        if p <= 0 {
            return false;
        }
        // SAFETY: signal 0 sends nothing; kill only checks that the process
        // exists and may be signalled.
        let r = unsafe { libc::kill(p, 0) };
        if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
            return true;
        }
        match std::fs::read(format!("/proc/{p}/stat")) {
            Ok(stat) => {
                // "pid (comm) S ...": the state follows the last ')'.
                let Some(close) = stat.iter().rposition(|&b| b == b')') else {
                    return false;
                };
                matches!(stat.get(close + 2), Some(b'Z') | Some(b'X'))
            }
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        }
    }
}

#[cfg(loom)]
mod pid {
    pub(super) fn current() -> u32 {
        std::process::id()
    }
}

// ---------------------------------------------------------------------------
// Storage: raw shared memory, or loom objects on the heap
// ---------------------------------------------------------------------------

#[cfg(loom)]
struct LoomCell {
    state: AtomicU64,
    meta: AtomicU64,
    /// Bytes 0..16: the header words' bytes, which are payload in a
    /// continuation cell (tracked so loom sees the overlap).
    head: crate::sync::UnsafeCell<[u8; 16]>,
    /// Bytes 16..64.
    body: crate::sync::UnsafeCell<[u8; 48]>,
}

/// What every handle of one ring shares.
struct RingInner {
    #[cfg(not(loom))]
    hdr: NonNull<RingHeader>,
    #[cfg(not(loom))]
    cells_base: NonNull<u8>,
    #[cfg(loom)]
    hdr: Box<RingHeader>,
    #[cfg(loom)]
    cells: Box<[LoomCell]>,
    /// Geometry, copied once (never re-read from shared memory).
    cap: u64,
    mask: u64,
    log2: u32,
    max_record_cells: usize,
    /// This process's last view of `head` (see `reserve`); on its own
    /// line, away from the read-mostly fields above and the Arc's counts.
    cached_head: crossbeam_utils::CachePadded<AtomicU64>,
    /// What keeps the memory alive (see `Ring::with_owner`).
    owners: std::sync::Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

// SAFETY: the raw pointers point into memory that stays mapped while the
// owner (or the caller of `init_in`/`attach`, per their contract) keeps it
// alive, and every access through them follows the ring protocol: atomics
// for the words, and payload bytes written only by the one producer that
// owns a claim and read only by the one consumer after the commit. Under
// loom the same holds for the heap objects.
unsafe impl Send for RingInner {}
// SAFETY: as for `Send`; shared access is the point of the protocol.
unsafe impl Sync for RingInner {}

impl RingInner {
    #[inline]
    fn hdr(&self) -> &RingHeader {
        #[cfg(not(loom))]
        // SAFETY: `hdr` points at an initialised, live, 128-aligned header
        // (checked by `init_in`/`attach`); only atomics are read through it.
        unsafe {
            self.hdr.as_ref()
        }
        #[cfg(loom)]
        &self.hdr
    }

    #[inline]
    fn idx(&self, pos: u64) -> usize {
        (pos & self.mask) as usize
    }

    #[inline]
    fn lap(&self, pos: u64) -> u8 {
        (pos >> self.log2) as u8
    }

    /// The state word of the cell at `pos`.
    #[inline]
    fn state(&self, pos: u64) -> &AtomicU64 {
        #[cfg(not(loom))]
        // SAFETY: idx < cap, so the 8 bytes lie inside the cell area checked
        // at init/attach; the address is 64-aligned; any bit pattern is a
        // valid AtomicU64 and the memory lives as long as `self`.
        unsafe {
            &*(self.cells_base.as_ptr().add(self.idx(pos) * CELL_SIZE) as *const AtomicU64)
        }
        #[cfg(loom)]
        &self.cells[self.idx(pos)].state
    }

    /// The meta word of the cell at `pos`.
    #[inline]
    fn meta(&self, pos: u64) -> &AtomicU64 {
        #[cfg(not(loom))]
        // SAFETY: as in `state`, 8 bytes further into the same cell.
        unsafe {
            &*(self.cells_base.as_ptr().add(self.idx(pos) * CELL_SIZE + 8) as *const AtomicU64)
        }
        #[cfg(loom)]
        &self.cells[self.idx(pos)].meta
    }

    /// Stamps the cell at `pos` free for the next lap. For a continuation
    /// cell this overwrites payload bytes 0..8, which the caller has
    /// finished with.
    #[inline]
    fn stamp_free(&self, pos: u64, continuation: bool) {
        #[cfg(loom)]
        if continuation {
            self.cells[self.idx(pos)].head.with_mut(|_| ());
        }
        let _ = continuation;
        // ORDERING: Relaxed — published to producers by the Release store of
        // `head` that follows (producers Acquire `head` before reusing).
        self.state(pos)
            .store(SlotState::free(pos + self.cap), Ordering::Relaxed);
    }

    /// Copies `data` into the payload area of the record at `pos`.
    ///
    /// # Safety
    /// The caller owns a claim on the record at `pos` of at least
    /// `cells_for_payload(data.len())` cells, all inside the ring.
    unsafe fn write_payload(&self, pos: u64, data: &[u8]) {
        #[cfg(not(loom))]
        // SAFETY: by the contract the claimed cells lie inside the ring and
        // no other party reads or writes their payload bytes until commit.
        unsafe {
            let dst = self
                .cells_base
                .as_ptr()
                .add(self.idx(pos) * CELL_SIZE + RECORD_HEADER_SIZE);
            std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len());
        }
        #[cfg(loom)]
        self.loom_segments(pos, data.len(), |cell, in_head, at, off, n| {
            let src = &data[off..off + n];
            if in_head {
                // SAFETY: loom tracks the access; bounds from loom_segments.
                cell.head
                    .with_mut(|p| unsafe { (&mut *p)[at..at + n].copy_from_slice(src) });
            } else {
                // SAFETY: as above.
                cell.body
                    .with_mut(|p| unsafe { (&mut *p)[at..at + n].copy_from_slice(src) });
            }
        });
    }

    /// Lends the `len` payload bytes of the committed record at `pos`.
    ///
    /// # Safety
    /// The record at `pos` is committed (observed with `Acquire`), spans
    /// `cells_for_payload(len)` cells inside the ring, and is not released
    /// before `f` returns.
    unsafe fn read_payload<R>(&self, pos: u64, len: usize, f: impl FnOnce(&[u8]) -> R) -> R {
        #[cfg(not(loom))]
        {
            // SAFETY: by the contract the bytes lie inside the ring and the
            // producer finished writing them before its Release commit.
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    self.cells_base
                        .as_ptr()
                        .add(self.idx(pos) * CELL_SIZE + RECORD_HEADER_SIZE),
                    len,
                )
            };
            f(bytes)
        }
        #[cfg(loom)]
        {
            let mut copy = vec![0u8; len];
            self.loom_segments(pos, len, |cell, in_head, at, off, n| {
                let dst = &mut copy[off..off + n];
                if in_head {
                    // SAFETY: loom tracks the access; bounds from loom_segments.
                    cell.head
                        .with(|p| unsafe { dst.copy_from_slice(&(&*p)[at..at + n]) });
                } else {
                    // SAFETY: as above.
                    cell.body
                        .with(|p| unsafe { dst.copy_from_slice(&(&*p)[at..at + n]) });
                }
            });
            f(&copy)
        }
    }

    /// Splits payload bytes `0..len` of the record at `pos` into per-cell
    /// pieces: (cell, in the 16-byte head part?, offset in that part,
    /// offset in the payload, length).
    #[cfg(loom)]
    fn loom_segments(
        &self,
        pos: u64,
        len: usize,
        mut f: impl FnMut(&LoomCell, bool, usize, usize, usize),
    ) {
        let base = self.idx(pos) * CELL_SIZE + RECORD_HEADER_SIZE;
        let mut done = 0;
        while done < len {
            let g = base + done;
            let cell = &self.cells[g / CELL_SIZE];
            let off = g % CELL_SIZE;
            let (in_head, at, room) = if off < RECORD_HEADER_SIZE {
                (true, off, RECORD_HEADER_SIZE - off)
            } else {
                (false, off - RECORD_HEADER_SIZE, CELL_SIZE - off)
            };
            let n = room.min(len - done);
            f(cell, in_head, at, done, n);
            done += n;
        }
    }

    /// Loom: the anonymous walk's CAS on a cell beyond the first counts as
    /// a write of its head bytes (in shared memory it may overlap payload).
    #[inline]
    fn note_walk(&self, _pos: u64) {
        #[cfg(loom)]
        self.cells[self.idx(_pos)].head.with_mut(|_| ());
    }

    /// Whether `c` is a claim that may start at `pos`.
    #[inline]
    fn claim_fits(&self, pos: u64, c: Claim) -> bool {
        let cells = c.cells as usize;
        c.lap == self.lap(pos)
            && cells >= 1
            && cells <= self.max_record_cells
            && self.idx(pos) + cells <= self.cap as usize
    }
}

/// Owns zeroed, 128-aligned heap memory for `Ring::new_heap`.
#[cfg(not(loom))]
struct HeapMem {
    ptr: NonNull<u8>,
    layout: std::alloc::Layout,
}

// SAFETY: plain memory; every access goes through the ring protocol.
#[cfg(not(loom))]
unsafe impl Send for HeapMem {}
// SAFETY: as above.
#[cfg(not(loom))]
unsafe impl Sync for HeapMem {}

#[cfg(not(loom))]
impl Drop for HeapMem {
    fn drop(&mut self) {
        // SAFETY: allocated in `new_heap` with this layout; the last handle
        // is gone (this is the owner they kept alive).
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

// ---------------------------------------------------------------------------
// Ring (the shared handle; producer side)
// ---------------------------------------------------------------------------

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

impl Reservation {
    /// Writes and commits the reserved record.
    ///
    /// # Errors
    /// [`TryPushError::Abandoned`] if the consumer gave it up meanwhile;
    /// [`TryPushError::TooLarge`] if `payload` is not the reserved length.
    pub fn commit(self, kind: u16, payload: &[u8]) -> Result<(), TryPushError> {
        if payload.len() != self.len {
            return Err(TryPushError::TooLarge {
                len: payload.len(),
                max: self.len,
            });
        }
        self.ring
            .fill_and_commit(self.pos, self.claim, kind, payload)?;
        self.ring.inner.hdr().doorbell.ring();
        Ok(())
    }
}

impl Ring {
    /// Bytes a ring with `params` takes in memory (a multiple of 128).
    pub fn memory_size(params: RingParams) -> usize {
        RING_HEADER_SIZE + params.cells * CELL_SIZE
    }

    /// Writes a fresh ring into `len` bytes at `base` and returns a handle.
    ///
    /// # Safety
    /// `base..base + len` must be valid for reads and writes, must not be
    /// accessed by anyone else while this runs, and must stay mapped until
    /// the returned handle, its clones and its consumer are all dropped
    /// (tie it with [`with_owner`](Self::with_owner)). Other processes
    /// attach only after the creator publishes (e.g. the segment's ready
    /// word).
    ///
    /// # Errors
    /// [`RingInitError`] if the memory is misaligned or too small.
    #[cfg(not(loom))]
    pub unsafe fn init_in(
        base: NonNull<u8>,
        len: usize,
        params: RingParams,
    ) -> Result<Ring, RingInitError> {
        match Self::check_memory(base, len, Self::memory_size(params)) {
            MemCheck::Ok => {}
            MemCheck::TooSmall { needed } => return Err(RingInitError::TooSmall { len, needed }),
            MemCheck::Misaligned { addr } => return Err(RingInitError::Misaligned { addr }),
        }
        let hdr_ptr = base.cast::<RingHeader>();
        // SAFETY: aligned, in bounds and exclusively ours (contract); only
        // atomics are written, which are valid for any prior content.
        let hdr = unsafe { hdr_ptr.as_ref() };
        let cells = params.cells;
        // ORDERING (all stores below): Relaxed — published by the Release
        // store of `magic` at the end (and by whatever the creator uses to
        // publish the whole segment).
        hdr.version.store(LAYOUT_VERSION, Ordering::Relaxed);
        hdr.cells.store(cells as u32, Ordering::Relaxed);
        hdr.max_record_cells
            .store(params.max_record_cells() as u32, Ordering::Relaxed);
        hdr.lost.store(0, Ordering::Relaxed);
        hdr.corrupt.store(0, Ordering::Relaxed);
        hdr.consumer_pid.store(0, Ordering::Relaxed);
        hdr.tail.store(0, Ordering::Relaxed);
        hdr.head.store(0, Ordering::Relaxed);
        hdr.doorbell.reset();
        hdr.space.reset();
        // SAFETY: the cell area follows the header inside `len` (checked).
        let cells_base = unsafe { NonNull::new_unchecked(base.as_ptr().add(RING_HEADER_SIZE)) };
        let inner = Self::make_inner(hdr_ptr, cells_base, cells, params.max_record_cells());
        for pos in 0..cells as u64 {
            inner
                .state(pos)
                .store(SlotState::free(pos), Ordering::Relaxed);
            inner.meta(pos).store(0, Ordering::Relaxed);
        }
        // ORDERING: Release — pairs with the Acquire load of `magic` in
        // `attach`: everything above is visible to an attacher that sees it.
        inner.hdr().magic.store(RING_MAGIC, Ordering::Release);
        Ok(Ring {
            inner: Arc::new(inner),
        })
    }

    /// Attaches to a ring another process initialised in `len` bytes at
    /// `base`, validating its header without trusting it: magic, version,
    /// a power-of-two cell count in bounds, a record limit of at most half
    /// the ring, and `len` covering every cell. The geometry is copied once
    /// and never re-read.
    ///
    /// # Safety
    /// `base..base + len` must be valid for reads and writes (others may
    /// write it concurrently: only atomics and record payloads are accessed)
    /// and stay mapped until every handle derived from the result is gone.
    ///
    /// # Errors
    /// [`AttachError`] naming the first check that failed.
    #[cfg(not(loom))]
    pub unsafe fn attach(base: NonNull<u8>, len: usize) -> Result<Ring, AttachError> {
        match Self::check_memory(base, len, RING_HEADER_SIZE) {
            MemCheck::Ok => {}
            MemCheck::TooSmall { needed } => return Err(AttachError::TooSmall { len, needed }),
            MemCheck::Misaligned { addr } => return Err(AttachError::Misaligned { addr }),
        }
        let hdr_ptr = base.cast::<RingHeader>();
        // SAFETY: aligned and in bounds (checked); only atomics are read.
        let hdr = unsafe { hdr_ptr.as_ref() };
        // ORDERING: Acquire — pairs with the Release store in `init_in`.
        let magic = hdr.magic.load(Ordering::Acquire);
        if magic != RING_MAGIC {
            return Err(AttachError::BadMagic { found: magic });
        }
        // ORDERING (geometry loads): Relaxed — after the Acquire above.
        let version = hdr.version.load(Ordering::Relaxed);
        if version != LAYOUT_VERSION {
            return Err(AttachError::VersionMismatch {
                found: version,
                expected: LAYOUT_VERSION,
            });
        }
        let cells = hdr.cells.load(Ordering::Relaxed);
        let max_record_cells = hdr.max_record_cells.load(Ordering::Relaxed);
        let bad = AttachError::BadGeometry {
            cells,
            max_record_cells,
        };
        let params = RingParams::new(cells as usize).map_err(|_| bad)?;
        if max_record_cells == 0 || max_record_cells as usize > params.max_record_cells() {
            return Err(bad);
        }
        let needed = Self::memory_size(params);
        if len < needed {
            return Err(AttachError::TooSmall { len, needed });
        }
        // SAFETY: the cell area follows the header inside `len` (checked).
        let cells_base = unsafe { NonNull::new_unchecked(base.as_ptr().add(RING_HEADER_SIZE)) };
        Ok(Ring {
            inner: Arc::new(Self::make_inner(
                hdr_ptr,
                cells_base,
                cells as usize,
                max_record_cells as usize,
            )),
        })
    }

    #[cfg(not(loom))]
    fn check_memory(base: NonNull<u8>, len: usize, needed: usize) -> MemCheck {
        let addr = base.as_ptr() as usize;
        if len < needed {
            MemCheck::TooSmall { needed }
        } else if addr % crate::layout::HOT_LINE != 0 {
            MemCheck::Misaligned { addr }
        } else {
            MemCheck::Ok
        }
    }

    #[cfg(not(loom))]
    fn make_inner(
        hdr: NonNull<RingHeader>,
        cells_base: NonNull<u8>,
        cells: usize,
        max_record_cells: usize,
    ) -> RingInner {
        RingInner {
            hdr,
            cells_base,
            cap: cells as u64,
            mask: cells as u64 - 1,
            log2: cells.trailing_zeros(),
            max_record_cells,
            cached_head: crossbeam_utils::CachePadded::new(AtomicU64::new(0)),
            owners: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// A ring in its own heap memory (tests, benches, and the only
    /// constructor under loom).
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::ring::{Ring, RingParams};
    /// let ring = Ring::new_heap(RingParams::new(16).unwrap());
    /// assert_eq!(ring.cells(), 16);
    /// assert_eq!(ring.max_payload(), 8 * 64 - 16);
    /// ```
    pub fn new_heap(params: RingParams) -> Ring {
        Self::new_heap_at(params, 0)
    }

    /// [`new_heap`](Self::new_heap) with head and tail starting at
    /// position `start`, so a model reaches wrap-around in few steps.
    #[doc(hidden)]
    pub fn new_heap_at(params: RingParams, start: u64) -> Ring {
        let cells = params.cells;
        #[cfg(not(loom))]
        {
            let size = Self::memory_size(params);
            let layout = std::alloc::Layout::from_size_align(size, crate::layout::HOT_LINE)
                .expect("ring size fits a Layout");
            // SAFETY: the layout has a non-zero size.
            let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
            let Some(ptr) = NonNull::new(ptr) else {
                std::alloc::handle_alloc_error(layout)
            };
            let owner: Arc<dyn Any + Send + Sync> = Arc::new(HeapMem { ptr, layout });
            // SAFETY: fresh, exclusive, aligned memory of the right size,
            // kept alive by `owner`, which the ring holds.
            let ring = unsafe { Self::init_in(ptr, size, params) }
                .expect("heap memory is aligned and large enough")
                .with_owner(owner);
            if start != 0 {
                let inner = &ring.inner;
                // ORDERING: Relaxed — nobody else has the ring yet.
                inner.hdr().tail.store(start, Ordering::Relaxed);
                inner.hdr().head.store(start, Ordering::Relaxed);
                inner.cached_head.store(start, Ordering::Relaxed);
                for pos in start..start + cells as u64 {
                    inner
                        .state(pos)
                        .store(SlotState::free(pos), Ordering::Relaxed);
                }
            }
            ring
        }
        #[cfg(loom)]
        {
            use crate::sync::UnsafeCell;
            let mask = cells as u64 - 1;
            let mut stamps = vec![0u64; cells];
            for pos in start..start + cells as u64 {
                stamps[(pos & mask) as usize] = SlotState::free(pos);
            }
            let cell_vec: Vec<LoomCell> = stamps
                .into_iter()
                .map(|s| LoomCell {
                    state: AtomicU64::new(s),
                    meta: AtomicU64::new(0),
                    head: UnsafeCell::new([0; 16]),
                    body: UnsafeCell::new([0; 48]),
                })
                .collect();
            let max = params.max_record_cells();
            Ring {
                inner: Arc::new(RingInner {
                    hdr: Box::new(RingHeader::new(cells as u32, max as u32, start)),
                    cells: cell_vec.into_boxed_slice(),
                    cap: cells as u64,
                    mask,
                    log2: cells.trailing_zeros(),
                    max_record_cells: max,
                    cached_head: crossbeam_utils::CachePadded::new(AtomicU64::new(start)),
                    owners: std::sync::Mutex::new(Vec::new()),
                }),
            }
        }
    }

    /// Keeps `owner` (e.g. the mapping the ring lives in) alive for as long
    /// as this handle, its clones or its consumer live.
    pub fn with_owner(self, owner: Arc<dyn Any + Send + Sync>) -> Ring {
        self.inner
            .owners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(owner);
        self
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

    /// Pushes one record if there is room now; never blocks.
    ///
    /// # Errors
    /// [`TryPushError::Full`] when there is no room now (nothing written);
    /// [`TryPushError::TooLarge`] when `payload` exceeds
    /// [`max_payload`](Self::max_payload);
    /// [`TryPushError::Abandoned`] when the consumer gave the reservation up
    /// because this producer stalled past its abandon deadline.
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::error::TryPushError;
    /// use pmix_shm::ring::{Ring, RingParams};
    /// let ring = Ring::new_heap(RingParams::new(4).unwrap());
    /// ring.try_push(1, &[0; 48]).unwrap(); // one cell each
    /// ring.try_push(1, &[0; 48]).unwrap();
    /// ring.try_push(1, &[0; 48]).unwrap();
    /// ring.try_push(1, &[0; 48]).unwrap();
    /// assert_eq!(ring.try_push(1, &[]), Err(TryPushError::Full));
    /// assert!(matches!(ring.try_push(1, &[0; 200]), Err(TryPushError::TooLarge { .. })));
    /// ```
    pub fn try_push(&self, kind: u16, payload: &[u8]) -> Result<(), TryPushError> {
        let (pos, claim) = self.reserve(payload.len(), pid::current(), Claiming::Full)?;
        self.fill_and_commit(pos, claim, kind, payload)?;
        self.inner.hdr().doorbell.ring();
        Ok(())
    }

    /// Pushes one record, waiting for room up to `timeout`.
    ///
    /// # Errors
    /// As [`push_deadline`](Self::push_deadline).
    pub fn push_timeout(
        &self,
        kind: u16,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<(), PushTimeoutError> {
        let deadline = Instant::now().checked_add(timeout);
        self.push_until(kind, payload, deadline)
    }

    /// Pushes one record, waiting for room until `deadline`: spins briefly,
    /// then sleeps on the ring's space doorbell (which the consumer rings
    /// as it releases space), re-checking at least every 2 ms.
    ///
    /// # Errors
    /// [`PushTimeoutError::Timeout`] if the ring stayed full (nothing
    /// written); `TooLarge` and `Abandoned` as for
    /// [`try_push`](Self::try_push).
    pub fn push_deadline(
        &self,
        kind: u16,
        payload: &[u8],
        deadline: Instant,
    ) -> Result<(), PushTimeoutError> {
        self.push_until(kind, payload, Some(deadline))
    }

    fn push_until(
        &self,
        kind: u16,
        payload: &[u8],
        deadline: Option<Instant>,
    ) -> Result<(), PushTimeoutError> {
        let mut spins = 0u32;
        loop {
            match self.try_push(kind, payload) {
                Err(TryPushError::Full) => {}
                other => return other.map_err(PushTimeoutError::from),
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Err(PushTimeoutError::Timeout);
            }
            if spins < 64 {
                spins += 1;
                for _ in 0..16 {
                    spin_loop();
                }
                continue;
            }
            let space = &self.inner.hdr().space;
            let ticket = space.prepare_sleep();
            if self.has_room_for(payload.len()) {
                continue;
            }
            let mut wait = SPACE_POLL;
            if let Some(d) = deadline {
                wait = wait.min(d.saturating_duration_since(now));
            }
            space.sleep(ticket, Some(wait));
        }
    }

    /// Whether a record of `len` bytes fits now (loads `head` afresh).
    fn has_room_for(&self, len: usize) -> bool {
        let inner = &*self.inner;
        let Some(k) = cells_for_payload(len) else {
            return true;
        };
        // ORDERING: Relaxed — a hint read after the caller's SeqCst fence.
        let t = inner.hdr().tail.load(Ordering::Relaxed);
        let i = inner.idx(t) as u64;
        let pad = if i + k as u64 > inner.cap {
            inner.cap - i
        } else {
            0
        };
        // ORDERING: Acquire — pairs with the consumer's Release store of
        // `head` (and the read follows the space doorbell's fence).
        let h = inner.hdr().head.load(Ordering::Acquire);
        t + pad + k as u64 <= h + inner.cap
    }

    /// Step 1–3 of the protocol: claim room and write the claim word(s).
    fn reserve(&self, len: usize, pid: u32, mode: Claiming) -> Result<(u64, Claim), TryPushError> {
        let inner = &*self.inner;
        let max = self.max_payload();
        let too_large = TryPushError::TooLarge { len, max };
        if len > max {
            return Err(too_large);
        }
        let k = cells_for_payload(len).ok_or(too_large)? as u64;
        let hdr = inner.hdr();
        let (t, pad) = loop {
            // ORDERING: Relaxed — a guess; the CAS below validates it.
            let t = hdr.tail.load(Ordering::Relaxed);
            let i = inner.idx(t) as u64;
            let pad = if i + k > inner.cap { inner.cap - i } else { 0 };
            let need = pad + k;
            // ORDERING: Acquire — pairs with the Release store below by
            // another thread of this process, which itself Acquired `head`:
            // the consumer's reads and free stamps of the cells we are about
            // to reuse happen before our writes.
            let mut h = inner.cached_head.load(Ordering::Acquire);
            if t + need > h + inner.cap {
                // ORDERING: Acquire — pairs with the consumer's Release store
                // of `head` after it stamped the released cells free.
                h = hdr.head.load(Ordering::Acquire);
                // ORDERING: Release — passes the Acquire above on to the
                // other threads that read the cache.
                inner.cached_head.store(h, Ordering::Release);
                if t + need > h + inner.cap {
                    return Err(TryPushError::Full);
                }
            }
            // ORDERING: Relaxed — `tail` only hands out positions; data
            // visibility comes from `head` (above) and the commit (below).
            if hdr
                .tail
                .compare_exchange_weak(t, t + need, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                break (t, pad);
            }
            spin_loop();
        };
        if mode == Claiming::Anonymous {
            return Ok((
                t + pad,
                Claim {
                    pid,
                    cells: k as u16,
                    lap: inner.lap(t + pad),
                },
            ));
        }
        if pad > 0 {
            let c = Claim {
                pid,
                cells: pad as u16,
                lap: inner.lap(t),
            };
            // ORDERING: Relaxed — a padding carries no data; the CAS itself
            // decides against the consumer's walk CAS on the same word.
            if inner
                .state(t)
                .compare_exchange(
                    SlotState::free(t),
                    SlotState::Padding(c).encode(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
            {
                return Err(TryPushError::Abandoned);
            }
        }
        let p = t + pad;
        let c = Claim {
            pid,
            cells: k as u16,
            lap: inner.lap(p),
        };
        // ORDERING: Relaxed — the CAS decides ownership against the
        // consumer's walk CAS on the same word (one modification order);
        // the payload is published later by the Release commit.
        inner
            .state(p)
            .compare_exchange(
                SlotState::free(p),
                SlotState::Reserved(c).encode(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .map_err(|_| TryPushError::Abandoned)?;
        Ok((p, c))
    }

    /// Step 4–5: write meta and payload, then commit.
    fn fill_and_commit(
        &self,
        pos: u64,
        claim: Claim,
        kind: u16,
        payload: &[u8],
    ) -> Result<(), TryPushError> {
        let inner = &*self.inner;
        let meta = RecordMeta {
            len: payload.len() as u32,
            kind,
        };
        // ORDERING: Relaxed — published by the Release commit below.
        inner.meta(pos).store(meta.encode(), Ordering::Relaxed);
        // SAFETY: we own the claim at `pos` (its Reserved CAS succeeded) of
        // `cells_for_payload(len)` cells inside the ring.
        unsafe { inner.write_payload(pos, payload) };
        let reserved = SlotState::Reserved(claim).encode();
        // ORDERING: Release — pairs with the consumer's Acquire load of the
        // state word: meta and payload are visible once it sees Committed.
        // Failure: Relaxed — we only compare the value.
        match inner.state(pos).compare_exchange(
            reserved,
            SlotState::Committed(claim).encode(),
            Ordering::Release,
            Ordering::Relaxed,
        ) {
            Ok(_) => Ok(()),
            Err(_) => {
                // The consumer abandoned us: let it reclaim the cells.
                // ORDERING: Release — pairs with the consumer's Acquire load
                // of Acked: our payload writes end before it reuses them.
                let _ = inner.state(pos).compare_exchange(
                    SlotState::Abandoned(claim).encode(),
                    SlotState::Acked(claim).encode(),
                    Ordering::Release,
                    Ordering::Relaxed,
                );
                Err(TryPushError::Abandoned)
            }
        }
    }

    /// Test hook: reserves a record of `len` bytes (claim word written with
    /// this process's pid) and returns it uncommitted.
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    #[doc(hidden)]
    pub fn reserve_for_test(&self, len: usize) -> Result<Reservation, TryPushError> {
        let (pos, claim) = self.reserve(len, pid::current(), Claiming::Full)?;
        Ok(Reservation {
            ring: self.clone(),
            pos,
            claim,
            len,
        })
    }

    /// Test hook: reserves a record as a producer that then dies before
    /// committing (the claim word carries `pid`). Used to SIGKILL a real
    /// producer between reserve and commit.
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    #[doc(hidden)]
    pub fn try_push_reserve_only(&self, len: usize, pid: Option<u32>) -> Result<(), TryPushError> {
        self.reserve(len, pid.unwrap_or_else(pid::current), Claiming::Full)
            .map(|_| ())
    }

    /// Test hook: advances `tail` like a producer that dies before writing
    /// its pid (an anonymous reservation).
    ///
    /// # Errors
    /// As [`try_push`](Self::try_push).
    #[doc(hidden)]
    pub fn try_reserve_anonymous(&self, len: usize) -> Result<(), TryPushError> {
        self.reserve(len, 0, Claiming::Anonymous).map(|_| ())
    }

    /// Takes the consumer role. One consumer per ring across all processes:
    /// the header records the holder's pid; a holder that is dead is
    /// replaced.
    ///
    /// # Errors
    /// [`ConsumerBusyError`] while another consumer (in any process,
    /// including this one) holds the ring.
    pub fn consumer(&self) -> Result<Consumer, ConsumerBusyError> {
        let hdr = self.inner.hdr();
        let me = pid::current();
        let mut expected = 0;
        loop {
            // ORDERING: Acquire — pairs with the Release store in
            // `Consumer::drop`: the previous consumer's releases are visible.
            match hdr.consumer_pid.compare_exchange(
                expected,
                me,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(0) => expected = 0,
                Err(other) => {
                    #[cfg(not(loom))]
                    if other != me && expected != other && pid::is_dead(other) {
                        expected = other;
                        continue;
                    }
                    return Err(ConsumerBusyError { pid: other });
                }
            }
        }
        // ORDERING: Acquire — the release point the previous consumer (if
        // any) published.
        let read = hdr.head.load(Ordering::Acquire);
        Ok(Consumer {
            ring: self.clone(),
            read,
            released: read,
            holes: VecDeque::new(),
            unrung: 0,
            #[cfg(not(loom))]
            empty_polls: 0,
            spin: DEFAULT_SPIN,
            abandon_after: DEFAULT_ABANDON_AFTER,
            #[cfg(not(loom))]
            stall: None,
            #[cfg(not(loom))]
            next_hole_check: None,
            corrupt_at: None,
        })
    }
}

#[cfg(not(loom))]
enum MemCheck {
    Ok,
    TooSmall { needed: usize },
    Misaligned { addr: usize },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Claiming {
    /// Tail CAS, then the claim word(s).
    Full,
    /// Tail CAS only (test hook).
    Anonymous,
}

// ---------------------------------------------------------------------------
// Consumer
// ---------------------------------------------------------------------------

/// A live reservation the consumer gave up on; its cells stay held until
/// its producer acknowledges or dies.
#[derive(Debug, Clone, Copy)]
struct Hole {
    pos: u64,
    claim: Claim,
}

/// A record at the read position that is not ready, and since when.
#[cfg(not(loom))]
#[derive(Debug, Clone, Copy)]
struct Stall {
    pos: u64,
    since: Instant,
    next_liveness: Instant,
}

/// The single consumer of a ring (see [`Ring::consumer`]). `Send`, used
/// from one thread at a time (`&mut self`). Dropping it gives the role
/// back. Hand-over caveat: while an abandoned record's cells are still held
/// (an open hole), `head` stays at the hole, so a later consumer re-reads —
/// and delivers again — the records after it that this one already
/// delivered.
///
/// # Examples
/// ```
/// use pmix_shm::ring::{Ring, RingParams};
/// let ring = Ring::new_heap(RingParams::new(64).unwrap());
/// let mut c = ring.consumer().unwrap();
/// for i in 0..5u8 {
///     ring.try_push(u16::from(i), &[i; 3]).unwrap();
/// }
/// let mut seen = Vec::new();
/// assert_eq!(c.drain(usize::MAX, |kind, p| seen.push((kind, p.to_vec()))), 5);
/// assert_eq!(seen[4], (4, vec![4, 4, 4]));
/// assert!(c.try_pop(|_, _| ()).is_err());
/// ```
pub struct Consumer {
    ring: Ring,
    /// Position of the next record to read.
    read: u64,
    /// Last value published to `head`.
    released: u64,
    /// Abandoned live reservations, in position order.
    holes: VecDeque<Hole>,
    /// Cells released since the space doorbell was last rung.
    unrung: u64,
    #[cfg(not(loom))]
    empty_polls: u32,
    spin: Duration,
    abandon_after: Duration,
    #[cfg(not(loom))]
    stall: Option<Stall>,
    /// When the open holes' producers are next checked for liveness.
    #[cfg(not(loom))]
    next_hole_check: Option<Instant>,
    /// Position of the last corrupt header counted (count once).
    corrupt_at: Option<u64>,
}

impl fmt::Debug for Consumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer")
            .field("read", &self.read)
            .field("released", &self.released)
            .field("holes", &self.holes.len())
            .field("spin", &self.spin)
            .field("abandon_after", &self.abandon_after)
            .finish_non_exhaustive()
    }
}

/// What one look at the read position found.
enum Look<R, F> {
    Delivered(R),
    NotReady(F),
}

impl Consumer {
    /// The ring's shared state, borrowed apart from `&mut self` (so the
    /// hot path needs no `Arc` clone, whose count shares a line with what
    /// producers read).
    #[inline]
    fn shared<'a>(&self) -> &'a RingInner {
        // SAFETY: `self.ring` holds the Arc for as long as `self` lives and
        // the `RingInner` never moves inside it; the reference is only used
        // within the consumer's own methods, while `self` is alive.
        unsafe { &*Arc::as_ptr(&self.ring.inner) }
    }

    /// The ring this consumer reads.
    pub fn ring(&self) -> &Ring {
        &self.ring
    }

    /// How long the blocking pops spin before they sleep (default
    /// [`DEFAULT_SPIN`]; LIMITS.md §2.2: spin only when a record is
    /// expected within the window).
    pub fn set_spin(&mut self, spin: Duration) {
        self.spin = spin;
    }

    /// How long a reservation may stay uncommitted at the read position
    /// while its producer is alive (or unknown) before the consumer gives
    /// it up (default [`DEFAULT_ABANDON_AFTER`]). A dead producer's record
    /// is skipped as soon as its death is seen, whatever this says.
    pub fn set_abandon_after(&mut self, after: Duration) {
        self.abandon_after = after;
    }

    /// Pops one record if one is committed at the read position: lends its
    /// kind and payload to `f`, releases its space when `f` returns, and
    /// returns what `f` returned. Never blocks; no syscall on this path.
    ///
    /// # Errors
    /// [`TryPopError::Empty`] if no committed record is ready (the ring is
    /// empty, or the next record in reservation order is still being
    /// written).
    pub fn try_pop<R>(&mut self, f: impl FnOnce(u16, &[u8]) -> R) -> Result<R, TryPopError> {
        match self.look(f, true) {
            Look::Delivered(r) => Ok(r),
            Look::NotReady(_) => {
                self.on_not_ready(false);
                Err(TryPopError::Empty)
            }
        }
    }

    /// Pops every committed record available now, up to `max`, handing
    /// each to `f`; publishes the released space once at the end. Returns
    /// how many it popped.
    pub fn drain(&mut self, max: usize, mut f: impl FnMut(u16, &[u8])) -> usize {
        let mut n = 0;
        while n < max {
            match self.look(|k: u16, p: &[u8]| f(k, p), false) {
                Look::Delivered(()) => n += 1,
                Look::NotReady(_) => break,
            }
        }
        let idle = n < max;
        self.publish(idle);
        if idle {
            self.on_not_ready(false);
        }
        n
    }

    /// Pops one record, waiting up to `timeout`.
    ///
    /// # Errors
    /// As [`pop_deadline`](Self::pop_deadline).
    pub fn pop_timeout<R>(
        &mut self,
        timeout: Duration,
        f: impl FnOnce(u16, &[u8]) -> R,
    ) -> Result<R, PopTimeoutError> {
        let deadline = Instant::now().checked_add(timeout);
        self.pop_until(deadline, f)
    }

    /// Pops one record, waiting until `deadline`: polls, spins for the
    /// configured spin time, then announces itself on the doorbell,
    /// re-checks, and sleeps until a producer rings (waking at least every
    /// 10 ms while a reservation is pending, to check its producer).
    ///
    /// # Errors
    /// [`PopTimeoutError::Timeout`] if no record arrived in time.
    pub fn pop_deadline<R>(
        &mut self,
        deadline: Instant,
        f: impl FnOnce(u16, &[u8]) -> R,
    ) -> Result<R, PopTimeoutError> {
        self.pop_until(Some(deadline), f)
    }

    fn pop_until<R, F: FnOnce(u16, &[u8]) -> R>(
        &mut self,
        deadline: Option<Instant>,
        f: F,
    ) -> Result<R, PopTimeoutError> {
        let mut f = match self.look(f, true) {
            Look::Delivered(r) => return Ok(r),
            Look::NotReady(f) => f,
        };
        if !self.spin.is_zero() {
            let end = Instant::now() + self.spin;
            loop {
                for _ in 0..16 {
                    spin_loop();
                }
                if self.peek_ready() || Instant::now() >= end {
                    break;
                }
            }
        }
        loop {
            f = match self.look(f, true) {
                Look::Delivered(r) => return Ok(r),
                Look::NotReady(f) => f,
            };
            let pending = self.on_not_ready(true);
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Err(PopTimeoutError::Timeout);
            }
            let bell = &self.ring.inner.hdr().doorbell;
            let ticket = bell.prepare_sleep();
            if self.peek_ready() {
                bell.cancel_sleep(ticket);
                continue;
            }
            let mut wait = deadline.map(|d| d.saturating_duration_since(now));
            if pending {
                wait = Some(wait.map_or(PENDING_POLL, |w| w.min(PENDING_POLL)));
            }
            bell.sleep(ticket, wait);
        }
    }

    /// Whether the read position holds something `look` would act on now
    /// (anything but a free stamp or a reservation still being written).
    fn peek_ready(&self) -> bool {
        let inner = self.shared();
        // ORDERING: Relaxed — only decides whether to sleep; after the
        // doorbell's SeqCst fence this load pairs (fence to fence) with the
        // producer's commit and fence.
        let w = inner.state(self.read).load(Ordering::Relaxed);
        let waiting = matches!(
            SlotState::decode(w),
            Ok(SlotState::Free { .. }) | Ok(SlotState::Reserved(_))
        );
        !waiting || (!self.holes.is_empty() && self.hole_resolvable())
    }

    /// Reads at the read position until it delivers a record or finds
    /// nothing ready. Paddings, corrupt records and dead reservations are
    /// skipped on the way. `publish`: publish `head` after each release.
    fn look<R, F: FnOnce(u16, &[u8]) -> R>(&mut self, f: F, publish: bool) -> Look<R, F> {
        let inner = self.shared();
        if !self.holes.is_empty() {
            self.resolve_holes(publish);
        }
        loop {
            let pos = self.read;
            // ORDERING: Acquire — pairs with the Release commit CAS in
            // `fill_and_commit`: the meta word and payload are visible.
            let w = inner.state(pos).load(Ordering::Acquire);
            match SlotState::decode(w) {
                Ok(SlotState::Free { pos: p }) if p == pos & POS_MASK => {
                    return Look::NotReady(f);
                }
                Ok(SlotState::Committed(c)) if inner.claim_fits(pos, c) => {
                    // ORDERING: Relaxed — ordered by the Acquire above.
                    let m = RecordMeta::decode(inner.meta(pos).load(Ordering::Relaxed));
                    match m {
                        Ok(m) if cells_for_payload(m.len as usize) == Some(c.cells as usize) => {
                            // SAFETY: Committed was seen with Acquire; the
                            // claim fits the ring and the length fills
                            // exactly its cells; we release only after `f`.
                            let r = unsafe {
                                inner.read_payload(pos, m.len as usize, |b| f(m.kind, b))
                            };
                            self.release(pos, c.cells, publish);
                            return Look::Delivered(r);
                        }
                        _ => {
                            self.count_corrupt(pos);
                            self.release(pos, c.cells, publish);
                        }
                    }
                }
                Ok(SlotState::Padding(c))
                    if inner.claim_fits(pos, c)
                        && inner.idx(pos) + c.cells as usize == inner.cap as usize =>
                {
                    self.release(pos, c.cells, publish);
                }
                Ok(SlotState::Reserved(c)) if inner.claim_fits(pos, c) => {
                    return Look::NotReady(f);
                }
                Ok(SlotState::Abandoned(c)) | Ok(SlotState::Acked(c))
                    if inner.claim_fits(pos, c) =>
                {
                    // A hole left by a previous consumer: hold it again.
                    self.holes.push_back(Hole { pos, claim: c });
                    self.read = pos + u64::from(c.cells);
                    self.resolve_holes(publish);
                }
                _ => {
                    if !self.skip_corrupt(pos, w, publish) {
                        return Look::NotReady(f);
                    }
                }
            }
        }
    }

    /// Stamps the record's cells free and moves past it.
    fn release(&mut self, pos: u64, cells: u16, publish: bool) {
        let inner = self.shared();
        let end = pos + u64::from(cells);
        for p in pos..end {
            inner.stamp_free(p, p != pos);
        }
        self.read = end;
        if publish {
            self.publish(false);
        }
    }

    /// Publishes the release point (`head`): the first open hole, or the
    /// read position. Rings the space doorbell every quarter ring of
    /// released cells, and when `idle` (the consumer found nothing to read).
    fn publish(&mut self, idle: bool) {
        let inner = self.shared();
        let new = self.holes.front().map_or(self.read, |h| h.pos);
        if new > self.released {
            // ORDERING: Release — pairs with the producers' Acquire loads of
            // `head` in `reserve`/`has_room_for`: our reads of the released
            // records and the free stamps happen before their reuse.
            inner.hdr().head.store(new, Ordering::Release);
            self.unrung += new - self.released;
            self.released = new;
        }
        if self.unrung > 0 && (idle || self.unrung >= inner.cap / 4) {
            self.unrung = 0;
            inner.hdr().space.ring();
        }
    }

    fn count_corrupt(&mut self, pos: u64) {
        if self.corrupt_at != Some(pos) {
            self.corrupt_at = Some(pos);
            // ORDERING: Relaxed — a statistic.
            self.ring
                .inner
                .hdr()
                .corrupt
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    fn count_lost(&self) {
        // ORDERING: Relaxed — a statistic.
        self.ring.inner.hdr().lost.fetch_add(1, Ordering::Relaxed);
    }

    /// The state word at `pos` is not valid there. If `pos` is reserved
    /// (below `tail`), free it and walk on over free cells; otherwise repair
    /// the stamp. Returns whether the read position moved.
    fn skip_corrupt(&mut self, pos: u64, w: u64, publish: bool) -> bool {
        self.count_corrupt(pos);
        let inner = self.shared();
        // ORDERING: Relaxed — only bounds the walk: positions below any
        // value of `tail` were handed out by a tail CAS.
        let tail = inner.hdr().tail.load(Ordering::Relaxed);
        // ORDERING: Relaxed — the CAS only decides against a producer's
        // claim CAS on the same word; no data flows.
        let target = if tail > pos {
            SlotState::free(pos + inner.cap)
        } else {
            SlotState::free(pos)
        };
        if inner
            .state(pos)
            .compare_exchange(w, target, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
            || tail <= pos
        {
            return false;
        }
        let stop = self.walk_free(pos + 1, tail);
        self.read = stop;
        if publish {
            self.publish(false);
        }
        true
    }

    /// Frees, one CAS per cell, the run of cells from `from` (below `tail`)
    /// that still hold their free stamp, i.e. that no producer claimed; a
    /// producer that claims one later fails its claim CAS and writes
    /// nothing. Returns the first position not freed.
    fn walk_free(&mut self, from: u64, tail: u64) -> u64 {
        let inner = self.shared();
        let mut p = from;
        while p < tail {
            inner.note_walk(p);
            // ORDERING: Relaxed — the CAS decides ownership against the
            // producer's claim CAS on the same word; published by `head`.
            if inner
                .state(p)
                .compare_exchange(
                    SlotState::free(p),
                    SlotState::free(p + inner.cap),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
            {
                break;
            }
            p += 1;
        }
        p
    }

    /// Gives up the anonymous reservation(s) at the read position (tail
    /// moved past it but no claim word was written). Returns whether the
    /// read position moved.
    fn skip_anonymous(&mut self, publish: bool) -> bool {
        let inner = self.shared();
        // ORDERING: Relaxed — see `skip_corrupt`.
        let tail = inner.hdr().tail.load(Ordering::Relaxed);
        let pos = self.read;
        if tail <= pos {
            return false;
        }
        let stop = self.walk_free(pos, tail);
        if stop == pos {
            return false;
        }
        self.count_lost();
        self.read = stop;
        if publish {
            self.publish(false);
        }
        true
    }

    /// Gives up the `Reserved` record at the read position. If its producer
    /// is known dead the cells are freed now; otherwise it becomes a hole.
    fn abandon_reserved(&mut self, c: Claim, dead: bool, publish: bool) -> bool {
        let inner = self.shared();
        let pos = self.read;
        let reserved = SlotState::Reserved(c).encode();
        let to = if dead {
            SlotState::free(pos + inner.cap)
        } else {
            SlotState::Abandoned(c).encode()
        };
        // ORDERING: Relaxed — decides against the producer's commit CAS on
        // the same word; a live producer's later writes are ordered by its
        // Acked store (Release), which `resolve_holes` Acquires.
        if inner
            .state(pos)
            .compare_exchange(reserved, to, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return false; // committed meanwhile
        }
        self.count_lost();
        let end = pos + u64::from(c.cells);
        if dead {
            for p in pos + 1..end {
                inner.stamp_free(p, true);
            }
        } else {
            self.holes.push_back(Hole { pos, claim: c });
        }
        self.read = end;
        if publish {
            self.publish(false);
        }
        true
    }

    /// Whether the oldest hole's producer acknowledged.
    fn hole_resolvable(&self) -> bool {
        let Some(h) = self.holes.front() else {
            return false;
        };
        // ORDERING: Relaxed — a hint; `resolve_holes` re-loads with Acquire.
        let w = self.ring.inner.state(h.pos).load(Ordering::Relaxed);
        w == SlotState::Acked(h.claim).encode()
    }

    /// Frees the holes at the front whose producer acknowledged (or died).
    fn resolve_holes(&mut self, publish: bool) {
        let inner = self.shared();
        #[cfg(not(loom))]
        let check_pids = {
            let now = Instant::now();
            let due = self.next_hole_check.map_or(true, |t| now >= t);
            if due {
                self.next_hole_check = Some(now + LIVENESS_EVERY);
            }
            due
        };
        while let Some(h) = self.holes.front().copied() {
            // ORDERING: Acquire — pairs with the producer's Release store of
            // Acked: its payload writes are over before we reuse the cells.
            let w = inner.state(h.pos).load(Ordering::Acquire);
            let done = w == SlotState::Acked(h.claim).encode();
            #[cfg(not(loom))]
            let done = done || (check_pids && pid::is_dead(h.claim.pid));
            if !done {
                break;
            }
            let end = h.pos + u64::from(h.claim.cells);
            inner.stamp_free(h.pos, false);
            for p in h.pos + 1..end {
                inner.stamp_free(p, true);
            }
            self.holes.pop_front();
        }
        if publish {
            self.publish(false);
        }
    }

    /// Called when the read position holds nothing deliverable: tracks how
    /// long, checks the pending producer's liveness, and applies the
    /// abandon rules. `blocking`: called from a blocking pop (always check
    /// `tail`), else only every 1024 calls. Returns whether a reservation
    /// is pending (so a sleeper should wake up to re-check).
    fn on_not_ready(&mut self, blocking: bool) -> bool {
        self.publish(true);
        #[cfg(loom)]
        {
            let _ = blocking;
            false
        }
        #[cfg(not(loom))]
        {
            let inner = self.shared();
            let pos = self.read;
            // ORDERING: Relaxed — classification only.
            let w = inner.state(pos).load(Ordering::Relaxed);
            let reserved = match SlotState::decode(w) {
                Ok(SlotState::Reserved(c)) if inner.claim_fits(pos, c) => Some(c),
                Ok(SlotState::Free { .. }) => None,
                _ => return true, // corrupt cell not yet reserved: re-check
            };
            if reserved.is_none() {
                self.empty_polls = self.empty_polls.wrapping_add(1);
                if !blocking && self.empty_polls % EMPTY_POLLS_PER_TAIL_CHECK != 0 {
                    return !self.holes.is_empty();
                }
                // ORDERING: Relaxed — a bound, see `skip_corrupt`.
                if inner.hdr().tail.load(Ordering::Relaxed) <= pos {
                    self.stall = None;
                    return !self.holes.is_empty();
                }
            }
            let now = Instant::now();
            let s = match self.stall {
                Some(s) if s.pos == pos => s,
                _ => {
                    let s = Stall {
                        pos,
                        since: now,
                        next_liveness: now + LIVENESS_AFTER,
                    };
                    self.stall = Some(s);
                    return true;
                }
            };
            let waited = now.saturating_duration_since(s.since);
            match reserved {
                Some(c) => {
                    if now >= s.next_liveness {
                        if let Some(st) = self.stall.as_mut() {
                            st.next_liveness = now + LIVENESS_EVERY;
                        }
                        if c.pid != pid::current() && pid::is_dead(c.pid) {
                            self.abandon_reserved(c, true, true);
                            return true;
                        }
                    }
                    if waited >= self.abandon_after {
                        self.abandon_reserved(c, false, true);
                    }
                }
                None => {
                    if waited >= self.abandon_after {
                        self.skip_anonymous(true);
                    }
                }
            }
            true
        }
    }

    /// Test hook: applies the abandon rules to the record at the read
    /// position now, as if the deadline had passed (an anonymous
    /// reservation is walked over; a `Reserved` one becomes a hole, or is
    /// freed if `dead`). Returns whether the read position moved.
    #[doc(hidden)]
    pub fn abandon_stalled_now(&mut self, dead: bool) -> bool {
        let inner = self.shared();
        let pos = self.read;
        // ORDERING: Relaxed — classification; the CASes decide.
        let w = inner.state(pos).load(Ordering::Relaxed);
        match SlotState::decode(w) {
            Ok(SlotState::Reserved(c)) if inner.claim_fits(pos, c) => {
                self.abandon_reserved(c, dead, true)
            }
            Ok(SlotState::Free { .. }) => self.skip_anonymous(true),
            _ => false,
        }
    }

    /// Test hook: open holes (abandoned live reservations not yet
    /// acknowledged).
    #[doc(hidden)]
    pub fn open_holes(&self) -> usize {
        self.holes.len()
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        self.publish(true);
        // ORDERING: Release — pairs with the Acquire CAS in `Ring::consumer`.
        let _ = self.ring.inner.hdr().consumer_pid.compare_exchange(
            pid::current(),
            0,
            Ordering::Release,
            Ordering::Relaxed,
        );
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::error::{AttachError, RingInitError};

    fn sut(cells: usize) -> (Ring, Consumer) {
        let ring = Ring::new_heap(RingParams::new(cells).unwrap());
        let c = ring.consumer().unwrap();
        (ring, c)
    }

    fn pop(c: &mut Consumer) -> Option<(u16, Vec<u8>)> {
        c.try_pop(|k, p| (k, p.to_vec())).ok()
    }

    #[test]
    fn params_reject_non_powers_of_two_and_out_of_range() {
        assert!(RingParams::new(0).is_err());
        assert!(RingParams::new(2).is_err());
        assert!(RingParams::new(48).is_err());
        assert!(RingParams::new(MAX_RING_CELLS * 2).is_err());
        assert_eq!(RingParams::new(1 << 20).unwrap().max_record_cells(), 65535);
    }

    #[test]
    fn memory_size_is_a_multiple_of_128() {
        for cells in [4usize, 64, 1024] {
            assert_eq!(Ring::memory_size(RingParams::new(cells).unwrap()) % 128, 0);
        }
    }

    #[test]
    fn records_come_out_in_push_order_with_kind_and_payload() {
        let (ring, mut c) = sut(64);
        for i in 0..20u16 {
            let payload = vec![i as u8; i as usize * 7];
            ring.try_push(i, &payload).unwrap();
            assert_eq!(pop(&mut c), Some((i, payload)));
        }
        assert_eq!(pop(&mut c), None);
    }

    #[test]
    fn empty_payload_is_a_record() {
        let (ring, mut c) = sut(4);
        ring.try_push(9, &[]).unwrap();
        assert_eq!(pop(&mut c), Some((9, vec![])));
    }

    #[test]
    fn full_ring_refuses_and_keeps_existing_records() {
        let (ring, mut c) = sut(8);
        let mut n = 0u8;
        while ring.try_push(1, &[n; 40]).is_ok() {
            n += 1;
        }
        assert_eq!(n, 8);
        assert_eq!(ring.try_push(1, &[0; 40]), Err(TryPushError::Full));
        for i in 0..n {
            assert_eq!(pop(&mut c), Some((1, vec![i; 40])));
        }
        ring.try_push(2, &[1]).unwrap();
    }

    #[test]
    fn payload_over_max_is_too_large_and_never_split() {
        let (ring, _c) = sut(16);
        let max = ring.max_payload();
        assert_eq!(max, 8 * 64 - 16);
        assert_eq!(
            ring.try_push(0, &vec![0; max + 1]),
            Err(TryPushError::TooLarge { len: max + 1, max })
        );
        assert_eq!(
            ring.push_timeout(0, &vec![0; max + 1], Duration::from_millis(1)),
            Err(PushTimeoutError::TooLarge { len: max + 1, max })
        );
        ring.try_push(0, &vec![0; max]).unwrap();
    }

    #[test]
    fn record_that_would_straddle_the_end_goes_after_a_padding() {
        let (ring, mut c) = sut(8);
        for _ in 0..3 {
            ring.try_push(1, &[1; 40]).unwrap(); // 1 cell each: tail at 3
            pop(&mut c).unwrap();
        }
        for _ in 0..3 {
            ring.try_push(1, &[1; 40]).unwrap(); // tail at 6
            pop(&mut c).unwrap();
        }
        // 3 cells do not fit in cells 6..8: padding of 2, record at 8 (= idx 0).
        let big = vec![0xAB; 3 * 64 - 16];
        ring.try_push(5, &big).unwrap();
        assert_eq!(ring.used_cells(), 5);
        assert_eq!(pop(&mut c), Some((5, big)));
        assert_eq!(ring.used_cells(), 0);
        assert_eq!(ring.lost(), 0);
        assert_eq!(ring.corrupt(), 0);
    }

    #[test]
    fn max_record_always_fits_an_empty_ring_after_padding() {
        let (ring, mut c) = sut(16);
        let max = vec![7u8; ring.max_payload()];
        for shift in 0..16 {
            for _ in 0..shift {
                ring.try_push(0, &[]).unwrap();
                pop(&mut c).unwrap();
            }
            ring.try_push(1, &max).unwrap();
            assert_eq!(pop(&mut c), Some((1, max.clone())));
        }
    }

    #[test]
    fn drain_pops_everything_and_publishes_once() {
        let (ring, mut c) = sut(64);
        for i in 0..10u8 {
            ring.try_push(u16::from(i), &[i; 100]).unwrap();
        }
        let mut seen = vec![];
        assert_eq!(c.drain(4, |k, p| seen.push((k, p[0]))), 4);
        assert_eq!(c.drain(usize::MAX, |k, p| seen.push((k, p[0]))), 6);
        assert_eq!(seen.len(), 10);
        assert!(seen
            .iter()
            .enumerate()
            .all(|(i, &(k, b))| k as usize == i && b as usize == i));
        assert_eq!(ring.used_cells(), 0);
    }

    #[test]
    fn second_consumer_is_busy_until_the_first_is_dropped() {
        let (ring, c) = sut(4);
        let me = std::process::id();
        assert_eq!(ring.consumer().unwrap_err(), ConsumerBusyError { pid: me });
        drop(c);
        ring.consumer().unwrap();
    }

    #[test]
    fn pop_timeout_times_out_on_an_empty_ring() {
        let (_ring, mut c) = sut(4);
        let t0 = Instant::now();
        assert_eq!(
            c.pop_timeout(Duration::from_millis(20), |_, _| ()),
            Err(PopTimeoutError::Timeout)
        );
        assert!(t0.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    fn push_timeout_times_out_on_a_full_ring() {
        let (ring, _c) = sut(4);
        for _ in 0..4 {
            ring.try_push(0, &[]).unwrap();
        }
        assert_eq!(
            ring.push_timeout(0, &[], Duration::from_millis(20)),
            Err(PushTimeoutError::Timeout)
        );
    }

    #[test]
    fn sleeping_consumer_is_woken_by_a_push() {
        let (ring, mut c) = sut(16);
        let r2 = ring.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            r2.try_push(3, b"wake").unwrap();
        });
        let got = c.pop_timeout(Duration::from_secs(20), |k, p| (k, p.to_vec()));
        assert_eq!(got, Ok((3, b"wake".to_vec())));
        t.join().unwrap();
    }

    #[test]
    fn blocked_producer_is_woken_by_pops() {
        let (ring, mut c) = sut(4);
        for _ in 0..4 {
            ring.try_push(0, &[1; 48]).unwrap();
        }
        let r2 = ring.clone();
        let t = std::thread::spawn(move || r2.push_timeout(1, &[2; 48], Duration::from_secs(20)));
        std::thread::sleep(Duration::from_millis(20));
        for _ in 0..4 {
            c.pop_timeout(Duration::from_secs(5), |_, _| ()).unwrap();
        }
        assert_eq!(t.join().unwrap(), Ok(()));
        assert_eq!(pop(&mut c), Some((1, vec![2; 48])));
    }

    #[test]
    fn threads_keep_per_producer_order_without_loss() {
        const PRODUCERS: u32 = 3;
        const PER: u32 = 20_000;
        let (ring, mut c) = sut(256);
        let handles: Vec<_> = (0..PRODUCERS)
            .map(|id| {
                let r = ring.clone();
                std::thread::spawn(move || {
                    for seq in 0..PER {
                        let len = (seq % 150) as usize + 8;
                        let mut p = vec![(seq % 251) as u8; len];
                        p[..4].copy_from_slice(&seq.to_le_bytes());
                        r.push_timeout(id as u16, &p, Duration::from_secs(30))
                            .unwrap();
                    }
                })
            })
            .collect();
        let mut next = [0u32; PRODUCERS as usize];
        for _ in 0..PRODUCERS * PER {
            c.pop_timeout(Duration::from_secs(30), |k, p| {
                let seq = u32::from_le_bytes(p[..4].try_into().unwrap());
                assert_eq!(seq, next[k as usize], "producer {k} out of order");
                assert_eq!(p.len(), (seq % 150) as usize + 8);
                assert!(
                    p[4..].iter().all(|&b| b == (seq % 251) as u8),
                    "torn payload"
                );
                next[k as usize] += 1;
            })
            .unwrap();
        }
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(next, [PER; PRODUCERS as usize]);
        assert_eq!(pop(&mut c), None);
        assert_eq!(ring.lost(), 0);
    }

    #[test]
    fn reservation_of_a_dead_pid_is_skipped_and_counted_lost() {
        let (ring, mut c) = sut(16);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        ring.try_push(1, b"before").unwrap();
        ring.try_push_reserve_only(100, Some(dead)).unwrap();
        ring.try_push(2, b"after").unwrap();
        assert_eq!(pop(&mut c), Some((1, b"before".to_vec())));
        let got = c.pop_timeout(Duration::from_secs(10), |k, p| (k, p.to_vec()));
        assert_eq!(got, Ok((2, b"after".to_vec())));
        assert_eq!(ring.lost(), 1);
        assert_eq!(c.open_holes(), 0);
        assert_eq!(ring.used_cells(), 0);
    }

    #[test]
    fn anonymous_reservation_is_skipped_after_the_deadline() {
        let (ring, mut c) = sut(16);
        c.set_abandon_after(Duration::from_millis(30));
        ring.try_reserve_anonymous(70).unwrap();
        ring.try_push(2, b"after").unwrap();
        let t0 = Instant::now();
        let got = c.pop_timeout(Duration::from_secs(10), |k, p| (k, p.to_vec()));
        assert_eq!(got, Ok((2, b"after".to_vec())));
        assert!(t0.elapsed() >= Duration::from_millis(30));
        assert_eq!(ring.lost(), 1);
        assert_eq!(ring.used_cells(), 0);
    }

    #[test]
    fn late_producer_of_an_abandoned_record_is_told_and_its_cells_come_back() {
        let (ring, mut c) = sut(8);
        let r = ring.reserve_for_test(40).unwrap();
        ring.try_push(2, b"next").unwrap();
        assert!(c.abandon_stalled_now(false));
        assert_eq!(pop(&mut c), Some((2, b"next".to_vec())));
        assert_eq!(c.open_holes(), 1);
        assert_eq!(ring.used_cells(), 2, "the hole holds head back");
        assert_eq!(r.commit(1, &[9; 40]), Err(TryPushError::Abandoned));
        assert_eq!(pop(&mut c), None);
        assert_eq!(c.open_holes(), 0);
        assert_eq!(ring.used_cells(), 0);
        assert_eq!(ring.lost(), 1);
        // The ring keeps working across laps.
        for i in 0..40u8 {
            ring.try_push(3, &[i; 60]).unwrap();
            assert_eq!(pop(&mut c), Some((3, vec![i; 60])));
        }
    }

    #[test]
    fn late_anonymous_producer_writes_nothing() {
        let (ring, mut c) = sut(8);
        // Reserve anonymously, let the consumer walk over it, then claim:
        // the claim CAS must fail.
        ring.try_reserve_anonymous(10).unwrap();
        assert!(c.abandon_stalled_now(false));
        assert_eq!(ring.lost(), 1);
        ring.try_push(4, b"ok").unwrap();
        assert_eq!(pop(&mut c), Some((4, b"ok".to_vec())));
    }

    /// The raw state word of the cell at `pos` (white-box tests).
    fn state_word(ring: &Ring, pos: u64) -> &AtomicU64 {
        ring.inner.state(pos)
    }

    #[test]
    fn garbage_state_word_is_counted_and_skipped() {
        let (ring, mut c) = sut(8);
        ring.try_push(1, &[1; 100]).unwrap(); // cells 0..2
        ring.try_push(2, b"good").unwrap(); // cell 2
        state_word(&ring, 0).store(0xFFFF_0000_1234_5678, Ordering::Relaxed);
        // The garbage cell and its payload cell are walked over.
        let mut got = None;
        for _ in 0..4 {
            if let Some(g) = pop(&mut c) {
                got = Some(g);
                break;
            }
        }
        assert_eq!(got, Some((2, b"good".to_vec())));
        assert!(ring.corrupt() >= 1);
    }

    #[test]
    fn committed_record_with_bad_length_is_skipped() {
        let (ring, mut c) = sut(8);
        ring.try_push(1, &[1; 10]).unwrap();
        ring.try_push(2, b"good").unwrap();
        ring.inner.meta(0).store(
            RecordMeta { len: 5000, kind: 1 }.encode(),
            Ordering::Relaxed,
        );
        assert_eq!(pop(&mut c), Some((2, b"good".to_vec())));
        assert_eq!(ring.corrupt(), 1);
    }

    #[test]
    fn claim_from_another_lap_is_corrupt() {
        let (ring, mut c) = sut(8);
        ring.try_push(1, &[1; 10]).unwrap();
        let w = SlotState::Committed(Claim {
            pid: 1,
            cells: 1,
            lap: 3,
        })
        .encode();
        state_word(&ring, 0).store(w, Ordering::Relaxed);
        assert_eq!(pop(&mut c), None);
        assert_eq!(ring.corrupt(), 1);
        ring.try_push(2, b"x").unwrap();
        assert_eq!(pop(&mut c), Some((2, b"x".to_vec())));
    }

    #[test]
    fn attach_sees_the_same_ring_and_rejects_bad_headers() {
        let size = Ring::memory_size(RingParams::new(16).unwrap());
        let layout = std::alloc::Layout::from_size_align(size, 128).unwrap();
        // SAFETY: non-zero size.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }).unwrap();
        // SAFETY: exclusive, aligned, large enough; freed at the end after
        // every handle is dropped.
        unsafe {
            assert_eq!(
                Ring::attach(ptr, size).unwrap_err(),
                AttachError::BadMagic { found: 0 }
            );
            assert_eq!(
                Ring::init_in(ptr, size - 1, RingParams::new(16).unwrap()).unwrap_err(),
                RingInitError::TooSmall {
                    len: size - 1,
                    needed: size
                }
            );
            let a = Ring::init_in(ptr, size, RingParams::new(16).unwrap()).unwrap();
            let b = Ring::attach(ptr, size).unwrap();
            assert!(matches!(
                Ring::attach(ptr, size - 64),
                Err(AttachError::TooSmall { .. })
            ));
            let mut c = b.consumer().unwrap();
            a.try_push(5, b"via a").unwrap();
            assert_eq!(pop(&mut c), Some((5, b"via a".to_vec())));
            // A header claiming more cells than the memory holds.
            let hdr = ptr.cast::<RingHeader>().as_ref();
            hdr.cells.store(1 << 20, Ordering::Relaxed);
            assert!(matches!(
                Ring::attach(ptr, size),
                Err(AttachError::BadGeometry { .. }) | Err(AttachError::TooSmall { .. })
            ));
            hdr.cells.store(12, Ordering::Relaxed);
            assert!(matches!(
                Ring::attach(ptr, size),
                Err(AttachError::BadGeometry { .. })
            ));
            hdr.cells.store(16, Ordering::Relaxed);
            hdr.version.store(99, Ordering::Relaxed);
            assert_eq!(
                Ring::attach(ptr, size).unwrap_err(),
                AttachError::VersionMismatch {
                    found: 99,
                    expected: LAYOUT_VERSION
                }
            );
            let odd = NonNull::new_unchecked(ptr.as_ptr().add(64));
            assert!(matches!(
                Ring::attach(odd, size - 64),
                Err(AttachError::Misaligned { .. })
            ));
            drop(c);
            drop((a, b));
            std::alloc::dealloc(ptr.as_ptr(), layout);
        }
    }

    #[test]
    fn with_owner_keeps_memory_alive_after_the_creator_drops() {
        let ring = Ring::new_heap(RingParams::new(4).unwrap());
        let r2 = ring.clone();
        drop(ring);
        r2.try_push(1, b"x").unwrap();
        let mut c = r2.consumer().unwrap();
        assert_eq!(pop(&mut c), Some((1, b"x".to_vec())));
    }

    #[test]
    fn positions_far_into_the_run_wrap_correctly() {
        let ring = Ring::new_heap_at(RingParams::new(8).unwrap(), (1 << 40) + 5);
        let mut c = ring.consumer().unwrap();
        for i in 0..50u8 {
            let p = vec![i; (i as usize * 13) % 241];
            ring.try_push(u16::from(i), &p).unwrap();
            assert_eq!(pop(&mut c), Some((u16::from(i), p)));
        }
    }
}
