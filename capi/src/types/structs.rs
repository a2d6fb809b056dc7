//! The `repr(C)` structs of `pmix_common.h` and the data union of
//! `pmix_value_t`, with compile-time checks of the sizes and offsets the C
//! ABI depends on (x86_64, the layout of Debian's OpenPMIx 4.2.2 headers;
//! `tests/c/layout.c` compares every field with a C compiler's numbers).
#![allow(non_camel_case_types)]

use std::fmt;
use std::os::raw::{c_char, c_int, c_uint, c_void};

use super::*;

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
        // ZERO and the loaders in `cdata`).
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

// The layout every struct above must have (a C compiler's `sizeof`,
// `_Alignof` and `offsetof` with Debian's headers). The `pmix_value_t` data
// union is 24 bytes at offset 8, every member at its start.
c_layout! {
    pmix_proc_t (260, 4) { nspace: 0, rank: 256 }
    pmix_byte_object_t (16, 8) { bytes: 0, size: 8 }
    pmix_data_array_t (24, 8) { type_: 0, size: 8, array: 16 }
    pmix_envar_t (24, 8) { envar: 0, value: 8, separator: 16 }
    pmix_coord_t (24, 8) { view: 0, coord: 8, dims: 16 }
    pmix_cpuset_t (16, 8) { source: 0, bitmap: 8 }
    pmix_topology_t (16, 8) { source: 0, topology: 8 }
    pmix_geometry_t (40, 8) { fabric: 0, uuid: 8, osname: 16, coordinates: 24, ncoords: 32 }
    pmix_device_distance_t (32, 8) { uuid: 0, osname: 8, type_: 16, mindist: 24, maxdist: 26 }
    pmix_endpoint_t (32, 8) { uuid: 0, osname: 8, endpt: 16 }
    pmix_proc_info_t (296, 8) {
        proc_: 0, hostname: 264, executable_name: 272, pid: 280, exit_code: 284, state: 288,
    }
    pmix_data_buffer_t (40, 8) {
        base_ptr: 0, pack_ptr: 8, unpack_ptr: 16, bytes_allocated: 24, bytes_used: 32,
    }
    pmix_proc_stats_t (352, 8) {
        node: 0, proc_: 8, pid: 268, cmd: 272, state: 280, time: 288, percent_cpu: 304,
        priority: 308, num_threads: 312, pss: 316, vsize: 320, rss: 324, peak_vsize: 328,
        processor: 332, sample_time: 336,
    }
    pmix_disk_stats_t (96, 8) {
        disk: 0, num_reads_completed: 8, num_reads_merged: 16, num_sectors_read: 24,
        milliseconds_reading: 32, num_writes_completed: 40, num_writes_merged: 48,
        num_sectors_written: 56, milliseconds_writing: 64, num_ios_in_progress: 72,
        milliseconds_io: 80, weighted_milliseconds_io: 88,
    }
    pmix_net_stats_t (56, 8) {
        net_interface: 0, num_bytes_recvd: 8, num_packets_recvd: 16, num_recv_errs: 24,
        num_bytes_sent: 32, num_packets_sent: 40, num_send_errs: 48,
    }
    pmix_node_stats_t (104, 8) {
        node: 0, la: 8, la5: 12, la15: 16, total_mem: 20, free_mem: 24, buffers: 28, cached: 32,
        swap_cached: 36, swap_total: 40, swap_free: 44, mapped: 48, sample_time: 56,
        diskstats: 72, ndiskstats: 80, netstats: 88, nnetstats: 96,
    }
    pmix_value_t (32, 8) { type_: 0, data: 8 }
    pmix_info_t (552, 8) { key: 0, flags: 512, value: 520 }
    pmix_pdata_t (808, 8) { proc_: 0, key: 260, value: 776 }
    pmix_app_t (56, 8) { cmd: 0, argv: 8, env: 16, cwd: 24, maxprocs: 32, info: 40, ninfo: 48 }
    pmix_query_t (24, 8) { keys: 0, qualifiers: 8, nqual: 16 }
    pmix_regattr_t (536, 8) { name: 0, string: 8, type_: 520, description: 528 }
    pmix_fabric_t (40, 8) { name: 0, index: 8, info: 16, ninfo: 24, module: 32 }
    pmix_value_data_t (24, 8) { }
}
