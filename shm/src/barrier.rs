//! A table of counting barriers and peer-state cells in one shared region.
//!
//! The table gives no meaning to what it counts: a user (the server, for a
//! local fence) resets a barrier cell to a number of *parties*, every party
//! [`arrive`](Barrier::arrive)s and then [`wait`](Barrier::wait)s for its
//! generation to be released. Peer cells are small state words a user can
//! give any meaning (0 = free). The byte layout is in `docs/SHM-LAYOUT.md`
//! ("Barrier table region").
//!
//! # Generations
//!
//! A barrier counts arrivals *ever* (`arrived`, never reset while in use)
//! and remembers the highest released generation (`released`, only grows).
//! With `p` parties, arrival number `a` (0-based) belongs to generation
//! `a / p + 1`: generation `k` is the `k`-th barrier episode, and the
//! arrival with `a % p == p - 1` completes it ([`Arrival::last`]). A
//! generation is released either by its last arriver (`auto_release`) or by
//! whoever the user lets decide (the server, after the host's allgather);
//! [`release`](Barrier::release) is a `fetch_max`, so releases are
//! monotonic and idempotent. A waiter of generation `k` returns once
//! `released ≥ k`.
//!
//! | field      | written by                              | read by                   |
//! |------------|-----------------------------------------|---------------------------|
//! | `parties`  | owner, [`reset`](Barrier::reset) (last, `Release`) | arrivers (`Acquire`) |
//! | `arrived`  | arrivers, `fetch_add` (`AcqRel`)        | arrivers, diagnostics     |
//! | `released` | releasers, `fetch_max` (`Release`)      | waiters (`Acquire`)       |
//! | `status`   | [`poison`](Barrier::poison): CAS from 0 (first wins); owner clears | waiters (`Acquire`) |
//! | `seq`      | releasers and poisoners: `+1` per change | sleeping waiters (futex)  |
//! | `waiters`  | waiters: `+1` before sleeping, `-1` after | releasers and poisoners |
//!
//! # Sleeping without lost wake-ups
//!
//! The futex word `seq` changes on every release and poison, so a sleeper
//! that waits on the value it saw before its last check wakes (or never
//! sleeps) when anything happens. The wake system call is made only when
//! `waiters` is not 0. That is the Dekker handshake of the
//! [doorbell](crate::doorbell), on two `SeqCst` fences:
//!
//! * waiter: `s = seq` (`Acquire`); `waiters += 1`; `fence(SeqCst)`; check
//!   `status` and `released`; `FUTEX_WAIT(seq, s)`; `waiters -= 1`; check.
//! * notifier: publish `released` or `status`; `seq += 1` (`Release`);
//!   `fence(SeqCst)`; if `waiters != 0`: `FUTEX_WAKE(all)`.
//!
//! Either the notifier's load sees the waiter's announcement (and wakes it,
//! or the changed `seq` makes its `FUTEX_WAIT` return at once), or the
//! waiter's check sees what the notifier published. A waiter process that
//! dies while asleep leaves `waiters` too high: later notifiers then make
//! a needless system call, nothing worse.
//!
//! # Trust
//!
//! Every field may be written by any process mapping the region. The
//! header is validated once at attach (counts, offsets, size) and the
//! geometry is never re-read; cells are atomics, valid for any bits; bad
//! values give wrong answers (a waiter that never returns before its
//! deadline, a poisoned barrier), never undefined behaviour or a panic.
//!
//! Under `cfg(loom)` the table lives in boxes of loom atomics
//! ([`BarrierTable::new_heap`] is the only constructor), the futex is
//! emulated and [`Barrier::wait`] neither spins nor times out.
//!
//! # Examples
//!
//! ```
//! use pmix_shm::barrier::{BarrierParams, BarrierTable};
//! use std::time::{Duration, Instant};
//!
//! let table = BarrierTable::new_heap(&BarrierParams { barriers: 4, peers: 8 });
//! let fence = table.barrier(0).unwrap();
//! fence.reset(2);
//! let other = table.clone();
//! let t = std::thread::spawn(move || {
//!     let b = other.barrier(0).unwrap();
//!     let a = b.arrive(true);
//!     b.wait(a.generation, Duration::ZERO, Some(Instant::now() + Duration::from_secs(10)))
//! });
//! let a = fence.arrive(true);
//! assert_eq!(a.generation, 1);
//! fence.wait(1, Duration::from_micros(20), Some(Instant::now() + Duration::from_secs(10))).unwrap();
//! t.join().unwrap().unwrap();
//! assert!(fence.is_released(1));
//! ```

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(not(loom))]
use std::ptr::NonNull;

#[cfg(not(loom))]
use crate::heap::{HeapRegion, KeepAlive};
#[cfg(not(loom))]
use crate::layout::HOT_LINE;
#[cfg(not(loom))]
use crate::sync::spin_loop;
use crate::sync::{fence, AtomicI32, AtomicU32, AtomicU64, FutexWord, Ordering};

/// `"PMIXBARR"` as a little-endian `u64`: the first word of a barrier table.
pub const BARRIER_MAGIC: u64 = u64::from_le_bytes(*b"PMIXBARR");
/// The barrier-table layout version this build writes and accepts.
pub const BARRIER_LAYOUT_VERSION: u32 = 1;
/// Value of the header's `ready` word once the table is initialised.
pub const BARRIER_READY: u32 = 1;
/// Bytes of the table header (two cache lines).
pub const BARRIER_HEADER_SIZE: usize = 128;
/// Bytes of one barrier cell (`HOT_LINE`: two barriers never false-share).
pub const BARRIER_CELL_SIZE: usize = 128;
/// Bytes of one peer cell (one cache line).
pub const PEER_CELL_SIZE: usize = 64;
/// Most barrier cells a table may have.
pub const MAX_BARRIERS: u32 = 1 << 16;
/// Most peer cells a table may have.
pub const MAX_PEERS: u32 = 1 << 16;
/// The peer state of a free (unused) peer cell; every other value is the
/// user's.
pub const PEER_FREE: u32 = 0;

// ---------------------------------------------------------------------------
// Shared-memory structures.

