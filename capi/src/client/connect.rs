//! `PMIx_Connect(_nb)` and `PMIx_Disconnect(_nb)` with OpenPMIx 4.2's
//! signatures over [`Client::connect_procs`] / [`Client::disconnect_nspace`]
//! (RFC0003). The 4.2 connect returns only a status: the group's namespace
//! and the caller's rank are read afterwards with `PMIx_Get` of
//! `pmixrs.cnct.nspace` / `pmixrs.cnct.rank` on the caller's own proc,
//! qualified by the same `PMIX_CONNECT_ID` (docs/ATTRIBUTES.md). The 4.2
//! disconnect names the procs: it leaves the caller's live group made by a
//! connect over the same procs and `PMIX_CONNECT_ID`.

use std::os::raw::c_void;

use pmix_client::Client;
use pmix_core::{Error, Info, Nspace, Proc, Result, Status};

use crate::convert::{directives_in, procs_in};
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::{defer, CPtr};

/// What connect and disconnect read from their arguments. No procs is
/// `PMIX_ERR_BAD_PARAM` (a connect needs participants).
///
/// # Safety
/// As [`PMIx_Connect`].
unsafe fn args(
    c: &Client,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(Vec<Proc>, Vec<Info>)> {
    if procs.is_null() || nprocs == 0 {
        return Err(Error::bad_param("connect/disconnect: no procs"));
    }
    // SAFETY: `nprocs` valid procs (caller guarantee).
    let procs = unsafe { procs_in(c.proc(), procs, nprocs) }?;
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((procs, infos))
}

/// The group a 4.2 disconnect over `procs` leaves.
fn group_of(c: &Client, procs: &[Proc], info: &[Info]) -> Result<Nspace> {
    c.connected_nspace(procs, info).ok_or_else(|| {
        Error::with_context(
            Status::ERR_NOT_FOUND,
            "disconnect: this process has no live connect over these procs with this \
             PMIX_CONNECT_ID",
        )
    })
}

/// Reports `r` through `cbfunc` on the callback thread.
fn op_done(
    what: &'static str,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: CPtr,
) -> impl FnOnce(Result<()>) + Send + 'static {
    move |r| {
        let st = status(what, &r);
        if let Some(cb) = cbfunc {
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, cbdata.get()) });
        }
    }
}

/// `pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo)`: connects with `procs`;
/// returns when every participant connected (or the operation failed:
/// `PMIX_ERR_TIMEOUT`, `PMIX_ERR_PROC_ABORTED`, …).
///
/// # Safety
/// `procs` `nprocs` valid procs; `info` NULL or `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { args(&c, procs, nprocs, info, ninfo) }?;
        c.connect_procs(&procs, &infos).map(|_| ())
    });
    status("PMIx_Connect", &r)
}

/// `pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
/// *cbdata)`: as [`PMIx_Connect`], the outcome (errors included) reported
/// through `cbfunc` on the callback thread; returns `PMIX_SUCCESS` when
/// given a callback.
///
/// # Safety
/// As [`PMIx_Connect`]; `cbfunc` NULL or accepting `cbdata` on any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Connect_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = op_done("PMIx_Connect_nb", cbfunc, CPtr::new(cbdata));
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { args(&c, procs, nprocs, info, ninfo) }?;
        Ok((c, procs, infos))
    });
    match r {
        Ok((c, procs, infos)) => c.connect_procs_nb(&procs, &infos, move |r| done(r.map(|_| ()))),
        Err(e) if cbfunc.is_none() => return status("PMIx_Connect_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t
/// nprocs, const pmix_info_t info[], size_t ninfo)`: leaves the group made
/// by this process's connect over `procs` with the same
/// `PMIX_CONNECT_ID`; returns when every member left.
/// `PMIX_ERR_NOT_FOUND` when there is no such live connect.
///
/// # Safety
/// As [`PMIx_Connect`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { args(&c, procs, nprocs, info, ninfo) }?;
        let ns = group_of(&c, &procs, &infos)?;
        c.disconnect_nspace(&ns, &infos)
    });
    status("PMIx_Disconnect", &r)
}

/// `pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t
/// nprocs, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t
/// cbfunc, void *cbdata)`: as [`PMIx_Disconnect`], through `cbfunc`.
///
/// # Safety
/// As [`PMIx_Connect_nb`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Disconnect_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = op_done("PMIx_Disconnect_nb", cbfunc, CPtr::new(cbdata));
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { args(&c, procs, nprocs, info, ninfo) }?;
        let ns = group_of(&c, &procs, &infos)?;
        Ok((c, ns, infos))
    });
    match r {
        Ok((c, ns, infos)) => c.disconnect_nspace_nb(&ns, &infos, done),
        Err(e) if cbfunc.is_none() => return status("PMIx_Disconnect_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}
