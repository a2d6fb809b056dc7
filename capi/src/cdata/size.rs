//! How many bytes C data owns beyond its own element ([`owned_bytes`]),
//! for `PMIx_Value_get_size`: strings count with their NUL, byte payloads
//! with their size, arrays with their elements and what those own. An
//! hwloc object (topology, cpuset bitmap) counts as nothing: its size is
//! hwloc's.

use std::mem::size_of;
use std::os::raw::c_char;

use super::kind::ElemKind;
use super::value::elem_ptr;
use crate::cmem;
use crate::types::*;

/// Bytes of a C string with its NUL; 0 for NULL.
///
/// # Safety
/// `s` is NULL or a C string.
unsafe fn str_bytes(s: *const c_char) -> usize {
    if s.is_null() {
        0
    } else {
        // SAFETY: a C string (caller guarantee).
        unsafe { cmem::c_bytes(s) }.len() + 1
    }
}

/// Bytes of a NULL-terminated `char **`: the pointer array with its
/// terminator and the strings; 0 for NULL.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of C strings.
unsafe fn argv_bytes(argv: *const *mut c_char) -> usize {
    if argv.is_null() {
        return 0;
    }
    // SAFETY: NULL-terminated (caller guarantee).
    let n = unsafe { cmem::argv_len(argv) };
    // SAFETY: `i < n` entries, each a C string.
    (0..n)
        .map(|i| unsafe { str_bytes(*argv.add(i)) })
        .sum::<usize>()
        + (n + 1) * size_of::<*mut c_char>()
}

/// Bytes of an array of `n` elements of `ty` at `array`, with what they
/// own; 0 for NULL or a type without an element form.
///
/// # Safety
/// `array` is NULL or holds `n` valid elements of `ty`.
unsafe fn array_bytes(ty: pmix_data_type_t, array: *const u8, n: usize) -> usize {
    let Some(kind) = ElemKind::of(ty).filter(|_| !array.is_null()) else {
        return 0;
    };
    // SAFETY: element `i < n` (caller guarantee).
    (0..n)
        .map(|i| kind.size() + unsafe { owned_bytes(kind, array.add(i * kind.size())) })
        .sum()
}

/// Bytes that one element of `kind` at `p` owns (not counting the element).
///
/// # Safety
/// `p` points to one valid element of `kind`.
pub(crate) unsafe fn owned_bytes(kind: ElemKind, p: *const u8) -> usize {
    use ElemKind as K;
    // SAFETY: (every arm) `p` is a valid element of `kind` (caller
    // guarantee), so the cast reads the struct `kind` names, and its
    // pointers are NULL or what the type says they are.
    unsafe {
        match kind {
            K::Pod(_) | K::Proc | K::Nspace => 0,
            K::String => str_bytes(*p.cast::<*mut c_char>()),
            K::Bytes => (*p.cast::<pmix_byte_object_t>()).size,
            K::Envar => {
                let e = &*p.cast::<pmix_envar_t>();
                str_bytes(e.envar) + str_bytes(e.value)
            }
            K::ProcInfo => {
                let i = &*p.cast::<pmix_proc_info_t>();
                str_bytes(i.hostname) + str_bytes(i.executable_name)
            }
            K::DataArray => {
                let d = &*p.cast::<pmix_data_array_t>();
                array_bytes(d.type_, d.array.cast(), d.size)
            }
            K::Info => owned_bytes(
                K::Value,
                &(*p.cast::<pmix_info_t>()).value as *const _ as *const u8,
            ),
            K::Pdata => owned_bytes(
                K::Value,
                &(*p.cast::<pmix_pdata_t>()).value as *const _ as *const u8,
            ),
            K::Value => {
                let v = &*p.cast::<pmix_value_t>();
                match ElemKind::of(v.type_).filter(|k| k.in_value()) {
                    Some(k) => match elem_ptr(v, k) {
                        Some(e) if k.boxed_in_value() => k.size() + owned_bytes(k, e),
                        Some(e) => owned_bytes(k, e),
                        None => 0,
                    },
                    None => 0,
                }
            }
            K::App => {
                let a = &*p.cast::<pmix_app_t>();
                str_bytes(a.cmd)
                    + str_bytes(a.cwd)
                    + argv_bytes(a.argv)
                    + argv_bytes(a.env)
                    + array_bytes(PMIX_INFO, a.info.cast(), a.ninfo)
            }
            K::Query => {
                let q = &*p.cast::<pmix_query_t>();
                argv_bytes(q.keys) + array_bytes(PMIX_INFO, q.qualifiers.cast(), q.nqual)
            }
            K::Coord => {
                let c = &*p.cast::<pmix_coord_t>();
                if c.coord.is_null() {
                    0
                } else {
                    c.dims * size_of::<u32>()
                }
            }
            K::Geometry => {
                let g = &*p.cast::<pmix_geometry_t>();
                str_bytes(g.uuid)
                    + str_bytes(g.osname)
                    + array_bytes(PMIX_COORD, g.coordinates.cast(), g.ncoords)
            }
            K::DeviceDist => {
                let d = &*p.cast::<pmix_device_distance_t>();
                str_bytes(d.uuid) + str_bytes(d.osname)
            }
            K::Endpoint => {
                let e = &*p.cast::<pmix_endpoint_t>();
                str_bytes(e.uuid) + str_bytes(e.osname) + e.endpt.size
            }
            K::RegAttr => {
                let r = &*p.cast::<pmix_regattr_t>();
                str_bytes(r.name) + argv_bytes(r.description)
            }
            K::DataBuffer => (*p.cast::<pmix_data_buffer_t>()).bytes_used,
            K::ProcStats => {
                let s = &*p.cast::<pmix_proc_stats_t>();
                str_bytes(s.node) + str_bytes(s.cmd)
            }
            K::DiskStats => str_bytes((*p.cast::<pmix_disk_stats_t>()).disk),
            K::NetStats => str_bytes((*p.cast::<pmix_net_stats_t>()).net_interface),
            K::NodeStats => {
                let s = &*p.cast::<pmix_node_stats_t>();
                str_bytes(s.node)
                    + array_bytes(PMIX_DISK_STATS, s.diskstats.cast(), s.ndiskstats)
                    + array_bytes(PMIX_NET_STATS, s.netstats.cast(), s.nnetstats)
            }
            K::Topology => str_bytes((*p.cast::<pmix_topology_t>()).source),
            K::Cpuset => str_bytes((*p.cast::<pmix_cpuset_t>()).source),
        }
    }
}
