//! Deep copy and release of C data in place: `pmix_value_t`, data-array
//! elements and the structs they own, all in libc memory (rule R1).
//!
//! Every C data type is described once: the size of one element as it sits
//! in a `pmix_data_array_t` ([`elem_size`]), how to deep-copy it
//! ([`elem_copy`]) and how to release what it owns ([`elem_destruct`]).
//! A `pmix_value_t` holds a type either inline in its data union or through
//! a malloc'd pointer to one such element ([`is_boxed`]).
//!
//! Types whose payload is an hwloc object (`PMIX_TOPO`, `PMIX_PROC_CPUSET`)
//! cannot be copied without hwloc: copying them is `PMIX_ERR_NOT_SUPPORTED`,
//! and releasing them frees the `source` string and the struct but not the
//! hwloc object.

use std::os::raw::{c_char, c_void};
use std::ptr;

use pmix_core::{Error, Result, Status};

use crate::cmem::{self, argv_dup, argv_free, calloc_array, calloc_one, free, strdup_c};
use crate::types::*;

fn not_supported(ty: pmix_data_type_t) -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!("data type {ty} is not supported here"),
    )
}

/// Size of one element of type `ty` in a `pmix_data_array_t`, or `None` for
/// a type that has no C element representation.
pub(crate) fn elem_size(ty: pmix_data_type_t) -> Option<usize> {
    use std::mem::size_of;
    Some(match ty {
        PMIX_BOOL | PMIX_BYTE | PMIX_INT8 | PMIX_UINT8 | PMIX_PERSIST | PMIX_SCOPE
        | PMIX_DATA_RANGE | PMIX_PROC_STATE | PMIX_JOB_STATE | PMIX_ALLOC_DIRECTIVE
        | PMIX_LINK_STATE => 1,
        PMIX_INT16
        | PMIX_UINT16
        | PMIX_DATA_TYPE
        | PMIX_IOF_CHANNEL
        | PMIX_LOCTYPE
        | PMIX_STOR_ACCESS_TYPE => 2,
        PMIX_PID | PMIX_INT | PMIX_INT32 | PMIX_UINT | PMIX_UINT32 | PMIX_STATUS
        | PMIX_PROC_RANK | PMIX_INFO_DIRECTIVES | PMIX_FLOAT => 4,
        PMIX_SIZE | PMIX_INT64 | PMIX_UINT64 | PMIX_DOUBLE | PMIX_TIME | PMIX_DEVTYPE
        | PMIX_POINTER | PMIX_STOR_MEDIUM | PMIX_STOR_ACCESS | PMIX_STOR_PERSIST => 8,
        PMIX_TIMEVAL => size_of::<libc::timeval>(),
        PMIX_PROC => size_of::<pmix_proc_t>(),
        PMIX_PROC_NSPACE => size_of::<pmix_nspace_t>(),
        PMIX_STRING => size_of::<*mut c_char>(),
        PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT | PMIX_REGEX => {
            size_of::<pmix_byte_object_t>()
        }
        PMIX_ENVAR => size_of::<pmix_envar_t>(),
        PMIX_PROC_INFO => size_of::<pmix_proc_info_t>(),
        PMIX_DATA_ARRAY => size_of::<pmix_data_array_t>(),
        PMIX_INFO => size_of::<pmix_info_t>(),
        PMIX_PDATA => size_of::<pmix_pdata_t>(),
        PMIX_APP => size_of::<pmix_app_t>(),
        PMIX_QUERY => size_of::<pmix_query_t>(),
        PMIX_VALUE => size_of::<pmix_value_t>(),
        PMIX_COORD => size_of::<pmix_coord_t>(),
        PMIX_GEOMETRY => size_of::<pmix_geometry_t>(),
        PMIX_DEVICE_DIST => size_of::<pmix_device_distance_t>(),
        PMIX_ENDPOINT => size_of::<pmix_endpoint_t>(),
        PMIX_REGATTR => size_of::<pmix_regattr_t>(),
        PMIX_DATA_BUFFER => size_of::<pmix_data_buffer_t>(),
        PMIX_PROC_STATS => size_of::<pmix_proc_stats_t>(),
        PMIX_DISK_STATS => size_of::<pmix_disk_stats_t>(),
        PMIX_NET_STATS => size_of::<pmix_net_stats_t>(),
        PMIX_NODE_STATS => size_of::<pmix_node_stats_t>(),
        PMIX_TOPO => size_of::<pmix_topology_t>(),
        PMIX_PROC_CPUSET => size_of::<pmix_cpuset_t>(),
        _ => return None,
    })
}

/// `true` for element types that own no memory: a byte copy is a deep copy.
pub(crate) fn is_pod(ty: pmix_data_type_t) -> bool {
    elem_size(ty).is_some()
        && !matches!(
            ty,
            PMIX_STRING
                | PMIX_BYTE_OBJECT
                | PMIX_COMPRESSED_STRING
                | PMIX_COMPRESSED_BYTE_OBJECT
                | PMIX_REGEX
                | PMIX_ENVAR
                | PMIX_PROC_INFO
                | PMIX_DATA_ARRAY
                | PMIX_INFO
                | PMIX_PDATA
                | PMIX_APP
                | PMIX_QUERY
                | PMIX_VALUE
                | PMIX_COORD
                | PMIX_GEOMETRY
                | PMIX_DEVICE_DIST
                | PMIX_ENDPOINT
                | PMIX_REGATTR
                | PMIX_DATA_BUFFER
                | PMIX_PROC_STATS
                | PMIX_DISK_STATS
                | PMIX_NET_STATS
                | PMIX_NODE_STATS
                | PMIX_TOPO
                | PMIX_PROC_CPUSET
        )
}

