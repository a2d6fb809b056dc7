//! The barrier table's errors: one type per operation (init, attach,
//! wait), each mapped to a PMIx status at the crate edge.

use std::fmt;

use super::{BARRIER_LAYOUT_VERSION, MAX_BARRIERS, MAX_PEERS};

/// Why [`BarrierTable::init_in_owned`](super::BarrierTable::init_in_owned) refused a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierInitError {
    /// More than [`MAX_BARRIERS`] barriers or [`MAX_PEERS`] peers.
    InvalidParams {
        /// Barrier cells asked for.
        barriers: u32,
        /// Peer cells asked for.
        peers: u32,
    },
    /// The region does not start on a 128-byte boundary.
    Misaligned {
        /// Address of the region.
        addr: usize,
    },
    /// The region is shorter than [`BarrierTable::memory_size`](super::BarrierTable::memory_size).
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
}

/// Why [`BarrierTable::attach_owned`](super::BarrierTable::attach_owned) refused a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierAttachError {
    /// The region does not start on a 128-byte boundary.
    Misaligned {
        /// Address of the region.
        addr: usize,
    },
    /// The region is shorter than the header, or than the table its header
    /// describes.
    RegionTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes given.
        len: usize,
    },
    /// The region is not initialised (yet): zero magic, or `ready` not set.
    NotReady,
    /// The first word is not [`BARRIER_MAGIC`](super::BARRIER_MAGIC).
    BadMagic {
        /// The word found.
        found: u64,
    },
    /// The layout version is not [`BARRIER_LAYOUT_VERSION`].
    VersionMismatch {
        /// The version found.
        found: u32,
    },
    /// Counts out of range, or offsets inconsistent with them.
    BadGeometry,
}

/// Why [`arrive`](super::Barrier::arrive), [`wait`](super::Barrier::wait)
/// or [`time_out`](super::Barrier::time_out) ended without the episode
/// released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierWaitError {
    /// The barrier was poisoned with this (non-zero) status (a party is
    /// gone); reported as soon as it is seen, even for a released episode.
    Poisoned(i32),
    /// This party's deadline passed before every party arrived, and this
    /// party ended the episode (as timed out, for every party).
    Timeout,
    /// Another party's deadline ended the episode this party waited in.
    EpisodeTimedOut,
    /// The episode was already over (timed out) when this party arrived;
    /// the arrival was counted nowhere.
    Late,
    /// The caller's `interrupt` ended the wait with this status; the
    /// episode goes on without this party's wait.
    Interrupted(i32),
    /// The cell's open episode is behind this party's: the cell was reset
    /// or overwritten while in use.
    OutOfStep {
        /// This party's episode.
        episode: u32,
        /// The cell's open episode.
        open: u32,
    },
}

impl fmt::Display for BarrierInitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidParams { barriers, peers } => write!(
                f,
                "BarrierInitError::InvalidParams: {barriers} barriers, {peers} peers; \
                 at most {MAX_BARRIERS} and {MAX_PEERS}"
            ),
            Self::Misaligned { addr } => write!(
                f,
                "BarrierInitError::Misaligned: {addr:#x} is not 128-byte aligned"
            ),
            Self::RegionTooSmall { needed, len } => write!(
                f,
                "BarrierInitError::RegionTooSmall: {len} bytes, need {needed}"
            ),
        }
    }
}

impl fmt::Display for BarrierAttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Misaligned { addr } => write!(
                f,
                "BarrierAttachError::Misaligned: {addr:#x} is not 128-byte aligned"
            ),
            Self::RegionTooSmall { needed, len } => write!(
                f,
                "BarrierAttachError::RegionTooSmall: {len} bytes, need {needed}"
            ),
            Self::NotReady => f.write_str("BarrierAttachError::NotReady"),
            Self::BadMagic { found } => {
                write!(f, "BarrierAttachError::BadMagic: found {found:#018x}")
            }
            Self::VersionMismatch { found } => write!(
                f,
                "BarrierAttachError::VersionMismatch: layout version {found}, \
                 expected {BARRIER_LAYOUT_VERSION}"
            ),
            Self::BadGeometry => f.write_str("BarrierAttachError::BadGeometry"),
        }
    }
}

impl fmt::Display for BarrierWaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Poisoned(s) => write!(f, "BarrierWaitError::Poisoned: status {s}"),
            Self::Timeout => f.write_str(
                "BarrierWaitError::Timeout: the deadline passed before every party arrived; \
                 the episode is over for every party",
            ),
            Self::EpisodeTimedOut => f.write_str(
                "BarrierWaitError::EpisodeTimedOut: another party's deadline ended the episode",
            ),
            Self::Late => f.write_str(
                "BarrierWaitError::Late: that episode already timed out before this arrival",
            ),
            Self::Interrupted(s) => write!(f, "BarrierWaitError::Interrupted: status {s}"),
            Self::OutOfStep { episode, open } => write!(
                f,
                "BarrierWaitError::OutOfStep: this party is at episode {episode} but the cell \
                 at {open} (was it reset while in use?)"
            ),
        }
    }
}

impl std::error::Error for BarrierInitError {}
impl std::error::Error for BarrierAttachError {}
impl std::error::Error for BarrierWaitError {}

impl From<BarrierInitError> for pmix_core::Error {
    /// `InvalidParams` → `PMIX_ERR_BAD_PARAM`; any other → `PMIX_ERR_INIT`.
    fn from(e: BarrierInitError) -> Self {
        let status = match e {
            BarrierInitError::InvalidParams { .. } => pmix_core::Status::ERR_BAD_PARAM,
            _ => pmix_core::Status::ERR_INIT,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<BarrierAttachError> for pmix_core::Error {
    /// `VersionMismatch` → `PMIX_ERR_NOT_SUPPORTED`; any other →
    /// `PMIX_ERR_INIT`.
    fn from(e: BarrierAttachError) -> Self {
        let status = match e {
            BarrierAttachError::VersionMismatch { .. } => pmix_core::Status::ERR_NOT_SUPPORTED,
            _ => pmix_core::Status::ERR_INIT,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}

impl From<BarrierWaitError> for pmix_core::Error {
    /// `Timeout`, `EpisodeTimedOut` and `Late` → `PMIX_ERR_TIMEOUT`;
    /// `Poisoned(s)` and `Interrupted(s)` → status `s` when it is negative
    /// (an error code), `PMIX_ERROR` otherwise; `OutOfStep` → `PMIX_ERROR`.
    fn from(e: BarrierWaitError) -> Self {
        use BarrierWaitError as E;
        let status = match e {
            E::Timeout | E::EpisodeTimedOut | E::Late => pmix_core::Status::ERR_TIMEOUT,
            E::Poisoned(s) | E::Interrupted(s) if s < 0 => pmix_core::Status(s),
            E::Poisoned(_) | E::Interrupted(_) | E::OutOfStep { .. } => pmix_core::Status::ERROR,
        };
        pmix_core::Error::with_context(status, e.to_string())
    }
}
