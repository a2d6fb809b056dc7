//! Namespace and client registration: `PMIx_server_register_nspace`,
//! `PMIx_server_deregister_nspace`, `PMIx_server_register_client`,
//! `PMIx_server_deregister_client`.
//!
//! Each does its work synchronously (everything the caller passes is
//! copied before the call returns) and reports through the caller's
//! callback on the library's callback thread (T2/T3); the deregistrations
//! always call back (T1).

use std::os::raw::{c_char, c_int, c_void};

use pmix_core::{Info, Result, Value};

use super::dirs;
use super::host::server_objects;
use super::regex::RAW;
use crate::cmem;
use crate::convert::{infos_in_lossy, nspace_arg, proc_from_c};
use crate::role;
use crate::status::{reply_op, status};
use crate::types::*;

/// Reports `r` through `cbfunc` on the callback thread (returning
/// `PMIX_SUCCESS`), or returns its status when there is no callback.
fn answer(
    what: &str,
    r: Result<()>,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    reply_op(status(what, &r), cbfunc, cbdata)
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
        let s = role::server()?;
        // SAFETY: NUL-terminated (caller guarantee).
        let ns = unsafe { nspace_arg(nspace) }?;
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
        let s = role::server()?;
        // SAFETY: NUL-terminated (caller guarantee).
        let ns = unsafe { nspace_arg(nspace) }?;
        server_objects().retain(|p, _| p.nspace != ns);
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
        let s = role::server()?;
        if proc_.is_null() {
            return Err(cmem::bad_param("NULL proc"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        server_objects().insert(p.clone(), server_object as usize);
        let r = s.register_client(&p, uid, gid);
        if r.is_ok() {
            dirs::client_registered(&p, uid);
        }
        if r.is_err() {
            server_objects().remove(&p);
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
        let s = role::server()?;
        if proc_.is_null() {
            return Err(cmem::bad_param("NULL proc"));
        }
        // SAFETY: non-NULL and valid (caller guarantee).
        let p = proc_from_c(unsafe { &*proc_ })?;
        server_objects().remove(&p);
        dirs::client_deregistered(&p);
        s.deregister_client(&p)
    })();
    let _ = answer("PMIx_server_deregister_client", r, cbfunc, cbdata);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::regex::PMIx_generate_regex;
    use std::ptr;
    use std::sync::Mutex;

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
