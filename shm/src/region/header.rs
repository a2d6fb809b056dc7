//! The one header publication protocol of every region: the magic word at
//! offset 0 is stored **last**, with `Release`, after the version, the
//! geometry and every cell's initial value; an attacher loads it **first**,
//! with `Acquire`, and only then reads the rest. Zero means "not ready".
//!
//! | magic word       | meaning                                              |
//! |------------------|------------------------------------------------------|
//! | 0                | nothing published (fresh, or being initialised)      |
//! | the structure's  | published: version, geometry and cells are complete  |
//! | anything else    | another structure, or garbage                        |

use crate::error::OpenError;
use crate::sync::{AtomicU32, AtomicU64, Ordering};

use super::memory::Plain;

/// The width of a magic word: 4 bytes (the ring's `"PXRG"`) or 8 bytes
/// (`"PMIXSTOR"`, `"PMIXBARR"`, …), compared as a `u64`.
pub trait MagicWord {
    /// Loads the word.
    fn get(&self, order: Ordering) -> u64;
    /// Stores `v` (truncated to the word's width).
    fn set(&self, v: u64, order: Ordering);
}

impl MagicWord for AtomicU32 {
    fn get(&self, order: Ordering) -> u64 {
        self.load(order).into()
    }

    fn set(&self, v: u64, order: Ordering) {
        self.store(v as u32, order);
    }
}

impl MagicWord for AtomicU64 {
    fn get(&self, order: Ordering) -> u64 {
        self.load(order)
    }

    fn set(&self, v: u64, order: Ordering) {
        self.store(v, order);
    }
}

/// The header at offset 0 of a region: its magic and version words.
pub trait Header: Plain {
    /// The magic word's type.
    type Magic: MagicWord;
    /// The magic word (offset 0).
    fn magic(&self) -> &Self::Magic;
    /// The layout version word.
    fn version(&self) -> &AtomicU32;
}

/// Implements [`Header`] for a header struct from the names of its magic
/// and version fields, and a `Debug` that shows nothing of the (untrusted)
/// contents.
macro_rules! impl_header {
    ($t:ident, $magic:ident: $word:ty, $version:ident) => {
        impl $crate::region::Header for $t {
            type Magic = $word;

            fn magic(&self) -> &$word {
                &self.$magic
            }

            fn version(&self) -> &$crate::sync::AtomicU32 {
                &self.$version
            }
        }

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t)).finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use impl_header;

/// Marks the header unpublished and writes the version: the first stores
/// of an initialisation.
pub(crate) fn begin<H: Header>(h: &H, version: u32) {
    // ORDERING: Relaxed — nothing is published by these stores; an attacher
    // that sees the 0 reports `NotReady`, and the version is published by
    // the Release store in `publish`.
    h.magic().set(0, Ordering::Relaxed);
    h.version().store(version, Ordering::Relaxed);
}

/// Publishes the header: the magic, last.
pub(crate) fn publish<H: Header>(h: &H, magic: u64) {
    // ORDERING: Release — pairs with the Acquire load in `check`: the
    // version, geometry and initial cells written before are visible to an
    // attacher that sees the magic.
    h.magic().set(magic, Ordering::Release);
}

/// Checks a header another process wrote: magic (loaded first), then
/// version.
///
/// # Errors
///
/// [`OpenError::NotReady`], [`OpenError::BadMagic`] or
/// [`OpenError::VersionMismatch`].
pub(crate) fn check<H: Header>(h: &H, magic: u64, version: u32) -> Result<(), OpenError> {
    // ORDERING: Acquire — pairs with the Release store in `publish`: every
    // field read after this (Relaxed) is the initialiser's.
    let found = h.magic().get(Ordering::Acquire);
    if found == 0 {
        return Err(OpenError::NotReady);
    }
    if found != magic {
        return Err(OpenError::BadMagic {
            found,
            expected: magic,
        });
    }
    // ORDERING: Relaxed — after the Acquire above.
    let v = h.version().load(Ordering::Relaxed);
    if v != version {
        return Err(OpenError::VersionMismatch {
            found: v,
            expected: version,
        });
    }
    Ok(())
}
