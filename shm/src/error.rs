//! One small error type per operation (STYLE.md rule 6), each with
//! `Display` (`Type::Variant: detail`) and a `From` into
//! [`pmix_core::Error`] that picks the PMIx status the crate edge reports.
//!
//! | error                         | variant              | PMIx status                 |
//! |-------------------------------|----------------------|-----------------------------|
//! | [`SegmentCreateError`]        | `BadLayout`          | `PMIX_ERR_BAD_PARAM`        |
//! |                               | `Io`                 | `PMIX_ERR_OUT_OF_RESOURCE`  |
//! | [`SegmentOpenError`]          | `VersionMismatch`    | `PMIX_ERR_NOT_SUPPORTED`    |
//! |                               | any other            | `PMIX_ERR_INIT`             |
//! | [`RegionError`]               | `NotFound`           | `PMIX_ERR_NOT_FOUND`        |
//! | [`InitRingError`]             | `Region`             | `PMIX_ERR_NOT_FOUND`        |
//! |                               | any other            | `PMIX_ERR_BAD_PARAM`        |
//! | [`OpenRingError`]             | as its source        |                             |
//! | [`RingParamsError`]           |                      | `PMIX_ERR_BAD_PARAM`        |
//! | [`RingInitError`]             | any                  | `PMIX_ERR_BAD_PARAM`        |
//! | [`AttachError`]               | `VersionMismatch`    | `PMIX_ERR_NOT_SUPPORTED`    |
//! |                               | any other            | `PMIX_ERR_INIT`             |
//! | [`TryPushError`]              | `Full`               | `PMIX_ERR_OUT_OF_RESOURCE`  |
//! |                               | `TooLarge`           | `PMIX_ERR_BAD_PARAM`        |
//! |                               | `Abandoned`          | `PMIX_ERR_TIMEOUT`          |
//! | [`PushTimeoutError`]          | `Timeout`, `Abandoned` | `PMIX_ERR_TIMEOUT`        |
//! |                               | `TooLarge`           | `PMIX_ERR_BAD_PARAM`        |
//! | [`TryPopError`]               | `Empty`              | `PMIX_ERR_WOULD_BLOCK`      |
//! | [`PopTimeoutError`]           | `Timeout`            | `PMIX_ERR_TIMEOUT`          |
//! | [`ConsumerBusyError`]         |                      | `PMIX_ERR_RESOURCE_BUSY`    |

use std::fmt;
use std::io;

use pmix_core::{Error, Status};

use crate::layout::RegionKind;

/// Why [`Segment::create`](crate::segment::Segment::create) failed.
#[derive(Debug)]
pub enum SegmentCreateError {
    /// The layout cannot be built (duplicate region, empty region, too many
    /// regions, size overflow).
    BadLayout {
        /// What is wrong.
        reason: &'static str,
    },
    /// A system call failed.
    Io {
        /// The call (`memfd_create`, `fchmod`, `ftruncate`, `fcntl`, `mmap`).
        call: &'static str,
        /// The OS error.
        source: io::Error,
    },
}

/// Why [`Segment::open`](crate::segment::Segment::open) refused a segment.
/// Every check runs on the opener's side; nothing in the header is trusted.
#[derive(Debug)]
pub enum SegmentOpenError {
    /// The first 8 bytes are not the segment magic.
    BadMagic {
        /// What was found.
        found: u64,
    },
    /// The creator wrote another layout version.
    VersionMismatch {
        /// Version in the header.
        found: u32,
        /// This build's [`LAYOUT_VERSION`](crate::layout::LAYOUT_VERSION).
        expected: u32,
    },
    /// The file is shorter than the header, or than the size the header
    /// claims.
    TooSmall {
        /// Real size of the file (`fstat`).
        len: u64,
        /// Bytes needed.
        needed: u64,
    },
    /// The creator has not published the segment yet (`ready` is 0).
    NotReady,
    /// The file is not sealed against shrinking, so a mapping could fault.
    NotSealed {
        /// The seals found (`F_GET_SEALS`).
        seals: i32,
    },
    /// A header or directory field is out of bounds.
    BadDirectory {
        /// Directory entry index, or `usize::MAX` for the header itself.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A system call failed.
    Io {
        /// The call (`fstat`, `fcntl`, `mmap`).
        call: &'static str,
        /// The OS error.
        source: io::Error,
    },
}

/// Why a region lookup failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionError {
    /// No region of that kind and id in the directory.
    NotFound {
        /// Kind asked for.
        kind: RegionKind,
        /// Id asked for.
        id: u32,
    },
}

