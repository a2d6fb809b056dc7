//! The state every handle of one ring shares, and raw access to its
//! words and payload bytes: shared memory, or loom objects on the heap.

use crate::layout::{Claim, SlotState, CELL_SIZE, RECORD_HEADER_SIZE};
use crate::region::Part;
use crate::sync::{AtomicU64, Ordering};

use super::header::{RingCell, RingHeader};

/// What every handle of one ring shares.
pub(super) struct RingInner {
    /// The header (part 0 of the region).
    pub(super) header: Part<RingHeader>,
    /// The cells (part 1).
    pub(super) cells: Part<RingCell>,
    /// Geometry, copied once (never re-read from shared memory).
    pub(super) cap: u64,
    pub(super) mask: u64,
    pub(super) log2: u32,
    pub(super) max_record_cells: usize,
    /// This process's last view of `head` (see `reserve`); on its own
    /// line, away from the read-mostly fields above and the Arc's counts.
    pub(super) cached_head: crossbeam_utils::CachePadded<AtomicU64>,
}

impl RingInner {
    #[inline]
    pub(super) fn hdr(&self) -> &RingHeader {
        // SAFETY: the header part holds exactly one value (`Memory::header`).
        unsafe { self.header.get_unchecked(0) }
    }

    /// The cell at `pos`.
    #[inline]
    fn cell(&self, pos: u64) -> &RingCell {
        // SAFETY: `idx(pos) = pos & (cap - 1) < cap`, the length of the
        // cells part (built from the same geometry).
        unsafe { self.cells.get_unchecked(self.idx(pos)) }
    }

    #[inline]
    pub(super) fn idx(&self, pos: u64) -> usize {
        (pos & self.mask) as usize
    }

    #[inline]
    pub(super) fn lap(&self, pos: u64) -> u8 {
        (pos >> self.log2) as u8
    }

    /// The state word of the cell at `pos`.
    #[inline]
    pub(super) fn state(&self, pos: u64) -> &AtomicU64 {
        &self.cell(pos).state
    }

    /// The meta word of the cell at `pos`.
    #[inline]
    pub(super) fn meta(&self, pos: u64) -> &AtomicU64 {
        &self.cell(pos).meta
    }

    /// Stamps the cell at `pos` free for the next lap. For a continuation
    /// cell this overwrites payload bytes 0..8, which the caller has
    /// finished with.
    #[inline]
    pub(super) fn stamp_free(&self, pos: u64, continuation: bool) {
        #[cfg(loom)]
        if continuation {
            self.cells[self.idx(pos)].head.with_mut(|_| ());
        }
        let _ = continuation;
        // ORDERING: Relaxed — published to producers by the Release store of
        // `head` that follows (producers Acquire `head` before reusing).
        self.state(pos)
            .store(SlotState::free(pos + self.cap), Ordering::Relaxed);
    }

    /// The first byte of the cell area, for payload copies (which run on
    /// across cells).
    #[cfg(not(loom))]
    #[inline]
    fn cells_base(&self) -> *mut u8 {
        self.cells.as_ptr().as_ptr().cast::<u8>()
    }

    /// Copies `data` into the payload area of the record at `pos`.
    ///
    /// # Safety
    /// The caller owns a claim on the record at `pos` of at least
    /// `cells_for_payload(data.len())` cells, all inside the ring.
    pub(super) unsafe fn write_payload(&self, pos: u64, data: &[u8]) {
        #[cfg(not(loom))]
        // SAFETY: by the contract the claimed cells lie inside the ring and
        // no other party reads or writes their payload bytes until commit.
        unsafe {
            let dst = self
                .cells_base()
                .add(self.idx(pos) * CELL_SIZE + RECORD_HEADER_SIZE);
            std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len());
        }
        #[cfg(loom)]
        self.loom_segments(pos, data.len(), |cell, in_head, at, off, n| {
            let src = &data[off..off + n];
            if in_head {
                // SAFETY: loom tracks the access; bounds from loom_segments.
                cell.head
                    .with_mut(|p| unsafe { (&mut *p)[at..at + n].copy_from_slice(src) });
            } else {
                // SAFETY: as above.
                cell.body
                    .with_mut(|p| unsafe { (&mut *p)[at..at + n].copy_from_slice(src) });
            }
        });
    }

    /// Lends the `len` payload bytes of the committed record at `pos`.
    ///
    /// # Safety
    /// The record at `pos` is committed (observed with `Acquire`), spans
    /// `cells_for_payload(len)` cells inside the ring, and is not released
    /// before `f` returns.
    pub(super) unsafe fn read_payload<R>(
        &self,
        pos: u64,
        len: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> R {
        #[cfg(not(loom))]
        {
            // SAFETY: by the contract the bytes lie inside the ring and the
            // producer finished writing them before its Release commit.
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    self.cells_base()
                        .add(self.idx(pos) * CELL_SIZE + RECORD_HEADER_SIZE),
                    len,
                )
            };
            f(bytes)
        }
        #[cfg(loom)]
        {
            let mut copy = vec![0u8; len];
            self.loom_segments(pos, len, |cell, in_head, at, off, n| {
                let dst = &mut copy[off..off + n];
                if in_head {
                    // SAFETY: loom tracks the access; bounds from loom_segments.
                    cell.head
                        .with(|p| unsafe { dst.copy_from_slice(&(&*p)[at..at + n]) });
                } else {
                    // SAFETY: as above.
                    cell.body
                        .with(|p| unsafe { dst.copy_from_slice(&(&*p)[at..at + n]) });
                }
            });
            f(&copy)
        }
    }

    /// Splits payload bytes `0..len` of the record at `pos` into per-cell
    /// pieces: (cell, in the 16-byte head part?, offset in that part,
    /// offset in the payload, length).
    #[cfg(loom)]
    fn loom_segments(
        &self,
        pos: u64,
        len: usize,
        mut f: impl FnMut(&RingCell, bool, usize, usize, usize),
    ) {
        let base = self.idx(pos) * CELL_SIZE + RECORD_HEADER_SIZE;
        let mut done = 0;
        while done < len {
            let g = base + done;
            let cell = &self.cells[g / CELL_SIZE];
            let off = g % CELL_SIZE;
            let (in_head, at, room) = if off < RECORD_HEADER_SIZE {
                (true, off, RECORD_HEADER_SIZE - off)
            } else {
                (false, off - RECORD_HEADER_SIZE, CELL_SIZE - off)
            };
            let n = room.min(len - done);
            f(cell, in_head, at, done, n);
            done += n;
        }
    }

    /// Loom: the anonymous walk's CAS on a cell beyond the first counts as
    /// a write of its head bytes (in shared memory it may overlap payload).
    #[inline]
    pub(super) fn note_walk(&self, _pos: u64) {
        #[cfg(loom)]
        self.cells[self.idx(_pos)].head.with_mut(|_| ());
    }

    /// Whether `c` is a claim that may start at `pos`.
    #[inline]
    pub(super) fn claim_fits(&self, pos: u64, c: Claim) -> bool {
        let cells = c.cells as usize;
        c.lap == self.lap(pos)
            && cells >= 1
            && cells <= self.max_record_cells
            && self.idx(pos) + cells <= self.cap as usize
    }
}
