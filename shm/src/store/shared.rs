//! The store's shared control block: header, reader slots and table
//! buffers (the parts of its region), and the slot operations every handle
//! shares.

use crate::region::header::impl_header;
use crate::region::{Part, Plain};
use crate::sync::{AtomicU32, AtomicU64, Ordering, UnsafeCell};
#[cfg(loom)]
use crate::sync::{ConstPtr, MutPtr};

/// `"PMIXSTOR"`: the first word of an initialised store region.
pub const STORE_MAGIC: u64 = u64::from_le_bytes(*b"PMIXSTOR");
/// The layout version this build writes and accepts.
pub const STORE_LAYOUT_VERSION: u32 = 1;
/// Bytes of the store header (two cache lines).
pub const STORE_HEADER_SIZE: usize = 128;
/// Bytes of one reader slot (one cache line).
pub const READER_SLOT_SIZE: usize = 64;
/// Fewest table buffers (the current one and one to build the next in).
pub const MIN_BUFFERS: u32 = 2;
/// Most table buffers (the pin array of a reader slot has this many).
pub const MAX_BUFFERS: u32 = 8;
/// Most reader slots.
pub const MAX_READER_SLOTS: u32 = 1 << 16;
/// Largest table buffer (the image uses 32-bit offsets).
pub const MAX_BUFFER_SIZE: usize = 1 << 31;
/// Bits of the buffer index in the `current` word.
pub(crate) const INDEX_BITS: u32 = 8;

/// Sizes of a store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreParams {
    /// Table buffers, `MIN_BUFFERS..=MAX_BUFFERS`. One is current; the
    /// others take new versions while readers may still hold older ones.
    pub buffer_count: u32,
    /// Bytes per table buffer (rounded up to a multiple of 64), at most
    /// [`MAX_BUFFER_SIZE`]; the largest table image that can be published.
    pub buffer_size: usize,
    /// Reader slots, `1..=MAX_READER_SLOTS`: how many reader handles
    /// (typically one per client process) can be attached at once.
    pub reader_slots: u32,
}

impl Default for StoreParams {
    fn default() -> Self {
        Self {
            buffer_count: 3,
            buffer_size: 1 << 20,
            reader_slots: 256,
        }
    }
}

/// A store's validated sizes, copied out of the header once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreGeometry {
    pub(crate) buffer_count: u32,
    pub(crate) buffer_size: usize,
    pub(crate) reader_slots: u32,
}

impl StoreGeometry {
    pub(crate) fn new(p: &StoreParams) -> Option<Self> {
        let buffer_size = p.buffer_size.checked_add(63)? & !63;
        let ok = (MIN_BUFFERS..=MAX_BUFFERS).contains(&p.buffer_count)
            && (1..=MAX_READER_SLOTS).contains(&p.reader_slots)
            && (64..=MAX_BUFFER_SIZE).contains(&buffer_size);
        ok.then_some(Self {
            buffer_count: p.buffer_count,
            buffer_size,
            reader_slots: p.reader_slots,
        })
    }

    pub(crate) fn buffers_offset(&self) -> usize {
        STORE_HEADER_SIZE + self.reader_slots as usize * READER_SLOT_SIZE
    }

    pub(crate) fn memory_size(&self) -> usize {
        self.buffers_offset() + self.buffer_count as usize * self.buffer_size
    }
}

/// The region header. Zero is a valid (not yet initialised) image.
#[repr(C)]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub struct StoreHeader {
    pub(crate) magic: AtomicU64,
    pub(crate) layout_version: AtomicU32,
    pub(crate) buffer_count: AtomicU32,
    pub(crate) reader_slots: AtomicU32,
    pub(crate) reserved0: AtomicU32,
    pub(crate) buffer_size: AtomicU64,
    pub(crate) slots_offset: AtomicU64,
    pub(crate) buffers_offset: AtomicU64,
    pub(crate) reserved1: [AtomicU64; 2],
    /// The publication word: `generation << 8 | buffer`, 0 = none yet.
    /// Own cache line.
    pub(crate) current: AtomicU64,
    pub(crate) reserved2: [AtomicU64; 7],
}

/// One reader's announcement of what it is reading. One cache line, written
/// by its owner (and by the writer only when it reaps a dead owner).
#[repr(C)]
#[cfg_attr(not(loom), derive(bytemuck::Zeroable))]
pub(crate) struct ReaderSlot {
    /// Process id of the owner; 0 = free.
    pub(crate) owner: AtomicU32,
    pub(crate) reserved0: AtomicU32,
    /// `pins[b]`: reads of buffer `b` in progress (or being validated).
    pub(crate) pins: [AtomicU32; MAX_BUFFERS as usize],
    pub(crate) reserved1: [AtomicU64; 3],
}

