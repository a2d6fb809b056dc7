//! The `pmix_server.h` entry points of OpenPMIx 4.2.2 that pmix-rs does not
//! provide: inventory, attribute registration, locality and cpuset strings,
//! process sets, resource registration. Each answers
//! `PMIX_ERR_NOT_SUPPORTED` with the conventions of
//! [`more_stubs`](crate::more_stubs): nothing read, `char **` outputs set
//! to NULL, callbacks never called (an error return means no callback).

use std::os::raw::{c_char, c_void};

use crate::more_stubs::{not_supported, not_supported_out};
use crate::types::*;

not_supported! {
    /// `pmix_status_t PMIx_server_collect_inventory(pmix_info_t
    /// directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc, void
    /// *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_collect_inventory(
        directives: *mut pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[],
    /// size_t ninfo, pmix_info_t directives[], size_t ndirs,
    /// pmix_op_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `cbfunc` is never called.
    fn PMIx_server_deliver_inventory(
        info: *mut pmix_info_t,
        ninfo: usize,
        directives: *mut pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Register_attributes(char *function, char
    /// *attrs[])`: `PMIX_ERR_NOT_SUPPORTED` (attributes are not queryable
    /// here, so there is nothing to register them with).
    fn PMIx_Register_attributes(function: *mut c_char, attrs: *mut *mut c_char);

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

    /// `pmix_status_t PMIx_server_register_resources(pmix_info_t info[],
    /// size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_register_resources(
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[],
    /// size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_server_deregister_resources(
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}

not_supported_out! {
    /// `pmix_status_t PMIx_server_generate_locality_string(const
    /// pmix_cpuset_t *cpuset, char **locality)`: `PMIX_ERR_NOT_SUPPORTED`
    /// (no hwloc) with `*locality = NULL`.
    fn PMIx_server_generate_locality_string(
        cpuset: *const pmix_cpuset_t,
        locality: *mut *mut c_char,
    ) => locality;

    /// `pmix_status_t PMIx_server_generate_cpuset_string(const
    /// pmix_cpuset_t *cpuset, char **cpuset_string)`:
    /// `PMIX_ERR_NOT_SUPPORTED` (no hwloc) with `*cpuset_string = NULL`.
    fn PMIx_server_generate_cpuset_string(
        cpuset: *const pmix_cpuset_t,
        cpuset_string: *mut *mut c_char,
    ) => cpuset_string;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;
    use std::sync::Mutex;

    static CALLS: Mutex<usize> = Mutex::new(0);

    unsafe extern "C" fn op_cb(_st: pmix_status_t, _cbdata: *mut c_void) {
        *CALLS.lock().unwrap() += 1;
    }

    unsafe extern "C" fn info_cb(
        _st: pmix_status_t,
        _info: *mut pmix_info_t,
        _ninfo: usize,
        _cbdata: *mut c_void,
        _release: pmix_release_cbfunc_t,
        _release_cbdata: *mut c_void,
    ) {
        *CALLS.lock().unwrap() += 1;
    }

    #[test]
    fn server_stubs_answer_not_supported_and_never_call_back() {
        let nul = ptr::null_mut();
        let rcs = [
            PMIx_server_collect_inventory(nul, 0, Some(info_cb), nul.cast()),
            PMIx_server_deliver_inventory(nul, 0, nul, 0, Some(op_cb), nul.cast()),
            PMIx_Register_attributes(ptr::null_mut(), ptr::null_mut()),
            PMIx_server_define_process_set(ptr::null(), 0, ptr::null()),
            PMIx_server_delete_process_set(ptr::null_mut()),
            PMIx_server_register_resources(nul, 0, Some(op_cb), nul.cast()),
            PMIx_server_deregister_resources(nul, 0, Some(op_cb), nul.cast()),
        ];
        assert!(
            rcs.iter().all(|&rc| rc == PMIX_ERR_NOT_SUPPORTED),
            "{rcs:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(*CALLS.lock().unwrap(), 0);
    }

    #[test]
    fn string_outputs_are_cleared() {
        let mut s = ptr::NonNull::<c_char>::dangling().as_ptr();
        // SAFETY: a writable output.
        let rc = unsafe { PMIx_server_generate_locality_string(ptr::null(), &mut s) };
        assert_eq!((rc, s.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
        s = ptr::NonNull::<c_char>::dangling().as_ptr();
        // SAFETY: as above.
        let rc = unsafe { PMIx_server_generate_cpuset_string(ptr::null(), &mut s) };
        assert_eq!((rc, s.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
        // SAFETY: NULL outputs are allowed.
        let rc = unsafe { PMIx_server_generate_cpuset_string(ptr::null(), ptr::null_mut()) };
        assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
    }
}
