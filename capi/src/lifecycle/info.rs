//! Infos: `PMIx_Info_construct/destruct/create/free`, the directive-flag
//! accessors (`PMIx_Info_required`, `..._is_required`, `optional`,
//! `processed`, `set_end`, `qualifier`, `persistent`, ...) and
//! `PMIx_Info_true`.
//!
//! The flag setters and predicates accept NULL (a no-op, `false`), where
//! OpenPMIx would dereference it.

use super::lifecycle;
use super::value::PMIx_Value_true;
use crate::types::*;

lifecycle! {
    Info: pmix_info_t {
        construct PMIx_Info_construct,
        destruct PMIx_Info_destruct,
        create PMIx_Info_create,
        free PMIx_Info_free,
    }
}

/// Sets `flag` in the info's directives.
///
/// # Safety
/// `p` is NULL or a writable info.
unsafe fn set_flag(p: *mut pmix_info_t, flag: pmix_info_directives_t) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(i) = unsafe { p.as_mut() } {
        i.flags |= flag;
    }
}

/// Whether `flag` is set in the info's directives (`false` for NULL).
///
/// # Safety
/// `p` is NULL or a valid info.
unsafe fn has_flag(p: *const pmix_info_t, flag: pmix_info_directives_t) -> bool {
    // SAFETY: NULL or valid (caller guarantee).
    unsafe { p.as_ref() }.is_some_and(|i| i.flags & flag != 0)
}

macro_rules! flag_fns {
    ($($(#[$doc:meta])* $set:ident, $(#[$pdoc:meta])* $is:ident => $flag:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// `p` is NULL or a writable info.
        #[no_mangle]
        pub unsafe extern "C" fn $set(p: *mut pmix_info_t) {
            // SAFETY: forwarded caller guarantee.
            unsafe { set_flag(p, $flag) }
        }

        $(#[$pdoc])*
        ///
        /// # Safety
        /// `p` is NULL or a valid info.
        #[no_mangle]
        pub unsafe extern "C" fn $is(p: *const pmix_info_t) -> bool {
            // SAFETY: forwarded caller guarantee.
            unsafe { has_flag(p, $flag) }
        }
    )*};
}

flag_fns! {
    /// `void PMIx_Info_required(pmix_info_t *p)`: sets `PMIX_INFO_REQD`.
    PMIx_Info_required,
    /// `bool PMIx_Info_is_required(const pmix_info_t *p)`.
    PMIx_Info_is_required => PMIX_INFO_REQD;
    /// `void PMIx_Info_processed(pmix_info_t *p)`: sets
    /// `PMIX_INFO_REQD_PROCESSED`.
    PMIx_Info_processed,
    /// `bool PMIx_Info_was_processed(const pmix_info_t *p)`.
    PMIx_Info_was_processed => PMIX_INFO_REQD_PROCESSED;
    /// `void PMIx_Info_set_end(pmix_info_t *p)`: sets `PMIX_INFO_ARRAY_END`.
    PMIx_Info_set_end,
    /// `bool PMIx_Info_is_end(const pmix_info_t *p)`.
    PMIx_Info_is_end => PMIX_INFO_ARRAY_END;
    /// `void PMIx_Info_qualifier(pmix_info_t *p)`: sets
    /// `PMIX_INFO_QUALIFIER`.
    PMIx_Info_qualifier,
    /// `bool PMIx_Info_is_qualifier(const pmix_info_t *p)`.
    PMIx_Info_is_qualifier => PMIX_INFO_QUALIFIER;
    /// `void PMIx_Info_persistent(pmix_info_t *p)`: sets
    /// `PMIX_INFO_PERSISTENT` (the info no longer owns its value).
    PMIx_Info_persistent,
    /// `bool PMIx_Info_is_persistent(const pmix_info_t *p)`.
    PMIx_Info_is_persistent => PMIX_INFO_PERSISTENT;
}

/// `void PMIx_Info_optional(pmix_info_t *p)`: clears `PMIX_INFO_REQD`.
///
/// # Safety
/// `p` is NULL or a writable info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_optional(p: *mut pmix_info_t) {
    // SAFETY: NULL or writable (caller guarantee).
    if let Some(i) = unsafe { p.as_mut() } {
        i.flags &= !PMIX_INFO_REQD;
    }
}

/// `bool PMIx_Info_is_optional(const pmix_info_t *p)`: `PMIX_INFO_REQD`
/// is clear (`false` for NULL).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_is_optional(p: *const pmix_info_t) -> bool {
    // SAFETY: NULL or valid (caller guarantee).
    unsafe { p.as_ref() }.is_some_and(|i| i.flags & PMIX_INFO_REQD == 0)
}

/// `pmix_boolean_t PMIx_Info_true(const pmix_info_t *p)`:
/// [`PMIx_Value_true`] of the info's value (`PMIX_BOOL_FALSE` for NULL).
///
/// # Safety
/// `p` is NULL or a valid info.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Info_true(p: *const pmix_info_t) -> pmix_boolean_t {
    // SAFETY: NULL or valid (caller guarantee).
    match unsafe { p.as_ref() } {
        // SAFETY: the info's value is valid.
        Some(i) => unsafe { PMIx_Value_true(&i.value) },
        None => PMIX_BOOL_FALSE,
    }
}
