//! `PMIx_IOF_pull` and `PMIx_IOF_deregister` (4.2 signatures) over
//! [`pmix_client::Client::iof_pull`]: a tool (or client) receives the
//! output of other processes that its server's host forwards
//! (`pmixrun` forwards every rank's lines; a job spawned with
//! `PMIX_FWD_STDOUT` / `PMIX_FWD_STDERR` has its lines sent to the
//! requestor instead of pmixrun's streams). `PMIx_IOF_push` over
//! [`pmix_client::Client::iof_push`]: bytes to other processes' stdin.
//!
//! The C handler runs on the library's callback thread, in arrival order,
//! with the source, the channel and a byte object valid for the call only
//! (no info). A NULL handler writes the bytes to this process's stdout or
//! stderr, as the originating channel says.

use std::io::Write;
use std::os::raw::{c_char, c_void};

use pmix_core::{Error, Proc, Result, Status};

use crate::convert::{proc_to_c, procs_from_c};
use crate::role;
use crate::status::{reply_op, status};
use crate::types::*;
use crate::worker::{defer, CPtr};

/// The C handler as a Rust one: each chunk is copied to the callback
/// thread and handed to `cb` (or written to stdout/stderr without one).
fn handler(cb: pmix_iof_cbfunc_t) -> impl Fn(u32, &Proc, u16, &[u8]) + Send + Sync + 'static {
    move |id: u32, src: &Proc, channel: u16, bytes: &[u8]| {
        let (src, mut bytes) = (proc_to_c(src), bytes.to_vec());
        defer(move || match cb {
            Some(cb) => {
                let mut src = src;
                let mut bo = pmix_byte_object_t {
                    bytes: bytes.as_mut_ptr().cast::<c_char>(),
                    size: bytes.len(),
                };
                // SAFETY: the caller's handler, callable from any thread;
                // `src` and `bo` (over `bytes`) live across the call.
                unsafe {
                    cb(
                        id as usize,
                        channel,
                        &mut src,
                        &mut bo,
                        std::ptr::null_mut(),
                        0,
                    )
                };
            }
            None => {
                let _ = if channel & PMIX_FWD_STDERR_CHANNEL != 0 {
                    std::io::stderr().lock().write_all(&bytes)
                } else {
                    std::io::stdout().lock().write_all(&bytes)
                };
            }
        });
    }
}

/// Registers the pull: the handler id.
///
/// # Safety
/// `procs` NULL or `nprocs` valid procs.
unsafe fn pull(
    procs: *const pmix_proc_t,
    nprocs: usize,
    channel: pmix_iof_channel_t,
    cbfunc: pmix_iof_cbfunc_t,
) -> Result<u32> {
    // SAFETY: forwarded caller guarantee.
    let procs = unsafe { procs_from_c(procs, nprocs) }?;
    if channel & PMIX_FWD_STDIN_CHANNEL != 0 {
        return Err(Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            "PMIx_IOF_pull: stdin cannot be pulled (it goes to the stdin descriptor)",
        ));
    }
    role::client()?.iof_pull(&procs, channel, handler(cbfunc))
}

