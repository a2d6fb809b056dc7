//! Values and data arrays: `PMIx_Value_construct/create/free`,
//! `PMIx_Value_true`, `PMIx_Value_get_size`/`PMIx_Info_get_size` and
//! `PMIx_Data_array_init/construct/create/free` (`PMIx_Value_destruct` and
//! `PMIx_Data_array_destruct` are 4.2 exports, in `values`).

use std::ptr;

use super::lifecycle;
use crate::cdata::{self, ElemKind};
use crate::cmem;
use crate::types::*;

lifecycle! {
    Value: pmix_value_t {
        construct PMIx_Value_construct,
        create PMIx_Value_create,
        free PMIx_Value_free,
    }
}

/// How a string reads as a boolean (the rules of `PMIx_Value_true`):
/// leading white space skipped; empty is true; a leading digit reads as a
/// number, 0 false and anything else true; `yes`/`true`/`enable`
/// prefixes, `y` and `t` are true; `no`/`false`/`disable` prefixes, `n`
/// and `f` are false (all ignoring case); anything else is not a boolean.
fn str_truth(s: &[u8]) -> pmix_boolean_t {
    let start = s
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(s.len());
    let s = &s[start..];
    let prefix = |p: &[u8]| s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p);
    let exactly = |w: &[u8]| s.eq_ignore_ascii_case(w);
    if s.is_empty() {
        PMIX_BOOL_TRUE
    } else if s[0].is_ascii_digit() {
        if s.iter()
            .take_while(|c| c.is_ascii_digit())
            .all(|&c| c == b'0')
        {
            PMIX_BOOL_FALSE
        } else {
            PMIX_BOOL_TRUE
        }
    } else if prefix(b"yes")
        || prefix(b"true")
        || exactly(b"y")
        || exactly(b"t")
        || prefix(b"enable")
    {
        PMIX_BOOL_TRUE
    } else if prefix(b"no")
        || prefix(b"false")
        || exactly(b"n")
        || exactly(b"f")
        || prefix(b"disable")
    {
        PMIX_BOOL_FALSE
    } else {
        PMIX_NON_BOOL
    }
}

/// `pmix_boolean_t PMIx_Value_true(const pmix_value_t *v)`: whether the
/// value says true: NULL (the attribute is absent) is `PMIX_BOOL_FALSE`;
/// `PMIX_UNDEF` (present without a value) is `PMIX_BOOL_TRUE`; a
/// `PMIX_BOOL` is its flag; a `PMIX_STRING` (NULL: true) reads as the
/// private `str_truth` says: leading blanks skipped; empty or a number
/// other than 0 true, 0 false; `yes`/`true`/`enable` prefixes, `y`, `t`
/// true; `no`/`false`/`disable` prefixes, `n`, `f` false (any case);
/// else `PMIX_NON_BOOL`. Any other type is `PMIX_NON_BOOL`.
///
/// # Safety
/// `v` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_true(v: *const pmix_value_t) -> pmix_boolean_t {
    // SAFETY: NULL or valid (caller guarantee).
    let Some(v) = (unsafe { v.as_ref() }) else {
        return PMIX_BOOL_FALSE;
    };
    match v.type_ {
        PMIX_UNDEF => PMIX_BOOL_TRUE,
        // SAFETY: a PMIX_BOOL value holds `flag`.
        PMIX_BOOL if unsafe { v.data.flag } => PMIX_BOOL_TRUE,
        PMIX_BOOL => PMIX_BOOL_FALSE,
        PMIX_STRING => {
            // SAFETY: a PMIX_STRING value holds NULL or a C string.
            let s = unsafe { v.data.string };
            // SAFETY: as above.
            str_truth(unsafe { cmem::c_bytes(s) })
        }
        _ => PMIX_NON_BOOL,
    }
}

