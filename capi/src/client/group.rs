//! `PMIx_Group_construct(_nb)` and `PMIx_Group_destruct(_nb)` with
//! OpenPMIx 4.2's signatures over [`Client::group_construct`] /
//! [`Client::group_destruct`]. The results (`PMIX_GROUP_ID`,
//! `PMIX_GROUP_MEMBERSHIP`, `PMIX_RANK`, `PMIX_GROUP_CONTEXT_ID`) are a
//! libc info array the caller owns (blocking form) or one released through
//! the `release_fn` handed to the callback (`_nb`). A construct that
//! dropped members (`PMIX_GROUP_OPTIONAL`) returns
//! `PMIX_ERR_PARTIAL_SUCCESS` with its results.

use std::ffi::CStr;
use std::os::raw::{c_char, c_void};

use pmix_client::{Client, GroupConstructed};
use pmix_core::{Error, Info, Proc, Result};

use crate::cdata::array_free;
use crate::cmem::Out;
use crate::convert::{directives_in, infos_out_lossy, procs_in};
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::{defer, CPtr};

/// The group id a C caller passed.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string.
pub(super) unsafe fn id_in(grp: *const c_char) -> Result<String> {
    if grp.is_null() {
        return Err(Error::bad_param("group: the group id is NULL"));
    }
    // SAFETY: NUL-terminated (caller guarantee).
    let s = unsafe { CStr::from_ptr(grp) };
    s.to_str()
        .map(str::to_owned)
        .map_err(|_| Error::bad_param("group: the group id is not UTF-8"))
}

/// What a construct reads from its arguments.
///
/// # Safety
/// As [`PMIx_Group_construct`].
unsafe fn construct_args(
    c: &Client,
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(String, Vec<Proc>, Vec<Info>)> {
    // SAFETY: forwarded caller guarantee.
    let id = unsafe { id_in(grp) }?;
    if procs.is_null() || nprocs == 0 {
        return Err(Error::bad_param("group construct: no procs"));
    }
    // SAFETY: `nprocs` valid procs (caller guarantee).
    let procs = unsafe { procs_in(c.proc(), procs, nprocs) }?;
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((id, procs, infos))
}

/// `pmix_status_t PMIx_Group_construct(const char grp[], const
/// pmix_proc_t procs[], size_t nprocs, const pmix_info_t directives[],
/// size_t ndirs, pmix_info_t **results, size_t *nresults)`: constructs
/// group `grp`; returns once every member called (or the operation
/// failed). `*results` (free with `PMIX_INFO_FREE`) and `*nresults` are
/// set on success and partial success, NULL/0 otherwise.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string; `procs` `nprocs` valid procs;
/// `directives` NULL or `ndirs` valid infos; `results`, `nresults` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        results.clear();
        nresults.clear();
    }
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (id, procs, infos) =
            unsafe { construct_args(&c, grp, procs, nprocs, directives, ndirs) }?;
        c.group_construct(&id, &procs, &infos)
    });
    // SAFETY: forwarded caller guarantee.
    unsafe { results_out("PMIx_Group_construct", r, results, nresults) }
}

/// A blocking group call's answer: its status, and its results through
/// `results` / `nresults` (freed here when either is NULL).
///
/// # Safety
/// `results`, `nresults` NULL or writable.
pub(super) unsafe fn results_out(
    what: &str,
    r: Result<GroupConstructed>,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> pmix_status_t {
    match r {
        Ok(GroupConstructed {
            status: st,
            results: res,
        }) => {
            let (arr, n) = infos_out_lossy(&res);
            if results.is_null() || nresults.is_null() {
                // SAFETY: ours, nobody else holds it.
                unsafe { array_free(PMIX_INFO, arr.cast(), n) };
            } else {
                // SAFETY: non-NULL and writable (caller guarantee).
                unsafe {
                    results.write(arr);
                    nresults.write(n);
                }
            }
            st.0
        }
        Err(e) => status(what, &Err(e)),
    }
}

/// The release function handed with a `_nb` construct's results.
unsafe extern "C" fn release_results(cbdata: *mut c_void) {
    if cbdata.is_null() {
        return;
    }
    // SAFETY: the box `info_done` leaked for exactly this call.
    let b = unsafe { Box::from_raw(cbdata.cast::<(CPtr, usize)>()) };
    // SAFETY: the array `infos_out_lossy` made, released once.
    unsafe { array_free(PMIX_INFO, b.0.get().cast(), b.1) };
}

/// Reports a construct's (invite's, join's) outcome through `cbfunc` on
/// the callback thread.
pub(super) fn info_done(
    what: &'static str,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: CPtr,
) -> impl FnOnce(Result<GroupConstructed>) + Send + 'static {
    move |r| {
        let Some(cb) = cbfunc else { return };
        match r {
            Ok(g) => {
                let (arr, n) = infos_out_lossy(&g.results);
                let rel = Box::into_raw(Box::new((CPtr::new(arr.cast()), n)));
                let rel = CPtr::new(rel.cast());
                let arr = CPtr::new(arr.cast());
                let st = g.status.0;
                // SAFETY: the caller's callback with its own data; the
                // array lives until it calls the release function.
                defer(move || unsafe {
                    cb(
                        st,
                        arr.get().cast(),
                        n,
                        cbdata.get(),
                        Some(release_results),
                        rel.get(),
                    )
                });
            }
            Err(e) => {
                let st = status(what, &Err(e));
                // SAFETY: the caller's callback with its own data.
                defer(move || unsafe {
                    cb(
                        st,
                        std::ptr::null_mut(),
                        0,
                        cbdata.get(),
                        None,
                        std::ptr::null_mut(),
                    )
                });
            }
        }
    }
}

