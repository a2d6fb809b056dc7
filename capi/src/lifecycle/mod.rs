//! The PMIx v5 lifecycle helpers of the public structs:
//! `PMIx_<Type>_construct/destruct/create/free` (and the `load`/`xfer`/
//! `release` helpers of some types), which OpenPMIx 5 exports as functions
//! where 4.2 had header macros. Open MPI 5 calls them.
//!
//! One generic implementation over the per-type table of `cdata`
//! ([`ElemKind`]), with the Standard v5 semantics:
//! - `construct(p)`: every field zero, except a process's rank
//!   (`PMIX_RANK_UNDEF`) and a device distance's bounds (`UINT16_MAX`);
//!   a value's type is `PMIX_UNDEF` (0). NULL is a no-op.
//! - `destruct(p)`: releases what the struct owns (libc `free`, rule R1)
//!   and leaves it constructed; an info marked `PMIX_INFO_PERSISTENT` does
//!   not own its value. NULL is a no-op.
//! - `create(n)`: a libc array of `n` constructed structs; NULL for 0 or
//!   when memory runs out.
//! - `free(p, n)`: destructs the `n` structs and frees the array; NULL is
//!   a no-op.
//!
//! The families, one file each: `info` (infos and their flags), `value`
//! (values and data arrays), `proc_id` (process ids, process info),
//! `spawn` (apps, queries, pdata), `payload` (byte objects, envars,
//! registered attributes, data buffers), `fabric` (coordinates, geometry,
//! device distances, endpoints, topologies and cpusets), `stats` (the
//! process/disk/net/node statistics).

use std::ptr;

use crate::cdata::{self, ElemKind};
use crate::cmem;
use crate::types::*;

mod fabric;
mod info;
mod payload;
mod proc_id;
mod spawn;
mod stats;
mod value;

#[cfg(test)]
mod tests;

pub use fabric::*;
pub use info::*;
pub use payload::*;
pub use proc_id::*;
pub use spawn::*;
pub use stats::*;
pub use value::*;

// The zeroed state is the constructed one for every type whose first
// field is not special-cased below: PMIX_UNDEF and PMIX_COORD_VIEW_UNDEF
// are both 0.
const _: () = assert!(PMIX_UNDEF == 0 && PMIX_COORD_VIEW_UNDEF == 0);

/// Writes the constructed state of one element of `kind` at `p`.
///
/// # Safety
/// `p` is writable for `kind.size()` bytes, suitably aligned; what it held
/// is overwritten, not released.
pub(crate) unsafe fn construct(kind: ElemKind, p: *mut u8) {
    // SAFETY: writable for one element (caller guarantee).
    unsafe { ptr::write_bytes(p, 0, kind.size()) };
    match kind {
        ElemKind::Proc => {
            // SAFETY: a pmix_proc_t (kind), just zeroed.
            unsafe { (*p.cast::<pmix_proc_t>()).rank = PMIX_RANK_UNDEF };
        }
        ElemKind::DeviceDist => {
            // SAFETY: a pmix_device_distance_t (kind), just zeroed.
            let d = unsafe { &mut *p.cast::<pmix_device_distance_t>() };
            d.mindist = u16::MAX;
            d.maxdist = u16::MAX;
        }
        _ => {}
    }
}

/// Releases what one element owns and leaves it constructed.
///
/// # Safety
/// `p` is one valid element of `kind` whose owned pointers are NULL or
/// libc allocations, none used afterwards.
pub(crate) unsafe fn destruct(kind: ElemKind, p: *mut u8) {
    match kind {
        // SAFETY: a valid cpuset (caller guarantee).
        ElemKind::Cpuset => unsafe { crate::topology::PMIx_Cpuset_destruct(p.cast()) },
        // SAFETY: a valid topology (caller guarantee).
        ElemKind::Topology => unsafe { crate::topology::PMIx_Topology_destruct(p.cast()) },
        _ => {
            // SAFETY: forwarded caller guarantee; then the slot is rewritten.
            unsafe {
                cdata::elem_destruct(kind, p);
                construct(kind, p);
            }
        }
    }
}