/// The table header at offset 0 ([`BARRIER_HEADER_SIZE`] bytes).
#[cfg(not(loom))]
#[repr(C, align(128))]
#[derive(bytemuck::Zeroable)]
struct TableHeader {
    /// [`BARRIER_MAGIC`].
    magic: AtomicU64,
    /// [`BARRIER_LAYOUT_VERSION`].
    layout_version: AtomicU32,
    /// Number of barrier cells.
    barrier_count: AtomicU32,
    /// Number of peer cells.
    peer_count: AtomicU32,
    /// Offset of barrier cell 0 (= [`BARRIER_HEADER_SIZE`]).
    barriers_offset: AtomicU32,
    /// Offset of peer cell 0 (right after the last barrier cell).
    peers_offset: AtomicU32,
    _reserved0: [u32; 9],
    /// 0 = not initialised; [`BARRIER_READY`], stored last with `Release`.
    ready: AtomicU32,
    _reserved1: [u32; 15],
}

/// One barrier cell ([`BARRIER_CELL_SIZE`] bytes).
#[repr(C, align(128))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
struct RawBarrier {
    /// Arrivals per generation (0 behaves as 1).
    parties: AtomicU32,
    /// 0 = healthy; otherwise the sticky poison status.
    status: AtomicI32,
    /// Arrivals ever.
    arrived: AtomicU64,
    /// Highest released generation.
    released: AtomicU64,
    /// Bumped on every release and poison; sleepers wait on it.
    seq: FutexWord,
    /// Waiters announced (about to sleep or asleep).
    waiters: AtomicU32,
    _reserved: [u64; 12],
}

/// One peer cell ([`PEER_CELL_SIZE`] bytes).
#[repr(C, align(64))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
struct RawPeer {
    /// User-defined state; [`PEER_FREE`] = free.
    state: AtomicU32,
    /// User-defined process id.
    pid: AtomicU32,
    /// Bumped on every state change.
    epoch: AtomicU64,
    _reserved: [u64; 6],
}

#[cfg(loom)]
impl RawBarrier {
    fn new() -> Self {
        RawBarrier {
            parties: AtomicU32::new(0),
            status: AtomicI32::new(0),
            arrived: AtomicU64::new(0),
            released: AtomicU64::new(0),
            seq: FutexWord::new(0),
            waiters: AtomicU32::new(0),
            _reserved: [0; 12],
        }
    }
}

#[cfg(loom)]
impl RawPeer {
    fn new() -> Self {
        RawPeer {
            state: AtomicU32::new(PEER_FREE),
            pid: AtomicU32::new(0),
            epoch: AtomicU64::new(0),
            _reserved: [0; 6],
        }
    }
}

// ---------------------------------------------------------------------------
// Parameters and geometry.

/// Sizes of a barrier table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarrierParams {
    /// Barrier cells, `0..=MAX_BARRIERS`.
    pub barriers: u32,
    /// Peer cells, `0..=MAX_PEERS`.
    pub peers: u32,
}

impl BarrierParams {
    fn valid(&self) -> bool {
        self.barriers <= MAX_BARRIERS && self.peers <= MAX_PEERS
    }

    fn peers_offset(&self) -> usize {
        BARRIER_HEADER_SIZE + self.barriers as usize * BARRIER_CELL_SIZE
    }

    fn memory_size(&self) -> usize {
        self.peers_offset() + self.peers as usize * PEER_CELL_SIZE
    }
}

// ---------------------------------------------------------------------------
// Storage.

#[cfg(not(loom))]
struct Storage {
    base: NonNull<u8>,
    _owner: KeepAlive,
}

#[cfg(loom)]
struct Storage {
    barriers: Box<[RawBarrier]>,
    peers: Box<[RawPeer]>,
}

struct Shared {
    storage: Storage,
    /// Validated geometry, copied once (never re-read from the region).
    geom: BarrierParams,
}

// SAFETY: `Shared` only hands out shared references to atomics in memory
// that lives as long as it does (`_owner` keeps the mapping alive); atomics
// may be used from any thread.
#[cfg(not(loom))]
unsafe impl Send for Shared {}
// SAFETY: as for `Send`: every access through `&Shared` is atomic.
#[cfg(not(loom))]
unsafe impl Sync for Shared {}

impl Shared {
    #[cfg(not(loom))]
    fn header(&self) -> &TableHeader {
        // SAFETY: `base` is 128-aligned and the region holds at least the
        // header (checked by `init_in_owned`/`attach_owned`); `_owner` keeps
        // it mapped; the header's fields are atomics or never-accessed
        // padding, valid for any bits.
        unsafe { self.storage.base.cast::<TableHeader>().as_ref() }
    }

    /// Barrier cell `i`; `i < geom.barriers`.
    fn barrier(&self, i: u32) -> &RawBarrier {
        debug_assert!(i < self.geom.barriers);
        #[cfg(not(loom))]
        {
            let offset = BARRIER_HEADER_SIZE + i as usize * BARRIER_CELL_SIZE;
            // SAFETY: `i < barriers` (callers check), so the cell lies inside
            // the validated `memory_size()` bytes of the live region, at a
            // multiple of 128 from a 128-aligned base; it is only atomics.
            unsafe { &*self.storage.base.as_ptr().add(offset).cast::<RawBarrier>() }
        }
        #[cfg(loom)]
        {
            &self.storage.barriers[i as usize]
        }
    }

    /// Peer cell `i`; `i < geom.peers`.
    fn peer(&self, i: u32) -> &RawPeer {
        debug_assert!(i < self.geom.peers);
        #[cfg(not(loom))]
        {
            let offset = self.geom.peers_offset() + i as usize * PEER_CELL_SIZE;
            // SAFETY: `i < peers` (callers check), so the cell lies inside
            // the validated `memory_size()` bytes of the live region, at a
            // multiple of 64 from a 128-aligned base; it is only atomics.
            unsafe { &*self.storage.base.as_ptr().add(offset).cast::<RawPeer>() }
        }
        #[cfg(loom)]
        {
            &self.storage.peers[i as usize]
        }
    }

    /// Writes the initial image: header fields, every cell zeroed, `ready`
    /// last.
    #[cfg(not(loom))]
    fn write_initial_image(&self) {
        let h = self.header();
        let g = self.geom;
        // ORDERING: Relaxed (every store until `ready`) — published to
        // attachers by the Release store of `ready` below.
        h.ready.store(0, Ordering::Relaxed);
        h.magic.store(BARRIER_MAGIC, Ordering::Relaxed);
        h.layout_version
            .store(BARRIER_LAYOUT_VERSION, Ordering::Relaxed);
        h.barrier_count.store(g.barriers, Ordering::Relaxed);
        h.peer_count.store(g.peers, Ordering::Relaxed);
        h.barriers_offset
            .store(BARRIER_HEADER_SIZE as u32, Ordering::Relaxed);
        h.peers_offset
            .store(g.peers_offset() as u32, Ordering::Relaxed);
        for i in 0..g.barriers {
            let c = self.barrier(i);
            c.parties.store(0, Ordering::Relaxed);
            c.status.store(0, Ordering::Relaxed);
            c.arrived.store(0, Ordering::Relaxed);
            c.released.store(0, Ordering::Relaxed);
            c.seq.store(0, Ordering::Relaxed);
            c.waiters.store(0, Ordering::Relaxed);
        }
        for i in 0..g.peers {
            let p = self.peer(i);
            p.state.store(PEER_FREE, Ordering::Relaxed);
            p.pid.store(0, Ordering::Relaxed);
            p.epoch.store(0, Ordering::Relaxed);
        }
        // ORDERING: Release — pairs with the Acquire load of `ready` in
        // `BarrierTable::attach_owned`: everything above is visible to an
        // attacher that sees it.
        h.ready.store(BARRIER_READY, Ordering::Release);
    }
}

