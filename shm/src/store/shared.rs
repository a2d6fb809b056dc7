//! The store's shared control block: header, reader slots, table buffers,
//! and the memory they live in (the segment outside loom, boxes under loom).

#[cfg(not(loom))]
use std::ptr::NonNull;

#[cfg(not(loom))]
use crate::heap::KeepAlive;
use crate::sync::{AtomicU32, AtomicU64, Ordering};
#[cfg(loom)]
use crate::sync::{ConstPtr, MutPtr, UnsafeCell};

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

/// Validated sizes, copied out of the header once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub(crate) buffer_count: u32,
    pub(crate) buffer_size: usize,
    pub(crate) reader_slots: u32,
}

impl Geometry {
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
pub(crate) struct StoreHeader {
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
pub(crate) struct Storage {
    pub(crate) base: NonNull<u8>,
    pub(crate) _owner: Option<KeepAlive>,
}

#[cfg(loom)]
pub(crate) struct Storage {
    pub(crate) header: Box<StoreHeader>,
    pub(crate) slots: Box<[ReaderSlot]>,
    pub(crate) buffers: Box<[UnsafeCell<Box<[u8]>>]>,
}

/// What every handle of one store shares.
pub(crate) struct Shared {
    pub(crate) storage: Storage,
    pub(crate) geom: Geometry,
}

// SAFETY: `Shared` hands out shared references to atomics (valid from any
// thread) and buffer slices under the pin protocol of `StoreReader::pin` /
// `StoreWriter::find_free_buffer`, which orders every buffer write before
// or after every read of it; the memory lives as long as `Shared` (the
// keep-alive or the `init_in`/`attach` contract).
#[cfg(not(loom))]
unsafe impl Send for Shared {}
// SAFETY: as for `Send`.
#[cfg(not(loom))]
unsafe impl Sync for Shared {}

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

#[cfg(loom)]
fn zeroed_slot() -> ReaderSlot {
    ReaderSlot {
        owner: AtomicU32::new(0),
        reserved0: AtomicU32::new(0),
        pins: std::array::from_fn(|_| AtomicU32::new(0)),
        reserved1: std::array::from_fn(|_| AtomicU64::new(0)),
    }
}

impl Shared {
    /// Heap storage for loom: boxes of loom atomics and tracked cells.
    #[cfg(loom)]
    pub(crate) fn new_loom(geom: Geometry) -> Self {
        let zero = || AtomicU64::new(0);
        let header = Box::new(StoreHeader {
            magic: AtomicU64::new(STORE_MAGIC),
            layout_version: AtomicU32::new(STORE_LAYOUT_VERSION),
            buffer_count: AtomicU32::new(geom.buffer_count),
            reader_slots: AtomicU32::new(geom.reader_slots),
            reserved0: AtomicU32::new(0),
            buffer_size: AtomicU64::new(geom.buffer_size as u64),
            slots_offset: AtomicU64::new(STORE_HEADER_SIZE as u64),
            buffers_offset: AtomicU64::new(geom.buffers_offset() as u64),
            reserved1: std::array::from_fn(|_| zero()),
            current: AtomicU64::new(0),
            reserved2: std::array::from_fn(|_| zero()),
        });
        let slots = (0..geom.reader_slots).map(|_| zeroed_slot()).collect();
        let buffers = (0..geom.buffer_count)
            .map(|_| UnsafeCell::new(vec![0u8; geom.buffer_size].into_boxed_slice()))
            .collect();
        Self {
            storage: Storage {
                header,
                slots,
                buffers,
            },
            geom,
        }
    }

    /// Validates the header of an initialised store in `len` bytes at
    /// `base` and returns a view of it with its geometry (readers and an
    /// adopting writer share this check).
    ///
    /// # Safety
    ///
    /// `base` must be valid for reads and writes of `len` bytes for as long
    /// as the returned value (or `owner`) lives. The bytes may be anything:
    /// a garbage header is reported, never trusted.
    #[cfg(not(loom))]
    pub(crate) unsafe fn attach(
        base: std::ptr::NonNull<u8>,
        len: usize,
        owner: Option<crate::heap::KeepAlive>,
    ) -> Result<Self, super::reader::StoreAttachError> {
        use super::reader::StoreAttachError;
        use crate::heap::REGION_ALIGN;
        if base.as_ptr() as usize % REGION_ALIGN != 0 {
            return Err(StoreAttachError::Misaligned);
        }
        if len < STORE_HEADER_SIZE {
            return Err(StoreAttachError::RegionTooSmall {
                needed: STORE_HEADER_SIZE,
                len,
            });
        }
        let probe = Shared {
            storage: Storage {
                base,
                _owner: owner,
            },
            geom: Geometry {
                buffer_count: 0,
                buffer_size: 0,
                reader_slots: 0,
            },
        };
        let h = probe.header();
        // ORDERING: Acquire — pairs with the Release store of `magic` in
        // `Shared::write_initial_image`: the geometry below is the writer's.
        let magic = h.magic.load(Ordering::Acquire);
        if magic == 0 {
            return Err(StoreAttachError::NotReady);
        }
        if magic != STORE_MAGIC {
            return Err(StoreAttachError::BadMagic { found: magic });
        }
        // ORDERING: Relaxed (geometry) — ordered by the Acquire above.
        let version = h.layout_version.load(Ordering::Relaxed);
        if version != STORE_LAYOUT_VERSION {
            return Err(StoreAttachError::VersionMismatch { found: version });
        }
        let buffer_size = h.buffer_size.load(Ordering::Relaxed);
        let params = StoreParams {
            buffer_count: h.buffer_count.load(Ordering::Relaxed),
            buffer_size: usize::try_from(buffer_size).map_err(|_| StoreAttachError::BadGeometry)?,
            reader_slots: h.reader_slots.load(Ordering::Relaxed),
        };
        let geom = Geometry::new(&params).ok_or(StoreAttachError::BadGeometry)?;
        if geom.buffer_size as u64 != buffer_size
            || h.slots_offset.load(Ordering::Relaxed) != STORE_HEADER_SIZE as u64
            || h.buffers_offset.load(Ordering::Relaxed) != geom.buffers_offset() as u64
        {
            return Err(StoreAttachError::BadGeometry);
        }
        let needed = geom.memory_size();
        if len < needed {
            return Err(StoreAttachError::RegionTooSmall { needed, len });
        }
        Ok(Shared {
            storage: probe.storage,
            geom,
        })
    }

