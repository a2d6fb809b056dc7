//! The broadcast ring behind the event cache: one writer (the server), any
//! number of read-only readers, the oldest event overwritten.
//!
//! The ring is a fixed array of cells. Event `i` (a global, monotonic index)
//! lives in cell `i % cell_count`; each cell carries a sequence word that says
//! which event it holds and whether it is being written (a per-cell seqlock).
//! The writer never waits for anyone: it overwrites the oldest cell. A reader
//! keeps its cursor (the next index it wants) in its own memory and never
//! writes to the ring, so clients may map it read-only.
//!
//! This is what lets a client replay cached events when it registers a
//! handler without asking the server ([`BroadcastReader::snapshot`]). The byte
//! layout is in `docs/SHM-LAYOUT-STORE.md`.
//!
//! # The sequence word of a cell
//!
//! | `seq` value        | meaning                                          |
//! |--------------------|--------------------------------------------------|
//! | `0`                | never written                                    |
//! | `2 * i + 1` (odd)  | event `i` is being written; the payload is torn  |
//! | `2 * i + 2` (even) | event `i` is complete: `len` and payload are it  |
//!
//! The value only grows (`2i+1 → 2i+2 → 2(i+n)+1 → …` with `n = cell_count`),
//! so the lap is part of the word and there is no ABA: a reader that wants
//! event `c` compares the word with `2c + 2`. Smaller: event `c` is not
//! complete yet (`Empty`). Larger: the cell has moved on to a later lap, the
//! reader was lapped.
//!
//! # Seqlock soundness
//!
//! NB: we follow H.-J. Boehm, "Can seqlocks get along with programming
//! language memory models?" (MSPC 2012), the "fences" variant. Every byte a
//! reader may see torn is read through an *atomic* load: the payload is an
//! array of `AtomicU64` words (plus the `AtomicU32` length) stored and loaded
//! with `Relaxed`. There is no non-atomic read racing with a write, so there
//! is no data race and no undefined behaviour, whatever the interleaving; a
//! torn copy is only ever a wrong *value*, and the protocol rejects it:
//!
//! * writer: `seq = 2i+1` (Relaxed); `fence(Release)`; `len`, words
//!   (Relaxed); `seq = 2i+2` (Release); `head = i+1` (Release).
//! * reader: `s1 = seq` (Acquire); if `s1 == 2c+2`: `len`, words (Relaxed);
//!   `fence(Acquire)`; `s2 = seq` (Relaxed); accept only if `s2 == s1`.
//!
//! If the reader's copy read any value stored by a *later* write of the cell,
//! that store comes after the later write's `fence(Release)`, so the two
//! fences synchronise and the later write's odd store happens-before `s2`:
//! `s2 >= 2(c+n)+1 != s1`, the copy is rejected. If the copy read no such
//! value, the `Acquire` on `s1` (which read the `Release` store of `2c+2`)
//! makes event `c`'s stores visible, so the copy is exactly event `c`.
//!
//! # Examples
//!
//! ```
//! use pmix_shm::broadcast::{BroadcastParams, BroadcastWriter, ReadError};
//!
//! let mut writer = BroadcastWriter::new_heap(&BroadcastParams { cell_count: 4, payload_size: 64 });
//! let mut reader = writer.reader();
//! writer.write(b"first").unwrap();
//! assert_eq!(reader.read_next().unwrap().payload, b"first");
//! assert_eq!(reader.read_next(), Err(ReadError::Empty));
//! for i in 0..6u8 {
//!     writer.write(&[i]).unwrap();
//! }
//! // 6 more events into 4 cells: events 1 and 2 were overwritten.
//! assert_eq!(reader.read_next(), Err(ReadError::Lapped { missed: 2 }));
//! assert_eq!(reader.read_next().unwrap().index, 3);
//! ```

use std::fmt;
use std::sync::Arc;

#[cfg(not(loom))]
use std::ptr::NonNull;

#[cfg(not(loom))]
use crate::heap::{HeapRegion, REGION_ALIGN};
#[cfg(not(loom))]
use crate::store::KeepAlive;
use crate::sync::{fence, AtomicU32, AtomicU64, Ordering};

/// `"PMIXBCST"`: the first word of an initialised broadcast region.
pub const BROADCAST_MAGIC: u64 = u64::from_le_bytes(*b"PMIXBCST");
/// The layout version this build writes and accepts.
pub const BROADCAST_LAYOUT_VERSION: u32 = 1;
/// Default number of cells: the event cache keeps the last 512 events.
pub const DEFAULT_CELL_COUNT: u32 = 512;
/// Default payload capacity of a cell: 1008 bytes, so a cell is 1 KiB.
pub const DEFAULT_PAYLOAD_SIZE: u32 = 1008;
/// Largest accepted cell count.
pub const MAX_CELL_COUNT: u32 = 1 << 20;
/// Largest accepted payload capacity of one cell (1 MiB).
pub const MAX_PAYLOAD_SIZE: u32 = 1 << 20;
/// Bytes of the region header (two cache lines).
pub const BROADCAST_HEADER_SIZE: usize = 128;
/// Bytes of a cell's header (`seq`, `len`, reserved) before its payload.
pub const CELL_HEADER_SIZE: usize = 16;
/// Most rounds `read_next` spends on one call before it reports `Empty`
/// (only a writer that rewrites one cell without pause can use them up).
const MAX_READ_ROUNDS: usize = 64;

