//! The ring's operation errors: parameters, push, pop and the consumer
//! role. Each has a `status()` — the PMIx status it is reported with — and
//! converts into [`pmix_core::Error`].
//!
//! | error                  | variant                | PMIx status                 |
//! |------------------------|------------------------|-----------------------------|
//! | [`RingParamsError`]    |                        | `PMIX_ERR_BAD_PARAM`        |
//! | [`TryPushError`]       | `Full`                 | `PMIX_ERR_OUT_OF_RESOURCE`  |
//! |                        | `TooLarge`             | `PMIX_ERR_BAD_PARAM`        |
//! |                        | `Abandoned`            | `PMIX_ERR_TIMEOUT`          |
//! | [`PushTimeoutError`]   | `Timeout`, `Abandoned` | `PMIX_ERR_TIMEOUT`          |
//! |                        | `TooLarge`             | `PMIX_ERR_BAD_PARAM`        |
//! | [`TryPopError`]        | `Empty`                | `PMIX_ERR_WOULD_BLOCK`      |
//! | [`PopTimeoutError`]    | `Timeout`              | `PMIX_ERR_TIMEOUT`          |
//! | [`ConsumerBusyError`]  |                        | `PMIX_ERR_RESOURCE_BUSY`    |

use std::fmt;

use pmix_core::Status;

use crate::error::into_core_error;

/// Invalid ring parameters: the cell count must be a power of two in
/// `MIN_RING_CELLS..=MAX_RING_CELLS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingParamsError {
    /// The cell count asked for.
    pub cells: usize,
}

/// Why [`Ring::try_push`](super::Ring::try_push) did not push. The
/// payload stays the caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryPushError {
    /// No room now; nothing was written.
    Full,
    /// The payload can never fit one record of this ring.
    TooLarge {
        /// Payload length.
        len: usize,
        /// [`Ring::max_payload`](super::Ring::max_payload).
        max: usize,
    },
    /// The consumer gave this reservation up (the producer stalled longer
    /// than the consumer's abandon timeout); the record was not delivered
    /// and counts in `lost`.
    Abandoned,
}

/// Why [`Ring::push_timeout`](super::Ring::push_timeout) /
/// `push_deadline` did not push.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushTimeoutError {
    /// The ring stayed full until the deadline; nothing was written.
    Timeout,
    /// The payload can never fit one record of this ring.
    TooLarge {
        /// Payload length.
        len: usize,
        /// The ring's maximum payload.
        max: usize,
    },
    /// As [`TryPushError::Abandoned`].
    Abandoned,
}

/// Why [`Consumer::try_pop`](super::Consumer::try_pop) returned no
/// record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryPopError {
    /// No committed record at the read position now.
    Empty,
}

/// Why [`Consumer::pop_timeout`](super::Consumer::pop_timeout) /
/// `pop_deadline` returned no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopTimeoutError {
    /// No record arrived before the deadline.
    Timeout,
}

/// [`Ring::consumer`](super::Ring::consumer): another live consumer
/// holds the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsumerBusyError {
    /// Pid of the process that holds the consumer role.
    pub pid: u32,
}

impl RingParamsError {
    /// `PMIX_ERR_BAD_PARAM`.
    pub fn status(&self) -> Status {
        Status::ERR_BAD_PARAM
    }
}

impl TryPushError {
    /// `Full` → `PMIX_ERR_OUT_OF_RESOURCE`; `TooLarge` →
    /// `PMIX_ERR_BAD_PARAM`; `Abandoned` → `PMIX_ERR_TIMEOUT`.
    pub fn status(&self) -> Status {
        match self {
            TryPushError::Full => Status::ERR_OUT_OF_RESOURCE,
            TryPushError::TooLarge { .. } => Status::ERR_BAD_PARAM,
            TryPushError::Abandoned => Status::ERR_TIMEOUT,
        }
    }
}

impl PushTimeoutError {
    /// `Timeout`, `Abandoned` → `PMIX_ERR_TIMEOUT`; `TooLarge` →
    /// `PMIX_ERR_BAD_PARAM`.
    pub fn status(&self) -> Status {
        match self {
            PushTimeoutError::Timeout | PushTimeoutError::Abandoned => Status::ERR_TIMEOUT,
            PushTimeoutError::TooLarge { .. } => Status::ERR_BAD_PARAM,
        }
    }
}

