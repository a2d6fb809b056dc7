//! `PMIx_Register_event_handler`, `PMIx_Deregister_event_handler` and
//! `PMIx_Notify_event`, in a client process over the Rust client's event
//! machinery and in a server process over its own handler chain and
//! [`Server::notify`] (the fallback rule of [`crate::role`]).
//!
//! - `gate`: each registration's gate (no event before the registration
//!   callback; none after deregistration);
//! - `handler`: calling a C handler with C copies of the event and taking
//!   its results back.

mod gate;
mod handler;
mod info_buf;
mod notify_args;

pub(crate) use gate::retire_all;

use std::os::raw::{c_int, c_void};
use std::sync::Arc;

use pmix_client::{Event, EventCompletion, HandlerId, ProcessEvents};
use pmix_core::{DataRange, Error, Result, Status};
use pmix_server::Server;

use crate::cmem;
use crate::convert::{codes_in, directives_in, proc_from_c};
use crate::role::{self, Endpoint};
use crate::status::{fail, reply_op, status};
use crate::types::*;
use crate::worker::{defer, lock, CPtr};
use gate::{Reg, REGS};
use handler::{handler, Notification, ReturnObject, NO_ID};

/// Where this process's handlers live: its client connection, or, in a
/// server process (`PMIx_server_init`, no `PMIx_Init`), the server's own
/// chain, which receives the `PMIX_RANGE_PROC_LOCAL` events the host raises.
type Events = Endpoint<ProcessEvents>;

impl Events {
    fn register(
        &self,
        codes: &[Status],
        infos: &[pmix_core::Info],
        h: impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static,
    ) -> Result<HandlerId> {
        match self {
            Endpoint::Client(c) => c.register_event_handler(codes, infos, h),
            Endpoint::Server(e) => e.register_event_handler(codes, infos, h),
        }
    }

