//! `#[repr(C)]` mirrors of the public OpenPMIx 4.2 types, the callback
//! typedefs, and the constants this crate uses.
//!
//! Names are the C names so that every item can be checked against
//! `pmix_common.h`, `pmix.h` and `pmix_server.h` by eye; a C field named
//! `type` is `type_` here. Sizes and offsets are asserted against Debian's
//! headers by `tests/c_programs.rs` (through [`crate::layout`]), and the
//! numeric value of every constant in [`ALL_CONSTANTS`] likewise.
//!
//! # References
//! OpenPMIx 4.2.2 `include/pmix_common.h`; PMIx Standard v4.2, chapter 3
//! "Data Structures and Types". Measured layouts: `../shared/capi/layout/`.
#![allow(non_camel_case_types)]

use std::fmt;
use std::os::raw::{c_char, c_int, c_uint, c_void};

// ---------------------------------------------------------------------------
// Scalar typedefs

/// `pmix_status_t`: a status code (`int`).
pub type pmix_status_t = c_int;
/// `pmix_rank_t`: a process rank.
pub type pmix_rank_t = u32;
/// `pmix_data_type_t`: a data type tag.
pub type pmix_data_type_t = u16;
/// `pmix_scope_t`.
pub type pmix_scope_t = u8;
/// `pmix_data_range_t`.
pub type pmix_data_range_t = u8;
/// `pmix_persistence_t`.
pub type pmix_persistence_t = u8;
/// `pmix_info_directives_t`: info flag bits.
pub type pmix_info_directives_t = u32;
/// `pmix_alloc_directive_t`.
pub type pmix_alloc_directive_t = u8;
/// `pmix_iof_channel_t`.
pub type pmix_iof_channel_t = u16;
/// `pmix_proc_state_t`.
pub type pmix_proc_state_t = u8;
/// `pmix_job_state_t`.
pub type pmix_job_state_t = u8;
/// `pmix_coord_view_t`.
pub type pmix_coord_view_t = u8;
/// `pmix_link_state_t`.
pub type pmix_link_state_t = u8;
/// `pmix_bind_envelope_t`.
pub type pmix_bind_envelope_t = u8;
/// `pmix_locality_t`.
pub type pmix_locality_t = u16;
/// `pmix_device_type_t`.
pub type pmix_device_type_t = u64;
/// `pmix_storage_medium_t`.
pub type pmix_storage_medium_t = u64;
/// `pmix_storage_accessibility_t`.
pub type pmix_storage_accessibility_t = u64;
/// `pmix_storage_persistence_t`.
pub type pmix_storage_persistence_t = u64;
/// `pmix_storage_access_type_t`.
pub type pmix_storage_access_type_t = u16;
/// `pmix_value_cmp_t` (a C enum: `int`).
pub type pmix_value_cmp_t = c_int;
/// `pmix_boolean_t` (a C enum: `int`).
pub type pmix_boolean_t = c_int;
/// `pmix_group_operation_t` (a C enum: `int`).
pub type pmix_group_operation_t = c_int;
/// `pmix_group_opt_t` (a C enum: `int`).
pub type pmix_group_opt_t = c_int;
/// `pmix_fabric_operation_t` (a C enum: `int`).
pub type pmix_fabric_operation_t = c_int;
/// `pmix_nspace_t`: `char[PMIX_MAX_NSLEN + 1]`.
pub type pmix_nspace_t = [c_char; PMIX_MAX_NSLEN + 1];
/// `pmix_key_t`: `char[PMIX_MAX_KEYLEN + 1]`.
pub type pmix_key_t = [c_char; PMIX_MAX_KEYLEN + 1];

// ---------------------------------------------------------------------------
// Structs

/// `pmix_proc_t`: a process name.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_proc_t {
    /// The namespace, NUL-terminated.
    pub nspace: pmix_nspace_t,
    /// The rank.
    pub rank: pmix_rank_t,
}

/// `pmix_byte_object_t`: a counted blob.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_byte_object_t {
    /// The bytes (malloc'd when owned).
    pub bytes: *mut c_char,
    /// Number of bytes.
    pub size: usize,
}