impl TryPopError {
    /// `PMIX_ERR_WOULD_BLOCK`.
    pub fn status(&self) -> Status {
        Status::ERR_WOULD_BLOCK
    }
}

impl PopTimeoutError {
    /// `PMIX_ERR_TIMEOUT`.
    pub fn status(&self) -> Status {
        Status::ERR_TIMEOUT
    }
}

impl ConsumerBusyError {
    /// `PMIX_ERR_RESOURCE_BUSY`.
    pub fn status(&self) -> Status {
        Status::ERR_RESOURCE_BUSY
    }
}

impl fmt::Display for RingParamsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RingParamsError: {} cells; need a power of two in {}..={}",
            self.cells,
            crate::layout::MIN_RING_CELLS,
            crate::layout::MAX_RING_CELLS
        )
    }
}

impl fmt::Display for TryPushError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryPushError::Full => write!(f, "TryPushError::Full"),
            TryPushError::TooLarge { len, max } => {
                write!(f, "TryPushError::TooLarge: {len} bytes, at most {max}")
            }
            TryPushError::Abandoned => write!(f, "TryPushError::Abandoned"),
        }
    }
}

impl fmt::Display for PushTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PushTimeoutError::Timeout => write!(f, "PushTimeoutError::Timeout"),
            PushTimeoutError::TooLarge { len, max } => {
                write!(f, "PushTimeoutError::TooLarge: {len} bytes, at most {max}")
            }
            PushTimeoutError::Abandoned => write!(f, "PushTimeoutError::Abandoned"),
        }
    }
}

impl fmt::Display for TryPopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryPopError::Empty => write!(f, "TryPopError::Empty"),
        }
    }
}

impl fmt::Display for PopTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PopTimeoutError::Timeout => write!(f, "PopTimeoutError::Timeout"),
        }
    }
}

impl fmt::Display for ConsumerBusyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConsumerBusyError: pid {} consumes this ring", self.pid)
    }
}

impl std::error::Error for RingParamsError {}
impl std::error::Error for TryPushError {}
impl std::error::Error for PushTimeoutError {}
impl std::error::Error for TryPopError {}
impl std::error::Error for PopTimeoutError {}
impl std::error::Error for ConsumerBusyError {}

into_core_error!(
    RingParamsError,
    TryPushError,
    PushTimeoutError,
    TryPopError,
    PopTimeoutError,
    ConsumerBusyError,
);

impl From<TryPushError> for PushTimeoutError {
    /// `Full` has no timed counterpart; callers convert only the others.
    fn from(e: TryPushError) -> PushTimeoutError {
        match e {
            TryPushError::Full => PushTimeoutError::Timeout,
            TryPushError::TooLarge { len, max } => PushTimeoutError::TooLarge { len, max },
            TryPushError::Abandoned => PushTimeoutError::Abandoned,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Error;

    #[test]
    fn full_ring_maps_to_out_of_resource() {
        let e: Error = TryPushError::Full.into();
        assert_eq!(e.status(), Status::ERR_OUT_OF_RESOURCE);
        assert!(e.to_string().contains("TryPushError::Full"));
    }

    #[test]
    fn too_large_maps_to_bad_param_and_names_the_sizes() {
        let e: Error = TryPushError::TooLarge {
            len: 9000,
            max: 8000,
        }
        .into();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        assert!(e.to_string().contains("9000 bytes, at most 8000"));
        let e: Error = PushTimeoutError::TooLarge { len: 1, max: 0 }.into();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    }

    #[test]
    fn timeouts_map_to_err_timeout() {
        for e in [
            Error::from(PushTimeoutError::Timeout),
            Error::from(PushTimeoutError::Abandoned),
            Error::from(TryPushError::Abandoned),
            Error::from(PopTimeoutError::Timeout),
        ] {
            assert_eq!(e.status(), Status::ERR_TIMEOUT);
        }
    }

    #[test]
    fn empty_and_busy_have_their_statuses() {
        assert_eq!(
            Error::from(TryPopError::Empty).status(),
            Status::ERR_WOULD_BLOCK
        );
        assert_eq!(
            Error::from(ConsumerBusyError { pid: 7 }).status(),
            Status::ERR_RESOURCE_BUSY
        );
        assert_eq!(
            Error::from(RingParamsError { cells: 3 }).status(),
            Status::ERR_BAD_PARAM
        );
    }
}
