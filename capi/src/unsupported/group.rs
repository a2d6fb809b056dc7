//! Process sets: `PMIx_server_define_process_set`,
//! `PMIx_server_delete_process_set` (the `PMIx_Group_*` calls are
//! `client/group.rs`).

use std::os::raw::c_char;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_server_define_process_set(const pmix_proc_t
    /// *members, size_t nmembers, const char *pset_name)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_server_define_process_set(
        members: *const pmix_proc_t,
        nmembers: usize,
        pset_name: *const c_char,
    );

    /// `pmix_status_t PMIx_server_delete_process_set(char *pset_name)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_server_delete_process_set(pset_name: *mut c_char);
}