// ---------------------------------------------------------------------------
// Errors.

/// Why [`BarrierTable::init_in_owned`] refused a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierInitError {
    /// More than [`MAX_BARRIERS`] barriers or [`MAX_PEERS`] peers.
    InvalidParams {
        /// Barrier cells asked for.
        barriers: u32,
        /// Peer cells asked for.
        peers: u32,
    },
    /// The region does not start on a 128-byte boundary.
    Misaligned {
        /// Address of the region.
        addr: usize,
    },
    /// The region is shorter than [`BarrierTable::memory_size`].
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
}

/// Why [`BarrierTable::attach_owned`] refused a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierAttachError {
    /// The region does not start on a 128-byte boundary.
    Misaligned {
        /// Address of the region.
        addr: usize,
    },
    /// The region is shorter than the header, or than the table its header
    /// describes.
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
    /// The region is not initialised (yet): zero magic, or `ready` not set.
    NotReady,
    /// The first word is not [`BARRIER_MAGIC`].
    BadMagic {
        /// The word found.
        found: u64,
    },
    /// The layout version is not [`BARRIER_LAYOUT_VERSION`].
    VersionMismatch {
        /// The version found.
        found: u32,
    },
    /// Counts out of range, or offsets inconsistent with them.
    BadGeometry,
}

/// Why [`Barrier::wait`] returned without its generation released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierWaitError {
    /// The barrier was poisoned with this (non-zero) status; reported as
    /// soon as it is seen, even if the generation was released too.
    Poisoned(i32),
    /// The deadline passed first.
    Timeout,
}

impl fmt::Display for BarrierInitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidParams { barriers, peers } => write!(
                f,
                "BarrierInitError::InvalidParams: {barriers} barriers, {peers} peers; \
                 at most {MAX_BARRIERS} and {MAX_PEERS}"
            ),
            Self::Misaligned { addr } => write!(
                f,
                "BarrierInitError::Misaligned: {addr:#x} is not 128-byte aligned"
            ),
            Self::RegionTooSmall { needed, len } => write!(
                f,
                "BarrierInitError::RegionTooSmall: {len} bytes, need {needed}"
            ),
        }
    }
}

impl fmt::Display for BarrierAttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Misaligned { addr } => write!(
                f,
                "BarrierAttachError::Misaligned: {addr:#x} is not 128-byte aligned"
            ),
            Self::RegionTooSmall { needed, len } => write!(
                f,
                "BarrierAttachError::RegionTooSmall: {len} bytes, need {needed}"
            ),
            Self::NotReady => f.write_str("BarrierAttachError::NotReady"),
            Self::BadMagic { found } => {
                write!(f, "BarrierAttachError::BadMagic: found {found:#018x}")
            }
            Self::VersionMismatch { found } => write!(
                f,
                "BarrierAttachError::VersionMismatch: layout version {found}, \
                 expected {BARRIER_LAYOUT_VERSION}"
            ),
            Self::BadGeometry => f.write_str("BarrierAttachError::BadGeometry"),
        }
    }
}

impl fmt::Display for BarrierWaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Poisoned(s) => write!(f, "BarrierWaitError::Poisoned: status {s}"),
            Self::Timeout => f.write_str("BarrierWaitError::Timeout"),
        }
    }
}

impl std::error::Error for BarrierInitError {}
impl std::error::Error for BarrierAttachError {}
impl std::error::Error for BarrierWaitError {}

