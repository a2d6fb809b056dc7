//! IO forwarding not implemented: `PMIx_server_IOF_deliver`
//! (`PMIx_IOF_pull`, `PMIx_IOF_deregister` and `PMIx_IOF_push` are in
//! `client/iof.rs`).

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
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
