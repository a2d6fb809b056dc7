//! The errors every region shares — [`InitError`] (writing a structure
//! into a region), [`OpenError`] (attaching to one another process wrote)
//! and [`RegionError`] (a region the segment does not have) — and the one
//! conversion of this crate's errors into [`pmix_core::Error`].
//!
//! Each structure keeps its own *operation* errors next to it
//! (`ring::TryPushError`, `barrier::BarrierWaitError`,
//! `store::PublishError`, …); the segment's are in `segment::error`. Every
//! error type has `Display` (`Type::Variant: detail`) and a `status()`
//! method naming the PMIx status it is reported with at the crate edge;
//! `into_core_error!` (crate-private) turns that into the
//! `From` impl.
//!
//! | error          | variant                                   | PMIx status                |
//! |----------------|-------------------------------------------|----------------------------|
//! | [`RegionError`]| `NotFound`                                | `PMIX_ERR_NOT_FOUND`       |
//! | [`InitError`]  | `Region`                                  | `PMIX_ERR_NOT_FOUND`       |
//! |                | any other                                 | `PMIX_ERR_BAD_PARAM`       |
//! | [`OpenError`]  | `Region`                                  | `PMIX_ERR_NOT_FOUND`       |
//! |                | `VersionMismatch`                         | `PMIX_ERR_NOT_SUPPORTED`   |
//! |                | `WriterExists`                            | `PMIX_ERR_RESOURCE_BUSY`   |
//! |                | `NoFreeReaderSlot`                        | `PMIX_ERR_OUT_OF_RESOURCE` |
//! |                | any other                                 | `PMIX_ERR_INIT`            |

use std::fmt;

use pmix_core::Status;

use crate::layout::RegionKind;

/// Implements `From<E> for pmix_core::Error` for each listed error type
/// from its `status()` and its `Display` (the one conversion of the crate).
macro_rules! into_core_error {
    ($($t:ty),+ $(,)?) => {$(
        impl From<$t> for pmix_core::Error {
            fn from(e: $t) -> Self {
                pmix_core::Error::with_context(e.status(), e.to_string())
            }
        }
    )+};
}
pub(crate) use into_core_error;

/// A region the segment's directory does not have.
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

/// Why a structure could not be written into a region
/// ([`Segment::init`](crate::segment::Segment::init),
/// [`region::init_in`](crate::region::init_in)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitError {
    /// The segment has no such region.
    Region(RegionError),
    /// Only the creator of a segment initialises its regions.
    NotCreator,
    /// The segment is already published; regions are initialised before.
    AlreadyPublished,
    /// The region was initialised already.
    AlreadyInitialized,
    /// The parameters are out of range.
    InvalidParams {
        /// Which limit they break.
        reason: &'static str,
    },
    /// The region does not start on the structure's alignment.
    Misaligned {
        /// The region's first byte.
        addr: usize,
        /// The alignment needed.
        align: usize,
    },
    /// The region is shorter than the structure needs.
    TooSmall {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        needed: usize,
    },
}

/// Why a region could not be attached to
/// ([`Segment::attach`](crate::segment::Segment::attach),
/// [`region::attach`](crate::region::attach)). Everything in the region
/// was written by another process: each check reports, none trusts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenError {
    /// The segment has no such region.
    Region(RegionError),
    /// The region does not start on the structure's alignment.
    Misaligned {
        /// The region's first byte.
        addr: usize,
        /// The alignment needed.
        align: usize,
    },
    /// The region is shorter than the header, or than the structure its
    /// header describes.
    TooSmall {
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        needed: usize,
    },
    /// The magic word is 0: nothing has been published in the region (yet).
    NotReady,
    /// The magic word is another structure's (or garbage).
    BadMagic {
        /// The word found.
        found: u64,
        /// The structure's magic.
        expected: u64,
    },
    /// The structure was written by a build with another layout version.
    VersionMismatch {
        /// Version in the header.
        found: u32,
        /// This build's version of the structure.
        expected: u32,
    },
    /// The header's sizes or offsets are out of range or inconsistent.
    BadGeometry {
        /// What is wrong.
        reason: &'static str,
    },
    /// This process already has a live writer of this job-data store
    /// (through any mapping of the segment).
    WriterExists,
    /// Every reader slot of the job-data store is taken.
    NoFreeReaderSlot,
}

impl RegionError {
    /// `PMIX_ERR_NOT_FOUND`.
    pub fn status(&self) -> Status {
        Status::ERR_NOT_FOUND
    }
}

impl InitError {
    /// `Region` → `PMIX_ERR_NOT_FOUND`; any other → `PMIX_ERR_BAD_PARAM`
    /// (the caller asked for something impossible).
    pub fn status(&self) -> Status {
        match self {
            InitError::Region(_) => Status::ERR_NOT_FOUND,
            _ => Status::ERR_BAD_PARAM,
        }
    }
}

impl OpenError {
    /// `Region` → `PMIX_ERR_NOT_FOUND`; `VersionMismatch` →
    /// `PMIX_ERR_NOT_SUPPORTED`; `WriterExists` → `PMIX_ERR_RESOURCE_BUSY`;
    /// `NoFreeReaderSlot` → `PMIX_ERR_OUT_OF_RESOURCE`; any other →
    /// `PMIX_ERR_INIT`.
    pub fn status(&self) -> Status {
        match self {
            OpenError::Region(_) => Status::ERR_NOT_FOUND,
            OpenError::VersionMismatch { .. } => Status::ERR_NOT_SUPPORTED,
            OpenError::WriterExists => Status::ERR_RESOURCE_BUSY,
            OpenError::NoFreeReaderSlot => Status::ERR_OUT_OF_RESOURCE,
            _ => Status::ERR_INIT,
        }
    }
}

