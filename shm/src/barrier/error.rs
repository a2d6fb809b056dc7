//! The barrier's operation error ([`BarrierWaitError`]), mapped to a PMIx
//! status at the crate edge. Init and attach report the region errors of
//! [`crate::error`].

use std::fmt;

use pmix_core::Status;

use crate::error::into_core_error;

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

impl std::error::Error for BarrierWaitError {}

impl BarrierWaitError {
    /// `Timeout`, `EpisodeTimedOut` and `Late` → `PMIX_ERR_TIMEOUT`;
    /// `Poisoned(s)` and `Interrupted(s)` → status `s` when it is negative
    /// (an error code), `PMIX_ERROR` otherwise; `OutOfStep` → `PMIX_ERROR`.
    pub fn status(&self) -> Status {
        use BarrierWaitError as E;
        match *self {
            E::Timeout | E::EpisodeTimedOut | E::Late => Status::ERR_TIMEOUT,
            E::Poisoned(s) | E::Interrupted(s) if s < 0 => Status(s),
            E::Poisoned(_) | E::Interrupted(_) | E::OutOfStep { .. } => Status::ERROR,
        }
    }
}

into_core_error!(BarrierWaitError);
