//! The shared segment: one memfd per server, mapped `MAP_SHARED` by the
//! server and by every client it passes the fd to.
//!
//! The server builds a [`SegmentLayout`] (one region per structure: the
//! job-data store, the barrier table, one modex store and one inbound ring
//! per client), calls [`Segment::create`], initialises each region with
//! [`Segment::init`], then [`Segment::publish`]es it: the header's `ready`
//! word is stored last, with `Release`. A client receives the fd over the
//! Unix socket (`SCM_RIGHTS`, see [`fdpass`](crate::fdpass)) and calls
//! [`Segment::open`], which checks everything itself — file size
//! (`fstat`), seals, magic, layout version, `ready`, and every directory
//! entry — and keeps its own copy of the directory, so later writes to the
//! header by a misbehaving process change nothing it relies on. It then
//! builds a handle on each structure with [`Segment::attach`], which
//! validates the region's own header (see [`region`](crate::region)).
//! Every handle keeps the mapping alive.
//!
//! Creation: `memfd_create("pmix-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING)`,
//! `fchmod(0600)`, `ftruncate(total)`, seals `F_SEAL_SHRINK | F_SEAL_GROW`
//! (so no mapping can fault with `SIGBUS`), then `F_SEAL_SEAL`. The layout
//! is documented byte by byte in `docs/SHM-LAYOUT.md`.
//!
//! | file          | one job |
//! |---------------|---------|
//! | `header.rs`   | the header and directory entry structs, asserted |
//! | `layout.rs`   | [`SegmentLayout`]: which regions, placed where |
//! | `create.rs`   | [`Segment::create`]: sealed memfd, header, directory |
//! | `open.rs`     | [`Segment::open`]: `validate_header`, `read_directory` |
//! | `regions.rs`  | [`Segment::memory`], [`Segment::init`], [`Segment::attach`] |
//! | `error.rs`    | [`SegmentCreateError`], [`SegmentOpenError`] |

mod create;
mod error;
mod header;
mod layout;
mod open;
mod regions;
#[cfg(test)]
mod tests;

pub use error::{SegmentCreateError, SegmentOpenError};
pub use layout::{RegionInfo, SegmentLayout};

use std::any::Any;
use std::fmt;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use crate::layout::SEGMENT_READY;
use crate::sync::{AtomicBool, Ordering};

/// The mapping (and its file) every handle into the segment keeps alive.
struct Mapping {
    _map: memmap2::MmapMut,
    file: File,
    /// `(st_dev, st_ino)` of the file: the same for every mapping of the
    /// same memfd, and unique while this mapping keeps the file alive.
    file_id: (u64, u64),
}

/// A mapped shared segment (see the module docs).
pub struct Segment {
    map: Arc<Mapping>,
    base: NonNull<u8>,
    len: usize,
    regions: Vec<RegionInfo>,
    creator_pid: u32,
    capabilities: u64,
    /// `Some` on the creator's side: which regions were initialised.
    initialised: Option<Mutex<Vec<bool>>>,
    published: AtomicBool,
}

// SAFETY: `base` points into the mapping owned by `map` (kept alive by the
// Arc); all access through it goes through atomics or the structures'
// protocols, which are designed for concurrent use from many threads and
// processes.
unsafe impl Send for Segment {}
// SAFETY: as for `Send`.
unsafe impl Sync for Segment {}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Segment")
            .field("len", &self.len)
            .field("creator_pid", &self.creator_pid)
            .field("capabilities", &self.capabilities)
            .field("regions", &self.regions)
            .finish_non_exhaustive()
    }
}

impl Segment {
    /// Publishes the segment: stores `ready` last, with `Release`, so an
    /// opener that sees it sees every region initialised before. Idempotent.
    pub fn publish(&self) {
        // ORDERING: Relaxed — a process-local flag that only gates `init`
        // on this handle.
        self.published.store(true, Ordering::Relaxed);
        // SAFETY: `base` is the page-aligned start of our live mapping,
        // which holds at least a header.
        let hdr = unsafe { header::header(self.base) };
        // ORDERING: Release — pairs with the Acquire load of `ready` in
        // `open`: the header, directory and initialised regions are visible.
        hdr.ready.store(SEGMENT_READY, Ordering::Release);
    }

    /// The memfd, to send to a client (`SCM_RIGHTS`) or duplicate.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.map.file.as_fd()
    }

    /// Size of the segment in bytes (as validated at open).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the segment is empty (never).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Pid of the process that created the segment (as its header said).
    pub fn creator_pid(&self) -> u32 {
        self.creator_pid
    }

    /// The creator's [`caps`](crate::layout::caps) bits.
    pub fn capabilities(&self) -> u64 {
        self.capabilities
    }

    /// The directory, as copied and validated at create/open.
    pub fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    /// Something that keeps the mapping alive.
    pub fn owner(&self) -> Arc<dyn Any + Send + Sync> {
        self.map.clone()
    }

    /// The segment's wake group (the header's `wake_group` word): every
    /// ring attached or initialised from this segment carries it.
    pub fn wake_group(&self) -> crate::wake_group::WakeGroup {
        // SAFETY: `base` is the page-aligned start of our live mapping,
        // which holds at least a header.
        let hdr = unsafe { header::header(self.base) };
        let word = std::ptr::NonNull::from(&hdr.wake_group);
        // SAFETY: the word lies in the mapping, which the owner keeps alive.
        unsafe { crate::wake_group::WakeGroup::from_raw(word, self.owner()) }
    }
}
