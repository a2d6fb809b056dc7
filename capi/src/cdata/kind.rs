//! The one table of C data types: for each `pmix_data_type_t`, how one
//! element of it is laid out in C ([`ElemKind::of`]).
//!
//! Copying, releasing, comparing, printing and converting C data match on
//! the kind this table gives, never on the type tag, so each C type is
//! described once and a new kind cannot be forgotten by any of them (the
//! matches are exhaustive). The few tag-specific meanings on top of the
//! layout (which `Value` variant a `uint8_t` tag is, which name a status
//! prints as) are plain safe mappings next to the code that needs them.
//!
//! The plain scalars ([`Pod`]) are read and written through [`PodValue`],
//! one small unsafe access per C type.

use std::mem::size_of;
use std::os::raw::{c_char, c_void};
use std::ptr::{read_unaligned, write_unaligned};

use crate::types::*;

/// A scalar C element: a byte copy is a deep copy, and it fits in the
/// data union of a `pmix_value_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pod {
    /// C `bool`; any non-zero byte reads as true.
    Bool,
    /// `uint8_t` and the one-byte enums.
    U8,
    /// `int8_t`.
    I8,
    /// `int16_t`.
    I16,
    /// `uint16_t` and the two-byte enums.
    U16,
    /// `int32_t`, `int`, `pid_t`, `pmix_status_t`.
    I32,
    /// `uint32_t`, `unsigned int`, ranks, info directives.
    U32,
    /// `int64_t`, `time_t`.
    I64,
    /// `uint64_t`, `size_t` and the eight-byte enums.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `struct timeval`.
    Timeval,
    /// `void *`, never dereferenced.
    Pointer,
}

/// How one element of a data type is laid out in C, as it sits in a
/// `pmix_data_array_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ElemKind {
    /// A scalar.
    Pod(Pod),
    /// `pmix_proc_t` (owns nothing).
    Proc,
    /// `pmix_nspace_t` (owns nothing).
    Nspace,
    /// `char *`.
    String,
    /// `pmix_byte_object_t`.
    Bytes,
    /// `pmix_envar_t`.
    Envar,
    /// `pmix_proc_info_t`.
    ProcInfo,
    /// `pmix_data_array_t`.
    DataArray,
    /// `pmix_info_t`.
    Info,
    /// `pmix_pdata_t`.
    Pdata,
    /// `pmix_value_t`.
    Value,
    /// `pmix_app_t`.
    App,
    /// `pmix_query_t`.
    Query,
    /// `pmix_coord_t`.
    Coord,
    /// `pmix_geometry_t`.
    Geometry,
    /// `pmix_device_distance_t`.
    DeviceDist,
    /// `pmix_endpoint_t`.
    Endpoint,
    /// `pmix_regattr_t`.
    RegAttr,
    /// `pmix_data_buffer_t`.
    DataBuffer,
    /// `pmix_proc_stats_t`.
    ProcStats,
    /// `pmix_disk_stats_t`.
    DiskStats,
    /// `pmix_net_stats_t`.
    NetStats,
    /// `pmix_node_stats_t`.
    NodeStats,
    /// `pmix_topology_t`: its hwloc object cannot be copied or released
    /// without hwloc.
    Topology,
    /// `pmix_cpuset_t`: as `Topology`.
    Cpuset,
}

