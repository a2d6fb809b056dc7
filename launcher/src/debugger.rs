//! Direct-launch debugging: `pmixrun --stop-in-init RANKS`, or a tool's
//! `PMIx_Spawn` with `PMIX_DEBUG_STOP_IN_INIT` in its job-level
//! directives. The job data carries `PMIX_DEBUG_STOP_IN_INIT`, which makes
//! those ranks wait in `PMIx_Init` after raising `PMIX_READY_FOR_DEBUG`
//! (`pmix_client::debug`); once every one of them waits, the supervisor
//! raises the job's `PMIX_READY_FOR_DEBUG` (range SESSION, cached for
//! tools that attach later) with `PMIX_NSPACE` = the job and
//! `PMIX_BREAKPOINT` = `"pmix-init"`. A debugger then reads the process
//! table and releases the ranks with `PMIX_DEBUGGER_RELEASE`.

use pmix_core::{attrs, DataArray, DataRange, Info, Nspace, Proc, Rank, Status, Value};
use pmix_server::Server;

use crate::host::JobEvents;

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

/// The ranks of a job of `np` that a spawn's `PMIX_DEBUG_STOP_IN_INIT`
/// value stops (`None`: no directive, or one naming no rank).
pub(crate) fn spawn_targets(v: &Value, np: u32) -> Option<Vec<usize>> {
    let t = match v {
        Value::Bool(true) => targets(np, &[]),
        Value::Rank(r) if *r == Rank::WILDCARD => targets(np, &[]),
        Value::Rank(Rank(r)) | Value::Uint32(r) => targets(np, &[*r]),
        _ => Vec::new(),
    };
    (!t.is_empty()).then_some(t)
}

/// Whether every target of the job waits in init.
pub(crate) fn all_waiting(ev: &JobEvents, targets: &[usize]) -> bool {
    targets
        .iter()
        .all(|r| ev.debug_waiting.get(*r).copied().unwrap_or(false))
}

/// Raises the job's `PMIX_READY_FOR_DEBUG` for the tools.
pub(crate) fn announce(server: &Server, nspace: &Nspace) {
    let info: Vec<Info> = [
        (attrs::NSPACE, Value::String(nspace.as_str().into())),
        (attrs::BREAKPOINT, Value::String("pmix-init".into())),
    ]
    .into_iter()
    .filter_map(|(k, v)| Info::new(k, v).ok())
    .collect();
    if let Err(e) = server.notify(Status::READY_FOR_DEBUG, None, DataRange::SESSION, &info) {
        eprintln!("pmixrun: cannot announce job {nspace} waiting for a debugger: {e}");
    }
}
