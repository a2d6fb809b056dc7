//! [`CHost`]: the C host module as a Rust [`Host`].
//!
//! Each up-call converts its arguments to C (procs; infos of the types
//! Open MPI's ext3x converts — others are left out), boxes
//! the Rust completion with those C copies as the callback data, and calls
//! the slot. The C callback (from any thread) takes the box back, frees
//! the copies and completes. A slot that returns
//! `PMIX_OPERATION_SUCCEEDED` is done without a callback; any other
//! non-success return means no callback will come. `client_connected` is
//! the exception: called with a NULL callback, as OpenPMIx 4.2 does. The server calls the
//! host without holding its locks, and this adapter holds none either.

use std::collections::HashMap;
use std::os::raw::{c_char, c_void};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use parking_lot::{RwLock, RwLockReadGuard};
use std::ptr;

use pmix_core::proto::PData;
use pmix_core::{DataRange, Error, Info, Nspace, Proc, Result, Status};
use pmix_server::{Completion, ConnectOutcome, Host};

use crate::cdata::array_free;
use crate::cmem;
use crate::convert::{
    bytes_in, infos_from_c, infos_out_where, pdata_from_c, proc_to_c, procs_to_c,
};
use crate::types::*;

mod query;
mod spawn;
mod stdin;

/// The C module and the `server_object` of each registered client.
#[derive(Debug)]
pub(crate) struct CHost {
    /// The host's slots; all NULL once [`CHost::close`] ran.
    module: RwLock<pmix_server_module_t>,
    objects: Objects,
}

// SAFETY: the module holds only function pointers, which the host made
// callable from any thread (the PMIx server calls them from its progress
// thread).
unsafe impl Send for CHost {}
// SAFETY: as above; the slots are only read.
unsafe impl Sync for CHost {}

/// C copies that must live until the host calls back.
struct Keep {
    procs: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    /// A NULL-terminated key list (lookup, unpublish; group: the id).
    keys: *mut *mut c_char,
}

impl Keep {
    fn none() -> Keep {
        Keep {
            procs: ptr::null_mut(),
            info: ptr::null_mut(),
            ninfo: 0,
            keys: ptr::null_mut(),
        }
    }

    /// The C copies of a requesting proc, infos and (optionally) keys.
    fn request(proc: &Proc, info: &[Info], keys: Option<&[String]>) -> Result<Keep> {
        let (ci, ni) = infos_out_where_ext3x(info);
        let mut keep = Keep {
            procs: procs_out(std::slice::from_ref(proc)),
            info: ci,
            ninfo: ni,
            keys: ptr::null_mut(),
        };
        if keep.procs.is_null() {
            return Err(cmem::nomem());
        }
        if let Some(k) = keys {
            keep.keys = cmem::argv_from_strs(k)?;
        }
        Ok(keep)
    }
}

impl Drop for Keep {
    fn drop(&mut self) {
        if !self.procs.is_null() {
            // SAFETY: malloc'd by `procs_out`, no longer used by the host.
            unsafe { cmem::free(self.procs) };
        }
        if !self.info.is_null() {
            // SAFETY: made by `infos_out` with `ninfo` entries.
            unsafe { array_free(PMIX_INFO, self.info.cast(), self.ninfo) };
        }
        if !self.keys.is_null() {
            // SAFETY: made by `argv_from_strs`, no longer used by the host.
            unsafe { cmem::argv_free(self.keys) };
        }
    }
}

/// `server_object` pointers given to `PMIx_server_register_client`, by
/// proc: they come back unchanged in the client's up-calls.
pub(super) type Objects = Arc<Mutex<HashMap<Proc, usize>>>;

/// The map shared by the registration calls and the host adapter.
static OBJECTS: OnceLock<Objects> = OnceLock::new();

/// The `server_object` pointers of the registered clients.
pub(super) fn objects() -> &'static Objects {
    OBJECTS.get_or_init(Objects::default)
}

/// The `server_object` map, locked.
pub(super) fn server_objects() -> MutexGuard<'static, HashMap<Proc, usize>> {
    objects().lock().unwrap_or_else(PoisonError::into_inner)
}

