//! The C status of an outcome and how it reaches the caller: returned, or
//! given to the caller's operation callback on the callback thread.
//!
//! Setting `PMIXRS_CAPI_VERBOSE` in the environment prints the context of
//! every error status the library returns on stderr.

use std::os::raw::c_void;
use std::sync::OnceLock;

use pmix_core::{Error, Result};

use crate::types::*;
use crate::worker::{defer, CPtr};

/// Whether `PMIXRS_CAPI_VERBOSE` asks for error contexts on stderr.
pub(crate) fn verbose() -> bool {
    static V: OnceLock<bool> = OnceLock::new();
    *V.get_or_init(|| std::env::var_os("PMIXRS_CAPI_VERBOSE").is_some())
}

/// The C status of an error (printed with its context when verbose).
pub(crate) fn fail(what: &str, e: &Error) -> pmix_status_t {
    if verbose() {
        eprintln!("pmix-rs capi: {what}: {e}");
    }
    e.status().0
}

/// The C status of a result (errors as [`fail`]).
pub(crate) fn status(what: &str, r: &Result<()>) -> pmix_status_t {
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail(what, e),
    }
}

/// The C status of a result, without the verbose report: `PMIX_SUCCESS`
/// or the error's status.
pub(crate) fn status_of<T>(r: &Result<T>) -> pmix_status_t {
    match r {
        Ok(_) => PMIX_SUCCESS,
        Err(e) => e.status().0,
    }
}

/// Hands status `st` to the caller: returned when there is no `cbfunc`;
/// otherwise `cbfunc(st, cbdata)` runs on the callback thread and the call
/// returns `PMIX_SUCCESS` (the callback gets every outcome, errors
/// included).
pub(crate) fn reply_op(
    st: pmix_status_t,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    match cbfunc {
        None => st,
        Some(cb) => {
            let d = CPtr::new(cbdata);
            // SAFETY: the caller's callback with its own data, callable from
            // any thread (contract of every call that takes one).
            defer(move || unsafe { cb(st, d.get()) });
            PMIX_SUCCESS
        }
    }
}
