//! Security credentials: `PMIx_Get_credential(_nb)`,
//! `PMIx_Validate_credential(_nb)`.

use std::os::raw::c_void;

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t
    /// ninfo, pmix_byte_object_t *credential)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `*credential` is reset to an empty byte object (as OpenPMIx does
    /// before it asks).
    fn PMIx_Get_credential(
        info: *const pmix_info_t,
        ninfo: usize,
        credential: *mut pmix_byte_object_t,
    ) => credential;

    /// `pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[],
    /// size_t ninfo, pmix_credential_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Get_credential_nb(
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_credential_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t
    /// *cred, const pmix_info_t info[], size_t ninfo, pmix_info_t
    /// **results, size_t *nresults)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*results = NULL`, `*nresults = 0`.
    fn PMIx_Validate_credential(
        cred: *const pmix_byte_object_t,
        info: *const pmix_info_t,
        ninfo: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t
    /// *cred, const pmix_info_t info[], size_t ninfo,
    /// pmix_validation_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Validate_credential_nb(
        cred: *const pmix_byte_object_t,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_validation_cbfunc_t,
        cbdata: *mut c_void,
    );
}
