//! `PMIx_Put`, `PMIx_Commit`, `PMIx_Get`, `PMIx_Get_nb` and
//! `PMIx_Store_internal`: the data a process shares and reads.
//!
//! In a process that is a server and not a client, `PMIx_Get` and
//! `PMIx_Store_internal` go to the server (the fallback rule of
//! [`crate::role`]).

use std::os::raw::{c_char, c_void};
use std::ptr;
use std::sync::Arc;

use pmix_client::Client;
use pmix_core::{DataArray, Info, Proc, Result, Scope, Value};
use pmix_server::Server;

use super::get_cache;
use crate::cdata::value_destruct;
use crate::cmem;
use crate::convert::{
    directives_in, key_in, proc_from_c, proc_in, value_from_c, value_to_c, value_to_c_boxed,
};
use crate::role::{self, Endpoint};
use crate::status::{fail, status};
use crate::types::*;
use crate::worker::{defer, CPtr};

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
        let c = role::client()?;
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
    let r = role::client().and_then(|c| c.commit());
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
) -> Result<(Proc, Option<&'a str>, Vec<Info>)> {
    // SAFETY: NULL or a C string; the borrow is used only while the
    // caller's call lasts (`PMIx_Get`) or copied at once (`Get_nb`).
    let key = unsafe { opt_key_in(key) }?;
    let p = if proc_.is_null() {
        c.proc().clone()
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        proc_in(c.proc(), unsafe { &*proc_ })?
    };
    // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
    let infos = unsafe { directives_in(info, ninfo) }?;
    Ok((p, key, infos))
}

/// `PMIx_Get` in a process that is a server and not a client:
/// [`Server::get`], never waiting.
///
/// # Safety
/// As [`PMIx_Get`].
unsafe fn server_get(s: &Server, proc_: *const pmix_proc_t, key: *const c_char) -> Result<Value> {
    // SAFETY: NULL or a C string (caller guarantee).
    let key = unsafe { opt_key_in(key) }?;
    let p = if proc_.is_null() {
        s.proc().clone()
    } else {
        // SAFETY: non-NULL and valid (caller guarantee).
        proc_from_c(unsafe { &*proc_ })?
    };
    match key {
        Some(key) => s.get(&p, key),
        None => s.get_all(&p).map(all_values),
    }
}

/// A NULL key (every value of a proc) as `None`, else the key.
///
/// # Safety
/// `key` is NULL or a C string that outlives the borrow.
unsafe fn opt_key_in<'a>(key: *const c_char) -> Result<Option<&'a str>> {
    if key.is_null() {
        return Ok(None);
    }
    // SAFETY: a non-NULL C string (caller guarantee).
    unsafe { key_in(key) }.map(Some)
}

/// The answer to a get with a NULL key: a `PMIX_DATA_ARRAY` of
/// `pmix_info_t`, one per key.
fn all_values(infos: Vec<Info>) -> Value {
    Value::from(DataArray::from_infos(infos))
}

/// A client's get: one key, or every value of `p` for a NULL key.
fn client_get(c: &Client, p: &Proc, key: Option<&str>, infos: &[Info]) -> Result<Value> {
    match key {
        Some(key) => c.get(p, key, infos),
        None => c.get_all(p).map(all_values),
    }
}