    fn register_nb(
        &self,
        codes: &[Status],
        infos: &[pmix_core::Info],
        h: impl Fn(&Event<'_>, EventCompletion) + Send + Sync + 'static,
        done: impl FnOnce(Result<HandlerId>) + Send + 'static,
    ) {
        match self {
            Endpoint::Client(c) => c.register_event_handler_nb(codes, infos, h, done),
            Endpoint::Server(e) => e.register_event_handler_nb(codes, infos, h, done),
        }
    }

    fn deregister(&self, id: HandlerId) -> Result<()> {
        match self {
            Endpoint::Client(c) => c.deregister_event_handler(id),
            Endpoint::Server(e) => e.deregister_event_handler(id),
        }
    }
}

/// What registration reads from its arguments.
///
/// # Safety
/// As [`PMIx_Register_event_handler`].
unsafe fn reg_args(
    codes: *const pmix_status_t,
    ncodes: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    evhdlr: pmix_notification_fn_t,
) -> Result<(Events, Notification, Vec<Status>, Vec<pmix_core::Info>)> {
    let c = role::client_else_server_events()?;
    let f = evhdlr.ok_or_else(|| cmem::bad_param("NULL event handler"))?;
    // SAFETY: NULL or `ncodes` codes (caller guarantee).
    let codes = unsafe { codes_in(codes, ncodes) };
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((c, f, codes, infos))
}

/// The `PMIX_EVENT_RETURN_OBJECT` pointer among the registration's infos
/// (the library does not model `PMIX_POINTER` values, so it is read here).
///
/// # Safety
/// `info` NULL or `ninfo` valid infos.
unsafe fn return_object(info: *const pmix_info_t, ninfo: usize) -> Option<ReturnObject> {
    if info.is_null() {
        return None;
    }
    (0..ninfo).find_map(|i| {
        // SAFETY: `i < ninfo` valid infos (caller guarantee).
        let ci = unsafe { &*info.add(i) };
        let key = cmem::fixed_bytes(&ci.key);
        if key != pmix_core::attrs::EVENT_RETURN_OBJECT.as_bytes() || ci.value.type_ != PMIX_POINTER
        {
            return None;
        }
        // SAFETY: the type says the union holds `ptr`.
        Some(ReturnObject(unsafe { ci.value.data.ptr } as usize))
    })
}

/// An id C can be given: not [`NO_ID`], not `SIZE_MAX` (T7).
fn c_id(id: HandlerId) -> Option<usize> {
    usize::try_from(id.0).ok().filter(|&i| i < NO_ID)
}

fn too_many() -> Error {
    Error::with_context(
        Status::ERR_OUT_OF_RESOURCE,
        "event handler ids are exhausted",
    )
}

/// `pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[],
/// size_t ncodes, pmix_info_t info[], size_t ninfo,
/// pmix_notification_fn_t evhdlr, pmix_hdlr_reg_cbfunc_t cbfunc, void
/// *cbdata)`: registers `evhdlr` for `codes` (none: a default handler) with
/// the directives in `info` (name, FIRST/LAST/PREPEND/APPEND/BEFORE/AFTER,
/// ranges, affected procs).
///
/// Without `cbfunc` it blocks and returns the id (a non-negative `int`) or
/// a negative error status. With `cbfunc` it returns `PMIX_SUCCESS` and
/// calls `cbfunc(status, id, cbdata)` on the callback thread — always, also
/// on error (id `UINT_MAX` then), and before any event reaches the handler.
///
/// # Safety
/// `codes` NULL or `ncodes` codes; `info` NULL or `ninfo` valid infos;
/// `evhdlr` and `cbfunc` callable from any thread with the data given.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Register_event_handler(
    codes: *mut pmix_status_t,
    ncodes: usize,
    info: *mut pmix_info_t,
    ninfo: usize,
    evhdlr: pmix_notification_fn_t,
    cbfunc: pmix_hdlr_reg_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    const WHAT: &str = "PMIx_Register_event_handler";
    // SAFETY: forwarded caller guarantee.
    let args = unsafe { reg_args(codes, ncodes, info, ninfo, evhdlr) };
    // SAFETY: as above.
    let object = unsafe { return_object(info, ninfo) };
    let Some(cb) = cbfunc else {
        let (c, f, codes, infos) = match args {
            Ok(a) => a,
            Err(e) => return fail(WHAT, &e),
        };
        let reg = Reg::new(true);
        return match c.register(&codes, &infos, handler(f, Arc::clone(&reg), object)) {
            Ok(id) => match c_id(id).and_then(|i| c_int::try_from(i).ok()) {
                Some(n) => {
                    lock(&REGS).insert(id.0, reg);
                    n
                }
                None => {
                    reg.retire();
                    let _ = c.deregister(id);
                    fail(WHAT, &too_many())
                }
            },
            Err(e) => fail(WHAT, &e),
        };
    };
    let cbdata = CPtr::new(cbdata);
    let (c, f, codes, infos) = match args {
        Ok(a) => a,
        Err(e) => {
            let st = fail(WHAT, &e);
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, NO_ID, cbdata.get()) });
            return PMIX_SUCCESS;
        }
    };
    let reg = Reg::new(false);
    let h = handler(f, Arc::clone(&reg), object);
    let client = c.clone();
    c.register_nb(&codes, &infos, h, move |r| {
        let r = match r {
            Ok(id) => match c_id(id) {
                Some(i) => Ok((id, i)),
                None => {
                    reg.retire();
                    let client = client.clone();
                    defer(move || {
                        let _ = client.deregister(id);
                    });
                    Err(too_many())
                }
            },
            Err(e) => Err(e),
        };
        match r {
            Ok((id, i)) => {
                lock(&REGS).insert(id.0, Arc::clone(&reg));
                defer(move || {
                    // SAFETY: the caller's callback with its own data.
                    unsafe { cb(PMIX_SUCCESS, i, cbdata.get()) };
                    reg.open();
                });
            }
            Err(e) => {
                let st = fail(WHAT, &e);
                // SAFETY: the caller's callback with its own data.
                defer(move || unsafe { cb(st, NO_ID, cbdata.get()) });
            }
        }
    });
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref,
/// pmix_op_cbfunc_t cbfunc, void *cbdata)`: once it returns (or calls
/// back), the handler is not running (unless this is called from it) and
/// is never called again. With `cbfunc` it returns `PMIX_SUCCESS` and
/// always calls `cbfunc(status, cbdata)` on the callback thread (T1);
/// without, it returns the status.
///
/// # Safety
/// `cbfunc` is NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Deregister_event_handler(
    evhdlr_ref: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let r = (|| {
        let c = role::client_else_server_events()?;
        let id = u64::try_from(evhdlr_ref)
            .ok()
            .filter(|_| evhdlr_ref < NO_ID)
            .ok_or_else(|| cmem::bad_param("not an event handler id"))?;
        let reg = lock(&REGS).remove(&id);
        if let Some(reg) = reg {
            reg.retire();
        }
        c.deregister(HandlerId(id))
    })();
    reply_op(status("PMIx_Deregister_event_handler", &r), cbfunc, cbdata)
}

