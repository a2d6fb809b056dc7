//! `PMIx_Value_compare`: orders two C values of the same type.
//!
//! Numbers compare by value (floats by IEEE order, NaN: not available),
//! strings and byte objects lexicographically, procs by namespace then rank,
//! envars by name, value, separator. Other types are `PMIX_EQUAL` when
//! their contents are equal and `PMIX_VALUE_COMPARISON_NOT_AVAIL` otherwise.
//! Unlike OpenPMIx 4.2.2, floats are not reversed and unequal pointers are
//! not reported equal.

use std::cmp::Ordering;
use std::ptr::{self, read_unaligned};

use crate::cmem;
use crate::convert;
use crate::types::*;

/// Reads the union's first bytes as `T`.
///
/// # Safety
/// The value's type stores a `T` inline at the start of its data union.
unsafe fn scalar<T: Copy>(v: &pmix_value_t) -> T {
    // SAFETY: the union is 24 bytes, larger than any `T` used here, and
    // holds a `T` at its start (caller guarantee).
    unsafe { read_unaligned(ptr::addr_of!(v.data).cast::<T>()) }
}

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
    // SAFETY: each arm reads the representation its type tag declares
    // (inline scalars, or the pointers the C API defines for the type).
    let ord = unsafe {
        match a.type_ {
            PMIX_UNDEF => Some(Ordering::Equal),
            PMIX_BOOL => order(scalar::<u8>(a) != 0, scalar::<u8>(b) != 0),
            PMIX_BYTE | PMIX_UINT8 | PMIX_PERSIST | PMIX_SCOPE | PMIX_DATA_RANGE
            | PMIX_PROC_STATE | PMIX_JOB_STATE | PMIX_ALLOC_DIRECTIVE | PMIX_LINK_STATE => {
                order(scalar::<u8>(a), scalar::<u8>(b))
            }
            PMIX_INT8 => order(scalar::<i8>(a), scalar::<i8>(b)),
            PMIX_INT16 => order(scalar::<i16>(a), scalar::<i16>(b)),
            PMIX_INT | PMIX_INT32 | PMIX_PID | PMIX_STATUS => {
                order(scalar::<i32>(a), scalar::<i32>(b))
            }
            PMIX_INT64 | PMIX_TIME => order(scalar::<i64>(a), scalar::<i64>(b)),
            PMIX_UINT16
            | PMIX_DATA_TYPE
            | PMIX_IOF_CHANNEL
            | PMIX_LOCTYPE
            | PMIX_STOR_ACCESS_TYPE => order(scalar::<u16>(a), scalar::<u16>(b)),
            PMIX_UINT | PMIX_UINT32 | PMIX_PROC_RANK | PMIX_INFO_DIRECTIVES => {
                order(scalar::<u32>(a), scalar::<u32>(b))
            }
            PMIX_SIZE | PMIX_UINT64 | PMIX_DEVTYPE | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS
            | PMIX_STOR_PERSIST => order(scalar::<u64>(a), scalar::<u64>(b)),
            PMIX_FLOAT => order(scalar::<f32>(a), scalar::<f32>(b)),
            PMIX_DOUBLE => order(scalar::<f64>(a), scalar::<f64>(b)),
            PMIX_TIMEVAL => {
                let (x, y) = (scalar::<libc::timeval>(a), scalar::<libc::timeval>(b));
                order((x.tv_sec, x.tv_usec), (y.tv_sec, y.tv_usec))
            }
            PMIX_STRING => {
                let (x, y) = (a.data.string, b.data.string);
                match (x.is_null(), y.is_null()) {
                    (false, false) => order(cmem::c_bytes(x), cmem::c_bytes(y)),
                    (xn, yn) => order(!xn, !yn),
                }
            }
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => order(bo_bytes(&a.data.bo), bo_bytes(&b.data.bo)),
            PMIX_PROC => {
                let (x, y) = (a.data.proc_, b.data.proc_);
                if x.is_null() || y.is_null() {
                    None
                } else {
                    order(
                        (cmem::fixed_bytes(&(*x).nspace), (*x).rank),
                        (cmem::fixed_bytes(&(*y).nspace), (*y).rank),
                    )
                }
            }
            PMIX_PROC_NSPACE => {
                let (x, y) = (a.data.nspace, b.data.nspace);
                if x.is_null() || y.is_null() {
                    None
                } else {
                    order(cmem::fixed_bytes(&*x), cmem::fixed_bytes(&*y))
                }
            }
            PMIX_ENVAR => {
                let (x, y) = (a.data.envar, b.data.envar);
                order(
                    (cmem::c_bytes(x.envar), cmem::c_bytes(x.value), x.separator),
                    (cmem::c_bytes(y.envar), cmem::c_bytes(y.value), y.separator),
                )
            }
            PMIX_POINTER => (a.data.ptr == b.data.ptr).then_some(Ordering::Equal),
            _ => match (convert::value_from_c(a), convert::value_from_c(b)) {
                (Ok(x), Ok(y)) if x == y => Some(Ordering::Equal),
                _ => None,
            },
        }
    };
    match ord {
        Some(Ordering::Equal) => PMIX_EQUAL,
        Some(Ordering::Greater) => PMIX_VALUE1_GREATER,
        Some(Ordering::Less) => PMIX_VALUE2_GREATER,
        None => PMIX_VALUE_COMPARISON_NOT_AVAIL,
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