/// Size parameters of a broadcast ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BroadcastParams {
    /// Number of cells (events kept), `1..=MAX_CELL_COUNT`.
    pub cell_count: u32,
    /// Smallest payload capacity wanted per cell, `0..=MAX_PAYLOAD_SIZE`. It
    /// is rounded up so that a cell (16-byte header + payload) is a whole
    /// number of 64-byte lines; see [`BroadcastParams::payload_capacity`].
    pub payload_size: u32,
}

impl Default for BroadcastParams {
    fn default() -> Self {
        Self {
            cell_count: DEFAULT_CELL_COUNT,
            payload_size: DEFAULT_PAYLOAD_SIZE,
        }
    }
}

impl BroadcastParams {
    /// The payload capacity a cell really has: `payload_size` rounded up so
    /// that `16 + capacity` is a multiple of 64.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::broadcast::BroadcastParams;
    /// assert_eq!(BroadcastParams::default().payload_capacity(), 1008);
    /// assert_eq!(BroadcastParams { cell_count: 2, payload_size: 1 }.payload_capacity(), 48);
    /// ```
    pub fn payload_capacity(&self) -> usize {
        let p = self.payload_size.min(MAX_PAYLOAD_SIZE) as usize;
        round_up_64(CELL_HEADER_SIZE + p) - CELL_HEADER_SIZE
    }

    fn geometry(&self) -> Result<Geometry, BroadcastInitError> {
        if self.cell_count == 0
            || self.cell_count > MAX_CELL_COUNT
            || self.payload_size > MAX_PAYLOAD_SIZE
        {
            return Err(BroadcastInitError::InvalidParams {
                cell_count: self.cell_count,
                payload_size: self.payload_size,
            });
        }
        Ok(Geometry {
            cell_count: self.cell_count,
            payload_size: self.payload_capacity() as u32,
        })
    }
}

fn round_up_64(n: usize) -> usize {
    n.div_ceil(64) * 64
}

/// Validated sizes, copied out of the header once (never re-read from
/// shared memory, which another process could change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
    cell_count: u32,
    /// Payload bytes per cell; `CELL_HEADER_SIZE + payload_size` is a
    /// multiple of 64.
    payload_size: u32,
}

impl Geometry {
    fn stride(&self) -> usize {
        CELL_HEADER_SIZE + self.payload_size as usize
    }

    fn words(&self) -> usize {
        self.payload_size as usize / 8
    }

    fn memory_size(&self) -> usize {
        BROADCAST_HEADER_SIZE + self.cell_count as usize * self.stride()
    }
}

/// The region header. Zero is a valid (not yet initialised) image.
///
/// | offset | size | field            | written                |
/// |--------|------|------------------|------------------------|
/// | 0      | 8    | `magic`          | last, by `init_in`     |
/// | 8      | 4    | `layout_version` | `init_in`              |
/// | 12     | 4    | `cell_count`     | `init_in`              |
/// | 16     | 4    | `payload_size`   | `init_in`              |
/// | 20     | 4    | `cell_stride`    | `init_in`              |
/// | 24     | 4    | `cells_offset`   | `init_in` (= 128)      |
/// | 28     | 36   | reserved (0)     |                        |
/// | 64     | 8    | `head`           | the writer, per event  |
/// | 72     | 56   | reserved (0)     |                        |
#[repr(C)]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
struct BroadcastHeader {
    magic: AtomicU64,
    layout_version: AtomicU32,
    cell_count: AtomicU32,
    payload_size: AtomicU32,
    cell_stride: AtomicU32,
    cells_offset: AtomicU32,
    reserved0: AtomicU32,
    reserved1: [AtomicU64; 4],
    /// Events written so far (the index of the next event). Own cache line.
    head: AtomicU64,
    reserved2: [AtomicU64; 7],
}

/// The header of one cell; the payload words follow it.
#[repr(C)]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
struct CellHeader {
    /// See the state table in the module docs.
    seq: AtomicU64,
    /// Payload length in bytes of the event in the cell.
    len: AtomicU32,
    reserved: AtomicU32,
}

/// One cell as seen through atomics.
struct CellRef<'a> {
    header: &'a CellHeader,
    words: &'a [AtomicU64],
}

const fn seq_writing(index: u64) -> u64 {
    index.saturating_mul(2).saturating_add(1)
}

const fn seq_written(index: u64) -> u64 {
    index.saturating_mul(2).saturating_add(2)
}

// ---------------------------------------------------------------------------
// Storage: raw shared memory outside loom, boxed loom atomics under loom.

#[cfg(not(loom))]
struct Storage {
    base: NonNull<u8>,
    _owner: Option<KeepAlive>,
}

#[cfg(loom)]
struct LoomCell {
    header: CellHeader,
    words: Box<[AtomicU64]>,
}

#[cfg(loom)]
struct Storage {
    header: Box<BroadcastHeader>,
    cells: Box<[LoomCell]>,
}

struct Shared {
    storage: Storage,
    geom: Geometry,
}