/// `pmix_data_array_t`: `size` elements of `type_`, stored contiguously.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_data_array_t {
    /// Element type.
    pub type_: pmix_data_type_t,
    /// Number of elements.
    pub size: usize,
    /// The elements (malloc'd when owned).
    pub array: *mut c_void,
}

/// `pmix_envar_t`: an environment-variable directive.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_envar_t {
    /// Variable name.
    pub envar: *mut c_char,
    /// Value.
    pub value: *mut c_char,
    /// Separator for prepend/append.
    pub separator: c_char,
}

/// `pmix_coord_t`: a network coordinate.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_coord_t {
    /// Logical or physical view.
    pub view: pmix_coord_view_t,
    /// `dims` coordinates.
    pub coord: *mut u32,
    /// Number of dimensions.
    pub dims: usize,
}

/// `pmix_cpuset_t`: an hwloc cpuset and its source.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_cpuset_t {
    /// Source library (`"hwloc"`).
    pub source: *mut c_char,
    /// Opaque bitmap.
    pub bitmap: *mut c_void,
}

/// `pmix_topology_t`: an hwloc topology and its source.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_topology_t {
    /// Source library (`"hwloc"`).
    pub source: *mut c_char,
    /// Opaque topology.
    pub topology: *mut c_void,
}

/// `pmix_geometry_t`: a device's fabric coordinates.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_geometry_t {
    /// Fabric index.
    pub fabric: usize,
    /// Device UUID.
    pub uuid: *mut c_char,
    /// OS name of the device.
    pub osname: *mut c_char,
    /// `ncoords` coordinates.
    pub coordinates: *mut pmix_coord_t,
    /// Number of coordinates.
    pub ncoords: usize,
}

/// `pmix_device_distance_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_device_distance_t {
    /// Device UUID.
    pub uuid: *mut c_char,
    /// OS name of the device.
    pub osname: *mut c_char,
    /// Device type.
    pub type_: pmix_device_type_t,
    /// Minimum distance.
    pub mindist: u16,
    /// Maximum distance.
    pub maxdist: u16,
}

/// `pmix_endpoint_t`: a fabric endpoint.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_endpoint_t {
    /// Device UUID.
    pub uuid: *mut c_char,
    /// OS name of the device.
    pub osname: *mut c_char,
    /// Endpoint address.
    pub endpt: pmix_byte_object_t,
}

/// `pmix_proc_info_t`: what the RM knows about a process.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_proc_info_t {
    /// The process.
    pub proc_: pmix_proc_t,
    /// Its host.
    pub hostname: *mut c_char,
    /// Its executable.
    pub executable_name: *mut c_char,
    /// Its pid.
    pub pid: libc::pid_t,
    /// Its exit code.
    pub exit_code: c_int,
    /// Its state.
    pub state: pmix_proc_state_t,
}

/// `pmix_data_buffer_t`: a pack/unpack buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_data_buffer_t {
    /// Start of the allocation.
    pub base_ptr: *mut c_char,
    /// Next pack position.
    pub pack_ptr: *mut c_char,
    /// Next unpack position.
    pub unpack_ptr: *mut c_char,
    /// Bytes allocated.
    pub bytes_allocated: usize,
    /// Bytes used.
    pub bytes_used: usize,
}

/// `pmix_proc_stats_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_proc_stats_t {
    /// Node name.
    pub node: *mut c_char,
    /// The process.
    pub proc_: pmix_proc_t,
    /// Its pid.
    pub pid: libc::pid_t,
    /// Its command.
    pub cmd: *mut c_char,
    /// State letter.
    pub state: c_char,
    /// CPU time.
    pub time: libc::timeval,
    /// CPU percentage.
    pub percent_cpu: f32,
    /// Priority.
    pub priority: i32,
    /// Thread count.
    pub num_threads: u16,
    /// PSS in MB.
    pub pss: f32,
    /// Virtual size in MB.
    pub vsize: f32,
    /// RSS in MB.
    pub rss: f32,
    /// Peak virtual size in MB.
    pub peak_vsize: f32,
    /// Processor last run on.
    pub processor: u16,
    /// Sample time.
    pub sample_time: libc::timeval,
}