impl From<BarrierInitError> for pmix_core::Error {
    /// `InvalidParams` → `PMIX_ERR_BAD_PARAM`; any other → `PMIX_ERR_INIT`.
    fn from(e: BarrierInitError) -> Self {
        let status = match e {
            BarrierInitError::InvalidParams { .. } => pmix_core::Status::ERR_BAD_PARAM,
            _ => pmix_core::Status::ERR_INIT,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<BarrierAttachError> for pmix_core::Error {
    /// `VersionMismatch` → `PMIX_ERR_NOT_SUPPORTED`; any other →
    /// `PMIX_ERR_INIT`.
    fn from(e: BarrierAttachError) -> Self {
        let status = match e {
            BarrierAttachError::VersionMismatch { .. } => pmix_core::Status::ERR_NOT_SUPPORTED,
            _ => pmix_core::Status::ERR_INIT,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<BarrierWaitError> for pmix_core::Error {
    /// `Timeout` → `PMIX_ERR_TIMEOUT`; `Poisoned(s)` → status `s` when it
    /// is negative (an error code), `PMIX_ERROR` otherwise.
    fn from(e: BarrierWaitError) -> Self {
        let status = match e {
            BarrierWaitError::Timeout => pmix_core::Status::ERR_TIMEOUT,
            BarrierWaitError::Poisoned(s) if s < 0 => pmix_core::Status(s),
            BarrierWaitError::Poisoned(_) => pmix_core::Status::ERROR,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

// ---------------------------------------------------------------------------
// The table.

/// A table of counting barriers and peer-state cells (see the
/// [module docs](self)). Cloning shares the table; the handle keeps the
/// memory behind it alive.
#[derive(Clone)]
pub struct BarrierTable {
    shared: Arc<Shared>,
}

impl fmt::Debug for BarrierTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierTable")
            .field("barriers", &self.shared.geom.barriers)
            .field("peers", &self.shared.geom.peers)
            .finish()
    }
}

impl BarrierTable {
    /// Bytes of shared memory a table with `params` needs: 128 + 128 per
    /// barrier + 64 per peer (a multiple of 64). Counts above the maxima
    /// are clamped to them.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::barrier::{BarrierParams, BarrierTable};
    /// let p = BarrierParams { barriers: 2, peers: 3 };
    /// assert_eq!(BarrierTable::memory_size(&p), 128 + 2 * 128 + 3 * 64);
    /// ```
    pub fn memory_size(params: &BarrierParams) -> usize {
        BarrierParams {
            barriers: params.barriers.min(MAX_BARRIERS),
            peers: params.peers.min(MAX_PEERS),
        }
        .memory_size()
    }

    /// Writes the initial image of a table into `len` bytes at `base` (the
    /// `ready` word last) and returns a handle that keeps `owner` alive.
    ///
    /// # Safety
    ///
    /// `base` must be valid for reads and writes of `len` bytes for as long
    /// as `owner` lives; nothing may use the bytes as a table until this
    /// returns (other processes may map them, but only attach after the
    /// caller publishes the table, e.g. with the segment).
    ///
    /// # Errors
    ///
    /// [`BarrierInitError`] for counts above the maxima, a base not aligned
    /// to 128 bytes, or a region shorter than
    /// [`memory_size`](Self::memory_size).
    #[cfg(not(loom))]
    pub unsafe fn init_in_owned(
        base: NonNull<u8>,
        len: usize,
        params: &BarrierParams,
        owner: KeepAlive,
    ) -> Result<Self, BarrierInitError> {
        if !params.valid() {
            return Err(BarrierInitError::InvalidParams {
                barriers: params.barriers,
                peers: params.peers,
            });
        }
        let addr = base.as_ptr() as usize;
        if addr % HOT_LINE != 0 {
            return Err(BarrierInitError::Misaligned { addr });
        }
        let needed = params.memory_size();
        if len < needed {
            return Err(BarrierInitError::RegionTooSmall { needed, len });
        }
        let shared = Shared {
            storage: Storage {
                base,
                _owner: owner,
            },
            geom: *params,
        };
        shared.write_initial_image();
        Ok(Self {
            shared: Arc::new(shared),
        })
    }

    /// Attaches to a table another handle (or process) initialised,
    /// validating its header: alignment, `ready`, magic, layout version,
    /// counts within the maxima, offsets consistent with them, and the
    /// table fitting in `len` bytes. The geometry is copied once.
    ///
    /// # Safety
    ///
    /// `base` must be valid for reads and writes of `len` bytes for as long
    /// as `owner` lives. The bytes may be anything: a garbage header is
    /// reported, never trusted.
    ///
    /// # Errors
    ///
    /// [`BarrierAttachError`] naming the first failed check.
    #[cfg(not(loom))]
    pub unsafe fn attach_owned(
        base: NonNull<u8>,
        len: usize,
        owner: KeepAlive,
    ) -> Result<Self, BarrierAttachError> {
        let addr = base.as_ptr() as usize;
        if addr % HOT_LINE != 0 {
            return Err(BarrierAttachError::Misaligned { addr });
        }
        if len < BARRIER_HEADER_SIZE {
            return Err(BarrierAttachError::RegionTooSmall {
                needed: BARRIER_HEADER_SIZE,
                len,
            });
        }
        // Geometry unknown yet: a header-only view for validation.
        let probe = Shared {
            storage: Storage {
                base,
                _owner: owner,
            },
            geom: BarrierParams::default(),
        };
        let h = probe.header();
        // ORDERING: Acquire — pairs with the Release store of `ready` in
        // `write_initial_image`: the header fields below are the writer's.
        let ready = h.ready.load(Ordering::Acquire);
        // ORDERING: Relaxed (header loads) — ordered by the Acquire above.
        let magic = h.magic.load(Ordering::Relaxed);
        if magic == 0 {
            return Err(BarrierAttachError::NotReady);
        }
        if magic != BARRIER_MAGIC {
            return Err(BarrierAttachError::BadMagic { found: magic });
        }
        let version = h.layout_version.load(Ordering::Relaxed);
        if version != BARRIER_LAYOUT_VERSION {
            return Err(BarrierAttachError::VersionMismatch { found: version });
        }
        if ready != BARRIER_READY {
            return Err(BarrierAttachError::NotReady);
        }
        let geom = BarrierParams {
            barriers: h.barrier_count.load(Ordering::Relaxed),
            peers: h.peer_count.load(Ordering::Relaxed),
        };
        if !geom.valid()
            || h.barriers_offset.load(Ordering::Relaxed) as usize != BARRIER_HEADER_SIZE
            || h.peers_offset.load(Ordering::Relaxed) as usize != geom.peers_offset()
        {
            return Err(BarrierAttachError::BadGeometry);
        }
        let needed = geom.memory_size();
        if len < needed {
            return Err(BarrierAttachError::RegionTooSmall { needed, len });
        }
        Ok(Self {
            shared: Arc::new(Shared {
                storage: probe.storage,
                geom,
            }),
        })
    }

    /// A table in memory owned by its handles (tests, one process; the only
    /// constructor under `cfg(loom)`).
    ///
    /// # Panics
    ///
    /// Panics if a count is above its maximum.
    pub fn new_heap(params: &BarrierParams) -> Self {
        assert!(params.valid(), "invalid barrier table parameters");
        #[cfg(not(loom))]
        {
            let region = Arc::new(HeapRegion::zeroed_aligned(params.memory_size(), HOT_LINE));
            let (base, len) = (region.base(), region.len());
            // SAFETY: the region is valid for `len` bytes, 128-aligned, used
            // by nothing else, and kept alive by the handles through `owner`.
            unsafe { Self::init_in_owned(base, len, params, region) }
                .expect("heap region fits its own parameters")
        }
        #[cfg(loom)]
        {
            Self {
                shared: Arc::new(Shared {
                    storage: Storage {
                        barriers: (0..params.barriers).map(|_| RawBarrier::new()).collect(),
                        peers: (0..params.peers).map(|_| RawPeer::new()).collect(),
                    },
                    geom: *params,
                }),
            }
        }
    }

    /// Barrier cell `i`, or `None` if `i ≥ barrier_count()`.
    pub fn barrier(&self, i: u32) -> Option<Barrier<'_>> {
        (i < self.shared.geom.barriers).then(|| Barrier {
            cell: self.shared.barrier(i),
            index: i,
        })
    }

    /// Peer cell `i`, or `None` if `i ≥ peer_count()`.
    pub fn peer(&self, i: u32) -> Option<PeerCell<'_>> {
        (i < self.shared.geom.peers).then(|| PeerCell {
            cell: self.shared.peer(i),
            index: i,
        })
    }

    /// Number of barrier cells.
    pub fn barrier_count(&self) -> u32 {
        self.shared.geom.barriers
    }

    /// Number of peer cells.
    pub fn peer_count(&self) -> u32 {
        self.shared.geom.peers
    }
}

// ---------------------------------------------------------------------------
// Barriers.

/// What [`Barrier::arrive`] recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arrival {
    /// The generation (barrier episode, from 1) this arrival belongs to:
    /// the one to [`wait`](Barrier::wait) for.
    pub generation: u64,
    /// Whether this arrival completed its generation (the last party).
    pub last: bool,
}

/// One counting barrier of a [`BarrierTable`] (see the module docs for the
/// protocol).
#[derive(Clone, Copy)]
pub struct Barrier<'a> {
    cell: &'a RawBarrier,
    index: u32,
}

impl fmt::Debug for Barrier<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // ORDERING: Relaxed — a diagnostic snapshot.
        let c = self.cell;
        f.debug_struct("Barrier")
            .field("index", &self.index)
            .field("parties", &c.parties.load(Ordering::Relaxed))
            .field("arrived", &c.arrived.load(Ordering::Relaxed))
            .field("released", &c.released.load(Ordering::Relaxed))
            .field("status", &c.status.load(Ordering::Relaxed))
            .finish()
    }
}

impl Barrier<'_> {
    /// The cell's index in its table.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Owner only, while nobody uses the cell (no arrival, wait or release
    /// in flight, and none until the parties learn of the reset through
    /// the user's own channel): sets `parties` and zeroes `arrived`,
    /// `released` and `status`. The futex word is left as it is, so it
    /// never repeats a value a stale sleeper could be waiting on.
    pub fn reset(&self, parties: u32) {
        let c = self.cell;
        // ORDERING: Relaxed — the cell is unused (caller contract); these
        // reach the parties through the Release store of `parties` below.
        c.arrived.store(0, Ordering::Relaxed);
        c.released.store(0, Ordering::Relaxed);
        c.status.store(0, Ordering::Relaxed);
        // ORDERING: Release — pairs with the Acquire load in `parties`
        // (every `arrive`): an arriver that sees the new count sees the
        // zeroed counters.
        c.parties.store(parties, Ordering::Release);
    }

