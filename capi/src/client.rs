//! The client side of `pmix.h` over [`pmix_client::Client`]: init and
//! finalize, put/commit/get, fences, events (`events`), job control and
//! logging (`control`), and the entry points whose feature pmix-rs does
//! not have yet (`stubs`).
//!
//! Rules this module keeps (CAPI.md §4–§5):
//! - Everything the caller passes is deep-copied before the call returns
//!   (infos, values, procs); everything handed back is libc memory (R1).
//! - A callback is never called inside the API call that was given it
//!   (T3): it runs on the library's callback thread (`worker`) or, for
//!   get/fence completions, on the Rust client's per-operation thread.
//! - When an API is given a callback it returns `PMIX_SUCCESS` and reports
//!   every outcome, errors included, through that callback — exactly once.
//!   Callers that wait for the callback unconditionally (Open MPI's ext3x
//!   does for event registration, T1) never hang, and callers that release
//!   their callback data on an error return (ext3x's `Get_nb`,
//!   `Connect_nb`) never see it used afterwards. Without a callback the
//!   call is blocking and returns the status.
//! - Init and finalize are reference counted (T5); the last finalize
//!   returns once the server acknowledged it (R-fin), then removes what
//!   `PMIx_Job_control_nb` registered for cleanup.
//! - The whole API may be called from any thread (T6).
//!
//! Directives (info arrays) of a type the Rust data model cannot hold are
//! skipped unless marked `PMIX_INFO_REQD`. A put of a reserved (`pmix.`)
//! key succeeds without effect, as in OpenPMIx (that data comes from the
//! server; Open MPI puts `pmix.hname`). Setting `PMIXRS_CAPI_VERBOSE` in
//! the environment prints the context of every error status on stderr.

mod control;
mod events;
mod pubsub;
mod resolve;
mod stubs;
pub(crate) mod worker;

pub use control::*;
pub use events::*;
pub use pubsub::*;
pub use resolve::*;
pub use stubs::*;

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::ptr;
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use pmix_client::Client;
use pmix_core::{Error, Info, Proc, Rank, Result, Scope, Status};

use crate::cmem;
use crate::convert::{info_from_c, proc_from_c, proc_to_c, procs_from_c, value_from_c};
use crate::convert::{value_to_c, value_to_c_boxed};
use crate::cvalue;
use crate::types::*;
use worker::{defer, lock, CPtr};

/// The client the C API uses while initialised (a clone of the
/// process-wide [`Client::init`] one).
static CLIENT: RwLock<Option<Client>> = RwLock::new(None);
/// Serialises `PMIx_Init` and `PMIx_Finalize`.
static LIFECYCLE: Mutex<()> = Mutex::new(());

/// `PMIX_EMBED_BARRIER`: fence before finalizing.
const EMBED_BARRIER: &str = "pmix.embed.barrier";

/// The client, or `PMIX_ERR_INIT`.
pub(crate) fn current() -> Result<Client> {
    CLIENT
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
        .ok_or_else(|| Error::with_context(Status::ERR_INIT, "PMIx_Init has not been called"))
}

/// Whether `PMIXRS_CAPI_VERBOSE` asks for error contexts on stderr.
pub(crate) fn verbose() -> bool {
    static V: OnceLock<bool> = OnceLock::new();
    *V.get_or_init(|| std::env::var_os("PMIXRS_CAPI_VERBOSE").is_some())
}

/// The C status of an error (printed with its context when verbose).
pub(crate) fn fail(what: &str, e: &Error) -> pmix_status_t {
    if verbose() {
        eprintln!("pmix-rs capi: {what}: {e}");
    }
    e.status().0
}

/// The C status of a result.
fn status(what: &str, r: &Result<()>) -> pmix_status_t {
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail(what, e),
    }
}