/// `true` for types a `pmix_value_t` holds through a malloc'd pointer to
/// one element (`data.proc`, `data.darray`, `data.pinfo`, ...).
pub(crate) fn is_boxed(ty: pmix_data_type_t) -> bool {
    matches!(
        ty,
        PMIX_PROC
            | PMIX_PROC_NSPACE
            | PMIX_PROC_INFO
            | PMIX_DATA_ARRAY
            | PMIX_COORD
            | PMIX_TOPO
            | PMIX_PROC_CPUSET
            | PMIX_GEOMETRY
            | PMIX_DEVICE_DIST
            | PMIX_ENDPOINT
            | PMIX_DATA_BUFFER
            | PMIX_PROC_STATS
            | PMIX_DISK_STATS
            | PMIX_NET_STATS
            | PMIX_NODE_STATS
            | PMIX_REGATTR
    )
}

/// `true` for types a `pmix_value_t` can hold at all: not `PMIX_INFO`,
/// `PMIX_APP`, `PMIX_QUERY`, `PMIX_PDATA`, `PMIX_VALUE` (array elements
/// only) nor an unknown tag. `PMIX_UNDEF` is representable.
pub(crate) fn in_value(ty: pmix_data_type_t) -> bool {
    ty == PMIX_UNDEF
        || (elem_size(ty).is_some()
            && !matches!(
                ty,
                PMIX_INFO | PMIX_APP | PMIX_QUERY | PMIX_PDATA | PMIX_VALUE
            ))
}

/// Releases what one element owns (not the element itself). NULL pointers
/// inside are skipped, so a zeroed or partially copied element is fine.
///
/// # Safety
/// `p` points to one initialised element of type `ty` whose owned pointers
/// are NULL or live libc allocations, not used afterwards.
pub(crate) unsafe fn elem_destruct(ty: pmix_data_type_t, p: *mut u8) {
    // SAFETY: (whole block) `p` points to an element of type `ty` (caller),
    // so each cast below matches the element's C type, and every pointer
    // freed is NULL or a live libc allocation owned by the element.
    unsafe {
        match ty {
            PMIX_STRING => free(*p.cast::<*mut c_char>()),
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => free((*p.cast::<pmix_byte_object_t>()).bytes),
            PMIX_ENVAR => {
                let e = &*p.cast::<pmix_envar_t>();
                free(e.envar);
                free(e.value);
            }
            PMIX_PROC_INFO => {
                let pi = &*p.cast::<pmix_proc_info_t>();
                free(pi.hostname);
                free(pi.executable_name);
            }
            PMIX_DATA_ARRAY => data_array_destruct(p.cast()),
            PMIX_INFO => info_destruct(p.cast()),
            PMIX_PDATA => value_destruct(ptr::addr_of_mut!((*p.cast::<pmix_pdata_t>()).value)),
            PMIX_VALUE => value_destruct(p.cast()),
            PMIX_APP => {
                let a = &*p.cast::<pmix_app_t>();
                free(a.cmd);
                argv_free(a.argv);
                argv_free(a.env);
                free(a.cwd);
                array_free(PMIX_INFO, a.info.cast(), a.ninfo);
            }
            PMIX_QUERY => {
                let q = &*p.cast::<pmix_query_t>();
                argv_free(q.keys);
                array_free(PMIX_INFO, q.qualifiers.cast(), q.nqual);
            }
            PMIX_COORD => free((*p.cast::<pmix_coord_t>()).coord),
            PMIX_GEOMETRY => {
                let g = &*p.cast::<pmix_geometry_t>();
                free(g.uuid);
                free(g.osname);
                array_free(PMIX_COORD, g.coordinates.cast(), g.ncoords);
            }
            PMIX_DEVICE_DIST => {
                let d = &*p.cast::<pmix_device_distance_t>();
                free(d.uuid);
                free(d.osname);
            }
            PMIX_ENDPOINT => {
                let e = &*p.cast::<pmix_endpoint_t>();
                free(e.uuid);
                free(e.osname);
                free(e.endpt.bytes);
            }
            PMIX_REGATTR => {
                let r = &*p.cast::<pmix_regattr_t>();
                free(r.name);
                argv_free(r.description);
            }
            PMIX_DATA_BUFFER => free((*p.cast::<pmix_data_buffer_t>()).base_ptr),
            PMIX_PROC_STATS => {
                let s = &*p.cast::<pmix_proc_stats_t>();
                free(s.node);
                free(s.cmd);
            }
            PMIX_DISK_STATS => free((*p.cast::<pmix_disk_stats_t>()).disk),
            PMIX_NET_STATS => free((*p.cast::<pmix_net_stats_t>()).net_interface),
            PMIX_NODE_STATS => {
                let s = &*p.cast::<pmix_node_stats_t>();
                free(s.node);
                array_free(PMIX_DISK_STATS, s.diskstats.cast(), s.ndiskstats);
                array_free(PMIX_NET_STATS, s.netstats.cast(), s.nnetstats);
            }
            // The hwloc object cannot be released without hwloc.
            PMIX_TOPO => free((*p.cast::<pmix_topology_t>()).source),
            PMIX_PROC_CPUSET => free((*p.cast::<pmix_cpuset_t>()).source),
            _ => {}
        }
    }
}