/// A libc array of `n` constructed elements of `kind`; NULL for `n == 0`
/// or when memory runs out.
pub(crate) fn create(kind: ElemKind, n: usize) -> *mut u8 {
    if n == 0 {
        return ptr::null_mut();
    }
    let Some(bytes) = kind.size().checked_mul(n) else {
        return ptr::null_mut();
    };
    let Ok(array) = cmem::calloc_array::<u8>(bytes) else {
        return ptr::null_mut();
    };
    for i in 0..n {
        // SAFETY: element `i < n` of a fresh allocation of `n` elements
        // (calloc's alignment suits every C type).
        unsafe { construct(kind, array.add(i * kind.size())) };
    }
    array
}

/// Destructs `n` elements of `kind` at `array` and frees the array.
///
/// # Safety
/// `array` is NULL or a libc allocation holding at least `n` valid
/// elements of `kind` (see [`destruct`]), not used afterwards.
pub(crate) unsafe fn free_array(kind: ElemKind, array: *mut u8, n: usize) {
    if array.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: element `i < n` (caller guarantee).
        unsafe { destruct(kind, array.add(i * kind.size())) };
    }
    // SAFETY: a libc allocation (caller guarantee).
    unsafe { cmem::free(array) };
}

/// Defines the exported `construct`/`destruct`/`create`/`free` functions
/// of one struct type over the generic ones above:
///
/// ```text
/// lifecycle! {
///     Proc: pmix_proc_t {
///         construct PMIx_Proc_construct,
///         destruct PMIx_Proc_destruct,
///         create PMIx_Proc_create,
///         free PMIx_Proc_free,
///     }
/// }
/// ```
///
/// Each of the four is optional (a type whose destruct has rules of its
/// own defines it by hand).
macro_rules! lifecycle {
    ($(
        $kind:ident: $ty:ident {
            $(construct $construct:ident,)?
            $(destruct $destruct:ident,)?
            $(create $create:ident,)?
            $(free $free:ident,)?
        }
    )*) => {$(
        $(
            #[doc = concat!("`void ", stringify!($construct), "(", stringify!($ty),
                " *p)`: the constructed state (see the module's rules); NULL is a no-op.")]
            ///
            /// # Safety
            /// `p` is NULL or writable; what it held is not released.
            #[no_mangle]
            pub unsafe extern "C" fn $construct(p: *mut $ty) {
                if !p.is_null() {
                    // SAFETY: non-NULL and writable (caller guarantee).
                    unsafe { $crate::lifecycle::construct($crate::cdata::ElemKind::$kind, p.cast()) }
                }
            }
        )?
        $(
            #[doc = concat!("`void ", stringify!($destruct), "(", stringify!($ty),
                " *p)`: releases what the struct owns and leaves it constructed; \
                NULL is a no-op.")]
            ///
            /// # Safety
            /// `p` is NULL or valid, owning only libc memory, which is not
            /// used afterwards.
            #[no_mangle]
            pub unsafe extern "C" fn $destruct(p: *mut $ty) {
                if !p.is_null() {
                    // SAFETY: non-NULL and valid (caller guarantee).
                    unsafe { $crate::lifecycle::destruct($crate::cdata::ElemKind::$kind, p.cast()) }
                }
            }
        )?
        $(
            #[doc = concat!("`", stringify!($ty), "* ", stringify!($create),
                "(size_t n)`: a malloc'd array of `n` constructed structs; NULL for \
                0 or when memory runs out.")]
            #[no_mangle]
            pub extern "C" fn $create(n: usize) -> *mut $ty {
                $crate::lifecycle::create($crate::cdata::ElemKind::$kind, n).cast()
            }
        )?
        $(
            #[doc = concat!("`void ", stringify!($free), "(", stringify!($ty),
                " *p, size_t n)`: destructs the `n` structs and frees the array; NULL \
                is a no-op.")]
            ///
            /// # Safety
            /// `p` is NULL or a libc array of at least `n` valid structs, not
            /// used afterwards.
            #[no_mangle]
            pub unsafe extern "C" fn $free(p: *mut $ty, n: usize) {
                // SAFETY: forwarded caller guarantee.
                unsafe { $crate::lifecycle::free_array($crate::cdata::ElemKind::$kind, p.cast(), n) }
            }
        )?
    )*};
}
pub(crate) use lifecycle;