/// A C key argument as `&str`.
///
/// # Safety
/// `key` is NULL or a NUL-terminated string that outlives the result.
unsafe fn key_in<'a>(key: *const c_char) -> Result<&'a str> {
    if key.is_null() {
        return Err(cmem::bad_param("NULL key"));
    }
    // SAFETY: non-NULL and NUL-terminated (caller guarantee).
    unsafe { CStr::from_ptr(key) }
        .to_str()
        .map_err(|_| cmem::bad_param("key is not UTF-8"))
}

/// A C proc as a [`Proc`], sharing the client's own namespace string when
/// it is that one (the common case costs no allocation).
fn proc_in(c: &Client, p: &pmix_proc_t) -> Result<Proc> {
    let me = c.proc();
    if cmem::fixed_bytes(&p.nspace) == me.nspace.as_str().as_bytes() {
        return Ok(Proc::from_parts(me.nspace.clone(), Rank(p.rank)));
    }
    proc_from_c(p)
}

/// A C info array given as directives: deep-copied, skipping entries whose
/// type the data model cannot hold unless they are required.
///
/// # Safety
/// `info` is NULL or points to `n` valid infos.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for a malformed entry; the conversion error of a
/// required one.
pub(crate) unsafe fn directives_in(info: *const pmix_info_t, n: usize) -> Result<Vec<Info>> {
    if info.is_null() || n == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: `i < n` infos are valid (caller guarantee).
        let ci = unsafe { &*info.add(i) };
        // SAFETY: as above.
        match unsafe { info_from_c(ci) } {
            Ok(x) => out.push(x),
            Err(e) if e.status() == Status::ERR_NOT_SUPPORTED && ci.flags & PMIX_INFO_REQD == 0 => {
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// `n` C infos read leniently (entries that do not convert are dropped):
/// for data the library only passes along.
///
/// # Safety
/// As [`directives_in`].
pub(crate) unsafe fn infos_in_lossy(info: *const pmix_info_t, n: usize) -> Vec<Info> {
    if info.is_null() {
        return Vec::new();
    }
    // SAFETY: `i < n` infos are valid (caller guarantee).
    (0..n)
        .filter_map(|i| unsafe { info_from_c(info.add(i)) }.ok())
        .collect()
}

/// A malloc'd C copy of `infos` for code that only reads it, dropping
/// entries C cannot represent; the last entry carries
/// `PMIX_INFO_ARRAY_END` as `PMIX_INFO_CREATE` sets it. `(NULL, 0)` when
/// nothing remains. Release with `cvalue::array_free(PMIX_INFO, …)`.
pub(crate) fn infos_out_lossy(infos: &[Info]) -> (*mut pmix_info_t, usize) {
    if infos.is_empty() {
        return (ptr::null_mut(), 0);
    }
    let Ok(arr) = cmem::calloc_array::<pmix_info_t>(infos.len()) else {
        return (ptr::null_mut(), 0);
    };
    let mut k = 0;
    for info in infos {
        // SAFETY: slot `k < infos.len()` of the zeroed array; a failed write
        // leaves it holding no allocation, and the next entry overwrites it.
        if unsafe { crate::convert::info_to_c(info, arr.add(k)) }.is_ok() {
            k += 1;
        }
    }
    if k == 0 {
        // SAFETY: ours, and no slot owns anything.
        unsafe { cmem::free(arr) };
        return (ptr::null_mut(), 0);
    }
    // SAFETY: `k - 1 < infos.len()`, a written slot.
    unsafe { (*arr.add(k - 1)).flags |= PMIX_INFO_ARRAY_END };
    (arr, k)
}

/// `pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t
/// ninfo)`: connects to the server named by the environment `pmixrun` (or
/// any pmix-rs server's `setup_fork`) set, or takes one more reference to
/// the connection (T5). Fills `proc` with this process's identity. A
/// `PMIX_PROGRAMMING_MODEL` in `info` is announced to this process's
/// `PMIX_MODEL_DECLARED` handlers.
///
/// # Safety
/// `proc` is NULL or writable; `info` is NULL or points to `ninfo` valid
/// infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Init(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let infos = match unsafe { directives_in(info, ninfo) } {
        Ok(i) => i,
        Err(e) => return fail("PMIx_Init", &e),
    };
    let _g = lock(&LIFECYCLE);
    let c = match Client::init(&infos) {
        Ok(c) => c,
        Err(e) => return fail("PMIx_Init", &e),
    };
    if !proc_.is_null() {
        // SAFETY: non-NULL and writable (caller guarantee).
        unsafe { proc_.write(proc_to_c(c.proc())) };
    }
    let mut slot = CLIENT.write().unwrap_or_else(PoisonError::into_inner);
    if slot.is_none() {
        *slot = Some(c);
    }
    PMIX_SUCCESS
}

/// `int PMIx_Initialized(void)`: 1 between the first `PMIx_Init` and the
/// last `PMIx_Finalize`, else 0.
#[no_mangle]
pub extern "C" fn PMIx_Initialized() -> c_int {
    c_int::from(
        CLIENT
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some(),
    )
}

/// `pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo)`:
/// drops one reference (T5). The last one fences first if
/// `PMIX_EMBED_BARRIER` is set, tells the server and returns once it (and
/// its host) acknowledged (R-fin); event handlers are gone by then, and
/// the paths registered for cleanup are removed.
///
/// # Safety
/// `info` is NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Finalize(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let infos = match unsafe { directives_in(info, ninfo) } {
        Ok(i) => i,
        Err(e) => return fail("PMIx_Finalize", &e),
    };
    let _g = lock(&LIFECYCLE);
    let c = match current() {
        Ok(c) => c,
        Err(e) => return fail("PMIx_Finalize", &e),
    };
    let last = Client::init_count() <= 1;
    if last {
        if pmix_core::info::find(&infos, EMBED_BARRIER)
            .is_some_and(|i| i.value.is_true().unwrap_or(true))
        {
            if let Err(e) = c.fence(&[], &[]) {
                fail("PMIx_Finalize: embedded barrier", &e);
            }
        }
        // No handler may wait for a registration callback past this point.
        events::retire_all();
    }
    let r = c.finalize();
    if Client::init_count() == 0 {
        *CLIENT.write().unwrap_or_else(PoisonError::into_inner) = None;
        control::run_cleanup();
    }
    status("PMIx_Finalize", &r)
}

