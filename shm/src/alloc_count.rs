//! [`CountingAllocator`]: the system allocator with a count of every
//! allocation, for tests and benchmarks that prove a path allocates
//! nothing (issue 18). Install it in a test binary with
//! `#[global_allocator] static A: CountingAllocator = CountingAllocator;`
//! and read [`allocations`] before and after the path.

use crate::sync::{AtomicU64, Ordering};
use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, counting allocations (`alloc`, `alloc_zeroed`,
/// `realloc`); frees are not counted.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Allocations made by the whole process so far (through a
/// [`CountingAllocator`] installed as the global allocator).
pub fn allocations() -> u64 {
    // ORDERING: Relaxed — a counter; the caller orders the work it
    // measures by its own synchronisation (e.g. an Acquire on the flag the
    // measured thread sets when done).
    ALLOCATIONS.load(Ordering::Relaxed)
}

fn count() {
    // ORDERING: Relaxed — as in `allocations`.
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
}

// SAFETY: every method forwards to the system allocator with the caller's
// arguments unchanged; counting touches only an atomic, never the heap.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `alloc_zeroed` is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}
