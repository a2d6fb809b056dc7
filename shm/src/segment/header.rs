//! The segment's own bytes: the fixed header at offset 0 and the region
//! directory after it (`docs/SHM-LAYOUT.md`, "Segment header" and "Region
//! directory"); the sizes and offsets are asserted at compile time.

use std::ptr::NonNull;

use crate::layout::{REGION_ENTRY_SIZE, SEGMENT_HEADER_SIZE};
use crate::sync::{AtomicU32, AtomicU64, FutexWord};

/// The fixed segment header at offset 0 (128 bytes). Written by the creator
/// before it stores `ready` (last, `Release`); read by openers with relaxed
/// loads after an `Acquire` load of `ready`.
// NB: padding arrays use element types whose lengths bytemuck's `Zeroable`
// supports without its `min_const_generics` feature.
#[repr(C)]
#[derive(bytemuck::Zeroable)]
pub(super) struct SegmentHeader {
    /// `SEGMENT_MAGIC`.
    pub(super) magic: AtomicU64,
    /// `LAYOUT_VERSION`.
    pub(super) layout_version: AtomicU32,
    /// Bytes from offset 0 to the first region: this header plus the
    /// directory, rounded up to `REGION_ALIGN`.
    pub(super) header_size: AtomicU32,
    /// Size of the whole segment in bytes.
    pub(super) total_size: AtomicU64,
    /// `caps` bits.
    pub(super) capabilities: AtomicU64,
    /// Process id of the creator.
    pub(super) creator_pid: AtomicU32,
    /// Number of directory entries that follow the header.
    pub(super) dir_len: AtomicU32,
    _reserved0: [u8; 24],
    /// 0 = not ready; `SEGMENT_READY` once every region is initialised.
    pub(super) ready: AtomicU32,
    /// The segment's wake group word (`wake_group.rs`): the consumers of
    /// the segment's rings that sleep in the group sleep here, each on its
    /// bit. Zero at creation (a zeroed segment).
    pub(super) wake_group: FutexWord,
    _reserved1: [u32; 14],
}

/// One region directory entry (32 bytes); the directory starts at offset
/// `SEGMENT_HEADER_SIZE`.
#[repr(C)]
#[derive(bytemuck::Zeroable)]
pub(super) struct RegionEntry {
    /// `RegionKind` value.
    pub(super) kind: AtomicU32,
    /// Instance id within the kind (e.g. the client's slot).
    pub(super) id: AtomicU32,
    /// Offset of the region from the segment start, a multiple of
    /// `REGION_ALIGN`.
    pub(super) offset: AtomicU64,
    /// Length of the region in bytes.
    pub(super) len: AtomicU64,
    /// Reserved flags, 0.
    pub(super) flags: AtomicU32,
    _reserved: [u8; 4],
}

const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<SegmentHeader>() == SEGMENT_HEADER_SIZE);
    assert!(align_of::<SegmentHeader>() == 8);
    assert!(offset_of!(SegmentHeader, magic) == 0);
    assert!(offset_of!(SegmentHeader, layout_version) == 8);
    assert!(offset_of!(SegmentHeader, header_size) == 12);
    assert!(offset_of!(SegmentHeader, total_size) == 16);
    assert!(offset_of!(SegmentHeader, capabilities) == 24);
    assert!(offset_of!(SegmentHeader, creator_pid) == 32);
    assert!(offset_of!(SegmentHeader, dir_len) == 36);
    assert!(offset_of!(SegmentHeader, _reserved0) == 40);
    assert!(offset_of!(SegmentHeader, ready) == 64);
    assert!(offset_of!(SegmentHeader, wake_group) == 68);
    assert!(offset_of!(SegmentHeader, _reserved1) == 72);
    assert!(size_of::<RegionEntry>() == REGION_ENTRY_SIZE);
    assert!(offset_of!(RegionEntry, kind) == 0);
    assert!(offset_of!(RegionEntry, id) == 4);
    assert!(offset_of!(RegionEntry, offset) == 8);
    assert!(offset_of!(RegionEntry, len) == 16);
    assert!(offset_of!(RegionEntry, flags) == 24);
    assert!(offset_of!(RegionEntry, _reserved) == 28);
};

/// The header of the mapping at `base`.
///
/// # Safety
///
/// `base` is the page-aligned start of a mapping of at least
/// `SEGMENT_HEADER_SIZE` bytes that outlives `'a`. (Its fields are atomics
/// or never-read padding, valid whatever another process wrote.)
pub(super) unsafe fn header<'a>(base: NonNull<u8>) -> &'a SegmentHeader {
    // SAFETY: by the contract: aligned, in bounds, alive for 'a.
    unsafe { base.cast::<SegmentHeader>().as_ref() }
}

/// Directory entry `i` of the mapping at `base`.
///
/// # Safety
///
/// As [`header`], and the mapping holds at least `SEGMENT_HEADER_SIZE +
/// (i + 1) · REGION_ENTRY_SIZE` bytes.
pub(super) unsafe fn entry<'a>(base: NonNull<u8>, i: usize) -> &'a RegionEntry {
    // SAFETY: by the contract the entry lies inside the mapping, 8-aligned
    // (the base is page-aligned, the offset a multiple of 32).
    unsafe {
        base.as_ptr()
            .add(SEGMENT_HEADER_SIZE + i * REGION_ENTRY_SIZE)
            .cast::<RegionEntry>()
            .as_ref()
            .unwrap_unchecked()
    }
}