/// Why [`Segment::init_ring`](crate::segment::Segment::init_ring) failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitRingError {
    /// The region does not exist.
    Region(RegionError),
    /// Only the creator of a segment initialises its regions.
    NotCreator,
    /// The segment is already published; regions are initialised before.
    AlreadyPublished,
    /// The region was initialised already.
    AlreadyInitialized,
    /// The region cannot hold the ring.
    Ring(RingInitError),
}

/// Why [`Segment::ring`](crate::segment::Segment::ring) failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenRingError {
    /// The region does not exist.
    Region(RegionError),
    /// The region does not hold a valid ring.
    Attach(AttachError),
}

/// Invalid ring parameters: the cell count must be a power of two in
/// `MIN_RING_CELLS..=MAX_RING_CELLS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingParamsError {
    /// The cell count asked for.
    pub cells: usize,
}

/// Why [`Ring::init_in`](crate::ring::Ring::init_in) refused the memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingInitError {
    /// The memory is shorter than `Ring::memory_size(params)`.
    TooSmall {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        needed: usize,
    },
    /// The base is not aligned to 128 bytes.
    Misaligned {
        /// The base address.
        addr: usize,
    },
}

/// Why [`Ring::attach`](crate::ring::Ring::attach) refused a ring header
/// written by another process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachError {
    /// The memory is shorter than the header, or than the cells it claims.
    TooSmall {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        needed: usize,
    },
    /// The base is not aligned to 128 bytes.
    Misaligned {
        /// The base address.
        addr: usize,
    },
    /// No ring magic (not a ring, or not initialised yet).
    BadMagic {
        /// What was found.
        found: u32,
    },
    /// Another layout version.
    VersionMismatch {
        /// Version in the header.
        found: u32,
        /// This build's version.
        expected: u32,
    },
    /// Cell count or record limit out of bounds.
    BadGeometry {
        /// Cell count in the header.
        cells: u32,
        /// Record limit in the header.
        max_record_cells: u32,
    },
}

/// Why [`Ring::try_push`](crate::ring::Ring::try_push) did not push. The
/// payload stays the caller's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryPushError {
    /// No room now; nothing was written.
    Full,
    /// The payload can never fit one record of this ring.
    TooLarge {
        /// Payload length.
        len: usize,
        /// [`Ring::max_payload`](crate::ring::Ring::max_payload).
        max: usize,
    },
    /// The consumer gave this reservation up (the producer stalled longer
    /// than the consumer's abandon timeout); the record was not delivered
    /// and counts in `lost`.
    Abandoned,
}

/// Why [`Ring::push_timeout`](crate::ring::Ring::push_timeout) /
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

/// Why [`Consumer::try_pop`](crate::ring::Consumer::try_pop) returned no
/// record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryPopError {
    /// No committed record at the read position now.
    Empty,
}

/// Why [`Consumer::pop_timeout`](crate::ring::Consumer::pop_timeout) /
/// `pop_deadline` returned no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopTimeoutError {
    /// No record arrived before the deadline.
    Timeout,
}

/// [`Ring::consumer`](crate::ring::Ring::consumer): another live consumer
/// holds the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsumerBusyError {
    /// Pid of the process that holds the consumer role.
    pub pid: u32,
}

// ---------------------------------------------------------------------------
// Display
// ---------------------------------------------------------------------------

impl fmt::Display for SegmentCreateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentCreateError::BadLayout { reason } => {
                write!(f, "SegmentCreateError::BadLayout: {reason}")
            }
            SegmentCreateError::Io { call, source } => {
                write!(f, "SegmentCreateError::Io: {call}: {source}")
            }
        }
    }
}

impl fmt::Display for SegmentOpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentOpenError::BadMagic { found } => {
                write!(f, "SegmentOpenError::BadMagic: found {found:#018x}")
            }
            SegmentOpenError::VersionMismatch { found, expected } => write!(
                f,
                "SegmentOpenError::VersionMismatch: layout version {found}, expected {expected}"
            ),
            SegmentOpenError::TooSmall { len, needed } => {
                write!(f, "SegmentOpenError::TooSmall: {len} bytes, need {needed}")
            }
            SegmentOpenError::NotReady => write!(f, "SegmentOpenError::NotReady"),
            SegmentOpenError::NotSealed { seals } => write!(
                f,
                "SegmentOpenError::NotSealed: seals {seals:#x} lack F_SEAL_SHRINK"
            ),
            SegmentOpenError::BadDirectory { index, reason } => {
                if *index == usize::MAX {
                    write!(f, "SegmentOpenError::BadDirectory: header: {reason}")
                } else {
                    write!(f, "SegmentOpenError::BadDirectory: entry {index}: {reason}")
                }
            }
            SegmentOpenError::Io { call, source } => {
                write!(f, "SegmentOpenError::Io: {call}: {source}")
            }
        }
    }
}

