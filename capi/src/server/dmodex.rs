//! `PMIx_server_dmodex_request`: this node's data of a local client for
//! another node's direct modex.

use std::os::raw::{c_char, c_void};
use std::ptr;
use std::sync::Arc;

use pmix_core::Result;
use pmix_server::Server;

use crate::cmem;
use crate::convert::proc_from_c;
use crate::role;
use crate::status::fail;
use crate::types::*;
use crate::worker::{defer, CPtr};

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
            Err(e) => (fail("PMIx_server_dmodex_request", &e), Vec::new()),
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
        let s = role::server()?;
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
