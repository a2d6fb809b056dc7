//! Every unsupported entry point answers `PMIX_ERR_NOT_SUPPORTED` (or
//! `false`), resets its outputs and never calls a callback.

use std::os::raw::{c_char, c_void};
use std::ptr;
use std::sync::Mutex;
use std::time::Duration;

use super::*;
use crate::cmem::Out;
use crate::types::*;

/// Calls of any callback below; it must stay at zero.
static CALLS: Mutex<usize> = Mutex::new(0);

fn called() {
    *CALLS.lock().unwrap() += 1;
}

unsafe extern "C" fn op_cb(_: pmix_status_t, _: *mut c_void) {
    called();
}
unsafe extern "C" fn info_cb(
    _: pmix_status_t,
    _: *mut pmix_info_t,
    _: usize,
    _: *mut c_void,
    _: pmix_release_cbfunc_t,
    _: *mut c_void,
) {
    called();
}
unsafe extern "C" fn setup_cb(
    _: pmix_status_t,
    _: *mut pmix_info_t,
    _: usize,
    _: *mut c_void,
    _: pmix_op_cbfunc_t,
    _: *mut c_void,
) {
    called();
}
unsafe extern "C" fn cred_cb(
    _: pmix_status_t,
    _: *mut pmix_byte_object_t,
    _: *mut pmix_info_t,
    _: usize,
    _: *mut c_void,
) {
    called();
}
unsafe extern "C" fn valid_cb(_: pmix_status_t, _: *mut pmix_info_t, _: usize, _: *mut c_void) {
    called();
}
unsafe extern "C" fn dist_cb(
    _: pmix_status_t,
    _: *mut pmix_device_distance_t,
    _: usize,
    _: *mut c_void,
    _: pmix_release_cbfunc_t,
    _: *mut c_void,
) {
    called();
}

fn dangling<T>() -> *mut T {
    ptr::NonNull::dangling().as_ptr()
}