// SAFETY: `Shared` only hands out shared references to atomics in memory that
// lives as long as it does (kept alive by `_owner`, or by the contract of
// `init_in`/`attach`); atomics may be used from any thread.
#[cfg(not(loom))]
unsafe impl Send for Shared {}
// SAFETY: as for `Send`: every access through `&Shared` is an atomic access.
#[cfg(not(loom))]
unsafe impl Sync for Shared {}

impl Shared {
    fn header(&self) -> &BroadcastHeader {
        #[cfg(not(loom))]
        {
            // SAFETY: `base` is 64-aligned and the region holds at least
            // `BROADCAST_HEADER_SIZE` bytes (checked by `init_in`/`attach`);
            // it outlives `self` (the keep-alive or the caller's contract);
            // the header is only atomics, valid for any bit pattern, so
            // concurrent writes by other processes are atomic accesses.
            unsafe { &*self.storage.base.as_ptr().cast::<BroadcastHeader>() }
        }
        #[cfg(loom)]
        {
            &self.storage.header
        }
    }

    fn cell(&self, index: u64) -> CellRef<'_> {
        let slot = (index % u64::from(self.geom.cell_count)) as usize;
        #[cfg(not(loom))]
        {
            let offset = BROADCAST_HEADER_SIZE + slot * self.geom.stride();
            // SAFETY: `slot < cell_count`, so the cell lies inside
            // `geom.memory_size()` bytes, which the region holds (checked
            // by `init_in`/`attach`); offset and stride are multiples of 64
            // from a 64-aligned base; the cell is only atomics (valid for
            // any bits) and outlives `self` as the header does.
            unsafe {
                let cell = self.storage.base.as_ptr().add(offset);
                CellRef {
                    header: &*cell.cast::<CellHeader>(),
                    words: std::slice::from_raw_parts(
                        cell.add(CELL_HEADER_SIZE).cast::<AtomicU64>(),
                        self.geom.words(),
                    ),
                }
            }
        }
        #[cfg(loom)]
        {
            let cell = &self.storage.cells[slot];
            CellRef {
                header: &cell.header,
                words: &cell.words,
            }
        }
    }

    fn head(&self) -> u64 {
        // ORDERING: Acquire — pairs with the Release store of `head` in
        // `BroadcastWriter::write`; only used to position cursors, the cell
        // sequence words are what validate an event.
        self.header().head.load(Ordering::Acquire)
    }

    /// Oldest event index a reader can still hope to read.
    fn oldest(&self) -> u64 {
        self.head().saturating_sub(u64::from(self.geom.cell_count))
    }

    #[cfg(not(loom))]
    fn write_initial_image(&self) {
        let h = self.header();
        let g = self.geom;
        // ORDERING: Relaxed (all stores until `magic`) — published to
        // attachers by the Release store of `magic` below.
        h.layout_version
            .store(BROADCAST_LAYOUT_VERSION, Ordering::Relaxed);
        h.cell_count.store(g.cell_count, Ordering::Relaxed);
        h.payload_size.store(g.payload_size, Ordering::Relaxed);
        h.cell_stride.store(g.stride() as u32, Ordering::Relaxed);
        h.cells_offset
            .store(BROADCAST_HEADER_SIZE as u32, Ordering::Relaxed);
        h.head.store(0, Ordering::Relaxed);
        for i in 0..u64::from(g.cell_count) {
            let cell = self.cell(i);
            cell.header.seq.store(0, Ordering::Relaxed);
            cell.header.len.store(0, Ordering::Relaxed);
        }
        // ORDERING: Release — pairs with the Acquire load of `magic` in
        // `BroadcastReader::attach`: the fields above are visible to an
        // attacher that sees the magic.
        h.magic.store(BROADCAST_MAGIC, Ordering::Release);
    }
}

// ---------------------------------------------------------------------------
// Errors.

/// Why [`BroadcastWriter::init_in`] refused a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadcastInitError {
    /// `cell_count` is 0 or above [`MAX_CELL_COUNT`], or `payload_size` is
    /// above [`MAX_PAYLOAD_SIZE`].
    InvalidParams {
        /// The requested cell count.
        cell_count: u32,
        /// The requested payload size.
        payload_size: u32,
    },
    /// The region does not start on a 64-byte boundary.
    Misaligned,
    /// The region is shorter than [`BroadcastWriter::memory_size`].
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
}

/// Why [`BroadcastReader::attach`] refused a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadcastAttachError {
    /// The region does not start on a 64-byte boundary.
    Misaligned,
    /// The region is shorter than its header says it needs.
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
    /// The magic word is still 0: the writer has not finished `init_in`.
    NotReady,
    /// The magic word is not [`BROADCAST_MAGIC`].
    BadMagic {
        /// The word found.
        found: u64,
    },
    /// The layout version is not [`BROADCAST_LAYOUT_VERSION`].
    VersionMismatch {
        /// The version found.
        found: u32,
    },
    /// Cell count, payload size, stride or cells offset are out of range or
    /// inconsistent.
    BadGeometry,
}

/// [`BroadcastWriter::write`] was given more bytes than a cell holds; the
/// caller must use another path (e.g. a direct message) for this event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PayloadTooLarge {
    /// Length of the refused payload.
    pub len: usize,
    /// Payload capacity of a cell.
    pub max: usize,
}

