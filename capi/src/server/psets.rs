//! `PMIx_server_define_process_set` and `PMIx_server_delete_process_set`
//! over [`pmix_server::Server::define_process_set`] /
//! [`delete_process_set`](pmix_server::Server::delete_process_set):
//! synchronous (the 4.2 signatures take no callback); the local clients
//! get `PMIX_PROCESS_SET_DEFINE` / `PMIX_PROCESS_SET_DELETE`.

use std::os::raw::c_char;

use pmix_core::{Error, Result};

use crate::cmem;
use crate::convert::procs_from_c;
use crate::role;
use crate::status::status;
use crate::types::*;

/// The set's name, required.
///
/// # Safety
/// `name` NULL or a NUL-terminated string.
unsafe fn name_in(name: *const c_char) -> Result<String> {
    // SAFETY: forwarded caller guarantee.
    unsafe { cmem::c_string(name) }?
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Error::bad_param("a process set needs a name"))
}

/// `pmix_status_t PMIx_server_define_process_set(const pmix_proc_t
/// *members, size_t nmembers, const char *pset_name)`.
///
/// # Safety
/// `members` NULL or `nmembers` valid procs; `pset_name` NULL or a
/// NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_define_process_set(
    members: *const pmix_proc_t,
    nmembers: usize,
    pset_name: *const c_char,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        // SAFETY: forwarded caller guarantee.
        let name = unsafe { name_in(pset_name) }?;
        if members.is_null() || nmembers == 0 {
            return Err(Error::bad_param(format!(
                "process set {name:?} has no members"
            )));
        }
        // SAFETY: `nmembers` valid procs (caller guarantee).
        let procs = unsafe { procs_from_c(members, nmembers) }?;
        role::server()?.define_process_set(&name, &procs)
    })();
    status("PMIx_server_define_process_set", &r)
}

/// `pmix_status_t PMIx_server_delete_process_set(char *pset_name)`.
///
/// # Safety
/// `pset_name` NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_delete_process_set(pset_name: *mut c_char) -> pmix_status_t {
    let r = (|| -> Result<()> {
        // SAFETY: forwarded caller guarantee.
        let name = unsafe { name_in(pset_name) }?;
        role::server()?.delete_process_set(&name)
    })();
    status("PMIx_server_delete_process_set", &r)
}
