//! `PMIx_Fence` and `PMIx_Fence_nb`: barriers, with the committed data
//! exchanged when `PMIX_COLLECT_DATA` is set.

use std::os::raw::c_void;

use pmix_client::Client;
use pmix_core::{Info, Proc, Result};

use crate::convert::{directives_in, procs_in};
use crate::role;
use crate::status::{fail, status};
use crate::types::*;
use crate::worker::{defer, CPtr};

/// What the fences read from their arguments.
///
/// # Safety
/// As [`PMIx_Fence`].
unsafe fn fence_args(
    c: &Client,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(Vec<Proc>, Vec<Info>)> {
    // SAFETY: NULL or `nprocs` valid procs (caller guarantee).
    let procs = unsafe { procs_in(c.proc(), procs, nprocs) }?;
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((procs, infos))
}

/// `pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo)`: barrier over `procs` (NULL:
/// this process's whole namespace); `PMIX_COLLECT_DATA` exchanges the
/// committed data.
///
/// # Safety
/// `procs` NULL or `nprocs` valid procs; `info` NULL or `ninfo` valid
/// infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { fence_args(&c, procs, nprocs, info, ninfo) }?;
        c.fence(&procs, &infos)
    });
    status("PMIx_Fence", &r)
}

/// `pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
/// *cbdata)`: as [`PMIx_Fence`], completing through `cbfunc` (may be NULL)
/// on a library thread. Returns `PMIX_SUCCESS` when given a callback
/// (errors go to it).
///
/// # Safety
/// As [`PMIx_Fence`]; `cbfunc` is NULL or accepts `cbdata` from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let cbdata = CPtr::new(cbdata);
    let done = move |r: Result<()>| {
        if let Some(cb) = cbfunc {
            let st = status("PMIx_Fence_nb", &r);
            // SAFETY: the caller's callback with its own cbdata (contract
            // of `PMIx_Fence_nb`).
            unsafe { cb(st, cbdata.get()) };
        }
    };
    let args = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { fence_args(&c, procs, nprocs, info, ninfo) }?;
        Ok((c, procs, infos))
    });
    match args {
        Ok((c, procs, infos)) => c.fence_nb(&procs, &infos, done),
        Err(e) if cbfunc.is_none() => return fail("PMIx_Fence_nb", &e),
        Err(e) => defer(move || done(Err(e))),
    }
    PMIX_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    #[test]
    fn calls_before_init_report_err_init() {
        // SAFETY: NULL arguments are allowed and checked.
        let rc = unsafe { PMIx_Fence_nb(ptr::null(), 0, ptr::null(), 0, None, ptr::null_mut()) };
        assert_eq!(rc, PMIX_ERR_INIT);
        // SAFETY: as above.
        let rc = unsafe { PMIx_Fence(ptr::null(), 0, ptr::null(), 0) };
        assert_eq!(rc, PMIX_ERR_INIT);
    }
}
