//! Releasing C data in place: what one element owns ([`elem_destruct`]),
//! arrays, data arrays, values and infos. Everything freed is libc memory
//! (rule R1 of docs/CAPI.md); NULL pointers inside are skipped, so a
//! zeroed or partially copied element is fine to release.
//!
//! Types whose payload is an hwloc object (`PMIX_TOPO`, `PMIX_PROC_CPUSET`)
//! release their `source` string but not the hwloc object, which cannot
//! be released without hwloc.

use std::os::raw::c_char;
use std::ptr;

use super::kind::ElemKind;
use crate::cmem::{argv_free, free};
use crate::types::*;

/// Releases what one element owns (not the element itself).
///
/// # Safety
/// `p` points to one initialised element of `kind` whose owned pointers
/// are NULL or live libc allocations, not used afterwards.
pub(crate) unsafe fn elem_destruct(kind: ElemKind, p: *mut u8) {
    use ElemKind as K;
    match kind {
        K::Pod(_) | K::Proc | K::Nspace => {}
        // SAFETY: a `char *` element owning its string (caller guarantee).
        K::String => unsafe { free(*p.cast::<*mut c_char>()) },
        // SAFETY: a byte object owning its bytes (caller guarantee).
        K::Bytes => unsafe { free((*p.cast::<pmix_byte_object_t>()).bytes) },
        K::Envar => {
            // SAFETY: a `pmix_envar_t` owning both strings (caller guarantee).
            let e = unsafe { &*p.cast::<pmix_envar_t>() };
            // SAFETY: as above.
            unsafe { free_all(&[e.envar, e.value]) };
        }
        K::ProcInfo => {
            // SAFETY: a `pmix_proc_info_t` owning its strings (caller guarantee).
            let pi = unsafe { &*p.cast::<pmix_proc_info_t>() };
            // SAFETY: as above.
            unsafe { free_all(&[pi.hostname, pi.executable_name]) };
        }
        // SAFETY: a `pmix_data_array_t` (caller guarantee).
        K::DataArray => unsafe { data_array_destruct(p.cast()) },
        // SAFETY: a `pmix_info_t` (caller guarantee).
        K::Info => unsafe { info_destruct(p.cast()) },
        // SAFETY: a `pmix_pdata_t` owning its value (caller guarantee).
        K::Pdata => unsafe { value_destruct(ptr::addr_of_mut!((*p.cast::<pmix_pdata_t>()).value)) },
        // SAFETY: a `pmix_value_t` (caller guarantee).
        K::Value => unsafe { value_destruct(p.cast()) },
        K::App => {
            // SAFETY: a `pmix_app_t` owning its strings, argvs and infos
            // (caller guarantee).
            let a = unsafe { &*p.cast::<pmix_app_t>() };
            // SAFETY: as above.
            unsafe {
                free_all(&[a.cmd, a.cwd]);
                argv_free(a.argv);
                argv_free(a.env);
                array_free(PMIX_INFO, a.info.cast(), a.ninfo);
            }
        }
        K::Query => {
            // SAFETY: a `pmix_query_t` owning its keys and qualifiers.
            let q = unsafe { &*p.cast::<pmix_query_t>() };
            // SAFETY: as above.
            unsafe {
                argv_free(q.keys);
                array_free(PMIX_INFO, q.qualifiers.cast(), q.nqual);
            }
        }
        // SAFETY: a `pmix_coord_t` owning its coordinates.
        K::Coord => unsafe { free((*p.cast::<pmix_coord_t>()).coord) },
        K::Geometry => {
            // SAFETY: a `pmix_geometry_t` owning its strings and coordinates.
            let g = unsafe { &*p.cast::<pmix_geometry_t>() };
            // SAFETY: as above.
            unsafe {
                free_all(&[g.uuid, g.osname]);
                array_free(PMIX_COORD, g.coordinates.cast(), g.ncoords);
            }
        }
        K::DeviceDist => {
            // SAFETY: a `pmix_device_distance_t` owning its strings.
            let d = unsafe { &*p.cast::<pmix_device_distance_t>() };
            // SAFETY: as above.
            unsafe { free_all(&[d.uuid, d.osname]) };
        }
        K::Endpoint => {
            // SAFETY: a `pmix_endpoint_t` owning its strings and bytes.
            let e = unsafe { &*p.cast::<pmix_endpoint_t>() };
            // SAFETY: as above.
            unsafe { free_all(&[e.uuid, e.osname, e.endpt.bytes]) };
        }
        K::RegAttr => {
            // SAFETY: a `pmix_regattr_t` owning its name and description.
            let r = unsafe { &*p.cast::<pmix_regattr_t>() };
            // SAFETY: as above.
            unsafe {
                free(r.name);
                argv_free(r.description);
            }
        }
        // SAFETY: a `pmix_data_buffer_t` owning its payload.
        K::DataBuffer => unsafe { free((*p.cast::<pmix_data_buffer_t>()).base_ptr) },
        K::ProcStats => {
            // SAFETY: a `pmix_proc_stats_t` owning its strings.
            let s = unsafe { &*p.cast::<pmix_proc_stats_t>() };
            // SAFETY: as above.
            unsafe { free_all(&[s.node, s.cmd]) };
        }
        // SAFETY: a `pmix_disk_stats_t` owning its name.
        K::DiskStats => unsafe { free((*p.cast::<pmix_disk_stats_t>()).disk) },
        // SAFETY: a `pmix_net_stats_t` owning its name.
        K::NetStats => unsafe { free((*p.cast::<pmix_net_stats_t>()).net_interface) },
        K::NodeStats => {
            // SAFETY: a `pmix_node_stats_t` owning its name and stats arrays.
            let s = unsafe { &*p.cast::<pmix_node_stats_t>() };
            // SAFETY: as above.
            unsafe {
                free(s.node);
                array_free(PMIX_DISK_STATS, s.diskstats.cast(), s.ndiskstats);
                array_free(PMIX_NET_STATS, s.netstats.cast(), s.nnetstats);
            }
        }
        // SAFETY: a `pmix_topology_t` owning its source string; the hwloc
        // object is left alone.
        K::Topology => unsafe { free((*p.cast::<pmix_topology_t>()).source) },
        // SAFETY: a `pmix_cpuset_t` owning its source string; the hwloc
        // bitmap is left alone.
        K::Cpuset => unsafe { free((*p.cast::<pmix_cpuset_t>()).source) },
    }
}

