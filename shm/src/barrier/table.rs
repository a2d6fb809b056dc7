//! The table: its header, geometry and storage (a shared region, or boxes
//! of loom atomics), with the constructors that validate a region.

use std::fmt;
use std::sync::Arc;

#[cfg(not(loom))]
use std::ptr::NonNull;

use super::cell::RawBarrier;
use super::peer::RawPeer;
use super::{
    Barrier, PeerCell, BARRIER_CELL_SIZE, BARRIER_HEADER_SIZE, MAX_BARRIERS, MAX_PEERS,
    PEER_CELL_SIZE,
};
#[cfg(not(loom))]
use super::{
    BarrierAttachError, BarrierInitError, BARRIER_LAYOUT_VERSION, BARRIER_MAGIC, BARRIER_READY,
};
#[cfg(not(loom))]
use crate::heap::{HeapRegion, KeepAlive};
#[cfg(not(loom))]
use crate::layout::HOT_LINE;
#[cfg(not(loom))]
use crate::sync::{AtomicU32, AtomicU64, Ordering};

/// The table header at offset 0 ([`BARRIER_HEADER_SIZE`] bytes).
#[cfg(not(loom))]
#[repr(C, align(128))]
#[derive(bytemuck::Zeroable)]
pub(super) struct TableHeader {
    /// [`BARRIER_MAGIC`].
    pub(super) magic: AtomicU64,
    /// [`BARRIER_LAYOUT_VERSION`].
    pub(super) layout_version: AtomicU32,
    /// Number of barrier cells.
    pub(super) barrier_count: AtomicU32,
    /// Number of peer cells.
    pub(super) peer_count: AtomicU32,
    /// Offset of barrier cell 0 (= [`BARRIER_HEADER_SIZE`]).
    pub(super) barriers_offset: AtomicU32,
    /// Offset of peer cell 0 (right after the last barrier cell).
    pub(super) peers_offset: AtomicU32,
    pub(super) _reserved0: [u32; 9],
    /// 0 = not initialised; [`BARRIER_READY`], stored last with `Release`.
    pub(super) ready: AtomicU32,
    pub(super) _reserved1: [u32; 15],
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
pub(super) struct Storage {
    base: NonNull<u8>,
    _owner: KeepAlive,
}

#[cfg(loom)]
pub(super) struct Storage {
    barriers: Box<[RawBarrier]>,
    peers: Box<[RawPeer]>,
}

pub(super) struct Shared {
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
    pub(super) fn header(&self) -> &TableHeader {
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

    /// Writes the initial image: header fields, every cell's initial
    /// image, `ready` last.
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
            self.barrier(i).write_initial();
        }
        for i in 0..g.peers {
            self.peer(i).write_initial();
        }
        // ORDERING: Release — pairs with the Acquire load of `ready` in
        // `BarrierTable::attach_owned`: everything above is visible to an
        // attacher that sees it.
        h.ready.store(BARRIER_READY, Ordering::Release);
    }
}

// ---------------------------------------------------------------------------
// The table.

/// A table of counting barriers and peer-state cells (see the
/// [module docs](super)). Cloning shares the table; the handle keeps the
/// memory behind it alive.
#[derive(Clone)]
pub struct BarrierTable {
    pub(super) shared: Arc<Shared>,
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
        (i < self.shared.geom.barriers).then(|| Barrier::new(self.shared.barrier(i), i))
    }

    /// Peer cell `i`, or `None` if `i ≥ peer_count()`.
    pub fn peer(&self, i: u32) -> Option<PeerCell<'_>> {
        (i < self.shared.geom.peers).then(|| PeerCell::new(self.shared.peer(i), i))
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
