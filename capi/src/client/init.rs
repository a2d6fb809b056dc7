//! `PMIx_Init`, `PMIx_Initialized`, `PMIx_Finalize`, `PMIx_Abort` and
//! `PMIx_Progress`: the client's life cycle.

use std::os::raw::{c_char, c_int};
use std::sync::Mutex;

use pmix_client::Client;
use pmix_core::Status;

use super::job_control;
use crate::convert::{directives_in, proc_to_c, procs_from_c, text_lossy};
use crate::events;
use crate::role;
use crate::status::{fail, status};
use crate::types::*;
use crate::worker::lock;

/// Serialises `PMIx_Init` and `PMIx_Finalize`.
static LIFECYCLE: Mutex<()> = Mutex::new(());

/// `PMIX_EMBED_BARRIER`: fence before finalizing.
const EMBED_BARRIER: &str = "pmix.embed.barrier";

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
    role::set_client(c);
    PMIX_SUCCESS
}

/// `int PMIx_Initialized(void)`: 1 between the first `PMIx_Init` and the
/// last `PMIx_Finalize`, else 0.
#[no_mangle]
pub extern "C" fn PMIx_Initialized() -> c_int {
    c_int::from(role::is_client())
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
    let c = match role::client() {
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
        role::clear_client();
        job_control::run_cleanup();
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
        let c = role::client()?;
        // SAFETY: NULL or a C string (caller guarantee).
        let msg = unsafe { text_lossy(msg) };
        // SAFETY: NULL or `nprocs` procs (caller guarantee).
        let procs = unsafe { procs_from_c(procs, nprocs) }?;
        c.abort(Status(status_), &msg, &procs)
    })();
    status("PMIx_Abort", &r)
}

/// `void PMIx_Progress(void)`: does nothing. OpenPMIx uses it to turn its
/// event loop from the caller's thread; here the client's progress thread,
/// the server's threads and the callback thread run by themselves, so there
/// is never anything left for the caller to drive.
#[no_mangle]
pub extern "C" fn PMIx_Progress() {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    #[test]
    fn calls_before_init_report_err_init() {
        assert_eq!(PMIx_Initialized(), 0);
        // SAFETY: NULL arguments are allowed and checked.
        assert_eq!(unsafe { PMIx_Finalize(ptr::null(), 0) }, PMIX_ERR_INIT);
        // SAFETY: as above.
        let rc = unsafe { PMIx_Abort(1, ptr::null(), ptr::null_mut(), 0) };
        assert_eq!(rc, PMIX_ERR_INIT);
        PMIx_Progress();
    }
}
