//! Connecting namespaces: `PMIx_Connect(_nb)`, `PMIx_Disconnect(_nb)`.

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
    /// const pmix_info_t info[], size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Connect(
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
    );

    /// `pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t
    /// nprocs, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t
    /// cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never
    /// called.
    fn PMIx_Connect_nb(
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t
    /// nprocs, const pmix_info_t info[], size_t ninfo)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Disconnect(
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
    );

    /// `pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t
    /// nprocs, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t
    /// cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never
    /// called.
    fn PMIx_Disconnect_nb(
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}
