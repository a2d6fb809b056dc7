//! The ring's bytes: its header ([`RING_HEADER_SIZE`] bytes) and its
//! 64-byte cells, as `docs/SHM-LAYOUT.md` ("MPSC ring region") documents
//! them; the sizes and offsets are asserted at compile time.
//!
//! NB: hot words written by different cores (`tail`, `head` and the two
//! doorbells) sit [`HOT_LINE`] = 128 bytes apart, not 64. This machine is an
//! Ice Lake-SP (LIMITS.md §1) whose L2 spatial prefetcher fetches 64-byte
//! lines in aligned pairs, so two words 64 bytes apart still false-share;
//! crossbeam's `CachePadded` uses 128 on x86-64 for the same reason and
//! LIMITS.md §4.2 recommends it. Ring cells stay 64 bytes: they are written
//! and read as a stream, where the pair prefetch helps.

use crate::doorbell::Doorbell;
use crate::layout::CELL_SIZE;
#[cfg(not(loom))]
use crate::layout::{HOT_LINE, RING_HEADER_SIZE};
use crate::region::header::impl_header;
use crate::region::Plain;
use crate::sync::{AtomicU32, AtomicU64};

/// The ring header at the start of a ring region; cells follow it.
#[repr(C, align(128))]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub struct RingHeader {
    /// `"PXRG"`; the publication word (stored last, see `region::header`).
    pub(crate) magic: AtomicU32,
    /// `LAYOUT_VERSION`.
    pub(crate) version: AtomicU32,
    /// Number of 64-byte cells, a power of two.
    pub(crate) cells: AtomicU32,
    /// Most cells one record may take (`cells / 2`, at most `u16::MAX`).
    pub(crate) max_record_cells: AtomicU32,
    /// Reservations the consumer skipped (dead or stalled producers).
    pub(crate) lost: AtomicU64,
    /// Record headers the consumer found invalid and skipped.
    pub(crate) corrupt: AtomicU64,
    /// Pid of the process holding the consumer role; 0 = none.
    pub(crate) consumer_pid: AtomicU32,
    /// Where the consumer sleeps: 0 = on `doorbell` itself; otherwise its
    /// bits in the segment's wake group (`wake_group.rs`). Written by the
    /// consumer before it announces sleep (the announcement's Release
    /// publishes it), read by ringers after taking the announcement.
    pub(crate) consumer_wake_bits: AtomicU32,
    _reserved0: [u32; 22],
    /// Next position to reserve (in cells; never wraps in practice).
    pub(crate) tail: AtomicU64,
    _pad_tail: [u64; 15],
    /// Positions below this are free for producers (the consumer's release
    /// point).
    pub(crate) head: AtomicU64,
    _pad_head: [u64; 15],
    /// The consumer sleeps here; producers ring after committing.
    pub(crate) doorbell: Doorbell,
    _pad_doorbell: [u32; 31],
    /// Producers waiting for space sleep here; the consumer rings after
    /// releasing space.
    pub(crate) space: Doorbell,
    _pad_space: [u32; 31],
}

/// One 64-byte cell. A record's first cell starts with its state and meta
/// words; its payload runs on from byte 16, through the next cells of the
/// record, over their state and meta words (which are only read as such at
/// a record's first cell).
#[cfg(not(loom))]
#[repr(C, align(64))]
pub(crate) struct RingCell {
    /// The state word (`SlotState`).
    pub(crate) state: AtomicU64,
    /// The meta word (`RecordMeta`).
    pub(crate) meta: AtomicU64,
    /// Payload bytes, written by the claiming producer, read by the
    /// consumer after the commit.
    _payload: crate::sync::UnsafeCell<[u8; CELL_SIZE - 16]>,
}

/// One cell under loom: the payload is split so loom tracks the bytes that
/// overlap the state and meta words of a continuation cell.
#[cfg(loom)]
pub(crate) struct RingCell {
    pub(crate) state: AtomicU64,
    pub(crate) meta: AtomicU64,
    /// Bytes 0..16: the header words' bytes, which are payload in a
    /// continuation cell.
    pub(crate) head: crate::sync::UnsafeCell<[u8; 16]>,
    /// Bytes 16..64.
    pub(crate) body: crate::sync::UnsafeCell<[u8; CELL_SIZE - 16]>,
}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<RingHeader>() == RING_HEADER_SIZE);
    assert!(align_of::<RingHeader>() == HOT_LINE);
    assert!(offset_of!(RingHeader, magic) == 0);
    assert!(offset_of!(RingHeader, version) == 4);
    assert!(offset_of!(RingHeader, cells) == 8);
    assert!(offset_of!(RingHeader, max_record_cells) == 12);
    assert!(offset_of!(RingHeader, lost) == 16);
    assert!(offset_of!(RingHeader, corrupt) == 24);
    assert!(offset_of!(RingHeader, consumer_pid) == 32);
    assert!(offset_of!(RingHeader, consumer_wake_bits) == 36);
    assert!(offset_of!(RingHeader, tail) == HOT_LINE);
    assert!(offset_of!(RingHeader, head) == 2 * HOT_LINE);
    assert!(offset_of!(RingHeader, doorbell) == 3 * HOT_LINE);
    assert!(offset_of!(RingHeader, space) == 4 * HOT_LINE);
    assert!(size_of::<Doorbell>() == 4);
    assert!(size_of::<RingCell>() == CELL_SIZE);
    assert!(align_of::<RingCell>() == CELL_SIZE);
    assert!(offset_of!(RingCell, state) == 0);
    assert!(offset_of!(RingCell, meta) == 8);
};

// SAFETY: `repr(C)`, atomics (the doorbells are `repr(transparent)` futex
// words) and never-read padding arrays; zero is a valid value of each.
unsafe impl Plain for RingHeader {
    #[cfg(loom)]
    fn zeroed() -> Self {
        RingHeader {
            magic: AtomicU32::new(0),
            version: AtomicU32::new(0),
            cells: AtomicU32::new(0),
            max_record_cells: AtomicU32::new(0),
            lost: AtomicU64::new(0),
            corrupt: AtomicU64::new(0),
            consumer_pid: AtomicU32::new(0),
            consumer_wake_bits: AtomicU32::new(0),
            _reserved0: [0; 22],
            tail: AtomicU64::new(0),
            _pad_tail: [0; 15],
            head: AtomicU64::new(0),
            _pad_head: [0; 15],
            doorbell: Doorbell::new(),
            _pad_doorbell: [0; 31],
            space: Doorbell::new(),
            _pad_space: [0; 31],
        }
    }
}

// SAFETY: `repr(C)`: two atomics and bytes reached only by the producer
// that owns the record's claim and, after its Release commit, the consumer
// (`RingInner::write_payload` / `read_payload`); any bits are valid.
unsafe impl Plain for RingCell {
    #[cfg(loom)]
    fn zeroed() -> Self {
        RingCell {
            state: AtomicU64::new(0),
            meta: AtomicU64::new(0),
            head: crate::sync::UnsafeCell::new([0; 16]),
            body: crate::sync::UnsafeCell::new([0; CELL_SIZE - 16]),
        }
    }
}

impl_header!(RingHeader, magic: AtomicU32, version);