/// A magic word as text when it is printable ASCII (`"PMIXSTOR"`), so a
/// person sees which structure a region holds.
struct Magic(u64);

impl fmt::Display for Magic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bytes = self.0.to_le_bytes();
        let len = if self.0 >> 32 == 0 { 4 } else { 8 };
        match std::str::from_utf8(&bytes[..len]) {
            Ok(s) if s.bytes().all(|b| b.is_ascii_graphic()) => write!(f, "{s:?}"),
            _ => write!(f, "{:#x}", self.0),
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

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::Region(e) => write!(f, "InitError::Region: {e}"),
            InitError::NotCreator => f.write_str("InitError::NotCreator"),
            InitError::AlreadyPublished => f.write_str("InitError::AlreadyPublished"),
            InitError::AlreadyInitialized => f.write_str("InitError::AlreadyInitialized"),
            InitError::InvalidParams { reason } => write!(f, "InitError::InvalidParams: {reason}"),
            InitError::Misaligned { addr, align } => write!(
                f,
                "InitError::Misaligned: {addr:#x} is not {align}-byte aligned"
            ),
            InitError::TooSmall { len, needed } => {
                write!(f, "InitError::TooSmall: {len} bytes, need {needed}")
            }
        }
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Region(e) => write!(f, "OpenError::Region: {e}"),
            OpenError::Misaligned { addr, align } => write!(
                f,
                "OpenError::Misaligned: {addr:#x} is not {align}-byte aligned"
            ),
            OpenError::TooSmall { len, needed } => {
                write!(f, "OpenError::TooSmall: {len} bytes, need {needed}")
            }
            OpenError::NotReady => f.write_str("OpenError::NotReady: nothing published yet"),
            OpenError::BadMagic { found, expected } => write!(
                f,
                "OpenError::BadMagic: found {}, expected {}",
                Magic(*found),
                Magic(*expected)
            ),
            OpenError::VersionMismatch { found, expected } => write!(
                f,
                "OpenError::VersionMismatch: layout version {found}, expected {expected}"
            ),
            OpenError::BadGeometry { reason } => write!(f, "OpenError::BadGeometry: {reason}"),
            OpenError::WriterExists => {
                f.write_str("OpenError::WriterExists: this process already writes this store")
            }
            OpenError::NoFreeReaderSlot => {
                f.write_str("OpenError::NoFreeReaderSlot: every reader slot is taken")
            }
        }
    }
}

impl std::error::Error for RegionError {}

impl std::error::Error for InitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InitError::Region(e) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Region(e) => Some(e),
            _ => None,
        }
    }
}

into_core_error!(RegionError, InitError, OpenError);

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Error;

    #[test]
    fn region_errors_map_to_their_statuses() {
        let missing = RegionError::NotFound {
            kind: RegionKind::CLIENT_RING,
            id: 3,
        };
        assert_eq!(Error::from(missing).status(), Status::ERR_NOT_FOUND);
        assert_eq!(
            Error::from(InitError::Region(missing)).status(),
            Status::ERR_NOT_FOUND
        );
        assert_eq!(
            Error::from(OpenError::Region(missing)).status(),
            Status::ERR_NOT_FOUND
        );
        for e in [
            InitError::NotCreator,
            InitError::AlreadyPublished,
            InitError::AlreadyInitialized,
            InitError::InvalidParams { reason: "x" },
            InitError::Misaligned {
                addr: 8,
                align: 128,
            },
            InitError::TooSmall { len: 1, needed: 2 },
        ] {
            assert_eq!(Error::from(e).status(), Status::ERR_BAD_PARAM, "{e}");
        }
        let v = OpenError::VersionMismatch {
            found: 9,
            expected: 1,
        };
        assert_eq!(Error::from(v).status(), Status::ERR_NOT_SUPPORTED);
        assert!(v.to_string().contains("layout version 9, expected 1"));
        assert_eq!(
            Error::from(OpenError::WriterExists).status(),
            Status::ERR_RESOURCE_BUSY
        );
        assert_eq!(
            Error::from(OpenError::NoFreeReaderSlot).status(),
            Status::ERR_OUT_OF_RESOURCE
        );
        for e in [
            OpenError::NotReady,
            OpenError::BadGeometry { reason: "x" },
            OpenError::TooSmall { len: 1, needed: 2 },
            OpenError::Misaligned { addr: 8, align: 64 },
        ] {
            assert_eq!(Error::from(e).status(), Status::ERR_INIT, "{e}");
        }
    }

    #[test]
    fn bad_magic_names_both_structures_as_text() {
        let e = OpenError::BadMagic {
            found: u64::from_le_bytes(*b"PMIXSTOR"),
            expected: u32::from_le_bytes(*b"PXRG").into(),
        };
        assert_eq!(
            e.to_string(),
            r#"OpenError::BadMagic: found "PMIXSTOR", expected "PXRG""#
        );
        let e = OpenError::BadMagic {
            found: 0x0102,
            expected: 1,
        };
        assert!(e.to_string().contains("found 0x102"), "{e}");
    }
}
