//! The callback typedefs of `pmix_common.h`, `pmix.h`, `pmix_server.h` and
//! `pmix_tool.h` that the exported functions take or call.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

use super::*;

/// `pmix_release_cbfunc_t`.
pub type pmix_release_cbfunc_t = Option<unsafe extern "C" fn(cbdata: *mut c_void)>;

/// `pmix_modex_cbfunc_t`.
pub type pmix_modex_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *const c_char,
        ndata: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

/// `pmix_spawn_cbfunc_t` (`nspace` is a `pmix_nspace_t`, i.e. `char*`).
pub type pmix_spawn_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void)>;

/// `pmix_op_cbfunc_t`.
pub type pmix_op_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, cbdata: *mut c_void)>;

/// `pmix_lookup_cbfunc_t`.
pub type pmix_lookup_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *mut pmix_pdata_t,
        ndata: usize,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_event_notification_cbfunc_fn_t`: how an event handler reports
/// its outcome.
pub type pmix_event_notification_cbfunc_fn_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_op_cbfunc_t,
        thiscbdata: *mut c_void,
        notification_cbdata: *mut c_void,
    ),
>;

/// `pmix_notification_fn_t`: an event handler.
pub type pmix_notification_fn_t = Option<
    unsafe extern "C" fn(
        evhdlr_registration_id: usize,
        status: pmix_status_t,
        source: *const pmix_proc_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_event_notification_cbfunc_fn_t,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_hdlr_reg_cbfunc_t`.
pub type pmix_hdlr_reg_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;

/// `pmix_evhdlr_reg_cbfunc_t`.
pub type pmix_evhdlr_reg_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;

/// `pmix_value_cbfunc_t`.
pub type pmix_value_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, kv: *mut pmix_value_t, cbdata: *mut c_void)>;

/// `pmix_info_cbfunc_t`.
pub type pmix_info_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

/// `pmix_credential_cbfunc_t`.
pub type pmix_credential_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        credential: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_validation_cbfunc_t`.
pub type pmix_validation_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_device_dist_cbfunc_t`.
pub type pmix_device_dist_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        dist: *mut pmix_device_distance_t,
        ndist: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;

/// `pmix_iof_cbfunc_t` (pmix_tool.h): delivers forwarded output.
pub type pmix_iof_cbfunc_t = Option<
    unsafe extern "C" fn(
        iofhdlr: usize,
        channel: pmix_iof_channel_t,
        source: *mut pmix_proc_t,
        payload: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
    ),
>;

/// `pmix_dmodex_response_fn_t` (pmix_server.h).
pub type pmix_dmodex_response_fn_t = Option<
    unsafe extern "C" fn(status: pmix_status_t, data: *mut c_char, sz: usize, cbdata: *mut c_void),
>;

/// `pmix_setup_application_cbfunc_t` (pmix_server.h).
pub type pmix_setup_application_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        provided_cbdata: *mut c_void,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ),
>;

/// `pmix_connection_cbfunc_t` (pmix_server.h).
pub type pmix_connection_cbfunc_t =
    Option<unsafe extern "C" fn(incoming_sd: c_int, cbdata: *mut c_void)>;

/// `pmix_tool_connection_cbfunc_t` (pmix_server.h).
pub type pmix_tool_connection_cbfunc_t = Option<
    unsafe extern "C" fn(status: pmix_status_t, proc_: *mut pmix_proc_t, cbdata: *mut c_void),
>;
