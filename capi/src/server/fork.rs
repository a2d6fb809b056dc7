//! `PMIx_server_setup_fork`: the environment a client of this server
//! starts with.

use std::os::raw::c_char;
use std::ptr;

use pmix_core::{Error, Result, Status};

use crate::cmem;
use crate::convert::proc_from_c;
use crate::role;
use crate::status::fail;
use crate::types::*;

/// `pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char
/// ***env)`: appends the client's `KEY=VALUE` variables to `*env` (a NULL
/// or malloc'd argv, grown with libc `realloc`).
///
/// # Safety
/// `proc` valid; `env` valid, `*env` NULL or a malloc'd NULL-terminated
/// argv of malloc'd strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(
    proc_: *const pmix_proc_t,
    env: *mut *mut *mut c_char,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        let s = role::server()?;
        if proc_.is_null() || env.is_null() {
            return Err(cmem::bad_param("NULL proc or env"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        let vars = s.setup_fork(&p)?;
        for (k, v) in vars {
            if v.contains('*') || k.contains('*') || k.contains('=') {
                return Err(Error::with_context(
                    Status::ERR_BAD_PARAM,
                    format!("setup_fork: {k} cannot be passed through a singleton pipe"),
                ));
            }
            // SAFETY: `env` valid (caller guarantee).
            unsafe { argv_append(env, &format!("{k}={v}")) }?;
        }
        Ok(())
    })();
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail("PMIx_server_setup_fork", &e),
    }
}

/// Appends a malloc'd copy of `item` to the malloc'd argv `*argv`.
///
/// # Safety
/// As [`PMIx_server_setup_fork`]'s `env`.
unsafe fn argv_append(argv: *mut *mut *mut c_char, item: &str) -> Result<()> {
    // SAFETY: valid (caller guarantee).
    let old = unsafe { *argv };
    // SAFETY: NULL or NULL-terminated (caller guarantee).
    let n = unsafe { cmem::argv_len(old) };
    let s = cmem::strdup_str(item)?;
    let bytes = (n + 2) * std::mem::size_of::<*mut c_char>();
    // SAFETY: `old` is NULL or a libc allocation (caller guarantee).
    let new = unsafe { libc::realloc(old.cast(), bytes) }.cast::<*mut c_char>();
    if new.is_null() {
        // SAFETY: ours, just made.
        unsafe { cmem::free(s) };
        return Err(cmem::nomem());
    }
    // SAFETY: `new` holds `n + 2` pointers.
    unsafe {
        *new.add(n) = s;
        *new.add(n + 1) = ptr::null_mut();
        *argv = new;
    }
    Ok(())
}
