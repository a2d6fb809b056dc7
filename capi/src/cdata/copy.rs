//! Deep copies of C data in libc memory (rule R1 of docs/CAPI.md): one
//! element ([`elem_copy`]), arrays, data arrays, values and infos.
//!
//! A failed copy leaves its destination destructible (every owned pointer
//! NULL or allocated) and releases what it made; nothing is leaked.
//! Copying an hwloc type (`PMIX_TOPO`, `PMIX_PROC_CPUSET`) is
//! `PMIX_ERR_NOT_SUPPORTED`: its object cannot be copied without hwloc.

use std::os::raw::c_char;
use std::ptr;

use pmix_core::{Error, Result, Status};

use super::free::{array_free, elem_destruct, EMPTY_ARRAY};
use super::kind::{in_value, ElemKind};
use crate::cmem::{self, argv_dup, calloc_array, free, strdup_c};
use crate::types::*;

/// `PMIX_ERR_NOT_SUPPORTED` for a data type.
pub(crate) fn not_supported(ty: pmix_data_type_t) -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!("data type {ty} is not supported here"),
    )
}

/// The element kind of `ty`, or `PMIX_ERR_NOT_SUPPORTED`.
pub(crate) fn kind_of(ty: pmix_data_type_t) -> Result<ElemKind> {
    ElemKind::of(ty).ok_or_else(|| not_supported(ty))
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
    let kind = kind_of(ty)?;
    if src.is_null() || n == 0 {
        return Ok(ptr::null_mut());
    }
    let size = kind.size();
    let bytes = size.checked_mul(n).ok_or_else(cmem::nomem)?;
    let dst = calloc_array::<u8>(bytes)?;
    if kind.is_plain() {
        // SAFETY: both regions are `bytes` long (caller guarantee for `src`,
        // allocation for `dst`) and distinct.
        unsafe { ptr::copy_nonoverlapping(src, dst, bytes) };
        return Ok(dst);
    }
    for i in 0..n {
        // SAFETY: element `i < n` of both arrays; `dst` is zeroed.
        if let Err(e) = unsafe { elem_copy(kind, dst.add(i * size), src.add(i * size)) } {
            // SAFETY: every element of `dst` is zeroed or fully copied.
            unsafe { array_free(ty, dst, n) };
            return Err(e);
        }
    }
    Ok(dst)
}