/// `pmix_disk_stats_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_disk_stats_t {
    /// Disk name.
    pub disk: *mut c_char,
    /// Reads completed.
    pub num_reads_completed: u64,
    /// Reads merged.
    pub num_reads_merged: u64,
    /// Sectors read.
    pub num_sectors_read: u64,
    /// Milliseconds reading.
    pub milliseconds_reading: u64,
    /// Writes completed.
    pub num_writes_completed: u64,
    /// Writes merged.
    pub num_writes_merged: u64,
    /// Sectors written.
    pub num_sectors_written: u64,
    /// Milliseconds writing.
    pub milliseconds_writing: u64,
    /// I/Os in progress.
    pub num_ios_in_progress: u64,
    /// Milliseconds doing I/O.
    pub milliseconds_io: u64,
    /// Weighted milliseconds doing I/O.
    pub weighted_milliseconds_io: u64,
}

/// `pmix_net_stats_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_net_stats_t {
    /// Interface name.
    pub net_interface: *mut c_char,
    /// Bytes received.
    pub num_bytes_recvd: u64,
    /// Packets received.
    pub num_packets_recvd: u64,
    /// Receive errors.
    pub num_recv_errs: u64,
    /// Bytes sent.
    pub num_bytes_sent: u64,
    /// Packets sent.
    pub num_packets_sent: u64,
    /// Send errors.
    pub num_send_errs: u64,
}

/// `pmix_node_stats_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_node_stats_t {
    /// Node name.
    pub node: *mut c_char,
    /// Load average, 1 minute.
    pub la: f32,
    /// Load average, 5 minutes.
    pub la5: f32,
    /// Load average, 15 minutes.
    pub la15: f32,
    /// Total memory in MB.
    pub total_mem: f32,
    /// Free memory in MB.
    pub free_mem: f32,
    /// Buffers in MB.
    pub buffers: f32,
    /// Cached in MB.
    pub cached: f32,
    /// Swap cached in MB.
    pub swap_cached: f32,
    /// Swap total in MB.
    pub swap_total: f32,
    /// Swap free in MB.
    pub swap_free: f32,
    /// Mapped in MB.
    pub mapped: f32,
    /// Sample time.
    pub sample_time: libc::timeval,
    /// `ndiskstats` disk stats.
    pub diskstats: *mut pmix_disk_stats_t,
    /// Number of disk stats.
    pub ndiskstats: usize,
    /// `nnetstats` network stats.
    pub netstats: *mut pmix_net_stats_t,
    /// Number of network stats.
    pub nnetstats: usize,
}

/// The data union of `pmix_value_t` (24 bytes, 8-aligned).
///
/// `flag` is a C `bool`: read it through `byte`, since C may store any byte.
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(missing_docs)] // each member is the C member of the same name
pub union pmix_value_data_t {
    pub flag: bool,
    pub byte: u8,
    pub string: *mut c_char,
    pub size: usize,
    pub pid: libc::pid_t,
    pub integer: c_int,
    pub int8: i8,
    pub int16: i16,
    pub int32: i32,
    pub int64: i64,
    pub uint: c_uint,
    pub uint8: u8,
    pub uint16: u16,
    pub uint32: u32,
    pub uint64: u64,
    pub fval: f32,
    pub dval: f64,
    pub tv: libc::timeval,
    pub time: libc::time_t,
    pub status: pmix_status_t,
    pub rank: pmix_rank_t,
    pub nspace: *mut pmix_nspace_t,
    pub proc_: *mut pmix_proc_t,
    pub bo: pmix_byte_object_t,
    pub persist: pmix_persistence_t,
    pub scope: pmix_scope_t,
    pub range: pmix_data_range_t,
    pub state: pmix_proc_state_t,
    pub pinfo: *mut pmix_proc_info_t,
    pub darray: *mut pmix_data_array_t,
    pub ptr: *mut c_void,
    pub adir: pmix_alloc_directive_t,
    pub envar: pmix_envar_t,
    pub coord: *mut pmix_coord_t,
    pub linkstate: pmix_link_state_t,
    pub jstate: pmix_job_state_t,
    pub topo: *mut pmix_topology_t,
    pub cpuset: *mut pmix_cpuset_t,
    pub locality: pmix_locality_t,
    pub geometry: *mut pmix_geometry_t,
    pub devtype: pmix_device_type_t,
    pub devdist: *mut pmix_device_distance_t,
    pub endpoint: *mut pmix_endpoint_t,
    pub dbuf: *mut pmix_data_buffer_t,
    pub pstats: *mut pmix_proc_stats_t,
    pub dkstats: *mut pmix_disk_stats_t,
    pub netstats: *mut pmix_net_stats_t,
    pub ndstats: *mut pmix_node_stats_t,
}

