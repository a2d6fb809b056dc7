//! `PMIx_server_init` and `PMIx_server_finalize`: the server's life cycle,
//! the host adapter, and the `server_object` pointers of registered
//! clients.

use std::sync::{Arc, PoisonError, RwLock};

use pmix_client::ProcessEvents;
use pmix_core::{attrs, Error, Info, Nspace, Rank, Result, Status, Value};
use pmix_server::{Server, ServerConfig};

use super::dirs;
use super::host::{self, objects, server_objects};
use crate::convert::infos_in_lossy;
use crate::role;
use crate::status::{fail, verbose};
use crate::types::*;

/// The host adapter, closed by `PMIx_server_finalize`.
static HOST: RwLock<Option<Arc<host::CHost>>> = RwLock::new(None);

const SRV_TMPDIR: &str = "pmix.srvr.tmpdir";
const SRV_NSPACE: &str = "pmix.srv.nspace";
const SRV_RANK: &str = "pmix.srv.rank";

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
/// dir, for the jobs' directories (`dirs`). `pmix.srvr.tool` (true: the
/// module's `tool_connected` slot names attaching tools; else the server
/// does), `pmix.srvr.sys` (also write the system rendezvous file
/// `pmix.sys.<host>`) and `pmix.sys.tmpdir` (where) are read too.
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
        let mut slot = role::server_slot();
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
        let mut module = if module.is_null() {
            pmix_server_module_t::default()
        } else {
            // SAFETY: valid (caller guarantee); a plain copy of the slots.
            unsafe { *module }
        };
        let flag = |key: &str| {
            infos
                .iter()
                .find(|i| i.is(key))
                .is_some_and(|i| i.value.is_true().unwrap_or(true))
        };
        // Tools always attach (their own user's); the host names them only
        // when it declared tool support. Open MPI 4.1's ORTE declares it
        // only as a session server, and otherwise records each tool as a
        // job of its own, which then keeps `mpirun` from ending.
        if !flag(attrs::SERVER_TOOL_SUPPORT) {
            module.tool_connected = None;
        }
        cfg.system_support = flag(attrs::SERVER_SYSTEM_SUPPORT);
        if let Some(d) = info_str(&infos, attrs::SYSTEM_TMPDIR) {
            cfg.system_tmpdir = Some(d.into());
        }
        let h = Arc::new(host::CHost::new(module, Arc::clone(objects())));
        dirs::start(&dirs::base(&infos))?;
        let server = match Server::init(cfg, Arc::clone(&h) as Arc<dyn pmix_server::Host>) {
            Ok(s) => s,
            Err(e) => {
                dirs::stop();
                return Err(e);
            }
        };
        *HOST.write().unwrap_or_else(PoisonError::into_inner) = Some(h);
        let events = match ProcessEvents::start(server.proc().clone()) {
            Ok(e) => e,
            Err(e) => {
                server.stop();
                dirs::stop();
                return Err(e);
            }
        };
        role::replace_server_events(Some(events));
        *slot = Some(Arc::new(server));
        Ok(())
    })();
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail("PMIx_server_init", &e),
    }
}

/// `pmix_status_t PMIx_server_finalize(void)`: stops the server.
#[no_mangle]
pub extern "C" fn PMIx_server_finalize() -> pmix_status_t {
    let s = role::server_slot().take();
    match s {
        None => PMIX_ERR_INIT,
        Some(s) => {
            // Handlers stop with the last clone of the chain.
            role::replace_server_events(None);
            // Stopped even if another call still holds a clone; then no
            // up-call may reach the host any more: it may unload its code
            // as soon as this returns.
            s.stop();
            let h = HOST.write().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(h) = h {
                h.close();
            }
            server_objects().clear();
            dirs::stop();
            PMIX_SUCCESS
        }
    }
}
