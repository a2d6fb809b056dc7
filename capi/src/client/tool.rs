//! Tools (`pmix_tool.h`, 4.2 signatures): `PMIx_tool_init`,
//! `PMIx_tool_finalize`, `PMIx_tool_attach_to_server`,
//! `PMIx_tool_set_server`, `PMIx_tool_get_servers`,
//! `PMIx_tool_disconnect`, the deprecated `PMIx_tool_connect_to_server`
//! and v5's `PMIx_tool_is_connected`. A tool attaches to pmix-rs servers
//! only (`pmix_client::tool`); the server it talks to (its primary) is
//! the process's client for every other call (`PMIx_Query_info`,
//! `PMIx_Notify_event`, `PMIx_Log`, `PMIx_Spawn`, …).

use std::sync::Mutex;

use pmix_client::tool::{self, ServerEntry, Tool};
use pmix_client::Client;
use pmix_core::{Error, Info, Proc, Result, Status};

use crate::convert::{directives_in, proc_from_c, proc_to_c, procs_to_c};
use crate::role;
use crate::status::fail;
use crate::types::*;
use crate::worker::lock;

/// The tool's state: its identity, and the servers it is attached to
/// (the first is the primary).
struct ToolState {
    me: Proc,
    servers: Vec<(ServerEntry, Client)>,
}

static TOOL: Mutex<Option<ToolState>> = Mutex::new(None);

fn not_init() -> Error {
    Error::with_context(Status::ERR_INIT, "PMIx_tool_init has not been called")
}

/// A process that is a PMIx client (`PMIx_Init`) is not a tool too.
fn a_client_already() -> Error {
    Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        "this process is a PMIx client (PMIx_Init): it cannot also be a tool",
    )
}

/// Makes the first attached server the process's client.
fn install_primary(st: &ToolState) {
    role::clear_client();
    if let Some((_, c)) = st.servers.first() {
        role::set_client(c.clone());
    }
}

/// Writes `p` to `out` when it is not NULL.
///
/// # Safety
/// `out` NULL or writable.
unsafe fn write_proc(out: *mut pmix_proc_t, p: &Proc) {
    if !out.is_null() {
        // SAFETY: non-NULL and writable (caller guarantee).
        unsafe { out.write(proc_to_c(p)) };
    }
}

/// `pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[],
/// size_t ninfo)`: attaches to the pmix-rs server `info` names
/// (`PMIX_SERVER_URI`, `PMIX_SERVER_PIDINFO`, `PMIX_SERVER_NSPACE`,
/// `PMIX_CONNECT_TO_SYSTEM`, `PMIX_CONNECT_SYSTEM_FIRST`; else the one
/// live server found) and fills `proc` with the identity the server's
/// host gave (or `PMIX_TOOL_NSPACE` / `PMIX_TOOL_RANK`).
/// `PMIX_TOOL_DO_NOT_CONNECT`: no server. Another user's server is
/// `PMIX_ERR_NO_PERMISSIONS`; no server found `PMIX_ERR_UNREACH`; a
/// process that is a PMIx client already `PMIX_ERR_NOT_SUPPORTED`.
///
/// # Safety
/// `proc` NULL or writable; `info` NULL or `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_init(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let infos = match unsafe { directives_in(info, ninfo) } {
        Ok(i) => i,
        Err(e) => return fail("PMIx_tool_init", &e),
    };
    let mut g = lock(&TOOL);
    if let Some(st) = g.as_ref() {
        // SAFETY: forwarded caller guarantee.
        unsafe { write_proc(proc_, &st.me) };
        return PMIX_SUCCESS;
    }
    if role::is_client() {
        return fail("PMIx_tool_init", &a_client_already());
    }
    let t = match Tool::init(&infos) {
        Ok(t) => t,
        Err(e) => return fail("PMIx_tool_init", &e),
    };
    let mut st = ToolState {
        me: t.proc().clone(),
        servers: Vec::new(),
    };
    if let (Some(entry), Some(c)) = (t.server(), t.client()) {
        st.servers.push((entry.clone(), c.clone()));
    }
    install_primary(&st);
    // SAFETY: forwarded caller guarantee.
    unsafe { write_proc(proc_, &st.me) };
    *g = Some(st);
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_tool_finalize(void)`: detaches from every server
/// (each is told, as a client's finalize) and forgets the tool.
/// `PMIX_ERR_INIT` without `PMIx_tool_init`.
#[no_mangle]
pub extern "C" fn PMIx_tool_finalize() -> pmix_status_t {
    let Some(st) = lock(&TOOL).take() else {
        let e = if role::is_client() {
            a_client_already()
        } else {
            not_init()
        };
        return fail("PMIx_tool_finalize", &e);
    };
    role::clear_client();
    for (_, c) in st.servers {
        // A server that is gone already: nothing left to tell it.
        let _ = c.disconnect();
    }
    PMIX_SUCCESS
}

/// Attaches one more server, as `info` names it.
fn attach(infos: &[Info]) -> Result<(Proc, Proc)> {
    let mut g = lock(&TOOL);
    let st = g.as_mut().ok_or_else(not_init)?;
    let entry = tool::choose_server(infos)?;
    if let Some((e, _)) = st.servers.iter().find(|(e, _)| e.socket == entry.socket) {
        return Ok((st.me.clone(), e.server.clone()));
    }
    let c = tool::attach(&entry, Some(st.me.clone()))?;
    let server = entry.server.clone();
    st.servers.insert(0, (entry, c));
    install_primary(st);
    Ok((st.me.clone(), server))
}

/// `pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc,
/// pmix_proc_t *server, pmix_info_t info[], size_t ninfo)`: attaches to
/// one more server (named as for `PMIx_tool_init`), under the tool's
/// identity, and makes it the primary; fills `myproc` and `server`.
///
/// # Safety
/// `myproc`, `server` NULL or writable; `info` NULL or `ninfo` valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_attach_to_server(
    myproc: *mut pmix_proc_t,
    server: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    let infos = match unsafe { directives_in(info, ninfo) } {
        Ok(i) => i,
        Err(e) => return fail("PMIx_tool_attach_to_server", &e),
    };
    match attach(&infos) {
        Ok((me, srv)) => {
            // SAFETY: forwarded caller guarantee.
            unsafe {
                write_proc(myproc, &me);
                write_proc(server, &srv);
            }
            PMIX_SUCCESS
        }
        Err(e) => fail("PMIx_tool_attach_to_server", &e),
    }
}