/// Deep-copies one element. `dst` must be zeroed; on error it is left
/// destructible and the caller releases it with [`elem_destruct`].
///
/// # Safety
/// `src` points to an initialised element of `kind` whose pointers are
/// NULL or valid for their C types; `dst` to a zeroed, writable one that
/// does not overlap it.
///
/// # Errors
/// `PMIX_ERR_NOMEM`; `PMIX_ERR_NOT_SUPPORTED` for the hwloc kinds.
pub(crate) unsafe fn elem_copy(kind: ElemKind, dst: *mut u8, src: *const u8) -> Result<()> {
    use ElemKind as K;
    match kind {
        K::Pod(_) | K::Proc | K::Nspace => {
            // SAFETY: both are one element of `size` bytes (caller guarantee).
            unsafe { ptr::copy_nonoverlapping(src, dst, kind.size()) };
        }
        K::String => {
            // SAFETY: a `char *` element holding NULL or a C string.
            let s = unsafe { *src.cast::<*const c_char>() };
            // SAFETY: as above; `dst` is a writable `char *` slot.
            unsafe { *dst.cast::<*mut c_char>() = strdup_c(s)? };
        }
        // SAFETY: both are byte objects (caller guarantee).
        K::Bytes => unsafe { bo_copy(&mut *dst.cast(), &*src.cast())? },
        K::Envar => {
            // SAFETY: both are `pmix_envar_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_envar_t>(),
                    &*src.cast::<pmix_envar_t>(),
                )
            };
            d.separator = s.separator;
            // SAFETY: the strings are NULL or C strings.
            unsafe { dup_all(&mut [(&mut d.envar, s.envar), (&mut d.value, s.value)])? };
        }
        K::ProcInfo => {
            // SAFETY: both are `pmix_proc_info_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_proc_info_t>(),
                    &*src.cast::<pmix_proc_info_t>(),
                )
            };
            *d = pmix_proc_info_t {
                hostname: ptr::null_mut(),
                executable_name: ptr::null_mut(),
                ..*s
            };
            // SAFETY: the strings are NULL or C strings.
            unsafe {
                dup_all(&mut [
                    (&mut d.hostname, s.hostname),
                    (&mut d.executable_name, s.executable_name),
                ])?
            };
        }
        // SAFETY: both are `pmix_data_array_t` (caller guarantee).
        K::DataArray => unsafe { data_array_copy(dst.cast(), src.cast())? },
        // SAFETY: both are `pmix_info_t` (caller guarantee).
        K::Info => unsafe { info_xfer(dst.cast(), src.cast())? },
        K::Pdata => {
            // SAFETY: both are `pmix_pdata_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_pdata_t>(),
                    &*src.cast::<pmix_pdata_t>(),
                )
            };
            d.proc_ = s.proc_;
            d.key = s.key;
            // SAFETY: a valid value and a distinct writable one.
            unsafe { value_xfer(&mut d.value, &s.value)? };
        }
        // SAFETY: both are `pmix_value_t` (caller guarantee).
        K::Value => unsafe { value_xfer(dst.cast(), src.cast())? },
        K::App => {
            // SAFETY: both are `pmix_app_t` (caller guarantee).
            let (d, s) = unsafe { (&mut *dst.cast::<pmix_app_t>(), &*src.cast::<pmix_app_t>()) };
            d.maxprocs = s.maxprocs;
            // SAFETY: NULL or C strings, NULL-terminated argvs and `ninfo`
            // infos, as the C API defines an app.
            unsafe {
                d.cmd = strdup_c(s.cmd)?;
                d.argv = argv_dup(s.argv)?;
                d.env = argv_dup(s.env)?;
                d.cwd = strdup_c(s.cwd)?;
                d.info = array_copy(PMIX_INFO, s.info.cast(), s.ninfo)?.cast();
            }
            d.ninfo = if d.info.is_null() { 0 } else { s.ninfo };
        }
        K::Query => {
            // SAFETY: both are `pmix_query_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_query_t>(),
                    &*src.cast::<pmix_query_t>(),
                )
            };
            // SAFETY: a NULL-terminated argv and `nqual` infos.
            unsafe {
                d.keys = argv_dup(s.keys)?;
                d.qualifiers = array_copy(PMIX_INFO, s.qualifiers.cast(), s.nqual)?.cast();
            }
            d.nqual = if d.qualifiers.is_null() { 0 } else { s.nqual };
        }
        K::Coord => {
            // SAFETY: both are `pmix_coord_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_coord_t>(),
                    &*src.cast::<pmix_coord_t>(),
                )
            };
            d.view = s.view;
            // SAFETY: `coord` holds `dims` uint32_t.
            d.coord = unsafe { array_copy(PMIX_UINT32, s.coord.cast(), s.dims) }?.cast();
            d.dims = if d.coord.is_null() { 0 } else { s.dims };
        }
        K::Geometry => {
            // SAFETY: both are `pmix_geometry_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_geometry_t>(),
                    &*src.cast::<pmix_geometry_t>(),
                )
            };
            d.fabric = s.fabric;
            // SAFETY: NULL or C strings and `ncoords` coordinates.
            unsafe {
                dup_all(&mut [(&mut d.uuid, s.uuid), (&mut d.osname, s.osname)])?;
                d.coordinates = array_copy(PMIX_COORD, s.coordinates.cast(), s.ncoords)?.cast();
            }
            d.ncoords = if d.coordinates.is_null() {
                0
            } else {
                s.ncoords
            };
        }
        K::DeviceDist => {
            // SAFETY: both are `pmix_device_distance_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_device_distance_t>(),
                    &*src.cast::<pmix_device_distance_t>(),
                )
            };
            (d.type_, d.mindist, d.maxdist) = (s.type_, s.mindist, s.maxdist);
            // SAFETY: NULL or C strings.
            unsafe { dup_all(&mut [(&mut d.uuid, s.uuid), (&mut d.osname, s.osname)])? };
        }
        K::Endpoint => {
            // SAFETY: both are `pmix_endpoint_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_endpoint_t>(),
                    &*src.cast::<pmix_endpoint_t>(),
                )
            };
            // SAFETY: NULL or C strings, and a byte object.
            unsafe { dup_all(&mut [(&mut d.uuid, s.uuid), (&mut d.osname, s.osname)])? };
            bo_copy(&mut d.endpt, &s.endpt)?;
        }
        K::RegAttr => {
            // SAFETY: both are `pmix_regattr_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_regattr_t>(),
                    &*src.cast::<pmix_regattr_t>(),
                )
            };
            (d.string, d.type_) = (s.string, s.type_);
            // SAFETY: NULL or a C string and a NULL-terminated argv.
            unsafe {
                d.name = strdup_c(s.name)?;
                d.description = argv_dup(s.description)?;
            }
        }
        K::DataBuffer => {
            // SAFETY: both are `pmix_data_buffer_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_data_buffer_t>(),
                    &*src.cast::<pmix_data_buffer_t>(),
                )
            };
            // SAFETY: `base_ptr` is NULL or holds `bytes_allocated` bytes.
            unsafe { buffer_copy(d, s)? };
        }
        K::ProcStats => {
            // SAFETY: both are `pmix_proc_stats_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_proc_stats_t>(),
                    &*src.cast::<pmix_proc_stats_t>(),
                )
            };
            *d = pmix_proc_stats_t {
                node: ptr::null_mut(),
                cmd: ptr::null_mut(),
                ..*s
            };
            // SAFETY: NULL or C strings.
            unsafe { dup_all(&mut [(&mut d.node, s.node), (&mut d.cmd, s.cmd)])? };
        }
        K::DiskStats => {
            // SAFETY: both are `pmix_disk_stats_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_disk_stats_t>(),
                    &*src.cast::<pmix_disk_stats_t>(),
                )
            };
            *d = pmix_disk_stats_t {
                disk: ptr::null_mut(),
                ..*s
            };
            // SAFETY: NULL or a C string.
            d.disk = unsafe { strdup_c(s.disk) }?;
        }
        K::NetStats => {
            // SAFETY: both are `pmix_net_stats_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_net_stats_t>(),
                    &*src.cast::<pmix_net_stats_t>(),
                )
            };
            *d = pmix_net_stats_t {
                net_interface: ptr::null_mut(),
                ..*s
            };
            // SAFETY: NULL or a C string.
            d.net_interface = unsafe { strdup_c(s.net_interface) }?;
        }
        K::NodeStats => {
            // SAFETY: both are `pmix_node_stats_t` (caller guarantee).
            let (d, s) = unsafe {
                (
                    &mut *dst.cast::<pmix_node_stats_t>(),
                    &*src.cast::<pmix_node_stats_t>(),
                )
            };
            *d = pmix_node_stats_t {
                node: ptr::null_mut(),
                diskstats: ptr::null_mut(),
                ndiskstats: 0,
                netstats: ptr::null_mut(),
                nnetstats: 0,
                ..*s
            };
            // SAFETY: NULL or a C string and arrays of their counts.
            unsafe {
                d.node = strdup_c(s.node)?;
                d.diskstats = array_copy(PMIX_DISK_STATS, s.diskstats.cast(), s.ndiskstats)?.cast();
                d.ndiskstats = if d.diskstats.is_null() {
                    0
                } else {
                    s.ndiskstats
                };
                d.netstats = array_copy(PMIX_NET_STATS, s.netstats.cast(), s.nnetstats)?.cast();
            }
            d.nnetstats = if d.netstats.is_null() { 0 } else { s.nnetstats };
        }
        K::Topology => return Err(not_supported(PMIX_TOPO)),
        K::Cpuset => return Err(not_supported(PMIX_PROC_CPUSET)),
    }
    Ok(())
}

