//! Groups and process sets: `PMIx_Group_invite/join/leave` (6; construct
//! and destruct are `client/group.rs`),
//! `PMIx_server_define_process_set`, `PMIx_server_delete_process_set`.

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
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

    /// `pmix_status_t PMIx_server_define_process_set(const pmix_proc_t
    /// *members, size_t nmembers, const char *pset_name)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_server_define_process_set(
        members: *const pmix_proc_t,
        nmembers: usize,
        pset_name: *const c_char,
    );

    /// `pmix_status_t PMIx_server_delete_process_set(char *pset_name)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_server_delete_process_set(pset_name: *mut c_char);
}