/// Why [`BroadcastReader::read_next`] returned no event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The next event has not been written (or is being written).
    Empty,
    /// The writer overwrote `missed` events before this reader got to them.
    /// The cursor has moved to the oldest event still available; the next
    /// call reads it.
    Lapped {
        /// Events lost to this reader.
        missed: u64,
    },
    /// The cell for event `index` is complete but its length exceeds the
    /// cell (a writer bug or a corrupted segment). The event is skipped.
    Corrupt {
        /// The skipped event.
        index: u64,
    },
}

impl fmt::Display for BroadcastInitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidParams {
                cell_count,
                payload_size,
            } => write!(
                f,
                "invalid broadcast parameters: {cell_count} cells of {payload_size} bytes"
            ),
            Self::Misaligned => f.write_str("broadcast region is not 64-byte aligned"),
            Self::RegionTooSmall { needed, len } => {
                write!(
                    f,
                    "broadcast region too small: {len} bytes, {needed} needed"
                )
            }
        }
    }
}

impl fmt::Display for BroadcastAttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Misaligned => f.write_str("broadcast region is not 64-byte aligned"),
            Self::RegionTooSmall { needed, len } => {
                write!(
                    f,
                    "broadcast region too small: {len} bytes, {needed} needed"
                )
            }
            Self::NotReady => f.write_str("broadcast region not initialised yet"),
            Self::BadMagic { found } => write!(f, "bad broadcast magic {found:#018x}"),
            Self::VersionMismatch { found } => write!(
                f,
                "broadcast layout version {found}, expected {BROADCAST_LAYOUT_VERSION}"
            ),
            Self::BadGeometry => f.write_str("broadcast header geometry is inconsistent"),
        }
    }
}

impl fmt::Display for PayloadTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event payload of {} bytes exceeds the {}-byte cell",
            self.len, self.max
        )
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("no new event"),
            Self::Lapped { missed } => write!(f, "lapped by the writer: {missed} events missed"),
            Self::Corrupt { index } => write!(f, "event {index} is corrupt and was skipped"),
        }
    }
}

impl std::error::Error for BroadcastInitError {}
impl std::error::Error for BroadcastAttachError {}
impl std::error::Error for PayloadTooLarge {}
impl std::error::Error for ReadError {}

