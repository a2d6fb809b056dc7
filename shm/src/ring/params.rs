//! [`RingParams`]: the geometry of a ring, checked once.

use super::error::RingParamsError;
use crate::layout::{
    CELL_SIZE, MAX_RECORD_CELLS, MAX_RING_CELLS, MIN_RING_CELLS, RECORD_HEADER_SIZE,
};

/// Geometry of a ring: its number of 64-byte cells (a power of two in
/// `MIN_RING_CELLS..=MAX_RING_CELLS`).
///
/// # Examples
/// ```
/// use pmix_shm::ring::RingParams;
/// let p = RingParams::new(1024).unwrap();
/// assert_eq!(p.max_record_cells(), 512);
/// assert_eq!(p.max_payload(), 512 * 64 - 16);
/// assert!(RingParams::new(1000).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingParams {
    cells: usize,
}

impl RingParams {
    /// A ring of `cells` cells.
    ///
    /// # Errors
    /// [`RingParamsError`] unless `cells` is a power of two in
    /// `MIN_RING_CELLS..=MAX_RING_CELLS`.
    pub fn new(cells: usize) -> Result<Self, RingParamsError> {
        if cells.is_power_of_two() && (MIN_RING_CELLS..=MAX_RING_CELLS).contains(&cells) {
            Ok(RingParams { cells })
        } else {
            Err(RingParamsError { cells })
        }
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Most cells one record may take: half the ring (so a record always
    /// fits after at most one padding record), at most `u16::MAX`.
    pub fn max_record_cells(&self) -> usize {
        (self.cells / 2).min(MAX_RECORD_CELLS)
    }

    /// Largest payload one record may carry.
    pub fn max_payload(&self) -> usize {
        self.max_record_cells() * CELL_SIZE - RECORD_HEADER_SIZE
    }
}