/// Destructs `n` elements of `ty` at `array` and frees the array.
///
/// # Safety
/// `array` is NULL or a libc allocation of `n` initialised elements of
/// `ty` (see [`elem_destruct`]), not used afterwards.
pub(crate) unsafe fn array_free(ty: pmix_data_type_t, array: *mut u8, n: usize) {
    if array.is_null() {
        return;
    }
    if !is_pod(ty) {
        if let Some(size) = elem_size(ty) {
            for i in 0..n {
                // SAFETY: element `i < n` of the array (caller guarantee).
                unsafe { elem_destruct(ty, array.add(i * size)) };
            }
        }
    }
    // SAFETY: the array is a live libc allocation (caller guarantee).
    unsafe { free(array) };
}

/// A malloc'd deep copy of `n` elements of `ty` at `src`; NULL when `n` is
/// 0 or `src` is NULL.
///
/// # Safety
/// `src` is NULL or points to `n` initialised elements of `ty`.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for a type without element
/// representation or an hwloc type. Nothing is leaked.
pub(crate) unsafe fn array_copy(ty: pmix_data_type_t, src: *const u8, n: usize) -> Result<*mut u8> {
    let size = elem_size(ty).ok_or_else(|| not_supported(ty))?;
    if src.is_null() || n == 0 {
        return Ok(ptr::null_mut());
    }
    let bytes = size.checked_mul(n).ok_or_else(cmem::nomem)?;
    let dst = calloc_array::<u8>(bytes)?;
    if is_pod(ty) {
        // SAFETY: both regions are `bytes` long (caller guarantee for `src`,
        // allocation for `dst`) and distinct.
        unsafe { ptr::copy_nonoverlapping(src, dst, bytes) };
        return Ok(dst);
    }
    for i in 0..n {
        // SAFETY: element `i < n` of both arrays; `dst` is zeroed.
        if let Err(e) = unsafe { elem_copy(ty, dst.add(i * size), src.add(i * size)) } {
            // SAFETY: every element of `dst` is zeroed or fully copied.
            unsafe { array_free(ty, dst, n) };
            return Err(e);
        }
    }
    Ok(dst)
}