impl ElemKind {
    /// The C layout of one element of `ty`; `None` for `PMIX_UNDEF` and for
    /// tags without an element form (unknown ones included).
    #[inline]
    pub(crate) fn of(ty: pmix_data_type_t) -> Option<ElemKind> {
        use ElemKind as K;
        Some(match ty {
            PMIX_BOOL => K::Pod(Pod::Bool),
            PMIX_BYTE | PMIX_UINT8 | PMIX_PERSIST | PMIX_SCOPE | PMIX_DATA_RANGE
            | PMIX_PROC_STATE | PMIX_JOB_STATE | PMIX_ALLOC_DIRECTIVE | PMIX_LINK_STATE => {
                K::Pod(Pod::U8)
            }
            PMIX_INT8 => K::Pod(Pod::I8),
            PMIX_INT16 => K::Pod(Pod::I16),
            PMIX_UINT16
            | PMIX_DATA_TYPE
            | PMIX_IOF_CHANNEL
            | PMIX_LOCTYPE
            | PMIX_STOR_ACCESS_TYPE => K::Pod(Pod::U16),
            PMIX_INT | PMIX_INT32 | PMIX_PID | PMIX_STATUS => K::Pod(Pod::I32),
            PMIX_UINT | PMIX_UINT32 | PMIX_PROC_RANK | PMIX_INFO_DIRECTIVES => K::Pod(Pod::U32),
            PMIX_INT64 | PMIX_TIME => K::Pod(Pod::I64),
            PMIX_SIZE | PMIX_UINT64 | PMIX_DEVTYPE | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS
            | PMIX_STOR_PERSIST => K::Pod(Pod::U64),
            PMIX_FLOAT => K::Pod(Pod::F32),
            PMIX_DOUBLE => K::Pod(Pod::F64),
            PMIX_TIMEVAL => K::Pod(Pod::Timeval),
            PMIX_POINTER => K::Pod(Pod::Pointer),
            PMIX_PROC => K::Proc,
            PMIX_PROC_NSPACE => K::Nspace,
            PMIX_STRING => K::String,
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => K::Bytes,
            PMIX_ENVAR => K::Envar,
            PMIX_PROC_INFO => K::ProcInfo,
            PMIX_DATA_ARRAY => K::DataArray,
            PMIX_INFO => K::Info,
            PMIX_PDATA => K::Pdata,
            PMIX_VALUE => K::Value,
            PMIX_APP => K::App,
            PMIX_QUERY => K::Query,
            PMIX_COORD => K::Coord,
            PMIX_GEOMETRY => K::Geometry,
            PMIX_DEVICE_DIST => K::DeviceDist,
            PMIX_ENDPOINT => K::Endpoint,
            PMIX_REGATTR => K::RegAttr,
            PMIX_DATA_BUFFER => K::DataBuffer,
            PMIX_PROC_STATS => K::ProcStats,
            PMIX_DISK_STATS => K::DiskStats,
            PMIX_NET_STATS => K::NetStats,
            PMIX_NODE_STATS => K::NodeStats,
            PMIX_TOPO => K::Topology,
            PMIX_PROC_CPUSET => K::Cpuset,
            _ => return None,
        })
    }

    /// `sizeof` one element.
    #[inline]
    pub(crate) fn size(self) -> usize {
        use ElemKind as K;
        match self {
            K::Pod(p) => p.size(),
            K::Proc => size_of::<pmix_proc_t>(),
            K::Nspace => size_of::<pmix_nspace_t>(),
            K::String => size_of::<*mut c_char>(),
            K::Bytes => size_of::<pmix_byte_object_t>(),
            K::Envar => size_of::<pmix_envar_t>(),
            K::ProcInfo => size_of::<pmix_proc_info_t>(),
            K::DataArray => size_of::<pmix_data_array_t>(),
            K::Info => size_of::<pmix_info_t>(),
            K::Pdata => size_of::<pmix_pdata_t>(),
            K::Value => size_of::<pmix_value_t>(),
            K::App => size_of::<pmix_app_t>(),
            K::Query => size_of::<pmix_query_t>(),
            K::Coord => size_of::<pmix_coord_t>(),
            K::Geometry => size_of::<pmix_geometry_t>(),
            K::DeviceDist => size_of::<pmix_device_distance_t>(),
            K::Endpoint => size_of::<pmix_endpoint_t>(),
            K::RegAttr => size_of::<pmix_regattr_t>(),
            K::DataBuffer => size_of::<pmix_data_buffer_t>(),
            K::ProcStats => size_of::<pmix_proc_stats_t>(),
            K::DiskStats => size_of::<pmix_disk_stats_t>(),
            K::NetStats => size_of::<pmix_net_stats_t>(),
            K::NodeStats => size_of::<pmix_node_stats_t>(),
            K::Topology => size_of::<pmix_topology_t>(),
            K::Cpuset => size_of::<pmix_cpuset_t>(),
        }
    }

    /// `true` for elements that own no memory: a byte copy is a deep copy
    /// and there is nothing to release.
    #[inline]
    pub(crate) fn is_plain(self) -> bool {
        matches!(self, ElemKind::Pod(_) | ElemKind::Proc | ElemKind::Nspace)
    }

