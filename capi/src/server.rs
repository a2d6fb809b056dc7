//! The server side of `pmix_server.h` over [`pmix_server::Server`], driven
//! by a foreign host through its `pmix_server_module_t` (CAPI.md §6.1).
//!
//! - `PMIx_server_init` wraps the C module in [`host::CHost`], a Rust
//!   [`Host`](pmix_server::Host) whose up-calls call the module's slots with
//!   C copies of their arguments and a C callback that completes the Rust
//!   [`Completion`](pmix_server::Completion) from whatever thread the host
//!   calls back on.
//! - The registration calls do their work synchronously (everything the
//!   caller passes is copied before the call returns) and report through
//!   the caller's callback on the library's callback thread (T2/T3); the
//!   deregistrations always call back (T1).
//! - No library lock is held while the host or a C callback runs: the
//!   server handle is cloned out of its slot before use.
//!
//! - A host that registers a namespace without `PMIX_TMPDIR` /
//!   `PMIX_NSDIR` gets fresh directories of the library's, removed at
//!   deregistration and finalize (`server/dirs.rs`).
//!
//! `PMIx_generate_regex` / `PMIx_generate_ppn` produce
//! `pmixrs:raw:<input>`, which only `PMIx_server_register_nspace` reads
//! back (it also accepts a plain comma list).

mod dirs;
mod host;

use std::collections::HashMap;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::{Arc, Mutex, RwLock};

use pmix_client::ProcessEvents;
use pmix_core::{DataRange, Error, Info, Nspace, Proc, Rank, Result, Status, Value};
use pmix_server::{Server, ServerConfig};

use crate::client::worker::{defer, CPtr};
use crate::client::{directives_in, fail as fail_status, infos_in_lossy, verbose};
use crate::cmem;
use crate::convert::proc_from_c;
use crate::types::*;

/// The initialised server (shared so calls never hold the slot's lock
/// while they run).
static SERVER: RwLock<Option<Arc<Server>>> = RwLock::new(None);

/// The server process's own event handlers (`PMIx_Register_event_handler`
/// after `PMIx_server_init`).
static EVENTS: RwLock<Option<ProcessEvents>> = RwLock::new(None);

/// The server process's handler chain, while the server runs.
pub(crate) fn events() -> Option<ProcessEvents> {
    EVENTS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// The host adapter, closed by `PMIx_server_finalize`.
static HOST: RwLock<Option<Arc<host::CHost>>> = RwLock::new(None);

/// `server_object` pointers given to `register_client`, by proc.
pub(crate) type Objects = Arc<Mutex<HashMap<Proc, usize>>>;

/// The map shared with the host adapter.
static OBJECTS: std::sync::OnceLock<Objects> = std::sync::OnceLock::new();

fn objects() -> &'static Objects {
    OBJECTS.get_or_init(Objects::default)
}

/// Prefix of what `PMIx_generate_regex` / `_ppn` produce.
const RAW: &str = "pmixrs:raw:";

const SRV_TMPDIR: &str = "pmix.srvr.tmpdir";
const SRV_NSPACE: &str = "pmix.srv.nspace";
const SRV_RANK: &str = "pmix.srv.rank";

fn current() -> Result<Arc<Server>> {
    SERVER
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
        .ok_or_else(|| {
            Error::with_context(Status::ERR_INIT, "PMIx_server_init has not been called")
        })
}

/// The server, when this process called `PMIx_server_init`.
pub(crate) fn active() -> Option<Arc<Server>> {
    current().ok()
}

/// `PMIx_Notify_event` in a server process: `PMIX_RANGE_PROC_LOCAL` to the
/// process's own handlers, any other range to [`Server::notify`]. A
/// `source` equal to the server's own proc (or NULL) is an event of the
/// host itself.
///
/// # Safety
/// `source` NULL or valid; `info` NULL or `ninfo` valid infos.
pub(crate) unsafe fn notify(
    server: &Server,
    status: pmix_status_t,
    source: *const pmix_proc_t,
    range: pmix_data_range_t,
    info: *const pmix_info_t,
    ninfo: usize,
) -> Result<()> {
    let src = if source.is_null() {
        None
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        Some(proc_from_c(unsafe { &*source })?)
    };
    let src = src.filter(|p| p != server.proc());
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    if DataRange(range) == DataRange::PROC_LOCAL {
        // The server process's own handlers.
        let events = events()
            .ok_or_else(|| Error::with_context(Status::ERR_INIT, "the server is finalizing"))?;
        return events.notify(Status(status), &infos, None);
    }
    server.notify(Status(status), src.as_ref(), DataRange(range), &infos)
}