/// Frees each string.
///
/// # Safety
/// Each is NULL or a live libc allocation, not used afterwards.
unsafe fn free_all(strings: &[*mut c_char]) {
    for &s in strings {
        // SAFETY: NULL or a live libc allocation (caller guarantee).
        unsafe { free(s) };
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
    // SAFETY: forwarded caller guarantee.
    unsafe { array_destruct(ty, array, n) };
    // SAFETY: the array is a live libc allocation (caller guarantee).
    unsafe { free(array) };
}

/// Releases what the `n` elements of `ty` at `array` own and zeroes them,
/// keeping the array's memory.
///
/// # Safety
/// `array` is NULL or holds `n` initialised, writable elements of `ty`
/// (see [`elem_destruct`]).
pub(crate) unsafe fn array_destruct(ty: pmix_data_type_t, array: *mut u8, n: usize) {
    let Some(kind) = ElemKind::of(ty).filter(|_| !array.is_null()) else {
        return;
    };
    if !kind.is_plain() {
        for i in 0..n {
            // SAFETY: element `i < n` of the array (caller guarantee).
            unsafe { elem_destruct(kind, array.add(i * kind.size())) };
        }
    }
    // SAFETY: `n` writable elements of `kind.size()` bytes (caller).
    unsafe { ptr::write_bytes(array, 0, n * kind.size()) };
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
    *d = EMPTY_ARRAY;
}

/// `{PMIX_UNDEF, 0, NULL}`.
pub(crate) const EMPTY_ARRAY: pmix_data_array_t = pmix_data_array_t {
    type_: PMIX_UNDEF,
    size: 0,
    array: ptr::null_mut(),
};

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
    let kind = ElemKind::of(v.type_).filter(|k| k.in_value());
    if let Some(kind) = kind.filter(|k| !k.is_plain() || k.boxed_in_value()) {
        if kind.boxed_in_value() {
            // SAFETY: a boxed type's data is a pointer to one element.
            let p = unsafe { v.data.ptr }.cast::<u8>();
            if !p.is_null() {
                // SAFETY: `p` is a libc allocation of one element of `kind`.
                unsafe {
                    elem_destruct(kind, p);
                    free(p);
                }
            }
        } else {
            // SAFETY: an inline element sits at the start of the union.
            unsafe { elem_destruct(kind, ptr::addr_of_mut!(v.data).cast()) };
        }
    }
    *v = pmix_value_t::INIT;
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
