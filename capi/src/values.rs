//! The value exports of `pmix.h`: value load/unload/transfer/release/
//! compare, info load/transfer, data-array release, and the value/info
//! pretty-printers (info lists are `info_list`).
//!
//! Every function works on caller memory in place and allocates with libc
//! only (rule R1), so the header macros (`PMIX_VALUE_RELEASE`,
//! `PMIX_INFO_FREE`, `PMIX_DATA_ARRAY_FREE`, ...) release what these
//! functions create, and `PMIx_Value_destruct` releases what C code built
//! with `malloc`/`strdup`.
//!
//! In 4.2.2 `PMIx_Data_array_init/construct/create/free` and
//! `PMIx_Info_true` are header macros or inline functions, not exports.

use std::os::raw::{c_char, c_void};
use std::ptr;

use crate::cdata;
use crate::cmem;
use crate::compare;
use crate::print;
use crate::status::status_of;
use crate::types::*;

/// `pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data,
/// pmix_data_type_t type)`: deep-copies the object at `data` into `val`
/// (see the crate's `cdata::value_load`).
///
/// # Safety
/// `val` is NULL or writable; `data` is NULL or points to an object of the
/// C type of `type` (a C string for `PMIX_STRING`).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_load(
    val: *mut pmix_value_t,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    if val.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: `val` non-NULL and writable, `data` as required (caller).
    status_of(&unsafe { cdata::value_load(val, data, type_) })
}

/// `pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data,
/// size_t *sz)`, with OpenPMIx 4.2.2's conventions (strings and pointer
/// types are returned malloc'd, byte objects by reference, scalars copied
/// into `*data`).
///
/// # Safety
/// `val` is NULL or valid; `data`/`sz` are NULL or writable; a non-NULL
/// `*data` for a scalar type has room for it.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_unload(
    val: *mut pmix_value_t,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee; NULLs are checked inside.
    status_of(&unsafe { cdata::value_unload(val, data, sz) })
}

/// `void PMIx_Value_destruct(pmix_value_t *val)`: frees with libc `free`
/// everything the value owns (recursively) and leaves it `PMIX_UNDEF`.
///
/// # Safety
/// `val` is NULL or a valid value whose owned pointers are NULL or libc
/// allocations.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_destruct(val: *mut pmix_value_t) {
    // SAFETY: forwarded caller guarantee.
    unsafe { cdata::value_destruct(val) }
}

/// `pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t
/// *src)`: deep copy.
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or valid; they differ.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_xfer(
    dest: *mut pmix_value_t,
    src: *const pmix_value_t,
) -> pmix_status_t {
    if dest.is_null() || src.is_null() || ptr::eq(dest, src) {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: checked non-NULL and distinct; valid per caller.
    status_of(&unsafe { cdata::value_xfer(dest, src) })
}

/// `pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t
/// *v2)`.
///
/// # Safety
/// `v1`/`v2` are NULL or valid values.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_compare(
    v1: *mut pmix_value_t,
    v2: *mut pmix_value_t,
) -> pmix_value_cmp_t {
    // SAFETY: forwarded caller guarantee.
    unsafe { compare::value_compare(v1, v2) }
}

/// `void PMIx_Data_array_destruct(pmix_data_array_t *d)`: releases the
/// elements (recursively) and the element array, leaving
/// `{PMIX_UNDEF, 0, NULL}`.
///
/// # Safety
/// `d` is NULL or a valid data array whose memory is libc-allocated.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_array_destruct(d: *mut pmix_data_array_t) {
    // SAFETY: forwarded caller guarantee.
    unsafe { cdata::data_array_destruct(d) }
}

/// Loads `info` from a key and a datum, as `PMIx_Info_load`.
///
/// # Safety
/// As [`PMIx_Info_load`], with `info` and `key` non-NULL.
pub(crate) unsafe fn info_load(
    info: *mut pmix_info_t,
    key: *const c_char,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    // SAFETY: `info` is writable (caller); `key` is a C string.
    let info = unsafe { &mut *info };
    // SAFETY: `key` is NUL-terminated (caller guarantee).
    cmem::load_key(&mut info.key, unsafe { cmem::c_bytes(key) });
    info.flags = 0;
    // SAFETY: `info.value` is writable; `data` as required (caller).
    status_of(&unsafe { cdata::value_load(&mut info.value, data, type_) })
}

/// `pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key,
/// const void *data, pmix_data_type_t type)`: sets the key (truncated to
/// `PMIX_MAX_KEYLEN`), clears the flags and loads the value; the info may
/// be uninitialised on entry.
///
/// # Safety
/// `info` is NULL or writable; `key` is NULL or a C string; `data` as for
/// [`PMIx_Value_load`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_load(
    info: *mut pmix_info_t,
    key: *const c_char,
    data: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    if info.is_null() || key.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: checked non-NULL; the rest per caller guarantee.
    unsafe { info_load(info, key, data, type_) }
}

/// `pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t
/// *src)`: copies key and flags and deep-copies the value (shallowly for
/// an info marked `PMIX_INFO_PERSISTENT`, as OpenPMIx does).
///
/// # Safety
/// `dest` is NULL or writable; `src` is NULL or valid; they differ.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_xfer(
    dest: *mut pmix_info_t,
    src: *const pmix_info_t,
) -> pmix_status_t {
    if dest.is_null() || src.is_null() || ptr::eq(dest, src) {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: checked non-NULL and distinct; valid per caller.
    status_of(&unsafe { cdata::info_xfer(dest, src) })
}

/// `char* PMIx_Value_string(const pmix_value_t *value)`: malloc'd text.
///
/// # Safety
/// `value` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Value_string(value: *const pmix_value_t) -> *mut c_char {
    if value.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: valid value (caller guarantee).
    let text = unsafe { print::value_text(&*value) };
    cmem::strdup_str(&text).unwrap_or(ptr::null_mut())
}

/// `char* PMIx_Info_string(const pmix_info_t *info)`: malloc'd text.
///
/// # Safety
/// `info` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_string(info: *const pmix_info_t) -> *mut c_char {
    if info.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: valid info (caller guarantee).
    let text = unsafe { print::info_text(&*info) };
    cmem::strdup_str(&text).unwrap_or(ptr::null_mut())
}
