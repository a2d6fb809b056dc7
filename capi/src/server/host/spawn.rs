//! The C module's spawn slot (`pmix_server_spawn_fn_t`) as
//! [`Host::spawn`](pmix_server::Host::spawn): C copies of the requestor,
//! the job info and the apps, kept until the host's callback gives the new
//! namespace.

use std::os::raw::{c_char, c_void};

use pmix_core::{Error, Info, Proc, Status};
use pmix_server::Completion;

use super::{not_supported, status_result, CHost, Keep};
use crate::cdata::array_free;
use crate::cmem;
use crate::types::*;

/// The C copy of a spawn's apps, released when the host is done with it.
struct CApps {
    apps: *mut pmix_app_t,
    n: usize,
}

impl Drop for CApps {
    fn drop(&mut self) {
        // SAFETY: made by `apps_to_c` with `n` entries (NULL when empty),
        // no longer used by the host.
        unsafe { array_free(PMIX_APP, self.apps.cast(), self.n) };
    }
}

/// The callback data of a spawn up-call.
struct SpawnPending {
    done: Completion<pmix_core::Nspace>,
    _keep: Keep,
    _apps: CApps,
}

/// The host's spawn answer: the new namespace (copied before completing).
///
/// # Safety
/// `cbdata` is the `SpawnPending` given to the spawn slot, used once;
/// `nspace` NULL or NUL-terminated.
unsafe extern "C" fn spawn_cb(st: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void) {
    // SAFETY: the box `CHost::spawn` leaked for this call (caller
    // guarantee).
    let p = unsafe { Box::from_raw(cbdata.cast::<SpawnPending>()) };
    let r = status_result(st).and_then(|()| {
        // SAFETY: NULL or NUL-terminated (caller guarantee).
        match unsafe { cmem::c_string(nspace) }? {
            Some(ns) if !ns.is_empty() => pmix_core::Nspace::new(ns),
            _ => Err(Error::with_context(
                Status::ERR_BAD_PARAM,
                "the host's spawn succeeded without a namespace",
            )),
        }
    });
    (p.done)(r);
}

impl CHost {
    /// The spawn slot (`pmix_server_spawn_fn_t`) with C copies of the
    /// requestor, the job info and the apps; the host answers through
    /// `spawn_cb` with the new namespace. A slot that returns without
    /// calling back (any status but `PMIX_SUCCESS`) fails the spawn with
    /// that status (`PMIX_OPERATION_SUCCEEDED` too: there is no namespace
    /// without the callback).
    pub(super) fn spawn_call(
        &self,
        requestor: &Proc,
        job_info: &[Info],
        apps: &[pmix_core::App],
        done: Completion<pmix_core::Nspace>,
    ) {
        let m = self.module();
        let Some(f) = m.spawn else {
            return done(Err(not_supported("spawn")));
        };
        let keep = match Keep::request(requestor, job_info, None) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let capps = match crate::convert::apps_to_c(apps) {
            Ok(a) => CApps {
                apps: a,
                n: apps.len(),
            },
            Err(e) => return done(Err(e)),
        };
        let (pp, ci, ni, ap, na) = (keep.procs, keep.info, keep.ninfo, capps.apps, capps.n);
        let raw = Box::into_raw(Box::new(SpawnPending {
            done,
            _keep: keep,
            _apps: capps,
        }));
        // SAFETY: the slot's contract; the copies live in the box until
        // the callback reclaims it.
        let rc = unsafe { f(pp, ci, ni, ap, na, Some(spawn_cb), raw.cast()) };
        if rc != PMIX_SUCCESS {
            // SAFETY: no callback will come: the box is still ours.
            let p = unsafe { Box::from_raw(raw) };
            let st = if rc == PMIX_OPERATION_SUCCEEDED {
                Status::ERR_BAD_PARAM
            } else {
                Status(rc)
            };
            (p.done)(Err(Error::with_context(
                st,
                format!("the host's spawn returned {}", Status(rc)),
            )));
        }
    }
}
