//! `PMIx_Publish`, `PMIx_Lookup`, `PMIx_Unpublish` (and their `_nb`
//! forms) over the Rust client: the server hands them to its host with the
//! client's effective uid (`pmix.euid`), as Open MPI's ORTE data server
//! requires (docs/CAPI.md, "Server side"). `PMIX_WAIT` is passed through:
//! the host holds a lookup until the keys appear or its `PMIX_TIMEOUT`
//! expires; the library adds no shorter timeout.
//!
//! Data entries must convert exactly (an entry of a type the data model
//! cannot hold is `PMIX_ERR_NOT_SUPPORTED`, never silently dropped).

use std::os::raw::{c_char, c_void};
use std::ptr;

use pmix_core::proto::PData;
use pmix_core::Result;

use crate::cdata::array_free;
use crate::cmem;
use crate::convert::{directives_in, infos_from_c, keys_in, pdata_keys, proc_to_c, value_to_c};
use crate::role;
use crate::status::status;
use crate::types::*;
use crate::worker::{defer, CPtr};

/// Reports `r` through `cbfunc` on the callback thread.
fn op_done(
    what: &'static str,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: CPtr,
) -> impl FnOnce(Result<()>) + Send {
    move |r| {
        let st = status(what, &r);
        if let Some(cb) = cbfunc {
            // SAFETY: the caller's callback with its own data.
            defer(move || unsafe { cb(st, cbdata.get()) });
        }
    }
}

/// `pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo)`:
/// publishes the entries of `info` whose keys are not `pmix.` directives,
/// with those directives (`PMIX_RANGE`, `PMIX_PERSISTENCE`). Blocks until
/// the host answered.
///
/// # Safety
/// `info` NULL or `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish(info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        c.publish(&unsafe { infos_from_c(info, ninfo) }?)
    });
    status("PMIx_Publish", &r)
}

/// `pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
/// pmix_op_cbfunc_t cbfunc, void *cbdata)`: as [`PMIx_Publish`], the
/// outcome (errors included) reported through `cbfunc` on the callback
/// thread; returns `PMIX_SUCCESS` when given a callback.
///
/// # Safety
/// As [`PMIx_Publish`]; `cbfunc` NULL or callable from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Publish_nb(
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = op_done("PMIx_Publish_nb", cbfunc, CPtr::new(cbdata));
    // SAFETY: forwarded caller guarantee.
    let args = role::client().and_then(|c| Ok((c, unsafe { infos_from_c(info, ninfo) }?)));
    match args {
        Ok((c, infos)) => c.publish_nb(&infos, done),
        Err(e) if cbfunc.is_none() => return status("PMIx_Publish_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}

/// Writes found data into the caller's `pdata` entries with the same key.
/// Entries not found are left as they were.
///
/// # Safety
/// `data` points to `ndata` valid pdata whose values hold nothing that
/// needs releasing (as `PMIX_PDATA_CREATE` leaves them).
unsafe fn fill(data: *mut pmix_pdata_t, ndata: usize, found: &[PData]) -> Result<()> {
    // SAFETY: `ndata` valid pdata (caller guarantee).
    let out = unsafe { std::slice::from_raw_parts_mut(data, ndata) };
    for d in found {
        if let Some(slot) = out
            .iter_mut()
            .find(|s| cmem::fixed_bytes(&s.key) == d.key.as_bytes())
        {
            slot.proc_ = proc_to_c(&d.proc);
            // SAFETY: the slot's value is writable and owns nothing.
            unsafe { value_to_c(&d.value, &mut slot.value) }?;
        }
    }
    Ok(())
}

/// `pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const
/// pmix_info_t info[], size_t ninfo)`: looks up the keys of `data`; each
/// found entry gets its publisher and value (libc memory, released with
/// `PMIX_PDATA_FREE`). `PMIX_ERR_NOT_FOUND` when none was found. With
/// `PMIX_WAIT` it blocks until the keys are published (or the host's
/// `PMIX_TIMEOUT`).
///
/// # Safety
/// `data` NULL or `ndata` valid pdata with empty values; `info` NULL or
/// `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup(
    data: *mut pmix_pdata_t,
    ndata: usize,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = (|| {
        let c = role::client()?;
        if data.is_null() || ndata == 0 {
            return Err(cmem::bad_param("no pdata to look up"));
        }
        // SAFETY: `ndata` valid pdata (caller guarantee).
        let keys = unsafe { pdata_keys(data, ndata) };
        // SAFETY: NULL or `ninfo` valid infos (caller guarantee).
        let infos = unsafe { directives_in(info, ninfo) }?;
        let found = c.lookup(&keys, &infos)?;
        // SAFETY: as above.
        unsafe { fill(data, ndata, &found) }
    })();
    status("PMIx_Lookup", &r)
}

/// Hands lookup results to a `pmix_lookup_cbfunc_t` in a library-owned
/// pdata array valid during the call.
fn deliver_found(
    cb: unsafe extern "C" fn(pmix_status_t, *mut pmix_pdata_t, usize, *mut c_void),
    cbdata: CPtr,
    r: Result<Vec<PData>>,
) {
    let arr = r.and_then(|found| {
        let arr = cmem::calloc_array::<pmix_pdata_t>(found.len().max(1))?;
        for (i, d) in found.iter().enumerate() {
            // SAFETY: slot `i` of the zeroed array.
            let slot = unsafe { &mut *arr.add(i) };
            cmem::load_key(&mut slot.key, d.key.as_bytes());
            slot.proc_ = proc_to_c(&d.proc);
            // SAFETY: a zeroed, writable value.
            if let Err(e) = unsafe { value_to_c(&d.value, &mut slot.value) } {
                // SAFETY: `i` filled entries, ours.
                unsafe { array_free(PMIX_PDATA, arr.cast(), i) };
                return Err(e);
            }
        }
        Ok((arr, found.len()))
    });
    match arr {
        Ok((arr, n)) => {
            // SAFETY: the caller's callback; the array lives until it
            // returns, then it is released.
            unsafe {
                cb(PMIX_SUCCESS, arr, n, cbdata.get());
                array_free(PMIX_PDATA, arr.cast(), n);
            }
        }
        Err(e) => {
            let st = status("PMIx_Lookup_nb", &Err(e));
            // SAFETY: the caller's callback.
            unsafe { cb(st, ptr::null_mut(), 0, cbdata.get()) };
        }
    }
}

/// `pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[],
/// size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)`: the data
/// found for the NULL-terminated `keys` go to `cbfunc` on the callback
/// thread (library-owned, valid during the call). `PMIX_ERR_BAD_PARAM` for
/// a NULL callback; else `PMIX_SUCCESS` and every outcome goes to
/// `cbfunc`.
///
/// # Safety
/// `keys` NULL or NULL-terminated C strings; `info` NULL or `ninfo` valid
/// infos; `cbfunc` callable from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Lookup_nb(
    keys: *mut *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_lookup_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        return status("PMIx_Lookup_nb", &Err(cmem::bad_param("NULL callback")));
    };
    let cbdata = CPtr::new(cbdata);
    let args = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let k = unsafe { keys_in(keys) }?;
        // SAFETY: as above.
        let i = unsafe { directives_in(info, ninfo) }?;
        Ok((c, k, i))
    });
    match args {
        Ok((c, k, i)) => c.lookup_nb(&k, &i, move |r| {
            defer(move || deliver_found(cb, cbdata, r));
        }),
        Err(e) => defer(move || deliver_found(cb, cbdata, Err(e))),
    }
    PMIX_SUCCESS
}

