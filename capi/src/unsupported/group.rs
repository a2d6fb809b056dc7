//! Groups: `PMIx_Group_*` (10) (the process-set calls are
//! `server/psets.rs`).

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
    /// `pmix_status_t PMIx_Group_construct(const char grp[], const
    /// pmix_proc_t procs[], size_t nprocs, const pmix_info_t directives[],
    /// size_t ndirs, pmix_info_t **results, size_t *nresults)`:
    /// `PMIX_ERR_NOT_SUPPORTED` with `*results = NULL`, `*nresults = 0`.
    fn PMIx_Group_construct(
        grp: *const c_char,
        procs: *const pmix_proc_t,
        nprocs: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Group_construct_nb(const char grp[], const
    /// pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t
    /// ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Group_construct_nb(
        grp: *const c_char,
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t
    /// procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo,
    /// pmix_info_t **results, size_t *nresult)`: `PMIX_ERR_NOT_SUPPORTED`
    /// with `*results = NULL`, `*nresult = 0`.
    fn PMIx_Group_invite(
        grp: *const c_char,
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        results: *mut *mut pmix_info_t,
        nresult: *mut usize,
    ) => results, nresult;

    /// `pmix_status_t PMIx_Group_invite_nb(const char grp[], const
    /// pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t
    /// ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Group_invite_nb(
        grp: *const c_char,
        procs: *const pmix_proc_t,
        nprocs: usize,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t
    /// *leader, pmix_group_opt_t opt, const pmix_info_t info[], size_t
    /// ninfo, pmix_info_t **results, size_t *nresult)`:
    /// `PMIX_ERR_NOT_SUPPORTED` with `*results = NULL`, `*nresult = 0`.
    fn PMIx_Group_join(
        grp: *const c_char,
        leader: *const pmix_proc_t,
        opt: pmix_group_opt_t,
        info: *const pmix_info_t,
        ninfo: usize,
        results: *mut *mut pmix_info_t,
        nresult: *mut usize,
    ) => results, nresult;

    /// `pmix_status_t PMIx_Group_join_nb(const char grp[], const
    /// pmix_proc_t *leader, pmix_group_opt_t opt, const pmix_info_t info[],
    /// size_t ninfo, pmix_info_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Group_join_nb(
        grp: *const c_char,
        leader: *const pmix_proc_t,
        opt: pmix_group_opt_t,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t
    /// info[], size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Group_leave(grp: *const c_char, info: *const pmix_info_t, ninfo: usize);

    /// `pmix_status_t PMIx_Group_leave_nb(const char grp[], const
    /// pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
    /// *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Group_leave_nb(
        grp: *const c_char,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Group_destruct(const char grp[], const
    /// pmix_info_t info[], size_t ninfo)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Group_destruct(grp: *const c_char, info: *const pmix_info_t, ninfo: usize);

    /// `pmix_status_t PMIx_Group_destruct_nb(const char grp[], const
    /// pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
    /// *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Group_destruct_nb(
        grp: *const c_char,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}