/// `strdup`s each source string into its destination, in order; stops at
/// the first failure (the destinations written so far stay owned).
///
/// # Safety
/// Each source is NULL or a C string.
unsafe fn dup_all(pairs: &mut [(&mut *mut c_char, *mut c_char)]) -> Result<()> {
    for (d, s) in pairs.iter_mut() {
        // SAFETY: NULL or a C string (caller guarantee).
        **d = unsafe { strdup_c(*s) }?;
    }
    Ok(())
}

/// Deep copy of a byte object; NULL bytes or size 0 give `{NULL, 0}`.
pub(crate) fn bo_copy(dst: &mut pmix_byte_object_t, src: &pmix_byte_object_t) -> Result<()> {
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

/// Deep copy of a data buffer: its allocation and cursors at the same
/// offsets (clamped to the allocation). An empty buffer stays zero.
///
/// # Safety
/// `s.base_ptr` is NULL or holds `s.bytes_allocated` readable bytes.
unsafe fn buffer_copy(d: &mut pmix_data_buffer_t, s: &pmix_data_buffer_t) -> Result<()> {
    if s.base_ptr.is_null() || s.bytes_allocated == 0 {
        return Ok(());
    }
    let base = calloc_array::<c_char>(s.bytes_allocated)?;
    let used = s.bytes_used.min(s.bytes_allocated);
    // SAFETY: `used <= bytes_allocated` bytes are readable at `base_ptr`
    // (caller guarantee) and writable at the fresh `base`.
    unsafe { ptr::copy_nonoverlapping(s.base_ptr, base, used) };
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
    Ok(())
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
    let (out, r) = match copied {
        Ok(array) => (
            pmix_data_array_t {
                type_: s.type_,
                size: if array.is_null() { 0 } else { s.size },
                array: array.cast(),
            },
            Ok(()),
        ),
        Err(e) => (EMPTY_ARRAY, Err(e)),
    };
    // SAFETY: `dst` is writable (caller guarantee).
    unsafe { *dst = out };
    r
}

/// A malloc'd deep copy of one element of `kind`.
///
/// # Safety
/// `src` points to one initialised element of `kind`.
///
/// # Errors
/// As [`elem_copy`].
pub(crate) unsafe fn boxed_copy(kind: ElemKind, src: *const u8) -> Result<*mut u8> {
    let p = calloc_array::<u8>(kind.size())?;
    // SAFETY: `p` is a zeroed element of `kind`; `src` one initialised element.
    if let Err(e) = unsafe { elem_copy(kind, p, src) } {
        // SAFETY: `p` is destructible after a failed copy, and ours.
        unsafe {
            elem_destruct(kind, p);
            free(p);
        }
        return Err(e);
    }
    Ok(p)
}

/// Copies one element of `kind` at `src` into the zeroed inline data
/// union of `v`; on error the union is zero again.
///
/// # Safety
/// `src` points to one initialised element of `kind`, an inline kind of a
/// value (not [`ElemKind::boxed_in_value`]).
pub(crate) unsafe fn inline_copy(
    kind: ElemKind,
    v: &mut pmix_value_t,
    src: *const u8,
) -> Result<()> {
    let dp = ptr::addr_of_mut!(v.data).cast::<u8>();
    // SAFETY: an inline element fits at the start of the zeroed union.
    let r = unsafe { elem_copy(kind, dp, src) };
    if r.is_err() {
        // SAFETY: destructible after a failed copy.
        unsafe { elem_destruct(kind, dp) };
        v.data = pmix_value_data_t::ZERO;
    }
    r
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
    let Some(kind) = ElemKind::of(ty) else {
        return Ok(()); // PMIX_UNDEF
    };
    if kind.boxed_in_value() {
        // SAFETY: a boxed type's data is NULL or a pointer to one element.
        let sp = unsafe { s.data.ptr }.cast::<u8>();
        if !sp.is_null() {
            // SAFETY: `sp` points to one element of `kind`.
            d.data.ptr = unsafe { boxed_copy(kind, sp) }?.cast();
        }
    } else {
        // SAFETY: an inline element sits at the start of the source union.
        unsafe { inline_copy(kind, d, ptr::addr_of!(s.data).cast()) }?;
    }
    d.type_ = ty;
    Ok(())
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
