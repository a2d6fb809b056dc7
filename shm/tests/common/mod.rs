//! Helpers shared by the shm integration tests.

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::Arc;

use pmix_shm::sync::{AtomicU32, AtomicU64};

/// A 64-byte aligned, zeroed region standing in for a segment region.
pub struct Region {
    pub ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: plain memory; the tests only touch it through atomics and handles.
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Region {
    pub fn new(len: usize) -> Arc<Self> {
        let layout = Layout::from_size_align(len, 64).unwrap();
        // SAFETY: non-zero size.
        let ptr = NonNull::new(unsafe { alloc::alloc_zeroed(layout) }).unwrap();
        Arc::new(Self { ptr, layout })
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn u64_at(&self, offset: usize) -> &AtomicU64 {
        assert!(offset + 8 <= self.len() && offset % 8 == 0);
        // SAFETY: in bounds and aligned (checked above); zeroed memory is a
        // valid atomic, and all accesses to it are atomic.
        unsafe { &*self.ptr.as_ptr().add(offset).cast::<AtomicU64>() }
    }

    pub fn u32_at(&self, offset: usize) -> &AtomicU32 {
        assert!(offset + 4 <= self.len() && offset % 4 == 0);
        // SAFETY: as in `u64_at`.
        unsafe { &*self.ptr.as_ptr().add(offset).cast::<AtomicU32>() }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