/// Reports `r` through `cbfunc` on the callback thread (returning
/// `PMIX_SUCCESS`), or returns its status when there is no callback.
fn answer(
    what: &str,
    r: Result<()>,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let st = match &r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail_status(what, e),
    };
    match cbfunc {
        None => st,
        Some(cb) => {
            let d = CPtr::new(cbdata);
            defer(move || {
                // SAFETY: the caller's callback with its own data.
                unsafe { cb(st, d.get()) }
            });
            PMIX_SUCCESS
        }
    }
}

/// A C string info value, if it is one.
fn info_str<'a>(infos: &'a [Info], key: &str) -> Option<&'a str> {
    match infos.iter().find(|i| i.is(key)).map(|i| &i.value) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// `pmix_status_t PMIx_server_init(pmix_server_module_t *module,
/// pmix_info_t info[], size_t ninfo)`: starts the server. Reads
/// `pmix.srvr.tmpdir`, `pmix.sys.tmpdir`, `pmix.srv.nspace` and
/// `pmix.srv.rank` (PROC_RANK or UINT32); the module's non-NULL slots
/// serve the up-calls. Creates the server's session directory (mode 0700)
/// under `pmix.srvr.tmpdir`, else `pmix.sys.tmpdir`, else the system temp
/// dir, for the jobs' directories (`server/dirs.rs`).
///
/// # Safety
/// `module` NULL or valid for the life of the server; `info` NULL or
/// `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_init(
    module: *mut pmix_server_module_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        let mut slot = SERVER
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if slot.is_some() {
            return Err(Error::with_context(
                Status::ERR_INIT,
                "PMIx_server_init called twice",
            ));
        }
        // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
        let infos = unsafe { infos_in_lossy(info, ninfo) };
        let ns = match info_str(&infos, SRV_NSPACE) {
            Some(s) => Nspace::new(s)?,
            None => Nspace::new(format!("pmixrs-srv-{}", std::process::id()))?,
        };
        let mut cfg = ServerConfig::new(ns);
        if let Some(d) = info_str(&infos, SRV_TMPDIR) {
            cfg.tmpdir = d.into();
        }
        match infos.iter().find(|i| i.is(SRV_RANK)).map(|i| &i.value) {
            Some(Value::Rank(r)) => cfg.rank = *r,
            Some(Value::Uint32(r)) => cfg.rank = Rank(*r),
            _ => {}
        }
        cfg.log = verbose();
        let module = if module.is_null() {
            pmix_server_module_t::default()
        } else {
            // SAFETY: valid (caller guarantee); a plain copy of the slots.
            unsafe { *module }
        };
        let h = Arc::new(host::CHost::new(module, Arc::clone(objects())));
        dirs::start(&dirs::base(&infos))?;
        let server = match Server::init(cfg, Arc::clone(&h) as Arc<dyn pmix_server::Host>) {
            Ok(s) => s,
            Err(e) => {
                dirs::stop();
                return Err(e);
            }
        };
        *HOST
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(h);
        let events = match ProcessEvents::start(server.proc().clone()) {
            Ok(e) => e,
            Err(e) => {
                server.stop();
                dirs::stop();
                return Err(e);
            }
        };
        *EVENTS
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(events);
        *slot = Some(Arc::new(server));
        Ok(())
    })();
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail_status("PMIx_server_init", &e),
    }
}

/// `pmix_status_t PMIx_server_finalize(void)`: stops the server.
#[no_mangle]
pub extern "C" fn PMIx_server_finalize() -> pmix_status_t {
    let s = SERVER
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    match s {
        None => PMIX_ERR_INIT,
        Some(s) => {
            // Handlers stop with the last clone of the chain.
            EVENTS
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            // Stopped even if another call still holds a clone; then no
            // up-call may reach the host any more: it may unload its code
            // as soon as this returns.
            s.stop();
            let h = HOST
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            if let Some(h) = h {
                h.close();
            }
            objects()
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clear();
            dirs::stop();
            PMIX_SUCCESS
        }
    }
}

