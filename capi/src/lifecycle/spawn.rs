//! Apps, queries and published data: `PMIx_App_*` (with
//! `PMIx_App_info_create` and `PMIx_App_release`), `PMIx_Query_*` (with
//! `PMIx_Query_qualifiers_create` and `PMIx_Query_release`) and
//! `PMIx_Pdata_*` (with `PMIx_Pdata_load` and `PMIx_Pdata_xfer`).

use std::os::raw::{c_char, c_void};

use super::info::PMIx_Info_create;
use super::lifecycle;
use super::proc_id::PMIx_Load_key;
use crate::cdata::{self, ElemKind};
use crate::cmem;
use crate::types::*;

lifecycle! {
    App: pmix_app_t {
        construct PMIx_App_construct,
        destruct PMIx_App_destruct,
        create PMIx_App_create,
        free PMIx_App_free,
    }
    Query: pmix_query_t {
        construct PMIx_Query_construct,
        destruct PMIx_Query_destruct,
        create PMIx_Query_create,
        free PMIx_Query_free,
    }
    Pdata: pmix_pdata_t {
        construct PMIx_Pdata_construct,
        destruct PMIx_Pdata_destruct,
        create PMIx_Pdata_create,
        free PMIx_Pdata_free,
    }
}

/// `void PMIx_App_info_create(pmix_app_t *p, size_t n)`: gives the app
/// `n` constructed infos (`ninfo` 0 and `info` NULL for 0 or when memory
/// runs out); infos it had are not released.
///
/// # Safety
/// `p` is NULL or a writable app.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_info_create(p: *mut pmix_app_t, n: usize) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(a) = unsafe { p.as_mut() } {
        a.info = PMIx_Info_create(n);
        a.ninfo = if a.info.is_null() { 0 } else { n };
    }
}

/// `void PMIx_App_release(pmix_app_t *p)`: destructs one malloc'd app and
/// frees it; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or one libc-allocated valid app, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_App_release(p: *mut pmix_app_t) {
    // SAFETY: forwarded caller guarantee.
    unsafe { super::free_array(ElemKind::App, p.cast(), 1) }
}

/// `void PMIx_Query_qualifiers_create(pmix_query_t *p, size_t n)`: gives
/// the query `n` constructed qualifier infos (as [`PMIx_App_info_create`]).
///
/// # Safety
/// `p` is NULL or a writable query.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_qualifiers_create(p: *mut pmix_query_t, n: usize) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(q) = unsafe { p.as_mut() } {
        q.qualifiers = PMIx_Info_create(n);
        q.nqual = if q.qualifiers.is_null() { 0 } else { n };
    }
}

/// `void PMIx_Query_release(pmix_query_t *p)`: destructs one malloc'd
/// query and frees it; NULL is a no-op.
///
/// # Safety
/// `p` is NULL or one libc-allocated valid query, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_release(p: *mut pmix_query_t) {
    // SAFETY: forwarded caller guarantee.
    unsafe { super::free_array(ElemKind::Query, p.cast(), 1) }
}

/// `void PMIx_Pdata_load(pmix_pdata_t *dest, const pmix_proc_t *p, const
/// char *key, const void *data, pmix_data_type_t type)`: constructs
/// `dest`, then sets the publisher (when `p` is not NULL), the key and a
/// deep copy of the datum (as `PMIx_Value_load`; a failed load leaves the
/// value `PMIX_UNDEF`).
///
/// # Safety
/// `dest` is NULL or writable (what it held is not released); `p` is NULL
/// or valid; `key` is NULL or a C string; `data` as for
/// `PMIx_Value_load`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Pdata_load(
    dest: *mut pmix_pdata_t,
    p: *const pmix_proc_t,
    key: *const c_char,
    data: *const c_void,
    type_: pmix_data_type_t,
) {
    if dest.is_null() {
        return;
    }
    // SAFETY: `dest` is writable (caller guarantee).
    unsafe { super::construct(ElemKind::Pdata, dest.cast()) };
    // SAFETY: as above; just constructed.
    let d = unsafe { &mut *dest };
    // SAFETY: NULL or valid (caller guarantee).
    if let Some(p) = unsafe { p.as_ref() } {
        d.proc_ = *p;
    }
    // SAFETY: the pdata's key buffer; `key` NULL or a C string.
    unsafe { PMIx_Load_key(d.key.as_mut_ptr(), key) };
    // SAFETY: a constructed value; `data` as the caller guarantees.
    if unsafe { cdata::value_load(&mut d.value, data, type_) }.is_err() {
        d.value = pmix_value_t::INIT;
    }
}

/// `void PMIx_Pdata_xfer(pmix_pdata_t *dest, const pmix_pdata_t *src)`:
/// `dest` becomes a deep copy of `src` (a value that cannot be copied
/// stays `PMIX_UNDEF`); a NULL argument is a no-op.
///
/// # Safety
/// `dest` is NULL or writable (what it held is not released); `src` is
/// NULL or valid; they differ.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Pdata_xfer(dest: *mut pmix_pdata_t, src: *const pmix_pdata_t) {
    if dest.is_null() || src.is_null() || std::ptr::eq(dest, src) {
        return;
    }
    // SAFETY: `dest` writable (caller guarantee).
    unsafe { super::construct(ElemKind::Pdata, dest.cast()) };
    // SAFETY: distinct, `dest` constructed and `src` valid.
    let (d, s) = unsafe { (&mut *dest, &*src) };
    d.proc_ = s.proc_;
    cmem::load_key(&mut d.key, cmem::fixed_bytes(&s.key));
    // SAFETY: a constructed destination and a valid source value.
    if unsafe { cdata::value_xfer(&mut d.value, &s.value) }.is_err() {
        d.value = pmix_value_t::INIT;
    }
}
