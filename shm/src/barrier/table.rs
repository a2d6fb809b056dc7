//! The table handle and its sizes: its cells, reached through the parts of
//! its region (see `region.rs` for the header and the life cycle).

use std::fmt;
use std::sync::Arc;

use super::cell::RawBarrier;
use super::peer::RawPeer;
use super::{Barrier, PeerCell, BARRIER_CELL_SIZE, BARRIER_HEADER_SIZE, MAX_BARRIERS, MAX_PEERS};
use crate::region::{self, Part};

/// Sizes of a barrier table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarrierParams {
    /// Barrier cells, `0..=MAX_BARRIERS`.
    pub barriers: u32,
    /// Peer cells, `0..=MAX_PEERS`.
    pub peers: u32,
}

impl BarrierParams {
    /// Both counts within their maxima.
    pub(super) fn is_valid(&self) -> bool {
        self.barriers <= MAX_BARRIERS && self.peers <= MAX_PEERS
    }

    /// Offset of peer cell 0.
    pub(super) fn peers_offset(&self) -> usize {
        BARRIER_HEADER_SIZE + self.barriers as usize * BARRIER_CELL_SIZE
    }
}

/// What every handle of one table shares: its parts and its geometry,
/// validated and copied once (never re-read from the region).
pub(super) struct Shared {
    pub(super) barriers: Part<RawBarrier>,
    pub(super) peers: Part<RawPeer>,
    pub(super) geom: BarrierParams,
}

/// A table of counting barriers and peer-state cells (see the
/// [module docs](super)). Cloning shares the table; the handle keeps the
/// memory behind it alive. Built in a segment region with
/// [`Segment::init`](crate::segment::Segment::init) /
/// [`Segment::attach`](crate::segment::Segment::attach), or in its own
/// memory with [`new_heap`](Self::new_heap).
#[derive(Clone)]
pub struct BarrierTable {
    pub(super) shared: Arc<Shared>,
}

impl fmt::Debug for BarrierTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierTable")
            .field("barriers", &self.shared.geom.barriers)
            .field("peers", &self.shared.geom.peers)
            .finish()
    }
}

impl BarrierTable {
    /// A table in memory owned by its handles (tests, one process; the
    /// models' table under `cfg(loom)`).
    ///
    /// # Panics
    ///
    /// Panics if a count is above its maximum.
    pub fn new_heap(params: &BarrierParams) -> Self {
        region::new_heap::<BarrierTable>(params).expect("invalid barrier table parameters")
    }

    /// Barrier cell `i`, or `None` if `i ≥ barrier_count()`.
    pub fn barrier(&self, i: u32) -> Option<Barrier<'_>> {
        let cell = self.shared.barriers.get(i as usize)?;
        Some(Barrier::new(cell, i))
    }

    /// Peer cell `i`, or `None` if `i ≥ peer_count()`.
    pub fn peer(&self, i: u32) -> Option<PeerCell<'_>> {
        let cell = self.shared.peers.get(i as usize)?;
        Some(PeerCell::new(cell, i))
    }

    /// Number of barrier cells.
    pub fn barrier_count(&self) -> u32 {
        self.shared.geom.barriers
    }

    /// Number of peer cells.
    pub fn peer_count(&self) -> u32 {
        self.shared.geom.peers
    }
}
