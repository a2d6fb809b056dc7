//! The layout of every `repr(C)` mirror in [`crate::types`], as a table
//! that `tests/c_programs.rs` compares with `sizeof`/`offsetof` computed by
//! a C compiler from Debian's headers. Not part of the C ABI.

use std::mem::{align_of, offset_of, size_of, MaybeUninit};

use crate::types::*;

/// Size, alignment and field placement of one C type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeLayout {
    /// The C type name.
    pub name: &'static str,
    /// `sizeof`.
    pub size: usize,
    /// `_Alignof`.
    pub align: usize,
    /// `(C member designator, offsetof, sizeof member)`.
    pub fields: Vec<(String, usize, usize)>,
}

const fn size_of_pointee<F>(_: *const F) -> usize {
    size_of::<F>()
}

macro_rules! field_size {
    ($ty:ty, $field:ident) => {{
        let place = MaybeUninit::<$ty>::uninit();
        let base = place.as_ptr();
        // SAFETY: `addr_of!` on a field of a (possibly uninitialised) place
        // only computes an address inside the allocation of `place`; nothing
        // is read and no reference is created.
        let field = unsafe { std::ptr::addr_of!((*base).$field) };
        size_of_pointee(field)
    }};
}

macro_rules! c_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident, $c:literal) => {
        $c
    };
}

macro_rules! layouts {
    ($( $ty:ident { $( $field:ident $( = $cname:literal )? ),* $(,)? } )*) => {
        vec![ $(
            TypeLayout {
                name: stringify!($ty),
                size: size_of::<$ty>(),
                align: align_of::<$ty>(),
                fields: vec![ $( (
                    c_name!($field $(, $cname)?).to_owned(),
                    offset_of!($ty, $field),
                    field_size!($ty, $field),
                ) ),* ],
            },
        )* ]
    };
}

/// Every mirrored type. The members of the `pmix_value_t` data union are
/// listed as `data.<member>` fields of `pmix_value_t`.
pub fn all() -> Vec<TypeLayout> {
    let mut all = layouts! {
        pmix_proc_t { nspace, rank }
        pmix_byte_object_t { bytes, size }
        pmix_data_array_t { type_ = "type", size, array }
        pmix_envar_t { envar, value, separator }
        pmix_coord_t { view, coord, dims }
        pmix_cpuset_t { source, bitmap }
        pmix_topology_t { source, topology }
        pmix_geometry_t { fabric, uuid, osname, coordinates, ncoords }
        pmix_device_distance_t { uuid, osname, type_ = "type", mindist, maxdist }
        pmix_endpoint_t { uuid, osname, endpt }
        pmix_proc_info_t { proc_ = "proc", hostname, executable_name, pid, exit_code, state }
        pmix_data_buffer_t { base_ptr, pack_ptr, unpack_ptr, bytes_allocated, bytes_used }
        pmix_proc_stats_t {
            node, proc_ = "proc", pid, cmd, state, time, percent_cpu, priority, num_threads,
            pss, vsize, rss, peak_vsize, processor, sample_time,
        }
        pmix_disk_stats_t {
            disk, num_reads_completed, num_reads_merged, num_sectors_read,
            milliseconds_reading, num_writes_completed, num_writes_merged,
            num_sectors_written, milliseconds_writing, num_ios_in_progress,
            milliseconds_io, weighted_milliseconds_io,
        }
        pmix_net_stats_t {
            net_interface, num_bytes_recvd, num_packets_recvd, num_recv_errs,
            num_bytes_sent, num_packets_sent, num_send_errs,
        }
        pmix_node_stats_t {
            node, la, la5, la15, total_mem, free_mem, buffers, cached, swap_cached,
            swap_total, swap_free, mapped, sample_time, diskstats, ndiskstats,
            netstats, nnetstats,
        }
        pmix_value_t { type_ = "type", data }
        pmix_info_t { key, flags, value }
        pmix_pdata_t { proc_ = "proc", key, value }
        pmix_app_t { cmd, argv, env, cwd, maxprocs, info, ninfo }
        pmix_query_t { keys, qualifiers, nqual }
        pmix_regattr_t { name, string, type_ = "type", description }
        pmix_fabric_t { name, index, info, ninfo, module }
        pmix_server_module_t {
            client_connected, client_finalized, abort, fence_nb, direct_modex, publish,
            lookup, unpublish, spawn, connect, disconnect, register_events,
            deregister_events, listener, notify_event, query, tool_connected, log,
            allocate, job_control, monitor, get_credential, validate_credential,
            iof_pull, push_stdin, group, fabric, client_connected2,
        }
    };
    let union = layouts! {
        pmix_value_data_t {
            flag, byte, string, size, pid, integer, int8, int16, int32, int64, uint,
            uint8, uint16, uint32, uint64, fval, dval, tv, time, status, rank, nspace,
            proc_ = "proc", bo, persist, scope, range, state, pinfo, darray, ptr, adir,
            envar, coord, linkstate, jstate, topo, cpuset, locality, geometry, devtype,
            devdist, endpoint, dbuf, pstats, dkstats, netstats, ndstats,
        }
    };
    let data = offset_of!(pmix_value_t, data);
    let value = all
        .iter_mut()
        .find(|t| t.name == "pmix_value_t")
        .expect("pmix_value_t is in the table");
    for (name, offset, size) in &union[0].fields {
        value
            .fields
            .push((format!("data.{name}"), data + offset, *size));
    }
    all
}

