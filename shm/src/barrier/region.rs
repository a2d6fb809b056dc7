//! The barrier table as a [`Region`]: its header, geometry, initial image
//! and header checks (`docs/SHM-LAYOUT.md`, "Barrier table region").

use std::sync::Arc;

use super::cell::RawBarrier;
use super::peer::RawPeer;
use super::table::{BarrierParams, BarrierTable, Shared};
use super::{
    BARRIER_HEADER_SIZE, BARRIER_LAYOUT_VERSION, BARRIER_MAGIC, BARRIER_READY, PEER_CELL_SIZE,
};
use crate::error::{InitError, OpenError};
use crate::layout::HOT_LINE;
use crate::region::header::impl_header;
use crate::region::{Attach, Memory, Plain, Region};
use crate::sync::{AtomicU32, AtomicU64, Ordering};

/// The table header at offset 0 ([`BARRIER_HEADER_SIZE`] bytes).
#[repr(C, align(128))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub struct TableHeader {
    /// [`BARRIER_MAGIC`]; the publication word (stored last).
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
    /// [`BARRIER_READY`] once initialised (written with the image, before
    /// the magic).
    pub(super) ready: AtomicU32,
    pub(super) _reserved1: [u32; 15],
}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<TableHeader>() == BARRIER_HEADER_SIZE);
    assert!(align_of::<TableHeader>() == HOT_LINE);
    assert!(offset_of!(TableHeader, magic) == 0);
    assert!(offset_of!(TableHeader, layout_version) == 8);
    assert!(offset_of!(TableHeader, barrier_count) == 12);
    assert!(offset_of!(TableHeader, peer_count) == 16);
    assert!(offset_of!(TableHeader, barriers_offset) == 20);
    assert!(offset_of!(TableHeader, peers_offset) == 24);
    assert!(offset_of!(TableHeader, ready) == 64);
};

// SAFETY: `repr(C)`, atomics and never-read padding; zero is a valid value
// of each.
unsafe impl Plain for TableHeader {
    #[cfg(loom)]
    fn zeroed() -> Self {
        TableHeader {
            magic: AtomicU64::new(0),
            layout_version: AtomicU32::new(0),
            barrier_count: AtomicU32::new(0),
            peer_count: AtomicU32::new(0),
            barriers_offset: AtomicU32::new(0),
            peers_offset: AtomicU32::new(0),
            _reserved0: [0; 9],
            ready: AtomicU32::new(0),
            _reserved1: [0; 15],
        }
    }
}

impl_header!(TableHeader, magic: AtomicU64, layout_version);

impl Region for BarrierTable {
    const NAME: &'static str = "barrier table";
    const MAGIC: u64 = BARRIER_MAGIC;
    const VERSION: u32 = BARRIER_LAYOUT_VERSION;
    const ALIGN: usize = HOT_LINE;
    const HEADER_SIZE: usize = BARRIER_HEADER_SIZE;
    type Params = BarrierParams;
    /// The counts are the geometry.
    type Geometry = BarrierParams;
    type Header = TableHeader;

    fn geometry(params: &BarrierParams) -> Result<BarrierParams, InitError> {
        if params.is_valid() {
            Ok(*params)
        } else {
            Err(InitError::InvalidParams {
                reason: "more than 65536 barrier cells or 65536 peer cells",
            })
        }
    }

    /// `128 + 128 · barriers + 64 · peers` (a multiple of 64).
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::barrier::{BarrierParams, BarrierTable};
    /// use pmix_shm::region::Region;
    /// let p = BarrierParams { barriers: 2, peers: 3 };
    /// assert_eq!(BarrierTable::memory_size(&p), 128 + 2 * 128 + 3 * 64);
    /// ```
    fn size(geom: &BarrierParams) -> usize {
        geom.peers_offset() + geom.peers as usize * PEER_CELL_SIZE
    }

    fn write_image(mem: &Memory, geom: &BarrierParams) {
        let part = mem.header::<TableHeader>();
        let h = &part[0];
        // ORDERING: Relaxed (every store) — published by the Release store
        // of the magic in `region::init_in`.
        h.barrier_count.store(geom.barriers, Ordering::Relaxed);
        h.peer_count.store(geom.peers, Ordering::Relaxed);
        h.barriers_offset
            .store(BARRIER_HEADER_SIZE as u32, Ordering::Relaxed);
        h.peers_offset
            .store(geom.peers_offset() as u32, Ordering::Relaxed);
        h.ready.store(BARRIER_READY, Ordering::Relaxed);
        barriers(mem, geom)
            .iter()
            .for_each(RawBarrier::write_initial);
        peers(mem, geom).iter().for_each(RawPeer::write_initial);
    }

    /// Both counts ≤ 2^16, both offsets equal to the values they imply,
    /// `ready` set.
    fn read_geometry(h: &TableHeader) -> Result<BarrierParams, OpenError> {
        // ORDERING: Relaxed (header loads) — after the Acquire of the magic.
        if h.ready.load(Ordering::Relaxed) != BARRIER_READY {
            return Err(OpenError::NotReady);
        }
        let geom = BarrierParams {
            barriers: h.barrier_count.load(Ordering::Relaxed),
            peers: h.peer_count.load(Ordering::Relaxed),
        };
        if !geom.is_valid() {
            return Err(OpenError::BadGeometry {
                reason: "more than 65536 barrier cells or 65536 peer cells",
            });
        }
        if h.barriers_offset.load(Ordering::Relaxed) as usize != BARRIER_HEADER_SIZE
            || h.peers_offset.load(Ordering::Relaxed) as usize != geom.peers_offset()
        {
            return Err(OpenError::BadGeometry {
                reason: "cell offsets do not match the counts",
            });
        }
        Ok(geom)
    }

    #[cfg(loom)]
    fn loom_parts(geom: &BarrierParams) -> Vec<Arc<dyn std::any::Any + Send + Sync>> {
        use crate::region::loom_part;
        vec![
            loom_part::<TableHeader>(1),
            loom_part::<RawBarrier>(geom.barriers as usize),
            loom_part::<RawPeer>(geom.peers as usize),
        ]
    }
}

/// The barrier cells (part 1).
fn barriers(mem: &Memory, geom: &BarrierParams) -> crate::region::Part<RawBarrier> {
    mem.part(1, BARRIER_HEADER_SIZE, geom.barriers as usize)
}

/// The peer cells (part 2).
fn peers(mem: &Memory, geom: &BarrierParams) -> crate::region::Part<RawPeer> {
    mem.part(2, geom.peers_offset(), geom.peers as usize)
}

impl Attach for BarrierTable {
    type Region = BarrierTable;

    fn from_memory(mem: Memory, geom: BarrierParams) -> Result<BarrierTable, OpenError> {
        Ok(BarrierTable {
            shared: Arc::new(Shared {
                barriers: barriers(&mem, &geom),
                peers: peers(&mem, &geom),
                geom,
            }),
        })
    }
}
