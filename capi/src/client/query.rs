//! `PMIx_Query_info` and `PMIx_Query_info_nb` (4.2 signatures) over
//! [`pmix_client::Client::query_nb`].
//!
//! The answers are OpenPMIx 4.2's flat array: one `pmix_info_t` per
//! answered key, keyed by the query key, in the order asked. Some keys
//! unanswered is `PMIX_ERR_PARTIAL_SUCCESS` with the answers that exist;
//! none is `PMIX_ERR_NOT_FOUND`. Argument errors (no queries, a key
//! without its required qualifier, not initialised) are returned by
//! `PMIx_Query_info_nb` itself without calling the callback, as OpenPMIx
//! 4.2 does; every later outcome goes to the callback, once, on the
//! library's callback thread. `PMIX_QUERY_STABLE_ABI_VERSION` and
//! `PMIX_QUERY_PROVISIONAL_ABI_VERSION` alone are answered without a
//! server, before `PMIx_Init` too.

use std::os::raw::c_void;

use pmix_client::QueryAnswer;
use pmix_core::proto::query::check_queries;
use pmix_core::{Error, Query, Result, Status};

use crate::cdata::array_free;
use crate::cmem::Out;
use crate::convert::{infos_to_c, query_from_c};
use crate::role;
use crate::status::fail;
use crate::types::*;
use crate::worker::{defer, CPtr};

/// The caller's queries, deep-copied and checked.
///
/// # Safety
/// `queries` NULL or `n` valid queries.
unsafe fn queries_in(queries: *const pmix_query_t, n: usize) -> Result<Vec<Query>> {
    if queries.is_null() || n == 0 {
        return Err(Error::bad_param("PMIx_Query_info: no queries"));
    }
    let qs = (0..n)
        // SAFETY: `i < n` valid queries (caller guarantee).
        .map(|i| unsafe { query_from_c(queries.add(i)) })
        .collect::<Result<Vec<_>>>()?;
    check_queries(&qs)?;
    Ok(qs)
}

/// Starts the query; an error here is the call's own return.
///
/// # Safety
/// As [`queries_in`].
unsafe fn start(
    queries: *const pmix_query_t,
    n: usize,
    done: impl FnOnce(Result<QueryAnswer>) + Send + 'static,
) -> Result<()> {
    // SAFETY: forwarded caller guarantee.
    let qs = unsafe { queries_in(queries, n) }?;
    // the ABI levels are the library's own: answered before init too
    if let Some(answer) = pmix_client::query_without_server(&qs) {
        done(Ok(answer));
        return Ok(());
    }
    role::client()?.query_nb(&qs, done);
    Ok(())
}

/// What `PMIx_Query_info_nb`'s callback releases: the results array.
struct Held {
    array: *mut pmix_info_t,
    n: usize,
}

unsafe extern "C" fn release_results(cbdata: *mut c_void) {
    if cbdata.is_null() {
        return;
    }
    // SAFETY: the box `deliver` leaked; the caller releases once.
    let h = unsafe { Box::from_raw(cbdata.cast::<Held>()) };
    // SAFETY: our libc array of `n` infos, not used after release.
    unsafe { array_free(PMIX_INFO, h.array.cast(), h.n) };
}

/// `pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t
/// nqueries, pmix_info_cbfunc_t cbfunc, void *cbdata)`: answers the
/// queries; `cbfunc(status, results, nresults, cbdata, release_fn,
/// release_cbdata)` gets the outcome (`SUCCESS`,
/// `PMIX_ERR_PARTIAL_SUCCESS` with the answers that exist, or an error);
/// the caller calls `release_fn(release_cbdata)` when done with the
/// results. Returns `PMIX_ERR_BAD_PARAM` (no queries, no callback, a key
/// missing its required qualifier) or `PMIX_ERR_INIT` without calling
/// `cbfunc`.
///
/// # Safety
/// `queries` NULL or `nqueries` valid queries; `cbfunc` callable from any
/// thread with `cbdata`.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info_nb(
    queries: *mut pmix_query_t,
    nqueries: usize,
    cbfunc: pmix_info_cbfunc_t,
    cbdata: *mut c_void,
) -> pmix_status_t {
    let Some(cb) = cbfunc else {
        return fail(
            "PMIx_Query_info_nb",
            &Error::bad_param("PMIx_Query_info_nb: no callback"),
        );
    };
    let cbdata = CPtr::new(cbdata);
    let done = move |r: Result<QueryAnswer>| {
        let (st, held) =
            match r.and_then(|a| Ok((a.status, infos_to_c(&a.results)?, a.results.len()))) {
                Ok((st, array, n)) => (st, Held { array, n }),
                Err(e) => (
                    Status(fail("PMIx_Query_info_nb", &e)),
                    Held {
                        array: std::ptr::null_mut(),
                        n: 0,
                    },
                ),
            };
        let (array, n) = (CPtr::new(held.array.cast()), held.n);
        let rel = CPtr::new(if n == 0 {
            std::ptr::null_mut()
        } else {
            Box::into_raw(Box::new(held)).cast()
        });
        // SAFETY: the caller's callback with its own data; the results
        // stay valid until it calls `release_results`.
        defer(move || unsafe {
            cb(
                st.0,
                array.get().cast(),
                n,
                cbdata.get(),
                Some(release_results),
                rel.get(),
            );
        });
    };
    // SAFETY: forwarded caller guarantee.
    match unsafe { start(queries, nqueries, done) } {
        Ok(()) => PMIX_SUCCESS,
        Err(e) => fail("PMIx_Query_info_nb", &e),
    }
}

/// `pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t
/// nqueries, pmix_info_t **results, size_t *nresults)`: as
/// [`PMIx_Query_info_nb`], blocking; `*results` (release with
/// `PMIX_INFO_FREE(*results, *nresults)`) holds the answers on `SUCCESS`
/// and `PMIX_ERR_PARTIAL_SUCCESS`, NULL otherwise.
///
/// # Safety
/// `queries` NULL or `nqueries` valid queries; `results` and `nresults`
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Query_info(
    queries: *mut pmix_query_t,
    nqueries: usize,
    results: *mut *mut pmix_info_t,
    nresults: *mut usize,
) -> pmix_status_t {
    // SAFETY: NULL or writable (caller guarantee).
    unsafe {
        results.clear();
        nresults.clear();
    }
    if results.is_null() || nresults.is_null() {
        return fail(
            "PMIx_Query_info",
            &Error::bad_param("PMIx_Query_info: NULL results"),
        );
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    // SAFETY: forwarded caller guarantee.
    let started = unsafe {
        start(queries, nqueries, move |r| {
            let _ = tx.send(r);
        })
    };
    if let Err(e) = started {
        return fail("PMIx_Query_info", &e);
    }
    let r = rx.recv().unwrap_or_else(|_| {
        Err(Error::with_context(
            Status::ERR_LOST_CONNECTION,
            "no answer to the query",
        ))
    });
    match r.and_then(|a| Ok((a.status, infos_to_c(&a.results)?, a.results.len()))) {
        Ok((st, array, n)) => {
            // SAFETY: both checked non-NULL above, writable (caller
            // guarantee).
            unsafe {
                results.write(array);
                nresults.write(n);
            }
            st.0
        }
        Err(e) => fail("PMIx_Query_info", &e),
    }
}