/// `pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t
/// procs[], size_t nprocs)`: asks the host to abort `procs` (NULL: the
/// whole namespace) with `status`; blocks until the host acted (this
/// process is usually killed first).
///
/// # Safety
/// `msg` is NULL or a C string; `procs` is NULL or points to `nprocs`
/// procs.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Abort(
    status_: c_int,
    msg: *const c_char,
    procs: *mut pmix_proc_t,
    nprocs: usize,
) -> pmix_status_t {
    let r = (|| {
        let c = current()?;
        // SAFETY: NULL or a C string (caller guarantee).
        let msg = String::from_utf8_lossy(unsafe { cmem::c_bytes(msg) }).into_owned();
        // SAFETY: NULL or `nprocs` procs (caller guarantee).
        let procs = unsafe { procs_from_c(procs, nprocs) }?;
        c.abort(Status(status_), &msg, &procs)
    })();
    status("PMIx_Abort", &r)
}

/// `pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[],
/// pmix_value_t *val)`: stores a deep copy of `val` for the next
/// `PMIx_Commit`. A reserved (`pmix.`) key succeeds without effect.
///
/// # Safety
/// `key` is NULL or a C string; `val` is NULL or a valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Put(
    scope: pmix_scope_t,
    key: *const c_char,
    val: *mut pmix_value_t,
) -> pmix_status_t {
    let r = (|| {
        let c = current()?;
        // SAFETY: NULL or a C string (caller guarantee).
        let key = unsafe { key_in(key) }?;
        if val.is_null() {
            return Err(cmem::bad_param("NULL value"));
        }
        if pmix_core::proc::is_reserved_key(key) {
            return Ok(());
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let value = unsafe { value_from_c(val) }?;
        c.put(Scope(scope), key, value)
    })();
    status("PMIx_Put", &r)
}

/// `pmix_status_t PMIx_Commit(void)`: publishes the puts so far.
#[no_mangle]
pub extern "C" fn PMIx_Commit() -> pmix_status_t {
    let r = current().and_then(|c| c.commit());
    status("PMIx_Commit", &r)
}

/// What `PMIx_Get` and `PMIx_Get_nb` read from their arguments.
///
/// # Safety
/// As [`PMIx_Get`].
unsafe fn get_args<'a>(
    c: &Client,
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(Proc, &'a str, Vec<Info>)> {
    // SAFETY: NULL or a C string; the borrow is used only while the
    // caller's call lasts (`PMIx_Get`) or copied at once (`Get_nb`).
    let key = unsafe { key_in(key) }?;
    let p = if proc_.is_null() {
        c.proc().clone()
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        proc_in(c, unsafe { &*proc_ })?
    };
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((p, key, infos))
}

/// `pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
/// const pmix_info_t info[], size_t ninfo, pmix_value_t **val)`: the
/// value of `key` for `proc` (NULL: this process), in a `pmix_value_t`
/// malloc'd with libc with its exact type; release it with
/// `PMIX_VALUE_RELEASE`. `*val` is NULL on error.
///
/// # Safety
/// `proc` is NULL or a valid proc; `key` NULL or a C string; `info` NULL or
/// `ninfo` valid infos; `val` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    val: *mut *mut pmix_value_t,
) -> pmix_status_t {
    if val.is_null() {
        return fail("PMIx_Get", &cmem::bad_param("NULL value pointer"));
    }
    // SAFETY: non-NULL and writable (caller guarantee).
    unsafe { val.write(ptr::null_mut()) };
    let r = (|| {
        let value = match current() {
            Ok(c) => {
                // SAFETY: forwarded caller guarantee.
                let (p, key, infos) = unsafe { get_args(&c, proc_, key, info, ninfo) }?;
                c.get(&p, key, &infos)?
            }
            // SAFETY: forwarded caller guarantee.
            Err(e) => unsafe { server_get(e, proc_, key) }?,
        };
        value_to_c_boxed(&value)
    })();
    match r {
        Ok(v) => {
            // SAFETY: as above.
            unsafe { val.write(v) };
            PMIX_SUCCESS
        }
        Err(e) => fail("PMIx_Get", &e),
    }
}