impl fmt::Display for RegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegionError::NotFound { kind, id } => write!(
                f,
                "RegionError::NotFound: no region of kind {} id {id}",
                kind.0
            ),
        }
    }
}

impl fmt::Display for InitRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitRingError::Region(e) => write!(f, "InitRingError::Region: {e}"),
            InitRingError::NotCreator => write!(f, "InitRingError::NotCreator"),
            InitRingError::AlreadyPublished => write!(f, "InitRingError::AlreadyPublished"),
            InitRingError::AlreadyInitialized => write!(f, "InitRingError::AlreadyInitialized"),
            InitRingError::Ring(e) => write!(f, "InitRingError::Ring: {e}"),
        }
    }
}

impl fmt::Display for OpenRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenRingError::Region(e) => write!(f, "OpenRingError::Region: {e}"),
            OpenRingError::Attach(e) => write!(f, "OpenRingError::Attach: {e}"),
        }
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

impl fmt::Display for RingInitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingInitError::TooSmall { len, needed } => {
                write!(f, "RingInitError::TooSmall: {len} bytes, need {needed}")
            }
            RingInitError::Misaligned { addr } => {
                write!(
                    f,
                    "RingInitError::Misaligned: {addr:#x} is not 128-byte aligned"
                )
            }
        }
    }
}

impl fmt::Display for AttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachError::TooSmall { len, needed } => {
                write!(f, "AttachError::TooSmall: {len} bytes, need {needed}")
            }
            AttachError::Misaligned { addr } => {
                write!(
                    f,
                    "AttachError::Misaligned: {addr:#x} is not 128-byte aligned"
                )
            }
            AttachError::BadMagic { found } => {
                write!(f, "AttachError::BadMagic: found {found:#010x}")
            }
            AttachError::VersionMismatch { found, expected } => write!(
                f,
                "AttachError::VersionMismatch: layout version {found}, expected {expected}"
            ),
            AttachError::BadGeometry {
                cells,
                max_record_cells,
            } => write!(
                f,
                "AttachError::BadGeometry: {cells} cells, {max_record_cells} cells per record"
            ),
        }
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

impl std::error::Error for SegmentCreateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SegmentCreateError::Io { source, .. } => Some(source),
            SegmentCreateError::BadLayout { .. } => None,
        }
    }
}

impl std::error::Error for SegmentOpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SegmentOpenError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl std::error::Error for RegionError {}
impl std::error::Error for InitRingError {}
impl std::error::Error for OpenRingError {}
impl std::error::Error for RingParamsError {}
impl std::error::Error for RingInitError {}
impl std::error::Error for AttachError {}
impl std::error::Error for TryPushError {}
impl std::error::Error for PushTimeoutError {}
impl std::error::Error for TryPopError {}
impl std::error::Error for PopTimeoutError {}
impl std::error::Error for ConsumerBusyError {}

// ---------------------------------------------------------------------------
// Into pmix_core::Error
// ---------------------------------------------------------------------------

fn err(status: Status, e: &dyn fmt::Display) -> Error {
    Error::with_context(status, e.to_string())
}

impl From<SegmentCreateError> for Error {
    fn from(e: SegmentCreateError) -> Error {
        let s = match e {
            SegmentCreateError::BadLayout { .. } => Status::ERR_BAD_PARAM,
            SegmentCreateError::Io { .. } => Status::ERR_OUT_OF_RESOURCE,
        };
        err(s, &e)
    }
}

impl From<SegmentOpenError> for Error {
    fn from(e: SegmentOpenError) -> Error {
        let s = match e {
            SegmentOpenError::VersionMismatch { .. } => Status::ERR_NOT_SUPPORTED,
            _ => Status::ERR_INIT,
        };
        err(s, &e)
    }
}

impl From<RegionError> for Error {
    fn from(e: RegionError) -> Error {
        err(Status::ERR_NOT_FOUND, &e)
    }
}

impl From<InitRingError> for Error {
    fn from(e: InitRingError) -> Error {
        let s = match e {
            InitRingError::Region(_) => Status::ERR_NOT_FOUND,
            _ => Status::ERR_BAD_PARAM,
        };
        err(s, &e)
    }
}