/// The callback data of one up-call.
struct Pending<T> {
    done: Completion<T>,
    _keep: Keep,
}

fn status_result(st: pmix_status_t) -> Result<()> {
    if st == PMIX_SUCCESS || st == PMIX_OPERATION_SUCCEEDED {
        Ok(())
    } else {
        Err(Error::new(Status(st)))
    }
}

fn not_supported(what: &str) -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!("the host module has no {what}"),
    )
}

/// Types Open MPI's ext3x can convert (the types of the keys Open MPI reads, docs/CAPI.md).
fn ext3x_type(t: pmix_data_type_t) -> bool {
    matches!(
        t,
        PMIX_UNDEF
            | PMIX_BOOL
            | PMIX_BYTE
            | PMIX_STRING
            | PMIX_SIZE
            | PMIX_PID
            | PMIX_INT
            | PMIX_INT8
            | PMIX_INT16
            | PMIX_INT32
            | PMIX_INT64
            | PMIX_UINT
            | PMIX_UINT8
            | PMIX_UINT16
            | PMIX_UINT32
            | PMIX_UINT64
            | PMIX_FLOAT
            | PMIX_DOUBLE
            | PMIX_TIMEVAL
            | PMIX_TIME
            | PMIX_STATUS
            | PMIX_PROC
            | PMIX_BYTE_OBJECT
            | PMIX_PERSIST
            | PMIX_POINTER
            | PMIX_SCOPE
            | PMIX_DATA_RANGE
            | PMIX_PROC_STATE
            | PMIX_PROC_INFO
            | PMIX_PROC_RANK
            | PMIX_ENVAR
            | PMIX_DATA_ARRAY
    )
}

/// A malloc'd C copy of `infos` holding only ext3x-convertible entries;
/// `(NULL, 0)` when none.
pub(super) fn infos_out_where_ext3x(infos: &[Info]) -> (*mut pmix_info_t, usize) {
    infos_out_where(infos, ext3x_type)
}

/// A malloc'd C copy of `procs` (NULL when empty or out of memory).
fn procs_out(procs: &[Proc]) -> *mut pmix_proc_t {
    procs_to_c(procs).unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn op_cb(st: pmix_status_t, cbdata: *mut c_void) {
    // SAFETY: `cbdata` is the box `call_op` leaked; the host calls once.
    let p = unsafe { Box::from_raw(cbdata.cast::<Pending<()>>()) };
    (p.done)(status_result(st));
}

unsafe extern "C" fn modex_cb(
    st: pmix_status_t,
    data: *const c_char,
    ndata: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    // SAFETY: `cbdata` is the box `call_modex` leaked; the host calls once.
    let p = unsafe { Box::from_raw(cbdata.cast::<Pending<Vec<u8>>>()) };
    // SAFETY: the host's `ndata` bytes, valid until released.
    let bytes = unsafe { bytes_in(data, ndata) };
    if let Some(rel) = release_fn {
        // SAFETY: the host's release function with its own data.
        unsafe { rel(release_cbdata) };
    }
    let r = status_result(st).map(|()| bytes);
    (p.done)(r);
}

/// The host's group answer: its results copied out, then released.
///
/// # Safety
/// `cbdata` is the `Pending<Vec<Info>>` given to the group slot, used
/// once; `info` NULL or `ninfo` valid infos until released.
unsafe extern "C" fn group_cb(
    st: pmix_status_t,
    info: *mut pmix_info_t,
    ninfo: usize,
    cbdata: *mut c_void,
    release_fn: pmix_release_cbfunc_t,
    release_cbdata: *mut c_void,
) {
    // SAFETY: the box `settle` leaked for this call (caller guarantee).
    let p = unsafe { Box::from_raw(cbdata.cast::<Pending<Vec<Info>>>()) };
    let r = status_result(st).and_then(|()| {
        if info.is_null() || ninfo == 0 {
            Ok(Vec::new())
        } else {
            // SAFETY: `ninfo` valid infos (caller guarantee).
            unsafe { infos_from_c(info, ninfo) }
        }
    });
    if let Some(rel) = release_fn {
        // SAFETY: the host's release function with its own data.
        unsafe { rel(release_cbdata) };
    }
    (p.done)(r);
}

/// The host's lookup answer: copied out of the host's array (which it
/// owns) before completing.
///
/// # Safety
/// `cbdata` is the `Pending<Vec<PData>>` given to the lookup slot, used
/// once; `data` NULL or `ndata` valid pdata.
unsafe extern "C" fn lookup_cb(
    st: pmix_status_t,
    data: *mut pmix_pdata_t,
    ndata: usize,
    cbdata: *mut c_void,
) {
    // SAFETY: the box `settle` leaked for this call (caller guarantee).
    let p = unsafe { Box::from_raw(cbdata.cast::<Pending<Vec<PData>>>()) };
    // SAFETY: NULL or `ndata` valid pdata (caller guarantee).
    let r = status_result(st).and_then(|()| unsafe { pdata_from_c(data, ndata) });
    (p.done)(r);
}

/// Runs an up-call with `pending` as its callback data and handles its
/// return per the module's rules.
fn settle<T: Default + 'static>(
    pending: Pending<T>,
    call: impl FnOnce(*mut c_void) -> pmix_status_t,
) {
    let raw = Box::into_raw(Box::new(pending));
    let rc = call(raw.cast());
    if rc == PMIX_SUCCESS {
        return; // the callback comes (it may already have)
    }
    // SAFETY: no callback will come: the box is still ours.
    let p = unsafe { Box::from_raw(raw) };
    if rc == PMIX_OPERATION_SUCCEEDED {
        (p.done)(Ok(T::default()));
    } else {
        (p.done)(Err(Error::new(Status(rc))));
    }
}