/// Deep-copies one element. `dst` must be zeroed; on error it is left
/// destructible (owned pointers NULL or allocated) and the caller releases
/// it with [`elem_destruct`].
///
/// # Safety
/// `src` points to an initialised element of `ty`; `dst` to a zeroed,
/// writable one that does not overlap it.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for unknown and hwloc types.
pub(crate) unsafe fn elem_copy(ty: pmix_data_type_t, dst: *mut u8, src: *const u8) -> Result<()> {
    let size = elem_size(ty).ok_or_else(|| not_supported(ty))?;
    if is_pod(ty) {
        // SAFETY: both are one element of `size` bytes (caller guarantee).
        unsafe { ptr::copy_nonoverlapping(src, dst, size) };
        return Ok(());
    }
    // SAFETY: (whole block) `src`/`dst` point to elements of type `ty`
    // (caller), so each cast matches the C type; every pointer read from
    // `src` is NULL or valid for its C type as the C API requires; `dst`'s
    // owned pointers are written only with fresh libc allocations.
    unsafe {
        match ty {
            PMIX_STRING => *dst.cast::<*mut c_char>() = strdup_c(*src.cast::<*const c_char>())?,
            PMIX_BYTE_OBJECT
            | PMIX_COMPRESSED_STRING
            | PMIX_COMPRESSED_BYTE_OBJECT
            | PMIX_REGEX => bo_copy(&mut *dst.cast(), &*src.cast())?,
            PMIX_ENVAR => {
                let (d, s) = (
                    &mut *dst.cast::<pmix_envar_t>(),
                    &*src.cast::<pmix_envar_t>(),
                );
                d.separator = s.separator;
                d.envar = strdup_c(s.envar)?;
                d.value = strdup_c(s.value)?;
            }
            PMIX_PROC_INFO => {
                let d = &mut *dst.cast::<pmix_proc_info_t>();
                let s = &*src.cast::<pmix_proc_info_t>();
                *d = pmix_proc_info_t {
                    hostname: ptr::null_mut(),
                    executable_name: ptr::null_mut(),
                    ..*s
                };
                d.hostname = strdup_c(s.hostname)?;
                d.executable_name = strdup_c(s.executable_name)?;
            }
            PMIX_DATA_ARRAY => data_array_copy(dst.cast(), src.cast())?,
            PMIX_INFO => info_xfer(dst.cast(), src.cast())?,
            PMIX_PDATA => {
                let d = &mut *dst.cast::<pmix_pdata_t>();
                let s = &*src.cast::<pmix_pdata_t>();
                d.proc_ = s.proc_;
                d.key = s.key;
                value_xfer(&mut d.value, &s.value)?;
            }
            PMIX_VALUE => value_xfer(dst.cast(), src.cast())?,
            PMIX_APP => {
                let d = &mut *dst.cast::<pmix_app_t>();
                let s = &*src.cast::<pmix_app_t>();
                d.maxprocs = s.maxprocs;
                d.cmd = strdup_c(s.cmd)?;
                d.argv = argv_dup(s.argv)?;
                d.env = argv_dup(s.env)?;
                d.cwd = strdup_c(s.cwd)?;
                d.info = array_copy(PMIX_INFO, s.info.cast(), s.ninfo)?.cast();
                d.ninfo = if d.info.is_null() { 0 } else { s.ninfo };
            }
            PMIX_QUERY => {
                let d = &mut *dst.cast::<pmix_query_t>();
                let s = &*src.cast::<pmix_query_t>();
                d.keys = argv_dup(s.keys)?;
                d.qualifiers = array_copy(PMIX_INFO, s.qualifiers.cast(), s.nqual)?.cast();
                d.nqual = if d.qualifiers.is_null() { 0 } else { s.nqual };
            }
            PMIX_COORD => {
                let d = &mut *dst.cast::<pmix_coord_t>();
                let s = &*src.cast::<pmix_coord_t>();
                d.view = s.view;
                d.coord = array_copy(PMIX_UINT32, s.coord.cast(), s.dims)?.cast();
                d.dims = if d.coord.is_null() { 0 } else { s.dims };
            }
            PMIX_GEOMETRY => {
                let d = &mut *dst.cast::<pmix_geometry_t>();
                let s = &*src.cast::<pmix_geometry_t>();
                d.fabric = s.fabric;
                d.uuid = strdup_c(s.uuid)?;
                d.osname = strdup_c(s.osname)?;
                d.coordinates = array_copy(PMIX_COORD, s.coordinates.cast(), s.ncoords)?.cast();
                d.ncoords = if d.coordinates.is_null() {
                    0
                } else {
                    s.ncoords
                };
            }
            PMIX_DEVICE_DIST => {
                let d = &mut *dst.cast::<pmix_device_distance_t>();
                let s = &*src.cast::<pmix_device_distance_t>();
                d.type_ = s.type_;
                d.mindist = s.mindist;
                d.maxdist = s.maxdist;
                d.uuid = strdup_c(s.uuid)?;
                d.osname = strdup_c(s.osname)?;
            }
            PMIX_ENDPOINT => {
                let d = &mut *dst.cast::<pmix_endpoint_t>();
                let s = &*src.cast::<pmix_endpoint_t>();
                d.uuid = strdup_c(s.uuid)?;
                d.osname = strdup_c(s.osname)?;
                bo_copy(&mut d.endpt, &s.endpt)?;
            }
            PMIX_REGATTR => {
                let d = &mut *dst.cast::<pmix_regattr_t>();
                let s = &*src.cast::<pmix_regattr_t>();
                d.string = s.string;
                d.type_ = s.type_;
                d.name = strdup_c(s.name)?;
                d.description = argv_dup(s.description)?;
            }
            PMIX_DATA_BUFFER => {
                let d = &mut *dst.cast::<pmix_data_buffer_t>();
                let s = &*src.cast::<pmix_data_buffer_t>();
                if !s.base_ptr.is_null() && s.bytes_allocated > 0 {
                    let base = calloc_array::<c_char>(s.bytes_allocated)?;
                    let used = s.bytes_used.min(s.bytes_allocated);
                    ptr::copy_nonoverlapping(s.base_ptr, base, used);
                    let offset = |p: *mut c_char| {
                        if p.is_null() {
                            ptr::null_mut()
                        } else {
                            let off = (p as usize).wrapping_sub(s.base_ptr as usize);
                            base.wrapping_add(off.min(s.bytes_allocated))
                        }
                    };
                    *d = pmix_data_buffer_t {
                        base_ptr: base,
                        pack_ptr: offset(s.pack_ptr),
                        unpack_ptr: offset(s.unpack_ptr),
                        bytes_allocated: s.bytes_allocated,
                        bytes_used: used,
                    };
                }
            }
            PMIX_PROC_STATS => {
                let d = &mut *dst.cast::<pmix_proc_stats_t>();
                let s = &*src.cast::<pmix_proc_stats_t>();
                *d = pmix_proc_stats_t {
                    node: ptr::null_mut(),
                    cmd: ptr::null_mut(),
                    ..*s
                };
                d.node = strdup_c(s.node)?;
                d.cmd = strdup_c(s.cmd)?;
            }
            PMIX_DISK_STATS => {
                let d = &mut *dst.cast::<pmix_disk_stats_t>();
                let s = &*src.cast::<pmix_disk_stats_t>();
                *d = pmix_disk_stats_t {
                    disk: ptr::null_mut(),
                    ..*s
                };
                d.disk = strdup_c(s.disk)?;
            }
            PMIX_NET_STATS => {
                let d = &mut *dst.cast::<pmix_net_stats_t>();
                let s = &*src.cast::<pmix_net_stats_t>();
                *d = pmix_net_stats_t {
                    net_interface: ptr::null_mut(),
                    ..*s
                };
                d.net_interface = strdup_c(s.net_interface)?;
            }
            PMIX_NODE_STATS => {
                let d = &mut *dst.cast::<pmix_node_stats_t>();
                let s = &*src.cast::<pmix_node_stats_t>();
                *d = pmix_node_stats_t {
                    node: ptr::null_mut(),
                    diskstats: ptr::null_mut(),
                    ndiskstats: 0,
                    netstats: ptr::null_mut(),
                    nnetstats: 0,
                    ..*s
                };
                d.node = strdup_c(s.node)?;
                d.diskstats = array_copy(PMIX_DISK_STATS, s.diskstats.cast(), s.ndiskstats)?.cast();
                d.ndiskstats = if d.diskstats.is_null() {
                    0
                } else {
                    s.ndiskstats
                };
                d.netstats = array_copy(PMIX_NET_STATS, s.netstats.cast(), s.nnetstats)?.cast();
                d.nnetstats = if d.netstats.is_null() { 0 } else { s.nnetstats };
            }
            _ => return Err(not_supported(ty)),
        }
    }
    Ok(())
}

