//! One life cycle for every structure that lives in a region of shared
//! memory: the MPSC [ring](crate::ring), the [barrier table](crate::barrier),
//! the [job-data store](crate::store) and the benchmarks'
//! [lines](crate::lines).
//!
//! Each implements [`Region`] once — its magic, layout version, parameters,
//! geometry, size, initial image and header checks — and [`Attach`] for
//! each handle that can be built on a published region (the store has two:
//! its writer and its readers). The rest is written here once:
//!
//! * [`init_in`]: parameters → geometry ([`InitError::InvalidParams`]),
//!   alignment and size of the memory (`Misaligned`, `TooSmall`), then the
//!   header is marked unpublished, the structure writes its image, and the
//!   magic is stored last with `Release` ([`header`] protocol);
//! * [`attach`]: alignment and header size, magic loaded first with
//!   `Acquire` (`NotReady`, `BadMagic`), version (`VersionMismatch`), the
//!   structure's geometry checks (`BadGeometry`), and the size that
//!   geometry needs (`TooSmall`). The geometry is copied once and never
//!   re-read from shared memory;
//! * [`new_heap`]: a region in its own zeroed memory; [`Fresh`]: zeroed
//!   memory that threads attach to while one initialises it.
//!
//! A region's bytes are a [`Memory`]: a pointer, length and keep-alive
//! outside loom, loom objects under `cfg(loom)`, reached in both builds
//! through typed parts. [`Segment::init`](crate::segment::Segment::init) and
//! [`Segment::attach`](crate::segment::Segment::attach) call [`init_in`] and
//! [`attach`] on a segment's region.
//!
//! # Examples
//!
//! ```
//! use pmix_shm::region::{self, Region};
//! use pmix_shm::ring::{Ring, RingParams};
//!
//! let params = RingParams::new(16).unwrap();
//! assert_eq!(Ring::memory_size(&params), 640 + 16 * 64);
//! let ring = region::new_heap::<Ring>(&params).unwrap();
//! assert_eq!(ring.cells(), 16);
//! ```

mod fresh;
pub mod header;
#[cfg(not(loom))]
mod heap;
mod memory;

use std::fmt;

pub use fresh::{Attacher, Fresh};
pub use header::{Header, MagicWord};
#[cfg(loom)]
pub(crate) use memory::{loom_part, loom_part_with};
pub use memory::{KeepAlive, Memory, Plain};
pub(crate) use memory::{Part, RegionId};

use crate::error::{InitError, OpenError};

/// A structure that lives in one region (see the [module docs](self)),
/// implemented by the handle that [`init_in`] returns.
pub trait Region: Sized {
    /// What the structure is, for messages ("MPSC ring").
    const NAME: &'static str;
    /// The header's first word once published (a 4-byte magic is widened).
    const MAGIC: u64;
    /// The layout version this build writes and accepts.
    const VERSION: u32;
    /// Alignment of the region's first byte.
    const ALIGN: usize;
    /// Bytes of the header, where the first part starts.
    const HEADER_SIZE: usize;
    /// What the creator chooses.
    type Params;
    /// Validated sizes, copied once.
    type Geometry: Copy + fmt::Debug;
    /// The header at offset 0.
    type Header: Header;

    /// Validates `params`.
    ///
    /// # Errors
    ///
    /// [`InitError::InvalidParams`] naming the broken limit.
    fn geometry(params: &Self::Params) -> Result<Self::Geometry, InitError>;

    /// Bytes a region of `geom` takes.
    fn size(geom: &Self::Geometry) -> usize;

    /// Bytes a region with `params` takes; 0 for parameters out of range
    /// (a layout with such a region is refused).
    fn memory_size(params: &Self::Params) -> usize {
        Self::geometry(params).map_or(0, |g| Self::size(&g))
    }

    /// Writes the header's own fields and every cell's initial value, all
    /// `Relaxed`: [`init_in`] has written the version and publishes the
    /// magic after this.
    #[doc(hidden)]
    fn write_image(mem: &Memory, geom: &Self::Geometry);

    /// Reads the geometry from a header whose magic and version were just
    /// checked (`Relaxed` loads, ordered by that `Acquire`), and checks it.
    ///
    /// # Errors
    ///
    /// [`OpenError::BadGeometry`] (or `NotReady`).
    #[doc(hidden)]
    fn read_geometry(header: &Self::Header) -> Result<Self::Geometry, OpenError>;

    /// The loom objects of a zeroed region of `geom`, one per part.
    #[cfg(loom)]
    #[doc(hidden)]
    fn loom_parts(geom: &Self::Geometry) -> Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>>;
}

/// A handle that can be built on a published region of
/// [`Self::Region`](Attach::Region).
pub trait Attach: Sized {
    /// The structure in the region.
    type Region: Region;

    /// Builds the handle on memory whose header [`attach`] (or
    /// [`init_in`]) validated as `geom`.
    ///
    /// # Errors
    ///
    /// The handle's own refusals (a store's reader slots all taken, a
    /// second writer of a store in this process).
    #[doc(hidden)]
    fn from_memory(
        mem: Memory,
        geom: <Self::Region as Region>::Geometry,
    ) -> Result<Self, OpenError>;
}

