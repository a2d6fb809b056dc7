//! IO forwarding not implemented: `PMIx_IOF_push`,
//! `PMIx_server_IOF_deliver` (`PMIx_IOF_pull` and `PMIx_IOF_deregister`
//! are in `client/iof.rs`).

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t
    /// ntargets, pmix_byte_object_t *bo, const pmix_info_t directives[],
    /// size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_IOF_push(
        targets: *const pmix_proc_t,
        ntargets: usize,
        bo: *mut pmix_byte_object_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
    /// pmix_iof_channel_t channel, const pmix_byte_object_t *bo, const
    /// pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
    /// *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called (T2:
    /// the host waits only after a success).
    fn PMIx_server_IOF_deliver(
        source: *const pmix_proc_t,
        channel: pmix_iof_channel_t,
        bo: *const pmix_byte_object_t,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}