    /// Arrivals per generation, as last [`reset`](Self::reset) (0 on a
    /// cell never reset; [`arrive`](Self::arrive) treats 0 as 1).
    pub fn parties(&self) -> u32 {
        // ORDERING: Acquire — pairs with the Release store in `reset`.
        self.cell.parties.load(Ordering::Acquire)
    }

    /// Arrivals since the last reset.
    pub fn arrived(&self) -> u64 {
        // ORDERING: Acquire — pairs with the AcqRel `fetch_add` of each
        // arrival: a caller that sees `n` arrivals sees what those arrivers
        // wrote before arriving (so it may then `release` on their behalf).
        self.cell.arrived.load(Ordering::Acquire)
    }

    /// The highest released generation (0: none).
    pub fn released(&self) -> u64 {
        // ORDERING: Acquire — pairs with the Release `fetch_max` in
        // `release`.
        self.cell.released.load(Ordering::Acquire)
    }

    /// Records one arrival and returns its generation (the `k`-th episode:
    /// `arrivals_before / parties + 1`) and whether it completed it. With
    /// `auto_release`, the arrival that completes generation `k` releases
    /// it at once (waking sleepers); otherwise someone must call
    /// [`release`](Self::release)`(k)`.
    ///
    /// The caller's writes before `arrive` are visible to every waiter that
    /// returns from [`wait`](Self::wait) for this generation, provided the
    /// releaser is the last arriver or has seen all arrivals (e.g. through
    /// [`arrived`](Self::arrived)).
    pub fn arrive(&self, auto_release: bool) -> Arrival {
        let parties = u64::from(self.parties().max(1));
        // ORDERING: AcqRel — Release: this arriver's earlier writes head a
        // release sequence that later arrivals' RMWs continue; Acquire: the
        // arrival that completes a generation thereby sees every earlier
        // arriver's writes, and its Release `fetch_max` in `release` passes
        // them on to the waiters.
        let before = self.cell.arrived.fetch_add(1, Ordering::AcqRel);
        let generation = (before / parties).saturating_add(1);
        let last = before % parties == parties - 1;
        if last && auto_release {
            self.release(generation);
        }
        Arrival { generation, last }
    }

    /// Releases every generation up to `generation` (`released` only grows:
    /// a lower or equal value changes nothing) and wakes sleepers. The
    /// system call is made only when a waiter announced itself.
    pub fn release(&self, generation: u64) {
        // ORDERING: Release — pairs with the Acquire loads of `released` in
        // `wait`/`is_released`: what this releaser saw (the arrivals,
        // acquired through `arrive` or `arrived`) is visible to a waiter
        // that sees the generation. Later `fetch_max`es continue the
        // release sequence.
        let before = self.cell.released.fetch_max(generation, Ordering::Release);
        if before < generation {
            self.notify();
        }
    }

    /// Whether `generation` has been released (0 always has).
    pub fn is_released(&self, generation: u64) -> bool {
        self.released() >= generation
    }

    /// Poisons the barrier with `status` (non-zero) if it is healthy: the
    /// first poison wins and stays until the owner's
    /// [`clear_poison`](Self::clear_poison). Every waiter wakes and returns
    /// [`BarrierWaitError::Poisoned`]. Returns whether this call poisoned
    /// it (`false` for status 0 or an already poisoned barrier).
    pub fn poison(&self, status: i32) -> bool {
        if status == 0 {
            return false;
        }
        // ORDERING: Release on success — pairs with the Acquire loads of
        // `status` in `wait`: what the poisoner wrote before is visible to
        // a waiter that reports the poison. Relaxed on failure: another
        // poisoner won and notified; nothing is read.
        let won = self
            .cell
            .status
            .compare_exchange(0, status, Ordering::Release, Ordering::Relaxed)
            .is_ok();
        if won {
            self.notify();
        }
        won
    }

    /// The poison status (0: healthy).
    pub fn status(&self) -> i32 {
        // ORDERING: Acquire — pairs with the Release CAS in `poison`.
        self.cell.status.load(Ordering::Acquire)
    }

    /// Owner only: makes a poisoned barrier healthy again (typically just
    /// before a [`reset`](Self::reset), while nobody uses the cell).
    pub fn clear_poison(&self) {
        // ORDERING: Release — the owner's preceding writes (a reset) are
        // visible to a waiter that sees the cleared status.
        self.cell.status.store(0, Ordering::Release);
    }

