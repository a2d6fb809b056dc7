//! Tools: the one `PMIx_tool_*` call pmix-rs does not offer (the others
//! are in `client/tool.rs`).

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t
    /// *module)` (v5): `PMIX_ERR_NOT_SUPPORTED` (a tool here is never a
    /// server for others).
    fn PMIx_tool_set_server_module(module: *mut pmix_server_module_t);
}