    pub(crate) fn header(&self) -> &StoreHeader {
        #[cfg(not(loom))]
        {
            // SAFETY: `base` is 64-aligned and the region holds at least
            // `STORE_HEADER_SIZE` bytes (checked by `init_in`/`attach`) and
            // outlives `self`; the header is only atomics, valid for any
            // bits, so writes by other processes are atomic accesses.
            unsafe { &*self.storage.base.as_ptr().cast::<StoreHeader>() }
        }
        #[cfg(loom)]
        {
            &self.storage.header
        }
    }

    /// Reader slot `i` (`i < reader_slots`).
    pub(crate) fn slot(&self, i: usize) -> &ReaderSlot {
        assert!(i < self.geom.reader_slots as usize);
        #[cfg(not(loom))]
        {
            // SAFETY: `i < reader_slots`, so the slot lies between the header
            // and the buffers, inside the region (checked at init/attach),
            // 64-aligned; slots are only atomics, valid for any bits.
            unsafe {
                &*self
                    .storage
                    .base
                    .as_ptr()
                    .add(STORE_HEADER_SIZE + i * READER_SLOT_SIZE)
                    .cast::<ReaderSlot>()
            }
        }
        #[cfg(loom)]
        {
            &self.storage.slots[i]
        }
    }

    /// Every reader slot.
    pub(crate) fn slots(&self) -> impl Iterator<Item = &ReaderSlot> {
        (0..self.geom.reader_slots as usize).map(|i| self.slot(i))
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
            let offset = self.geom.buffers_offset() + b * self.geom.buffer_size;
            // SAFETY: the buffer lies inside the region (b < buffer_count,
            // checked geometry), lives as long as `self`, and is not written
            // while the caller's pin is held (caller contract).
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    self.storage.base.as_ptr().add(offset),
                    self.geom.buffer_size,
                )
            };
            BufferRead { bytes }
        }
        #[cfg(loom)]
        {
            let track = self.storage.buffers[b].get();
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
            let offset = self.geom.buffers_offset() + b * self.geom.buffer_size;
            // SAFETY: in bounds as in `buffer_read`; exclusive by the caller
            // contract (no reader holds or will validate a pin on `b`).
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    self.storage.base.as_ptr().add(offset),
                    self.geom.buffer_size,
                )
            };
            BufferWrite { bytes }
        }
        #[cfg(loom)]
        {
            let track = self.storage.buffers[b].get_mut();
            // SAFETY: loom tracks the access while `track` lives; the boxed
            // bytes do not move while `self` lives.
            let bytes = unsafe { &mut *(&mut **track.deref() as *mut [u8]) };
            BufferWrite {
                bytes,
                _track: track,
            }
        }
    }

    /// Writes the initial image into zeroed (or garbage) memory; `magic`
    /// last.
    #[cfg(not(loom))]
    pub(crate) fn write_initial_image(&self) {
        let h = self.header();
        let g = self.geom;
        // ORDERING: Relaxed (all stores until `magic`) — published to
        // attachers by the Release store of `magic` below.
        h.layout_version
            .store(STORE_LAYOUT_VERSION, Ordering::Relaxed);
        h.buffer_count.store(g.buffer_count, Ordering::Relaxed);
        h.reader_slots.store(g.reader_slots, Ordering::Relaxed);
        h.buffer_size.store(g.buffer_size as u64, Ordering::Relaxed);
        h.slots_offset
            .store(STORE_HEADER_SIZE as u64, Ordering::Relaxed);
        h.buffers_offset
            .store(g.buffers_offset() as u64, Ordering::Relaxed);
        h.current.store(0, Ordering::Relaxed);
        for slot in self.slots() {
            slot.owner.store(0, Ordering::Relaxed);
            for pin in &slot.pins {
                pin.store(0, Ordering::Relaxed);
            }
        }
        // ORDERING: Release — pairs with the Acquire load of `magic` in
        // `StoreReader::attach`: the fields above are visible to an attacher
        // that sees the magic.
        h.magic.store(STORE_MAGIC, Ordering::Release);
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
