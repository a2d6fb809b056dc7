//! The segment's own errors: creating one ([`SegmentCreateError`]) and
//! opening one another process created ([`SegmentOpenError`]).
//!
//! | error                   | variant           | PMIx status                |
//! |-------------------------|-------------------|----------------------------|
//! | [`SegmentCreateError`]  | `BadLayout`       | `PMIX_ERR_BAD_PARAM`       |
//! |                         | `Io`              | `PMIX_ERR_OUT_OF_RESOURCE` |
//! | [`SegmentOpenError`]    | `VersionMismatch` | `PMIX_ERR_NOT_SUPPORTED`   |
//! |                         | any other         | `PMIX_ERR_INIT`            |

use std::fmt;
use std::io;

use pmix_core::Status;

use crate::error::into_core_error;

/// Why [`Segment::create`](super::Segment::create) failed.
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

/// Why [`Segment::open`](super::Segment::open) refused a segment.
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

impl SegmentCreateError {
    /// `BadLayout` → `PMIX_ERR_BAD_PARAM`; `Io` → `PMIX_ERR_OUT_OF_RESOURCE`.
    pub fn status(&self) -> Status {
        match self {
            SegmentCreateError::BadLayout { .. } => Status::ERR_BAD_PARAM,
            SegmentCreateError::Io { .. } => Status::ERR_OUT_OF_RESOURCE,
        }
    }
}

impl SegmentOpenError {
    /// `VersionMismatch` → `PMIX_ERR_NOT_SUPPORTED`; any other →
    /// `PMIX_ERR_INIT`.
    pub fn status(&self) -> Status {
        match self {
            SegmentOpenError::VersionMismatch { .. } => Status::ERR_NOT_SUPPORTED,
            _ => Status::ERR_INIT,
        }
    }
}

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

into_core_error!(SegmentCreateError, SegmentOpenError);

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Error;

    #[test]
    fn version_mismatch_maps_to_not_supported() {
        let e: Error = SegmentOpenError::VersionMismatch {
            found: 9,
            expected: 1,
        }
        .into();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert!(e.to_string().contains("layout version 9, expected 1"));
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
}