/// `pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc,
/// pmix_info_t info[], size_t ninfo)` (deprecated): as
/// `PMIx_tool_attach_to_server` without the server's name.
///
/// # Safety
/// As `PMIx_tool_attach_to_server`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_connect_to_server(
    proc_: *mut pmix_proc_t,
    info: *mut pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    // SAFETY: forwarded caller guarantee.
    unsafe { PMIx_tool_attach_to_server(proc_, std::ptr::null_mut(), info, ninfo) }
}

/// `pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
/// pmix_info_t info[], size_t ninfo)`: makes the attached `server` the
/// primary; `PMIX_ERR_NOT_FOUND` for a server not attached.
///
/// # Safety
/// `server` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_set_server(
    server: *const pmix_proc_t,
    _info: *mut pmix_info_t,
    _ninfo: usize,
) -> pmix_status_t {
    let r = (|| -> Result<()> {
        if server.is_null() {
            return Err(Error::bad_param("PMIx_tool_set_server: server is NULL"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let want = proc_from_c(unsafe { &*server })?;
        let mut g = lock(&TOOL);
        let st = g.as_mut().ok_or_else(not_init)?;
        let i = st
            .servers
            .iter()
            .position(|(e, _)| e.server == want)
            .ok_or_else(|| {
                Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("PMIx_tool_set_server: not attached to {want}"),
                )
            })?;
        let s = st.servers.remove(i);
        st.servers.insert(0, s);
        install_primary(st);
        Ok(())
    })();
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail("PMIx_tool_set_server", &e),
    }
}

/// `pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t
/// *nservers)`: the attached servers, the primary first, in an array the
/// caller frees (`PMIX_PROC_FREE`); none: NULL and 0.
///
/// # Safety
/// `servers`, `nservers` writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_get_servers(
    servers: *mut *mut pmix_proc_t,
    nservers: *mut usize,
) -> pmix_status_t {
    if servers.is_null() || nservers.is_null() {
        return fail(
            "PMIx_tool_get_servers",
            &Error::bad_param("servers and nservers must not be NULL"),
        );
    }
    let procs: Vec<Proc> = match lock(&TOOL).as_ref() {
        Some(st) => st.servers.iter().map(|(e, _)| e.server.clone()).collect(),
        None => return fail("PMIx_tool_get_servers", &not_init()),
    };
    let arr = if procs.is_empty() {
        Ok(std::ptr::null_mut())
    } else {
        procs_to_c(&procs)
    };
    match arr {
        Ok(a) => {
            // SAFETY: both writable (caller guarantee, checked non-NULL).
            unsafe {
                servers.write(a);
                nservers.write(procs.len());
            }
            PMIX_SUCCESS
        }
        Err(e) => fail("PMIx_tool_get_servers", &e),
    }
}

/// `pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server)`:
/// detaches from `server` (the next attached one becomes the primary);
/// `PMIX_ERR_NOT_FOUND` for a server not attached.
///
/// # Safety
/// `server` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn PMIx_tool_disconnect(server: *const pmix_proc_t) -> pmix_status_t {
    let r = (|| -> Result<()> {
        if server.is_null() {
            return Err(Error::bad_param("PMIx_tool_disconnect: server is NULL"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let want = proc_from_c(unsafe { &*server })?;
        let mut g = lock(&TOOL);
        let st = g.as_mut().ok_or_else(not_init)?;
        let i = st
            .servers
            .iter()
            .position(|(e, _)| e.server == want)
            .ok_or_else(|| {
                Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("PMIx_tool_disconnect: not attached to {want}"),
                )
            })?;
        let (_, c) = st.servers.remove(i);
        install_primary(st);
        let _ = c.disconnect();
        Ok(())
    })();
    match r {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail("PMIx_tool_disconnect", &e),
    }
}

/// `bool PMIx_tool_is_connected(void)` (v5): whether the tool is attached
/// to a server.
#[no_mangle]
pub extern "C" fn PMIx_tool_is_connected() -> bool {
    lock(&TOOL)
        .as_ref()
        .is_some_and(|st| !st.servers.is_empty())
}