#[cfg(not(loom))]
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<StoreHeader>() == STORE_HEADER_SIZE);
    assert!(offset_of!(StoreHeader, magic) == 0);
    assert!(offset_of!(StoreHeader, layout_version) == 8);
    assert!(offset_of!(StoreHeader, buffer_count) == 12);
    assert!(offset_of!(StoreHeader, reader_slots) == 16);
    assert!(offset_of!(StoreHeader, buffer_size) == 24);
    assert!(offset_of!(StoreHeader, slots_offset) == 32);
    assert!(offset_of!(StoreHeader, buffers_offset) == 40);
    assert!(offset_of!(StoreHeader, current) == 64);
    assert!(size_of::<ReaderSlot>() == READER_SLOT_SIZE);
    assert!(offset_of!(ReaderSlot, owner) == 0);
    assert!(offset_of!(ReaderSlot, pins) == 8);
};

// SAFETY: `repr(C)`, only atomics; zero is a valid value of each.
unsafe impl Plain for StoreHeader {
    #[cfg(loom)]
    fn zeroed() -> Self {
        let zero = || AtomicU64::new(0);
        StoreHeader {
            magic: zero(),
            layout_version: AtomicU32::new(0),
            buffer_count: AtomicU32::new(0),
            reader_slots: AtomicU32::new(0),
            reserved0: AtomicU32::new(0),
            buffer_size: zero(),
            slots_offset: zero(),
            buffers_offset: zero(),
            reserved1: std::array::from_fn(|_| zero()),
            current: zero(),
            reserved2: std::array::from_fn(|_| zero()),
        }
    }
}

// SAFETY: `repr(C)`, only atomics; zero is a valid value of each.
unsafe impl Plain for ReaderSlot {
    #[cfg(loom)]
    fn zeroed() -> Self {
        ReaderSlot {
            owner: AtomicU32::new(0),
            reserved0: AtomicU32::new(0),
            pins: std::array::from_fn(|_| AtomicU32::new(0)),
            reserved1: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl_header!(StoreHeader, magic: AtomicU64, layout_version);

/// The table buffers' bytes: in shared memory one `UnsafeCell` per byte
/// (`buffer_count × buffer_size` of them); under loom one tracked cell per
/// buffer.
#[cfg(not(loom))]
pub(crate) type BufferCell = UnsafeCell<u8>;
/// The table buffers' bytes: in shared memory one `UnsafeCell` per byte
/// (`buffer_count × buffer_size` of them); under loom one tracked cell per
/// buffer.
#[cfg(loom)]
pub(crate) type BufferCell = UnsafeCell<Box<[u8]>>;

// SAFETY: bytes written by the one writer only in a buffer no reader has
// pinned, and read by readers only under a validated pin (the protocol of
// `StoreReader::pin` / `StoreWriter::find_free_buffer`); any bits are valid.
unsafe impl Plain for BufferCell {
    /// An empty buffer: `loom_parts` builds the real ones with their size.
    #[cfg(loom)]
    fn zeroed() -> Self {
        UnsafeCell::new(Box::new([]))
    }
}

/// What every handle of one store shares.
pub(crate) struct Shared {
    pub(crate) header: Part<StoreHeader>,
    pub(crate) slots: Part<ReaderSlot>,
    pub(crate) buffers: Part<BufferCell>,
    pub(crate) geom: StoreGeometry,
}

/// A read access to one buffer; under loom it is tracked by the cell.
pub(crate) struct BufferRead<'a> {
    pub(crate) bytes: &'a [u8],
    #[cfg(loom)]
    _track: ConstPtr<Box<[u8]>>,
}

/// A write access to one buffer; under loom it is tracked by the cell.
pub(crate) struct BufferWrite<'a> {
    pub(crate) bytes: &'a mut [u8],
    #[cfg(loom)]
    _track: MutPtr<Box<[u8]>>,
}

impl Shared {
    pub(crate) fn header(&self) -> &StoreHeader {
        &self.header[0]
    }

    /// Reader slot `i` (`i < reader_slots`).
    pub(crate) fn slot(&self, i: usize) -> &ReaderSlot {
        &self.slots[i]
    }

    /// Every reader slot.
    pub(crate) fn slots(&self) -> impl Iterator<Item = &ReaderSlot> {
        self.slots.iter()
    }