impl From<BroadcastInitError> for pmix_core::Error {
    fn from(e: BroadcastInitError) -> Self {
        let status = match e {
            BroadcastInitError::InvalidParams { .. } => pmix_core::Status::ERR_BAD_PARAM,
            _ => pmix_core::Status::ERR_INIT,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<BroadcastAttachError> for pmix_core::Error {
    fn from(e: BroadcastAttachError) -> Self {
        let status = match e {
            BroadcastAttachError::VersionMismatch { .. } => pmix_core::Status::ERR_NOT_SUPPORTED,
            _ => pmix_core::Status::ERR_INIT,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<PayloadTooLarge> for pmix_core::Error {
    fn from(e: PayloadTooLarge) -> Self {
        pmix_core::Error::with_context(pmix_core::Status::ERR_OUT_OF_RESOURCE, e.to_string())
    }
}

// ---------------------------------------------------------------------------
// Writer.

/// The single writer of a broadcast ring (the server).
///
/// Writing never waits: the oldest event is overwritten.
pub struct BroadcastWriter {
    shared: Arc<Shared>,
    /// Index of the next event; the writer is the only one to advance it.
    next: u64,
}

impl fmt::Debug for BroadcastWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastWriter")
            .field("cell_count", &self.shared.geom.cell_count)
            .field("payload_capacity", &self.shared.geom.payload_size)
            .field("next", &self.next)
            .finish()
    }
}

impl BroadcastWriter {
    /// Bytes of shared memory a ring with `params` needs (a multiple of 64).
    /// For parameters [`init_in`](Self::init_in) would reject, the size of
    /// the clamped parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::broadcast::{BroadcastParams, BroadcastWriter};
    /// // 128-byte header + 512 cells of 1 KiB.
    /// assert_eq!(BroadcastWriter::memory_size(&BroadcastParams::default()), 128 + 512 * 1024);
    /// ```
    pub fn memory_size(params: &BroadcastParams) -> usize {
        let clamped = BroadcastParams {
            cell_count: params.cell_count.clamp(1, MAX_CELL_COUNT),
            payload_size: params.payload_size.min(MAX_PAYLOAD_SIZE),
        };
        clamped
            .geometry()
            .map_or(BROADCAST_HEADER_SIZE, |g| g.memory_size())
    }

    /// Writes the initial image of a ring into `len` bytes at `base` and
    /// returns its writer. The magic word is written last.
    ///
    /// # Safety
    ///
    /// `base` must be valid for reads and writes of `len` bytes for as long
    /// as the returned writer and every reader made from it exist (use
    /// [`init_in_owned`](Self::init_in_owned) to tie that to an owner), and
    /// nothing else in this process may access those bytes except through
    /// these handles. Other processes may map the same bytes.
    ///
    /// # Errors
    ///
    /// [`BroadcastInitError`] for bad parameters, a misaligned base, or a
    /// region shorter than [`memory_size`](Self::memory_size).
    #[cfg(not(loom))]
    pub unsafe fn init_in(
        base: NonNull<u8>,
        len: usize,
        params: &BroadcastParams,
    ) -> Result<Self, BroadcastInitError> {
        // SAFETY: forwarded contract.
        unsafe { Self::init_with(base, len, params, None) }
    }

    /// [`init_in`](Self::init_in), holding `owner` (the mapping) alive for
    /// as long as any handle exists.
    ///
    /// # Safety
    ///
    /// As [`init_in`](Self::init_in), except that the memory only needs to
    /// live as long as `owner`.
    ///
    /// # Errors
    ///
    /// As [`init_in`](Self::init_in).
    #[cfg(not(loom))]
    pub unsafe fn init_in_owned(
        base: NonNull<u8>,
        len: usize,
        params: &BroadcastParams,
        owner: KeepAlive,
    ) -> Result<Self, BroadcastInitError> {
        // SAFETY: forwarded contract.
        unsafe { Self::init_with(base, len, params, Some(owner)) }
    }

    #[cfg(not(loom))]
    unsafe fn init_with(
        base: NonNull<u8>,
        len: usize,
        params: &BroadcastParams,
        owner: Option<KeepAlive>,
    ) -> Result<Self, BroadcastInitError> {
        let geom = params.geometry()?;
        if base.as_ptr() as usize % REGION_ALIGN != 0 {
            return Err(BroadcastInitError::Misaligned);
        }
        let needed = geom.memory_size();
        if len < needed {
            return Err(BroadcastInitError::RegionTooSmall { needed, len });
        }
        let shared = Shared {
            storage: Storage {
                base,
                _owner: owner,
            },
            geom,
        };
        shared.write_initial_image();
        Ok(Self {
            shared: Arc::new(shared),
            next: 0,
        })
    }

    /// A ring in memory owned by the returned writer (tests, one process;
    /// the only constructor under `cfg(loom)`).
    ///
    /// # Panics
    ///
    /// Panics if `params` are invalid (see [`BroadcastParams`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::broadcast::{BroadcastParams, BroadcastWriter};
    /// let w = BroadcastWriter::new_heap(&BroadcastParams::default());
    /// assert_eq!(w.cell_count(), 512);
    /// ```
    pub fn new_heap(params: &BroadcastParams) -> Self {
        let geom = params.geometry().expect("invalid broadcast parameters");
        #[cfg(not(loom))]
        {
            let region = Arc::new(HeapRegion::zeroed(geom.memory_size()));
            let (base, len) = (region.base(), region.len());
            // SAFETY: the region is valid for `len` bytes, 64-aligned, owned
            // by nobody else, and kept alive by the handles through `owner`.
            unsafe { Self::init_in_owned(base, len, params, region) }
                .expect("heap region fits its own parameters")
        }
        #[cfg(loom)]
        {
            let zero = || AtomicU64::new(0);
            let header = Box::new(BroadcastHeader {
                magic: AtomicU64::new(BROADCAST_MAGIC),
                layout_version: AtomicU32::new(BROADCAST_LAYOUT_VERSION),
                cell_count: AtomicU32::new(geom.cell_count),
                payload_size: AtomicU32::new(geom.payload_size),
                cell_stride: AtomicU32::new(geom.stride() as u32),
                cells_offset: AtomicU32::new(BROADCAST_HEADER_SIZE as u32),
                reserved0: AtomicU32::new(0),
                reserved1: std::array::from_fn(|_| zero()),
                head: AtomicU64::new(0),
                reserved2: std::array::from_fn(|_| zero()),
            });
            let cells = (0..geom.cell_count)
                .map(|_| LoomCell {
                    header: CellHeader {
                        seq: AtomicU64::new(0),
                        len: AtomicU32::new(0),
                        reserved: AtomicU32::new(0),
                    },
                    words: (0..geom.words()).map(|_| zero()).collect(),
                })
                .collect();
            Self {
                shared: Arc::new(Shared {
                    storage: Storage { header, cells },
                    geom,
                }),
                next: 0,
            }
        }
    }

    /// Writes one event and returns its index. Never waits: if the ring is
    /// full, the oldest event is overwritten.
    ///
    /// # Errors
    ///
    /// [`PayloadTooLarge`] if `payload` exceeds
    /// [`payload_capacity`](Self::payload_capacity); nothing is written.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::broadcast::{BroadcastParams, BroadcastWriter};
    /// let mut w = BroadcastWriter::new_heap(&BroadcastParams { cell_count: 2, payload_size: 48 });
    /// assert_eq!(w.write(b"a").unwrap(), 0);
    /// assert_eq!(w.write(b"b").unwrap(), 1);
    /// assert!(w.write(&[0; 49]).is_err());
    /// ```
    pub fn write(&mut self, payload: &[u8]) -> Result<u64, PayloadTooLarge> {
        let shared = &*self.shared;
        let max = shared.geom.payload_size as usize;
        if payload.len() > max {
            return Err(PayloadTooLarge {
                len: payload.len(),
                max,
            });
        }
        let index = self.next;
        let cell = shared.cell(index);
        // ORDERING: Relaxed — the odd value reaches readers through the
        // Release fence just below, not through this store.
        cell.header.seq.store(seq_writing(index), Ordering::Relaxed);
        // ORDERING: Release fence — pairs with the Acquire fence in
        // `BroadcastReader::read_next_into`: a reader whose copy loads any
        // `len`/word stored below also sees the odd `seq` (or later) on its
        // re-check, and rejects the copy.
        fence(Ordering::Release);
        // ORDERING: Relaxed — published by the Release store of the even seq.
        cell.header
            .len
            .store(payload.len() as u32, Ordering::Relaxed);
        for (word, chunk) in cell.words.iter().zip(payload.chunks(8)) {
            let mut bytes = [0u8; 8];
            bytes[..chunk.len()].copy_from_slice(chunk);
            // ORDERING: Relaxed — as `len`.
            word.store(u64::from_le_bytes(bytes), Ordering::Relaxed);
        }
        // ORDERING: Release — pairs with the Acquire load of `seq` (`s1`) in
        // `BroadcastReader::read_next_into`: the `len` and words above are
        // visible to a reader that sees `2i + 2`.
        cell.header.seq.store(seq_written(index), Ordering::Release);
        // ORDERING: Release — pairs with the Acquire load in `Shared::head`:
        // a reader that positions itself from `head` finds this event's
        // cell complete.
        shared
            .header()
            .head
            .store(index.wrapping_add(1), Ordering::Release);
        self.next = index.wrapping_add(1);
        Ok(index)
    }

    /// A reader of this ring, positioned at the oldest event still cached.
    pub fn reader(&self) -> BroadcastReader {
        let mut reader = BroadcastReader {
            shared: Arc::clone(&self.shared),
            cursor: 0,
        };
        reader.seek_oldest();
        reader
    }

    /// Number of events written so far (the index of the next one).
    pub fn written(&self) -> u64 {
        self.next
    }

    /// Number of cells (events kept).
    pub fn cell_count(&self) -> u32 {
        self.shared.geom.cell_count
    }

    /// Largest payload one event may carry.
    pub fn payload_capacity(&self) -> usize {
        self.shared.geom.payload_size as usize
    }
}

// ---------------------------------------------------------------------------
// Reader.

/// One event read from the ring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The event's global index (0 for the first event ever written).
    pub index: u64,
    /// The opaque payload bytes.
    pub payload: Vec<u8>,
}

/// What [`BroadcastReader::snapshot`] saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The cached events, oldest first, indices strictly increasing.
    pub events: Vec<Event>,
    /// Events that were overwritten while the snapshot was taken.
    pub missed: u64,
    /// Index after the last event considered: continue from here with
    /// [`BroadcastReader::seek`] to see every later event exactly once.
    pub next: u64,
}

/// A read-only reader with its own cursor. Never writes to the ring; cloning
/// copies the cursor.
#[derive(Clone)]
pub struct BroadcastReader {
    shared: Arc<Shared>,
    /// The next event index this reader wants (process-local).
    cursor: u64,
}

impl fmt::Debug for BroadcastReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BroadcastReader")
            .field("cell_count", &self.shared.geom.cell_count)
            .field("cursor", &self.cursor)
            .finish()
    }
}

