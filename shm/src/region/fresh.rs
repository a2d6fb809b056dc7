//! [`Fresh`]: zeroed memory for one structure that several threads share
//! while one of them initialises it — the safe way to race an attach
//! against an initialisation, as the loom models of the header
//! publication do.

use std::fmt;
use std::marker::PhantomData;

use super::{attach, init_in, Attach, Memory, Region};
use crate::error::{InitError, OpenError};

/// Fresh zeroed memory for one `R`, and the right to initialise it once
/// ([`init`](Self::init) consumes it). [`Attacher`]s made from it attach to
/// the same memory from any thread: before the initialisation publishes
/// the header they find [`OpenError::NotReady`], after it the structure.
///
/// # Examples
/// ```
/// use pmix_shm::error::OpenError;
/// use pmix_shm::region::Fresh;
/// use pmix_shm::ring::{Ring, RingParams};
///
/// let params = RingParams::new(16).unwrap();
/// let fresh = Fresh::<Ring>::new(&params).unwrap();
/// let attacher = fresh.attacher();
/// assert_eq!(attacher.attach::<Ring>().unwrap_err(), OpenError::NotReady);
/// let ring = fresh.init(&params).unwrap();
/// let other: Ring = attacher.attach().unwrap();
/// other.try_push(1, b"hi").unwrap();
/// assert_eq!(ring.used_cells(), 1);
/// ```
pub struct Fresh<R> {
    mem: Memory,
    _region: PhantomData<fn() -> R>,
}

/// Attaches to the memory of a [`Fresh`] (cloneable, for any thread).
pub struct Attacher<R> {
    mem: Memory,
    _region: PhantomData<fn() -> R>,
}

impl<R> Clone for Attacher<R> {
    fn clone(&self) -> Self {
        Attacher {
            mem: self.mem.clone(),
            _region: PhantomData,
        }
    }
}

impl<R> fmt::Debug for Fresh<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Fresh").field("mem", &self.mem).finish()
    }
}

impl<R> fmt::Debug for Attacher<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attacher").field("mem", &self.mem).finish()
    }
}

impl<R: Region + Attach<Region = R>> Fresh<R> {
    /// Zeroed memory for an `R` with `params` ([`Memory::heap`]).
    ///
    /// # Errors
    ///
    /// [`InitError::InvalidParams`].
    pub fn new(params: &R::Params) -> Result<Self, InitError> {
        Ok(Fresh {
            mem: Memory::heap::<R>(params)?,
            _region: PhantomData,
        })
    }

    /// An attacher to this memory.
    pub fn attacher(&self) -> Attacher<R> {
        Attacher {
            mem: self.mem.clone(),
            _region: PhantomData,
        }
    }

    /// Initialises the memory ([`init_in`]): the one initialisation.
    ///
    /// # Errors
    ///
    /// As [`init_in`].
    pub fn init(self, params: &R::Params) -> Result<R, InitError> {
        // SAFETY: the memory is this value's own, zeroed, and initialised
        // only here (this consumes the value); attachers read nothing but
        // atomics before the magic is published, and a store writer among
        // them is refused while another lives (the memory has an identity).
        unsafe { init_in::<R>(self.mem, params) }
    }
}

impl<R: Region> Attacher<R> {
    /// Attaches an `A` ([`attach`]).
    ///
    /// # Errors
    ///
    /// As [`attach`]; [`OpenError::WriterExists`] for a second live writer
    /// of a store.
    pub fn attach<A: Attach<Region = R>>(&self) -> Result<A, OpenError> {
        // SAFETY: heap memory kept alive by the handles; one store writer
        // at a time is enforced by the memory's identity.
        unsafe { attach::<A>(self.mem.clone()) }
    }
}
