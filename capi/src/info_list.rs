//! The `PMIx_Info_list_*` exports: an opaque list of infos a caller builds
//! and converts into a data array.

use std::os::raw::{c_char, c_void};
use std::ptr;

use crate::cdata;
use crate::status::status_of;
use crate::types::*;
use crate::values::info_load;

/// The list behind the opaque `void*` of the `PMIx_Info_list_*` functions.
/// Each entry owns its value in libc memory, except entries added by
/// `PMIx_Info_list_insert`, which are marked persistent and borrow the
/// caller's.
#[derive(Debug, Default)]
struct InfoList {
    items: Vec<pmix_info_t>,
}

/// The list behind a handle.
///
/// # Safety
/// `ptr` is NULL or a live handle from [`PMIx_Info_list_start`] not used
/// concurrently.
unsafe fn list<'a>(ptr: *mut c_void) -> Option<&'a mut InfoList> {
    // SAFETY: a live handle is a leaked Box<InfoList> (caller guarantee).
    unsafe { ptr.cast::<InfoList>().as_mut() }
}

/// `void* PMIx_Info_list_start(void)`: a new empty list, released with
/// [`PMIx_Info_list_release`].
#[no_mangle]
pub extern "C" fn PMIx_Info_list_start() -> *mut c_void {
    // The handle is opaque and released only by PMIx_Info_list_release, so
    // Rust's allocator may own it.
    Box::into_raw(Box::<InfoList>::default()).cast()
}

/// `pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const
/// void *value, pmix_data_type_t type)`: appends a loaded info.
///
/// # Safety
/// `ptr` is NULL or a live list handle; `key`/`value` as for
/// [`PMIx_Info_load`](crate::PMIx_Info_load).
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if key.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let mut info = pmix_info_t::INIT;
    // SAFETY: `info` is ours; `key`/`value` per caller guarantee.
    let rc = unsafe { info_load(&mut info, key, value, type_) };
    if rc == PMIX_SUCCESS {
        list.items.push(info);
    }
    rc
}

/// `pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)`:
/// appends a shallow copy marked `PMIX_INFO_PERSISTENT`; the caller keeps
/// ownership of the value, which must outlive the list's use.
///
/// # Safety
/// `ptr` is NULL or a live list handle; `info` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_insert(
    ptr: *mut c_void,
    info: *mut pmix_info_t,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if info.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: `info` is valid (caller guarantee); a bitwise copy.
    let mut copy = unsafe { *info };
    copy.flags |= PMIX_INFO_PERSISTENT;
    list.items.push(copy);
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)`:
/// appends a deep copy.
///
/// # Safety
/// `ptr` is NULL or a live list handle; `info` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer(
    ptr: *mut c_void,
    info: *const pmix_info_t,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if info.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let mut copy = pmix_info_t::INIT;
    // SAFETY: `copy` is ours; `info` valid (caller guarantee).
    let r = unsafe { cdata::info_xfer(&mut copy, info) };
    if r.is_ok() {
        list.items.push(copy);
    }
    status_of(&r)
}

/// `pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t
/// *par)`: a data array of `PMIX_INFO` holding deep copies of the entries
/// (released with `PMIX_DATA_ARRAY_DESTRUCT`). An empty list is
/// `PMIX_ERR_EMPTY` with `{PMIX_INFO, 0, NULL}`.
///
/// # Safety
/// `ptr` is NULL or a live list handle; `par` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_convert(
    ptr: *mut c_void,
    par: *mut pmix_data_array_t,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if par.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let n = list.items.len();
    // SAFETY: the entries are `n` valid infos in one Vec.
    let copied = unsafe { cdata::array_copy(PMIX_INFO, list.items.as_ptr().cast(), n) };
    let (array, rc) = match copied {
        Ok(a) if n > 0 => (a, PMIX_SUCCESS),
        Ok(_) => (ptr::null_mut(), PMIX_ERR_EMPTY),
        Err(e) => (ptr::null_mut(), e.status().0),
    };
    // SAFETY: `par` is writable (caller guarantee).
    unsafe {
        *par = pmix_data_array_t {
            type_: PMIX_INFO,
            size: if array.is_null() { 0 } else { n },
            array: array.cast(),
        }
    };
    rc
}

/// `void PMIx_Info_list_release(void *ptr)`: releases the entries' values
/// (not those of inserted, persistent entries) and the list.
///
/// # Safety
/// `ptr` is NULL or a live list handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_release(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: a live handle is a leaked Box<InfoList>, reclaimed once here.
    let mut list = unsafe { Box::from_raw(ptr.cast::<InfoList>()) };
    for info in &mut list.items {
        // SAFETY: each entry is a valid info owning its value unless
        // persistent, which info_destruct honours.
        unsafe { cdata::info_destruct(info) };
    }
}
