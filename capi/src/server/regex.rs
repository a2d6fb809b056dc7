//! `PMIx_generate_regex` and `PMIx_generate_ppn`: node and process maps
//! as `pmixrs:raw:<input>`, which only `PMIx_server_register_nspace` of
//! this library reads back (it also accepts a plain comma list).

use std::os::raw::c_char;
use std::ptr;

use pmix_core::Result;

use crate::cmem;
use crate::status::fail;
use crate::types::*;

/// Prefix of what `PMIx_generate_regex` / `_ppn` produce.
pub(super) const RAW: &str = "pmixrs:raw:";

/// A malloc'd `pmixrs:raw:<input>`.
///
/// # Safety
/// `input` NULL or NUL-terminated; `out` valid.
unsafe fn raw_out(what: &str, input: *const c_char, out: *mut *mut c_char) -> pmix_status_t {
    if out.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let r = (|| -> Result<*mut c_char> {
        // SAFETY: NULL or NUL-terminated (caller guarantee).
        let s = unsafe { cmem::c_string_or_empty(input) }?;
        cmem::strdup_str(&format!("{RAW}{s}"))
    })();
    match r {
        Ok(p) => {
            // SAFETY: writable (caller guarantee).
            unsafe { *out = p };
            PMIX_SUCCESS
        }
        Err(e) => {
            // SAFETY: writable (caller guarantee).
            unsafe { *out = ptr::null_mut() };
            fail(what, &e)
        }
    }
}

/// `pmix_status_t PMIx_generate_regex(const char *input, char **regex)`.
///
/// # Safety
/// `input` NULL or NUL-terminated; `regex` valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(
    input: *const c_char,
    regex: *mut *mut c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantees.
    unsafe { raw_out("PMIx_generate_regex", input, regex) }
}

/// `pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)`.
///
/// # Safety
/// `input` NULL or NUL-terminated; `ppn` valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(
    input: *const c_char,
    ppn: *mut *mut c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantees.
    unsafe { raw_out("PMIx_generate_ppn", input, ppn) }
}
