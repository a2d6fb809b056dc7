//! The C module's `query` slot (`pmix_server_query_fn_t`) as
//! [`Host::query`](pmix_server::Host::query): the queries the pmix-rs
//! server could not answer itself go to the foreign host (Open MPI's ORTE
//! answers job and allocation queries); its answers come back as infos.
//! `PMIX_ERR_PARTIAL_SUCCESS` from the host keeps the answers it gave.

use std::os::raw::c_void;

use pmix_core::{Info, Proc, Query, Result, Status};
use pmix_server::Completion;

use super::{not_supported, procs_out, CHost};
use crate::cdata::array_free;
use crate::cmem;
use crate::convert::{infos_in_lossy, query_to_c};
use crate::types::*;

/// The C copies of one query up-call and its completion.
struct QueryCall {
    done: Completion<Vec<Info>>,
    proc: *mut pmix_proc_t,
    queries: *mut pmix_query_t,
    nqueries: usize,
}

impl Drop for QueryCall {
    fn drop(&mut self) {
        if !self.proc.is_null() {
            // SAFETY: malloc'd by `procs_out`, no longer used by the host.
            unsafe { cmem::free(self.proc) };
        }
        if !self.queries.is_null() {
            // SAFETY: `nqueries` queries written by `query_to_c` (or still
            // zeroed), no longer used by the host.
            unsafe { array_free(PMIX_QUERY, self.queries.cast(), self.nqueries) };
        }
    }
}

/// The C array of `queries` (its slots zeroed where a write failed, so
/// the release stays valid).
fn queries_out(queries: &[Query]) -> Result<*mut pmix_query_t> {
    let arr = cmem::calloc_array::<pmix_query_t>(queries.len())?;
    for (i, q) in queries.iter().enumerate() {
        // SAFETY: slot `i` of the zeroed array of `queries.len()`.
        if let Err(e) = unsafe { query_to_c(q, arr.add(i)) } {
            // SAFETY: ours, every slot a query or zeroed.
            unsafe { array_free(PMIX_QUERY, arr.cast(), queries.len()) };
            return Err(e);
        }
    }
    Ok(arr)
}

/// The host's answer.
///
/// # Safety
/// `cbdata` is the `QueryCall` the slot was given, used once; `info` NULL
/// or `ninfo` valid infos until `release_fn` runs.
unsafe extern "C" fn query_cb(
    status: pmix_status_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    // SAFETY: the box `CHost::query_call` leaked (caller guarantee).
    let call = unsafe { Box::from_raw(cbdata.cast::<QueryCall>()) };
    let st = Status(status);
    let r = if st.is_success() || st == Status::ERR_PARTIAL_SUCCESS {
        // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
        Ok(unsafe { infos_in_lossy(info, ninfo) })
    } else {
        Err(pmix_core::Error::new(st))
    };
    if let Some(rel) = release_fn {
        // SAFETY: the host's release function with its own data.
        unsafe { rel(release_cbdata) };
    }
    let mut call = call;
    let done = std::mem::replace(&mut call.done, Box::new(|_| {}));
    drop(call);
    done(r);
}

impl CHost {
    /// Calls the module's `query` slot.
    pub(super) fn query_call(&self, proc: &Proc, queries: &[Query], done: Completion<Vec<Info>>) {
        let m = self.module();
        let Some(f) = m.query else {
            return done(Err(not_supported("query")));
        };
        let cproc = procs_out(std::slice::from_ref(proc));
        if cproc.is_null() {
            return done(Err(cmem::nomem()));
        }
        let cq = match queries_out(queries) {
            Ok(q) => q,
            Err(e) => {
                // SAFETY: ours, unused.
                unsafe { cmem::free(cproc) };
                return done(Err(e));
            }
        };
        let call = Box::new(QueryCall {
            done,
            proc: cproc,
            queries: cq,
            nqueries: queries.len(),
        });
        let raw = Box::into_raw(call);
        // SAFETY: the slot's contract; the copies live until the callback.
        let rc = unsafe { f(cproc, cq, queries.len(), Some(query_cb), raw.cast()) };
        if rc == PMIX_SUCCESS {
            return; // the callback comes (it may already have)
        }
        // SAFETY: no callback will come: the box is still ours.
        let mut call = unsafe { Box::from_raw(raw) };
        let done = std::mem::replace(&mut call.done, Box::new(|_| {}));
        drop(call);
        done(if rc == PMIX_OPERATION_SUCCEEDED {
            Ok(Vec::new())
        } else {
            Err(pmix_core::Error::new(Status(rc)))
        });
    }
}