impl pmix_value_data_t {
    /// All 24 bytes zero.
    pub const ZERO: pmix_value_data_t = pmix_value_data_t {
        envar: pmix_envar_t {
            envar: std::ptr::null_mut(),
            value: std::ptr::null_mut(),
            separator: 0,
        },
    };
}

impl fmt::Debug for pmix_value_data_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: `uint64` covers the first 8 bytes, which every bit pattern
        // of the union initialises (the union is always fully written: see
        // ZERO and the loaders in `cvalue`).
        let first = unsafe { self.uint64 };
        write!(f, "pmix_value_data_t {{ first_word: {first:#x}, .. }}")
    }
}

/// `pmix_value_t`: a typed datum.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_value_t {
    /// The data type tag.
    pub type_: pmix_data_type_t,
    /// The datum.
    pub data: pmix_value_data_t,
}

impl pmix_value_t {
    /// `PMIX_VALUE_STATIC_INIT`: type `PMIX_UNDEF`, data zero.
    pub const INIT: pmix_value_t = pmix_value_t {
        type_: PMIX_UNDEF,
        data: pmix_value_data_t::ZERO,
    };
}

/// `pmix_info_t`: key, directive flags, value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_info_t {
    /// The key, NUL-terminated.
    pub key: pmix_key_t,
    /// Directive flags (`PMIX_INFO_REQD`, ...).
    pub flags: pmix_info_directives_t,
    /// The value.
    pub value: pmix_value_t,
}

impl pmix_info_t {
    /// An all-zero info: empty key, no flags, `PMIX_UNDEF` value.
    pub const INIT: pmix_info_t = pmix_info_t {
        key: [0; PMIX_MAX_KEYLEN + 1],
        flags: 0,
        value: pmix_value_t::INIT,
    };
}

/// `pmix_pdata_t`: a published datum with its publisher.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_pdata_t {
    /// The publisher.
    pub proc_: pmix_proc_t,
    /// The key, NUL-terminated.
    pub key: pmix_key_t,
    /// The value.
    pub value: pmix_value_t,
}

/// `pmix_app_t`: one application of a spawn request.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_app_t {
    /// Executable.
    pub cmd: *mut c_char,
    /// NULL-terminated argv.
    pub argv: *mut *mut c_char,
    /// NULL-terminated `NAME=VALUE` environment additions.
    pub env: *mut *mut c_char,
    /// Working directory.
    pub cwd: *mut c_char,
    /// Number of processes.
    pub maxprocs: c_int,
    /// `ninfo` directives.
    pub info: *mut pmix_info_t,
    /// Number of directives.
    pub ninfo: usize,
}

/// `pmix_query_t`: keys with qualifiers.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_query_t {
    /// NULL-terminated keys.
    pub keys: *mut *mut c_char,
    /// `nqual` qualifiers.
    pub qualifiers: *mut pmix_info_t,
    /// Number of qualifiers.
    pub nqual: usize,
}

/// `pmix_regattr_t`: a registered attribute.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_regattr_t {
    /// Attribute name (`"PMIX_JOB_SIZE"`).
    pub name: *mut c_char,
    /// Attribute string (`"pmix.job.size"`).
    pub string: pmix_key_t,
    /// Its data type.
    pub type_: pmix_data_type_t,
    /// NULL-terminated description lines.
    pub description: *mut *mut c_char,
}

/// `pmix_fabric_t`: a fabric registration.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct pmix_fabric_t {
    /// User-supplied name.
    pub name: *mut c_char,
    /// Library-assigned index.
    pub index: usize,
    /// `ninfo` infos about the fabric.
    pub info: *mut pmix_info_t,
    /// Number of infos.
    pub ninfo: usize,
    /// Library-private object.
    pub module: *mut c_void,
}

// ---------------------------------------------------------------------------
// Callback typedefs (pmix_common.h, pmix_server.h, pmix_tool.h)

/// `pmix_release_cbfunc_t`.
pub type pmix_release_cbfunc_t = Option<unsafe extern "C" fn(cbdata: *mut c_void)>;

