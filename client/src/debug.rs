//! Stopping in init for a debugger (`PMIX_DEBUG_STOP_IN_INIT`, the
//! standard's direct-launch debugging use case).
//!
//! When the job-level data of this process's namespace holds
//! `PMIX_DEBUG_STOP_IN_INIT` naming it (`true`: every rank; a rank; an
//! array of procs), the first `init` registers a handler for
//! `PMIX_DEBUGGER_RELEASE`, raises `PMIX_READY_FOR_DEBUG` with
//! `PMIX_BREAKPOINT` = `"pmix-init"` towards the host (range RM; the
//! launcher tells the tools once every target waits), and returns only
//! when a debugger released it. `PMIX_DEBUG_STOP_ON_EXEC` needs ptrace,
//! which pmix-rs does not do: the launcher refuses it.

use std::sync::{Arc, Condvar, Mutex};

use pmix_core::{attrs, DataRange, Info, Proc, Rank, Result, Status, Value};

use crate::Client;

/// The breakpoint name a process stopped in init reports.
pub const BREAKPOINT_INIT: &str = "pmix-init";

/// Whether `v` (a `PMIX_DEBUG_STOP_IN_INIT` value) names `me`.
pub fn names(v: &Value, me: &Proc) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Rank(r) => *r == me.rank || *r == Rank::WILDCARD,
        Value::Uint32(r) => Rank(*r) == me.rank,
        Value::Proc(p) => p.nspace == me.nspace && (p.rank == me.rank || p.rank == Rank::WILDCARD),
        Value::DataArray(a) => a.items().iter().any(|i| names(i, me)),
        _ => false,
    }
}

/// Stops here when the job asks it (module documentation).
///
/// # Errors
/// Registering the handler or raising the event failed.
pub(crate) fn stop_in_init(c: &Client) -> Result<()> {
    let me = c.proc().clone();
    let job = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let Ok(v) = c.get(&job, attrs::DEBUG_STOP_IN_INIT, &[]) else {
        return Ok(());
    };
    if !names(&v, &me) {
        return Ok(());
    }
    let released = Arc::new((Mutex::new(false), Condvar::new()));
    let flag = Arc::clone(&released);
    let id = c.register_event_handler(&[Status::DEBUGGER_RELEASE], &[], move |_, done| {
        let (m, cv) = &*flag;
        *m.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
        done.done(Status::SUCCESS, vec![]);
    })?;
    let info = [
        Info::new(attrs::BREAKPOINT, Value::String(BREAKPOINT_INIT.into()))?,
        Info::new(attrs::EVENT_NON_DEFAULT, Value::Bool(true))?,
    ];
    c.notify_event(Status::READY_FOR_DEBUG, DataRange::RM, &info)?;
    let (m, cv) = &*released;
    let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
    while !*g {
        g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
    }
    drop(g);
    let _ = c.deregister_event_handler(id);
    Ok(())
}