impl CHost {
    pub(crate) fn new(module: pmix_server_module_t, objects: Objects) -> CHost {
        CHost {
            module: RwLock::new(module),
            objects,
        }
    }

    /// The slots, read-locked for as long as the guard lives: an up-call
    /// holds it across its call into the host, so [`close`](Self::close)
    /// returns only when no up-call is inside the host. Recursive: a host
    /// that completes inline may cause another up-call on the same thread.
    fn module(&self) -> RwLockReadGuard<'_, pmix_server_module_t> {
        self.module.read_recursive()
    }

    /// No up-call reaches the host after this returns (the slots are
    /// cleared once the up-calls inside the host returned):
    /// `PMIx_server_finalize` calls it, because the host may unload its
    /// code right after (Open MPI closes its PMIx component), while
    /// connection threads of the server may still report a client that
    /// went away. Up-calls then behave as with a module without slots.
    pub(crate) fn close(&self) {
        *self.module.write() = pmix_server_module_t::default();
    }

    fn object(&self, p: &Proc) -> *mut c_void {
        self.objects
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(p)
            .copied()
            .unwrap_or(0) as *mut c_void
    }

    /// Calls a `(procs, infos, op_cbfunc)` slot (connect, disconnect).
    fn procs_call(
        &self,
        slot: pmix_server_connect_fn_t,
        what: &str,
        procs: &[Proc],
        info: &[Info],
        done: Completion<()>,
    ) {
        let Some(f) = slot else {
            return done(Err(not_supported(what)));
        };
        let (ci, ni) = infos_out_where_ext3x(info);
        let keep = Keep {
            procs: procs_out(procs),
            info: ci,
            ninfo: ni,
            keys: ptr::null_mut(),
        };
        let (pp, np) = (
            keep.procs,
            if keep.procs.is_null() { 0 } else { procs.len() },
        );
        let pending = Pending { done, _keep: keep };
        // SAFETY: the host's slot; procs and infos live until the callback.
        settle(pending, |d| unsafe { f(pp, np, ci, ni, Some(op_cb), d) });
    }

    fn codes_call(&self, codes: &[Status], done: Completion<()>, register: bool) {
        let mut c: Vec<pmix_status_t> = codes.iter().map(|s| s.0).collect();
        let cp = if c.is_empty() {
            ptr::null_mut()
        } else {
            c.as_mut_ptr()
        };
        let n = c.len();
        if register {
            let m = self.module();
            let Some(f) = m.register_events else {
                return done(Err(not_supported("register_events")));
            };
            let pending = Pending {
                done,
                _keep: Keep::none(),
            };
            // SAFETY: the host's slot; `c` outlives the call (the host
            // copies what it keeps, as with OpenPMIx's stack arrays).
            settle(pending, |d| unsafe {
                f(cp, n, ptr::null(), 0, Some(op_cb), d)
            });
        } else {
            let m = self.module();
            let Some(f) = m.deregister_events else {
                return done(Err(not_supported("deregister_events")));
            };
            let pending = Pending {
                done,
                _keep: Keep::none(),
            };
            // SAFETY: as above.
            settle(pending, |d| unsafe { f(cp, n, Some(op_cb), d) });
        }
        drop(c);
    }
}