#[test]
fn entry_points_answer_not_supported_and_never_call_back() {
    let (n, c) = (ptr::null_mut::<pmix_info_t>(), ptr::null::<pmix_info_t>());
    let p = ptr::null::<pmix_proc_t>();
    let (s, sm) = (ptr::null::<c_char>(), ptr::null_mut::<c_char>());
    let cbd = ptr::null_mut::<c_void>();
    // SAFETY: NULL arguments and callbacks that must never run; nothing is
    // read.
    let rcs = unsafe {
        [
            PMIx_server_setup_application(s, n, 0, Some(setup_cb), cbd),
            PMIx_server_setup_local_support(s, n, 0, Some(op_cb), cbd),
            PMIx_Register_attributes(sm, ptr::null_mut()),
            PMIx_Allocation_request_nb(0, n, 0, Some(info_cb), cbd),
            PMIx_Process_monitor_nb(c, 0, c, 0, Some(info_cb), cbd),
            PMIx_server_collect_inventory(n, 0, Some(info_cb), cbd),
            PMIx_server_deliver_inventory(n, 0, n, 0, Some(op_cb), cbd),
            PMIx_server_register_resources(n, 0, Some(op_cb), cbd),
            PMIx_server_deregister_resources(n, 0, Some(op_cb), cbd),
            PMIx_Get_credential_nb(c, 0, Some(cred_cb), cbd),
            PMIx_Validate_credential_nb(ptr::null(), c, 0, Some(valid_cb), cbd),
            PMIx_Fabric_register(ptr::null_mut(), c, 0),
            PMIx_Fabric_register_nb(ptr::null_mut(), c, 0, Some(op_cb), cbd),
            PMIx_Fabric_update(ptr::null_mut()),
            PMIx_Fabric_update_nb(ptr::null_mut(), Some(op_cb), cbd),
            PMIx_Fabric_deregister(ptr::null_mut()),
            PMIx_Fabric_deregister_nb(ptr::null_mut(), Some(op_cb), cbd),
            PMIx_Compute_distances_nb(ptr::null_mut(), ptr::null_mut(), n, 0, Some(dist_cb), cbd),
            PMIx_Load_topology(ptr::null_mut()),
            PMIx_Data_pack(p, ptr::null_mut(), cbd, 1, PMIX_INT),
            PMIx_server_IOF_deliver(
                p,
                PMIX_FWD_STDOUT_CHANNEL,
                ptr::null(),
                c,
                0,
                Some(op_cb),
                cbd,
            ),
        ]
    };
    for (i, rc) in rcs.iter().enumerate() {
        assert_eq!(*rc, PMIX_ERR_NOT_SUPPORTED, "entry #{i}");
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(*CALLS.lock().unwrap(), 0);
}

#[test]
fn entry_points_clear_their_outputs() {
    let (n, c) = (ptr::null_mut::<pmix_info_t>(), ptr::null::<pmix_info_t>());
    let check = |f: &mut dyn FnMut(*mut *mut pmix_info_t, *mut usize) -> pmix_status_t| {
        let (mut res, mut nres) = (dangling::<pmix_info_t>(), 7usize);
        assert_eq!(f(&mut res, &mut nres), PMIX_ERR_NOT_SUPPORTED);
        assert!(res.is_null() && nres == 0);
        // NULL outputs are allowed.
        assert_eq!(f(ptr::null_mut(), ptr::null_mut()), PMIX_ERR_NOT_SUPPORTED);
    };
    // SAFETY: the outputs are NULL or writable, nothing else is read.
    check(&mut |r, nr| unsafe { PMIx_Allocation_request(1, n, 0, r, nr) });
    // SAFETY: as above.
    check(&mut |r, nr| unsafe { PMIx_Process_monitor(c, 0, c, 0, r, nr) });
    // SAFETY: as above.
    check(&mut |r, nr| unsafe { PMIx_Validate_credential(ptr::null(), c, 0, r, nr) });
    // SAFETY: as above.
    check(&mut |r, nr| unsafe {
        let mut d = dangling::<pmix_device_distance_t>();
        let rc = PMIx_Compute_distances(ptr::null_mut(), ptr::null_mut(), n, 0, &mut d, nr);
        assert!(d.is_null());
        r.clear();
        rc
    });

    let mut cred = pmix_byte_object_t {
        bytes: dangling(),
        size: 3,
    };
    // SAFETY: a writable output.
    let rc = unsafe { PMIx_Get_credential(c, 0, &mut cred) };
    assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
    assert!(cred.bytes.is_null() && cred.size == 0);

    let mut cs = pmix_cpuset_t {
        source: dangling(),
        bitmap: dangling(),
    };
    // SAFETY: a writable output.
    let rc = unsafe { PMIx_Get_cpuset(&mut cs, 0) };
    assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
    assert!(cs.source.is_null() && cs.bitmap.is_null());
    cs = pmix_cpuset_t {
        source: dangling(),
        bitmap: dangling(),
    };
    // SAFETY: as above.
    let rc = unsafe { PMIx_Parse_cpuset_string(c"0-3".as_ptr(), &mut cs) };
    assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
    assert!(cs.source.is_null() && cs.bitmap.is_null());

    for f in [
        PMIx_server_generate_locality_string,
        PMIx_server_generate_cpuset_string,
    ] {
        let mut out = dangling::<c_char>();
        // SAFETY: a writable output.
        let rc = unsafe { f(ptr::null(), &mut out) };
        assert_eq!((rc, out.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
        // SAFETY: NULL outputs are allowed.
        let rc = unsafe { f(ptr::null(), ptr::null_mut()) };
        assert_eq!(rc, PMIX_ERR_NOT_SUPPORTED);
    }

    let mut cnt = 4i32;
    // SAFETY: a writable output.
    let rc =
        unsafe { PMIx_Data_unpack(ptr::null(), ptr::null_mut(), n.cast(), &mut cnt, PMIX_INT) };
    assert_eq!((rc, cnt), (PMIX_ERR_NOT_SUPPORTED, 0));
    let mut copy = dangling::<c_void>();
    // SAFETY: a writable output.
    let rc = unsafe { PMIx_Data_copy(&mut copy, n.cast(), PMIX_INT) };
    assert_eq!((rc, copy.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
    let mut out = dangling::<c_char>();
    // SAFETY: a writable output.
    let rc = unsafe { PMIx_Data_print(&mut out, ptr::null_mut(), n.cast(), PMIX_INT) };
    assert_eq!((rc, out.is_null()), (PMIX_ERR_NOT_SUPPORTED, true));
    let (mut bytes, mut nb) = (dangling::<u8>(), 5usize);
    // SAFETY: writable outputs.
    assert!(!unsafe { PMIx_Data_compress(b"abc".as_ptr(), 3, &mut bytes, &mut nb) });
    assert!(bytes.is_null() && nb == 0);
    (bytes, nb) = (dangling(), 5);
    // SAFETY: as above.
    assert!(!unsafe { PMIx_Data_decompress(b"abc".as_ptr(), 3, &mut bytes, &mut nb) });
    assert!(bytes.is_null() && nb == 0);
    // SAFETY: NULL outputs are allowed.
    assert!(!unsafe { PMIx_Data_compress(ptr::null(), 0, n.cast(), ptr::null_mut()) });
}
