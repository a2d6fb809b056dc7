//! `PMIx_Log` and `PMIx_Log_nb`.
//!
//! They hand the data to the host through the server (Open MPI's
//! `MPI_Abort` banner is printed by mpirun). Outside a client, or when the
//! host does not log, the process writes `PMIX_LOG_MSG` and
//! `PMIX_LOG_STDERR` to its stderr and `PMIX_LOG_STDOUT` to its stdout
//! ([`pmix_client::log_to_stdio`]); other channels are then
//! `PMIX_ERR_NOT_SUPPORTED` (the supported entries are still written).

use std::os::raw::c_void;

use pmix_core::{Error, Result, Status};

use crate::convert::directives_in;
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::{defer, CPtr};

/// Logs `data`: through the server to the host when this process is a
/// connected client (the host decides where each channel goes: Open MPI's
/// ORTE prints its `MPI_Abort` banner); written by this process itself
/// (stdout/stderr channels) when it is not, or when the host does not log.
/// `done` gets the outcome, on the client's reader thread or here.
///
/// # Safety
/// `data` NULL or `ndata` valid infos; `directives` NULL or `ndirs` valid
/// infos.
unsafe fn log_any(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    done: impl FnOnce(Result<()>) + Send + 'static,
) {
    // SAFETY: forwarded caller guarantee.
    let args = unsafe { directives_in(data, ndata) }
        // SAFETY: as above.
        .and_then(|d| Ok((d, unsafe { directives_in(directives, ndirs) }?)));
    let (infos, dirs) = match args {
        Ok(a) => a,
        Err(e) => return done(Err(e)),
    };
    match role::client() {
        Ok(c) => c.log_nb(&infos.clone(), &dirs, move |r| match r {
            Err(e) if e.status() == Status::ERR_NOT_SUPPORTED => {
                done(pmix_client::log_to_stdio(&infos))
            }
            r => done(r),
        }),
        Err(_) => done(pmix_client::log_to_stdio(&infos)),
    }
}

/// `pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
/// const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
/// void *cbdata)`: hands `data` (`PMIX_LOG_MSG`, `PMIX_LOG_STDERR`,
/// `PMIX_LOG_STDOUT`, …) with `directives` to the host through the server;
/// without a host that logs (or outside a client) this process writes the
/// stdout/stderr channels itself and other channels are
/// `PMIX_ERR_NOT_SUPPORTED`. With `cbfunc` it returns `PMIX_SUCCESS` and
/// calls `cbfunc(status, cbdata)` on the callback thread.
///
/// # Safety
/// `data` NULL or `ndata` valid infos; `directives` NULL or `ndirs` valid
/// infos; `cbfunc` NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log_nb(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        // SAFETY: forwarded caller guarantee.
        return unsafe { PMIx_Log(data, ndata, directives, ndirs) };
    };
    let cbdata = CPtr::new(cbdata);
    let done = move |r: Result<()>| {
        let st = status("PMIx_Log_nb", &r);
        // SAFETY: the caller's callback with its own data.
        defer(move || unsafe { cb(st, cbdata.get()) });
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { log_any(data, ndata, directives, ndirs, done) };
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata, const
/// pmix_info_t directives[], size_t ndirs)`: as [`PMIx_Log_nb`], blocking
/// until the host (or this process) logged.
///
/// # Safety
/// As [`PMIx_Log_nb`].
#[no_mangle]
pub unsafe extern "C" fn PMIx_Log(
    data: *const pmix_info_t,
    ndata: usize,
    directives: *const pmix_info_t,
    ndirs: usize,
) -> pmix_status_t {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let done = move |r| {
        let _ = tx.send(r);
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { log_any(data, ndata, directives, ndirs, done) };
    let r = rx.recv().unwrap_or_else(|_| {
        Err(Error::with_context(
            Status::ERR_LOST_CONNECTION,
            "no answer to the log request",
        ))
    });
    status("PMIx_Log", &r)
}