impl BroadcastReader {
    /// Attaches to a ring another process initialised, validating its
    /// header; the reader starts at the oldest cached event. The reader only
    /// ever loads from the region, so it may be mapped read-only.
    ///
    /// # Safety
    ///
    /// `base` must be valid for reads of `len` bytes for as long as the
    /// returned reader (and its clones) exist (see
    /// [`attach_owned`](Self::attach_owned)). The bytes may be anything: a
    /// garbage header is reported, never trusted.
    ///
    /// # Errors
    ///
    /// [`BroadcastAttachError`] when the header is not a complete, valid
    /// ring of this layout version that fits in `len` bytes.
    #[cfg(not(loom))]
    pub unsafe fn attach(base: NonNull<u8>, len: usize) -> Result<Self, BroadcastAttachError> {
        // SAFETY: forwarded contract.
        unsafe { Self::attach_with(base, len, None) }
    }

    /// [`attach`](Self::attach), holding `owner` (the mapping) alive.
    ///
    /// # Safety
    ///
    /// As [`attach`](Self::attach), except that the memory only needs to
    /// live as long as `owner`.
    ///
    /// # Errors
    ///
    /// As [`attach`](Self::attach).
    #[cfg(not(loom))]
    pub unsafe fn attach_owned(
        base: NonNull<u8>,
        len: usize,
        owner: KeepAlive,
    ) -> Result<Self, BroadcastAttachError> {
        // SAFETY: forwarded contract.
        unsafe { Self::attach_with(base, len, Some(owner)) }
    }

