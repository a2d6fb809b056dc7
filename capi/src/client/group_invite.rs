//! `PMIx_Group_invite(_nb)`, `PMIx_Group_join(_nb)` and
//! `PMIx_Group_leave(_nb)` with OpenPMIx 4.2's signatures over
//! [`Client::group_invite`], [`Client::group_join`] and
//! [`Client::group_leave`]. Results and callbacks as in `group.rs`; a join
//! with `PMIX_GROUP_DECLINE` completes at once with no results; a NULL
//! leader in a join means whoever leads the group.

use std::os::raw::{c_char, c_void};

use pmix_client::Client;
use pmix_core::{Error, Info, Nspace, Proc, Rank, Result};

use super::group::{id_in, info_done, on_group, on_group_nb, results_out};
use crate::cmem::Out;
use crate::convert::{directives_in, proc_from_c, procs_in};
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::CPtr;

/// `PMIX_GROUP_ACCEPT` of `pmix_group_opt_t` (`PMIX_GROUP_DECLINE` is 0).
const PMIX_GROUP_ACCEPT: pmix_group_opt_t = 1;

/// What an invite reads from its arguments.
///
/// # Safety
/// As [`PMIx_Group_invite`].
unsafe fn invite_args(
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
        return Err(Error::bad_param("group invite: no procs"));
    }
    // SAFETY: `nprocs` valid procs (caller guarantee).
    let procs = unsafe { procs_in(c.proc(), procs, nprocs) }?;
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((id, procs, infos))
}

/// What a join reads from its arguments.
///
/// # Safety
/// As [`PMIx_Group_join`].
unsafe fn join_args(
    grp: *const c_char,
    leader: *const pmix_proc_t,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(String, Proc, Vec<Info>)> {
    // SAFETY: forwarded caller guarantee.
    let id = unsafe { id_in(grp) }?;
    let leader = if leader.is_null() {
        Proc::from_parts(Nspace::new("")?, Rank::WILDCARD)
    } else {
        // SAFETY: a valid proc (caller guarantee).
        proc_from_c(unsafe { &*leader })?
    };
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((id, leader, infos))
}

/// `pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t
/// procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
/// pmix_info_t **results, size_t *nresult)`: the caller leads group `grp`
/// and invites `procs`; returns once every invitee answered (declined or
/// failed ones dropped: `PMIX_ERR_PARTIAL_SUCCESS`), with the results.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string; `procs` `nprocs` valid procs;
/// `info` NULL or `ninfo` valid infos; `results`, `nresult` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    results: *mut *mut pmix_info_t,
    nresult: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        results.clear();
        nresult.clear();
    }
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (id, procs, infos) = unsafe { invite_args(&c, grp, procs, nprocs, info, ninfo) }?;
        c.group_invite(&id, &procs, &infos)
    });
    // SAFETY: forwarded caller guarantee.
    unsafe { results_out("PMIx_Group_invite", r, results, nresult) }
}

/// `pmix_status_t PMIx_Group_invite_nb(const char grp[], const
/// pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t
/// ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)`: as
/// [`PMIx_Group_invite`], through `cbfunc` on the callback thread.
///
/// # Safety
/// As [`PMIx_Group_invite`]; `cbfunc` NULL or accepting `cbdata` on any
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(
    grp: *const c_char,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = info_done("PMIx_Group_invite_nb", cbfunc, CPtr::new(cbdata));
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let a = unsafe { invite_args(&c, grp, procs, nprocs, info, ninfo) }?;
        Ok((c, a))
    });
    match r {
        Ok((c, (id, procs, infos))) => c.group_invite_nb(&id, &procs, &infos, done),
        Err(e) if cbfunc.is_none() => return status("PMIx_Group_invite_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t
/// *leader, pmix_group_opt_t opt, const pmix_info_t info[], size_t ninfo,
/// pmix_info_t **results, size_t *nresult)`: answers the invitation to
/// `grp`; an accept returns once the group is complete, with its results.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string; `leader` NULL or a valid proc;
/// `info` NULL or `ninfo` valid infos; `results`, `nresult` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(
    grp: *const c_char,
    leader: *const pmix_proc_t,
    opt: pmix_group_opt_t,
    info: *const pmix_info_t,
    ninfo: usize,
    results: *mut *mut pmix_info_t,
    nresult: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        results.clear();
        nresult.clear();
    }
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (id, leader, infos) = unsafe { join_args(grp, leader, info, ninfo) }?;
        c.group_join(&id, &leader, opt == PMIX_GROUP_ACCEPT, &infos)
    });
    // SAFETY: forwarded caller guarantee.
    unsafe { results_out("PMIx_Group_join", r, results, nresult) }
}

/// `pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t
/// *leader, pmix_group_opt_t opt, const pmix_info_t info[], size_t ninfo,
/// pmix_info_cbfunc_t cbfunc, void *cbdata)`: as [`PMIx_Group_join`],
/// through `cbfunc` (callable from an event handler).
///
/// # Safety
/// As [`PMIx_Group_join`]; `cbfunc` NULL or accepting `cbdata` on any
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(
    grp: *const c_char,
    leader: *const pmix_proc_t,
    opt: pmix_group_opt_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = info_done("PMIx_Group_join_nb", cbfunc, CPtr::new(cbdata));
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let a = unsafe { join_args(grp, leader, info, ninfo) }?;
        Ok((c, a))
    });
    match r {
        Ok((c, (id, leader, infos))) => {
            c.group_join_nb(&id, &leader, opt == PMIX_GROUP_ACCEPT, &infos, done);
        }
        Err(e) if cbfunc.is_none() => return status("PMIx_Group_join_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t
/// info[], size_t ninfo)`: leaves group `grp`; the other members hear
/// `PMIX_GROUP_LEFT`.
///
/// # Safety
/// `grp` NULL or a NUL-terminated string; `info` NULL or `ninfo` valid
/// infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(
    grp: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe {
        on_group(grp, info, ninfo, "PMIx_Group_leave", |c, id, infos| {
            c.group_leave(id, infos)
        })
    }
}

/// `pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t
/// info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`: as
/// [`PMIx_Group_leave`], through `cbfunc`.
///
/// # Safety
/// As [`PMIx_Group_leave`]; `cbfunc` NULL or accepting `cbdata` on any
/// thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(
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
            "PMIx_Group_leave_nb",
            |c, id, infos, done| c.group_leave_nb(id, infos, done),
        )
    }
}
