//! `PMIx_Register_event_handler`, `PMIx_Deregister_event_handler` and
//! `PMIx_Notify_event` over the Rust client's event machinery.
//!
//! A C handler runs on the client's progress thread. It gets C copies of
//! the event's source, infos and the results of the handlers before it,
//! which stay valid until it calls the notification callback it is given
//! ([`event_done`]); that callback converts the handler's results back,
//! completes the event in the Rust chain, and then calls the handler's own
//! `cbfunc` (on the callback thread) so it can release its results array
//! (CAPI.md §4.3).
//!
//! With a registration callback, the Rust registration hands over the id
//! before the handler is armed, but the C callback must run on the
//! callback thread: each registration has a gate the handler waits on
//! until that callback returned, so no event reaches a handler before its
//! registration callback (as the standard requires). Deregistration closes
//! the gate for good, so a handler deregistered from its own registration
//! callback never runs and never blocks the progress thread.

use std::collections::BTreeMap;
use std::os::raw::{c_int, c_void};
use std::ptr;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use pmix_client::{Client, Event, EventCompletion, HandlerId, ProcessEvents};
use pmix_core::{DataRange, Error, Result, Status};

use super::worker::{defer, lock, CPtr};
use super::{current, directives_in, fail, infos_in_lossy, infos_out_lossy, status};
use crate::cmem;
use crate::convert::proc_to_c;
use crate::cvalue;
use crate::types::*;

/// The id a failed registration reports: OpenPMIx's `UINT_MAX`. Never a
/// real id, and not `SIZE_MAX`, which Open MPI reserves for "unset" (T7).
const NO_ID: usize = u32::MAX as usize;

/// `pmix_notification_fn_t` without the `Option`.
type Notification = unsafe extern "C" fn(
    usize,
    pmix_status_t,
    *const pmix_proc_t,
    *mut pmix_info_t,
    usize,
    *mut pmix_info_t,
    usize,
    pmix_event_notification_cbfunc_fn_t,
    *mut c_void,
);

/// One C registration's gate.
#[derive(Debug, Default)]
struct Reg {
    state: Mutex<RegState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct RegState {
    /// The registration callback returned (or there was none).
    ready: bool,
    /// Deregistered: the handler must not run any more.
    retired: bool,
}

impl Reg {
    fn new(ready: bool) -> Arc<Reg> {
        let r = Arc::new(Reg::default());
        lock(&r.state).ready = ready;
        r
    }

    fn open(&self) {
        lock(&self.state).ready = true;
        self.changed.notify_all();
    }

    fn retire(&self) {
        lock(&self.state).retired = true;
        self.changed.notify_all();
    }