    #[cfg(not(loom))]
    unsafe fn attach_with(
        base: NonNull<u8>,
        len: usize,
        owner: Option<KeepAlive>,
    ) -> Result<Self, BroadcastAttachError> {
        if base.as_ptr() as usize % REGION_ALIGN != 0 {
            return Err(BroadcastAttachError::Misaligned);
        }
        if len < BROADCAST_HEADER_SIZE {
            return Err(BroadcastAttachError::RegionTooSmall {
                needed: BROADCAST_HEADER_SIZE,
                len,
            });
        }
        // Geometry is not known yet: a header-only view for validation.
        let probe = Shared {
            storage: Storage {
                base,
                _owner: owner,
            },
            geom: Geometry {
                cell_count: 1,
                payload_size: 0,
            },
        };
        let h = probe.header();
        // ORDERING: Acquire — pairs with the Release store of `magic` in
        // `write_initial_image`: the geometry fields below are the writer's.
        let magic = h.magic.load(Ordering::Acquire);
        if magic == 0 {
            return Err(BroadcastAttachError::NotReady);
        }
        if magic != BROADCAST_MAGIC {
            return Err(BroadcastAttachError::BadMagic { found: magic });
        }
        // ORDERING: Relaxed (the geometry loads) — ordered by the Acquire
        // load of `magic` above.
        let version = h.layout_version.load(Ordering::Relaxed);
        if version != BROADCAST_LAYOUT_VERSION {
            return Err(BroadcastAttachError::VersionMismatch { found: version });
        }
        let cell_count = h.cell_count.load(Ordering::Relaxed);
        let payload_size = h.payload_size.load(Ordering::Relaxed);
        let stride = h.cell_stride.load(Ordering::Relaxed) as usize;
        let cells_offset = h.cells_offset.load(Ordering::Relaxed) as usize;
        let geom = BroadcastParams {
            cell_count,
            payload_size,
        }
        .geometry()
        .map_err(|_| BroadcastAttachError::BadGeometry)?;
        if geom.payload_size != payload_size
            || geom.stride() != stride
            || cells_offset != BROADCAST_HEADER_SIZE
        {
            return Err(BroadcastAttachError::BadGeometry);
        }
        let needed = geom.memory_size();
        if len < needed {
            return Err(BroadcastAttachError::RegionTooSmall { needed, len });
        }
        let mut reader = Self {
            shared: Arc::new(Shared {
                storage: probe.storage,
                geom,
            }),
            cursor: 0,
        };
        reader.seek_oldest();
        Ok(reader)
    }

    /// Reads the next event.
    ///
    /// # Errors
    ///
    /// * [`ReadError::Empty`]: nothing new (the cursor stays).
    /// * [`ReadError::Lapped`]: the writer overwrote events this reader had
    ///   not read; the cursor moved to the oldest available one.
    /// * [`ReadError::Corrupt`]: the event's cell is inconsistent; skipped.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::broadcast::{BroadcastParams, BroadcastWriter, ReadError};
    /// let mut w = BroadcastWriter::new_heap(&BroadcastParams::default());
    /// let mut r = w.reader();
    /// w.write(b"ev").unwrap();
    /// let ev = r.read_next().unwrap();
    /// assert_eq!((ev.index, ev.payload.as_slice()), (0, &b"ev"[..]));
    /// assert_eq!(r.read_next(), Err(ReadError::Empty));
    /// ```
    pub fn read_next(&mut self) -> Result<Event, ReadError> {
        let mut payload = Vec::new();
        let index = self.read_next_into(&mut payload)?;
        Ok(Event { index, payload })
    }

    /// [`read_next`](Self::read_next) into a caller's buffer (cleared
    /// first; its capacity is reused). Returns the event's index.
    ///
    /// # Errors
    ///
    /// As [`read_next`](Self::read_next); `buf` is then unspecified.
    pub fn read_next_into(&mut self, buf: &mut Vec<u8>) -> Result<u64, ReadError> {
        let shared = &*self.shared;
        let cap = u64::from(shared.geom.cell_count);
        let max = shared.geom.payload_size as usize;
        for _ in 0..MAX_READ_ROUNDS {
            let c = self.cursor;
            let want = seq_written(c);
            let cell = shared.cell(c);
            // ORDERING: Acquire — pairs with the Release store of the even
            // seq in `BroadcastWriter::write`: seeing `2c + 2` makes event
            // `c`'s `len` and words visible to the loads below.
            let s1 = cell.header.seq.load(Ordering::Acquire);
            if s1 < want {
                // Event `c` not started (an older lap, or never written) or
                // being written (`2c + 1`).
                return Err(ReadError::Empty);
            }
            if s1 > want {
                return Err(self.resync(s1, cap));
            }
            // ORDERING: Relaxed (len and words) — see the seqlock argument in
            // the module docs: validated by the re-check of `seq` below.
            let len = cell.header.len.load(Ordering::Relaxed) as usize;
            let n = len.min(max);
            buf.clear();
            buf.reserve(n.div_ceil(8) * 8);
            for word in &cell.words[..n.div_ceil(8)] {
                buf.extend_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
            }
            buf.truncate(n);
            // ORDERING: Acquire fence — pairs with the Release fence in
            // `BroadcastWriter::write` (after its odd seq store): if a load
            // above read a value of a later write of this cell, that write's
            // odd seq is visible to the load of `s2`.
            fence(Ordering::Acquire);
            // ORDERING: Relaxed — ordered by the fence above.
            let s2 = cell.header.seq.load(Ordering::Relaxed);
            if s2 != s1 {
                // Overwritten while copying: the next round sees the new lap
                // (coherence: `seq` cannot go back to `s1`) and reports it.
                continue;
            }
            self.cursor = c.saturating_add(1);
            if len > max {
                return Err(ReadError::Corrupt { index: c });
            }
            return Ok(c);
        }
        Err(ReadError::Empty)
    }

