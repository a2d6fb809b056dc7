//! Owned, aligned, zeroed memory: where [`Memory::heap`](super::Memory::heap)
//! puts a region outside a segment (tests, benches, single-process use).
//! Outside loom only: under `cfg(loom)` a region is built from loom objects.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// Smallest alignment of a heap region: one cache line.
const MIN_ALIGN: usize = 64;

/// A zeroed heap allocation, freed on drop.
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
    /// Allocates `len` zeroed bytes (at least `align`) aligned to `align`
    /// (a power of two; at least 64).
    ///
    /// # Panics
    ///
    /// Panics if `align` is not a power of two or `len` rounded up to it
    /// overflows `isize` (sizes come from this crate's own geometry, never
    /// from another process); aborts (through [`alloc::handle_alloc_error`])
    /// if the allocation fails.
    pub(crate) fn zeroed(len: usize, align: usize) -> Self {
        let align = align.max(MIN_ALIGN);
        let len = len.max(align);
        let layout = Layout::from_size_align(len, align).expect("region size overflows isize");
        // SAFETY: `layout` has a non-zero size (at least 64 bytes).
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
}

impl Drop for HeapRegion {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_zeroed(self.layout)` and is freed once.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