/// Keys whose empty value means "not known" (a NULL C string, which the
/// Rust data model reads as `""`): such entries are dropped so a `Get`
/// finds nothing, as with OpenPMIx, instead of an empty string (Open MPI
/// computes locality from any string it gets).
const NULL_MEANS_ABSENT: [&str; 2] = ["pmix.locstr", "pmix.cpuset"];

fn is_null_string(i: &Info) -> bool {
    NULL_MEANS_ABSENT.iter().any(|k| i.is(k))
        && matches!(&i.value, Value::String(s) if s.is_empty())
}

/// Prepares a foreign host's job infos: reads a `pmixrs:raw:` map back as
/// the plain list, and drops unknown locality strings (also inside the
/// per-rank `pmix.pdata` arrays).
fn normalize(infos: &mut Vec<Info>) {
    infos.retain(|i| !is_null_string(i));
    for i in infos.iter_mut() {
        if i.is("pmix.nmap") || i.is("pmix.pmap") {
            if let Value::String(s) = &mut i.value {
                if let Some(rest) = s.strip_prefix(RAW) {
                    *s = rest.to_owned();
                }
            }
        } else if i.is("pmix.pdata") {
            if let Ok(inner) = i.value.as_info_array() {
                if inner.iter().any(|x| is_null_string(x)) {
                    let kept = inner
                        .into_iter()
                        .filter(|x| !is_null_string(x))
                        .cloned()
                        .collect();
                    i.value = Value::DataArray(Box::new(pmix_core::DataArray::from_infos(kept)));
                }
            }
        }
    }
}

/// `pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace,
/// int nlocalprocs, pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t
/// cbfunc, void *cbdata)`: registers a namespace and its job data (copied
/// before the call returns); the outcome goes to `cbfunc` on the callback
/// thread (T2).
///
/// # Safety
/// `nspace` a NUL-terminated string; `info` NULL or `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_nspace(
    nspace: *const c_char,
    nlocalprocs: c_int,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        let s = current()?;
        // SAFETY: NUL-terminated (caller guarantee).
        let ns = Nspace::new(unsafe { cmem::c_string_or_empty(nspace) }?)?;
        // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
        let mut infos = unsafe { infos_in_lossy(info, ninfo) };
        normalize(&mut infos);
        let created = dirs::supply(&ns, &mut infos)?;
        let r = s.register_nspace(&ns, u32::try_from(nlocalprocs.max(0)).unwrap_or(0), &infos);
        if r.is_err() && created {
            dirs::release(&ns);
        }
        r
    })();
    answer("PMIx_server_register_nspace", r, cbfunc, cbdata)
}

/// `void PMIx_server_deregister_nspace(const pmix_nspace_t nspace,
/// pmix_op_cbfunc_t cbfunc, void *cbdata)`: always calls back (T1).
///
/// # Safety
/// `nspace` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_nspace(
    nspace: *const c_char,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) {
    let r = (|| -> Result<()> {
        let s = current()?;
        // SAFETY: NUL-terminated (caller guarantee).
        let ns = Nspace::new(unsafe { cmem::c_string_or_empty(nspace) }?)?;
        objects()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|p, _| p.nspace != ns);
        let r = s.deregister_nspace(&ns);
        dirs::nspace_deregistered(&ns);
        r
    })();
    let _ = answer("PMIx_server_deregister_nspace", r, cbfunc, cbdata);
}

/// `pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc,
/// uid_t uid, gid_t gid, void *server_object, pmix_op_cbfunc_t cbfunc,
/// void *cbdata)`: before or after its namespace; `server_object` comes
/// back unchanged in the client's up-calls.
///
/// # Safety
/// `proc` valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_register_client(
    proc_: *const pmix_proc_t,
    uid: u32,
    gid: u32,
    server_object: *mut c_void,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        let s = current()?;
        if proc_.is_null() {
            return Err(cmem::bad_param("NULL proc"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        objects()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(p.clone(), server_object as usize);
        let r = s.register_client(&p, uid, gid);
        if r.is_ok() {
            dirs::client_registered(&p, uid);
        }
        if r.is_err() {
            objects()
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&p);
        }
        r
    })();
    answer("PMIx_server_register_client", r, cbfunc, cbdata)
}

