//! Fabrics: `PMIx_Fabric_*` (6). The `pmix_fabric_t` is in/out and left as
//! it is.

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric, const
    /// pmix_info_t directives[], size_t ndirs)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Fabric_register(
        fabric: *mut pmix_fabric_t,
        directives: *const pmix_info_t,
        ndirs: usize,
    );

    /// `pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric, const
    /// pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
    /// void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Fabric_register_nb(
        fabric: *mut pmix_fabric_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Fabric_update(fabric: *mut pmix_fabric_t);

    /// `pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric,
    /// pmix_op_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `cbfunc` is never called.
    fn PMIx_Fabric_update_nb(
        fabric: *mut pmix_fabric_t,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Fabric_deregister(fabric: *mut pmix_fabric_t);

    /// `pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric,
    /// pmix_op_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `cbfunc` is never called.
    fn PMIx_Fabric_deregister_nb(
        fabric: *mut pmix_fabric_t,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}