impl Memory {
    /// Zeroed memory of the size a region of `R` with `params` takes (under
    /// loom: loom objects standing for it), owned by the handles built on
    /// it. Nothing is initialised: a handle comes from
    /// [`init_in`], and an [`attach`]
    /// before that finds [`OpenError::NotReady`](crate::error::OpenError::NotReady).
    /// The memory has an identity (its address), so a store built in it
    /// has one writer at a time in this process, as in a segment.
    ///
    /// # Errors
    ///
    /// [`InitError::InvalidParams`] for parameters out of range.
    pub fn heap<R: Region>(params: &R::Params) -> Result<Memory, InitError> {
        let geom = R::geometry(params)?;
        let len = R::size(&geom);
        #[cfg(not(loom))]
        {
            let region = heap::HeapRegion::zeroed(len, R::ALIGN);
            let base = region.base();
            // SAFETY: the allocation is valid for at least `len` bytes and
            // lives as long as the keep-alive every handle holds.
            let mem = unsafe { Memory::from_raw(base, len, Some(std::sync::Arc::new(region))) };
            Ok(mem.with_identity(memory::heap_identity(base.as_ptr() as usize)))
        }
        #[cfg(loom)]
        {
            Ok(Memory::loom(len, R::loom_parts(&geom)))
        }
    }
}

/// Why memory cannot hold a region.
enum Misfit {
    Misaligned { addr: usize, align: usize },
    TooSmall { len: usize, needed: usize },
}

impl Misfit {
    /// Checks that `mem` is aligned for `R` and holds `needed` bytes.
    fn check<R: Region>(mem: &Memory, needed: usize) -> Result<(), Misfit> {
        let addr = mem.addr();
        if addr % R::ALIGN != 0 {
            Err(Misfit::Misaligned {
                addr,
                align: R::ALIGN,
            })
        } else if mem.len() < needed {
            Err(Misfit::TooSmall {
                len: mem.len(),
                needed,
            })
        } else {
            Ok(())
        }
    }
}

impl From<Misfit> for InitError {
    fn from(m: Misfit) -> Self {
        match m {
            Misfit::Misaligned { addr, align } => InitError::Misaligned { addr, align },
            Misfit::TooSmall { len, needed } => InitError::TooSmall { len, needed },
        }
    }
}

impl From<Misfit> for OpenError {
    fn from(m: Misfit) -> Self {
        match m {
            Misfit::Misaligned { addr, align } => OpenError::Misaligned { addr, align },
            Misfit::TooSmall { len, needed } => OpenError::TooSmall { len, needed },
        }
    }
}

/// Writes a fresh `R` into `mem` and returns its handle (see the
/// [module docs](self) for the steps).
///
/// # Safety
///
/// While this runs and after, nobody may use `mem` as a structure except
/// through handles built by this call or by [`attach`] (which reports
/// `NotReady` until the magic is published): in particular no live handle
/// of an earlier structure in the same bytes.
///
/// # Errors
///
/// [`InitError::InvalidParams`], [`InitError::Misaligned`],
/// [`InitError::TooSmall`]; [`InitError::AlreadyInitialized`] if the handle
/// refuses (a store of which this process already has a writer).
pub unsafe fn init_in<R>(mem: Memory, params: &R::Params) -> Result<R, InitError>
where
    R: Region + Attach<Region = R>,
{
    let geom = R::geometry(params)?;
    Misfit::check::<R>(&mem, R::size(&geom))?;
    let part = mem.header::<R::Header>();
    let header = &part[0];
    header::begin(header, R::VERSION);
    R::write_image(&mem, &geom);
    header::publish(header, R::MAGIC);
    R::from_memory(mem, geom).map_err(|_| InitError::AlreadyInitialized)
}

/// Attaches an `A` to the `A::Region` another handle or process published
/// in `mem`, validating its header without trusting it (see the
/// [module docs](self)).
///
/// # Safety
///
/// For a [`StoreWriter`](crate::store::StoreWriter): no other writer of the
/// store may live (in any process), and the last one's publications happen
/// before this call (see [`Segment::attach`](crate::segment::Segment::attach)).
/// Otherwise none beyond [`Memory::from_raw`]'s.
///
/// # Errors
///
/// An [`OpenError`] naming the first failed check.
pub unsafe fn attach<A: Attach>(mem: Memory) -> Result<A, OpenError> {
    let header_size = <A::Region as Region>::HEADER_SIZE;
    Misfit::check::<A::Region>(&mem, header_size)?;
    let part = mem.header::<<A::Region as Region>::Header>();
    let header = &part[0];
    header::check(
        header,
        <A::Region as Region>::MAGIC,
        <A::Region as Region>::VERSION,
    )?;
    let geom = <A::Region as Region>::read_geometry(header)?;
    let needed = <A::Region as Region>::size(&geom);
    Misfit::check::<A::Region>(&mem, needed)?;
    A::from_memory(mem, geom)
}

/// A fresh `R` in its own zeroed memory ([`Memory::heap`] + [`init_in`]).
///
/// # Errors
///
/// [`InitError::InvalidParams`].
pub fn new_heap<R>(params: &R::Params) -> Result<R, InitError>
where
    R: Region + Attach<Region = R>,
{
    let mem = Memory::heap::<R>(params)?;
    // SAFETY: fresh memory that only the handles built here will reach.
    unsafe { init_in::<R>(mem, params) }
}
