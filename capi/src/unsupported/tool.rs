//! Tools (`pmix_tool.h`, `pmix_deprecated.h`): `PMIx_tool_*` (7 of 4.2,
//! 2 more of 5.0).

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[],
    /// size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED` (no tool support yet);
    /// `*proc` is left as it is.
    fn PMIx_tool_init(proc_: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize);

    /// `pmix_status_t PMIx_tool_finalize(void)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_tool_finalize();

    /// `pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc,
    /// pmix_proc_t *server, pmix_info_t info[], size_t ninfo)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `*myproc` and `*server` are left as they
    /// are.
    fn PMIx_tool_attach_to_server(
        myproc: *mut pmix_proc_t,
        server: *mut pmix_proc_t,
        info: *mut pmix_info_t,
        ninfo: usize,
    );

    /// `pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc,
    /// pmix_info_t info[], size_t ninfo)` (deprecated):
    /// `PMIX_ERR_NOT_SUPPORTED`; `*proc` is left as it is.
    fn PMIx_tool_connect_to_server(proc_: *mut pmix_proc_t, info: *mut pmix_info_t, ninfo: usize);

    /// `pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_tool_disconnect(server: *const pmix_proc_t);

    /// `pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
    /// pmix_info_t info[], size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_tool_set_server(server: *const pmix_proc_t, info: *mut pmix_info_t, ninfo: usize);

    /// `pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t
    /// *nservers)`: `PMIX_ERR_NOT_SUPPORTED` with `*servers = NULL`,
    /// `*nservers = 0`.
    fn PMIx_tool_get_servers(servers: *mut *mut pmix_proc_t, nservers: *mut usize) => servers, nservers;

    /// `bool PMIx_tool_is_connected(void)` (v5): `false`, this library
    /// never connects as a tool.
    fn PMIx_tool_is_connected() -> bool = false;

    /// `pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t
    /// *module)` (v5): `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_tool_set_server_module(module: *mut pmix_server_module_t);
}
