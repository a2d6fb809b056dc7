//! Queries and the attributes they may ask for: `PMIx_Query_info(_nb)`,
//! `PMIx_Register_attributes`.

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t
    /// nqueries, pmix_info_t **results, size_t *nresults)`:
    /// `PMIX_ERR_NOT_SUPPORTED` with `*results = NULL`, `*nresults = 0`.
    fn PMIx_Query_info(
        queries: *mut pmix_query_t,
        nqueries: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t
    /// nqueries, pmix_info_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Query_info_nb(
        queries: *mut pmix_query_t,
        nqueries: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Register_attributes(char *function, char
    /// *attrs[])`: `PMIX_ERR_NOT_SUPPORTED` (attributes are not queryable
    /// here, so there is nothing to register them with).
    fn PMIx_Register_attributes(function: *mut c_char, attrs: *mut *mut c_char);
}
