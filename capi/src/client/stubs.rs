//! Client and tool entry points whose feature pmix-rs does not have yet:
//! spawn, connect/disconnect, queries, tools. Each answers `PMIX_ERR_NOT_SUPPORTED`.
//!
//! A non-blocking form returns `PMIX_ERR_NOT_SUPPORTED` at once and never
//! calls its callback: in the standard an error return means the callback
//! will not come, and Open MPI's ext3x frees its callback data on that
//! return (none of these is one of T1's always-call-back functions).
//! Nothing the caller passes is read.

use std::os::raw::{c_char, c_void};

use crate::types::*;

/// The answer of a non-blocking stub: NOT_SUPPORTED, no callback.
fn op(cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    let _ = (cbfunc, cbdata);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
/// const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)`:
/// `PMIX_ERR_NOT_SUPPORTED`; `nspace` is left untouched.
#[no_mangle]
pub extern "C" fn PMIx_Spawn(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    nspace: *mut c_char,
) -> pmix_status_t {
    let _ = (job_info, ninfo, apps, napps, nspace);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t
/// ninfo, const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t
/// cbfunc, void *cbdata)`: not supported; a given callback gets
/// `(PMIX_ERR_NOT_SUPPORTED, NULL, cbdata)`.
///
/// # Safety
/// `cbfunc` is NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    cbfunc: pmix_spawn_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (job_info, ninfo, apps, napps);
    let _ = (cbfunc, cbdata);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED`.
#[no_mangle]
pub extern "C" fn PMIx_Connect(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let _ = (procs, nprocs, info, ninfo);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t
/// nprocs, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t
/// cbfunc, void *cbdata)`: not supported.
///
/// # Safety
/// `cbfunc` is NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (procs, nprocs, info, ninfo);
    op(cbfunc, cbdata)
}

/// `pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t
/// nprocs, const pmix_info_t info[], size_t ninfo)`:
/// `PMIX_ERR_NOT_SUPPORTED`.
#[no_mangle]
pub extern "C" fn PMIx_Disconnect(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let _ = (procs, nprocs, info, ninfo);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t
/// nprocs, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t
/// cbfunc, void *cbdata)`: not supported.
///
/// # Safety
/// `cbfunc` is NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (procs, nprocs, info, ninfo);
    op(cbfunc, cbdata)
}

/// `pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t
/// nqueries, pmix_info_cbfunc_t cbfunc, void *cbdata)`: not supported; a
/// given callback gets `(PMIX_ERR_NOT_SUPPORTED, NULL, 0, cbdata, NULL,
/// NULL)`.
///
/// # Safety
/// `cbfunc` is NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(
    queries: *mut pmix_query_t,
    nqueries: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (queries, nqueries);
    let _ = (cbfunc, cbdata);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[],
/// size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED` (no tool support yet).
#[no_mangle]
pub extern "C" fn PMIx_tool_init(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let _ = (proc_, info, ninfo);
    PMIX_ERR_NOT_SUPPORTED
}

/// `pmix_status_t PMIx_tool_finalize(void)`: `PMIX_ERR_NOT_SUPPORTED`.
#[no_mangle]
pub extern "C" fn PMIx_tool_finalize() -> pmix_status_t {
    PMIX_ERR_NOT_SUPPORTED
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;
    use std::time::Duration;

    unsafe extern "C" fn op_cb(_st: pmix_status_t, _cbdata: *mut c_void) {
        panic!("a stub called its callback after an error return");
    }

    #[test]
    fn stubs_answer_not_supported_and_never_call_back() {
        // SAFETY: NULL outputs are allowed.
        unsafe {
            assert_eq!(
                PMIx_Connect_nb(ptr::null(), 0, ptr::null(), 0, None, ptr::null_mut()),
                PMIX_ERR_NOT_SUPPORTED
            );
        }
        // SAFETY: a callback that must never run.
        let rc = unsafe {
            PMIx_Disconnect_nb(ptr::null(), 0, ptr::null(), 0, Some(op_cb), ptr::null_mut())
        };
        assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
        std::thread::sleep(Duration::from_millis(50));
    }
}