    /// Waits until the handler may run; `false` once it is retired.
    fn wait_ready(&self) -> bool {
        let mut st = lock(&self.state);
        loop {
            if st.retired {
                return false;
            }
            if st.ready {
                return true;
            }
            st = self
                .changed
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// The live C registrations by id.
static REGS: Mutex<BTreeMap<u64, Arc<Reg>>> = Mutex::new(BTreeMap::new());

/// Closes every gate (the last finalize: the progress thread must not stay
/// blocked on a registration callback while it is being stopped).
pub(super) fn retire_all() {
    let regs = std::mem::take(&mut *lock(&REGS));
    for r in regs.values() {
        r.retire();
    }
}

/// What a C handler is given, kept alive until it calls [`event_done`].
struct EvCtx {
    source: Option<pmix_proc_t>,
    info: *mut pmix_info_t,
    ninfo: usize,
    results: *mut pmix_info_t,
    nresults: usize,
    done: Option<EventCompletion>,
}

impl Drop for EvCtx {
    fn drop(&mut self) {
        // SAFETY: both arrays came from `infos_out_lossy` with these counts
        // and are not used after the handler's completion.
        unsafe {
            cvalue::array_free(PMIX_INFO, self.info.cast(), self.ninfo);
            cvalue::array_free(PMIX_INFO, self.results.cast(), self.nresults);
        }
    }
}

/// The Rust handler that calls the C one.
fn handler(f: Notification, reg: Arc<Reg>) -> impl Fn(&Event<'_>, EventCompletion) + Send + Sync {
    move |ev, done| {
        if reg.wait_ready() {
            deliver(f, ev, done);
        }
        // else: dropping `done` completes as PMIX_EVENT_NO_ACTION_TAKEN
    }
}

fn deliver(f: Notification, ev: &Event<'_>, done: EventCompletion) {
    let (info, ninfo) = infos_out_lossy(ev.info);
    let (results, nresults) = infos_out_lossy(ev.results);
    let ctx = Box::into_raw(Box::new(EvCtx {
        source: ev.source.map(proc_to_c),
        info,
        ninfo,
        results,
        nresults,
        done: Some(done),
    }));
    // SAFETY: `ctx` is live until `event_done` reclaims it; the source
    // pointer points into it.
    let source = unsafe { (*ctx).source.as_ref() }.map_or(ptr::null(), |p| p as *const _);
    let id = usize::try_from(ev.registration.0).unwrap_or(NO_ID);
    // SAFETY: the C handler's contract: the arrays and the source are valid
    // until it calls `event_done` with `ctx` as notification_cbdata.
    unsafe {
        f(
            id,
            ev.status.0,
            source,
            info,
            ninfo,
            results,
            nresults,
            Some(event_done),
            ctx.cast(),
        )
    };
}

/// The `pmix_event_notification_cbfunc_fn_t` handed to C handlers: the
/// handler is done with `status` and returns `results` (copied here); the
/// handler's `cbfunc(PMIX_SUCCESS, thiscbdata)` follows on the callback
/// thread, after which it may release `results`.
///
/// # Safety
/// `notification_cbdata` is the `cbdata` a handler was called with, used
/// once; `results` is NULL or `nresults` valid infos.
unsafe extern "C" fn event_done(
    status_: pmix_status_t,
    results: *mut pmix_info_t,
    nresults: usize,
    cbfunc: pmix_op_cbfunc_t,
    thiscbdata: *mut c_void,
    notification_cbdata: *mut c_void,
) {
    if !notification_cbdata.is_null() {
        // SAFETY: the box `deliver` leaked for this call, reclaimed once.
        let mut ctx = unsafe { Box::from_raw(notification_cbdata.cast::<EvCtx>()) };
        // SAFETY: NULL or `nresults` valid infos (caller guarantee).
        let res = unsafe { infos_in_lossy(results, nresults) };
        if let Some(d) = ctx.done.take() {
            d.done(Status(status_), res);
        }
    }
    if let Some(cb) = cbfunc {
        let data = CPtr::new(thiscbdata);
        // SAFETY: the handler's release callback with its own data.
        defer(move || unsafe { cb(PMIX_SUCCESS, data.get()) });
    }
}

/// Where this process's handlers live: its client connection, or, in a
/// server process (`PMIx_server_init`, no `PMIx_Init`), the server's own
/// chain, which receives the `PMIX_RANGE_PROC_LOCAL` events the host raises.
#[derive(Clone)]
enum Endpoint {
    Client(Client),
    Server(ProcessEvents),
}

impl Endpoint {
    fn current() -> Result<Endpoint> {
        match current() {
            Ok(c) => Ok(Endpoint::Client(c)),
            Err(e) => crate::server::events().map(Endpoint::Server).ok_or(e),
        }
    }

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
) -> Result<(Endpoint, Notification, Vec<Status>, Vec<pmix_core::Info>)> {
    let c = Endpoint::current()?;
    let f = evhdlr.ok_or_else(|| cmem::bad_param("NULL event handler"))?;
    let codes = if codes.is_null() || ncodes == 0 {
        Vec::new()
    } else {
        // SAFETY: `ncodes` codes (caller guarantee).
        unsafe { std::slice::from_raw_parts(codes, ncodes) }
            .iter()
            .map(|&s| Status(s))
            .collect()
    };
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((c, f, codes, infos))
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
    let Some(cb) = cbfunc else {
        let (c, f, codes, infos) = match args {
            Ok(a) => a,
            Err(e) => return fail(WHAT, &e),
        };
        let reg = Reg::new(true);
        return match c.register(&codes, &infos, handler(f, Arc::clone(&reg))) {
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
    let h = handler(f, Arc::clone(&reg));
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
        let c = Endpoint::current()?;
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
    let st = status("PMIx_Deregister_event_handler", &r);
    match cbfunc {
        None => st,
        Some(cb) => {
            let cbdata = CPtr::new(cbdata);
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, cbdata.get()) });
            PMIX_SUCCESS
        }
    }
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
    // In a server process (after `PMIx_server_init`) the event goes to the
    // server's clients (and, per range, beyond through the host).
    let r = if let Some(server) = crate::server::active() {
        // SAFETY: NULL or valid source and `ninfo` valid infos (caller
        // guarantee).
        unsafe { crate::server::notify(&server, status_, source, range, info, ninfo) }
    } else {
        current().and_then(|c| {
            // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
            let infos = unsafe { directives_in(info, ninfo) }?;
            c.notify_event(Status(status_), DataRange(range), &infos)
        })
    };
    let st = status("PMIx_Notify_event", &r);
    match cbfunc {
        None => st,
        Some(cb) => {
            let cbdata = CPtr::new(cbdata);
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, cbdata.get()) });
            PMIX_SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_gate_opens_once_and_retiring_wins() {
        let r = Reg::new(false);
        let r2 = Arc::clone(&r);
        let t = std::thread::spawn(move || r2.wait_ready());
        std::thread::sleep(Duration::from_millis(20));
        r.open();
        assert!(t.join().unwrap());
        let r = Reg::new(false);
        let r2 = Arc::clone(&r);
        let t = std::thread::spawn(move || r2.wait_ready());
        r.retire();
        r.open();
        assert!(!t.join().unwrap());
    }

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