/// `pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t directives[], size_t ndirs, pmix_iof_channel_t
/// channel, pmix_iof_cbfunc_t cbfunc, pmix_hdlr_reg_cbfunc_t regcbfunc,
/// void *regcbdata)`: from now on `cbfunc` (NULL: this process's
/// stdout/stderr) gets the output `procs` (a wildcard rank: the whole
/// namespace) write on the `channel` bits, as the server's host forwards
/// it. Without `regcbfunc` the call blocks and returns the handler's
/// reference id (positive) or an error (negative); with it the call
/// returns `PMIX_SUCCESS` and `regcbfunc(status, refid, regcbdata)` runs
/// on the callback thread. Directives are ignored (no buffering options);
/// the handler gets its reference id as `iofhdlr` and no info.
///
/// # Safety
/// `procs` NULL or `nprocs` valid procs; `cbfunc` and `regcbfunc` NULL or
/// callable from any thread.
#[allow(clippy::too_many_arguments)] // the C signature
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_pull(
    procs: *const pmix_proc_t,
    nprocs: usize,
    _directives: *const pmix_info_t,
    _ndirs: usize,
    channel: pmix_iof_channel_t,
    cbfunc: pmix_iof_cbfunc_t,
    regcbfunc: pmix_hdlr_reg_cbfunc_t,
    regcbdata: *mut c_void,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let r = unsafe { pull(procs, nprocs, channel, cbfunc) };
    let (st, id) = match r {
        Ok(id) => (PMIX_SUCCESS, id),
        Err(e) => (status("PMIx_IOF_pull", &Err(e)), 0),
    };
    match regcbfunc {
        None if st == PMIX_SUCCESS => pmix_status_t::try_from(id).unwrap_or(pmix_status_t::MAX),
        None => st,
        Some(cb) => {
            let d = CPtr::new(regcbdata);
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, id as usize, d.get()) });
            PMIX_SUCCESS
        }
    }
}

/// `pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t
/// directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)`:
/// handler `iofhdlr` gets no more output; `PMIX_ERR_NOT_FOUND` for an id
/// this process does not hold. Blocking without `cbfunc`; with it the call
/// returns `PMIX_SUCCESS` and `cbfunc(status, cbdata)` runs on the callback
/// thread.
///
/// # Safety
/// `cbfunc` NULL or callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_deregister(
    iofhdlr: usize,
    _directives: *const pmix_info_t,
    _ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let r = u32::try_from(iofhdlr)
        .map_err(|_| Error::with_context(Status::ERR_NOT_FOUND, "no such IOF handler"))
        .and_then(|id| role::client()?.iof_deregister(id));
    reply_op(status("PMIx_IOF_deregister", &r), cbfunc, cbdata)
}

/// `pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t
/// ntargets, pmix_byte_object_t *bo, const pmix_info_t directives[],
/// size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)`: writes `bo`'s
/// bytes (NULL: none) to the stdin of `targets` (a wildcard rank: every
/// rank of its job) through the server's host; `PMIX_IOF_COMPLETE` among
/// the directives closes their stdin after them. `pmixrun` holds the stdin
/// of rank 0 of a job spawned with `PMIX_FWD_STDIN`; another target is
/// `PMIX_ERR_NOT_FOUND`. `PMIX_IOF_PUSH_STDIN` is `PMIX_ERR_NOT_SUPPORTED`.
/// Blocking without `cbfunc`; with it the call returns `PMIX_SUCCESS` and
/// `cbfunc(status, cbdata)` runs on the callback thread. The bytes are
/// copied before the call returns.
///
/// # Safety
/// `targets` NULL or `ntargets` valid procs; `bo` NULL or a valid byte
/// object; `directives` NULL or `ndirs` valid infos; `cbfunc` NULL or
/// callable from any thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_IOF_push(
    targets: *const pmix_proc_t,
    ntargets: usize,
    bo: *mut pmix_byte_object_t,
    directives: *const pmix_info_t,
    ndirs: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        // SAFETY: forwarded caller guarantee.
        let targets = unsafe { procs_from_c(targets, ntargets) }?;
        // SAFETY: forwarded caller guarantee.
        let directives = unsafe { crate::convert::infos_from_c(directives, ndirs) }?;
        let data: &[u8] = if bo.is_null() {
            &[]
        } else {
            // SAFETY: `bo` is a valid byte object (caller guarantee).
            let b = unsafe { &*bo };
            if b.bytes.is_null() || b.size == 0 {
                &[]
            } else {
                // SAFETY: a valid byte object's `bytes` holds `size` bytes.
                unsafe { std::slice::from_raw_parts(b.bytes.cast::<u8>(), b.size) }
            }
        };
        role::client()?.iof_push(&targets, data, &directives)
    })();
    reply_op(status("PMIx_IOF_push", &r), cbfunc, cbdata)
}