/// Deep copy of a byte object; NULL bytes or size 0 give `{NULL, 0}`.
fn bo_copy(dst: &mut pmix_byte_object_t, src: &pmix_byte_object_t) -> Result<()> {
    *dst = pmix_byte_object_t {
        bytes: ptr::null_mut(),
        size: 0,
    };
    if src.bytes.is_null() || src.size == 0 {
        return Ok(());
    }
    let bytes = calloc_array::<c_char>(src.size)?;
    // SAFETY: a byte object's `bytes` holds `size` bytes (C API contract);
    // `bytes` is a fresh allocation of the same length.
    unsafe { ptr::copy_nonoverlapping(src.bytes, bytes, src.size) };
    *dst = pmix_byte_object_t {
        bytes,
        size: src.size,
    };
    Ok(())
}

/// `PMIx_Data_array_destruct`: releases the elements and the array, and
/// leaves `{PMIX_UNDEF, 0, NULL}`.
///
/// # Safety
/// `d` is NULL or points to a data array whose `array` is NULL or a libc
/// allocation of `size` initialised elements of `type_`.
pub(crate) unsafe fn data_array_destruct(d: *mut pmix_data_array_t) {
    if d.is_null() {
        return;
    }
    // SAFETY: `d` is a valid data array (caller guarantee).
    let d = unsafe { &mut *d };
    // SAFETY: `array` holds `size` elements of `type_` (caller guarantee).
    unsafe { array_free(d.type_, d.array.cast(), d.size) };
    *d = pmix_data_array_t {
        type_: PMIX_UNDEF,
        size: 0,
        array: ptr::null_mut(),
    };
}

/// Deep copy of a data array into `dst` (whose previous content is
/// overwritten, not released). On error `dst` is `{PMIX_UNDEF, 0, NULL}`.
///
/// # Safety
/// `src` is a valid data array; `dst` is writable.
///
/// # Errors
/// As [`array_copy`].
pub(crate) unsafe fn data_array_copy(
    dst: *mut pmix_data_array_t,
    src: *const pmix_data_array_t,
) -> Result<()> {
    // SAFETY: `src` is a valid data array (caller guarantee).
    let s = unsafe { &*src };
    // SAFETY: as above: `array` holds `size` elements of `type_`.
    let copied = unsafe { array_copy(s.type_, s.array.cast(), s.size) };
    let out = match copied {
        Ok(array) => pmix_data_array_t {
            type_: s.type_,
            size: if array.is_null() { 0 } else { s.size },
            array: array.cast(),
        },
        Err(e) => {
            // SAFETY: `dst` is writable (caller guarantee).
            unsafe {
                *dst = pmix_data_array_t {
                    type_: PMIX_UNDEF,
                    size: 0,
                    array: ptr::null_mut(),
                }
            };
            return Err(e);
        }
    };
    // SAFETY: `dst` is writable (caller guarantee).
    unsafe { *dst = out };
    Ok(())
}

/// `PMIx_Value_destruct`: releases what the value owns and leaves it
/// `PMIX_UNDEF` with zero data.
///
/// # Safety
/// `v` is NULL or a valid value whose owned pointers are NULL or libc
/// allocations not used afterwards.
pub(crate) unsafe fn value_destruct(v: *mut pmix_value_t) {
    if v.is_null() {
        return;
    }
    // SAFETY: `v` is a valid value (caller guarantee).
    let v = unsafe { &mut *v };
    let ty = v.type_;
    if (in_value(ty) && !is_pod(ty)) || is_boxed(ty) {
        let data = ptr::addr_of_mut!(v.data).cast::<u8>();
        if is_boxed(ty) {
            // SAFETY: a boxed type's data is a pointer to one element.
            let p = unsafe { v.data.ptr }.cast::<u8>();
            if !p.is_null() {
                // SAFETY: `p` is a libc allocation of one element of `ty`.
                unsafe {
                    elem_destruct(ty, p);
                    free(p);
                }
            }
        } else {
            // SAFETY: an inline type's element sits at the start of the union.
            unsafe { elem_destruct(ty, data) };
        }
    }
    *v = pmix_value_t::INIT;
}

