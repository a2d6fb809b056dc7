//! `PMIx_Spawn` and `PMIx_Spawn_nb` over [`pmix_client::Client::spawn`]
//! (OpenPMIx 4.2 signatures): the server hands the request to its host,
//! which registers the new namespace and starts its processes. The job
//! info and the apps (`pmix_app_t`: command, argv, `NAME=VALUE`
//! environment, working directory, `maxprocs`, per-app infos) are
//! deep-copied before the call returns; environment directives apply
//! job-level first, then each app's own.

use std::ffi::CString;
use std::os::raw::{c_char, c_void};

use pmix_core::{App, Info, Nspace, Result};

use crate::cmem;
use crate::convert::{apps_from_c, directives_in};
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::{defer, CPtr};

/// The arguments of a spawn call, deep-copied.
///
/// # Safety
/// `job_info` NULL or `ninfo` valid infos; `apps` NULL or `napps` valid
/// apps.
unsafe fn args_in(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
) -> Result<(Vec<Info>, Vec<App>)> {
    // SAFETY: forwarded caller guarantee.
    let info = unsafe { directives_in(job_info, ninfo) }?;
    // SAFETY: forwarded caller guarantee.
    let apps = unsafe { apps_from_c(apps, napps) }?;
    Ok((info, apps))
}

/// `pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
/// const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace)`: starts
/// `apps` as a new job and blocks until the host started its processes;
/// the new namespace is written into `nspace` (when not NULL).
/// `PMIX_ERR_BAD_PARAM` for no app, an app without a command or with
/// `maxprocs` < 1, a malformed environment directive; the host's status
/// otherwise (`PMIX_ERR_JOB_EXE_NOT_FOUND`, …; `PMIX_ERR_NOT_SUPPORTED`
/// from a host that does not spawn).
///
/// # Safety
/// `job_info` NULL or `ninfo` valid infos; `apps` NULL or `napps` valid
/// apps; `nspace` NULL or a writable `pmix_nspace_t`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    nspace: *mut c_char,
) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (info, apps) = unsafe { args_in(job_info, ninfo, apps, napps) }?;
        c.spawn(&info, &apps)
    });
    if let (Ok(ns), false) = (&r, nspace.is_null()) {
        // SAFETY: a writable pmix_nspace_t (caller guarantee).
        let out = unsafe { &mut *nspace.cast::<pmix_nspace_t>() };
        cmem::load_nspace(out, ns.as_str().as_bytes());
    }
    status("PMIx_Spawn", &r.map(|_| ()))
}

/// Calls `cb` with the outcome, on the callback thread; the namespace
/// string lives for the duration of the call.
fn report(cb: pmix_spawn_cbfunc_t, cbdata: CPtr, r: Result<Nspace>) {
    let st = status(
        "PMIx_Spawn_nb",
        &r.as_ref().map(|_| ()).map_err(Clone::clone),
    );
    let Some(cb) = cb else {
        return;
    };
    let name = r.ok().and_then(|ns| CString::new(ns.as_str()).ok());
    defer(move || {
        let p = name
            .as_ref()
            .map_or(std::ptr::null_mut(), |n| n.as_ptr().cast_mut());
        // SAFETY: the caller's callback with its own data; `p` is NULL or
        // a NUL-terminated string alive during the call.
        unsafe { cb(st, p, cbdata.get()) }
    });
}

/// `pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t
/// ninfo, const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t
/// cbfunc, void *cbdata)`: as [`PMIx_Spawn`], the outcome (errors
/// included) and the new namespace (NULL on an error) reported through
/// `cbfunc` on the callback thread; returns `PMIX_SUCCESS` when given a
/// callback.
///
/// # Safety
/// As [`PMIx_Spawn`]; `cbfunc` NULL or callable from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Spawn_nb(
    job_info: *const pmix_info_t,
    ninfo: usize,
    apps: *const pmix_app_t,
    napps: usize,
    cbfunc: pmix_spawn_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let cbdata = CPtr::new(cbdata);
    let args = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        Ok((c, unsafe { args_in(job_info, ninfo, apps, napps) }?))
    });
    match args {
        Ok((c, (info, apps))) => c.spawn_nb(&info, &apps, move |r| report(cbfunc, cbdata, r)),
        Err(e) if cbfunc.is_none() => return status("PMIx_Spawn_nb", &Err(e)),
        Err(e) => report(cbfunc, cbdata, Err(e)),
    }
    PMIX_SUCCESS
}