    /// Reads buffer `b`.
    ///
    /// # Safety
    ///
    /// `b < buffer_count`, and the caller holds a validated pin on `b` (a
    /// pin announced before `current` was seen, again, to name `b`), so no
    /// writer writes it until the pin is dropped; the access must end
    /// before the pin is released.
    pub(crate) unsafe fn buffer_read(&self, b: usize) -> BufferRead<'_> {
        #[cfg(not(loom))]
        {
            // SAFETY: the buffer lies inside the buffers part (b <
            // buffer_count, checked geometry), lives as long as `self`, and
            // is not written while the caller's pin is held (caller
            // contract); `UnsafeCell<u8>` has the layout of `u8`.
            let bytes = unsafe {
                std::slice::from_raw_parts(self.buffer_start(b).cast_const(), self.geom.buffer_size)
            };
            BufferRead { bytes }
        }
        #[cfg(loom)]
        {
            let track = self.buffers[b].get();
            // SAFETY: loom tracks the access for as long as `track` lives;
            // the boxed bytes do not move while `self` lives.
            let bytes = unsafe { &*(&**track.deref() as *const [u8]) };
            BufferRead {
                bytes,
                _track: track,
            }
        }
    }

    /// Writes buffer `b`.
    ///
    /// # Safety
    ///
    /// `b < buffer_count`; the caller is the only writer, `b` is not the
    /// current buffer, and a scan after the last store of `current` found
    /// no pin on `b` (so no reader reads it, and none will, until it is
    /// published again); the access must end before `current` names `b`.
    pub(crate) unsafe fn buffer_write(&self, b: usize) -> BufferWrite<'_> {
        #[cfg(not(loom))]
        {
            // SAFETY: in bounds as in `buffer_read`; exclusive by the caller
            // contract (no reader holds or will validate a pin on `b`).
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(self.buffer_start(b), self.geom.buffer_size)
            };
            BufferWrite { bytes }
        }
        #[cfg(loom)]
        {
            let track = self.buffers[b].get_mut();
            // SAFETY: loom tracks the access while `track` lives; the boxed
            // bytes do not move while `self` lives.
            let bytes = unsafe { &mut *(&mut **track.deref() as *mut [u8]) };
            BufferWrite {
                bytes,
                _track: track,
            }
        }
    }

    /// The first byte of buffer `b` (`b < buffer_count`).
    #[cfg(not(loom))]
    fn buffer_start(&self, b: usize) -> *mut u8 {
        debug_assert!(b < self.geom.buffer_count as usize);
        self.buffers
            .as_ptr()
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(b * self.geom.buffer_size)
    }

    /// Claims a free reader slot for process `pid`.
    pub(crate) fn claim_slot(&self, pid: u32) -> Option<usize> {
        (0..self.geom.reader_slots as usize).find(|&i| {
            // ORDERING: AcqRel on success — Acquire pairs with the Release
            // that freed the slot (its pins are 0); Release publishes the
            // claim. Relaxed on failure: the slot is taken, nothing is read.
            self.slot(i)
                .owner
                .compare_exchange(0, pid, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Frees slot `i`: its owner's last handle is gone. Pins left by
    /// leaked guards (`mem::forget`) are cleared: no borrow of a dropped
    /// handle can still be reading.
    pub(crate) fn release_slot(&self, i: usize) {
        let slot = self.slot(i);
        for pin in &slot.pins {
            // ORDERING: Release — pairs with the Acquire pin loads in
            // `StoreWriter::find_free_buffer`, as an unpin does.
            pin.store(0, Ordering::Release);
        }
        // ORDERING: Release — pairs with the Acquire of the next claimer's
        // CAS in `claim_slot`.
        slot.owner.store(0, Ordering::Release);
    }

    /// Clears the pins of slot `i` owned by `pid` and frees it; false if
    /// the owner changed meanwhile.
    pub(crate) fn reap_slot(&self, i: usize, pid: u32) -> bool {
        let slot = self.slot(i);
        for pin in &slot.pins {
            // ORDERING: Relaxed — the dead owner will not touch its pins
            // again; the next claimer sees these zeros through the Release
            // CAS below.
            pin.store(0, Ordering::Relaxed);
        }
        // ORDERING: Release on success — pairs with the Acquire of the next
        // claimer in `claim_slot`. Relaxed on failure: nothing to publish.
        slot.owner
            .compare_exchange(pid, 0, Ordering::Release, Ordering::Relaxed)
            .is_ok()
    }
}
