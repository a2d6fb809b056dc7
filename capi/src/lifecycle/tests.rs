//! The v5 lifecycle helpers on Rust-side data: constructed states,
//! ownership through destruct/free (run under Miri-free plain tests; the
//! leak side is covered by `tests/v5_helpers.rs` under valgrind), ids,
//! data arrays and sizes.

use std::os::raw::c_char;
use std::ptr;

use super::*;
use crate::cmem;

fn cstr(s: &std::ffi::CStr) -> *const c_char {
    s.as_ptr()
}

#[test]
fn construct_gives_the_v5_initial_states() {
    // SAFETY: every pointer below is a live local or a fresh allocation.
    unsafe {
        let mut p = pmix_proc_t {
            nspace: [1; PMIX_MAX_NSLEN + 1],
            rank: 7,
        };
        PMIx_Proc_construct(&mut p);
        assert_eq!(p.rank, PMIX_RANK_UNDEF);
        assert!(p.nspace.iter().all(|&c| c == 0));

        let mut d = std::mem::MaybeUninit::<pmix_device_distance_t>::uninit();
        PMIx_Device_distance_construct(d.as_mut_ptr());
        let d = d.assume_init();
        assert_eq!((d.mindist, d.maxdist), (u16::MAX, u16::MAX));
        assert!(d.uuid.is_null() && d.osname.is_null());

        let infos = PMIx_Info_create(2);
        assert!(!infos.is_null());
        assert_eq!((*infos.add(1)).value.type_, PMIX_UNDEF);
        assert_eq!((*infos.add(1)).flags, 0);
        PMIx_Info_free(infos, 2);

        // NULL is a no-op everywhere
        PMIx_Proc_construct(ptr::null_mut());
        PMIx_App_destruct(ptr::null_mut());
        PMIx_Query_free(ptr::null_mut(), 3);
    }
}

#[test]
fn create_of_zero_is_null() {
    assert!(PMIx_Proc_create(0).is_null());
    assert!(PMIx_Info_create(0).is_null());
    assert!(PMIx_Coord_create(3, 0).is_null());
    assert!(PMIx_Data_array_create(0, PMIX_INFO).is_null());
}

#[test]
fn destruct_releases_and_leaves_the_struct_constructed() {
    // SAFETY: the app's fields are libc allocations made here.
    unsafe {
        let apps = PMIx_App_create(1);
        let a = &mut *apps;
        a.cmd = cmem::strdup_str("/bin/true").unwrap();
        a.argv = cmem::argv_from_strs(&["true", "x"]).unwrap();
        a.maxprocs = 4;
        PMIx_App_info_create(a, 2);
        assert_eq!(a.ninfo, 2);
        PMIx_App_destruct(a);
        assert!(a.cmd.is_null() && a.argv.is_null() && a.info.is_null());
        assert_eq!((a.ninfo, a.maxprocs), (0, 0));
        PMIx_App_release(apps);
    }
}

#[test]
fn coord_create_allocates_each_coordinate() {
    let c = PMIx_Coord_create(4, 2);
    // SAFETY: two coordinates just created, each with 4 u32s.
    unsafe {
        assert_eq!((*c.add(1)).dims, 4);
        assert_eq!(*(*c.add(1)).coord.add(3), 0);
        assert_eq!((*c).view, PMIX_COORD_VIEW_UNDEF);
        PMIx_Coord_free(c, 2);
    }
    // no dimensions: no coordinate arrays
    let c = PMIx_Coord_create(0, 1);
    // SAFETY: one coordinate just created.
    unsafe {
        assert!((*c).coord.is_null());
        PMIx_Coord_free(c, 1);
    }
}

#[test]
fn ids_compare_with_wildcards() {
    // SAFETY: C strings and local procs.
    unsafe {
        let mut a = pmix_proc_t {
            nspace: [0; PMIX_MAX_NSLEN + 1],
            rank: 0,
        };
        let mut b = a;
        PMIx_Load_procid(&mut a, cstr(c"ns"), 1);
        PMIx_Load_procid(&mut b, cstr(c"ns"), PMIX_RANK_WILDCARD);
        assert!(PMIx_Check_procid(&a, &b));
        PMIx_Load_procid(&mut b, cstr(c"other"), 1);
        assert!(!PMIx_Check_procid(&a, &b));
        assert!(PMIx_Check_procid(ptr::null(), ptr::null()));
        assert!(!PMIx_Check_procid(&a, ptr::null()));
        // an empty namespace matches any
        assert!(PMIx_Check_nspace(cstr(c""), cstr(c"ns")));
        assert!(PMIx_Nspace_invalid(ptr::null()) && PMIx_Nspace_invalid(cstr(c"")));
        a.rank = PMIX_RANK_INVALID;
        assert!(PMIx_Procid_invalid(&a));
        assert!(!PMIx_Check_reserved_key(ptr::null()));
        assert!(!PMIx_Check_reserved_key(cstr(c"pmi")));
        assert!(PMIx_Check_reserved_key(cstr(c"pmix.x")));
    }
}

