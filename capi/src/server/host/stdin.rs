//! The C module's `push_stdin` slot (`pmix_server_stdin_fn_t`) as
//! [`Host::push_stdin`](pmix_server::Host::push_stdin): a client's or
//! tool's `PMIx_IOF_push` reaches the foreign host (the owner of its
//! processes' stdin) with C copies of the source, the targets, the
//! directives and the bytes, kept until its callback.

use std::os::raw::{c_char, c_void};
use std::ptr;

use pmix_core::{Error, Info, Proc, Status};
use pmix_server::Completion;

use super::{not_supported, procs_out, status_result, CHost, Keep};
use crate::cmem;
use crate::types::*;

/// The C copies of one push and its completion.
struct StdinCall {
    done: Option<Completion<()>>,
    _keep: Keep,
    targets: *mut pmix_proc_t,
    /// The bytes `bo` points into.
    _data: Vec<u8>,
    bo: pmix_byte_object_t,
}

impl Drop for StdinCall {
    fn drop(&mut self) {
        if !self.targets.is_null() {
            // SAFETY: malloc'd by `procs_out`, no longer used by the host.
            unsafe { cmem::free(self.targets) };
        }
    }
}

/// The host's answer.
///
/// # Safety
/// `cbdata` is the `StdinCall` the slot was given, used once.
unsafe extern "C" fn stdin_cb(st: pmix_status_t, cbdata: *mut c_void) {
    // SAFETY: the box `CHost::push_stdin_call` leaked (caller guarantee).
    let mut call = unsafe { Box::from_raw(cbdata.cast::<StdinCall>()) };
    if let Some(done) = call.done.take() {
        drop(call);
        done(status_result(st));
    }
}

impl CHost {
    /// Calls the module's `push_stdin` slot.
    pub(super) fn push_stdin_call(
        &self,
        proc: &Proc,
        targets: &[Proc],
        data: &[u8],
        directives: &[Info],
        done: Completion<()>,
    ) {
        let m = self.module();
        let Some(f) = m.push_stdin else {
            return done(Err(not_supported("push_stdin")));
        };
        let keep = match Keep::request(proc, directives, None) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let ctargets = procs_out(targets);
        if ctargets.is_null() {
            return done(Err(cmem::nomem()));
        }
        let mut data = data.to_vec();
        let bo = pmix_byte_object_t {
            bytes: if data.is_empty() {
                ptr::null_mut()
            } else {
                data.as_mut_ptr().cast::<c_char>()
            },
            size: data.len(),
        };
        let (src, dirs, ndirs) = (keep.procs, keep.info, keep.ninfo);
        let raw = Box::into_raw(Box::new(StdinCall {
            done: Some(done),
            _keep: keep,
            targets: ctargets,
            _data: data,
            bo,
        }));
        // SAFETY: `raw` is a live box; `bo` stays at this address in it
        // until the callback reclaims the box.
        let bo_ptr = unsafe { ptr::addr_of!((*raw).bo) };
        // SAFETY: the slot's contract; every copy lives in the box until
        // the callback.
        let rc = unsafe {
            f(
                src,
                ctargets,
                targets.len(),
                dirs,
                ndirs,
                bo_ptr,
                Some(stdin_cb),
                raw.cast(),
            )
        };
        if rc == PMIX_SUCCESS {
            return; // the callback comes (it may already have)
        }
        // SAFETY: no callback will come: the box is still ours.
        let mut call = unsafe { Box::from_raw(raw) };
        let Some(done) = call.done.take() else { return };
        drop(call);
        done(if rc == PMIX_OPERATION_SUCCEEDED {
            Ok(())
        } else {
            Err(Error::with_context(
                Status(rc),
                "the host's push_stdin refused the push",
            ))
        });
    }
}
