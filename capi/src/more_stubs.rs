//! The rest of `pmix.h`, `pmix_tool.h` and `pmix_deprecated.h`: the entry
//! points OpenPMIx 4.2.2 exports that the other modules do not define.
//!
//! # What is real
//! - `PMIx_Progress`: nothing to do, the library's threads progress by
//!   themselves.
//! - `PMIx_Data_load`, `PMIx_Data_unload`, `PMIx_Data_embed`,
//!   `PMIx_Data_copy_payload`: byte moves on a `pmix_data_buffer_t`, with
//!   OpenPMIx's ownership rules (the buffer's `base_ptr` is libc memory,
//!   as `PMIX_DATA_BUFFER_DESTRUCT` frees it). Unlike OpenPMIx they do not
//!   require `PMIx_Init`: they touch no library state.
//! - `PMIx_Cpuset_destruct`, `PMIx_Topology_destruct`: release what the
//!   struct owns, see [`PMIx_Cpuset_destruct`].
//! - `PMIx_Job_control`: the blocking form of `PMIx_Job_control_nb` (cleanup
//!   registration for the calling process; anything else is
//!   `PMIX_ERR_NOT_SUPPORTED` there).
//!
//! # What is not
//! Everything else answers `PMIX_ERR_NOT_SUPPORTED`: queries, allocation,
//! monitoring, credentials, groups, fabrics, topology and cpuset services,
//! packing (`PMIx_Data_pack`/`unpack`/`copy`/`print`; `compress` and
//! `decompress` answer `false`), tools and IO forwarding. Nothing the caller
//! passes is read. An output the header says is set on return (`char **`,
//! `pmix_info_t **results` with `size_t *nresults`, a credential or cpuset
//! to fill) is reset to NULL/0/empty when its pointer is not NULL; an
//! in/out struct (`pmix_topology_t` of `PMIx_Load_topology`,
//! `pmix_fabric_t`, the `pmix_proc_t`s of the tool calls) is left as it is.
//! A non-blocking form never calls its callback: an error return means no
//! callback (see `client/stubs.rs`).

use std::os::raw::{c_char, c_void};
use std::ptr;

use crate::cmem::free;
use crate::types::*;

// ---------------------------------------------------------------------------
// Outputs reset by the stubs

/// An output argument that a stub resets to its empty value.
pub(crate) trait Out {
    /// Writes the empty value when the pointer is not NULL.
    ///
    /// # Safety
    /// The pointer is NULL or valid for a write of its pointee.
    unsafe fn clear(self);
}

impl<T> Out for *mut *mut T {
    unsafe fn clear(self) {
        if !self.is_null() {
            // SAFETY: non-NULL and writable (trait contract).
            unsafe { self.write(ptr::null_mut()) };
        }
    }
}

macro_rules! out_zero {
    ($($t:ty = $zero:expr;)*) => {$(
        impl Out for *mut $t {
            unsafe fn clear(self) {
                if !self.is_null() {
                    // SAFETY: non-NULL and writable (trait contract).
                    unsafe { self.write($zero) };
                }
            }
        }
    )*};
}

out_zero! {
    usize = 0;
    i32 = 0;
    pmix_locality_t = 0; // PMIX_LOCALITY_UNKNOWN
    pmix_byte_object_t = pmix_byte_object_t { bytes: ptr::null_mut(), size: 0 };
    pmix_cpuset_t = pmix_cpuset_t { source: ptr::null_mut(), bitmap: ptr::null_mut() };
}

/// Entry points that read nothing and answer `PMIX_ERR_NOT_SUPPORTED`.
macro_rules! not_supported {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?);
    )*) => {$(
        $(#[$attr])*
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),*) -> $crate::types::pmix_status_t {
            let _ = ($($arg,)*);
            $crate::types::PMIX_ERR_NOT_SUPPORTED
        }
    )*};
}
pub(crate) use not_supported;

/// Entry points that reset the outputs named after `=>`, read nothing else
/// and answer `PMIX_ERR_NOT_SUPPORTED`.
macro_rules! not_supported_out {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $($out:ident),+;
    )*) => {$(
        $(#[$attr])*
        ///
        /// # Safety
        /// Each output pointer is NULL or writable.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $crate::types::pmix_status_t {
            $(
                // SAFETY: NULL or writable (caller guarantee).
                unsafe { $crate::more_stubs::Out::clear($out) };
            )+
            let _ = ($($arg,)*);
            $crate::types::PMIX_ERR_NOT_SUPPORTED
        }
    )*};
}
pub(crate) use not_supported_out;

// ---------------------------------------------------------------------------
// Progress

/// `void PMIx_Progress(void)`: does nothing. OpenPMIx uses it to turn its
/// event loop from the caller's thread; here the client's progress thread,
/// the server's threads and the callback thread run by themselves, so there
/// is never anything left for the caller to drive.
#[no_mangle]
pub extern "C" fn PMIx_Progress() {}

// ---------------------------------------------------------------------------
// Queries, allocation, job control, monitoring

