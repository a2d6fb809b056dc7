//! `PMIx_Resolve_peers` and `PMIx_Resolve_nodes` over the Rust client's
//! job data ([`pmix_client::Client::resolve_peers`]).

use std::os::raw::c_char;
use std::ptr;

use crate::cmem;
use crate::convert::{nspace_in, procs_to_c};
use crate::role;
use crate::status::status;
use crate::types::*;

/// `pmix_status_t PMIx_Resolve_peers(const char *nodename, const
/// pmix_nspace_t nspace, pmix_proc_t **procs, size_t *nprocs)`: the procs
/// of `nspace` (NULL: this process's) on `nodename` (NULL: this node), in
/// a malloc'd array (`PMIX_PROC_FREE`). `PMIX_ERR_NOT_FOUND` when there is
/// none; the outputs are NULL/0 on error.
///
/// # Safety
/// `nodename`, `nspace` NULL or NUL-terminated; `procs`, `nprocs` writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_peers(
    nodename: *const c_char,
    nspace: *const c_char,
    procs: *mut *mut pmix_proc_t,
    nprocs: *mut usize,
) -> pmix_status_t {
    if procs.is_null() || nprocs.is_null() {
        return status("PMIx_Resolve_peers", &Err(cmem::bad_param("NULL output")));
    }
    // SAFETY: writable (caller guarantee).
    unsafe {
        procs.write(ptr::null_mut());
        nprocs.write(0);
    }
    let r = (|| {
        let c = role::client()?;
        // SAFETY: NULL or NUL-terminated (caller guarantee).
        let node = unsafe { cmem::c_string(nodename) }?;
        // SAFETY: as above.
        let ns = unsafe { nspace_in(&c.proc().nspace, nspace) }?;
        let found = c.resolve_peers(node.as_deref().filter(|s| !s.is_empty()), &ns)?;
        Ok((procs_to_c(&found)?, found.len()))
    })();
    match r {
        Ok((arr, n)) => {
            // SAFETY: writable (caller guarantee).
            unsafe {
                procs.write(arr);
                nprocs.write(n);
            }
            PMIX_SUCCESS
        }
        Err(e) => status("PMIx_Resolve_peers", &Err(e)),
    }
}

/// `pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char
/// **nodelist)`: the comma-separated names of the nodes hosting `nspace`
/// (NULL: this process's), malloc'd. `*nodelist` is NULL on error.
///
/// # Safety
/// `nspace` NULL or NUL-terminated; `nodelist` writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Resolve_nodes(
    nspace: *const c_char,
    nodelist: *mut *mut c_char,
) -> pmix_status_t {
    if nodelist.is_null() {
        return status("PMIx_Resolve_nodes", &Err(cmem::bad_param("NULL output")));
    }
    // SAFETY: writable (caller guarantee).
    unsafe { nodelist.write(ptr::null_mut()) };
    let r = (|| {
        let c = role::client()?;
        // SAFETY: NULL or NUL-terminated (caller guarantee).
        let ns = unsafe { nspace_in(&c.proc().nspace, nspace) }?;
        cmem::strdup_str(&c.resolve_nodes(&ns)?)
    })();
    match r {
        Ok(p) => {
            // SAFETY: writable (caller guarantee).
            unsafe { nodelist.write(p) };
            PMIX_SUCCESS
        }
        Err(e) => status("PMIx_Resolve_nodes", &Err(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_cleared_and_init_is_required() {
        let mut procs = ptr::NonNull::<pmix_proc_t>::dangling().as_ptr();
        let mut n = 9;
        let mut list = ptr::NonNull::<c_char>::dangling().as_ptr();
        // SAFETY: writable outputs; NULL inputs are allowed.
        unsafe {
            let rc = PMIx_Resolve_peers(ptr::null(), ptr::null(), &mut procs, &mut n);
            assert_eq!((rc, procs.is_null(), n), (PMIX_ERR_INIT, true, 0));
            assert_eq!(PMIx_Resolve_nodes(ptr::null(), &mut list), PMIX_ERR_INIT);
            assert!(list.is_null());
            assert_eq!(
                PMIx_Resolve_nodes(ptr::null(), ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
        }
    }
}
