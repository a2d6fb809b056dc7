//! The shared segment: one memfd per server, mapped `MAP_SHARED` by the
//! server and by every client it passes the fd to.
//!
//! The server builds a [`SegmentLayout`] (one region per structure: the
//! job-data store, the event-cache ring, the server-bound ring, one inbound
//! ring per client, the barrier table), calls [`Segment::create`],
//! initialises each region ([`Segment::init_ring`], [`Segment::init_store`],
//! [`Segment::init_broadcast`], [`Segment::init_barriers`]), then
//! [`Segment::publish`]es it: the header's `ready` word is stored last, with
//! `Release`. A client receives the fd over the Unix socket (`SCM_RIGHTS`,
//! see [`fdpass`](crate::fdpass)) and calls [`Segment::open`], which checks
//! everything itself — file size (`fstat`), seals, magic, layout version,
//! `ready`, and every directory entry — and keeps its own copy of the
//! directory, so later writes to the header by a misbehaving process change
//! nothing it relies on. It then attaches to
//! each structure ([`Segment::ring`], [`Segment::store_reader`],
//! [`Segment::store_writer`], [`Segment::broadcast_reader`],
//! [`Segment::barriers`]), each of which validates its own region header.
//! Every handle these return keeps the mapping alive.
//!
//! Creation: `memfd_create("pmix-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING)`,
//! `fchmod(0600)`, `ftruncate(total)`, seals `F_SEAL_SHRINK | F_SEAL_GROW`
//! (so no mapping can fault with `SIGBUS`), then `F_SEAL_SEAL`. The layout
//! is documented byte by byte in `docs/SHM-LAYOUT.md`.

use std::any::Any;
use std::fmt;
use std::fs::File;
use std::marker::PhantomData;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use pmix_core::Status;

use crate::barrier::{BarrierAttachError, BarrierInitError, BarrierParams, BarrierTable};
use crate::broadcast::{
    BroadcastAttachError, BroadcastInitError, BroadcastParams, BroadcastReader, BroadcastWriter,
};
use crate::error::{
    InitRingError, OpenRingError, RegionError, SegmentCreateError, SegmentOpenError,
};
use crate::layout::{
    caps, round_up, RegionEntry, RegionKind, SegmentHeader, LAYOUT_VERSION, MAX_REGIONS,
    REGION_ALIGN, REGION_ENTRY_SIZE, SEGMENT_HEADER_SIZE, SEGMENT_MAGIC, SEGMENT_READY,
};
use crate::ring::{Ring, RingParams};
use crate::store::{StoreAttachError, StoreInitError, StoreParams, StoreReader, StoreWriter};
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

    /// Adds a region sized for a job-data store with `params`
    /// ([`StoreWriter::memory_size`]).
    pub fn store(self, kind: RegionKind, id: u32, params: &StoreParams) -> Self {
        self.region(kind, id, StoreWriter::memory_size(params))
    }

    /// Adds a region sized for a broadcast ring with `params`
    /// ([`BroadcastWriter::memory_size`]).
    pub fn broadcast(self, kind: RegionKind, id: u32, params: &BroadcastParams) -> Self {
        self.region(kind, id, BroadcastWriter::memory_size(params))
    }

    /// Adds a region sized for a barrier table with `params`
    /// ([`BarrierTable::memory_size`]).
    pub fn barriers(self, kind: RegionKind, id: u32, params: &BarrierParams) -> Self {
        self.region(kind, id, BarrierTable::memory_size(params))
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
    /// `(st_dev, st_ino)` of the file: the same for every mapping of the
    /// same memfd, and unique while this mapping keeps the file alive.
    file_id: (u64, u64),
}

/// The stores that have a live [`StoreWriter`] made by a segment in this
/// process: `(st_dev, st_ino, region offset)`. A job-data store must have
/// one writer at a time; this enforces it inside the process, across every
/// mapping of the same memfd (other processes are bound by the protocol).
static STORE_WRITERS: Mutex<Vec<(u64, u64, usize)>> = Mutex::new(Vec::new());

/// One entry of [`STORE_WRITERS`], removed when the writer holding it drops.
struct StoreWriterClaim {
    key: (u64, u64, usize),
}

impl StoreWriterClaim {
    /// Claims `key`, unless a live writer already holds it.
    fn claim(key: (u64, u64, usize)) -> Option<Self> {
        let mut held = STORE_WRITERS.lock().unwrap_or_else(|e| e.into_inner());
        if held.contains(&key) {
            return None;
        }
        held.push(key);
        Some(StoreWriterClaim { key })
    }
}

