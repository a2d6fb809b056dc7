//! The ring as a [`Region`]: its geometry, initial image and header checks,
//! and the heap constructors.

use std::sync::Arc;

use crate::error::{InitError, OpenError};
use crate::layout::{SlotState, CELL_SIZE, HOT_LINE, LAYOUT_VERSION, RING_HEADER_SIZE, RING_MAGIC};
use crate::region::{self, Attach, Memory, Region};
use crate::sync::{AtomicU64, Ordering};

use super::header::{RingCell, RingHeader};
use super::inner::RingInner;
use super::{Ring, RingParams};

/// A ring's validated geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingGeometry {
    /// Number of cells (a power of two).
    pub cells: usize,
    /// Most cells one record may take.
    pub max_record_cells: usize,
}

impl Region for Ring {
    const NAME: &'static str = "MPSC ring";
    const MAGIC: u64 = RING_MAGIC as u64;
    const VERSION: u32 = LAYOUT_VERSION;
    const ALIGN: usize = HOT_LINE;
    const HEADER_SIZE: usize = RING_HEADER_SIZE;
    type Params = RingParams;
    type Geometry = RingGeometry;
    type Header = RingHeader;

    fn geometry(params: &RingParams) -> Result<RingGeometry, InitError> {
        Ok(RingGeometry {
            cells: params.cells(),
            max_record_cells: params.max_record_cells(),
        })
    }

    /// `640 + 64 · cells` (a multiple of 128).
    fn size(geom: &RingGeometry) -> usize {
        RING_HEADER_SIZE + geom.cells * CELL_SIZE
    }

    fn write_image(mem: &Memory, geom: &RingGeometry) {
        let part = mem.header::<RingHeader>();
        let hdr = &part[0];
        // ORDERING (every store): Relaxed — published by the Release store
        // of the magic in `region::init_in`.
        hdr.cells.store(geom.cells as u32, Ordering::Relaxed);
        hdr.max_record_cells
            .store(geom.max_record_cells as u32, Ordering::Relaxed);
        hdr.lost.store(0, Ordering::Relaxed);
        hdr.corrupt.store(0, Ordering::Relaxed);
        hdr.consumer_pid.store(0, Ordering::Relaxed);
        hdr.consumer_wake_bits.store(0, Ordering::Relaxed);
        hdr.tail.store(0, Ordering::Relaxed);
        hdr.head.store(0, Ordering::Relaxed);
        hdr.doorbell.reset();
        hdr.space.reset();
        for (pos, cell) in cells(mem, geom).iter().enumerate() {
            cell.state
                .store(SlotState::free(pos as u64), Ordering::Relaxed);
            cell.meta.store(0, Ordering::Relaxed);
        }
    }

    /// `cells` a power of two in range, `1 ≤ max_record_cells ≤
    /// min(cells / 2, 65535)`.
    fn read_geometry(hdr: &RingHeader) -> Result<RingGeometry, OpenError> {
        // ORDERING: Relaxed — after the Acquire load of the magic.
        let cells = hdr.cells.load(Ordering::Relaxed);
        let max_record_cells = hdr.max_record_cells.load(Ordering::Relaxed) as usize;
        let params = RingParams::new(cells as usize).map_err(|_| OpenError::BadGeometry {
            reason: "cell count is not a power of two in 4..=2^24",
        })?;
        if max_record_cells == 0 || max_record_cells > params.max_record_cells() {
            return Err(OpenError::BadGeometry {
                reason: "record limit not in 1..=min(cells/2, 65535)",
            });
        }
        Ok(RingGeometry {
            cells: params.cells(),
            max_record_cells,
        })
    }

    #[cfg(loom)]
    fn loom_parts(geom: &RingGeometry) -> Vec<Arc<dyn std::any::Any + Send + Sync>> {
        vec![
            region::loom_part::<RingHeader>(1),
            region::loom_part::<RingCell>(geom.cells),
        ]
    }
}

/// The cells of a ring of `geom` in `mem` (part 1).
fn cells(mem: &Memory, geom: &RingGeometry) -> crate::region::Part<RingCell> {
    mem.part(1, RING_HEADER_SIZE, geom.cells)
}

impl Attach for Ring {
    type Region = Ring;

    fn from_memory(mem: Memory, geom: RingGeometry) -> Result<Ring, OpenError> {
        let cap = geom.cells as u64;
        Ok(Ring {
            group: mem.wake_group().cloned(),
            inner: Arc::new(RingInner {
                header: mem.header(),
                cells: cells(&mem, &geom),
                cap,
                mask: cap - 1,
                log2: geom.cells.trailing_zeros(),
                max_record_cells: geom.max_record_cells,
                cached_head: crossbeam_utils::CachePadded::new(AtomicU64::new(0)),
            }),
        })
    }
}

impl Ring {
    /// A ring in its own heap memory (tests, benches, an in-process queue;
    /// under loom, the models' ring).
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
        // RingParams are valid by construction.
        let ring = match region::new_heap::<Ring>(&params) {
            Ok(ring) => ring,
            Err(e) => unreachable!("valid ring parameters refused: {e}"),
        };
        if start != 0 {
            let inner = &ring.inner;
            // ORDERING: Relaxed — nobody else has the ring yet.
            inner.hdr().tail.store(start, Ordering::Relaxed);
            inner.hdr().head.store(start, Ordering::Relaxed);
            inner.cached_head.store(start, Ordering::Relaxed);
            for pos in start..start + inner.cap {
                inner
                    .state(pos)
                    .store(SlotState::free(pos), Ordering::Relaxed);
            }
        }
        ring
    }
}