/// `PMIx_Get` in a process that is a server (`PMIx_server_init`) and not a
/// client: [`Server::get`](pmix_server::Server::get), never waiting; `no_client`
/// when this process is neither.
///
/// # Safety
/// As [`PMIx_Get`].
unsafe fn server_get(
    no_client: Error,
    proc_: *const pmix_proc_t,
    key: *const c_char,
) -> Result<pmix_core::Value> {
    let s = crate::server::active().ok_or(no_client)?;
    // SAFETY: NULL or a C string (caller guarantee).
    let key = unsafe { key_in(key) }?;
    let p = if proc_.is_null() {
        s.proc().clone()
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        proc_from_c(unsafe { &*proc_ })?
    };
    s.get(&p, key)
}

/// Hands a get result to a `pmix_value_cbfunc_t`; the value lives only
/// during the call and is released after it.
fn deliver_value(cb: PmixValueCb, cbdata: CPtr, r: Result<pmix_core::Value>) {
    let mut v = pmix_value_t::INIT;
    // SAFETY: `v` is a writable local value.
    let r = r.and_then(|value| unsafe { value_to_c(&value, &mut v) });
    match r {
        // SAFETY: the callback contract of `PMIx_Get_nb`; `v` is a valid
        // value owned by us, released after the call.
        Ok(()) => unsafe {
            cb(PMIX_SUCCESS, &mut v, cbdata.get());
            cvalue::value_destruct(&mut v);
        },
        // SAFETY: the callback contract of `PMIx_Get_nb`.
        Err(e) => unsafe { cb(fail("PMIx_Get_nb", &e), ptr::null_mut(), cbdata.get()) },
    }
}