/// `pmix_status_t PMIx_Notify_event(pmix_status_t status, const
/// pmix_proc_t *source, pmix_data_range_t range, const pmix_info_t info[],
/// size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`: raises `status`
/// with `info` to the processes in `range` (`PMIX_RANGE_PROC_LOCAL`: this
/// process's handlers only; `PMIX_RANGE_CUSTOM` with
/// `PMIX_EVENT_CUSTOM_RANGE`). A client is always the source of its own
/// events: `source` is not used. In a server process the event goes to
/// `Server::notify` (`source` NULL or the server itself: the host's own
/// event). The call returns once the event is handed
/// off; then `cbfunc` (may be NULL) is called on the callback thread, and
/// the call returns `PMIX_SUCCESS`.
///
/// # Safety
/// `info` NULL or `ninfo` valid infos; `cbfunc` NULL or callable from any
/// thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Notify_event(
    status_: pmix_status_t,
    source: *const pmix_proc_t,
    range: pmix_data_range_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let r = role::server_else_client(
        // SAFETY: NULL or valid source and `ninfo` valid infos (caller
        // guarantee).
        |server| unsafe { notify_as_server(server, status_, source, range, info, ninfo) },
        |c| {
            // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
            unsafe {
                notify_args::with_directives(info, ninfo, |infos| {
                    c.notify_event(Status(status_), DataRange(range), infos)
                })
            }
        },
    );
    reply_op(status("PMIx_Notify_event", &r), cbfunc, cbdata)
}

/// `PMIx_Notify_event` in a server process: `PMIX_RANGE_PROC_LOCAL` to the
/// process's own handlers, any other range to [`Server::notify`]. A
/// `source` equal to the server's own proc (or NULL) is an event of the
/// host itself.
///
/// # Safety
/// `source` NULL or valid; `info` NULL or `ninfo` valid infos.
unsafe fn notify_as_server(
    server: &Server,
    status: pmix_status_t,
    source: *const pmix_proc_t,
    range: pmix_data_range_t,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<()> {
    let src = if source.is_null() {
        None
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        Some(proc_from_c(unsafe { &*source })?)
    };
    let src = src.filter(|p| p != server.proc());
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    unsafe {
        notify_args::with_directives(info, ninfo, |infos| {
            if DataRange(range) == DataRange::PROC_LOCAL {
                // The server process's own handlers.
                let events = role::server_events().ok_or_else(|| {
                    Error::with_context(Status::ERR_INIT, "the server is finalizing")
                })?;
                return events.notify(Status(status), infos, None);
            }
            server.notify(Status(status), src.as_ref(), DataRange(range), infos)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;
    use std::time::Duration;

    #[test]
    fn ids_given_to_c_are_never_unset_values() {
        assert_eq!(c_id(HandlerId(0)), Some(0));
        assert_eq!(c_id(HandlerId(NO_ID as u64)), None);
        assert_eq!(c_id(HandlerId(u64::MAX)), None);
    }

    #[test]
    fn registration_before_init_still_calls_back() {
        use std::sync::mpsc;
        unsafe extern "C" fn h(
            _: usize,
            _: pmix_status_t,
            _: *const pmix_proc_t,
            _: *mut pmix_info_t,
            _: usize,
            _: *mut pmix_info_t,
            _: usize,
            _: pmix_event_notification_cbfunc_fn_t,
            _: *mut c_void,
        ) {
        }
        unsafe extern "C" fn reg_cb(st: pmix_status_t, id: usize, cbdata: *mut c_void) {
            // SAFETY: the sender leaked below, used once.
            let tx = unsafe { Box::from_raw(cbdata.cast::<mpsc::Sender<(i32, usize)>>()) };
            tx.send((st, id)).unwrap();
        }
        unsafe extern "C" fn op_cb(st: pmix_status_t, cbdata: *mut c_void) {
            // SAFETY: as above.
            let tx = unsafe { Box::from_raw(cbdata.cast::<mpsc::Sender<(i32, usize)>>()) };
            tx.send((st, 0)).unwrap();
        }
        let (tx, rx) = mpsc::channel();
        let data = Box::into_raw(Box::new(tx.clone())).cast();
        // SAFETY: valid (NULL) arrays, a handler and a callback.
        let rc = unsafe {
            PMIx_Register_event_handler(
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                0,
                Some(h),
                Some(reg_cb),
                data,
            )
        };
        assert_eq!(rc, PMIX_SUCCESS);
        let (st, id) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!((st, id), (PMIX_ERR_INIT, NO_ID));
        let data = Box::into_raw(Box::new(tx)).cast();
        // SAFETY: a callback with its data.
        let rc = unsafe { PMIx_Deregister_event_handler(0, Some(op_cb), data) };
        assert_eq!(rc, PMIX_SUCCESS);
        let (st, _) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(st, PMIX_ERR_INIT);
        // SAFETY: no callback: blocking form.
        let rc = unsafe {
            PMIx_Register_event_handler(
                ptr::null_mut(),
                0,
                ptr::null_mut(),
                0,
                Some(h),
                None,
                ptr::null_mut(),
            )
        };
        assert_eq!(rc, PMIX_ERR_INIT);
    }
}
