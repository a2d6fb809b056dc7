//! `PMIx_Register_attributes` (queries themselves are
//! `client/query.rs`).

use std::os::raw::c_char;

unsupported! {
    /// `pmix_status_t PMIx_Register_attributes(char *function, char
    /// *attrs[])`: `PMIX_ERR_NOT_SUPPORTED` (attributes are not queryable
    /// here, so there is nothing to register them with).
    fn PMIx_Register_attributes(function: *mut c_char, attrs: *mut *mut c_char);
}