type PmixValueCb =
    unsafe extern "C" fn(pmix_status_t, *mut pmix_value_t, *mut std::os::raw::c_void);

/// `pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
/// const pmix_info_t info[], size_t ninfo, pmix_value_cbfunc_t cbfunc,
/// void *cbdata)`: as [`PMIx_Get`], completing through `cbfunc` on a
/// library thread with a value the library owns and releases after the
/// callback. Returns `PMIX_ERR_BAD_PARAM` for a NULL `cbfunc`, else
/// `PMIX_SUCCESS` (errors go to the callback).
///
/// # Safety
/// As [`PMIx_Get`]; `cbfunc` is NULL or a function that accepts `cbdata`
/// from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Get_nb(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_value_cbfunc_t,
    cbdata: *mut std::os::raw::c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        return fail("PMIx_Get_nb", &cmem::bad_param("NULL callback"));
    };
    let cbdata = CPtr::new(cbdata);
    let args = current().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (p, key, infos) = unsafe { get_args(&c, proc_, key, info, ninfo) }?;
        Ok((c, p, key.to_owned(), infos))
    });
    match args {
        Ok((c, p, key, infos)) => {
            c.get_nb(&p, &key, &infos, move |r| deliver_value(cb, cbdata, r));
        }
        Err(e) => {
            // SAFETY: forwarded caller guarantee; the arguments are read
            // before this call returns.
            let r = unsafe { server_get(e, proc_, key) };
            defer(move || deliver_value(cb, cbdata, r));
        }
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc, const char
/// key[], pmix_value_t *val)`: keeps a deep copy of `val` about `proc` in
/// this process only; `PMIx_Get` finds it first.
///
/// # Safety
/// `proc` NULL or a valid proc; `key` NULL or a C string; `val` NULL or a
/// valid value.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Store_internal(
    proc_: *const pmix_proc_t,
    key: *const c_char,
    val: *mut pmix_value_t,
) -> pmix_status_t {
    let r = (|| {
        let target = current()
            .map(Ok)
            .or_else(|e| crate::server::active().map(Err).ok_or(e))?;
        if proc_.is_null() || val.is_null() {
            return Err(cmem::bad_param("NULL proc or value"));
        }
        // SAFETY: NULL or a C string (caller guarantee).
        let key = unsafe { key_in(key) }?;
        // SAFETY: non-NULL and valid (caller guarantee).
        let (p, value) = (unsafe { &*proc_ }, unsafe { value_from_c(val) }?);
        match target {
            Ok(c) => c.store_internal(&proc_in(&c, p)?, key, value),
            Err(server) => server.store_internal(&proc_from_c(p)?, key, value),
        }
    })();
    status("PMIx_Store_internal", &r)
}

/// What the fences read from their arguments.
///
/// # Safety
/// As [`PMIx_Fence`].
unsafe fn fence_args(
    c: &Client,
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<(Vec<Proc>, Vec<Info>)> {
    let procs = if procs.is_null() || nprocs == 0 {
        Vec::new()
    } else {
        // SAFETY: `nprocs` valid procs (caller guarantee).
        unsafe { std::slice::from_raw_parts(procs, nprocs) }
            .iter()
            .map(|p| proc_in(c, p))
            .collect::<Result<Vec<_>>>()?
    };
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((procs, infos))
}

/// `pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo)`: barrier over `procs` (NULL:
/// this process's whole namespace); `PMIX_COLLECT_DATA` exchanges the
/// committed data.
///
/// # Safety
/// `procs` NULL or `nprocs` valid procs; `info` NULL or `ninfo` valid
/// infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = current().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { fence_args(&c, procs, nprocs, info, ninfo) }?;
        c.fence(&procs, &infos)
    });
    status("PMIx_Fence", &r)
}

