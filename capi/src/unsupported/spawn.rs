//! Spawning processes and preparing a host for them: `PMIx_Spawn(_nb)`,
//! `PMIx_server_setup_application`, `PMIx_server_setup_local_support`.

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
    /// const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `nspace` is left untouched.
    fn PMIx_Spawn(
        job_info: *const pmix_info_t,
        ninfo: usize,
        apps: *const pmix_app_t,
        napps: usize,
        nspace: *mut c_char,
    );

    /// `pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t
    /// ninfo, const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t
    /// cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never
    /// called.
    fn PMIx_Spawn_nb(
        job_info: *const pmix_info_t,
        ninfo: usize,
        apps: *const pmix_app_t,
        napps: usize,
        cbfunc: pmix_spawn_cbfunc_t,
        cbdata: *mut c_void,
    );

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