impl Host for CHost {
    /// The module's `group` slot (OpenPMIx 4.2's `pmix_server_grp_fn_t`):
    /// asked for a construct's context id; without the slot the server
    /// assigns it.
    fn group(
        &self,
        op: u8,
        group: &str,
        procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) {
        let m = self.module();
        let Some(f) = m.group else {
            return done(Err(not_supported("group")));
        };
        let (ci, ni) = infos_out_where_ext3x(directives);
        let mut keep = Keep {
            procs: procs_out(procs),
            info: ci,
            ninfo: ni,
            keys: ptr::null_mut(),
        };
        match cmem::argv_from_strs(&[group.to_owned()]) {
            Ok(k) => keep.keys = k,
            Err(e) => return done(Err(e)),
        }
        if keep.procs.is_null() {
            return done(Err(cmem::nomem()));
        }
        let (pp, np) = (keep.procs, procs.len());
        // SAFETY: the argv just made holds one string.
        let gp = unsafe { *keep.keys };
        let pending = Pending { done, _keep: keep };
        let op = pmix_group_operation_t::from(op);
        // SAFETY: the host's slot; the id, procs and infos live until the
        // callback.
        settle(pending, |d| unsafe {
            f(op, gp, pp, np, ci, ni, Some(group_cb), d)
        });
    }

    /// The 4.x rule of the (deprecated) `client_connected` slot, as
    /// OpenPMIx 4.2.2 calls it: with a NULL callback, the return being the
    /// answer (`PMIX_SUCCESS` or `PMIX_OPERATION_SUCCEEDED`: admitted).
    /// Hosts written for it rely on that: Slurm's PMIx plugin returns
    /// `PMIX_SUCCESS` and calls no callback (it would call a non-NULL one
    /// only from PMIx v6 on), ORTE's ext3x copes with a NULL one.
    fn client_connected(&self, proc: &Proc, done: Completion<()>) {
        let m = self.module();
        let Some(f) = m.client_connected else {
            return done(Ok(()));
        };
        let cp = proc_to_c(proc);
        let obj = self.object(proc);
        // SAFETY: the host's slot with a proc valid during the call (hosts
        // copy it), the object it registered and no callback.
        let rc = unsafe { f(&cp, obj, None, ptr::null_mut()) };
        if rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED {
            done(Ok(()));
        } else {
            done(Err(Error::new(Status(rc))));
        }
    }

    /// The `tool_connected` slot (`tool_host.rs`).
    fn tool_connected(&self, info: &[Info], done: Completion<Proc>) {
        let f = self.module().tool_connected;
        super::tool_host::tool_connected(f, info, done);
    }