not_supported_out! {
    /// `pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t
    /// nqueries, pmix_info_t **results, size_t *nresults)`:
    /// `PMIX_ERR_NOT_SUPPORTED` with `*results = NULL`, `*nresults = 0`.
    fn PMIx_Query_info(
        queries: *mut pmix_query_t,
        nqueries: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t
    /// directive, pmix_info_t *info, size_t ninfo, pmix_info_t **results,
    /// size_t *nresults)`: `PMIX_ERR_NOT_SUPPORTED` with `*results = NULL`,
    /// `*nresults = 0`.
    fn PMIx_Allocation_request(
        directive: pmix_alloc_directive_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;

    /// `pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor,
    /// pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
    /// pmix_info_t **results, size_t *nresults)`: `PMIX_ERR_NOT_SUPPORTED`
    /// with `*results = NULL`, `*nresults = 0`.
    fn PMIx_Process_monitor(
        monitor: *const pmix_info_t,
        error: pmix_status_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;
}

not_supported! {
    /// `pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t
    /// directive, pmix_info_t *info, size_t ninfo, pmix_info_cbfunc_t
    /// cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never
    /// called.
    fn PMIx_Allocation_request_nb(
        directive: pmix_alloc_directive_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor,
    /// pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
    /// pmix_info_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`
    /// (so `PMIx_Heartbeat()` is a no-op); `cbfunc` is never called.
    fn PMIx_Process_monitor_nb(
        monitor: *const pmix_info_t,
        error: pmix_status_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_info_cbfunc_t,
        cbdata: *mut c_void,
    );
}

/// `pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t
/// ntargets, const pmix_info_t directives[], size_t ndirs, pmix_info_t
/// **results, size_t *nresults)`: the blocking form of
/// [`PMIx_Job_control_nb`](crate::PMIx_Job_control_nb), whose answer it
/// returns (cleanup registration for the calling process; any other request
/// is `PMIX_ERR_NOT_SUPPORTED`). No results are ever returned:
/// `*results = NULL`, `*nresults = 0`.
///
/// # Safety
/// As `PMIx_Job_control_nb`; `results` and `nresults` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Job_control(
    targets: *const pmix_proc_t,
    ntargets: usize,
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
    // SAFETY: forwarded caller guarantee; without a callback the answer is
    // the return value and nothing is deferred.
    unsafe {
        crate::PMIx_Job_control_nb(targets, ntargets, directives, ndirs, None, ptr::null_mut())
    }
}

// ---------------------------------------------------------------------------
// Credentials

not_supported_out! {
    /// `pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t
    /// ninfo, pmix_byte_object_t *credential)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `*credential` is reset to an empty byte object (as OpenPMIx does
    /// before it asks).
    fn PMIx_Get_credential(
        info: *const pmix_info_t,
        ninfo: usize,
        credential: *mut pmix_byte_object_t,
    ) => credential;

    /// `pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t
    /// *cred, const pmix_info_t info[], size_t ninfo, pmix_info_t
    /// **results, size_t *nresults)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*results = NULL`, `*nresults = 0`.
    fn PMIx_Validate_credential(
        cred: *const pmix_byte_object_t,
        info: *const pmix_info_t,
        ninfo: usize,
        results: *mut *mut pmix_info_t,
        nresults: *mut usize,
    ) => results, nresults;
}

not_supported! {
    /// `pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[],
    /// size_t ninfo, pmix_credential_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Get_credential_nb(
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_credential_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t
    /// *cred, const pmix_info_t info[], size_t ninfo,
    /// pmix_validation_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Validate_credential_nb(
        cred: *const pmix_byte_object_t,
        info: *const pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_validation_cbfunc_t,
        cbdata: *mut c_void,
    );
}

// ---------------------------------------------------------------------------
// Groups

not_supported_out! {
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
}

not_supported! {
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

// ---------------------------------------------------------------------------
// Fabrics (the pmix_fabric_t is in/out and left as it is)

not_supported! {
    /// `pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric, const
    /// pmix_info_t directives[], size_t ndirs)`: `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Fabric_register(
        fabric: *mut pmix_fabric_t,
        directives: *const pmix_info_t,
        ndirs: usize,
    );

    /// `pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric, const
    /// pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
    /// void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Fabric_register_nb(
        fabric: *mut pmix_fabric_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Fabric_update(fabric: *mut pmix_fabric_t);

    /// `pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric,
    /// pmix_op_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `cbfunc` is never called.
    fn PMIx_Fabric_update_nb(
        fabric: *mut pmix_fabric_t,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric)`:
    /// `PMIX_ERR_NOT_SUPPORTED`.
    fn PMIx_Fabric_deregister(fabric: *mut pmix_fabric_t);

    /// `pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric,
    /// pmix_op_cbfunc_t cbfunc, void *cbdata)`: `PMIX_ERR_NOT_SUPPORTED`;
    /// `cbfunc` is never called.
    fn PMIx_Fabric_deregister_nb(
        fabric: *mut pmix_fabric_t,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}

// ---------------------------------------------------------------------------
// Topology, cpusets, distances, locality

not_supported_out! {
    /// `pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo,
    /// pmix_cpuset_t *cpuset, pmix_info_t info[], size_t ninfo,
    /// pmix_device_distance_t *distances[], size_t *ndist)`:
    /// `PMIX_ERR_NOT_SUPPORTED` with `*distances = NULL`, `*ndist = 0`.
    fn PMIx_Compute_distances(
        topo: *mut pmix_topology_t,
        cpuset: *mut pmix_cpuset_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        distances: *mut *mut pmix_device_distance_t,
        ndist: *mut usize,
    ) => distances, ndist;

    /// `pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string,
    /// pmix_cpuset_t *cpuset)`: `PMIX_ERR_NOT_SUPPORTED` (no hwloc); the
    /// `*cpuset` to fill is reset to empty.
    fn PMIx_Parse_cpuset_string(
        cpuset_string: *const c_char,
        cpuset: *mut pmix_cpuset_t,
    ) => cpuset;

    /// `pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset,
    /// pmix_bind_envelope_t ref)`: `PMIX_ERR_NOT_SUPPORTED` (no hwloc); the
    /// `*cpuset` to fill is reset to empty.
    fn PMIx_Get_cpuset(cpuset: *mut pmix_cpuset_t, ref_: pmix_bind_envelope_t) => cpuset;

    /// `pmix_status_t PMIx_Get_relative_locality(const char *locality1,
    /// const char *locality2, pmix_locality_t *locality)`:
    /// `PMIX_ERR_NOT_SUPPORTED` with `*locality = PMIX_LOCALITY_UNKNOWN`.
    fn PMIx_Get_relative_locality(
        locality1: *const c_char,
        locality2: *const c_char,
        locality: *mut pmix_locality_t,
    ) => locality;
}

not_supported! {
    /// `pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo,
    /// pmix_cpuset_t *cpuset, pmix_info_t info[], size_t ninfo,
    /// pmix_device_dist_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_Compute_distances_nb(
        topo: *mut pmix_topology_t,
        cpuset: *mut pmix_cpuset_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbfunc: pmix_device_dist_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_Load_topology(pmix_topology_t *topo)`:
    /// `PMIX_ERR_NOT_SUPPORTED` (no hwloc); `*topo`, whose `source` may
    /// name the wanted provider, is left as it is.
    fn PMIx_Load_topology(topo: *mut pmix_topology_t);
}

/// True when `source` is a C string starting with `hwloc`, ignoring case
/// (OpenPMIx's `strncasecmp(source, "hwloc", 5)`).
///
/// # Safety
/// `source` is NULL or a NUL-terminated string.
unsafe fn is_hwloc(source: *const c_char) -> bool {
    // SAFETY: forwarded caller guarantee.
    let s = unsafe { crate::cmem::c_bytes(source) };
    s.len() >= 5 && s[..5].eq_ignore_ascii_case(b"hwloc")
}

/// Releases an hwloc object with the hwloc function `name`
/// (`hwloc_bitmap_free` or `hwloc_topology_destroy`, both `void f(void *)`)
/// when the process has hwloc in its global symbol scope. Returns whether
/// it did. Without hwloc there the object cannot have come from this
/// process's hwloc, and is left alone.
///
/// # Safety
/// `obj` is a live object of the hwloc type `name` releases, not used
/// afterwards.
unsafe fn hwloc_release(name: &std::ffi::CStr, obj: *mut c_void) -> bool {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no
    // other precondition; NULL means "not found".
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if f.is_null() {
        return false;
    }
    // SAFETY: both hwloc functions named here have the C type
    // `void (*)(void *)` (hwloc.h: `void hwloc_bitmap_free(hwloc_bitmap_t)`,
    // `void hwloc_topology_destroy(hwloc_topology_t)`, both pointer typedefs).
    let f = unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut c_void)>(f) };
    // SAFETY: `obj` is such an object (caller guarantee).
    unsafe { f(obj) };
    true
}

/// `void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset)`: releases what the
/// cpuset owns, with OpenPMIx's rules: a cpuset whose `source` is not
/// `"hwloc"` (case-insensitive, first 5 characters) is not ours and is left
/// untouched; otherwise the bitmap is released with `hwloc_bitmap_free`
/// (found at run time in the process's global scope: this library does not
/// link hwloc; where it is absent the bitmap is left to its owner), the
/// `source` string is freed with libc `free`, and both fields become NULL.
/// NULL is a no-op.
///
/// # Safety
/// `cpuset` is NULL or a valid `pmix_cpuset_t` whose `source` is NULL or a
/// libc string and whose `bitmap` is NULL or an hwloc bitmap, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Cpuset_destruct(cpuset: *mut pmix_cpuset_t) {
    if cpuset.is_null() {
        return;
    }
    // SAFETY: non-NULL and valid (caller guarantee).
    let c = unsafe { &mut *cpuset };
    // SAFETY: `source` is NULL or a C string (caller guarantee).
    if !unsafe { is_hwloc(c.source) } {
        return;
    }
    if !c.bitmap.is_null() {
        // SAFETY: an hwloc bitmap owned by the struct (caller guarantee).
        unsafe { hwloc_release(c"hwloc_bitmap_free", c.bitmap) };
        c.bitmap = ptr::null_mut();
    }
    // SAFETY: a libc string owned by the struct (caller guarantee).
    unsafe { free(c.source) };
    c.source = ptr::null_mut();
}

/// `void PMIx_Topology_destruct(pmix_topology_t *topo)`: as
/// [`PMIx_Cpuset_destruct`], the topology being released with
/// `hwloc_topology_destroy`.
///
/// # Safety
/// `topo` is NULL or a valid `pmix_topology_t` whose `source` is NULL or a
/// libc string and whose `topology` is NULL or an hwloc topology, not used
/// afterwards.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Topology_destruct(topo: *mut pmix_topology_t) {
    if topo.is_null() {
        return;
    }
    // SAFETY: non-NULL and valid (caller guarantee).
    let t = unsafe { &mut *topo };
    // SAFETY: `source` is NULL or a C string (caller guarantee).
    if !unsafe { is_hwloc(t.source) } {
        return;
    }
    if !t.topology.is_null() {
        // SAFETY: an hwloc topology owned by the struct (caller guarantee).
        unsafe { hwloc_release(c"hwloc_topology_destroy", t.topology) };
        t.topology = ptr::null_mut();
    }
    // SAFETY: a libc string owned by the struct (caller guarantee).
    unsafe { free(t.source) };
    t.source = ptr::null_mut();
}

// ---------------------------------------------------------------------------
// Data buffers: packing is not supported, payload moves are

/// `PMIX_DATA_BUFFER_STATIC_INIT`.
const EMPTY_BUFFER: pmix_data_buffer_t = pmix_data_buffer_t {
    base_ptr: ptr::null_mut(),
    pack_ptr: ptr::null_mut(),
    unpack_ptr: ptr::null_mut(),
    bytes_allocated: 0,
    bytes_used: 0,
};

/// Offset of `p` from `base`, NULL read as `default`; `None` below `base`.
fn offset(base: *mut c_char, p: *mut c_char, default: usize) -> Option<usize> {
    if p.is_null() {
        Some(default)
    } else {
        (p as usize).checked_sub(base as usize)
    }
}

/// The byte offsets `(unpack, pack)` of a buffer with a payload, checked:
/// `unpack <= pack == bytes_used <= bytes_allocated`. A NULL `unpack_ptr`
/// reads as the start and a NULL `pack_ptr` as the end of the used bytes.
fn cursors(b: &pmix_data_buffer_t) -> Option<(usize, usize)> {
    let unpack = offset(b.base_ptr, b.unpack_ptr, 0)?;
    let pack = offset(b.base_ptr, b.pack_ptr, b.bytes_used)?;
    (unpack <= pack && pack == b.bytes_used && b.bytes_used <= b.bytes_allocated)
        .then_some((unpack, pack))
}

/// `pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer,
/// pmix_byte_object_t *payload)`: moves the unread payload out. If nothing
/// was unpacked the allocation itself is handed over, else a malloc'd copy
/// of the unread bytes and the buffer's allocation is freed; the buffer is
/// left empty. An empty buffer gives an empty payload and stays as it is.
/// `PMIX_ERR_BAD_PARAM` for a NULL argument or inconsistent buffer
/// pointers, `PMIX_ERR_NOMEM` (buffer unchanged) when the copy fails.
///
/// # Safety
/// `buffer` is NULL or a valid buffer whose `base_ptr` is NULL or a libc
/// allocation of `bytes_allocated` bytes; `payload` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_unload(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> pmix_status_t {
    if buffer.is_null() || payload.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: both non-NULL and valid (caller guarantee).
    let (b, p) = unsafe { (&mut *buffer, &mut *payload) };
    *p = pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    if b.base_ptr.is_null() || b.bytes_used == 0 {
        return PMIX_SUCCESS;
    }
    let Some((unpack, used)) = cursors(b) else {
        return PMIX_ERR_BAD_PARAM;
    };
    if unpack == 0 {
        p.bytes = b.base_ptr;
        p.size = used;
        *b = EMPTY_BUFFER;
        return PMIX_SUCCESS;
    }
    let left = used - unpack;
    if left > 0 {
        let Ok(copy) = crate::cmem::calloc_array::<c_char>(left) else {
            return PMIX_ERR_NOMEM;
        };
        // SAFETY: `unpack + left == used <= bytes_allocated` bytes of the
        // buffer's allocation are readable; `copy` is a fresh allocation of
        // `left` bytes.
        unsafe { ptr::copy_nonoverlapping(b.base_ptr.add(unpack), copy, left) };
        p.bytes = copy;
        p.size = left;
    }
    // SAFETY: the buffer's libc allocation, no longer referenced.
    unsafe { free(b.base_ptr) };
    *b = EMPTY_BUFFER;
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer,
/// pmix_byte_object_t *payload)`: frees the buffer's payload and makes the
/// byte object's bytes its new one, nothing unpacked yet; the byte object
/// is left empty (its bytes now belong to the buffer). A NULL payload (or
/// one with NULL bytes) leaves the buffer empty. `PMIX_ERR_BAD_PARAM` for
/// a NULL buffer.
///
/// # Safety
/// `buffer` is NULL or a valid buffer whose `base_ptr` is NULL or a libc
/// allocation; `payload` is NULL or a valid byte object whose `bytes` are
/// NULL or a libc allocation of at least `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_load(
    buffer: *mut pmix_data_buffer_t,
    payload: *mut pmix_byte_object_t,
) -> pmix_status_t {
    if buffer.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: non-NULL and valid (caller guarantee).
    let b = unsafe { &mut *buffer };
    let bo = if payload.is_null() {
        pmix_byte_object_t {
            bytes: ptr::null_mut(),
            size: 0,
        }
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = unsafe { &mut *payload };
        std::mem::replace(
            p,
            pmix_byte_object_t {
                bytes: ptr::null_mut(),
                size: 0,
            },
        )
    };
    if b.base_ptr != bo.bytes {
        // SAFETY: the buffer's libc allocation (or NULL), replaced below;
        // not the new payload, which is a different allocation.
        unsafe { free(b.base_ptr) };
    }
    *b = EMPTY_BUFFER;
    if !bo.bytes.is_null() {
        b.base_ptr = bo.bytes;
        b.unpack_ptr = bo.bytes;
        b.pack_ptr = bo.bytes.wrapping_add(bo.size);
        b.bytes_allocated = bo.size;
        b.bytes_used = bo.size;
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer, const
/// pmix_byte_object_t *payload)`: as [`PMIx_Data_load`] with a malloc'd
/// copy of the payload, which is left unaltered. `PMIX_ERR_BAD_PARAM` for a
/// NULL buffer, `PMIX_ERR_NOMEM` (buffer unchanged) when the copy fails.
///
/// # Safety
/// `buffer` as for [`PMIx_Data_load`]; `payload` is NULL or a valid byte
/// object whose `bytes` are NULL or readable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_embed(
    buffer: *mut pmix_data_buffer_t,
    payload: *const pmix_byte_object_t,
) -> pmix_status_t {
    if buffer.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let mut copy = pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    if !payload.is_null() {
        // SAFETY: non-NULL and valid (caller guarantee).
        let bo = unsafe { &*payload };
        if !bo.bytes.is_null() && bo.size > 0 {
            let Ok(p) = crate::cmem::calloc_array::<c_char>(bo.size) else {
                return PMIX_ERR_NOMEM;
            };
            // SAFETY: `bo.bytes` is readable for `size` bytes (caller
            // guarantee); `p` is a fresh allocation of that size. The copy
            // is taken before the buffer's old payload is freed, so a
            // payload pointing into it is still valid here.
            unsafe { ptr::copy_nonoverlapping(bo.bytes, p, bo.size) };
            copy = pmix_byte_object_t {
                bytes: p,
                size: bo.size,
            };
        }
    }
    // SAFETY: forwarded caller guarantee for `buffer`; `copy` is ours.
    unsafe { PMIx_Data_load(buffer, &mut copy) }
}

/// `pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest,
/// pmix_data_buffer_t *src)`: appends a copy of `src`'s unread bytes to
/// `dest` (whose allocation grows with `realloc`); `src` is unchanged. A
/// NULL `src` is a no-op (as in OpenPMIx). `PMIX_ERR_BAD_PARAM` for a NULL
/// `dest` or inconsistent buffer pointers, `PMIX_ERR_NOMEM` (both
/// unchanged) when growing fails. `dest` and `src` may be the same buffer.
///
/// # Safety
/// Each of `dest` and `src` is NULL or a valid buffer whose `base_ptr` is
/// NULL or a libc allocation of `bytes_allocated` bytes.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_copy_payload(
    dest: *mut pmix_data_buffer_t,
    src: *mut pmix_data_buffer_t,
) -> pmix_status_t {
    if src.is_null() {
        return PMIX_SUCCESS;
    }
    if dest.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    // SAFETY: non-NULL and valid (caller guarantee); copies of the fields,
    // so `dest == src` creates no aliasing references.
    let (s, d) = unsafe { (src.read(), dest.read()) };
    let (s_unpack, s_pack) = if s.base_ptr.is_null() {
        (0, 0)
    } else {
        match cursors(&s) {
            Some(c) => c,
            None => return PMIX_ERR_BAD_PARAM,
        }
    };
    let n = s_pack - s_unpack;
    if n == 0 {
        return PMIX_SUCCESS;
    }
    let (d_unpack, d_used, d_alloc) = if d.base_ptr.is_null() {
        (0, 0, 0)
    } else {
        match cursors(&d) {
            Some((unpack, used)) => (unpack, used, d.bytes_allocated),
            None => return PMIX_ERR_BAD_PARAM,
        }
    };
    let Some(need) = d_used.checked_add(n) else {
        return PMIX_ERR_NOMEM;
    };
    let (base, alloc) = if need <= d_alloc {
        (d.base_ptr, d_alloc)
    } else {
        let alloc = need.max(d_alloc.saturating_mul(2));
        // SAFETY: `d.base_ptr` is NULL or dest's libc allocation; on
        // failure realloc leaves it as it was.
        let p = unsafe { libc::realloc(d.base_ptr.cast(), alloc) }.cast::<c_char>();
        if p.is_null() {
            return PMIX_ERR_NOMEM;
        }
        (p, alloc)
    };
    // The source bytes moved with dest's allocation when they lived in it.
    let from = if !s.base_ptr.is_null() && s.base_ptr == d.base_ptr {
        base.wrapping_add(s_unpack)
    } else {
        s.base_ptr.wrapping_add(s_unpack)
    };
    // SAFETY: `from` is readable for `n` bytes (src's unread payload, in its
    // current allocation); `base + d_used` is writable for `n` bytes
    // (`d_used + n <= alloc`). `ptr::copy` allows the ranges to overlap.
    unsafe { ptr::copy(from, base.add(d_used), n) };
    // SAFETY: valid and writable (caller guarantee); written last, after
    // every read of `src`, which may be the same buffer.
    unsafe {
        dest.write(pmix_data_buffer_t {
            base_ptr: base,
            pack_ptr: base.add(need),
            unpack_ptr: base.add(d_unpack),
            bytes_allocated: alloc,
            bytes_used: need,
        })
    };
    PMIX_SUCCESS
}

not_supported! {
    /// `pmix_status_t PMIx_Data_pack(const pmix_proc_t *target,
    /// pmix_data_buffer_t *buffer, void *src, int32_t num_vals,
    /// pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED`; the buffer is
    /// left as it is.
    fn PMIx_Data_pack(
        target: *const pmix_proc_t,
        buffer: *mut pmix_data_buffer_t,
        src: *mut c_void,
        num_vals: i32,
        type_: pmix_data_type_t,
    );
}

not_supported_out! {
    /// `pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source,
    /// pmix_data_buffer_t *buffer, void *dest, int32_t *max_num_values,
    /// pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*max_num_values = 0` (nothing unpacked); `dest` and the buffer are
    /// left as they are.
    fn PMIx_Data_unpack(
        source: *const pmix_proc_t,
        buffer: *mut pmix_data_buffer_t,
        dest: *mut c_void,
        max_num_values: *mut i32,
        type_: pmix_data_type_t,
    ) => max_num_values;

    /// `pmix_status_t PMIx_Data_copy(void **dest, void *src,
    /// pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*dest = NULL`.
    fn PMIx_Data_copy(dest: *mut *mut c_void, src: *mut c_void, type_: pmix_data_type_t) => dest;

    /// `pmix_status_t PMIx_Data_print(char **output, char *prefix, void
    /// *src, pmix_data_type_t type)`: `PMIX_ERR_NOT_SUPPORTED` with
    /// `*output = NULL`.
    fn PMIx_Data_print(
        output: *mut *mut c_char,
        prefix: *mut c_char,
        src: *mut c_void,
        type_: pmix_data_type_t,
    ) => output;
}

/// `bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t
/// **outbytes, size_t *nbytes)`: `false` (not compressed: no compressor is
/// built in) with `*outbytes = NULL`, `*nbytes = 0`.
///
/// # Safety
/// `outbytes` and `nbytes` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_compress(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
) -> bool {
    let _ = (inbytes, size);
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        outbytes.clear();
        nbytes.clear();
    }
    false
}