/// `void PMIx_server_deregister_client(const pmix_proc_t *proc,
/// pmix_op_cbfunc_t cbfunc, void *cbdata)`: always calls back (T1).
///
/// # Safety
/// `proc` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_deregister_client(
    proc_: *const pmix_proc_t,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) {
    let r = (|| -> Result<()> {
        let s = current()?;
        if proc_.is_null() {
            return Err(cmem::bad_param("NULL proc"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        objects()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&p);
        dirs::client_deregistered(&p);
        s.deregister_client(&p)
    })();
    let _ = answer("PMIx_server_deregister_client", r, cbfunc, cbdata);
}

/// `pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char
/// ***env)`: appends the client's `KEY=VALUE` variables to `*env` (a NULL
/// or malloc'd argv, grown with libc `realloc`).
///
/// # Safety
/// `proc` valid; `env` valid, `*env` NULL or a malloc'd NULL-terminated
/// argv of malloc'd strings.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_fork(
    proc_: *const pmix_proc_t,
    env: *mut *mut *mut c_char,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        let s = current()?;
        if proc_.is_null() || env.is_null() {
            return Err(cmem::bad_param("NULL proc or env"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        let vars = s.setup_fork(&p)?;
        for (k, v) in vars {
            if v.contains('*') || k.contains('*') || k.contains('=') {
                return Err(Error::with_context(
                    Status::ERR_BAD_PARAM,
                    format!("setup_fork: {k} cannot be passed through a singleton pipe"),
                ));
            }
            // SAFETY: `env` valid (caller guarantee).
            unsafe { argv_append(env, &format!("{k}={v}")) }?;
        }
        Ok(())
    })();
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail_status("PMIx_server_setup_fork", &e),
    }
}

/// Appends a malloc'd copy of `item` to the malloc'd argv `*argv`.
///
/// # Safety
/// As [`PMIx_server_setup_fork`]'s `env`.
unsafe fn argv_append(argv: *mut *mut *mut c_char, item: &str) -> Result<()> {
    // SAFETY: valid (caller guarantee).
    let old = unsafe { *argv };
    // SAFETY: NULL or NULL-terminated (caller guarantee).
    let n = unsafe { cmem::argv_len(old) };
    let s = cmem::strdup_str(item)?;
    let bytes = (n + 2) * std::mem::size_of::<*mut c_char>();
    // SAFETY: `old` is NULL or a libc allocation (caller guarantee).
    let new = unsafe { libc::realloc(old.cast(), bytes) }.cast::<*mut c_char>();
    if new.is_null() {
        // SAFETY: ours, just made.
        unsafe { cmem::free(s) };
        return Err(cmem::nomem());
    }
    // SAFETY: `new` holds `n + 2` pointers.
    unsafe {
        *new.add(n) = s;
        *new.add(n + 1) = ptr::null_mut();
        *argv = new;
    }
    Ok(())
}

/// `pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
/// pmix_dmodex_response_fn_t cbfunc, void *cbdata)`: this node's blob for
/// a local client, delivered (library-owned, valid during the call) to
/// `cbfunc` on the callback thread. A client that has not committed yet
/// holds the request until it commits, finalizes, dies or is deregistered
/// (the request names no key: any commit answers it); one that left is
/// still served its card (docs/GET-RULES.md).
///
/// # Safety
/// `proc` valid; `cbfunc` callable from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_dmodex_request(
    proc_: *const pmix_proc_t,
    cbfunc: pmix_dmodex_response_fn_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        return PMIX_ERR_BAD_PARAM;
    };
    let d = CPtr::new(cbdata);
    // Runs on the callback thread whichever thread answers.
    let answer = move |r: Result<Vec<u8>>| {
        let (st, mut data) = match r {
            Ok(d) => (PMIX_SUCCESS, d),
            Err(e) => (fail_status("PMIx_server_dmodex_request", &e), Vec::new()),
        };
        defer(move || {
            let d = d.get();
            let (p, n) = if data.is_empty() {
                (ptr::null_mut(), 0)
            } else {
                (data.as_mut_ptr().cast::<c_char>(), data.len())
            };
            // SAFETY: the caller's callback; the data lives until it returns.
            unsafe { cb(st, p, n, d) };
        });
    };
    let r = (|| -> Result<(Arc<Server>, pmix_core::Proc)> {
        let s = current()?;
        if proc_.is_null() {
            return Err(cmem::bad_param("NULL proc"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        Ok((s, p))
    })();
    match r {
        Ok((s, p)) => s.dmodex_request_nb(&p, &[], Box::new(answer)),
        Err(e) => answer(Err(e)),
    }
    PMIX_SUCCESS
}

/// A malloc'd `pmixrs:raw:<input>`.
///
/// # Safety
/// `input` NULL or NUL-terminated; `out` valid.
unsafe fn raw_out(what: &str, input: *const c_char, out: *mut *mut c_char) -> pmix_status_t {
    if out.is_null() {
        return PMIX_ERR_BAD_PARAM;
    }
    let r = (|| -> Result<*mut c_char> {
        // SAFETY: NULL or NUL-terminated (caller guarantee).
        let s = unsafe { cmem::c_string_or_empty(input) }?;
        cmem::strdup_str(&format!("{RAW}{s}"))
    })();
    match r {
        Ok(p) => {
            // SAFETY: writable (caller guarantee).
            unsafe { *out = p };
            PMIX_SUCCESS
        }
        Err(e) => {
            // SAFETY: writable (caller guarantee).
            unsafe { *out = ptr::null_mut() };
            fail_status(what, &e)
        }
    }
}

/// `pmix_status_t PMIx_generate_regex(const char *input, char **regex)`.
///
/// # Safety
/// `input` NULL or NUL-terminated; `regex` valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_regex(
    input: *const c_char,
    regex: *mut *mut c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantees.
    unsafe { raw_out("PMIx_generate_regex", input, regex) }
}

/// `pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)`.
///
/// # Safety
/// `input` NULL or NUL-terminated; `ppn` valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_generate_ppn(
    input: *const c_char,
    ppn: *mut *mut c_char,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantees.
    unsafe { raw_out("PMIx_generate_ppn", input, ppn) }
}

