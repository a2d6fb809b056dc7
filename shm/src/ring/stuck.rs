//! What the consumer remembers about records that are stuck at or behind
//! its read position: abandoned reservations ([`Hole`]) and the record it
//! is waiting for ([`Stall`]). The rules that create and resolve them are
//! in `recovery.rs`.

#[cfg(not(loom))]
use std::time::Instant;

use crate::layout::Claim;

/// A live reservation the consumer gave up on; its cells stay held until
/// its producer acknowledges or dies.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hole {
    /// The position of the abandoned record.
    pub(super) pos: u64,
    /// Its claim (who, how many cells).
    pub(super) claim: Claim,
}

/// A record at the read position that is not ready, and since when.
#[cfg(not(loom))]
#[derive(Debug, Clone, Copy)]
pub(super) struct Stall {
    /// The position of the record.
    pub(super) pos: u64,
    /// When the consumer first found it not ready.
    pub(super) since: Instant,
    /// When to check its producer's pid next.
    pub(super) next_liveness: Instant,
}
