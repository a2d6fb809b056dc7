//! Owned, aligned, zeroed memory for the `new_heap` constructors of the
//! MPSC ring, the broadcast ring and the job-data store (tests, benches and
//! single-process use), and the keep-alive type every handle holds.
//!
//! Under `cfg(loom)` the structures are built from loom atomics instead, so
//! this module only exists outside loom.

use std::alloc::{self, Layout};
use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

/// What keeps the memory behind a handle alive: the owner of the mapping (a
/// segment, or the heap memory of `new_heap`). Handles hold one and drop it
/// last.
pub type KeepAlive = Arc<dyn Any + Send + Sync>;

/// Alignment of every region: one cache line.
pub(crate) const REGION_ALIGN: usize = 64;

/// A zeroed heap allocation aligned to at least [`REGION_ALIGN`].
#[derive(Debug)]
pub(crate) struct HeapRegion {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the region is plain memory owned by this value; every access to it
// goes through atomics or through the single-writer protocols of the
// structures built in it, which are what make sharing across threads sound.
unsafe impl Send for HeapRegion {}
// SAFETY: as for `Send`: `&HeapRegion` only hands out the base pointer.
unsafe impl Sync for HeapRegion {}

impl HeapRegion {
    /// Allocates `len` zeroed bytes (at least one cache line) aligned to
    /// [`REGION_ALIGN`].
    ///
    /// # Panics
    ///
    /// As [`zeroed_aligned`](Self::zeroed_aligned).
    pub(crate) fn zeroed(len: usize) -> Self {
        Self::zeroed_aligned(len, REGION_ALIGN)
    }

    /// Allocates `len` zeroed bytes (at least `align`) aligned to `align`,
    /// a power of two of at least [`REGION_ALIGN`].
    ///
    /// # Panics
    ///
    /// Panics if `align` is not a power of two or `len` rounded up to it
    /// overflows `isize` (sizes come from this crate's own geometry, never
    /// from another process); aborts (through [`alloc::handle_alloc_error`])
    /// if the allocation fails.
    pub(crate) fn zeroed_aligned(len: usize, align: usize) -> Self {
        let align = align.max(REGION_ALIGN);
        let len = len.max(align);
        let layout = Layout::from_size_align(len, align).expect("region size overflows isize");
        // SAFETY: `layout` has a non-zero size (at least REGION_ALIGN bytes).
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        Self { ptr, layout }
    }

    /// The first byte of the region.
    pub(crate) fn base(&self) -> NonNull<u8> {
        self.ptr
    }

    /// The length of the region in bytes.
    pub(crate) fn len(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for HeapRegion {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_zeroed(self.layout)` and is freed once.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