    /// `true` when a `pmix_value_t` can hold the type: every kind but
    /// `pmix_info_t`, `pmix_pdata_t`, `pmix_value_t`, `pmix_app_t` and
    /// `pmix_query_t` (array elements only).
    #[inline]
    pub(crate) fn in_value(self) -> bool {
        use ElemKind as K;
        !matches!(self, K::Info | K::Pdata | K::Value | K::App | K::Query)
    }

    /// `true` when a `pmix_value_t` holds the type through a malloc'd
    /// pointer to one element (`data.proc`, `data.darray`, `data.pinfo`,
    /// ...) rather than inline at the start of its data union.
    #[inline]
    pub(crate) fn boxed_in_value(self) -> bool {
        use ElemKind as K;
        self.in_value() && !matches!(self, K::Pod(_) | K::String | K::Bytes | K::Envar)
    }
}

/// `true` for tags a `pmix_value_t` can hold at all (see
/// [`ElemKind::in_value`]); `PMIX_UNDEF` is representable.
pub(crate) fn in_value(ty: pmix_data_type_t) -> bool {
    ty == PMIX_UNDEF || ElemKind::of(ty).is_some_and(ElemKind::in_value)
}

/// One scalar read from C.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub(crate) enum PodValue {
    /// [`Pod::Bool`].
    Bool(bool),
    /// [`Pod::U8`].
    U8(u8),
    /// [`Pod::I8`].
    I8(i8),
    /// [`Pod::I16`].
    I16(i16),
    /// [`Pod::U16`].
    U16(u16),
    /// [`Pod::I32`].
    I32(i32),
    /// [`Pod::U32`].
    U32(u32),
    /// [`Pod::I64`].
    I64(i64),
    /// [`Pod::U64`].
    U64(u64),
    /// [`Pod::F32`].
    F32(f32),
    /// [`Pod::F64`].
    F64(f64),
    /// [`Pod::Timeval`]: `(tv_sec, tv_usec)`.
    Timeval(libc::time_t, libc::suseconds_t),
    /// [`Pod::Pointer`].
    Pointer(*mut c_void),
}

impl Pod {
    /// `sizeof` the C type.
    pub(crate) fn size(self) -> usize {
        match self {
            Pod::Bool | Pod::U8 | Pod::I8 => 1,
            Pod::I16 | Pod::U16 => 2,
            Pod::I32 | Pod::U32 | Pod::F32 => 4,
            Pod::I64 | Pod::U64 | Pod::F64 => 8,
            Pod::Timeval => size_of::<libc::timeval>(),
            Pod::Pointer => size_of::<*mut c_void>(),
        }
    }

