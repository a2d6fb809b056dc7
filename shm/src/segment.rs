//! The shared segment: one memfd per server, mapped `MAP_SHARED` by the
//! server and by every client it passes the fd to.
//!
//! The server builds a [`SegmentLayout`] (one region per structure: the
//! job-data store, the event-cache ring, the server-bound ring, one inbound
//! ring per client), calls [`Segment::create`], initialises each region
//! ([`Segment::init_ring`] for rings; the store and broadcast ring through
//! their own `init_in` on [`Segment::region`]), then [`Segment::publish`]es
//! it: the header's `ready` word is stored last, with `Release`. A client
//! receives the fd over the Unix socket (`SCM_RIGHTS`) and calls
//! [`Segment::open`], which checks everything itself — file size (`fstat`),
//! seals, magic, layout version, `ready`, and every directory entry — and
//! keeps its own copy of the directory, so later writes to the header by a
//! misbehaving process change nothing it relies on.
//!
//! Creation: `memfd_create("pmix-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING)`,
//! `fchmod(0600)`, `ftruncate(total)`, seals `F_SEAL_SHRINK | F_SEAL_GROW`
//! (so no mapping can fault with `SIGBUS`), then `F_SEAL_SEAL`. The layout
//! is documented byte by byte in `docs/SHM-LAYOUT.md`.

use std::any::Any;
use std::fs::File;
use std::marker::PhantomData;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use crate::error::{
    InitRingError, OpenRingError, RegionError, SegmentCreateError, SegmentOpenError,
};
use crate::layout::{
    caps, round_up, RegionEntry, RegionKind, SegmentHeader, LAYOUT_VERSION, MAX_REGIONS,
    REGION_ALIGN, REGION_ENTRY_SIZE, SEGMENT_HEADER_SIZE, SEGMENT_MAGIC, SEGMENT_READY,
};
use crate::ring::{Ring, RingParams};
use crate::sync::{AtomicBool, Ordering};

/// Size granularity of a segment (one page).
const PAGE: usize = 4096;

/// The regions a segment will hold, in directory order. Built by value.
///
/// # Examples
/// ```
/// use pmix_shm::layout::RegionKind;
/// use pmix_shm::ring::RingParams;
/// use pmix_shm::segment::SegmentLayout;
/// let layout = SegmentLayout::new()
///     .ring(RegionKind::SERVER_RING, 0, RingParams::new(1024).unwrap())
///     .ring(RegionKind::CLIENT_RING, 0, RingParams::new(256).unwrap())
///     .region(RegionKind::JOB_STORE, 0, 1 << 20);
/// assert_eq!(layout.total_size().unwrap() % 4096, 0);
/// ```
#[derive(Debug, Clone, Default)]
pub struct SegmentLayout {
    regions: Vec<(RegionKind, u32, usize)>,
    capabilities: u64,
}

/// Where a region lies in the segment (a copy of its directory entry,
/// validated by the opener).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegionInfo {
    /// What the region holds.
    pub kind: RegionKind,
    /// Instance id within the kind.
    pub id: u32,
    /// Offset from the segment start (a multiple of 128).
    pub offset: usize,
    /// Length in bytes.
    pub len: usize,
}

impl SegmentLayout {
    /// An empty layout (capabilities: MPSC rings and futex doorbells).
    pub fn new() -> Self {
        SegmentLayout {
            regions: Vec::new(),
            capabilities: caps::MPSC_RING | caps::FUTEX_DOORBELL,
        }
    }

    /// Adds a region of `len` bytes.
    pub fn region(mut self, kind: RegionKind, id: u32, len: usize) -> Self {
        self.regions.push((kind, id, len));
        self
    }

    /// Adds a region sized for a ring with `params`.
    pub fn ring(self, kind: RegionKind, id: u32, params: RingParams) -> Self {
        self.region(kind, id, Ring::memory_size(params))
    }

    /// Sets additional [`caps`] bits.
    pub fn capabilities(mut self, bits: u64) -> Self {
        self.capabilities |= bits;
        self
    }