/// `bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t
/// **outbytes, size_t *nbytes)`: `false` (not decompressed) with
/// `*outbytes = NULL`, `*nbytes = 0`.
///
/// # Safety
/// `outbytes` and `nbytes` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Data_decompress(
    inbytes: *const u8,
    size: usize,
    outbytes: *mut *mut u8,
    nbytes: *mut usize,
) -> bool {
    let _ = (inbytes, size);
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        outbytes.clear();
        nbytes.clear();
    }
    false
}

// ---------------------------------------------------------------------------
// Tools and IO forwarding (pmix_tool.h, pmix_deprecated.h)

not_supported! {
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

    /// `pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t
    /// nprocs, const pmix_info_t directives[], size_t ndirs,
    /// pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
    /// pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; neither callback is ever called.
    #[allow(clippy::too_many_arguments)] // the C signature
    fn PMIx_IOF_pull(
        procs: *const pmix_proc_t,
        nprocs: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        channel: pmix_iof_channel_t,
        cbfunc: pmix_iof_cbfunc_t,
        regcbfunc: pmix_hdlr_reg_cbfunc_t,
        regcbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t
    /// directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_IOF_deregister(
        iofhdlr: usize,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );

    /// `pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t
    /// ntargets, pmix_byte_object_t *bo, const pmix_info_t directives[],
    /// size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
    /// `PMIX_ERR_NOT_SUPPORTED`; `cbfunc` is never called.
    fn PMIx_IOF_push(
        targets: *const pmix_proc_t,
        ntargets: usize,
        bo: *mut pmix_byte_object_t,
        directives: *const pmix_info_t,
        ndirs: usize,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    );
}