/// `pmix_modex_cbfunc_t`.
pub type pmix_modex_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *const c_char,
        ndata: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

/// `pmix_spawn_cbfunc_t` (`nspace` is a `pmix_nspace_t`, i.e. `char*`).
pub type pmix_spawn_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void)>;

/// `pmix_op_cbfunc_t`.
pub type pmix_op_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, cbdata: *mut c_void)>;

/// `pmix_lookup_cbfunc_t`.
pub type pmix_lookup_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *mut pmix_pdata_t,
        ndata: usize,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_event_notification_cbfunc_fn_t`: how an event handler reports
/// its outcome.
pub type pmix_event_notification_cbfunc_fn_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_op_cbfunc_t,
        thiscbdata: *mut c_void,
        notification_cbdata: *mut c_void,
    ),
>;

/// `pmix_notification_fn_t`: an event handler.
pub type pmix_notification_fn_t = Option<
    unsafe extern "C" fn(
        evhdlr_registration_id: usize,
        status: pmix_status_t,
        source: *const pmix_proc_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_event_notification_cbfunc_fn_t,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_hdlr_reg_cbfunc_t`.
pub type pmix_hdlr_reg_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;

/// `pmix_evhdlr_reg_cbfunc_t`.
pub type pmix_evhdlr_reg_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;

/// `pmix_value_cbfunc_t`.
pub type pmix_value_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, kv: *mut pmix_value_t, cbdata: *mut c_void)>;

/// `pmix_info_cbfunc_t`.
pub type pmix_info_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

/// `pmix_credential_cbfunc_t`.
pub type pmix_credential_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        credential: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_validation_cbfunc_t`.
pub type pmix_validation_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_device_dist_cbfunc_t`.
pub type pmix_device_dist_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        dist: *mut pmix_device_distance_t,
        ndist: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

/// `pmix_iof_cbfunc_t` (pmix_tool.h): delivers forwarded output.
pub type pmix_iof_cbfunc_t = Option<
    unsafe extern "C" fn(
        iofhdlr: usize,
        channel: pmix_iof_channel_t,
        source: *mut pmix_proc_t,
        payload: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
    ),
>;

/// `pmix_dmodex_response_fn_t` (pmix_server.h).
pub type pmix_dmodex_response_fn_t = Option<
    unsafe extern "C" fn(status: pmix_status_t, data: *mut c_char, sz: usize, cbdata: *mut c_void),
>;

