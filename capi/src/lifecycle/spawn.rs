//! Apps, queries and published data: `PMIx_App_*` (with
//! `PMIx_App_info_create` and `PMIx_App_release`), `PMIx_Query_*` (with
//! `PMIx_Query_qualifiers_create` and `PMIx_Query_release`) and
//! `PMIx_Pdata_*` (OpenPMIx 5.0 exports no `PMIx_Pdata_load`/`_xfer`).

use super::info::PMIx_Info_create;
use super::lifecycle;
use crate::cdata::ElemKind;
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