    /// Waits until `generation` is released: checks, spins for up to
    /// `spin` re-checking, then sleeps on the futex in announce / re-check
    /// / sleep rounds until `deadline` (`None`: no limit).
    ///
    /// Under `cfg(loom)` it never spins and the deadline is only checked
    /// between rounds (an emulated futex wait never times out).
    ///
    /// # Errors
    ///
    /// [`BarrierWaitError::Poisoned`] as soon as the status is non-zero
    /// (even if the generation was released), [`BarrierWaitError::Timeout`]
    /// once the deadline has passed.
    pub fn wait(
        &self,
        generation: u64,
        spin: Duration,
        deadline: Option<Instant>,
    ) -> Result<(), BarrierWaitError> {
        if let Some(done) = self.check(generation) {
            return done;
        }
        #[cfg(not(loom))]
        if !spin.is_zero() {
            let end = Instant::now().checked_add(spin);
            loop {
                for _ in 0..16 {
                    spin_loop();
                }
                if let Some(done) = self.check(generation) {
                    return done;
                }
                let now = Instant::now();
                if end.is_some_and(|e| now >= e) || deadline.is_some_and(|d| now >= d) {
                    break;
                }
            }
        }
        #[cfg(loom)]
        let _ = spin;
        let c = self.cell;
        loop {
            // ORDERING: Acquire — pairs with the Release bump in `notify`:
            // if this already reads a bump, the check below sees what was
            // published before it. Read before the check, so any later
            // release changes the word we sleep on.
            let seen = c.seq.load(Ordering::Acquire);
            // ORDERING: Relaxed — ordered by the fence below.
            c.waiters.fetch_add(1, Ordering::Relaxed);
            // ORDERING: SeqCst fence — pairs with the SeqCst fence in
            // `notify`: either the notifier's load of `waiters` sees our
            // announcement, or our check below sees what it published.
            fence(Ordering::SeqCst);
            if let Some(done) = self.check(generation) {
                // ORDERING: Relaxed — withdrawing only saves a notifier a
                // needless system call.
                c.waiters.fetch_sub(1, Ordering::Relaxed);
                return done;
            }
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        // ORDERING: Relaxed — as above.
                        c.waiters.fetch_sub(1, Ordering::Relaxed);
                        return Err(BarrierWaitError::Timeout);
                    }
                    Some(d - now)
                }
            };
            c.seq.wait(seen, timeout);
            // ORDERING: Relaxed — as above.
            c.waiters.fetch_sub(1, Ordering::Relaxed);
            if let Some(done) = self.check(generation) {
                return done;
            }
        }
    }

    /// `Some` when a wait for `generation` is over: poisoned, or released.
    fn check(&self, generation: u64) -> Option<Result<(), BarrierWaitError>> {
        let status = self.status();
        if status != 0 {
            return Some(Err(BarrierWaitError::Poisoned(status)));
        }
        self.is_released(generation).then_some(Ok(()))
    }

    /// After a release or poison was published: bump `seq`, and wake the
    /// sleepers if any announced themselves.
    fn notify(&self) {
        let c = self.cell;
        // ORDERING: Release — pairs with the Acquire load of `seq` in
        // `wait`: a waiter that reads the bumped value also sees the
        // release or poison published before it.
        c.seq.fetch_add(1, Ordering::Release);
        // ORDERING: SeqCst fence — pairs with the SeqCst fence in `wait`
        // (see there and the module docs).
        fence(Ordering::SeqCst);
        // ORDERING: Relaxed — ordered by the fence above.
        if c.waiters.load(Ordering::Relaxed) != 0 {
            c.seq.wake(u32::MAX);
        }
    }
}

// ---------------------------------------------------------------------------
// Peer cells.

/// One peer-state cell of a [`BarrierTable`]: a user-defined state word
/// ([`PEER_FREE`] = 0 means free), a process id, and an epoch bumped on
/// every state change so a watcher can tell that something changed even
/// if the state came back to the same value.
#[derive(Clone, Copy)]
pub struct PeerCell<'a> {
    cell: &'a RawPeer,
    index: u32,
}

impl fmt::Debug for PeerCell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PeerCell")
            .field("index", &self.index)
            .field("state", &self.state())
            .field("pid", &self.pid())
            .field("epoch", &self.epoch())
            .finish()
    }
}

