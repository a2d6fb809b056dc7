//! [`SegmentLayout`]: the regions a segment will hold and where they go.

use std::collections::HashSet;

use super::error::SegmentCreateError;
use crate::layout::{
    caps, round_up, RegionKind, MAX_REGIONS, REGION_ALIGN, REGION_ENTRY_SIZE, SEGMENT_HEADER_SIZE,
};
use crate::region::Region;

/// Size granularity of a segment (one page).
const PAGE: usize = 4096;

/// The regions a segment will hold, in directory order. Built by value.
///
/// # Examples
/// ```
/// use pmix_shm::layout::RegionKind;
/// use pmix_shm::ring::{Ring, RingParams};
/// use pmix_shm::segment::SegmentLayout;
/// let layout = SegmentLayout::new()
///     .region_for::<Ring>(RegionKind::SERVER_RING, 0, &RingParams::new(1024).unwrap())
///     .region_for::<Ring>(RegionKind::CLIENT_RING, 0, &RingParams::new(256).unwrap())
///     .region(RegionKind::JOB_STORE, 0, 1 << 20);
/// assert_eq!(layout.total_size().unwrap() % 4096, 0);
/// ```
#[derive(Debug, Clone, Default)]
pub struct SegmentLayout {
    regions: Vec<(RegionKind, u32, usize)>,
    pub(super) capabilities: u64,
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

    /// Adds a region sized for an `R` with `params`
    /// ([`Region::memory_size`]; parameters out of range give an empty
    /// region, which [`Segment::create`](super::Segment::create) refuses).
    pub fn region_for<R: Region>(self, kind: RegionKind, id: u32, params: &R::Params) -> Self {
        self.region(kind, id, R::memory_size(params))
    }

    /// Sets additional [`caps`] bits.
    pub fn capabilities(mut self, bits: u64) -> Self {
        self.capabilities |= bits;
        self
    }

    /// Places the regions: header and directory first, then each region at
    /// the next multiple of 128; the total is rounded up to a page.
    pub(super) fn place(&self) -> Result<(usize, Vec<RegionInfo>), SegmentCreateError> {
        let bad = |reason| SegmentCreateError::BadLayout { reason };
        if self.regions.len() > MAX_REGIONS {
            return Err(bad("more than MAX_REGIONS regions"));
        }
        let mut seen = HashSet::new();
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
    /// [`SegmentCreateError::BadLayout`] as [`Segment::create`](super::Segment::create) would.
    pub fn total_size(&self) -> Result<usize, SegmentCreateError> {
        self.place().map(|(t, _)| t)
    }
}