/// `pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
/// const pmix_info_t info[], size_t ninfo, pmix_value_t **val)`: the
/// value of `key` for `proc` (NULL: this process), in a `pmix_value_t`
/// malloc'd with libc with its exact type; release it with
/// `PMIX_VALUE_RELEASE`. `*val` is NULL on error. A NULL `key` asks for
/// every value of `proc` (of the job for rank `PMIX_RANK_WILDCARD`): a
/// `PMIX_DATA_ARRAY` of `pmix_info_t`, one per key, without waiting
/// ([`Client::get_all`], [`Server::get_all`]).
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
    let plain = ninfo == 0 && !key.is_null();
    if plain {
        // SAFETY: forwarded caller guarantee; `key` is not NULL.
        if let Some(v) = unsafe { get_cache::lookup(proc_, key) } {
            // SAFETY: non-NULL and writable (caller guarantee).
            unsafe { val.write(v) };
            return PMIX_SUCCESS;
        }
    }
    // SAFETY: non-NULL and writable (caller guarantee).
    unsafe { val.write(ptr::null_mut()) };
    let r = (|| {
        let epoch = role::client_epoch();
        let value = match role::client_else_server()? {
            Endpoint::Client(c) => {
                // SAFETY: forwarded caller guarantee.
                let (p, key, infos) = unsafe { get_args(&c, proc_, key, info, ninfo) }?;
                let stamp = key.filter(|_| plain).and_then(|k| c.data_stamp(&p, k));
                let value = client_get(&c, &p, key, &infos)?;
                if let (Some(stamp), Some(key)) = (stamp, key) {
                    get_cache::keep(epoch, &p, key, stamp, &value);
                }
                value
            }
            // SAFETY: forwarded caller guarantee.
            Endpoint::Server(s) => unsafe { server_get(&s, proc_, key) }?,
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

/// Hands a get result to a `pmix_value_cbfunc_t`; the value lives only
/// during the call and is released after it.
fn deliver_value(cb: PmixValueCb, cbdata: CPtr, r: Result<Value>) {
    let mut v = pmix_value_t::INIT;
    // SAFETY: `v` is a writable local value.
    let r = r.and_then(|value| unsafe { value_to_c(&value, &mut v) });
    match r {
        // SAFETY: the callback contract of `PMIx_Get_nb`; `v` is a valid
        // value owned by us, released after the call.
        Ok(()) => unsafe {
            cb(PMIX_SUCCESS, &mut v, cbdata.get());
            value_destruct(&mut v);
        },
        // SAFETY: the callback contract of `PMIx_Get_nb`.
        Err(e) => unsafe { cb(fail("PMIx_Get_nb", &e), ptr::null_mut(), cbdata.get()) },
    }
}

type PmixValueCb = unsafe extern "C" fn(pmix_status_t, *mut pmix_value_t, *mut c_void);

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
    cbdata: *mut c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        return fail("PMIx_Get_nb", &cmem::bad_param("NULL callback"));
    };
    let cbdata = CPtr::new(cbdata);
    let args = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let (p, key, infos) = unsafe { get_args(&c, proc_, key, info, ninfo) }?;
        Ok((c, p, key.map(str::to_owned), infos))
    });
    match args {
        Ok((c, p, Some(key), infos)) => {
            c.get_nb(&p, &key, &infos, move |r| deliver_value(cb, cbdata, r));
        }
        Ok((c, p, None, _)) => {
            let r = c.get_all(&p).map(all_values);
            defer(move || deliver_value(cb, cbdata, r));
        }
        Err(e) => {
            // The fallback rule: a server process answers from its server.
            let r = match role::server() {
                // SAFETY: forwarded caller guarantee; the arguments are read
                // before this call returns.
                Ok(s) => unsafe { server_get(&s, proc_, key) },
                Err(_) => Err(e),
            };
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
        let target: Endpoint<Arc<Server>> = role::client_else_server()?;
        if proc_.is_null() || val.is_null() {
            return Err(cmem::bad_param("NULL proc or value"));
        }
        // SAFETY: NULL or a C string (caller guarantee).
        let key = unsafe { key_in(key) }?;
        // SAFETY: non-NULL and valid (caller guarantee).
        let (p, value) = (unsafe { &*proc_ }, unsafe { value_from_c(val) }?);
        match target {
            Endpoint::Client(c) => c.store_internal(&proc_in(c.proc(), p)?, key, value),
            Endpoint::Server(s) => s.store_internal(&proc_from_c(p)?, key, value),
        }
    })();
    status("PMIx_Store_internal", &r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_before_init_report_err_init() {
        assert_eq!(PMIx_Commit(), PMIX_ERR_INIT);
        let mut v: *mut pmix_value_t = ptr::null_mut();
        let key = c"pmix.job.size";
        // SAFETY: NULL arguments are allowed and checked.
        unsafe {
            assert_eq!(
                PMIx_Get(ptr::null(), key.as_ptr(), ptr::null(), 0, &mut v),
                PMIX_ERR_INIT
            );
            assert!(v.is_null());
            assert_eq!(
                PMIx_Get(ptr::null(), key.as_ptr(), ptr::null(), 0, ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
        }
    }
}