/// `pmix_status_t PMIx_Value_get_size(const pmix_value_t *v, size_t
/// *size)`: the bytes the value's datum occupies: its C element plus
/// everything it owns, recursively (strings with their NUL, byte
/// payloads, arrays). `PMIX_ERR_BAD_PARAM` for NULL arguments,
/// `PMIX_ERR_UNKNOWN_DATA_TYPE` for `PMIX_UNDEF` or a type without an
/// element form.
///
/// # Safety
/// `v` is NULL or a valid value; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_get_size(
    v: *const pmix_value_t,
    size: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or valid/writable (caller guarantee).
    let (Some(v), Some(size)) = (unsafe { v.as_ref() }, unsafe { size.as_mut() }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    let Some(kind) = ElemKind::of(v.type_).filter(|k| k.in_value()) else {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    };
    // SAFETY: a valid value of a type it can hold.
    *size = match unsafe { cdata::elem_ptr(v, kind) } {
        // SAFETY: the element of a valid value.
        Some(e) => kind.size() + unsafe { cdata::owned_bytes(kind, e) },
        None => 0,
    };
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Info_get_size(const pmix_info_t *info, size_t
/// *size)`: [`PMIx_Value_get_size`] of its value plus the key (with its
/// NUL) and the `pmix_info_t` itself.
///
/// # Safety
/// `info` is NULL or a valid info; `size` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_get_size(
    info: *const pmix_info_t,
    size: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or valid (caller guarantee).
    let Some(i) = (unsafe { info.as_ref() }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    // SAFETY: the info's value is valid; `size` as the caller guarantees.
    let rc = unsafe { PMIx_Value_get_size(&i.value, size) };
    if rc == PMIX_SUCCESS {
        let key = cmem::fixed_bytes(&i.key).len() + 1;
        // SAFETY: non-NULL (checked by PMIx_Value_get_size) and writable.
        unsafe { *size += key + std::mem::size_of::<pmix_info_t>() };
    }
    rc
}

/// `void PMIx_Data_array_init(pmix_data_array_t *p, pmix_data_type_t
/// type)`: `{type, 0, NULL}`; what `p` held is not released.
///
/// # Safety
/// `p` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_init(p: *mut pmix_data_array_t, type_: pmix_data_type_t) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(d) = unsafe { p.as_mut() } {
        *d = pmix_data_array_t {
            type_,
            size: 0,
            array: ptr::null_mut(),
        };
    }
}

/// `void PMIx_Data_array_construct(pmix_data_array_t *p, size_t num,
/// pmix_data_type_t type)`: `num` constructed elements of `type` in a
/// malloc'd array. A type without an element form, `num == 0` or a failed
/// allocation leave `{type, 0, NULL}` (never a size without elements).
///
/// # Safety
/// `p` is NULL or writable; what it held is not released.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_construct(
    p: *mut pmix_data_array_t,
    num: usize,
    type_: pmix_data_type_t,
) {
    // SAFETY: NULL or writable (caller guarantee).
    let Some(d) = (unsafe { p.as_mut() }) else {
        return;
    };
    let array = ElemKind::of(type_).map_or(ptr::null_mut(), |k| super::create(k, num));
    *d = pmix_data_array_t {
        type_,
        size: if array.is_null() { 0 } else { num },
        array: array.cast(),
    };
}

/// `pmix_data_array_t* PMIx_Data_array_create(size_t n, pmix_data_type_t
/// type)`: one malloc'd data array, constructed with `n` elements
/// ([`PMIx_Data_array_construct`]); NULL for `n == 0` or when memory runs
/// out. Released with [`PMIx_Data_array_free`].
#[no_mangle]
pub extern "C" fn PMIx_Data_array_create(
    n: usize,
    type_: pmix_data_type_t,
) -> *mut pmix_data_array_t {
    if n == 0 {
        return ptr::null_mut();
    }
    let Ok(d) = cmem::calloc_one::<pmix_data_array_t>() else {
        return ptr::null_mut();
    };
    // SAFETY: a fresh allocation for one data array.
    unsafe { PMIx_Data_array_construct(d, n, type_) };
    d
}

/// `void PMIx_Data_array_free(pmix_data_array_t *p)`: releases the
/// elements and the data array itself; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or a libc-allocated valid data array, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_free(p: *mut pmix_data_array_t) {
    if p.is_null() {
        return;
    }
    // SAFETY: a valid, libc-allocated data array (caller guarantee).
    unsafe {
        cdata::data_array_destruct(p);
        cmem::free(p);
    }
}

#[cfg(test)]
mod tests {
    use super::str_truth;
    use crate::types::*;

    #[test]
    fn strings_read_as_booleans_by_the_standard_words() {
        for t in ["", "  ", "1", " 42", "yes", "TRUE", "t", "Y", "enabled"] {
            assert_eq!(str_truth(t.as_bytes()), PMIX_BOOL_TRUE, "{t:?}");
        }
        for f in ["0", " 000", "no", "False", "f", "N", "disable"] {
            assert_eq!(str_truth(f.as_bytes()), PMIX_BOOL_FALSE, "{f:?}");
        }
        for x in ["maybe", "-1", "ty", "fn"] {
            assert_eq!(str_truth(x.as_bytes()), PMIX_NON_BOOL, "{x:?}");
        }
    }
}