    /// Reads the scalar at `p`.
    ///
    /// # Safety
    /// `p` points to an initialised C object of this kind (any alignment).
    #[inline]
    pub(crate) unsafe fn read(self, p: *const u8) -> PodValue {
        match self {
            // SAFETY: one byte of a C bool (caller guarantee).
            Pod::Bool => PodValue::Bool(unsafe { *p } != 0),
            // SAFETY: one byte (caller guarantee).
            Pod::U8 => PodValue::U8(unsafe { *p }),
            // SAFETY: an int8_t (caller guarantee).
            Pod::I8 => PodValue::I8(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: an int16_t (caller guarantee).
            Pod::I16 => PodValue::I16(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: a uint16_t (caller guarantee).
            Pod::U16 => PodValue::U16(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: an int32_t (caller guarantee).
            Pod::I32 => PodValue::I32(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: a uint32_t (caller guarantee).
            Pod::U32 => PodValue::U32(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: an int64_t (caller guarantee).
            Pod::I64 => PodValue::I64(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: a uint64_t (caller guarantee).
            Pod::U64 => PodValue::U64(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: a float (caller guarantee).
            Pod::F32 => PodValue::F32(unsafe { read_unaligned(p.cast()) }),
            // SAFETY: a double (caller guarantee).
            Pod::F64 => PodValue::F64(unsafe { read_unaligned(p.cast()) }),
            Pod::Timeval => {
                // SAFETY: a struct timeval (caller guarantee).
                let tv: libc::timeval = unsafe { read_unaligned(p.cast()) };
                PodValue::Timeval(tv.tv_sec, tv.tv_usec)
            }
            // SAFETY: a void * (caller guarantee); it is not dereferenced.
            Pod::Pointer => PodValue::Pointer(unsafe { read_unaligned(p.cast()) }),
        }
    }
}

impl PodValue {
    /// Writes the scalar at `p`.
    ///
    /// # Safety
    /// `p` is writable for the scalar's C type (any alignment).
    #[inline]
    pub(crate) unsafe fn write(self, p: *mut u8) {
        match self {
            // SAFETY: one writable byte (caller guarantee).
            PodValue::Bool(b) => unsafe { *p = u8::from(b) },
            // SAFETY: one writable byte (caller guarantee).
            PodValue::U8(x) => unsafe { *p = x },
            // SAFETY: room for an int8_t (caller guarantee).
            PodValue::I8(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for an int16_t (caller guarantee).
            PodValue::I16(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for a uint16_t (caller guarantee).
            PodValue::U16(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for an int32_t (caller guarantee).
            PodValue::I32(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for a uint32_t (caller guarantee).
            PodValue::U32(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for an int64_t (caller guarantee).
            PodValue::I64(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for a uint64_t (caller guarantee).
            PodValue::U64(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for a float (caller guarantee).
            PodValue::F32(x) => unsafe { write_unaligned(p.cast(), x) },
            // SAFETY: room for a double (caller guarantee).
            PodValue::F64(x) => unsafe { write_unaligned(p.cast(), x) },
            PodValue::Timeval(tv_sec, tv_usec) => {
                let tv = libc::timeval { tv_sec, tv_usec };
                // SAFETY: room for a struct timeval (caller guarantee).
                unsafe { write_unaligned(p.cast(), tv) }
            }
            // SAFETY: room for a void * (caller guarantee).
            PodValue::Pointer(x) => unsafe { write_unaligned(p.cast(), x) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes_follow_the_c_types() {
        let size = |ty| ElemKind::of(ty).map(ElemKind::size);
        assert_eq!(size(PMIX_BOOL), Some(1));
        assert_eq!(size(PMIX_TIMEVAL), Some(16));
        assert_eq!(size(PMIX_INFO), Some(552));
        assert_eq!(size(PMIX_PROC), Some(260));
        assert_eq!(size(PMIX_SIZE), Some(8));
        assert_eq!(size(PMIX_UNDEF), None);
        assert_eq!(size(9999), None);
        let kind = |ty| ElemKind::of(ty).unwrap();
        assert!(kind(PMIX_PROC).is_plain() && !kind(PMIX_STRING).is_plain());
        assert!(kind(PMIX_PROC).boxed_in_value() && !kind(PMIX_STRING).boxed_in_value());
        assert!(!kind(PMIX_ENVAR).boxed_in_value() && kind(PMIX_PROC_NSPACE).boxed_in_value());
        assert!(in_value(PMIX_UNDEF) && !in_value(PMIX_INFO) && !in_value(9999));
    }

    #[test]
    fn every_tag_below_the_maximum_has_its_one_row() {
        // The tags the headers define and the table's answer for each: a
        // tag without an element form is only one that has none in C.
        let without = [PMIX_UNDEF, PMIX_KVAL, PMIX_COMMAND];
        for ty in 0..=PMIX_STOR_ACCESS_TYPE {
            let known = ElemKind::of(ty).is_some();
            let has_none = without.contains(&ty) || ty == 26 || ty == 29 || ty == 44;
            assert_eq!(known, !has_none, "tag {ty}");
        }
    }

    #[test]
    fn scalars_round_trip_through_unaligned_bytes() {
        let mut buf = [0u8; 17];
        for v in [
            PodValue::Bool(true),
            PodValue::I16(-2),
            PodValue::U64(u64::MAX),
            PodValue::F64(0.5),
            PodValue::Timeval(3, 4),
        ] {
            let pod = match v {
                PodValue::Bool(_) => Pod::Bool,
                PodValue::I16(_) => Pod::I16,
                PodValue::U64(_) => Pod::U64,
                PodValue::F64(_) => Pod::F64,
                _ => Pod::Timeval,
            };
            // SAFETY: 16 writable and readable bytes at offset 1.
            let back = unsafe {
                v.write(buf.as_mut_ptr().add(1));
                pod.read(buf.as_ptr().add(1))
            };
            assert_eq!(back, v);
        }
    }
}
