//! Calling a C event handler from the Rust chain.
//!
//! A C handler runs on the client's progress thread. It gets C copies of
//! the event's source, infos and the results of the handlers before it,
//! which stay valid until it calls the notification callback it is given
//! ([`event_done`]); that callback converts the handler's results back,
//! completes the event in the Rust chain, and then calls the handler's own
//! `cbfunc` (on the callback thread) so it can release its results array.
//!
//! Per event (issue 18) the glue takes no lock: the context comes from a
//! pool of the thread (the progress thread's, as handlers usually complete
//! inline), and the C copy of the source stays in the context for the next
//! event of the same source.

use std::cell::RefCell;
use std::os::raw::c_void;
use std::ptr;
use std::sync::{Arc, Mutex};

use pmix_client::{Event, EventCompletion};
use pmix_core::{Proc, Status};

use super::gate::Reg;
use super::info_buf::InfoBuf;
use crate::cmem;
use crate::convert::{infos_in_lossy, proc_to_c};
use crate::role::{self, Endpoint};
use crate::types::*;
use crate::worker::{defer, lock, CPtr};

/// The id a failed registration reports: OpenPMIx's `UINT_MAX`. Never a
/// real id, and not `SIZE_MAX`, which Open MPI reserves for "unset" (T7).
pub(super) const NO_ID: usize = u32::MAX as usize;

