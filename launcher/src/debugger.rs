//! Direct-launch debugging (`pmixrun --stop-in-init RANKS`): the job-level
//! `PMIX_DEBUG_STOP_IN_INIT` that makes those ranks wait in `PMIx_Init`,
//! and the announcement once every one of them waits: pmixrun raises
//! `PMIX_READY_FOR_DEBUG` (range SESSION, cached for tools that attach
//! later) with `PMIX_NSPACE` = the job and `PMIX_BREAKPOINT` =
//! `"pmix-init"`. A debugger then reads the process table and releases
//! the ranks with `PMIX_DEBUGGER_RELEASE`.

use std::sync::Mutex;
use std::time::Duration;

use pmix_core::{attrs, DataArray, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::Server;

use crate::host::Events;

/// The job-level directive for `ranks` (empty: every rank).
pub(crate) fn stop_in_init_info(nspace: &Nspace, ranks: &[u32]) -> pmix_core::Result<Info> {
    let v = match ranks {
        [] => Value::Bool(true),
        [r] => Value::Rank(Rank(*r)),
        many => Value::DataArray(Box::new(DataArray::from_procs(
            many.iter()
                .map(|r| Proc::from_parts(nspace.clone(), Rank(*r)))
                .collect(),
        ))),
    };
    Info::new(attrs::DEBUG_STOP_IN_INIT, v)
}

/// The ranks that stop, of `np` (empty `ranks`: all).
pub(crate) fn targets(np: u32, ranks: &[u32]) -> Vec<usize> {
    if ranks.is_empty() {
        (0..np as usize).collect()
    } else {
        ranks
            .iter()
            .filter(|r| **r < np)
            .map(|r| *r as usize)
            .collect()
    }
}

/// Waits (until `over`) for every target to report it waits, then raises
/// the job's `PMIX_READY_FOR_DEBUG` once.
pub(crate) fn announce_when_waiting(
    server: &Server,
    events: &Events,
    nspace: &Nspace,
    targets: &[usize],
    over: &Mutex<bool>,
) {
    while !*over.lock().unwrap_or_else(|e| e.into_inner()) {
        let st = events.snapshot().job(nspace);
        if targets
            .iter()
            .all(|r| st.debug_waiting.get(*r).copied().unwrap_or(false))
        {
            let info: Vec<Info> = [
                (attrs::NSPACE, Value::String(nspace.as_str().into())),
                (attrs::BREAKPOINT, Value::String("pmix-init".into())),
            ]
            .into_iter()
            .filter_map(|(k, v)| Info::new(k, v).ok())
            .collect();
            if let Err(e) = server.notify(Status::READY_FOR_DEBUG, None, DataRange::SESSION, &info)
            {
                eprintln!("pmixrun: cannot announce the job's ranks waiting for a debugger: {e}");
            }
            return;
        }
        events.wait(Duration::from_millis(50));
    }
}