impl Drop for StoreWriterClaim {
    fn drop(&mut self) {
        let mut held = STORE_WRITERS.lock().unwrap_or_else(|e| e.into_inner());
        held.retain(|k| *k != self.key);
    }
}

/// The checks every `Segment::init_*` makes, and the structure's own
/// init error (`E`).
enum InitFail<E> {
    Region(RegionError),
    NotCreator,
    AlreadyPublished,
    AlreadyInitialized,
    Init(E),
}

impl<E> InitFail<E> {
    fn into_region_error(self, init: impl FnOnce(E) -> InitRegionError) -> InitRegionError {
        match self {
            InitFail::Region(e) => InitRegionError::Region(e),
            InitFail::NotCreator => InitRegionError::NotCreator,
            InitFail::AlreadyPublished => InitRegionError::AlreadyPublished,
            InitFail::AlreadyInitialized => InitRegionError::AlreadyInitialized,
            InitFail::Init(e) => init(e),
        }
    }
}

/// Why [`Segment::init_store`], [`Segment::init_broadcast`] or
/// [`Segment::init_barriers`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitRegionError {
    /// The region does not exist.
    Region(RegionError),
    /// Only the creator of a segment initialises its regions.
    NotCreator,
    /// The segment is already published; regions are initialised before.
    AlreadyPublished,
    /// The region was already initialised.
    AlreadyInitialized,
    /// The store refused the region (parameters, alignment, size).
    Store(StoreInitError),
    /// The broadcast ring refused the region.
    Broadcast(BroadcastInitError),
    /// The barrier table refused the region.
    Barriers(BarrierInitError),
}

/// Why [`Segment::store_reader`], [`Segment::store_writer`],
/// [`Segment::broadcast_reader`] or [`Segment::barriers`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenRegionError {
    /// The region does not exist.
    Region(RegionError),
    /// No valid store in the region (or no free reader slot).
    Store(StoreAttachError),
    /// This process already has a live writer of this store (made by
    /// [`Segment::init_store`] or [`Segment::store_writer`], through any
    /// mapping of the segment).
    WriterExists,
    /// No valid broadcast ring in the region.
    Broadcast(BroadcastAttachError),
    /// No valid barrier table in the region.
    Barriers(BarrierAttachError),
}

impl fmt::Display for InitRegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Region(e) => write!(f, "InitRegionError::Region: {e}"),
            Self::NotCreator => f.write_str("InitRegionError::NotCreator"),
            Self::AlreadyPublished => f.write_str("InitRegionError::AlreadyPublished"),
            Self::AlreadyInitialized => f.write_str("InitRegionError::AlreadyInitialized"),
            Self::Store(e) => write!(f, "InitRegionError::Store: {e}"),
            Self::Broadcast(e) => write!(f, "InitRegionError::Broadcast: {e}"),
            Self::Barriers(e) => write!(f, "InitRegionError::Barriers: {e}"),
        }
    }
}

impl fmt::Display for OpenRegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Region(e) => write!(f, "OpenRegionError::Region: {e}"),
            Self::Store(e) => write!(f, "OpenRegionError::Store: {e}"),
            Self::WriterExists => {
                f.write_str("OpenRegionError::WriterExists: this process already writes this store")
            }
            Self::Broadcast(e) => write!(f, "OpenRegionError::Broadcast: {e}"),
            Self::Barriers(e) => write!(f, "OpenRegionError::Barriers: {e}"),
        }
    }
}

impl std::error::Error for InitRegionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Region(e) => Some(e),
            Self::Store(e) => Some(e),
            Self::Broadcast(e) => Some(e),
            Self::Barriers(e) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for OpenRegionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Region(e) => Some(e),
            Self::Store(e) => Some(e),
            Self::Broadcast(e) => Some(e),
            Self::Barriers(e) => Some(e),
            Self::WriterExists => None,
        }
    }
}