    /// The cursor was lapped: `s1` is a later lap's sequence word in the
    /// cursor's cell. Moves to the oldest event still available.
    fn resync(&mut self, s1: u64, cap: u64) -> ReadError {
        // The cell holds (or is writing) event `j`, so events before
        // `j + 1 - cap` are gone; `head` may say more are.
        let j = (s1 - 1) / 2;
        let target = j
            .saturating_add(1)
            .saturating_sub(cap)
            .max(self.shared.oldest())
            .max(self.cursor.saturating_add(1));
        let missed = target - self.cursor;
        self.cursor = target;
        ReadError::Lapped { missed }
    }

    /// Visits every cached event, oldest first, without moving this reader's
    /// cursor: the events in `[oldest, head)` as of the call. Events the
    /// writer overwrites during the visit are counted as missed. Returns
    /// `(visited, missed, next)` where `next` is the index after the range.
    pub fn for_each_available(&self, mut f: impl FnMut(u64, &[u8])) -> (u64, u64, u64) {
        let end = self.shared.head();
        let mut reader = self.clone();
        reader.cursor = end.saturating_sub(u64::from(self.shared.geom.cell_count));
        let (mut visited, mut missed) = (0, 0);
        let mut buf = Vec::new();
        while reader.cursor < end {
            let before = reader.cursor;
            match reader.read_next_into(&mut buf) {
                Ok(index) => {
                    visited += 1;
                    f(index, &buf);
                }
                Err(ReadError::Lapped { .. }) | Err(ReadError::Corrupt { .. }) => {
                    missed += reader.cursor.min(end) - before;
                }
                Err(ReadError::Empty) => break,
            }
        }
        (visited, missed, end)
    }

    /// Copies every cached event, oldest first, for replay to a handler
    /// that was just registered; this reader's cursor does not move.
    ///
    /// # Examples
    ///
    /// ```
    /// use pmix_shm::broadcast::{BroadcastParams, BroadcastWriter};
    /// let mut w = BroadcastWriter::new_heap(&BroadcastParams { cell_count: 2, payload_size: 8 });
    /// for e in [b"a", b"b", b"c"] {
    ///     w.write(e).unwrap();
    /// }
    /// let snap = w.reader().snapshot();
    /// let idx: Vec<u64> = snap.events.iter().map(|e| e.index).collect();
    /// assert_eq!((idx, snap.next), (vec![1, 2], 3));
    /// ```
    pub fn snapshot(&self) -> Snapshot {
        let mut events = Vec::new();
        let (_, missed, next) = self.for_each_available(|index, payload| {
            events.push(Event {
                index,
                payload: payload.to_vec(),
            });
        });
        Snapshot {
            events,
            missed,
            next,
        }
    }

    /// The next event index this reader will try.
    pub fn cursor(&self) -> u64 {
        self.cursor
    }

    /// Moves the cursor to `index` (e.g. [`Snapshot::next`]).
    pub fn seek(&mut self, index: u64) {
        self.cursor = index;
    }

    /// Moves the cursor to the oldest event still cached.
    pub fn seek_oldest(&mut self) {
        self.cursor = self.shared.oldest();
    }

    /// Moves the cursor past every event written so far: only new events
    /// will be read.
    pub fn seek_latest(&mut self) {
        self.cursor = self.shared.head();
    }

    /// Events written so far, as the ring's header says.
    pub fn written(&self) -> u64 {
        self.shared.head()
    }

    /// Number of cells (events kept).
    pub fn cell_count(&self) -> u32 {
        self.shared.geom.cell_count
    }

    /// Largest payload one event may carry.
    pub fn payload_capacity(&self) -> usize {
        self.shared.geom.payload_size as usize
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    fn params(cell_count: u32, payload_size: u32) -> BroadcastParams {
        BroadcastParams {
            cell_count,
            payload_size,
        }
    }

    #[test]
    fn header_and_cell_layout_match_the_documented_offsets() {
        assert_eq!(size_of::<BroadcastHeader>(), BROADCAST_HEADER_SIZE);
        assert_eq!(offset_of!(BroadcastHeader, magic), 0);
        assert_eq!(offset_of!(BroadcastHeader, layout_version), 8);
        assert_eq!(offset_of!(BroadcastHeader, cell_count), 12);
        assert_eq!(offset_of!(BroadcastHeader, payload_size), 16);
        assert_eq!(offset_of!(BroadcastHeader, cell_stride), 20);
        assert_eq!(offset_of!(BroadcastHeader, cells_offset), 24);
        assert_eq!(offset_of!(BroadcastHeader, reserved1), 32);
        assert_eq!(offset_of!(BroadcastHeader, head), 64);
        assert_eq!(size_of::<CellHeader>(), CELL_HEADER_SIZE);
        assert_eq!(offset_of!(CellHeader, seq), 0);
        assert_eq!(offset_of!(CellHeader, len), 8);
        assert_eq!(
            BroadcastWriter::memory_size(&BroadcastParams::default()),
            128 + 512 * 1024
        );
        assert_eq!(params(3, 100).payload_capacity(), 112);
        assert_eq!(BroadcastWriter::memory_size(&params(3, 100)), 128 + 3 * 128);
    }
}