    fn client_finalized(&self, proc: &Proc, done: Completion<()>) {
        let m = self.module();
        let Some(f) = m.client_finalized else {
            return done(Ok(()));
        };
        let cp = proc_to_c(proc);
        let obj = self.object(proc);
        let pending = Pending {
            done,
            _keep: Keep::none(),
        };
        // SAFETY: as in `client_connected`.
        settle(pending, |d| unsafe { f(&cp, obj, Some(op_cb), d) });
    }

    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: &str,
        procs: &[Proc],
        done: Completion<()>,
    ) {
        let m = self.module();
        let Some(f) = m.abort else {
            return done(Err(not_supported("abort")));
        };
        let cp = proc_to_c(proc);
        let obj = self.object(proc);
        let msg = match cmem::strdup_str(message) {
            Ok(m) => m,
            Err(e) => return done(Err(e)),
        };
        let keep = Keep {
            procs: procs_out(procs),
            info: ptr::null_mut(),
            ninfo: 0,
            keys: ptr::null_mut(),
        };
        let (pp, np) = (
            keep.procs,
            if keep.procs.is_null() { 0 } else { procs.len() },
        );
        let pending = Pending { done, _keep: keep };
        // SAFETY: the host's slot; the message lives through the call and
        // the procs until the callback.
        settle(pending, |d| unsafe {
            f(&cp, obj, status.0, msg, pp, np, Some(op_cb), d)
        });
        // SAFETY: ours; ORTE copies the message during the call.
        unsafe { cmem::free(msg) };
    }

    fn fence_nb(&self, procs: &[Proc], info: &[Info], data: Vec<u8>, done: Completion<Vec<u8>>) {
        let m = self.module();
        let Some(f) = m.fence_nb else {
            return done(Err(not_supported("fence_nb")));
        };
        // The blob is handed over: malloc'd, freed by the host (rule R1, docs/CAPI.md).
        let blob = if data.is_empty() {
            ptr::null_mut()
        } else {
            match cmem::calloc_array::<u8>(data.len()) {
                Ok(b) => {
                    // SAFETY: `b` holds `data.len()` bytes.
                    unsafe { ptr::copy_nonoverlapping(data.as_ptr(), b, data.len()) };
                    b
                }
                Err(e) => return done(Err(e)),
            }
        };
        let (ci, ni) = infos_out_where_ext3x(info);
        let keep = Keep {
            procs: procs_out(procs),
            info: ci,
            ninfo: ni,
            keys: ptr::null_mut(),
        };
        let (pp, np) = (
            keep.procs,
            if keep.procs.is_null() { 0 } else { procs.len() },
        );
        let pending = Pending { done, _keep: keep };
        let n = data.len();
        // SAFETY: the host's slot; procs and infos live until the callback,
        // the blob becomes the host's.
        settle(pending, |d| unsafe {
            f(pp, np, ci, ni, blob.cast(), n, Some(modex_cb), d)
        });
    }

    /// The module's `connect` (4.2: procs and infos, completing with a
    /// status only). The namespace is the one the server minted (in `info`
    /// as `PMIX_GROUP_ID`) and the rank map the server's expansion of the
    /// canonical set: the outcome carries neither.
    fn connect(&self, procs: &[Proc], info: &[Info], done: Completion<ConnectOutcome>) {
        let slot = self.module().connect;
        self.procs_call(
            slot,
            "connect",
            procs,
            info,
            Box::new(move |r| {
                done(r.map(|()| ConnectOutcome::default()));
            }),
        );
    }

    /// The module's `disconnect` (4.2: the group's real procs and infos).
    fn disconnect(&self, nspace: &Nspace, procs: &[Proc], info: &[Info], done: Completion<()>) {
        let _ = nspace;
        let slot = self.module().disconnect;
        self.procs_call(slot, "disconnect", procs, info, done);
    }

    fn direct_modex(&self, proc: &Proc, info: &[Info], done: Completion<Vec<u8>>) {
        let m = self.module();
        let Some(f) = m.direct_modex else {
            return done(Err(not_supported("direct_modex")));
        };
        let keep = match Keep::request(proc, info, None) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let (pp, ci, ni) = (keep.procs, keep.info, keep.ninfo);
        let pending = Pending { done, _keep: keep };
        // SAFETY: the host's slot; proc and infos live until the callback.
        settle(pending, |d| unsafe { f(pp, ci, ni, Some(modex_cb), d) });
    }

    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: DataRange,
        info: &[Info],
        done: Completion<()>,
    ) {
        let m = self.module();
        let Some(f) = m.notify_event else {
            return done(Err(not_supported("notify_event")));
        };
        let (ci, ni) = infos_out_where_ext3x(info);
        let keep = Keep {
            procs: procs_out(std::slice::from_ref(source)),
            info: ci,
            ninfo: ni,
            keys: ptr::null_mut(),
        };
        let pp = keep.procs;
        if pp.is_null() {
            return done(Err(cmem::nomem()));
        }
        let pending = Pending { done, _keep: keep };
        // SAFETY: the host's slot; source and infos live until the callback.
        settle(pending, |d| unsafe {
            f(status.0, pp, range.0, ci, ni, Some(op_cb), d)
        });
    }

    fn publish(&self, proc: &Proc, info: &[Info], done: Completion<()>) {
        let m = self.module();
        let Some(f) = m.publish else {
            return done(Err(not_supported("publish")));
        };
        let keep = match Keep::request(proc, info, None) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let (pp, ci, ni) = (keep.procs, keep.info, keep.ninfo);
        let pending = Pending { done, _keep: keep };
        // SAFETY: the slot's contract; the copies live until the callback.
        settle(pending, |d| unsafe { f(pp, ci, ni, Some(op_cb), d) });
    }

    fn lookup(&self, proc: &Proc, keys: &[String], info: &[Info], done: Completion<Vec<PData>>) {
        let m = self.module();
        let Some(f) = m.lookup else {
            return done(Err(not_supported("lookup")));
        };
        let keep = match Keep::request(proc, info, Some(keys)) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let (pp, kp, ci, ni) = (keep.procs, keep.keys, keep.info, keep.ninfo);
        let pending = Pending { done, _keep: keep };
        // SAFETY: as in `publish`.
        settle(pending, |d| unsafe {
            f(pp, kp, ci, ni, Some(lookup_cb), d)
        });
    }

    fn unpublish(&self, proc: &Proc, keys: &[String], info: &[Info], done: Completion<()>) {
        let m = self.module();
        let Some(f) = m.unpublish else {
            return done(Err(not_supported("unpublish")));
        };
        let keep = match Keep::request(proc, info, (!keys.is_empty()).then_some(keys)) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let (pp, kp, ci, ni) = (keep.procs, keep.keys, keep.info, keep.ninfo);
        let pending = Pending { done, _keep: keep };
        // SAFETY: as in `publish`.
        settle(pending, |d| unsafe { f(pp, kp, ci, ni, Some(op_cb), d) });
    }

    /// The log slot returns nothing: the host always calls back.
    fn log(&self, proc: &Proc, data: &[Info], directives: &[Info], done: Completion<()>) {
        let m = self.module();
        let Some(f) = m.log else {
            return done(Err(not_supported("log")));
        };
        let keep = match Keep::request(proc, data, None) {
            Ok(k) => k,
            Err(e) => return done(Err(e)),
        };
        let (dirs, ndirs) = infos_out_where_ext3x(directives);
        let (pp, ci, ni) = (keep.procs, keep.info, keep.ninfo);
        let pending = Pending { done, _keep: keep };
        let raw = Box::into_raw(Box::new(pending));
        // SAFETY: the slot's contract; `raw` is reclaimed by `op_cb`. The
        // directives are read during the call only (the host copies what
        // it keeps), then released.
        unsafe {
            f(pp, ci, ni, dirs, ndirs, Some(op_cb), raw.cast());
            array_free(PMIX_INFO, dirs.cast(), ndirs);
        }
    }

    fn query(&self, proc: &Proc, queries: &[pmix_core::Query], done: Completion<Vec<Info>>) {
        self.query_call(proc, queries, done);
    }

    fn push_stdin(
        &self,
        proc: &Proc,
        targets: &[Proc],
        data: &[u8],
        directives: &[Info],
        done: Completion<()>,
    ) {
        self.push_stdin_call(proc, targets, data, directives, done);
    }

    /// The spawn slot (`spawn.rs`).
    fn spawn(
        &self,
        requestor: &Proc,
        job_info: &[Info],
        apps: &[pmix_core::App],
        done: Completion<pmix_core::Nspace>,
    ) {
        self.spawn_call(requestor, job_info, apps, done);
    }

    fn register_events(&self, codes: &[Status], done: Completion<()>) {
        self.codes_call(codes, done, true);
    }

    fn deregister_events(&self, codes: &[Status], done: Completion<()>) {
        self.codes_call(codes, done, false);
    }
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