impl From<InitRegionError> for pmix_core::Error {
    /// `Region` → `PMIX_ERR_NOT_FOUND`; `NotCreator`, `AlreadyPublished`,
    /// `AlreadyInitialized` → `PMIX_ERR_BAD_PARAM`; a structure's error →
    /// that error's status.
    fn from(e: InitRegionError) -> Self {
        let status = match e {
            InitRegionError::Region(_) => Status::ERR_NOT_FOUND,
            InitRegionError::NotCreator
            | InitRegionError::AlreadyPublished
            | InitRegionError::AlreadyInitialized => Status::ERR_BAD_PARAM,
            InitRegionError::Store(s) => pmix_core::Error::from(s).status(),
            InitRegionError::Broadcast(b) => pmix_core::Error::from(b).status(),
            InitRegionError::Barriers(b) => pmix_core::Error::from(b).status(),
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<OpenRegionError> for pmix_core::Error {
    /// `Region` → `PMIX_ERR_NOT_FOUND`; `WriterExists` →
    /// `PMIX_ERR_RESOURCE_BUSY`; a structure's error → that error's status.
    fn from(e: OpenRegionError) -> Self {
        let status = match e {
            OpenRegionError::Region(_) => Status::ERR_NOT_FOUND,
            OpenRegionError::WriterExists => Status::ERR_RESOURCE_BUSY,
            OpenRegionError::Store(s) => pmix_core::Error::from(s).status(),
            OpenRegionError::Broadcast(b) => pmix_core::Error::from(b).status(),
            OpenRegionError::Barriers(b) => pmix_core::Error::from(b).status(),
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
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
        let meta = file.metadata().map_err(|source| SegmentCreateError::Io {
            call: "fstat",
            source,
        })?;
        let file_id = (meta.dev(), meta.ino());
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
            map: Arc::new(Mapping {
                _map: map,
                file,
                file_id,
            }),
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
        let meta = file.metadata().map_err(|source| SegmentOpenError::Io {
            call: "fstat",
            source,
        })?;
        let size = meta.len();
        let file_id = (meta.dev(), meta.ino());
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
            map: Arc::new(Mapping {
                _map: map,
                file,
                file_id,
            }),
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

    /// The checks of every `init_*` (the region exists, we created the
    /// segment, it is not published, the region is not initialised), then
    /// `init` on the region, under the lock, marking it initialised on
    /// success.
    fn init_region<T, E>(
        &self,
        kind: RegionKind,
        id: u32,
        init: impl FnOnce(Region<'_>) -> Result<T, E>,
    ) -> Result<T, InitFail<E>> {
        let (i, _) = self.find(kind, id).map_err(InitFail::Region)?;
        let Some(init_flags) = &self.initialised else {
            return Err(InitFail::NotCreator);
        };
        let mut init_flags = init_flags.lock().unwrap_or_else(|e| e.into_inner());
        // ORDERING: Relaxed — a process-local flag (see `publish`).
        if self.published.load(Ordering::Relaxed) {
            return Err(InitFail::AlreadyPublished);
        }
        if init_flags[i] {
            return Err(InitFail::AlreadyInitialized);
        }
        let region = self.region(kind, id).map_err(InitFail::Region)?;
        let done = init(region).map_err(InitFail::Init)?;
        init_flags[i] = true;
        Ok(done)
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
        self.init_region(kind, id, |region| {
            // SAFETY: the region lies in our live mapping; `init_region`
            // runs this once per region (checked under its lock) and before
            // publication, so no other handle or process uses it yet;
            // `with_owner` keeps it mapped.
            unsafe { Ring::init_in(region.ptr(), region.len(), params) }
                .map(|ring| ring.with_owner(self.owner()))
        })
        .map_err(|f| match f {
            InitFail::Region(e) => InitRingError::Region(e),
            InitFail::NotCreator => InitRingError::NotCreator,
            InitFail::AlreadyPublished => InitRingError::AlreadyPublished,
            InitFail::AlreadyInitialized => InitRingError::AlreadyInitialized,
            InitFail::Init(e) => InitRingError::Ring(e),
        })
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

    /// The key of the store in `region` in [`STORE_WRITERS`].
    fn store_key(&self, region: &Region<'_>) -> (u64, u64, usize) {
        let (dev, ino) = self.map.file_id;
        (dev, ino, region.info().offset)
    }

    /// Creator only, before [`publish`](Self::publish): writes an empty
    /// job-data store into the region and returns its writer, which keeps
    /// the mapping alive. It is the store's only writer in this process
    /// while it lives (see [`store_writer`](Self::store_writer)).
    ///
    /// # Errors
    /// [`InitRegionError`]: no such region, not the creator, already
    /// published, already initialised, or the store refused the region
    /// ([`StoreInitError`]: parameters, alignment, size).
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::layout::RegionKind;
    /// use pmix_shm::segment::{Segment, SegmentLayout};
    /// use pmix_shm::store::StoreParams;
    ///
    /// let p = StoreParams { buffer_count: 2, buffer_size: 4096, reader_slots: 4 };
    /// let server = Segment::create(&SegmentLayout::new().store(RegionKind::JOB_STORE, 0, &p))
    ///     .unwrap();
    /// let mut writer = server.init_store(RegionKind::JOB_STORE, 0, &p).unwrap();
    /// server.publish();
    /// writer.update(|t| { t.insert("job", 0, "pmix.local.size", vec![2]); }).unwrap();
    ///
    /// let client = Segment::open(server.fd().try_clone_to_owned().unwrap()).unwrap();
    /// let reader = client.store_reader(RegionKind::JOB_STORE, 0).unwrap();
    /// assert_eq!(reader.get("job", 0, "pmix.local.size"), Some(vec![2]));
    /// ```
    pub fn init_store(
        &self,
        kind: RegionKind,
        id: u32,
        params: &StoreParams,
    ) -> Result<StoreWriter, InitRegionError> {
        self.init_region(kind, id, |region| {
            // A fresh region of a segment we created: no writer of it can
            // exist yet (an attach needs the magic this init writes), so
            // the claim only fails on a broken invariant (`None` below).
            let claim = StoreWriterClaim::claim(self.store_key(&region)).ok_or(None)?;
            // SAFETY: the region lies in our live mapping; `init_region`
            // runs this once per region, before publication, so no other
            // handle or process uses it yet; the owner keeps it mapped.
            let writer = unsafe {
                StoreWriter::init_in_owned(region.ptr(), region.len(), params, self.owner())
            }
            .map_err(Some)?;
            Ok(writer.hold_exclusive(Arc::new(claim)))
        })
        .map_err(|f| {
            f.into_region_error(|e: Option<StoreInitError>| {
                e.map_or(InitRegionError::AlreadyInitialized, InitRegionError::Store)
            })
        })
    }

    /// A reader of the job-data store in the region of `kind` and `id`
    /// (validating its header, claiming a reader slot); it keeps the
    /// mapping alive.
    ///
    /// # Errors
    /// [`OpenRegionError::Region`] if there is no such region,
    /// [`OpenRegionError::Store`] if it holds no valid store or every
    /// reader slot is taken.
    pub fn store_reader(&self, kind: RegionKind, id: u32) -> Result<StoreReader, OpenRegionError> {
        let region = self.region(kind, id).map_err(OpenRegionError::Region)?;
        // SAFETY: the region lies in our live mapping, kept alive by the
        // owner; `attach_owned` validates what it reads.
        unsafe { StoreReader::attach_owned(region.ptr(), region.len(), self.owner()) }
            .map_err(OpenRegionError::Store)
    }

    /// Attaches as the **writer** of the already-initialised job-data store
    /// in the region of `kind` and `id` (e.g. a client that owns its modex
    /// store), adopting its current publication (see
    /// [`StoreWriter::attach_owned`]: the adopted writer's table starts
    /// empty). The writer keeps the mapping alive.
    ///
    /// A store must have **exactly one writer at a time**. Inside this
    /// process that is enforced: while a writer made by
    /// [`init_store`](Self::init_store) or by this call lives (through any
    /// mapping of this memfd), another attempt fails with
    /// [`OpenRegionError::WriterExists`]. Across processes the caller must
    /// guarantee it through its protocol: the previous writer (e.g. the
    /// server that initialised the store) must have stopped publishing to
    /// it before this process starts.
    ///
    /// # Errors
    /// [`OpenRegionError::Region`], [`OpenRegionError::Store`] (no valid
    /// store), [`OpenRegionError::WriterExists`].
    pub fn store_writer(&self, kind: RegionKind, id: u32) -> Result<StoreWriter, OpenRegionError> {
        let region = self.region(kind, id).map_err(OpenRegionError::Region)?;
        let claim = StoreWriterClaim::claim(self.store_key(&region))
            .ok_or(OpenRegionError::WriterExists)?;
        // SAFETY: the region lies in our live mapping, kept alive by the
        // owner; `attach_owned` validates what it reads. Single writer: the
        // claim, held as long as the writer, shows that no other writer of
        // this store lives in this process (claims are keyed by the memfd's
        // identity, so this covers every mapping of it); other processes
        // are bound by the protocol (documented above), and as everywhere in
        // this crate their writes are atomic or inside the store's buffers,
        // never trusted.
        let writer = unsafe { StoreWriter::attach_owned(region.ptr(), region.len(), self.owner()) }
            .map_err(OpenRegionError::Store)?;
        Ok(writer.hold_exclusive(Arc::new(claim)))
    }

    /// Creator only, before [`publish`](Self::publish): writes an empty
    /// broadcast ring into the region and returns its (only) writer, which
    /// keeps the mapping alive.
    ///
    /// # Errors
    /// [`InitRegionError`]: no such region, not the creator, already
    /// published, already initialised, or the ring refused the region
    /// ([`BroadcastInitError`]).
    pub fn init_broadcast(
        &self,
        kind: RegionKind,
        id: u32,
        params: &BroadcastParams,
    ) -> Result<BroadcastWriter, InitRegionError> {
        self.init_region(kind, id, |region| {
            // SAFETY: the region lies in our live mapping; `init_region`
            // runs this once per region, before publication, so no other
            // handle or process uses it yet; the owner keeps it mapped.
            unsafe {
                BroadcastWriter::init_in_owned(region.ptr(), region.len(), params, self.owner())
            }
        })
        .map_err(|f| f.into_region_error(InitRegionError::Broadcast))
    }

    /// A reader of the broadcast ring in the region of `kind` and `id`
    /// (validating its header), positioned at the oldest cached event; it
    /// keeps the mapping alive.
    ///
    /// # Errors
    /// [`OpenRegionError::Region`] or [`OpenRegionError::Broadcast`].
    pub fn broadcast_reader(
        &self,
        kind: RegionKind,
        id: u32,
    ) -> Result<BroadcastReader, OpenRegionError> {
        let region = self.region(kind, id).map_err(OpenRegionError::Region)?;
        // SAFETY: the region lies in our live mapping, kept alive by the
        // owner; `attach_owned` validates what it reads.
        unsafe { BroadcastReader::attach_owned(region.ptr(), region.len(), self.owner()) }
            .map_err(OpenRegionError::Broadcast)
    }

    /// Creator only, before [`publish`](Self::publish): writes a barrier
    /// table (every cell zeroed) into the region and returns a handle that
    /// keeps the mapping alive.
    ///
    /// # Errors
    /// [`InitRegionError`]: no such region, not the creator, already
    /// published, already initialised, or the table refused the region
    /// ([`BarrierInitError`]).
    ///
    /// # Examples
    /// ```
    /// use pmix_shm::barrier::BarrierParams;
    /// use pmix_shm::layout::RegionKind;
    /// use pmix_shm::segment::{Segment, SegmentLayout};
    ///
    /// let p = BarrierParams { barriers: 4, peers: 16 };
    /// let server = Segment::create(&SegmentLayout::new().barriers(RegionKind::BARRIERS, 0, &p))
    ///     .unwrap();
    /// let table = server.init_barriers(RegionKind::BARRIERS, 0, &p).unwrap();
    /// table.barrier(0).unwrap().reset(2);
    /// server.publish();
    ///
    /// let client = Segment::open(server.fd().try_clone_to_owned().unwrap()).unwrap();
    /// let mine = client.barriers(RegionKind::BARRIERS, 0).unwrap();
    /// assert_eq!(mine.barrier(0).unwrap().parties(), 2);
    /// ```
    pub fn init_barriers(
        &self,
        kind: RegionKind,
        id: u32,
        params: &BarrierParams,
    ) -> Result<BarrierTable, InitRegionError> {
        self.init_region(kind, id, |region| {
            // SAFETY: the region lies in our live mapping; `init_region`
            // runs this once per region, before publication, so no other
            // handle or process uses it yet; the owner keeps it mapped.
            unsafe { BarrierTable::init_in_owned(region.ptr(), region.len(), params, self.owner()) }
        })
        .map_err(|f| f.into_region_error(InitRegionError::Barriers))
    }

    /// The barrier table in the region of `kind` and `id` (validating its
    /// header); the handle keeps the mapping alive.
    ///
    /// # Errors
    /// [`OpenRegionError::Region`] or [`OpenRegionError::Barriers`].
    pub fn barriers(&self, kind: RegionKind, id: u32) -> Result<BarrierTable, OpenRegionError> {
        let region = self.region(kind, id).map_err(OpenRegionError::Region)?;
        // SAFETY: the region lies in our live mapping, kept alive by the
        // owner; `attach_owned` validates what it reads.
        unsafe { BarrierTable::attach_owned(region.ptr(), region.len(), self.owner()) }
            .map_err(OpenRegionError::Barriers)
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
