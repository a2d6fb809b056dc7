//! Fabric and hardware descriptions: `PMIx_Coord_*` (`create` takes the
//! dimensions and the count), `PMIx_Geometry_*`,
//! `PMIx_Device_distance_*`, `PMIx_Endpoint_*`, and the construct/create/
//! free of `PMIx_Topology_*` and `PMIx_Cpuset_*` (their destructs, with
//! the hwloc rules, are in `topology`).

use super::lifecycle;
use crate::cdata::ElemKind;
use crate::cmem;
use crate::types::*;

lifecycle! {
    Coord: pmix_coord_t {
        construct PMIx_Coord_construct,
        destruct PMIx_Coord_destruct,
        free PMIx_Coord_free,
    }
    Geometry: pmix_geometry_t {
        construct PMIx_Geometry_construct,
        destruct PMIx_Geometry_destruct,
        create PMIx_Geometry_create,
        free PMIx_Geometry_free,
    }
    DeviceDist: pmix_device_distance_t {
        construct PMIx_Device_distance_construct,
        destruct PMIx_Device_distance_destruct,
        create PMIx_Device_distance_create,
        free PMIx_Device_distance_free,
    }
    Endpoint: pmix_endpoint_t {
        construct PMIx_Endpoint_construct,
        destruct PMIx_Endpoint_destruct,
        create PMIx_Endpoint_create,
        free PMIx_Endpoint_free,
    }
    Topology: pmix_topology_t {
        construct PMIx_Topology_construct,
        create PMIx_Topology_create,
        free PMIx_Topology_free,
    }
    Cpuset: pmix_cpuset_t {
        construct PMIx_Cpuset_construct,
        create PMIx_Cpuset_create,
        free PMIx_Cpuset_free,
    }
}

/// `pmix_coord_t* PMIx_Coord_create(size_t dims, size_t number)`: a
/// malloc'd array of `number` coordinates, each with `dims` zeroed
/// `uint32_t`s (NULL `coord` for 0 dimensions) and the view
/// `PMIX_COORD_VIEW_UNDEF`; NULL for `number == 0` or when memory runs out
/// (nothing is leaked then).
#[no_mangle]
pub extern "C" fn PMIx_Coord_create(dims: usize, number: usize) -> *mut pmix_coord_t {
    let array = super::create(ElemKind::Coord, number).cast::<pmix_coord_t>();
    if array.is_null() || dims == 0 {
        return array;
    }
    for i in 0..number {
        let Ok(coord) = cmem::calloc_array::<u32>(dims) else {
            // SAFETY: `array` holds `number` valid coordinates, the ones
            // not yet filled own nothing.
            unsafe { super::free_array(ElemKind::Coord, array.cast(), number) };
            return std::ptr::null_mut();
        };
        // SAFETY: `i < number`, an element of the fresh array.
        let c = unsafe { &mut *array.add(i) };
        c.coord = coord;
        c.dims = dims;
    }
    array
}