impl PeerCell<'_> {
    /// The cell's index in its table.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The current state ([`PEER_FREE`] = free).
    pub fn state(&self) -> u32 {
        // ORDERING: Acquire — pairs with the Release stores in `set_state`
        // and `compare_set_state`: what the setter wrote before is visible.
        self.cell.state.load(Ordering::Acquire)
    }

    /// Sets the state and bumps the epoch; returns the new epoch.
    pub fn set_state(&self, state: u32) -> u64 {
        // ORDERING: Release — pairs with the Acquire load in `state`.
        self.cell.state.store(state, Ordering::Release);
        self.bump_epoch()
    }

    /// Sets the state to `new` only if it is `current` (e.g. claiming a
    /// free cell: `compare_set_state(PEER_FREE, busy)`), bumping the epoch.
    ///
    /// # Errors
    ///
    /// The state found, when it was not `current`; nothing changed.
    pub fn compare_set_state(&self, current: u32, new: u32) -> Result<u64, u32> {
        // ORDERING: AcqRel on success — Release as in `set_state`; Acquire
        // so the winner sees what the previous setter wrote. Acquire on
        // failure: the returned state is read like `state()`.
        self.cell
            .state
            .compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire)?;
        Ok(self.bump_epoch())
    }

    fn bump_epoch(&self) -> u64 {
        // ORDERING: Release — pairs with the Acquire load in `epoch`: a
        // watcher that sees the new epoch sees the state stored before it
        // (or a later one).
        self.cell
            .epoch
            .fetch_add(1, Ordering::Release)
            .wrapping_add(1)
    }

    /// The number of state changes so far (wraps at 2^64).
    pub fn epoch(&self) -> u64 {
        // ORDERING: Acquire — pairs with the Release bump in `bump_epoch`.
        self.cell.epoch.load(Ordering::Acquire)
    }

    /// The recorded process id (0 = none).
    pub fn pid(&self) -> u32 {
        // ORDERING: Acquire — pairs with the Release store in `set_pid`.
        self.cell.pid.load(Ordering::Acquire)
    }

    /// Records a process id (does not change the epoch).
    pub fn set_pid(&self, pid: u32) {
        // ORDERING: Release — pairs with the Acquire load in `pid`.
        self.cell.pid.store(pid, Ordering::Release);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    fn table(barriers: u32, peers: u32) -> BarrierTable {
        BarrierTable::new_heap(&BarrierParams { barriers, peers })
    }

    // The numbers below are the tables of docs/SHM-LAYOUT.md.
    #[test]
    fn structures_match_the_documented_layout() {
        assert_eq!(size_of::<TableHeader>(), BARRIER_HEADER_SIZE);
        assert_eq!(align_of::<TableHeader>(), 128);
        assert_eq!(offset_of!(TableHeader, magic), 0);
        assert_eq!(offset_of!(TableHeader, layout_version), 8);
        assert_eq!(offset_of!(TableHeader, barrier_count), 12);
        assert_eq!(offset_of!(TableHeader, peer_count), 16);
        assert_eq!(offset_of!(TableHeader, barriers_offset), 20);
        assert_eq!(offset_of!(TableHeader, peers_offset), 24);
        assert_eq!(offset_of!(TableHeader, ready), 64);
        assert_eq!(size_of::<RawBarrier>(), BARRIER_CELL_SIZE);
        assert_eq!(BARRIER_CELL_SIZE, crate::layout::HOT_LINE);
        assert_eq!(offset_of!(RawBarrier, parties), 0);
        assert_eq!(offset_of!(RawBarrier, status), 4);
        assert_eq!(offset_of!(RawBarrier, arrived), 8);
        assert_eq!(offset_of!(RawBarrier, released), 16);
        assert_eq!(offset_of!(RawBarrier, seq), 24);
        assert_eq!(offset_of!(RawBarrier, waiters), 28);
        assert_eq!(size_of::<RawPeer>(), PEER_CELL_SIZE);
        assert_eq!(offset_of!(RawPeer, state), 0);
        assert_eq!(offset_of!(RawPeer, pid), 4);
        assert_eq!(offset_of!(RawPeer, epoch), 8);
        assert_eq!(BARRIER_MAGIC, 0x5252_4142_5849_4D50);
    }

    #[test]
    fn handles_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<BarrierTable>();
        send_sync::<Barrier<'static>>();
        send_sync::<PeerCell<'static>>();
    }

    #[test]
    fn generations_count_episodes_of_parties() {
        let t = table(1, 0);
        let b = t.barrier(0).unwrap();
        b.reset(3);
        let got: Vec<Arrival> = (0..7).map(|_| b.arrive(false)).collect();
        let gens: Vec<u64> = got.iter().map(|a| a.generation).collect();
        let lasts: Vec<bool> = got.iter().map(|a| a.last).collect();
        assert_eq!(gens, [1, 1, 1, 2, 2, 2, 3]);
        assert_eq!(lasts, [false, false, true, false, false, true, false]);
        assert_eq!(b.arrived(), 7);
        assert!(!b.is_released(1), "no auto release");
        assert!(b.is_released(0));
    }

    #[test]
    fn auto_release_releases_the_completed_generation_only() {
        let t = table(2, 0);
        let b = t.barrier(1).unwrap();
        b.reset(2);
        assert_eq!(
            b.arrive(true),
            Arrival {
                generation: 1,
                last: false
            }
        );
        assert!(!b.is_released(1));
        assert!(b.arrive(true).last);
        assert!(b.is_released(1));
        assert!(!b.is_released(2));
        assert_eq!(b.wait(1, Duration::ZERO, None), Ok(()));
    }

    #[test]
    fn release_is_monotonic() {
        let t = table(1, 0);
        let b = t.barrier(0).unwrap();
        b.release(5);
        b.release(3);
        assert_eq!(b.released(), 5);
        assert!(b.is_released(4));
        assert!(!b.is_released(6));
    }

    #[test]
    fn zero_parties_behave_as_one() {
        let t = table(1, 0);
        let b = t.barrier(0).unwrap();
        assert_eq!(b.parties(), 0);
        assert_eq!(
            b.arrive(true),
            Arrival {
                generation: 1,
                last: true
            }
        );
        assert_eq!(b.arrive(true).generation, 2);
        assert!(b.is_released(2));
    }

    #[test]
    fn garbage_counters_never_panic() {
        let t = table(1, 0);
        let b = t.barrier(0).unwrap();
        b.cell.arrived.store(u64::MAX, Ordering::Relaxed);
        b.cell.parties.store(1, Ordering::Relaxed);
        let a = b.arrive(true);
        assert_eq!(a.generation, u64::MAX);
        assert!(a.last);
    }

    #[test]
    fn first_poison_wins_and_clears() {
        let t = table(1, 0);
        let b = t.barrier(0).unwrap();
        b.reset(2);
        assert!(!b.poison(0));
        assert!(b.poison(-24));
        assert!(!b.poison(-25));
        assert_eq!(b.status(), -24);
        b.release(1);
        assert_eq!(
            b.wait(1, Duration::ZERO, None),
            Err(BarrierWaitError::Poisoned(-24)),
            "poison wins even over a release"
        );
        b.clear_poison();
        assert_eq!(b.wait(1, Duration::ZERO, None), Ok(()));
        b.reset(2);
        assert_eq!((b.arrived(), b.released(), b.status()), (0, 0, 0));
    }

    #[test]
    fn wait_times_out() {
        let t = table(1, 0);
        let b = t.barrier(0).unwrap();
        b.reset(2);
        let start = Instant::now();
        let deadline = start + Duration::from_millis(15);
        assert_eq!(
            b.wait(1, Duration::from_micros(50), Some(deadline)),
            Err(BarrierWaitError::Timeout)
        );
        assert!(Instant::now() >= deadline);
        assert_eq!(b.cell.waiters.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn out_of_range_cells_are_none() {
        let t = table(2, 3);
        assert!(t.barrier(2).is_none());
        assert!(t.peer(3).is_none());
        assert_eq!((t.barrier_count(), t.peer_count()), (2, 3));
        assert_eq!(t.peer(2).unwrap().index(), 2);
    }

    #[test]
    fn peer_cells_bump_their_epoch_on_every_change() {
        let t = table(0, 2);
        let p = t.peer(1).unwrap();
        assert_eq!((p.state(), p.pid(), p.epoch()), (PEER_FREE, 0, 0));
        assert_eq!(p.compare_set_state(PEER_FREE, 7), Ok(1));
        assert_eq!(p.compare_set_state(PEER_FREE, 8), Err(7));
        p.set_pid(4242);
        assert_eq!(p.set_state(7), 2, "same value, still a change");
        assert_eq!((p.state(), p.pid(), p.epoch()), (7, 4242, 2));
        assert_eq!(t.peer(0).unwrap().epoch(), 0);
    }

    fn heap_table(params: &BarrierParams) -> (Arc<HeapRegion>, BarrierTable) {
        let region = Arc::new(HeapRegion::zeroed_aligned(
            BarrierTable::memory_size(params),
            HOT_LINE,
        ));
        // SAFETY: the region is valid for its length, 128-aligned, and kept
        // alive by the owner handle.
        let t = unsafe {
            BarrierTable::init_in_owned(region.base(), region.len(), params, region.clone())
        }
        .unwrap();
        (region, t)
    }

    fn attach(region: &Arc<HeapRegion>, len: usize) -> Result<BarrierTable, BarrierAttachError> {
        // SAFETY: as in `heap_table`; `len` is at most the region's length.
        unsafe { BarrierTable::attach_owned(region.base(), len, region.clone()) }
    }

    #[test]
    fn attach_sees_the_same_cells() {
        let params = BarrierParams {
            barriers: 3,
            peers: 5,
        };
        let (region, t) = heap_table(&params);
        let a = attach(&region, region.len()).unwrap();
        assert_eq!((a.barrier_count(), a.peer_count()), (3, 5));
        t.barrier(2).unwrap().reset(4);
        t.peer(4).unwrap().set_state(9);
        assert_eq!(a.barrier(2).unwrap().parties(), 4);
        assert_eq!(a.peer(4).unwrap().state(), 9);
    }

    #[test]
    fn attach_validates_the_header() {
        let params = BarrierParams {
            barriers: 2,
            peers: 2,
        };
        let (region, t) = heap_table(&params);
        let h = t.shared.header();
        let needed = BarrierTable::memory_size(&params);
        assert_eq!(
            attach(&region, needed - 1).unwrap_err(),
            BarrierAttachError::RegionTooSmall {
                needed,
                len: needed - 1
            }
        );
        assert!(matches!(
            attach(&region, 64).unwrap_err(),
            BarrierAttachError::RegionTooSmall { .. }
        ));
        let restore = |t: &TableHeader| {
            t.magic.store(BARRIER_MAGIC, Ordering::Relaxed);
            t.layout_version
                .store(BARRIER_LAYOUT_VERSION, Ordering::Relaxed);
            t.barrier_count.store(2, Ordering::Relaxed);
            t.peer_count.store(2, Ordering::Relaxed);
            t.barriers_offset.store(128, Ordering::Relaxed);
            t.peers_offset.store(128 + 256, Ordering::Relaxed);
            t.ready.store(BARRIER_READY, Ordering::Relaxed);
        };
        type Case<'a> = (&'a dyn Fn(&TableHeader), BarrierAttachError);
        let cases: [Case<'_>; 8] = [
            (
                &|t| t.magic.store(0, Ordering::Relaxed),
                BarrierAttachError::NotReady,
            ),
            (
                &|t| t.ready.store(0, Ordering::Relaxed),
                BarrierAttachError::NotReady,
            ),
            (
                &|t| t.magic.store(7, Ordering::Relaxed),
                BarrierAttachError::BadMagic { found: 7 },
            ),
            (
                &|t| t.layout_version.store(9, Ordering::Relaxed),
                BarrierAttachError::VersionMismatch { found: 9 },
            ),
            (
                &|t| t.barrier_count.store(MAX_BARRIERS + 1, Ordering::Relaxed),
                BarrierAttachError::BadGeometry,
            ),
            (
                &|t| t.peers_offset.store(0, Ordering::Relaxed),
                BarrierAttachError::BadGeometry,
            ),
            (
                &|t| t.barriers_offset.store(64, Ordering::Relaxed),
                BarrierAttachError::BadGeometry,
            ),
            (
                &|t| {
                    t.peer_count.store(3, Ordering::Relaxed);
                },
                BarrierAttachError::RegionTooSmall {
                    needed: 128 + 256 + 3 * 64,
                    len: 128 + 256 + 2 * 64,
                },
            ),
        ];
        for (i, (corrupt, want)) in cases.iter().enumerate() {
            restore(h);
            corrupt(h);
            assert_eq!(attach(&region, needed).unwrap_err(), *want, "case {i}");
        }
        restore(h);
        assert!(attach(&region, needed).is_ok());
    }

    #[test]
    fn init_validates_its_arguments() {
        let region = Arc::new(HeapRegion::zeroed_aligned(4096, HOT_LINE));
        let base = region.base();
        let init = |p: BarrierParams, off: usize, len: usize| {
            // SAFETY: `base + off` lies in the region and `len` fits after it.
            unsafe {
                BarrierTable::init_in_owned(
                    NonNull::new_unchecked(base.as_ptr().add(off)),
                    len,
                    &p,
                    region.clone(),
                )
            }
        };
        let ok = BarrierParams {
            barriers: 4,
            peers: 4,
        };
        assert_eq!(
            init(
                BarrierParams {
                    barriers: MAX_BARRIERS + 1,
                    peers: 0
                },
                0,
                4096
            )
            .unwrap_err(),
            BarrierInitError::InvalidParams {
                barriers: MAX_BARRIERS + 1,
                peers: 0
            }
        );
        assert!(matches!(
            init(ok, 64, 1024).unwrap_err(),
            BarrierInitError::Misaligned { .. }
        ));
        assert_eq!(
            init(ok, 0, 100).unwrap_err(),
            BarrierInitError::RegionTooSmall {
                needed: 128 + 512 + 256,
                len: 100
            }
        );
        assert!(init(ok, 0, 4096).is_ok());
    }

    #[test]
    fn errors_map_to_statuses() {
        use pmix_core::{Error, Status};
        assert_eq!(
            Error::from(BarrierWaitError::Timeout).status(),
            Status::ERR_TIMEOUT
        );
        assert_eq!(
            Error::from(BarrierWaitError::Poisoned(-25)).status(),
            Status(-25)
        );
        assert_eq!(
            Error::from(BarrierWaitError::Poisoned(3)).status(),
            Status::ERROR
        );
        assert_eq!(
            Error::from(BarrierAttachError::VersionMismatch { found: 2 }).status(),
            Status::ERR_NOT_SUPPORTED
        );
        assert_eq!(
            Error::from(BarrierAttachError::NotReady).status(),
            Status::ERR_INIT
        );
        assert_eq!(
            Error::from(BarrierInitError::InvalidParams {
                barriers: 0,
                peers: u32::MAX
            })
            .status(),
            Status::ERR_BAD_PARAM
        );
        assert!(BarrierWaitError::Poisoned(-25)
            .to_string()
            .contains("status -25"));
    }
}