/// `pmix_notification_fn_t` without the `Option`.
pub(super) type Notification = unsafe extern "C" fn(
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

/// What a C handler is given, kept alive until it calls [`event_done`];
/// then cleared and kept for the next event ([`recycle`]).
struct EvCtx {
    /// The C copy of the last event's source: kept across events, read
    /// again only when the source differs ([`set_source`]).
    source: Option<pmix_proc_t>,
    info: InfoBuf,
    results: InfoBuf,
    done: Option<EventCompletion>,
}

/// Contexts kept for reuse: with their info arrays, a handler call costs
/// no heap allocation once the pool is warm (as many contexts as events
/// in flight at once, up to [`POOL_KEEP`] per thread). Boxed: a context's
/// address is the `cbdata` a C handler holds.
#[allow(clippy::vec_box)]
type Pool = Vec<Box<EvCtx>>;

thread_local! {
    /// The contexts this thread recycled: the progress thread's own, as a
    /// handler usually completes before it returns.
    static LOCAL_POOL: RefCell<Pool> = const { RefCell::new(Vec::new()) };
}

/// Contexts recycled past a thread's [`POOL_KEEP`] (a handler that
/// completes on threads of its own), taken when the taker's pool is
/// empty.
static SHARED_POOL: Mutex<Pool> = Mutex::new(Vec::new());

/// Most contexts a pool keeps.
const POOL_KEEP: usize = 64;

/// A cleared context from this thread's pool, the shared one, or a new one.
fn take_ctx() -> Box<EvCtx> {
    LOCAL_POOL
        .try_with(|p| p.try_borrow_mut().ok()?.pop())
        .ok()
        .flatten()
        .or_else(|| lock(&SHARED_POOL).pop())
        .unwrap_or_else(|| {
            Box::new(EvCtx {
                source: None,
                info: InfoBuf::new(),
                results: InfoBuf::new(),
                done: None,
            })
        })
}

/// Keeps `ctx` in `pool` unless it is full; the context back when not.
fn keep(pool: &mut Pool, ctx: Box<EvCtx>) -> Option<Box<EvCtx>> {
    if pool.capacity() == 0 {
        pool.reserve_exact(POOL_KEEP);
    }
    if pool.len() < POOL_KEEP {
        pool.push(ctx);
        return None;
    }
    Some(ctx)
}

/// Clears `ctx` (the handler is done with it; its source stays for the
/// next event) and keeps it in this thread's pool, else the shared one
/// unless that is full too.
fn recycle(mut ctx: Box<EvCtx>) {
    ctx.info.clear();
    ctx.results.clear();
    ctx.done = None;
    let mut ctx = Some(ctx);
    let _ = LOCAL_POOL.try_with(|p| {
        if let (Ok(mut p), Some(c)) = (p.try_borrow_mut(), ctx.take()) {
            ctx = keep(&mut p, c);
        }
    });
    if let Some(c) = ctx {
        let _ = keep(&mut lock(&SHARED_POOL), c);
    }
}

/// Sets `slot` to the event's source as a C handler sees it, unless it
/// holds it already. An event the host raised itself carries none in
/// pmix-rs; OpenPMIx gives handlers the server's identity then, and C
/// handlers may read it unconditionally (Open MPI 5's default handler
/// does).
fn set_source(slot: &mut Option<pmix_proc_t>, ev: &Event<'_>) {
    match ev.source {
        Some(p) => keep_source(slot, p),
        None => *slot = host_source(),
    }
}

/// Sets `slot` to the C copy of `p` unless it holds it already.
fn keep_source(slot: &mut Option<pmix_proc_t>, p: &Proc) {
    let same = slot.as_ref().is_some_and(|c| {
        c.rank == p.rank.0 && cmem::fixed_bytes(&c.nspace) == p.nspace.as_str().as_bytes()
    });
    if !same {
        *slot = Some(proc_to_c(p));
    }
}

/// The host's identity: this process's server, or the server itself.
fn host_source() -> Option<pmix_proc_t> {
    match role::client_else_server() {
        Ok(Endpoint::Client(c)) => Some(proc_to_c(c.server())),
        Ok(Endpoint::Server(s)) => Some(proc_to_c(s.proc())),
        Err(_) => None,
    }
}

/// The object a registration gave with `PMIX_EVENT_RETURN_OBJECT` (a
/// `PMIX_POINTER`), handed back to the handler among the infos of every
/// event it gets, as OpenPMIx does (its examples find their lock there).
#[derive(Clone, Copy)]
pub(super) struct ReturnObject(pub(super) usize);

/// The Rust handler that calls the C one.
pub(super) fn handler(
    f: Notification,
    reg: Arc<Reg>,
    object: Option<ReturnObject>,
) -> impl Fn(&Event<'_>, EventCompletion) + Send + Sync {
    move |ev, done| {
        if reg.wait_ready() {
            deliver(f, ev, done, object);
        }
        // else: dropping `done` completes as PMIX_EVENT_NO_ACTION_TAKEN
    }
}

fn deliver(f: Notification, ev: &Event<'_>, done: EventCompletion, object: Option<ReturnObject>) {
    let mut ctx = take_ctx();
    match object {
        Some(ReturnObject(p)) => {
            ctx.info.fill_reserving(ev.info, 1);
            ctx.info
                .push_pointer(pmix_core::attrs::EVENT_RETURN_OBJECT, p as *mut c_void);
        }
        None => ctx.info.fill(ev.info),
    }
    ctx.results.fill(ev.results);
    set_source(&mut ctx.source, ev);
    ctx.done = Some(done);
    let (info, ninfo) = ctx.info.as_c();
    let (results, nresults) = ctx.results.as_c();
    let ctx = Box::into_raw(ctx);
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
        let done = ctx.done.take();
        // The handler is done with what it was given.
        recycle(ctx);
        if let Some(d) = done {
            d.done(Status(status_), res);
        }
    }
    if let Some(cb) = cbfunc {
        let data = CPtr::new(thiscbdata);
        // SAFETY: the handler's release callback with its own data.
        defer(move || unsafe { cb(PMIX_SUCCESS, data.get()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::{Nspace, Proc, Rank};
    use std::sync::mpsc;
    use std::time::Duration;

    /// Issue 18: a context recycled on a thread (the progress thread, for a
    /// handler that completes inline) is taken again there without the
    /// shared pool's lock.
    #[test]
    fn a_thread_reuses_its_contexts_without_the_shared_pool() {
        let (warm_tx, warm_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            recycle(take_ctx());
            warm_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            for _ in 0..100 {
                recycle(take_ctx());
            }
            done_tx.send(()).unwrap();
        });
        warm_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        let held = lock(&SHARED_POOL);
        go_tx.send(()).unwrap();
        let got = done_rx.recv_timeout(Duration::from_secs(10));
        drop(held);
        assert_eq!(got, Ok(()), "taking a context waited for the shared pool");
    }

    fn proc_of(ns: &str, rank: u32) -> Proc {
        Proc::from_parts(Nspace::new(ns).unwrap(), Rank(rank))
    }

    /// The C source a context keeps is the event's: read again when the
    /// rank or the namespace differs (one a prefix of the other included).
    #[test]
    fn a_kept_source_is_replaced_when_the_source_differs() {
        let mut slot = None;
        for p in [
            proc_of("job-a", 0),
            proc_of("job-a", 0),
            proc_of("job-a", 1),
            proc_of("job-ab", 1),
            proc_of("job-a", 1),
        ] {
            keep_source(&mut slot, &p);
            let c = slot.as_ref().unwrap();
            assert_eq!(c.rank, p.rank.0);
            assert_eq!(cmem::fixed_bytes(&c.nspace), p.nspace.as_str().as_bytes());
        }
    }
}