/// `pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[],
/// size_t ninfo)`: removes the NULL-terminated `keys` this process
/// published (NULL: all of them).
///
/// # Safety
/// `keys` NULL or NULL-terminated C strings; `info` NULL or `ninfo` valid
/// infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish(
    keys: *mut *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
) -> pmix_status_t {
    let r = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let k = unsafe { keys_in(keys) }?;
        // SAFETY: as above.
        let i = unsafe { directives_in(info, ninfo) }?;
        c.unpublish(&k, &i)
    });
    status("PMIx_Unpublish", &r)
}

/// `pmix_status_t PMIx_Unpublish_nb(char **keys, const pmix_info_t info[],
/// size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)`: as
/// [`PMIx_Unpublish`], reporting through `cbfunc` on the callback thread.
///
/// # Safety
/// As [`PMIx_Unpublish`]; `cbfunc` NULL or callable from any thread.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Unpublish_nb(
    keys: *mut *mut c_char,
    info: *const pmix_info_t,
    ninfo: usize,
    cbfunc: pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let done = op_done("PMIx_Unpublish_nb", cbfunc, CPtr::new(cbdata));
    let args = role::client().and_then(|c| {
        // SAFETY: forwarded caller guarantee.
        let k = unsafe { keys_in(keys) }?;
        // SAFETY: as above.
        let i = unsafe { directives_in(info, ninfo) }?;
        Ok((c, k, i))
    });
    match args {
        Ok((c, k, i)) => c.unpublish_nb(&k, &i, done),
        Err(e) if cbfunc.is_none() => return status("PMIx_Unpublish_nb", &Err(e)),
        Err(e) => done(Err(e)),
    }
    PMIX_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::{Proc, Rank, Value};

    #[test]
    fn lookup_fills_only_the_entries_found() {
        let mut data = [pmix_pdata_t {
            proc_: proc_to_c(&Proc::new("x", Rank(0)).unwrap()),
            key: [0; PMIX_MAX_KEYLEN + 1],
            value: pmix_value_t::INIT,
        }; 2];
        cmem::load_key(&mut data[0].key, b"a");
        cmem::load_key(&mut data[1].key, b"b");
        let found = vec![PData {
            proc: Proc::new("ns", Rank(3)).unwrap(),
            key: "b".into(),
            value: Value::String("port".into()),
        }];
        // SAFETY: two valid pdata with empty values; released below.
        unsafe {
            fill(data.as_mut_ptr(), 2, &found).unwrap();
            assert_eq!(data[0].value.type_, PMIX_UNDEF);
            assert_eq!(data[1].value.type_, PMIX_STRING);
            assert_eq!(data[1].proc_.rank, 3);
            crate::cdata::value_destruct(&mut data[1].value);
        }
    }

    #[test]
    fn calls_before_init_report_err_init() {
        // SAFETY: NULL arguments are allowed and checked.
        unsafe {
            assert_eq!(PMIx_Publish(ptr::null(), 0), PMIX_ERR_INIT);
            assert_eq!(
                PMIx_Unpublish(ptr::null_mut(), ptr::null(), 0),
                PMIX_ERR_INIT
            );
            assert_eq!(
                PMIx_Lookup(ptr::null_mut(), 0, ptr::null(), 0),
                PMIX_ERR_INIT
            );
            assert_eq!(
                PMIx_Lookup_nb(ptr::null_mut(), ptr::null(), 0, None, ptr::null_mut()),
                PMIX_ERR_BAD_PARAM
            );
        }
    }
}