/// `pmix_setup_application_cbfunc_t` (pmix_server.h).
pub type pmix_setup_application_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        provided_cbdata: *mut c_void,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_connection_cbfunc_t` (pmix_server.h).
pub type pmix_connection_cbfunc_t =
    Option<unsafe extern "C" fn(incoming_sd: c_int, cbdata: *mut c_void)>;

/// `pmix_tool_connection_cbfunc_t` (pmix_server.h).
pub type pmix_tool_connection_cbfunc_t = Option<
    unsafe extern "C" fn(status: pmix_status_t, proc_: *mut pmix_proc_t, cbdata: *mut c_void),
>;

pub use crate::types_server::*;

// ---------------------------------------------------------------------------
// Constants

macro_rules! c_consts {
    ($( $(#[$m:meta])* $name:ident : $ty:ty = $val:expr; )*) => {
        $(
            $(#[$m])*
            #[doc = concat!("`", stringify!($name), "`.")]
            pub const $name: $ty = $val;
        )*
        /// Every constant of this module with its C name, so a test can
        /// compare each against the value the C headers give it.
        #[doc(hidden)]
        pub const ALL_CONSTANTS: &[(&str, i64)] = &[ $( (stringify!($name), $name as i64), )* ];
    };
}

c_consts! {
    PMIX_MAX_NSLEN: usize = 255;
    PMIX_MAX_KEYLEN: usize = 511;

    // ranks
    PMIX_RANK_UNDEF: pmix_rank_t = u32::MAX;
    PMIX_RANK_WILDCARD: pmix_rank_t = u32::MAX - 1;
    PMIX_RANK_LOCAL_NODE: pmix_rank_t = u32::MAX - 2;
    PMIX_RANK_INVALID: pmix_rank_t = u32::MAX - 3;
    PMIX_RANK_LOCAL_PEERS: pmix_rank_t = u32::MAX - 4;
    PMIX_RANK_VALID: pmix_rank_t = u32::MAX - 50;

    // status codes used by this crate
    PMIX_SUCCESS: pmix_status_t = 0;
    PMIX_ERROR: pmix_status_t = -1;
    PMIX_ERR_UNKNOWN_DATA_TYPE: pmix_status_t = -16;
    PMIX_ERR_TYPE_MISMATCH: pmix_status_t = -18;
    PMIX_ERR_BAD_PARAM: pmix_status_t = -27;
    PMIX_ERR_OUT_OF_RESOURCE: pmix_status_t = -29;
    PMIX_ERR_INIT: pmix_status_t = -31;
    PMIX_ERR_NOMEM: pmix_status_t = -32;
    PMIX_ERR_NOT_FOUND: pmix_status_t = -46;
    PMIX_ERR_NOT_SUPPORTED: pmix_status_t = -47;
    PMIX_ERR_EMPTY: pmix_status_t = -60;
    PMIX_ERR_VALUE_OUT_OF_BOUNDS: pmix_status_t = -65;
    PMIX_OPERATION_SUCCEEDED: pmix_status_t = -157;

    // data types
    PMIX_UNDEF: pmix_data_type_t = 0;
    PMIX_BOOL: pmix_data_type_t = 1;
    PMIX_BYTE: pmix_data_type_t = 2;
    PMIX_STRING: pmix_data_type_t = 3;
    PMIX_SIZE: pmix_data_type_t = 4;
    PMIX_PID: pmix_data_type_t = 5;
    PMIX_INT: pmix_data_type_t = 6;
    PMIX_INT8: pmix_data_type_t = 7;
    PMIX_INT16: pmix_data_type_t = 8;
    PMIX_INT32: pmix_data_type_t = 9;
    PMIX_INT64: pmix_data_type_t = 10;
    PMIX_UINT: pmix_data_type_t = 11;
    PMIX_UINT8: pmix_data_type_t = 12;
    PMIX_UINT16: pmix_data_type_t = 13;
    PMIX_UINT32: pmix_data_type_t = 14;
    PMIX_UINT64: pmix_data_type_t = 15;
    PMIX_FLOAT: pmix_data_type_t = 16;
    PMIX_DOUBLE: pmix_data_type_t = 17;
    PMIX_TIMEVAL: pmix_data_type_t = 18;
    PMIX_TIME: pmix_data_type_t = 19;
    PMIX_STATUS: pmix_data_type_t = 20;
    PMIX_VALUE: pmix_data_type_t = 21;
    PMIX_PROC: pmix_data_type_t = 22;
    PMIX_APP: pmix_data_type_t = 23;
    PMIX_INFO: pmix_data_type_t = 24;
    PMIX_PDATA: pmix_data_type_t = 25;
    PMIX_BYTE_OBJECT: pmix_data_type_t = 27;
    PMIX_KVAL: pmix_data_type_t = 28;
    PMIX_PERSIST: pmix_data_type_t = 30;
    PMIX_POINTER: pmix_data_type_t = 31;
    PMIX_SCOPE: pmix_data_type_t = 32;
    PMIX_DATA_RANGE: pmix_data_type_t = 33;
    PMIX_COMMAND: pmix_data_type_t = 34;
    PMIX_INFO_DIRECTIVES: pmix_data_type_t = 35;
    PMIX_DATA_TYPE: pmix_data_type_t = 36;
    PMIX_PROC_STATE: pmix_data_type_t = 37;
    PMIX_PROC_INFO: pmix_data_type_t = 38;
    PMIX_DATA_ARRAY: pmix_data_type_t = 39;
    PMIX_PROC_RANK: pmix_data_type_t = 40;
    PMIX_QUERY: pmix_data_type_t = 41;
    PMIX_COMPRESSED_STRING: pmix_data_type_t = 42;
    PMIX_ALLOC_DIRECTIVE: pmix_data_type_t = 43;
    PMIX_IOF_CHANNEL: pmix_data_type_t = 45;
    PMIX_ENVAR: pmix_data_type_t = 46;
    PMIX_COORD: pmix_data_type_t = 47;
    PMIX_REGATTR: pmix_data_type_t = 48;
    PMIX_REGEX: pmix_data_type_t = 49;
    PMIX_JOB_STATE: pmix_data_type_t = 50;
    PMIX_LINK_STATE: pmix_data_type_t = 51;
    PMIX_PROC_CPUSET: pmix_data_type_t = 52;
    PMIX_GEOMETRY: pmix_data_type_t = 53;
    PMIX_DEVICE_DIST: pmix_data_type_t = 54;
    PMIX_ENDPOINT: pmix_data_type_t = 55;
    PMIX_TOPO: pmix_data_type_t = 56;
    PMIX_DEVTYPE: pmix_data_type_t = 57;
    PMIX_LOCTYPE: pmix_data_type_t = 58;
    PMIX_COMPRESSED_BYTE_OBJECT: pmix_data_type_t = 59;
    PMIX_PROC_NSPACE: pmix_data_type_t = 60;
    PMIX_PROC_STATS: pmix_data_type_t = 61;
    PMIX_DISK_STATS: pmix_data_type_t = 62;
    PMIX_NET_STATS: pmix_data_type_t = 63;
    PMIX_NODE_STATS: pmix_data_type_t = 64;
    PMIX_DATA_BUFFER: pmix_data_type_t = 65;
    PMIX_STOR_MEDIUM: pmix_data_type_t = 66;
    PMIX_STOR_ACCESS: pmix_data_type_t = 67;
    PMIX_STOR_PERSIST: pmix_data_type_t = 68;
    PMIX_STOR_ACCESS_TYPE: pmix_data_type_t = 69;
    PMIX_DATA_TYPE_MAX: pmix_data_type_t = 500;

    // info directives
    PMIX_INFO_REQD: pmix_info_directives_t = 0x1;
    PMIX_INFO_ARRAY_END: pmix_info_directives_t = 0x2;
    PMIX_INFO_REQD_PROCESSED: pmix_info_directives_t = 0x4;
    PMIX_INFO_QUALIFIER: pmix_info_directives_t = 0x8;
    PMIX_INFO_PERSISTENT: pmix_info_directives_t = 0x10;
    PMIX_INFO_DIR_RESERVED: pmix_info_directives_t = 0xffff_0000;

    // IOF channels
    PMIX_FWD_NO_CHANNELS: pmix_iof_channel_t = 0;
    PMIX_FWD_STDIN_CHANNEL: pmix_iof_channel_t = 0x1;
    PMIX_FWD_STDOUT_CHANNEL: pmix_iof_channel_t = 0x2;
    PMIX_FWD_STDERR_CHANNEL: pmix_iof_channel_t = 0x4;
    PMIX_FWD_STDDIAG_CHANNEL: pmix_iof_channel_t = 0x8;

    // device types
    PMIX_DEVTYPE_UNKNOWN: pmix_device_type_t = 0;
    PMIX_DEVTYPE_BLOCK: pmix_device_type_t = 0x1;
    PMIX_DEVTYPE_GPU: pmix_device_type_t = 0x2;
    PMIX_DEVTYPE_NETWORK: pmix_device_type_t = 0x4;
    PMIX_DEVTYPE_OPENFABRICS: pmix_device_type_t = 0x8;
    PMIX_DEVTYPE_DMA: pmix_device_type_t = 0x10;
    PMIX_DEVTYPE_COPROC: pmix_device_type_t = 0x20;

    // pmix_value_cmp_t (enum)
    PMIX_EQUAL: pmix_value_cmp_t = 0;
    PMIX_VALUE1_GREATER: pmix_value_cmp_t = 1;
    PMIX_VALUE2_GREATER: pmix_value_cmp_t = 2;
    PMIX_VALUE_TYPE_DIFFERENT: pmix_value_cmp_t = 3;
    PMIX_VALUE_INCOMPATIBLE_OBJECTS: pmix_value_cmp_t = 4;
    PMIX_VALUE_COMPARISON_NOT_AVAIL: pmix_value_cmp_t = 5;

    // pmix_boolean_t (enum)
    PMIX_BOOL_TRUE: pmix_boolean_t = 0;
    PMIX_BOOL_FALSE: pmix_boolean_t = 1;
    PMIX_NON_BOOL: pmix_boolean_t = 2;
}