not_supported_out! {
    /// `pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t
    /// *nservers)`: `PMIX_ERR_NOT_SUPPORTED` with `*servers = NULL`,
    /// `*nservers = 0`.
    fn PMIx_tool_get_servers(servers: *mut *mut pmix_proc_t, nservers: *mut usize) => servers, nservers;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmem::{c_bytes, strdup_str};
    use std::sync::Mutex;
    use std::time::Duration;

    /// Calls of any callback below; every one must stay at zero.
    static CALLS: Mutex<usize> = Mutex::new(0);

    fn called() {
        *CALLS.lock().unwrap() += 1;
    }

    unsafe extern "C" fn op_cb(_: pmix_status_t, _: *mut c_void) {
        called();
    }
    unsafe extern "C" fn info_cb(
        _: pmix_status_t,
        _: *mut pmix_info_t,
        _: usize,
        _: *mut c_void,
        _: pmix_release_cbfunc_t,
        _: *mut c_void,
    ) {
        called();
    }
    unsafe extern "C" fn cred_cb(
        _: pmix_status_t,
        _: *mut pmix_byte_object_t,
        _: *mut pmix_info_t,
        _: usize,
        _: *mut c_void,
    ) {
        called();
    }
    unsafe extern "C" fn valid_cb(_: pmix_status_t, _: *mut pmix_info_t, _: usize, _: *mut c_void) {
        called();
    }
    unsafe extern "C" fn dist_cb(
        _: pmix_status_t,
        _: *mut pmix_device_distance_t,
        _: usize,
        _: *mut c_void,
        _: pmix_release_cbfunc_t,
        _: *mut c_void,
    ) {
        called();
    }
    unsafe extern "C" fn iof_cb(
        _: usize,
        _: pmix_iof_channel_t,
        _: *mut pmix_proc_t,
        _: *mut pmix_byte_object_t,
        _: *mut pmix_info_t,
        _: usize,
    ) {
        called();
    }
    unsafe extern "C" fn reg_cb(_: pmix_status_t, _: usize, _: *mut c_void) {
        called();
    }

    fn dangling<T>() -> *mut T {
        ptr::NonNull::dangling().as_ptr()
    }

    #[test]
    fn stubs_answer_not_supported_and_never_call_back() {
        let (n, c) = (ptr::null_mut::<pmix_info_t>(), ptr::null::<pmix_info_t>());
        let cbd = ptr::null_mut::<c_void>();
        let rcs = [
            PMIx_Allocation_request_nb(0, n, 0, Some(info_cb), cbd),
            PMIx_Process_monitor_nb(c, 0, c, 0, Some(info_cb), cbd),
            PMIx_Get_credential_nb(c, 0, Some(cred_cb), cbd),
            PMIx_Validate_credential_nb(ptr::null(), c, 0, Some(valid_cb), cbd),
            PMIx_Group_construct_nb(ptr::null(), ptr::null(), 0, c, 0, Some(info_cb), cbd),
            PMIx_Group_invite_nb(ptr::null(), ptr::null(), 0, c, 0, Some(info_cb), cbd),
            PMIx_Group_join_nb(ptr::null(), ptr::null(), 0, c, 0, Some(info_cb), cbd),
            PMIx_Group_leave(ptr::null(), c, 0),
            PMIx_Group_leave_nb(ptr::null(), c, 0, Some(op_cb), cbd),
            PMIx_Group_destruct(ptr::null(), c, 0),
            PMIx_Group_destruct_nb(ptr::null(), c, 0, Some(op_cb), cbd),
            PMIx_Fabric_register(ptr::null_mut(), c, 0),
            PMIx_Fabric_register_nb(ptr::null_mut(), c, 0, Some(op_cb), cbd),
            PMIx_Fabric_update(ptr::null_mut()),
            PMIx_Fabric_update_nb(ptr::null_mut(), Some(op_cb), cbd),
            PMIx_Fabric_deregister(ptr::null_mut()),
            PMIx_Fabric_deregister_nb(ptr::null_mut(), Some(op_cb), cbd),
            PMIx_Compute_distances_nb(ptr::null_mut(), ptr::null_mut(), n, 0, Some(dist_cb), cbd),
            PMIx_Load_topology(ptr::null_mut()),
            PMIx_Data_pack(ptr::null(), ptr::null_mut(), cbd, 1, PMIX_INT),
            PMIx_tool_attach_to_server(ptr::null_mut(), ptr::null_mut(), n, 0),
            PMIx_tool_connect_to_server(ptr::null_mut(), n, 0),
            PMIx_tool_disconnect(ptr::null()),
            PMIx_tool_set_server(ptr::null(), n, 0),
            PMIx_IOF_pull(
                ptr::null(),
                0,
                c,
                0,
                PMIX_FWD_STDOUT_CHANNEL,
                Some(iof_cb),
                Some(reg_cb),
                cbd,
            ),
            PMIx_IOF_deregister(0, c, 0, Some(op_cb), cbd),
            PMIx_IOF_push(ptr::null(), 0, ptr::null_mut(), c, 0, Some(op_cb), cbd),
        ];
        for (i, rc) in rcs.iter().enumerate() {
            assert_eq!(*rc, PMIX_ERR_NOT_SUPPORTED, "stub #{i}");
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(*CALLS.lock().unwrap(), 0);
        PMIx_Progress();
    }

    #[test]
    fn stubs_clear_their_outputs() {
        let (n, c) = (ptr::null_mut::<pmix_info_t>(), ptr::null::<pmix_info_t>());
        let mut res = dangling::<pmix_info_t>();
        let mut nres = 7usize;
        let mut check = |f: &mut dyn FnMut(*mut *mut pmix_info_t, *mut usize) -> pmix_status_t| {
            (res, nres) = (dangling(), 7);
            assert_eq!(f(&mut res, &mut nres), PMIX_ERR_NOT_SUPPORTED);
            assert!(res.is_null() && nres == 0);
            // NULL outputs are allowed.
            assert_eq!(f(ptr::null_mut(), ptr::null_mut()), PMIX_ERR_NOT_SUPPORTED);
        };
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_Query_info(n.cast(), 1, r, nr) });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_Allocation_request(1, n, 0, r, nr) });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_Process_monitor(c, 0, c, 0, r, nr) });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_Validate_credential(ptr::null(), c, 0, r, nr) });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe {
            PMIx_Group_construct(ptr::null(), ptr::null(), 0, c, 0, r, nr)
        });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_Group_invite(ptr::null(), ptr::null(), 0, c, 0, r, nr) });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_Group_join(ptr::null(), ptr::null(), 0, c, 0, r, nr) });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe {
            let mut d = dangling::<pmix_device_distance_t>();
            let rc = PMIx_Compute_distances(ptr::null_mut(), ptr::null_mut(), n, 0, &mut d, nr);
            assert!(d.is_null());
            r.clear();
            rc
        });
        // SAFETY: the outputs are NULL or writable, nothing else is read.
        check(&mut |r, nr| unsafe { PMIx_tool_get_servers(r.cast(), nr) });

        let mut cred = pmix_byte_object_t {
            bytes: dangling(),
            size: 3,
        };
        // SAFETY: a writable output.
        let rc = unsafe { PMIx_Get_credential(c, 0, &mut cred) };
        assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
        assert!(cred.bytes.is_null() && cred.size == 0);

        let mut cs = pmix_cpuset_t {
            source: dangling(),
            bitmap: dangling(),
        };
        // SAFETY: a writable output.
        let rc = unsafe { PMIx_Get_cpuset(&mut cs, 0) };
        assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
        assert!(cs.source.is_null() && cs.bitmap.is_null());
        cs = pmix_cpuset_t {
            source: dangling(),
            bitmap: dangling(),
        };
        // SAFETY: as above.
        let rc = unsafe { PMIx_Parse_cpuset_string(c"0-3".as_ptr(), &mut cs) };
        assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
        assert!(cs.source.is_null() && cs.bitmap.is_null());

        let mut loc: pmix_locality_t = 0x8000;
        // SAFETY: a writable output.
        let rc = unsafe { PMIx_Get_relative_locality(c"a".as_ptr(), c"b".as_ptr(), &mut loc) };
        assert_eq!((rc, loc), (PMIX_ERR_NOT_SUPPORTED, 0));

        let mut cnt = 4i32;
        // SAFETY: a writable output.
        let rc =
            unsafe { PMIx_Data_unpack(ptr::null(), ptr::null_mut(), n.cast(), &mut cnt, PMIX_INT) };
        assert_eq!((rc, cnt), (PMIX_ERR_NOT_SUPPORTED, 0));
        let mut copy = dangling::<c_void>();
        // SAFETY: a writable output.
        let rc = unsafe { PMIx_Data_copy(&mut copy, n.cast(), PMIX_INT) };
        assert_eq!((rc, copy.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
        let mut out = dangling::<c_char>();
        // SAFETY: a writable output.
        let rc = unsafe { PMIx_Data_print(&mut out, ptr::null_mut(), n.cast(), PMIX_INT) };
        assert_eq!((rc, out.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
        let (mut bytes, mut nb) = (dangling::<u8>(), 5usize);
        // SAFETY: writable outputs.
        assert!(!unsafe { PMIx_Data_compress(b"abc".as_ptr(), 3, &mut bytes, &mut nb) });
        assert!(bytes.is_null() && nb == 0);
        (bytes, nb) = (dangling(), 5);
        // SAFETY: as above.
        assert!(!unsafe { PMIx_Data_decompress(b"abc".as_ptr(), 3, &mut bytes, &mut nb) });
        assert!(bytes.is_null() && nb == 0);
        // SAFETY: NULL outputs are allowed.
        assert!(!unsafe { PMIx_Data_compress(ptr::null(), 0, n.cast(), ptr::null_mut()) });
    }

    #[test]
    fn job_control_is_the_blocking_nb_form_without_results() {
        let mut res = dangling::<pmix_info_t>();
        let mut nres = 7usize;
        // SAFETY: writable outputs, no targets or directives.
        let rc = unsafe { PMIx_Job_control(ptr::null(), 0, ptr::null(), 0, &mut res, &mut nres) };
        // Without a client: not initialised; with one, job-wide control is
        // not supported.
        assert!(rc == PMIX_ERR_INIT || rc == PMIX_ERR_NOT_SUPPORTED, "{rc}");
        assert!(res.is_null() && nres == 0);
    }

    /// The bytes a buffer holds, unread or not.
    fn used(b: &pmix_data_buffer_t) -> &[u8] {
        if b.base_ptr.is_null() {
            return &[];
        }
        // SAFETY: `bytes_used` initialised bytes at `base_ptr`.
        unsafe { std::slice::from_raw_parts(b.base_ptr.cast(), b.bytes_used) }
    }

    fn bo_bytes(bo: &pmix_byte_object_t) -> &[u8] {
        if bo.bytes.is_null() {
            return &[];
        }
        // SAFETY: `size` initialised bytes at `bytes`.
        unsafe { std::slice::from_raw_parts(bo.bytes.cast(), bo.size) }
    }

    fn malloced(s: &str) -> pmix_byte_object_t {
        pmix_byte_object_t {
            bytes: strdup_str(s).unwrap(),
            size: s.len(),
        }
    }

    #[test]
    fn data_buffer_payload_moves() {
        let mut src = EMPTY_BUFFER;
        let mut bo = malloced("hello");
        let bytes = bo.bytes;
        // SAFETY: in this test every buffer and byte object is valid and
        // holds libc memory only.
        unsafe {
            assert_eq!(PMIx_Data_load(&mut src, &mut bo), PMIX_SUCCESS);
            assert!(bo.bytes.is_null() && bo.size == 0, "load takes the payload");
            assert_eq!((src.base_ptr, src.unpack_ptr), (bytes, bytes));
            assert_eq!(src.pack_ptr, bytes.add(5));
            assert_eq!((src.bytes_used, src.bytes_allocated), (5, 5));

            let mut dst = EMPTY_BUFFER;
            assert_eq!(PMIx_Data_copy_payload(&mut dst, &mut src), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"hello");
            assert_eq!(src.base_ptr, bytes, "the source is unchanged");
            // Two bytes of `src` read: only the rest is copied.
            src.unpack_ptr = src.base_ptr.add(2);
            assert_eq!(PMIx_Data_copy_payload(&mut dst, &mut src), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"hellollo");
            let dp: *mut pmix_data_buffer_t = &mut dst;
            assert_eq!(PMIx_Data_copy_payload(dp, dp), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"hellollohellollo");
            assert_eq!(dst.pack_ptr, dst.base_ptr.add(16));
            assert_eq!(dst.unpack_ptr, dst.base_ptr);
            assert!(dst.bytes_allocated >= 16);
            assert_eq!(
                PMIx_Data_copy_payload(&mut dst, ptr::null_mut()),
                PMIX_SUCCESS
            );

            // Partly read: a copy of the unread bytes, the buffer emptied.
            assert_eq!(PMIx_Data_unload(&mut src, &mut bo), PMIX_SUCCESS);
            assert_eq!(bo_bytes(&bo), b"llo");
            assert_ne!(bo.bytes, bytes);
            assert!(src.base_ptr.is_null() && src.bytes_used == 0 && src.unpack_ptr.is_null());
            free(bo.bytes);

            // Unread: the allocation itself is handed over.
            let base = dst.base_ptr;
            assert_eq!(PMIx_Data_unload(&mut dst, &mut bo), PMIX_SUCCESS);
            assert_eq!((bo.bytes, bo.size), (base, 16));
            assert!(dst.base_ptr.is_null() && dst.bytes_allocated == 0);

            // Empty: an empty payload.
            assert_eq!(PMIx_Data_unload(&mut dst, &mut bo), PMIX_SUCCESS);
            assert!(bo.bytes.is_null() && bo.size == 0);
            free(base);

            // Embed copies and leaves the payload alone.
            let keep = malloced("xyz");
            assert_eq!(PMIx_Data_embed(&mut dst, &keep), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"xyz");
            assert_ne!(dst.base_ptr, keep.bytes);
            assert_eq!(c_bytes(keep.bytes), b"xyz");
            // Loading over a payload frees it; loading NULL empties.
            let mut again = malloced("ab");
            assert_eq!(PMIx_Data_load(&mut dst, &mut again), PMIX_SUCCESS);
            assert_eq!(used(&dst), b"ab");
            assert_eq!(PMIx_Data_embed(&mut dst, ptr::null()), PMIX_SUCCESS);
            assert!(dst.base_ptr.is_null() && dst.bytes_used == 0);
            assert_eq!(PMIx_Data_load(&mut dst, ptr::null_mut()), PMIX_SUCCESS);
            free(keep.bytes);
        }
    }

    #[test]
    fn data_buffer_bad_params() {
        let mut b = EMPTY_BUFFER;
        let mut bo = pmix_byte_object_t {
            bytes: ptr::null_mut(),
            size: 0,
        };
        // SAFETY: in this test, valid or NULL arguments; `raw` stays ours.
        unsafe {
            assert_eq!(
                PMIx_Data_unload(ptr::null_mut(), &mut bo),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(
                PMIx_Data_unload(&mut b, ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(PMIx_Data_load(ptr::null_mut(), &mut bo), PMIX_ERR_BAD_PARAM);
            assert_eq!(PMIx_Data_embed(ptr::null_mut(), &bo), PMIX_ERR_BAD_PARAM);
            assert_eq!(
                PMIx_Data_copy_payload(ptr::null_mut(), &mut b),
                PMIX_ERR_BAD_PARAM
            );

            // An unpack pointer past the used bytes is refused, untouched.
            let mut raw = malloced("abcd");
            assert_eq!(PMIx_Data_load(&mut b, &mut raw), PMIX_SUCCESS);
            let base = b.base_ptr;
            b.unpack_ptr = base.add(5);
            assert_eq!(PMIx_Data_unload(&mut b, &mut bo), PMIX_ERR_BAD_PARAM);
            let mut other = EMPTY_BUFFER;
            assert_eq!(
                PMIx_Data_copy_payload(&mut other, &mut b),
                PMIX_ERR_BAD_PARAM
            );
            assert!(other.base_ptr.is_null());
            assert_eq!(b.base_ptr, base);
            b.unpack_ptr = base;
            assert_eq!(PMIx_Data_load(&mut b, ptr::null_mut()), PMIX_SUCCESS);
        }
    }

    /// An hwloc function from the process's global scope, if any.
    fn global(name: &std::ffi::CStr) -> *mut c_void {
        // SAFETY: dlsym with RTLD_DEFAULT and a C string.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
    }

    #[test]
    fn cpuset_and_topology_destruct() {
        // SAFETY: in this test every struct is valid, its `source` a libc
        // string or NULL, its object an hwloc object or, while hwloc is
        // absent, a pointer that must not be touched.
        unsafe {
            PMIx_Cpuset_destruct(ptr::null_mut());
            PMIx_Topology_destruct(ptr::null_mut());
            let mut empty = pmix_cpuset_t {
                source: ptr::null_mut(),
                bitmap: ptr::null_mut(),
            };
            PMIx_Cpuset_destruct(&mut empty);

            // Not an hwloc cpuset: not ours, untouched.
            let other = strdup_str("other").unwrap();
            let mut cs = pmix_cpuset_t {
                source: other,
                bitmap: dangling(),
            };
            PMIx_Cpuset_destruct(&mut cs);
            assert_eq!((cs.source, cs.bitmap), (other, dangling()));
            let mut t = pmix_topology_t {
                source: other,
                topology: dangling(),
            };
            PMIx_Topology_destruct(&mut t);
            assert_eq!((t.source, t.topology), (other, dangling()));
            free(other);

            // hwloc objects without hwloc in the process: the source is
            // freed, the object left alone (it cannot be touched here).
            if global(c"hwloc_bitmap_free").is_null() {
                let mut cs = pmix_cpuset_t {
                    source: strdup_str("HWLOC").unwrap(),
                    bitmap: dangling(),
                };
                PMIx_Cpuset_destruct(&mut cs);
                assert!(cs.source.is_null() && cs.bitmap.is_null());
                let mut t = pmix_topology_t {
                    source: strdup_str("hwloc").unwrap(),
                    topology: dangling(),
                };
                PMIx_Topology_destruct(&mut t);
                assert!(t.source.is_null() && t.topology.is_null());
            }

            // With hwloc loaded (where installed), its objects are released
            // by hwloc.
            let lib = libc::dlopen(
                c"libhwloc.so.15".as_ptr(),
                libc::RTLD_NOW | libc::RTLD_GLOBAL,
            );
            if lib.is_null() {
                return;
            }
            let alloc = libc::dlsym(lib, c"hwloc_bitmap_alloc".as_ptr());
            let init = libc::dlsym(lib, c"hwloc_topology_init".as_ptr());
            assert!(!alloc.is_null() && !init.is_null());
            assert!(!global(c"hwloc_bitmap_free").is_null());
            let alloc =
                std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(alloc);
            let init = std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*mut *mut c_void) -> i32,
            >(init);
            let mut cs = pmix_cpuset_t {
                source: strdup_str("hwloc").unwrap(),
                bitmap: alloc(),
            };
            assert!(!cs.bitmap.is_null());
            PMIx_Cpuset_destruct(&mut cs);
            assert!(cs.source.is_null() && cs.bitmap.is_null());
            let mut topo = ptr::null_mut();
            assert_eq!(init(&mut topo), 0);
            let mut t = pmix_topology_t {
                source: strdup_str("hwloc").unwrap(),
                topology: topo,
            };
            PMIx_Topology_destruct(&mut t);
            assert!(t.source.is_null() && t.topology.is_null());
        }
    }
}