/// Scalar typedefs: `(C name, sizeof, _Alignof)`.
pub fn scalars() -> Vec<(&'static str, usize, usize)> {
    macro_rules! scalars {
        ($($t:ident),* $(,)?) => { vec![ $( (stringify!($t), size_of::<$t>(), align_of::<$t>()) ),* ] };
    }
    scalars![
        pmix_nspace_t,
        pmix_key_t,
        pmix_rank_t,
        pmix_status_t,
        pmix_data_type_t,
        pmix_scope_t,
        pmix_data_range_t,
        pmix_persistence_t,
        pmix_info_directives_t,
        pmix_alloc_directive_t,
        pmix_iof_channel_t,
        pmix_proc_state_t,
        pmix_job_state_t,
        pmix_coord_view_t,
        pmix_link_state_t,
        pmix_bind_envelope_t,
        pmix_locality_t,
        pmix_device_type_t,
        pmix_storage_medium_t,
        pmix_storage_accessibility_t,
        pmix_storage_persistence_t,
        pmix_storage_access_type_t,
        pmix_value_cmp_t,
        pmix_boolean_t,
        pmix_group_operation_t,
        pmix_group_opt_t,
        pmix_fabric_operation_t,
    ]
}

/// The attribute macro names behind `PMIx_Get_attribute_string/name`, so a
/// test can print what the C headers define for each.
pub fn attribute_names() -> Vec<&'static str> {
    crate::attr_table::ATTRIBUTES
        .iter()
        .map(|(name, _, _)| name.to_str().expect("attribute names are ASCII"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers a C compiler gives with Debian's headers
    /// (`tests/c/layout.c`), the same the compile-time assertions of
    /// `types/` hold, checked through this table too.
    #[test]
    fn mirrors_match_the_measured_layouts() {
        let find = |n: &str| all().into_iter().find(|t| t.name == n).unwrap();
        let off = |t: &TypeLayout, f: &str| t.fields.iter().find(|x| x.0 == f).unwrap().1;
        let expect = [
            ("pmix_proc_t", 260, 4),
            ("pmix_value_t", 32, 8),
            ("pmix_info_t", 552, 8),
            ("pmix_pdata_t", 808, 8),
            ("pmix_app_t", 56, 8),
            ("pmix_query_t", 24, 8),
            ("pmix_data_array_t", 24, 8),
            ("pmix_byte_object_t", 16, 8),
            ("pmix_envar_t", 24, 8),
            ("pmix_proc_info_t", 296, 8),
            ("pmix_regattr_t", 536, 8),
            ("pmix_coord_t", 24, 8),
            ("pmix_topology_t", 16, 8),
            ("pmix_cpuset_t", 16, 8),
            ("pmix_geometry_t", 40, 8),
            ("pmix_device_distance_t", 32, 8),
            ("pmix_endpoint_t", 32, 8),
            ("pmix_data_buffer_t", 40, 8),
            ("pmix_proc_stats_t", 352, 8),
            ("pmix_disk_stats_t", 96, 8),
            ("pmix_net_stats_t", 56, 8),
            ("pmix_node_stats_t", 104, 8),
            ("pmix_fabric_t", 40, 8),
            ("pmix_server_module_t", 224, 8),
        ];
        for (name, size, align) in expect {
            let t = find(name);
            assert_eq!((t.size, t.align), (size, align), "{name}");
        }
        let v = find("pmix_value_t");
        assert_eq!(off(&v, "data"), 8);
        assert!(v
            .fields
            .iter()
            .all(|f| !f.0.starts_with("data.") || f.1 == 8));
        let tv = v.fields.iter().find(|f| f.0 == "data.tv").unwrap();
        assert_eq!(tv.2, 16);
        let i = find("pmix_info_t");
        assert_eq!((off(&i, "flags"), off(&i, "value")), (512, 520));
        let p = find("pmix_pdata_t");
        assert_eq!((off(&p, "key"), off(&p, "value")), (260, 776));
        let a = find("pmix_app_t");
        assert_eq!(
            (off(&a, "maxprocs"), off(&a, "info"), off(&a, "ninfo")),
            (32, 40, 48)
        );
        let pi = find("pmix_proc_info_t");
        assert_eq!(
            (off(&pi, "hostname"), off(&pi, "pid"), off(&pi, "state")),
            (264, 280, 288)
        );
        let ps = find("pmix_proc_stats_t");
        assert_eq!((off(&ps, "time"), off(&ps, "sample_time")), (288, 336));
        let m = find("pmix_server_module_t");
        assert_eq!(off(&m, "client_connected2"), 216);
        assert_eq!(m.fields.len(), 28);
    }
}