/// `PMIx_Value_xfer`: deep copy of `src` into `dst` (previous content of
/// `dst` is overwritten, not released). On error `dst` is `PMIX_UNDEF`.
///
/// # Safety
/// `src` is a valid value; `dst` is writable and distinct from `src`.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for a type a value cannot
/// hold and for hwloc types.
pub(crate) unsafe fn value_xfer(dst: *mut pmix_value_t, src: *const pmix_value_t) -> Result<()> {
    // SAFETY: `src` is valid and `dst` writable (caller guarantee).
    let (d, s) = unsafe { (&mut *dst, &*src) };
    *d = pmix_value_t::INIT;
    let ty = s.type_;
    if !in_value(ty) {
        return Err(not_supported(ty));
    }
    if ty == PMIX_UNDEF {
        return Ok(());
    }
    let result = if is_boxed(ty) {
        // SAFETY: a boxed type's data is NULL or a pointer to one element.
        let sp = unsafe { s.data.ptr }.cast::<u8>();
        if sp.is_null() {
            Ok(())
        } else {
            // SAFETY: `sp` points to one element of `ty`.
            unsafe { boxed_copy(ty, sp) }.map(|p| d.data.ptr = p.cast())
        }
    } else {
        let dp = ptr::addr_of_mut!(d.data).cast::<u8>();
        let sp = ptr::addr_of!(s.data).cast::<u8>();
        // SAFETY: an inline type's element sits at the start of both unions,
        // and the destination union is zeroed.
        let r = unsafe { elem_copy(ty, dp, sp) };
        if r.is_err() {
            // SAFETY: `dp` is destructible after a failed copy.
            unsafe { elem_destruct(ty, dp) };
            d.data = pmix_value_data_t::ZERO;
        }
        r
    };
    match result {
        Ok(()) => {
            d.type_ = ty;
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// A malloc'd deep copy of one element.
///
/// # Safety
/// `src` points to one initialised element of `ty`.
unsafe fn boxed_copy(ty: pmix_data_type_t, src: *const u8) -> Result<*mut u8> {
    let size = elem_size(ty).ok_or_else(|| not_supported(ty))?;
    let p = calloc_array::<u8>(size)?;
    // SAFETY: `p` is a zeroed element of `ty`; `src` one initialised element.
    if let Err(e) = unsafe { elem_copy(ty, p, src) } {
        // SAFETY: `p` is destructible after a failed copy, and ours.
        unsafe {
            elem_destruct(ty, p);
            free(p);
        }
        return Err(e);
    }
    Ok(p)
}

/// `PMIx_Value_load`: copies the datum at `data` (a pointer to a C object of
/// type `ty`; for `PMIX_POINTER` the pointer itself) into `v`, overwriting
/// without releasing. NULL `data` gives zero data (and `true` for
/// `PMIX_BOOL`, as OpenPMIx does). On error `v` is `PMIX_UNDEF`.
///
/// # Safety
/// `v` is writable; `data` is NULL or points to an initialised object of
/// the C type of `ty` (a NUL-terminated string for `PMIX_STRING` and
/// `PMIX_PROC_NSPACE`).
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for a type a value cannot
/// hold and for hwloc types.
pub(crate) unsafe fn value_load(
    v: *mut pmix_value_t,
    data: *const c_void,
    ty: pmix_data_type_t,
) -> Result<()> {
    // SAFETY: `v` is writable (caller guarantee).
    let v = unsafe { &mut *v };
    *v = pmix_value_t::INIT;
    if data.is_null() {
        v.type_ = ty;
        if ty == PMIX_BOOL {
            v.data.flag = true;
        }
        return Ok(());
    }
    if !in_value(ty) {
        return Err(not_supported(ty));
    }
    let src = data.cast::<u8>();
    match ty {
        PMIX_UNDEF => {}
        PMIX_POINTER => v.data.ptr = data.cast_mut(),
        // SAFETY: for a string `data` is the C string itself (caller).
        PMIX_STRING => v.data.string = unsafe { strdup_c(data.cast()) }?,
        PMIX_PROC_NSPACE => {
            let ns = calloc_one::<pmix_nspace_t>()?;
            // SAFETY: `data` is a NUL-terminated string: strnlen reads at
            // most PMIX_MAX_NSLEN bytes and stops at its NUL; `ns` is a fresh
            // zeroed pmix_nspace_t.
            unsafe {
                let len = libc::strnlen(data.cast(), PMIX_MAX_NSLEN);
                ptr::copy_nonoverlapping(data.cast::<c_char>(), ns.cast::<c_char>(), len);
            }
            v.data.nspace = ns;
        }
        _ if is_boxed(ty) => {
            // SAFETY: `data` points to one element of `ty` (caller).
            v.data.ptr = unsafe { boxed_copy(ty, src) }?.cast();
        }
        _ => {
            let dp = ptr::addr_of_mut!(v.data).cast::<u8>();
            // SAFETY: `data` points to one element of `ty`; the union is
            // zeroed and holds an inline element of `ty` at its start.
            if let Err(e) = unsafe { elem_copy(ty, dp, src) } {
                // SAFETY: destructible after a failed copy.
                unsafe { elem_destruct(ty, dp) };
                v.data = pmix_value_data_t::ZERO;
                return Err(e);
            }
        }
    }
    v.type_ = ty;
    Ok(())
}

/// `PMIx_Value_unload`, with OpenPMIx 4.2.2's conventions:
///
/// | type | `*data` on entry | result |
/// |---|---|---|
/// | `PMIX_STRING` | any | `*data` = malloc'd copy (NULL for a NULL string), `*sz` = strlen |
/// | byte objects, `PMIX_REGEX` | any | `*data` = the value's own bytes (not a copy), `*sz` = size |
/// | `PMIX_POINTER` | any | `*data` = the pointer |
/// | other pointer types (`PMIX_DATA_ARRAY`, `PMIX_PROC_INFO`, `PMIX_ENVAR`, ...) | any | `*data` = malloc'd deep copy |
/// | scalars, `PMIX_PROC`, `PMIX_PROC_NSPACE` | caller's buffer | copied into it; NULL is `PMIX_ERR_BAD_PARAM` |
///
/// # Safety
/// `v` is a valid value; `data`/`sz` are NULL or writable; a non-NULL
/// `*data` for an inline type has room for the datum.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (see table), `PMIX_ERR_UNKNOWN_DATA_TYPE` for
/// `PMIX_UNDEF`, `PMIX_ERR_NOMEM`, `PMIX_ERR_NOT_SUPPORTED`.
pub(crate) unsafe fn value_unload(
    v: *const pmix_value_t,
    data: *mut *mut c_void,
    sz: *mut usize,
) -> Result<()> {
    if v.is_null() || data.is_null() || sz.is_null() {
        return Err(cmem::bad_param("NULL argument to PMIx_Value_unload"));
    }
    // SAFETY: all three are valid (checked non-NULL; caller guarantee).
    let (v, data, sz) = unsafe { (&*v, &mut *data, &mut *sz) };
    let ty = v.type_;
    match ty {
        PMIX_STRING => {
            // SAFETY: a string value holds NULL or a C string.
            let s = unsafe { v.data.string };
            // SAFETY: as above.
            *data = unsafe { strdup_c(s) }?.cast();
            *sz = if s.is_null() {
                0
            } else {
                // SAFETY: `s` is a non-NULL C string (checked above).
                unsafe { libc::strlen(s) }
            };
        }
        PMIX_BYTE_OBJECT | PMIX_COMPRESSED_STRING | PMIX_COMPRESSED_BYTE_OBJECT | PMIX_REGEX => {
            // SAFETY: these types hold a byte object inline.
            let bo = unsafe { v.data.bo };
            if bo.bytes.is_null() || bo.size == 0 {
                *data = ptr::null_mut();
                *sz = 0;
            } else {
                *data = bo.bytes.cast();
                *sz = bo.size;
            }
        }
        PMIX_POINTER => {
            // SAFETY: a pointer value holds `ptr`.
            *data = unsafe { v.data.ptr };
            *sz = std::mem::size_of::<*mut c_void>();
        }
        PMIX_UNDEF => {
            return Err(if data.is_null() {
                cmem::bad_param("PMIx_Value_unload into NULL")
            } else {
                Error::new(Status::ERR_UNKNOWN_DATA_TYPE)
            });
        }
        PMIX_PROC_NSPACE => {
            if data.is_null() {
                return Err(cmem::bad_param("PMIx_Value_unload of a nspace into NULL"));
            }
            // SAFETY: a nspace value holds NULL or a pointer to a
            // pmix_nspace_t.
            let ns = unsafe { v.data.nspace };
            let bytes = if ns.is_null() {
                &[][..]
            } else {
                // SAFETY: as above.
                cmem::fixed_bytes(unsafe { &*ns })
            };
            // SAFETY: the caller's buffer has room for the namespace (API
            // contract); we write its bytes and a NUL.
            unsafe {
                ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), bytes.len());
                *data.cast::<u8>().add(bytes.len()) = 0;
            }
            *sz = bytes.len();
        }
        _ if (is_boxed(ty) && ty != PMIX_PROC) || ty == PMIX_ENVAR => {
            let size = elem_size(ty).ok_or_else(|| not_supported(ty))?;
            let src = if is_boxed(ty) {
                // SAFETY: a boxed type's data is NULL or one element.
                unsafe { v.data.ptr }.cast::<u8>().cast_const()
            } else {
                ptr::addr_of!(v.data).cast::<u8>()
            };
            if src.is_null() {
                *data = ptr::null_mut();
            } else {
                // SAFETY: `src` points to one element of `ty`.
                *data = unsafe { boxed_copy(ty, src) }?.cast();
            }
            *sz = size;
        }
        _ if is_pod(ty) => {
            if data.is_null() {
                return Err(cmem::bad_param("PMIx_Value_unload into NULL"));
            }
            let size = elem_size(ty).ok_or_else(|| not_supported(ty))?;
            let src = if ty == PMIX_PROC {
                // SAFETY: a proc value holds NULL or one pmix_proc_t.
                let p = unsafe { v.data.proc_ };
                if p.is_null() {
                    return Err(cmem::bad_param("PMIX_PROC value with NULL proc"));
                }
                p.cast::<u8>().cast_const()
            } else {
                ptr::addr_of!(v.data).cast::<u8>()
            };
            // SAFETY: `src` holds one element of `size` bytes; the caller's
            // buffer has room for it (API contract).
            unsafe { ptr::copy_nonoverlapping(src, data.cast::<u8>(), size) };
            *sz = size;
        }
        _ => return Err(not_supported(ty)),
    }
    Ok(())
}

/// `PMIX_INFO_DESTRUCT`: releases the value unless the info is marked
/// `PMIX_INFO_PERSISTENT`.
///
/// # Safety
/// `i` is NULL or a valid info (see [`value_destruct`]).
pub(crate) unsafe fn info_destruct(i: *mut pmix_info_t) {
    if i.is_null() {
        return;
    }
    // SAFETY: `i` is a valid info (caller guarantee).
    let i = unsafe { &mut *i };
    if i.flags & PMIX_INFO_PERSISTENT == 0 {
        // SAFETY: the info owns its value.
        unsafe { value_destruct(&mut i.value) };
    }
}

/// `PMIx_Info_xfer`: copies key and flags and deep-copies the value; an
/// info marked `PMIX_INFO_PERSISTENT` is copied shallowly (its value stays
/// owned by its creator), as OpenPMIx does.
///
/// # Safety
/// `src` is a valid info; `dst` is writable and distinct.
///
/// # Errors
/// As [`value_xfer`].
pub(crate) unsafe fn info_xfer(dst: *mut pmix_info_t, src: *const pmix_info_t) -> Result<()> {
    // SAFETY: valid/writable (caller guarantee).
    let (d, s) = unsafe { (&mut *dst, &*src) };
    if s.flags & PMIX_INFO_PERSISTENT != 0 {
        *d = *s;
        return Ok(());
    }
    d.key = s.key;
    d.flags = s.flags;
    // SAFETY: forwarded: `s.value` valid, `d.value` writable and distinct.
    unsafe { value_xfer(&mut d.value, &s.value) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes_follow_the_c_types() {
        assert_eq!(elem_size(PMIX_BOOL), Some(1));
        assert_eq!(elem_size(PMIX_TIMEVAL), Some(16));
        assert_eq!(elem_size(PMIX_INFO), Some(552));
        assert_eq!(elem_size(PMIX_PROC), Some(260));
        assert_eq!(elem_size(9999), None);
        assert!(is_pod(PMIX_PROC) && !is_pod(PMIX_STRING));
        assert!(is_boxed(PMIX_PROC) && !is_boxed(PMIX_STRING));
        assert!(in_value(PMIX_UNDEF) && !in_value(PMIX_INFO) && !in_value(9999));
    }

    #[test]
    fn load_xfer_destruct_a_nested_array() {
        let mut infos = [pmix_info_t::INIT; 2];
        cmem::load_key(&mut infos[0].key, b"k1");
        let s = c"v1";
        let n = 7u32;
        // SAFETY: the values are writable and the data pointers are a C
        // string and a u32, matching the types.
        unsafe {
            value_load(&mut infos[0].value, s.as_ptr().cast(), PMIX_STRING).unwrap();
            value_load(&mut infos[1].value, ptr::addr_of!(n).cast(), PMIX_UINT32).unwrap();
        }
        let darray = pmix_data_array_t {
            type_: PMIX_INFO,
            size: 2,
            array: infos.as_mut_ptr().cast(),
        };
        let mut a = pmix_value_t::INIT;
        let mut b = pmix_value_t::INIT;
        // SAFETY: `darray` is a valid data array of 2 infos; `a`/`b` are
        // writable values, released below.
        unsafe {
            value_load(&mut a, ptr::addr_of!(darray).cast(), PMIX_DATA_ARRAY).unwrap();
            value_xfer(&mut b, &a).unwrap();
            let copy = &*b.data.darray;
            assert_eq!((copy.type_, copy.size), (PMIX_INFO, 2));
            let elems = copy.array.cast::<pmix_info_t>();
            assert_ne!((*elems).value.data.string, infos[0].value.data.string);
            assert_eq!((*elems.add(1)).value.data.uint32, 7);
            value_destruct(&mut a);
            value_destruct(&mut b);
            value_destruct(&mut infos[0].value);
        }
        assert_eq!(a.type_, PMIX_UNDEF);
    }

    #[test]
    fn null_data_loads_zero_and_true_for_bool() {
        let mut v = pmix_value_t::INIT;
        // SAFETY: `v` is writable; NULL data is allowed.
        unsafe { value_load(&mut v, ptr::null(), PMIX_BOOL).unwrap() };
        // SAFETY: the union was written with `flag`.
        assert!(unsafe { v.data.byte } == 1);
        // SAFETY: as above.
        unsafe { value_load(&mut v, ptr::null(), PMIX_STRING).unwrap() };
        // SAFETY: zero data.
        assert!(unsafe { v.data.string }.is_null());
        let x = 1u8;
        // SAFETY: `x` is a valid u8 but PMIX_INFO cannot be held by a value.
        let e = unsafe { value_load(&mut v, ptr::addr_of!(x).cast(), PMIX_INFO) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        assert_eq!(v.type_, PMIX_UNDEF);
    }
}