#[test]
fn keys_are_truncated_to_the_standard_length() {
    let long = std::ffi::CString::new(vec![b'k'; PMIX_MAX_KEYLEN + 20]).unwrap();
    let mut key: pmix_key_t = [1; PMIX_MAX_KEYLEN + 1];
    // SAFETY: a writable key and a C string.
    unsafe { PMIx_Load_key(key.as_mut_ptr(), long.as_ptr()) };
    assert_eq!(cmem::fixed_bytes(&key).len(), PMIX_MAX_KEYLEN);
    assert_eq!(key[PMIX_MAX_KEYLEN], 0);
    // SAFETY: two C strings.
    assert!(unsafe { PMIx_Check_key(key.as_ptr(), long.as_ptr()) });
}

#[test]
fn multicluster_names_round_trip_and_overflow_to_empty() {
    let mut t: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
    let mut c: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
    let mut n: pmix_nspace_t = [0; PMIX_MAX_NSLEN + 1];
    cmem::load_nspace(&mut c, b"cl");
    cmem::load_nspace(&mut n, b"job");
    // SAFETY: three namespace buffers.
    unsafe {
        PMIx_Multicluster_nspace_construct(t.as_mut_ptr(), c.as_ptr(), n.as_ptr());
        assert_eq!(cmem::fixed_bytes(&t), b"cl:job");
        PMIx_Multicluster_nspace_parse(t.as_ptr(), c.as_mut_ptr(), n.as_mut_ptr());
        assert_eq!(
            (cmem::fixed_bytes(&c), cmem::fixed_bytes(&n)),
            (&b"cl"[..], &b"job"[..])
        );
        // no separator: all of it is the cluster
        cmem::load_nspace(&mut t, b"plain");
        PMIx_Multicluster_nspace_parse(t.as_ptr(), c.as_mut_ptr(), n.as_mut_ptr());
        assert_eq!(
            (cmem::fixed_bytes(&c), cmem::fixed_bytes(&n)),
            (&b"plain"[..], &b""[..])
        );
        // too long together: empty
        cmem::load_nspace(&mut c, &[b'c'; 200]);
        cmem::load_nspace(&mut n, &[b'n'; 60]);
        PMIx_Multicluster_nspace_construct(t.as_mut_ptr(), c.as_ptr(), n.as_ptr());
        assert!(cmem::fixed_bytes(&t).is_empty());
    }
}

#[test]
fn data_arrays_never_claim_elements_they_lack() {
    let mut d = pmix_data_array_t {
        type_: PMIX_UNDEF,
        size: 9,
        array: ptr::null_mut(),
    };
    // SAFETY: a local data array; the array made is released below.
    unsafe {
        PMIx_Data_array_construct(&mut d, 3, 0x7777);
        assert_eq!((d.type_, d.size), (0x7777, 0));
        assert!(d.array.is_null());
        PMIx_Data_array_construct(&mut d, 2, PMIX_PROC);
        assert_eq!(d.size, 2);
        assert_eq!(
            (*d.array.cast::<pmix_proc_t>().add(1)).rank,
            PMIX_RANK_UNDEF
        );
        crate::PMIx_Data_array_destruct(&mut d);
        assert!(d.array.is_null());
    }
}

#[test]
fn sizes_count_what_the_datum_owns() {
    let mut v = pmix_value_t::INIT;
    let mut size = 0usize;
    // SAFETY: a local value, loaded and destructed here.
    unsafe {
        assert_eq!(
            PMIx_Value_get_size(&v, &mut size),
            PMIX_ERR_UNKNOWN_DATA_TYPE
        );
        assert_eq!(
            PMIx_Value_get_size(ptr::null(), &mut size),
            PMIX_ERR_BAD_PARAM
        );
        let x: u64 = 3;
        crate::PMIx_Value_load(&mut v, (&x as *const u64).cast(), PMIX_UINT64);
        assert_eq!(PMIx_Value_get_size(&v, &mut size), PMIX_SUCCESS);
        assert_eq!(size, 8);
        crate::PMIx_Value_destruct(&mut v);
        let mut info = pmix_info_t::INIT;
        cmem::load_key(&mut info.key, b"key");
        crate::PMIx_Value_load(&mut info.value, c"abc".as_ptr().cast(), PMIX_STRING);
        assert_eq!(PMIx_Info_get_size(&info, &mut size), PMIX_SUCCESS);
        assert_eq!(size, std::mem::size_of::<pmix_info_t>() + 4 + 8 + 4);
        crate::cdata::info_destruct(&mut info);
    }
}

#[test]
fn info_flags_set_and_clear() {
    let mut i = pmix_info_t::INIT;
    // SAFETY: a local info.
    unsafe {
        PMIx_Info_required(&mut i);
        PMIx_Info_qualifier(&mut i);
        assert!(PMIx_Info_is_required(&i) && PMIx_Info_is_qualifier(&i));
        PMIx_Info_optional(&mut i);
        assert!(PMIx_Info_is_optional(&i) && PMIx_Info_is_qualifier(&i));
        assert!(!PMIx_Info_is_end(&i) && !PMIx_Info_is_persistent(ptr::null()));
        assert_eq!(PMIx_Info_true(&i), PMIX_BOOL_TRUE); // present, no value
        assert_eq!(PMIx_Info_true(ptr::null()), PMIX_BOOL_FALSE);
    }
}
