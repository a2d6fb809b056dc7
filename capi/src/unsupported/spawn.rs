//! Preparing a host for spawned processes:
//! `PMIx_server_setup_application`, `PMIx_server_setup_local_support`
//! (`PMIx_Spawn` itself is in `client/spawn.rs`).

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_server_setup_application(const pmix_nspace_t
    /// nspace, pmix_info_t info[], size_t ninfo,
    /// pmix_setup_application_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_setup_application(
        nspace: *const c_char,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_setup_application_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t
    /// nspace, pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
    /// void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_setup_local_support(
        nspace: *const c_char,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}
