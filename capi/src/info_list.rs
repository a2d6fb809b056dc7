//! The `PMIx_Info_list_*` exports: an opaque list of infos a caller builds
//! and converts into a data array.

use std::os::raw::{c_char, c_void};
use std::ptr;

use crate::cdata;
use crate::cmem;
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

/// The entry whose key is `key` (compared on `PMIX_MAX_KEYLEN` bytes).
fn find<'a>(list: &'a mut InfoList, key: &[u8]) -> Option<&'a mut pmix_info_t> {
    let key = &key[..key.len().min(PMIX_MAX_KEYLEN)];
    list.items
        .iter_mut()
        .find(|i| cmem::fixed_bytes(&i.key) == key)
}

/// Replaces the value of an entry with a deep copy of `value`, releasing
/// the old one (a persistent entry's value is the caller's and is only
/// forgotten; the entry then owns the new one).
///
/// # Safety
/// `info` is a list entry; `value` is a valid value.
unsafe fn replace_value(info: &mut pmix_info_t, value: *const pmix_value_t) -> pmix_status_t {
    let mut fresh = pmix_value_t::INIT;
    // SAFETY: `fresh` is ours; `value` valid (caller guarantee).
    if let Err(e) = unsafe { cdata::value_xfer(&mut fresh, value) } {
        return e.status().0;
    }
    // SAFETY: the entry owns its value unless persistent.
    unsafe { cdata::info_destruct(info) };
    info.flags &= !PMIX_INFO_PERSISTENT;
    info.value = fresh;
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key,
/// const void *value, pmix_data_type_t type, bool overwrite)`: as
/// [`PMIx_Info_list_add`] unless an entry has the key already; then its
/// value is replaced when `overwrite`, else nothing changes
/// (`PMIX_SUCCESS` both ways).
///
/// # Safety
/// As [`PMIx_Info_list_add`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
    overwrite: bool,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if key.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: a C string (caller guarantee).
    let Some(entry) = find(list, unsafe { cmem::c_bytes(key) }) else {
        // SAFETY: forwarded caller guarantee.
        return unsafe { PMIx_Info_list_add(ptr, key, value, type_) };
    };
    if !overwrite {
        return PMIX_SUCCESS;
    }
    let mut v = pmix_value_t::INIT;
    // SAFETY: `v` is ours; `value` per caller guarantee.
    if let Err(e) = unsafe { cdata::value_load(&mut v, value, type_) } {
        return e.status().0;
    }
    // SAFETY: `v` is a valid value; released after the copy.
    let rc = unsafe { replace_value(entry, &v) };
    // SAFETY: `v` owns its libc data.
    unsafe { cdata::value_destruct(&mut v) };
    rc
}

/// `pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key,
/// const pmix_value_t *value)`: appends an entry with the key and a deep
/// copy of the value.
///
/// # Safety
/// `ptr` is NULL or a live list handle; `key` is NULL or a C string;
/// `value` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if key.is_null() || value.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let mut info = pmix_info_t::INIT;
    // SAFETY: a C string (caller guarantee).
    cmem::load_key(&mut info.key, unsafe { cmem::c_bytes(key) });
    // SAFETY: `info` is ours; `value` valid (caller guarantee).
    let r = unsafe { cdata::value_xfer(&mut info.value, value) };
    if r.is_ok() {
        list.items.push(info);
    }
    status_of(&r)
}

/// `pmix_status_t PMIx_Info_list_add_value_unique(void *ptr, const char
/// *key, const pmix_value_t *value, bool overwrite)`: as
/// [`PMIx_Info_list_add_value`] unless an entry has the key already (then
/// as [`PMIx_Info_list_add_unique`]).
///
/// # Safety
/// As [`PMIx_Info_list_add_value`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_add_value_unique(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const pmix_value_t,
    overwrite: bool,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if key.is_null() || value.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: a C string (caller guarantee).
    match find(list, unsafe { cmem::c_bytes(key) }) {
        // SAFETY: forwarded caller guarantee.
        None => unsafe { PMIx_Info_list_add_value(ptr, key, value) },
        // SAFETY: a list entry and a valid value.
        Some(entry) if overwrite => unsafe { replace_value(entry, value) },
        Some(_) => PMIX_SUCCESS,
    }
}

/// `pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const
/// void *value, pmix_data_type_t type)`: as [`PMIx_Info_list_add`], at the
/// front.
///
/// # Safety
/// As [`PMIx_Info_list_add`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_prepend(
    ptr: *mut c_void,
    key: *const c_char,
    value: *const c_void,
    type_: pmix_data_type_t,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let rc = unsafe { PMIx_Info_list_add(ptr, key, value, type_) };
    if rc == PMIX_SUCCESS {
        // SAFETY: a live handle (the add succeeded).
        if let Some(list) = unsafe { list(ptr) } {
            list.items.rotate_right(1);
        }
    }
    rc
}

