//! Resources: allocation requests, process monitoring, the inventory and
//! resource registration of a host.

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t
    /// directive, pmix_info_t *info, size_t ninfo, pmix_info_t **results,
    /// size_t *nresults)`: `PMIX_ERR_NOT_SUPPORTED` with `*results = NULL`,
    /// `*nresults = 0`.
    fn PMIx_Allocation_request(
        directive: pmix_alloc_directive_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t
    /// directive, pmix_info_t *info, size_t ninfo, pmix_info_cbfunc_t
    /// cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never
    /// called.
    fn PMIx_Allocation_request_nb(
        directive: pmix_alloc_directive_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor,
    /// pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
    /// pmix_info_t **results, size_t *nresults)`: `PMIX_ERR_NOT_SUPPORTED`
    /// with `*results = NULL`, `*nresults = 0`.
    fn PMIx_Process_monitor(
        monitor: *const pmix_info_t,
        error: pmix_status_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor,
    /// pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
    /// pmix_info_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`
    /// (so `PMIx_Heartbeat()` is a no-op); `cbfunc` is never called.
    fn PMIx_Process_monitor_nb(
        monitor: *const pmix_info_t,
        error: pmix_status_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_collect_inventory(pmix_info_t
    /// directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void
    /// *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_collect_inventory(
        directives: *mut pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[],
    /// size_t ninfo, pmix_info_t directives[], size_t ndirs,
    /// pmix_op_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `cbfunc` is never called.
    fn PMIx_server_deliver_inventory(
        info: *mut pmix_info_t,
        ninfo: usize,
        directives: *mut pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_register_resources(pmix_info_t info[],
    /// size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_register_resources(
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[],
    /// size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_deregister_resources(
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}