/// `PMIx_server_setup_application`: not supported (no callback).
///
/// # Safety
/// Never dereferences its arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_application(
    nspace: *const c_char,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_setup_application_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (nspace, info, ninfo, cbfunc, cbdata);
    PMIX_ERR_NOT_SUPPORTED
}

/// `PMIx_server_setup_local_support`: not supported (no callback).
///
/// # Safety
/// Never dereferences its arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_setup_local_support(
    nspace: *const c_char,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (nspace, info, ninfo, cbfunc, cbdata);
    PMIX_ERR_NOT_SUPPORTED
}

/// `PMIx_server_IOF_deliver`: not supported (no callback, T2).
///
/// # Safety
/// Never dereferences its arguments.
#[no_mangle]
pub unsafe extern "C" fn PMIx_server_IOF_deliver(
    source: *const pmix_proc_t,
    channel: pmix_iof_channel_t,
    bo: *const pmix_byte_object_t,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let _ = (source, channel, bo, info, ninfo, cbfunc, cbdata);
    PMIX_ERR_NOT_SUPPORTED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_maps_round_trip() {
        let mut out = ptr::null_mut();
        // SAFETY: a valid string and out pointer.
        let st = unsafe { PMIx_generate_regex(c"n1,n2".as_ptr(), &mut out) };
        assert_eq!(st, PMIX_SUCCESS);
        // SAFETY: ours, NUL-terminated.
        let s = unsafe { cmem::c_string_or_empty(out) }.unwrap();
        assert_eq!(s, "pmixrs:raw:n1,n2");
        // SAFETY: malloc'd by us.
        unsafe { cmem::free(out) };
        let mut infos = vec![
            Info::new("pmix.nmap", Value::String(s)).unwrap(),
            Info::new("pmix.pmap", Value::String("0,1".into())).unwrap(),
        ];
        normalize(&mut infos);
        assert_eq!(infos[0].value, Value::String("n1,n2".into()));
        assert_eq!(infos[1].value, Value::String("0,1".into()));
    }

    #[test]
    fn calls_before_init_fail_and_still_call_back() {
        static GOT: Mutex<Option<pmix_status_t>> = Mutex::new(None);
        unsafe extern "C" fn cb(st: pmix_status_t, _: *mut c_void) {
            *GOT.lock().unwrap() = Some(st);
        }
        // SAFETY: a NUL-terminated namespace and a valid callback.
        unsafe { PMIx_server_deregister_nspace(c"x".as_ptr(), Some(cb), ptr::null_mut()) };
        let t0 = std::time::Instant::now();
        while GOT.lock().unwrap().is_none() && t0.elapsed().as_secs() < 10 {
            std::thread::yield_now();
        }
        assert_eq!(*GOT.lock().unwrap(), Some(PMIX_ERR_INIT));
    }
}