    /// Places the regions: header and directory first, then each region at
    /// the next multiple of 128; the total is rounded up to a page.
    fn place(&self) -> Result<(usize, Vec<RegionInfo>), SegmentCreateError> {
        let bad = |reason| SegmentCreateError::BadLayout { reason };
        if self.regions.len() > MAX_REGIONS {
            return Err(bad("more than MAX_REGIONS regions"));
        }
        let mut seen = std::collections::HashSet::new();
        let dir_end = SEGMENT_HEADER_SIZE + REGION_ENTRY_SIZE * self.regions.len();
        let mut at = round_up(dir_end, REGION_ALIGN).ok_or(bad("size overflows"))?;
        let mut placed = Vec::with_capacity(self.regions.len());
        for &(kind, id, len) in &self.regions {
            if len == 0 {
                return Err(bad("empty region"));
            }
            if !seen.insert((kind, id)) {
                return Err(bad("duplicate region kind and id"));
            }
            placed.push(RegionInfo {
                kind,
                id,
                offset: at,
                len,
            });
            let end = at.checked_add(len).ok_or(bad("size overflows"))?;
            at = round_up(end, REGION_ALIGN).ok_or(bad("size overflows"))?;
        }
        let total = round_up(at, PAGE).ok_or(bad("size overflows"))?;
        if total > isize::MAX as usize || i64::try_from(total).is_err() {
            return Err(bad("size overflows"));
        }
        Ok((total, placed))
    }

    /// Total size of the segment this layout makes.
    ///
    /// # Errors
    /// [`SegmentCreateError::BadLayout`] as [`Segment::create`] would.
    pub fn total_size(&self) -> Result<usize, SegmentCreateError> {
        self.place().map(|(t, _)| t)
    }
}

/// The mapping (and its file) every handle into the segment keeps alive.
struct Mapping {
    _map: memmap2::MmapMut,
    file: File,
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

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("len", &self.len)
            .field("creator_pid", &self.creator_pid)
            .field("capabilities", &self.capabilities)
            .field("regions", &self.regions)
            .finish_non_exhaustive()
    }
}

/// A region of a segment: a bounds-checked pointer and length, valid while
/// the segment is borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Region<'a> {
    info: RegionInfo,
    ptr: NonNull<u8>,
    _segment: PhantomData<&'a Segment>,
}

impl Region<'_> {
    /// Start of the region (128-byte aligned).
    pub fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.info.len
    }

    /// Whether the region is empty (never, for a valid segment).
    pub fn is_empty(&self) -> bool {
        self.info.len == 0
    }

    /// Where the region lies.
    pub fn info(&self) -> RegionInfo {
        self.info
    }
}

/// The error of the system call that just failed.
fn io_err(call: &'static str) -> SegmentCreateError {
    SegmentCreateError::Io {
        call,
        source: std::io::Error::last_os_error(),
    }
}

