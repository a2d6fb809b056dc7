//! The host's `tool_connected` slot (`pmix_server_tool_connection_fn_t`):
//! a tool attaching to this process's server gets the identity the C
//! host gives it (ORTE mints a job id), through
//! `pmix_tool_connection_cbfunc_t`. Without the slot, or when the host
//! answers `PMIX_ERR_NOT_SUPPORTED`, the server's default identity
//! (`pmix_server::host::default_tool_identity`): Open MPI 4.1's ORTE
//! registers the tool as a job and then answers `NOT_SUPPORTED` ("we just
//! locally assign this value"), with no usable name.

use std::os::raw::c_void;

use pmix_core::{Error, Info, Proc, Status};
use pmix_server::Completion;

use crate::cdata::array_free;
use crate::convert::proc_from_c;
use crate::types::*;

/// The callback data of one `tool_connected` call: the completion and
/// the C copy of the infos, released when the host answers.
struct ToolPending {
    done: Completion<Proc>,
    /// The identity used when the host does not give one.
    fallback: pmix_core::Result<Proc>,
    info: *mut pmix_info_t,
    ninfo: usize,
}

unsafe extern "C" fn tool_cb(st: pmix_status_t, proc_: *mut pmix_proc_t, cbdata: *mut c_void) {
    // SAFETY: `cbdata` is the box `tool_connected` leaked; the host calls
    // once.
    let p = unsafe { Box::from_raw(cbdata.cast::<ToolPending>()) };
    let r = if st == PMIX_ERR_NOT_SUPPORTED {
        p.fallback
    } else if st != PMIX_SUCCESS {
        Err(Error::with_context(
            Status(st),
            "the host's tool_connected refused the tool",
        ))
    } else if proc_.is_null() {
        Err(Error::with_context(
            Status::ERR_BAD_PARAM,
            "the host's tool_connected gave no identity",
        ))
    } else {
        // SAFETY: non-NULL, valid during the callback (the slot's contract).
        proc_from_c(unsafe { &*proc_ })
    };
    if !p.info.is_null() {
        // SAFETY: made by `infos_out_where` with `ninfo` entries; the host
        // is done with them once it answered.
        unsafe { array_free(PMIX_INFO, p.info.cast(), p.ninfo) };
    }
    (p.done)(r);
}

/// Calls the host's slot `f` for a tool described by `info`.
pub(super) fn tool_connected(
    f: pmix_server_tool_connection_fn_t,
    info: &[Info],
    done: Completion<Proc>,
) {
    let Some(f) = f else {
        return done(pmix_server::host::default_tool_identity(info));
    };
    let (ci, ni) = super::host::infos_out_where_ext3x(info);
    let raw = Box::into_raw(Box::new(ToolPending {
        done,
        fallback: pmix_server::host::default_tool_identity(info),
        info: ci,
        ninfo: ni,
    }));
    // SAFETY: the slot's contract: infos valid until the callback, which
    // reclaims `raw` exactly once.
    unsafe { f(ci, ni, Some(tool_cb), raw.cast()) };
}