/// `pmix_status_t PMIx_Group_construct_nb(const char grp[], const
/// pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t
/// ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)`: as
/// [`PMIx_Group_construct`], the outcome and results reported through
/// `cbfunc` on the callback thread (the results valid until the caller
/// calls the `release_fn` it is given); returns `PMIX_SUCCESS` when given
/// a callback.
///
/// # Safety
/// As [`PMIx_Group_construct`]; `cbfunc` NULL or accepting `cbdata` on
/// any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = info_done("PMIx_Group_construct_nb", cbfunc, CPtr::new(cbdata));
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let a = unsafe { construct_args(&c, grp, procs, nprocs, info, ninfo) }?;
        Ok((c, a))
    });
    match r {
        Ok((c, (id, procs, infos))) => c.group_construct_nb(&id, &procs, &infos, done),
        Err(e) if cbfunc.is_none() => return status("PMIx_Group_construct_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t
/// info[], size_t ninfo)`: destructs group `grp`; returns once every
/// member called.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string; `info` NULL or `ninfo` valid
/// infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe {
        on_group(grp, info, ninfo, "PMIx_Group_destruct", |c, id, infos| {
            c.group_destruct(id, infos)
        })
    }
}

/// `pmix_status_t PMIx_Group_destruct_nb(const char grp[], const
/// pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
/// *cbdata)`: as [`PMIx_Group_destruct`], through `cbfunc`.
///
/// # Safety
/// As [`PMIx_Group_destruct`]; `cbfunc` NULL or accepting `cbdata` on any
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe {
        on_group_nb(
            grp,
            info,
            ninfo,
            (cbfunc, cbdata),
            "PMIx_Group_destruct_nb",
            |c, id, infos, done| c.group_destruct_nb(id, infos, done),
        )
    }
}

/// A blocking call naming one group with directives (destruct, leave):
/// `op` on the client with the id and the infos; its status.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string; `info` NULL or `ninfo` valid
/// infos.
pub(super) unsafe fn on_group(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    name: &str,
    op: impl FnOnce(&Client, &str, &[Info]) -> Result<()>,
) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let id = unsafe { id_in(grp) }?;
        // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
        let infos = unsafe { directives_in(info, ninfo) }?;
        op(&c, &id, &infos)
    });
    status(name, &r)
}

/// The `_nb` form of [`on_group`]: `op` gets the completion, which calls
/// `cb` (the callback and its data) on the callback thread. A bad argument
/// is returned at once when there is no callback, else reported through
/// it.
///
/// # Safety
/// As [`on_group`]; the callback NULL or accepting its data on any thread.
pub(super) unsafe fn on_group_nb(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cb: (pmix_op_cbfunc_t, *mut c_void),
    name: &'static str,
    op: impl FnOnce(&Client, &str, &[Info], Box<dyn FnOnce(Result<()>) + Send>),
) -> pmix_status_t {
    let (cbfunc, cbdata) = (cb.0, CPtr::new(cb.1));
    let done = move |r: Result<()>| {
        let st = status(name, &r);
        if let Some(cb) = cbfunc {
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, cbdata.get()) });
        }
    };
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let id = unsafe { id_in(grp) }?;
        // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
        let infos = unsafe { directives_in(info, ninfo) }?;
        Ok((c, id, infos))
    });
    match r {
        Ok((c, id, infos)) => op(&c, &id, &infos, Box::new(done)),
        Err(e) if cbfunc.is_none() => return status(name, &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}