/// `pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
/// const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc, void
/// *cbdata)`: as [`PMIx_Fence`], completing through `cbfunc` (may be NULL)
/// on a library thread. Returns `PMIX_SUCCESS` when given a callback
/// (errors go to it).
///
/// # Safety
/// As [`PMIx_Fence`]; `cbfunc` is NULL or accepts `cbdata` from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Fence_nb(
    procs: *const pmix_proc_t,
    nprocs: usize,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut std::os::raw::c_void,
) -> pmix_status_t {
    let cbdata = CPtr::new(cbdata);
    let done = move |r: Result<()>| {
        if let Some(cb) = cbfunc {
            let st = status("PMIx_Fence_nb", &r);
            // SAFETY: the caller's callback with its own cbdata (contract
            // of `PMIx_Fence_nb`).
            unsafe { cb(st, cbdata.get()) };
        }
    };
    let args = current().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (procs, infos) = unsafe { fence_args(&c, procs, nprocs, info, ninfo) }?;
        Ok((c, procs, infos))
    });
    match args {
        Ok((c, procs, infos)) => c.fence_nb(&procs, &infos, done),
        Err(e) if cbfunc.is_none() => return fail("PMIx_Fence_nb", &e),
        Err(e) => defer(move || done(Err(e))),
    }
    PMIX_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Value;

    #[test]
    fn calls_before_init_report_err_init() {
        // SAFETY: NULL arguments are allowed and checked.
        unsafe {
            assert_eq!(PMIx_Initialized(), 0);
            assert_eq!(PMIx_Commit(), PMIX_ERR_INIT);
            assert_eq!(PMIx_Finalize(ptr::null(), 0), PMIX_ERR_INIT);
            let mut v: *mut pmix_value_t = ptr::null_mut();
            let key = c"pmix.job.size";
            assert_eq!(
                PMIx_Get(ptr::null(), key.as_ptr(), ptr::null(), 0, &mut v),
                PMIX_ERR_INIT
            );
            assert!(v.is_null());
            assert_eq!(
                PMIx_Get(ptr::null(), key.as_ptr(), ptr::null(), 0, ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
            assert_eq!(
                PMIx_Fence_nb(ptr::null(), 0, ptr::null(), 0, None, ptr::null_mut()),
                PMIX_ERR_INIT
            );
        }
    }

    #[test]
    fn directives_skip_unconvertible_optional_entries_only() {
        let mut infos = [pmix_info_t::INIT, pmix_info_t::INIT, pmix_info_t::INIT];
        cmem::load_key(&mut infos[0].key, b"a");
        infos[0].value.type_ = PMIX_POINTER;
        cmem::load_key(&mut infos[1].key, b"b");
        infos[1].value.type_ = PMIX_UINT32;
        infos[1].value.data.uint32 = 7;
        cmem::load_key(&mut infos[2].key, b"c");
        infos[2].value.type_ = PMIX_POINTER;
        // SAFETY: three valid infos (pointer values are never dereferenced).
        let got = unsafe { directives_in(infos.as_ptr(), 2) }.unwrap();
        assert_eq!(got, vec![Info::new("b", Value::Uint32(7)).unwrap()]);
        infos[2].flags = PMIX_INFO_REQD;
        // SAFETY: as above.
        let e = unsafe { directives_in(infos.as_ptr(), 3) }.unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_SUPPORTED);
        // SAFETY: as above.
        assert_eq!(unsafe { infos_in_lossy(infos.as_ptr(), 3) }.len(), 1);
    }

    #[test]
    fn lossy_output_marks_the_array_end() {
        let infos = vec![Info::new("x", 1u16).unwrap(), Info::new("y", "s").unwrap()];
        let (arr, n) = infos_out_lossy(&infos);
        assert_eq!(n, 2);
        // SAFETY: `arr` holds `n` infos; released below.
        unsafe {
            assert_eq!((*arr).flags & PMIX_INFO_ARRAY_END, 0);
            assert_ne!((*arr.add(1)).flags & PMIX_INFO_ARRAY_END, 0);
            assert_eq!(infos_in_lossy(arr, n).len(), 2);
            cvalue::array_free(PMIX_INFO, arr.cast(), n);
        }
        assert!(infos_out_lossy(&[]).0.is_null());
    }
}