/// `pmix_status_t PMIx_Info_list_xfer_unique(void *ptr, const pmix_info_t
/// *info, bool overwrite)`: as [`PMIx_Info_list_xfer`] unless an entry
/// has the info's key already (then as [`PMIx_Info_list_add_unique`]).
///
/// # Safety
/// As [`PMIx_Info_list_xfer`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_xfer_unique(
    ptr: *mut c_void,
    info: *const pmix_info_t,
    overwrite: bool,
) -> pmix_status_t {
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    // SAFETY: NULL or valid (caller guarantee).
    let Some(src) = (unsafe { info.as_ref() }) else {
        return PMIX_ERR_BAD_PARAM;
    };
    match find(list, cmem::fixed_bytes(&src.key)) {
        // SAFETY: forwarded caller guarantee.
        None => unsafe { PMIx_Info_list_xfer(ptr, info) },
        // SAFETY: a list entry and the info's valid value.
        Some(entry) if overwrite => unsafe { replace_value(entry, &src.value) },
        Some(_) => PMIX_SUCCESS,
    }
}

/// `pmix_info_t* PMIx_Info_list_get_info(void *ptr, void *prev, void
/// **next)`: walks the list. With `prev` NULL it returns the first entry;
/// with `prev` the cursor a previous call left in `*next` it returns that
/// entry. `*next` becomes the cursor of the following entry, NULL after
/// the last. NULL (and `*next` NULL) for an empty list, a NULL argument or
/// a cursor past the end. The cursor is the entry's position, so entries
/// added during a walk may shift it; the pointer returned is valid until
/// the list changes.
///
/// # Safety
/// `ptr` is NULL or a live list handle; `next` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_list_get_info(
    ptr: *mut c_void,
    prev: *mut c_void,
    next: *mut *mut c_void,
) -> *mut pmix_info_t {
    // SAFETY: NULL or writable (caller guarantee).
    let Some(next) = (unsafe { next.as_mut() }) else {
        return ptr::null_mut();
    };
    *next = ptr::null_mut();
    // SAFETY: NULL or a live handle (caller guarantee).
    let Some(list) = (unsafe { list(ptr) }) else {
        return ptr::null_mut();
    };
    // A cursor is the 1-based position of an entry, as an opaque pointer.
    let index = if prev.is_null() { 0 } else { prev as usize - 1 };
    let Some(entry) = list.items.get_mut(index) else {
        return ptr::null_mut();
    };
    let entry: *mut pmix_info_t = entry;
    if index + 1 < list.items.len() {
        *next = (index + 2) as *mut c_void;
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of a list, walked with `PMIx_Info_list_get_info`.
    fn keys(list: *mut c_void) -> Vec<String> {
        let mut out = Vec::new();
        let mut cursor: *mut c_void = ptr::null_mut();
        loop {
            let mut next: *mut c_void = ptr::null_mut();
            // SAFETY: a live list and a writable cursor.
            let info = unsafe { PMIx_Info_list_get_info(list, cursor, &mut next) };
            // SAFETY: NULL or an entry of the list.
            let Some(i) = (unsafe { info.as_ref() }) else {
                break;
            };
            out.push(String::from_utf8_lossy(cmem::fixed_bytes(&i.key)).into_owned());
            if next.is_null() {
                break;
            }
            cursor = next;
        }
        out
    }

    #[test]
    fn unique_adds_replace_only_with_overwrite_and_prepend_goes_first() {
        let list = PMIx_Info_list_start();
        let (one, two) = (1i32, 2i32);
        // SAFETY: a live list, C strings and valid data.
        unsafe {
            let p = |x: &i32| (x as *const i32).cast::<c_void>();
            assert_eq!(
                PMIx_Info_list_add(list, c"a".as_ptr(), p(&one), PMIX_INT),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Info_list_add_unique(list, c"a".as_ptr(), p(&two), PMIX_INT, false),
                PMIX_SUCCESS
            );
            let first = &*PMIx_Info_list_get_info(list, ptr::null_mut(), &mut ptr::null_mut());
            assert_eq!(first.value.data.integer, 1);
            assert_eq!(
                PMIx_Info_list_add_unique(list, c"a".as_ptr(), p(&two), PMIX_INT, true),
                PMIX_SUCCESS
            );
            let first = &*PMIx_Info_list_get_info(list, ptr::null_mut(), &mut ptr::null_mut());
            assert_eq!(first.value.data.integer, 2);
            assert_eq!(
                PMIx_Info_list_prepend(list, c"z".as_ptr(), p(&one), PMIX_INT),
                PMIX_SUCCESS
            );
            assert_eq!(
                PMIx_Info_list_add(list, c"b".as_ptr(), p(&one), PMIX_INT),
                PMIX_SUCCESS
            );
        }
        assert_eq!(keys(list), ["z", "a", "b"]);
        // SAFETY: an empty walk and a NULL list answer NULL.
        unsafe {
            let mut next: *mut c_void = 9usize as *mut c_void;
            assert!(PMIx_Info_list_get_info(ptr::null_mut(), ptr::null_mut(), &mut next).is_null());
            assert!(next.is_null());
            PMIx_Info_list_release(list);
        }
        let empty = PMIx_Info_list_start();
        assert!(keys(empty).is_empty());
        // SAFETY: a live list, released once.
        unsafe { PMIx_Info_list_release(empty) };
    }
}
