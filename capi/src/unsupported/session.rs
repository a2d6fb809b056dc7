//! Sessions (v5 `pmix.h`): `PMIx_Session_control`.

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Session_control(uint32_t sessionID, const
    /// pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
    /// void *cbdata)` (v5): `PMIX_ERR_NOT_SUPPORTED`, the callback is not
    /// called. pmix-rs has no sessions to control.
    fn PMIx_Session_control(
        session_id: u32,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );
}