impl Segment {
    /// Creates the segment for `layout`: memfd (close-on-exec, sealable),
    /// mode 0600, sized, sealed against shrinking and growing, mapped
    /// shared, header and directory written, `ready` still 0. Initialise
    /// the regions, then [`publish`](Self::publish).
    ///
    /// # Errors
    /// [`SegmentCreateError::BadLayout`] for an impossible layout,
    /// [`SegmentCreateError::Io`] when a system call fails.
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::layout::RegionKind;
    /// use pmix_shm::ring::RingParams;
    /// use pmix_shm::segment::{Segment, SegmentLayout};
    /// use std::time::Duration;
    ///
    /// let params = RingParams::new(64).unwrap();
    /// let server = Segment::create(&SegmentLayout::new().ring(RegionKind::SERVER_RING, 0, params))
    ///     .unwrap();
    /// let ring = server.init_ring(RegionKind::SERVER_RING, 0, params).unwrap();
    /// server.publish();
    ///
    /// // A client maps the fd it received (here: a duplicate).
    /// let client = Segment::open(server.fd().try_clone_to_owned().unwrap()).unwrap();
    /// client.ring(RegionKind::SERVER_RING, 0).unwrap().try_push(1, b"fence").unwrap();
    /// let mut consumer = ring.consumer().unwrap();
    /// let got = consumer.pop_timeout(Duration::from_secs(1), |k, p| (k, p.to_vec()));
    /// assert_eq!(got.unwrap(), (1, b"fence".to_vec()));
    /// ```
    pub fn create(layout: &SegmentLayout) -> Result<Segment, SegmentCreateError> {
        let (total, regions) = layout.place()?;
        // SAFETY: a valid NUL-terminated name and flags; returns a new fd or -1.
        let fd = unsafe {
            libc::memfd_create(
                c"pmix-shm".as_ptr(),
                libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
            )
        };
        if fd < 0 {
            return Err(io_err("memfd_create"));
        }
        // SAFETY: `fd` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: plain syscalls on an fd we own.
        if unsafe { libc::fchmod(fd.as_raw_fd(), 0o600) } != 0 {
            return Err(io_err("fchmod"));
        }
        // SAFETY: as above; `total` fits off_t (checked in `place`).
        if unsafe { libc::ftruncate(fd.as_raw_fd(), total as libc::off_t) } != 0 {
            return Err(io_err("ftruncate"));
        }
        // SAFETY: as above.
        let r = unsafe {
            libc::fcntl(
                fd.as_raw_fd(),
                libc::F_ADD_SEALS,
                libc::F_SEAL_SHRINK | libc::F_SEAL_GROW,
            )
        };
        if r != 0 {
            return Err(io_err("fcntl"));
        }
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, libc::F_SEAL_SEAL) } != 0 {
            return Err(io_err("fcntl"));
        }
        let file = File::from(fd);
        // SAFETY: the file is a sealed memfd of exactly `total` bytes that
        // cannot shrink, so the mapping can never fault; concurrent writers
        // are expected (the segment is shared) and go through atomics.
        let mut map =
            unsafe { memmap2::MmapOptions::new().len(total).map_mut(&file) }.map_err(|source| {
                SegmentCreateError::Io {
                    call: "mmap",
                    source,
                }
            })?;
        let base = NonNull::new(map.as_mut_ptr()).ok_or(SegmentCreateError::Io {
            call: "mmap",
            source: std::io::Error::from_raw_os_error(libc::EFAULT),
        })?;
        // SAFETY: the mapping is page-aligned and at least a header long.
        let hdr = unsafe { base.cast::<SegmentHeader>().as_ref() };
        let header_size = regions.first().map_or(
            round_up(SEGMENT_HEADER_SIZE, REGION_ALIGN).unwrap_or(SEGMENT_HEADER_SIZE),
            |r| r.offset,
        );
        // SAFETY: getpid has no preconditions.
        let pid = unsafe { libc::getpid() } as u32;
        // ORDERING (all stores below): Relaxed — published by the Release
        // store of `ready` in `publish`.
        hdr.magic.store(SEGMENT_MAGIC, Ordering::Relaxed);
        hdr.layout_version.store(LAYOUT_VERSION, Ordering::Relaxed);
        hdr.header_size.store(header_size as u32, Ordering::Relaxed);
        hdr.total_size.store(total as u64, Ordering::Relaxed);
        hdr.capabilities
            .store(layout.capabilities, Ordering::Relaxed);
        hdr.creator_pid.store(pid, Ordering::Relaxed);
        hdr.dir_len.store(regions.len() as u32, Ordering::Relaxed);
        hdr.ready.store(0, Ordering::Relaxed);
        for (i, r) in regions.iter().enumerate() {
            // SAFETY: entry `i` lies inside the header area (placed above,
            // before the first region) and is 8-aligned.
            let e = unsafe {
                base.as_ptr()
                    .add(SEGMENT_HEADER_SIZE + i * REGION_ENTRY_SIZE)
                    .cast::<RegionEntry>()
                    .as_ref()
                    .unwrap_unchecked()
            };
            e.kind.store(r.kind.0, Ordering::Relaxed);
            e.id.store(r.id, Ordering::Relaxed);
            e.offset.store(r.offset as u64, Ordering::Relaxed);
            e.len.store(r.len as u64, Ordering::Relaxed);
            e.flags.store(0, Ordering::Relaxed);
        }
        let n = regions.len();
        Ok(Segment {
            map: Arc::new(Mapping { _map: map, file }),
            base,
            len: total,
            regions,
            creator_pid: pid,
            capabilities: layout.capabilities,
            initialised: Some(Mutex::new(vec![false; n])),
            published: AtomicBool::new(false),
        })
    }

    /// Publishes the segment: stores `ready` last, with `Release`, so an
    /// opener that sees it sees every region initialised before. Idempotent.
    pub fn publish(&self) {
        // ORDERING: Relaxed — a process-local flag that only gates
        // `init_ring` on this handle.
        self.published.store(true, Ordering::Relaxed);
        // ORDERING: Release — pairs with the Acquire load of `ready` in
        // `open`: the header, directory and initialised regions are visible.
        self.header().ready.store(SEGMENT_READY, Ordering::Release);
    }

    /// Maps a segment received as `fd` and validates it without trusting
    /// it: the real file size (`fstat`) covers the header and the size the
    /// header claims, the file is sealed against shrinking, magic and
    /// layout version match, `ready` is set, and every directory entry is
    /// aligned, non-empty, inside the segment, unique and non-overlapping.
    ///
    /// # Errors
    /// [`SegmentOpenError`] naming the first failed check; never undefined
    /// behaviour whatever the file holds.
    pub fn open(fd: OwnedFd) -> Result<Segment, SegmentOpenError> {
        let file = File::from(fd);
        let size = file
            .metadata()
            .map_err(|source| SegmentOpenError::Io {
                call: "fstat",
                source,
            })?
            .len();
        if size < SEGMENT_HEADER_SIZE as u64 {
            return Err(SegmentOpenError::TooSmall {
                len: size,
                needed: SEGMENT_HEADER_SIZE as u64,
            });
        }
        // SAFETY: a plain fcntl query on a descriptor we own.
        let seals = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 || seals & libc::F_SEAL_SHRINK == 0 {
            return Err(SegmentOpenError::NotSealed {
                seals: seals.max(0),
            });
        }
        let map_len = usize::try_from(size).map_err(|_| SegmentOpenError::BadDirectory {
            index: usize::MAX,
            reason: "file larger than the address space",
        })?;
        // SAFETY: the file is sealed against shrinking, so the mapping of
        // its current size can never fault; its contents are untrusted and
        // only read through atomics (and the structures' own validation).
        let mut map = unsafe { memmap2::MmapOptions::new().len(map_len).map_mut(&file) }.map_err(
            |source| SegmentOpenError::Io {
                call: "mmap",
                source,
            },
        )?;
        let base = NonNull::new(map.as_mut_ptr()).ok_or(SegmentOpenError::Io {
            call: "mmap",
            source: std::io::Error::from_raw_os_error(libc::EFAULT),
        })?;
        // SAFETY: page-aligned mapping of at least SEGMENT_HEADER_SIZE bytes.
        let hdr = unsafe { base.cast::<SegmentHeader>().as_ref() };
        // ORDERING: Acquire — pairs with the Release store in `publish`.
        let ready = hdr.ready.load(Ordering::Acquire);
        // ORDERING (header loads): Relaxed — after the Acquire above.
        let magic = hdr.magic.load(Ordering::Relaxed);
        if magic != SEGMENT_MAGIC {
            return Err(SegmentOpenError::BadMagic { found: magic });
        }
        let version = hdr.layout_version.load(Ordering::Relaxed);
        if version != LAYOUT_VERSION {
            return Err(SegmentOpenError::VersionMismatch {
                found: version,
                expected: LAYOUT_VERSION,
            });
        }
        if ready != SEGMENT_READY {
            return Err(SegmentOpenError::NotReady);
        }
        let total = hdr.total_size.load(Ordering::Relaxed);
        if total > size {
            return Err(SegmentOpenError::TooSmall {
                len: size,
                needed: total,
            });
        }
        let bad_hdr = |reason| SegmentOpenError::BadDirectory {
            index: usize::MAX,
            reason,
        };
        let total = total as usize; // <= size, which fits usize
        let header_size = hdr.header_size.load(Ordering::Relaxed) as usize;
        let dir_len = hdr.dir_len.load(Ordering::Relaxed) as usize;
        if dir_len > MAX_REGIONS {
            return Err(bad_hdr("more than MAX_REGIONS entries"));
        }
        let dir_end = SEGMENT_HEADER_SIZE + dir_len * REGION_ENTRY_SIZE;
        if header_size < dir_end || header_size > total || header_size % REGION_ALIGN != 0 {
            return Err(bad_hdr("header size out of bounds"));
        }
        let mut regions = Vec::with_capacity(dir_len);
        for i in 0..dir_len {
            let bad = |reason| SegmentOpenError::BadDirectory { index: i, reason };
            // SAFETY: the entry lies below `dir_end <= header_size <= total
            // <= size`, 8-aligned; any bytes are valid atomics.
            let e = unsafe {
                base.as_ptr()
                    .add(SEGMENT_HEADER_SIZE + i * REGION_ENTRY_SIZE)
                    .cast::<RegionEntry>()
                    .as_ref()
                    .unwrap_unchecked()
            };
            let kind = RegionKind(e.kind.load(Ordering::Relaxed));
            let id = e.id.load(Ordering::Relaxed);
            let offset = e.offset.load(Ordering::Relaxed);
            let len = e.len.load(Ordering::Relaxed);
            if len == 0 {
                return Err(bad("empty region"));
            }
            if offset % REGION_ALIGN as u64 != 0 {
                return Err(bad("misaligned offset"));
            }
            match offset.checked_add(len) {
                Some(end) if offset >= header_size as u64 && end <= total as u64 => {}
                _ => return Err(bad("region outside the segment")),
            }
            regions.push(RegionInfo {
                kind,
                id,
                offset: offset as usize,
                len: len as usize,
            });
        }
        let mut sorted: Vec<(usize, usize, usize)> = regions
            .iter()
            .enumerate()
            .map(|(i, r)| (r.offset, r.offset + r.len, i))
            .collect();
        sorted.sort_unstable();
        for w in sorted.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(SegmentOpenError::BadDirectory {
                    index: w[1].2,
                    reason: "regions overlap",
                });
            }
        }
        let mut keys: Vec<(u32, u32, usize)> = regions
            .iter()
            .enumerate()
            .map(|(i, r)| (r.kind.0, r.id, i))
            .collect();
        keys.sort_unstable();
        for w in keys.windows(2) {
            if (w[0].0, w[0].1) == (w[1].0, w[1].1) {
                return Err(SegmentOpenError::BadDirectory {
                    index: w[1].2,
                    reason: "duplicate region kind and id",
                });
            }
        }
        Ok(Segment {
            creator_pid: hdr.creator_pid.load(Ordering::Relaxed),
            capabilities: hdr.capabilities.load(Ordering::Relaxed),
            map: Arc::new(Mapping { _map: map, file }),
            base,
            len: total,
            regions,
            initialised: None,
            published: AtomicBool::new(true),
        })
    }

    fn header(&self) -> &SegmentHeader {
        // SAFETY: `base` is the page-aligned start of a live mapping of at
        // least a header; only atomics are accessed.
        unsafe { self.base.cast::<SegmentHeader>().as_ref() }
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

    /// The creator's [`caps`] bits.
    pub fn capabilities(&self) -> u64 {
        self.capabilities
    }

    /// The directory, as copied and validated at create/open.
    pub fn regions(&self) -> &[RegionInfo] {
        &self.regions
    }

    /// Something that keeps the mapping alive, for structures built in a
    /// region (`Ring::with_owner` and the like).
    pub fn owner(&self) -> Arc<dyn Any + Send + Sync> {
        self.map.clone()
    }

    fn find(&self, kind: RegionKind, id: u32) -> Result<(usize, RegionInfo), RegionError> {
        self.regions
            .iter()
            .enumerate()
            .find(|(_, r)| r.kind == kind && r.id == id)
            .map(|(i, r)| (i, *r))
            .ok_or(RegionError::NotFound { kind, id })
    }

    /// The region of `kind` and `id`: a pointer and length inside the
    /// mapping (bounds checked at create/open).
    ///
    /// # Errors
    /// [`RegionError::NotFound`] if the directory has no such region.
    pub fn region(&self, kind: RegionKind, id: u32) -> Result<Region<'_>, RegionError> {
        let (_, info) = self.find(kind, id)?;
        debug_assert!(info.offset + info.len <= self.len);
        // SAFETY: offset + len <= len of the mapping (validated).
        let ptr = unsafe { NonNull::new_unchecked(self.base.as_ptr().add(info.offset)) };
        Ok(Region {
            info,
            ptr,
            _segment: PhantomData,
        })
    }

    /// Creator only, before [`publish`](Self::publish): writes a fresh ring
    /// into the region and returns a handle that keeps the mapping alive.
    ///
    /// # Errors
    /// [`InitRingError`]: no such region, not the creator, already
    /// published, already initialised, or the region is too small.
    pub fn init_ring(
        &self,
        kind: RegionKind,
        id: u32,
        params: RingParams,
    ) -> Result<Ring, InitRingError> {
        let (i, info) = self.find(kind, id).map_err(InitRingError::Region)?;
        let Some(init) = &self.initialised else {
            return Err(InitRingError::NotCreator);
        };
        let mut init = init.lock().unwrap_or_else(|e| e.into_inner());
        // ORDERING: Relaxed — a process-local flag (see `publish`).
        if self.published.load(Ordering::Relaxed) {
            return Err(InitRingError::AlreadyPublished);
        }
        if init[i] {
            return Err(InitRingError::AlreadyInitialized);
        }
        let region = self.region(kind, id).map_err(InitRingError::Region)?;
        // SAFETY: the region lies in our live mapping; it is initialised once
        // (checked under the lock) and before publication, so no other
        // handle or process uses it yet; `with_owner` keeps it mapped.
        let ring = unsafe { Ring::init_in(region.ptr(), info.len, params) }
            .map_err(InitRingError::Ring)?
            .with_owner(self.owner());
        init[i] = true;
        Ok(ring)
    }

    /// Attaches to the ring in the region of `kind` and `id`, validating
    /// its header; the handle keeps the mapping alive.
    ///
    /// # Errors
    /// [`OpenRingError`]: no such region, or no valid ring in it.
    pub fn ring(&self, kind: RegionKind, id: u32) -> Result<Ring, OpenRingError> {
        let region = self.region(kind, id).map_err(OpenRingError::Region)?;
        // SAFETY: the region lies in our live mapping, which `with_owner`
        // keeps mapped; `attach` validates what it reads.
        let ring =
            unsafe { Ring::attach(region.ptr(), region.len()) }.map_err(OpenRingError::Attach)?;
        Ok(ring.with_owner(self.owner()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_places_regions_aligned_after_the_directory() {
        let l = SegmentLayout::new()
            .region(RegionKind::JOB_STORE, 0, 100)
            .region(RegionKind::SERVER_RING, 0, 1000);
        let (total, r) = l.place().unwrap();
        assert_eq!(r[0].offset, 256); // 128 + 2 * 32 = 192 -> 256
        assert_eq!(r[1].offset, 384);
        assert_eq!(total, 4096);
    }

    #[test]
    fn layout_rejects_duplicates_and_empty_regions() {
        let dup = SegmentLayout::new()
            .region(RegionKind::CLIENT_RING, 1, 64)
            .region(RegionKind::CLIENT_RING, 1, 64);
        assert!(matches!(
            dup.total_size(),
            Err(SegmentCreateError::BadLayout { .. })
        ));
        let empty = SegmentLayout::new().region(RegionKind::MODEX, 0, 0);
        assert!(matches!(
            Segment::create(&empty),
            Err(SegmentCreateError::BadLayout { .. })
        ));
        let huge = SegmentLayout::new()
            .region(RegionKind::MODEX, 0, usize::MAX - 10)
            .region(RegionKind::MODEX, 1, usize::MAX - 10);
        assert!(huge.total_size().is_err());
    }

    #[test]
    fn creator_cannot_init_a_ring_twice_or_after_publish() {
        let p = RingParams::new(16).unwrap();
        let seg = Segment::create(
            &SegmentLayout::new()
                .ring(RegionKind::CLIENT_RING, 0, p)
                .ring(RegionKind::CLIENT_RING, 1, p),
        )
        .unwrap();
        seg.init_ring(RegionKind::CLIENT_RING, 0, p).unwrap();
        assert_eq!(
            seg.init_ring(RegionKind::CLIENT_RING, 0, p).unwrap_err(),
            InitRingError::AlreadyInitialized
        );
        seg.publish();
        assert_eq!(
            seg.init_ring(RegionKind::CLIENT_RING, 1, p).unwrap_err(),
            InitRingError::AlreadyPublished
        );
        assert!(matches!(
            seg.init_ring(RegionKind::MODEX, 0, p),
            Err(InitRingError::Region(RegionError::NotFound { .. }))
        ));
    }

    #[test]
    fn ring_in_a_too_small_region_is_refused() {
        let seg =
            Segment::create(&SegmentLayout::new().region(RegionKind::SERVER_RING, 0, 700)).unwrap();
        assert!(matches!(
            seg.init_ring(RegionKind::SERVER_RING, 0, RingParams::new(16).unwrap()),
            Err(InitRingError::Ring(_))
        ));
    }
}
