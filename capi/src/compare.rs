//! `PMIx_Value_compare`: orders two C values of the same type.
//!
//! Numbers compare by value (floats by IEEE order, NaN: not available),
//! strings and byte objects lexicographically, procs by namespace then rank,
//! envars by name, value, separator. Other types are `PMIX_EQUAL` when
//! their contents are equal and `PMIX_VALUE_COMPARISON_NOT_AVAIL` otherwise.
//! Unlike OpenPMIx 4.2.2, floats are not reversed and unequal pointers are
//! not reported equal.

use std::cmp::Ordering;
use std::os::raw::c_char;
use std::ptr::read_unaligned;

use crate::cdata::{elem_ptr, ElemKind, PodValue};
use crate::cmem;
use crate::convert;
use crate::types::*;

fn order<T: PartialOrd>(a: T, b: T) -> Option<Ordering> {
    a.partial_cmp(&b)
}

/// Compares two C values.
///
/// # Safety
/// `a` and `b` are NULL or valid values.
pub(crate) unsafe fn value_compare(
    a: *const pmix_value_t,
    b: *const pmix_value_t,
) -> pmix_value_cmp_t {
    if a.is_null() || b.is_null() {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    // SAFETY: both valid (caller guarantee).
    let (a, b) = unsafe { (&*a, &*b) };
    if a.type_ != b.type_ {
        return PMIX_VALUE_TYPE_DIFFERENT;
    }
    let ord = match ElemKind::of(a.type_) {
        None if a.type_ == PMIX_UNDEF => Some(Ordering::Equal),
        // SAFETY: both are valid values of type `kind`.
        Some(kind) if has_order(kind) => match unsafe { (elem_ptr(a, kind), elem_ptr(b, kind)) } {
            // SAFETY: each points to one element of `kind`.
            (Some(x), Some(y)) => unsafe { elem_order(kind, x, y) },
            _ => None,
        },
        // The other types are equal when their Rust forms are.
        // SAFETY: both are valid values.
        _ => match unsafe { (convert::value_from_c(a), convert::value_from_c(b)) } {
            (Ok(x), Ok(y)) if x == y => Some(Ordering::Equal),
            _ => None,
        },
    };
    match ord {
        Some(Ordering::Equal) => PMIX_EQUAL,
        Some(Ordering::Greater) => PMIX_VALUE1_GREATER,
        Some(Ordering::Less) => PMIX_VALUE2_GREATER,
        None => PMIX_VALUE_COMPARISON_NOT_AVAIL,
    }
}

/// Whether elements of `kind` have an order of their own ([`elem_order`]);
/// the others are only found equal or not.
fn has_order(kind: ElemKind) -> bool {
    use ElemKind as K;
    matches!(
        kind,
        K::Pod(_) | K::Proc | K::Nspace | K::String | K::Bytes | K::Envar
    )
}

/// The order of two elements of `kind`; `None` for kinds without one.
///
/// # Safety
/// `x` and `y` each point to one initialised element of `kind` whose
/// pointers are valid for its C type.
unsafe fn elem_order(kind: ElemKind, x: *const u8, y: *const u8) -> Option<Ordering> {
    use ElemKind as K;
    match kind {
        K::Pod(pod) => {
            // SAFETY: one scalar each (caller guarantee).
            let (x, y) = unsafe { (pod.read(x), pod.read(y)) };
            match (x, y) {
                (PodValue::Pointer(p), PodValue::Pointer(q)) => (p == q).then_some(Ordering::Equal),
                _ => order(x, y),
            }
        }
        K::Proc => {
            // SAFETY: one `pmix_proc_t` each (caller guarantee).
            let (x, y) = unsafe { (&*x.cast::<pmix_proc_t>(), &*y.cast::<pmix_proc_t>()) };
            order(
                (cmem::fixed_bytes(&x.nspace), x.rank),
                (cmem::fixed_bytes(&y.nspace), y.rank),
            )
        }
        K::Nspace => {
            // SAFETY: one `pmix_nspace_t` each (caller guarantee).
            let (x, y) = unsafe { (&*x.cast::<pmix_nspace_t>(), &*y.cast::<pmix_nspace_t>()) };
            order(cmem::fixed_bytes(x), cmem::fixed_bytes(y))
        }
        K::String => {
            // SAFETY: one `char *` each (caller guarantee).
            let (x, y): (*const c_char, *const c_char) =
                unsafe { (read_unaligned(x.cast()), read_unaligned(y.cast())) };
            match (x.is_null(), y.is_null()) {
                // SAFETY: non-NULL C strings (caller guarantee).
                (false, false) => order(unsafe { cmem::c_bytes(x) }, unsafe { cmem::c_bytes(y) }),
                (xn, yn) => order(!xn, !yn),
            }
        }
        K::Bytes => {
            // SAFETY: one byte object each (caller guarantee).
            let (x, y): (pmix_byte_object_t, pmix_byte_object_t) =
                unsafe { (read_unaligned(x.cast()), read_unaligned(y.cast())) };
            // SAFETY: each holds `size` bytes (caller guarantee).
            order(unsafe { bo_bytes(&x) }, unsafe { bo_bytes(&y) })
        }
        K::Envar => {
            // SAFETY: one `pmix_envar_t` each (caller guarantee).
            let (x, y): (pmix_envar_t, pmix_envar_t) =
                unsafe { (read_unaligned(x.cast()), read_unaligned(y.cast())) };
            // SAFETY: their strings are NULL or C strings (caller guarantee).
            unsafe {
                order(
                    (cmem::c_bytes(x.envar), cmem::c_bytes(x.value), x.separator),
                    (cmem::c_bytes(y.envar), cmem::c_bytes(y.value), y.separator),
                )
            }
        }
        _ => None,
    }
}

/// The bytes of a byte object (empty for NULL).
///
/// # Safety
/// `bo.bytes` is NULL or holds `bo.size` bytes.
unsafe fn bo_bytes(bo: &pmix_byte_object_t) -> &[u8] {
    if bo.bytes.is_null() {
        &[]
    } else {
        // SAFETY: `size` bytes at `bytes` (caller guarantee).
        unsafe { std::slice::from_raw_parts(bo.bytes.cast::<u8>(), bo.size) }
    }
}