impl From<OpenRingError> for Error {
    fn from(e: OpenRingError) -> Error {
        match e {
            OpenRingError::Region(r) => r.into(),
            OpenRingError::Attach(a) => a.into(),
        }
    }
}

impl From<RingParamsError> for Error {
    fn from(e: RingParamsError) -> Error {
        err(Status::ERR_BAD_PARAM, &e)
    }
}

impl From<RingInitError> for Error {
    fn from(e: RingInitError) -> Error {
        err(Status::ERR_BAD_PARAM, &e)
    }
}

impl From<AttachError> for Error {
    fn from(e: AttachError) -> Error {
        let s = match e {
            AttachError::VersionMismatch { .. } => Status::ERR_NOT_SUPPORTED,
            _ => Status::ERR_INIT,
        };
        err(s, &e)
    }
}

impl From<TryPushError> for Error {
    fn from(e: TryPushError) -> Error {
        let s = match e {
            TryPushError::Full => Status::ERR_OUT_OF_RESOURCE,
            TryPushError::TooLarge { .. } => Status::ERR_BAD_PARAM,
            TryPushError::Abandoned => Status::ERR_TIMEOUT,
        };
        err(s, &e)
    }
}

impl From<PushTimeoutError> for Error {
    fn from(e: PushTimeoutError) -> Error {
        let s = match e {
            PushTimeoutError::Timeout | PushTimeoutError::Abandoned => Status::ERR_TIMEOUT,
            PushTimeoutError::TooLarge { .. } => Status::ERR_BAD_PARAM,
        };
        err(s, &e)
    }
}

impl From<TryPopError> for Error {
    fn from(e: TryPopError) -> Error {
        err(Status::ERR_WOULD_BLOCK, &e)
    }
}

impl From<PopTimeoutError> for Error {
    fn from(e: PopTimeoutError) -> Error {
        err(Status::ERR_TIMEOUT, &e)
    }
}

impl From<ConsumerBusyError> for Error {
    fn from(e: ConsumerBusyError) -> Error {
        err(Status::ERR_RESOURCE_BUSY, &e)
    }
}

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
    fn version_mismatch_maps_to_not_supported() {
        let e: Error = SegmentOpenError::VersionMismatch {
            found: 9,
            expected: 1,
        }
        .into();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert!(e.to_string().contains("layout version 9, expected 1"));
        let e: Error = AttachError::VersionMismatch {
            found: 2,
            expected: 1,
        }
        .into();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
    }

    #[test]
    fn other_open_failures_map_to_err_init() {
        for e in [
            SegmentOpenError::BadMagic { found: 0 },
            SegmentOpenError::NotReady,
            SegmentOpenError::TooSmall {
                len: 1,
                needed: 128,
            },
            SegmentOpenError::NotSealed { seals: 0 },
            SegmentOpenError::BadDirectory {
                index: 0,
                reason: "x",
            },
            SegmentOpenError::Io {
                call: "fstat",
                source: io::Error::from_raw_os_error(libc::EBADF),
            },
        ] {
            assert_eq!(Error::from(e).status(), Status::ERR_INIT);
        }
        assert_eq!(
            Error::from(AttachError::BadMagic { found: 0 }).status(),
            Status::ERR_INIT
        );
    }

    #[test]
    fn region_not_found_maps_to_not_found() {
        let r = RegionError::NotFound {
            kind: RegionKind::CLIENT_RING,
            id: 3,
        };
        assert_eq!(Error::from(r).status(), Status::ERR_NOT_FOUND);
        assert_eq!(
            Error::from(OpenRingError::Region(r)).status(),
            Status::ERR_NOT_FOUND
        );
        assert_eq!(
            Error::from(InitRingError::Region(r)).status(),
            Status::ERR_NOT_FOUND
        );
    }

    #[test]
    fn create_errors_map_to_bad_param_or_out_of_resource() {
        assert_eq!(
            Error::from(SegmentCreateError::BadLayout { reason: "dup" }).status(),
            Status::ERR_BAD_PARAM
        );
        let io = SegmentCreateError::Io {
            call: "memfd_create",
            source: io::Error::from_raw_os_error(libc::EMFILE),
        };
        assert!(io
            .to_string()
            .starts_with("SegmentCreateError::Io: memfd_create"));
        assert_eq!(Error::from(io).status(), Status::ERR_OUT_OF_RESOURCE);
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
        assert_eq!(
            Error::from(RingInitError::Misaligned { addr: 8 }).status(),
            Status::ERR_BAD_PARAM
        );
    }
}
