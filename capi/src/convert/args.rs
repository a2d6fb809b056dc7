//! The arguments of C calls as Rust: keys, procs named relative to this
//! process, namespace arguments, key lists and status-code arrays. Each
//! reads the caller's memory once, during the call.

use std::ffi::CStr;
use std::os::raw::c_char;

use pmix_core::{Nspace, Proc, Rank, Result, Status};

use super::names::proc_from_c;
use crate::cmem;
use crate::types::*;

/// A C key argument as `&str`.
///
/// # Safety
/// `key` is NULL or a NUL-terminated string that outlives the result.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for NULL or a key that is not UTF-8.
#[inline]
pub(crate) unsafe fn key_in<'a>(key: *const c_char) -> Result<&'a str> {
    if key.is_null() {
        return Err(cmem::bad_param("NULL key"));
    }
    // SAFETY: non-NULL and NUL-terminated (caller guarantee).
    unsafe { CStr::from_ptr(key) }
        .to_str()
        .map_err(|_| cmem::bad_param("key is not UTF-8"))
}

/// A C proc as a [`Proc`], sharing `me`'s namespace string when it is that
/// one (the common case costs no allocation).
///
/// # Errors
/// As [`proc_from_c`].
#[inline]
pub(crate) fn proc_in(me: &Proc, p: &pmix_proc_t) -> Result<Proc> {
    if cmem::fixed_bytes(&p.nspace) == me.nspace.as_str().as_bytes() {
        return Ok(Proc::from_parts(me.nspace.clone(), Rank(p.rank)));
    }
    proc_from_c(p)
}

/// `n` C procs as in [`proc_in`]; NULL or none reads as an empty list.
///
/// # Safety
/// `procs` is NULL or points to `n` valid procs.
///
/// # Errors
/// As [`proc_in`].
pub(crate) unsafe fn procs_in(me: &Proc, procs: *const pmix_proc_t, n: usize) -> Result<Vec<Proc>> {
    if procs.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: `n` valid procs (caller guarantee).
    unsafe { std::slice::from_raw_parts(procs, n) }
        .iter()
        .map(|p| proc_in(me, p))
        .collect()
}

/// A C namespace argument; NULL or empty means `own`.
///
/// # Safety
/// `nspace` is NULL or NUL-terminated.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a namespace that is not UTF-8 or too long.
pub(crate) unsafe fn nspace_in(own: &Nspace, nspace: *const c_char) -> Result<Nspace> {
    // SAFETY: NULL or NUL-terminated (caller guarantee).
    match unsafe { cmem::c_string(nspace) }? {
        Some(s) if !s.is_empty() => Nspace::new(s),
        _ => Ok(own.clone()),
    }
}

/// A NULL-terminated C key list (NULL: none).
///
/// # Safety
/// `keys` is NULL or a NULL-terminated array of C strings.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a key that is not UTF-8.
pub(crate) unsafe fn keys_in(keys: *const *mut c_char) -> Result<Vec<String>> {
    if keys.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: NULL-terminated (caller guarantee).
    unsafe { cmem::argv_to_vec(keys) }
}

/// `n` C status codes; NULL or none reads as an empty list.
///
/// # Safety
/// `codes` is NULL or points to `n` codes.
pub(crate) unsafe fn codes_in(codes: *const pmix_status_t, n: usize) -> Vec<Status> {
    if codes.is_null() || n == 0 {
        return Vec::new();
    }
    // SAFETY: `n` codes (caller guarantee).
    unsafe { std::slice::from_raw_parts(codes, n) }
        .iter()
        .map(|&s| Status(s))
        .collect()
}

/// A C namespace argument that names one (NULL reads as empty, which no
/// namespace is).
///
/// # Safety
/// `nspace` is NULL or NUL-terminated.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a namespace that is empty, not UTF-8 or too
/// long.
pub(crate) unsafe fn nspace_arg(nspace: *const c_char) -> Result<Nspace> {
    // SAFETY: NULL or NUL-terminated (caller guarantee).
    Nspace::new(unsafe { cmem::c_string_or_empty(nspace) }?)
}

/// A C message argument as text, invalid UTF-8 replaced (NULL: empty).
///
/// # Safety
/// `msg` is NULL or NUL-terminated.
pub(crate) unsafe fn text_lossy(msg: *const c_char) -> String {
    // SAFETY: NULL or NUL-terminated (caller guarantee).
    String::from_utf8_lossy(unsafe { cmem::c_bytes(msg) }).into_owned()
}

/// The keys of `n` C pdata entries (invalid UTF-8 replaced).
///
/// # Safety
/// `data` points to `n` valid pdata.
pub(crate) unsafe fn pdata_keys(data: *const pmix_pdata_t, n: usize) -> Vec<String> {
    // SAFETY: `n` valid pdata (caller guarantee).
    unsafe { std::slice::from_raw_parts(data, n) }
        .iter()
        .map(|d| String::from_utf8_lossy(cmem::fixed_bytes(&d.key)).into_owned())
        .collect()
}
