//! Building a ring: writing a fresh one into memory, attaching to one
//! another process wrote, or allocating one on the heap.

#[cfg(not(loom))]
use std::any::Any;
#[cfg(not(loom))]
use std::ptr::NonNull;
use std::sync::Arc;

#[cfg(not(loom))]
use crate::error::{AttachError, RingInitError};
use crate::layout::{RingHeader, SlotState, CELL_SIZE, RING_HEADER_SIZE};
#[cfg(not(loom))]
use crate::layout::{LAYOUT_VERSION, RING_MAGIC};
use crate::sync::AtomicU64;
#[cfg(not(loom))]
use crate::sync::Ordering;

#[cfg(loom)]
use super::inner::LoomCell;
use super::inner::RingInner;
use super::{Ring, RingParams};
#[cfg(not(loom))]
use crate::heap::HeapRegion;

impl Ring {
    /// Bytes a ring with `params` takes in memory (a multiple of 128).
    pub fn memory_size(params: RingParams) -> usize {
        RING_HEADER_SIZE + params.cells() * CELL_SIZE
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
        let cells = params.cells();
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
        let cells = params.cells();
        #[cfg(not(loom))]
        {
            let size = Self::memory_size(params);
            let mem = HeapRegion::zeroed_aligned(size, crate::layout::HOT_LINE);
            let ptr = mem.base();
            let owner: Arc<dyn Any + Send + Sync> = Arc::new(mem);
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
}

#[cfg(not(loom))]
enum MemCheck {
    Ok,
    TooSmall { needed: usize },
    Misaligned { addr: usize },
}
