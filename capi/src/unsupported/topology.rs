//! Topology, cpusets, distances and locality: every service that needs
//! hwloc, which pmix-rs does not link (releasing a cpuset or topology is
//! [`crate::topology`]).

use std::os::raw::{c_char, c_void};

use crate::types::*;

unsupported! {
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

    /// `pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset,
    /// pmix_bind_envelope_t ref)`: `PMIX_ERR_NOT_SUPPORTED` (no hwloc); the
    /// `*cpuset` to fill is reset to empty.
    fn PMIx_Get_cpuset(cpuset: *mut pmix_cpuset_t, ref_: pmix_bind_envelope_t) => cpuset;

    /// `pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string,
    /// pmix_cpuset_t *cpuset)`: `PMIX_ERR_NOT_SUPPORTED` (no hwloc); the
    /// `*cpuset` to fill is reset to empty.
    fn PMIx_Parse_cpuset_string(
        cpuset_string: *const c_char,
        cpuset: *mut pmix_cpuset_t,
    ) => cpuset;

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
