//! The up-call rules of [`CHost`] that hosts written for OpenPMIx 4.2
//! depend on.

use std::cell::Cell;
use std::os::raw::c_void;
use std::sync::mpsc;

use pmix_core::{Proc, Status};
use pmix_server::Host;

use super::{CHost, Objects};
use crate::types::*;

thread_local! {
    /// Calls of [`slurm_connected`] on this thread that got a callback
    /// (the up-call runs on the caller's thread).
    static WITH_CALLBACK: Cell<usize> = const { Cell::new(0) };
}

/// Slurm 22.05's `client_connected`: returns `PMIX_SUCCESS` and calls no
/// callback (before PMIx v6 the callback was always NULL).
unsafe extern "C" fn slurm_connected(
    _proc: *const pmix_proc_t,
    _obj: *mut c_void,
    cbfunc: pmix_op_cbfunc_t,
    _cbdata: *mut c_void,
) -> pmix_status_t {
    if cbfunc.is_some() {
        WITH_CALLBACK.with(|n| n.set(n.get() + 1));
    }
    PMIX_SUCCESS
}

/// A host that refuses the client.
unsafe extern "C" fn refusing(
    _proc: *const pmix_proc_t,
    _obj: *mut c_void,
    _cbfunc: pmix_op_cbfunc_t,
    _cbdata: *mut c_void,
) -> pmix_status_t {
    PMIX_ERR_NOT_SUPPORTED
}

fn connect(slot: pmix_server_client_connected_fn_t) -> Option<pmix_core::Result<()>> {
    let module = pmix_server_module_t {
        client_connected: slot,
        ..Default::default()
    };
    let host = CHost::new(module, Objects::default());
    let (tx, rx) = mpsc::channel();
    host.client_connected(
        &Proc::new("ns", 0u32).unwrap(),
        Box::new(move |r| {
            let _ = tx.send(r);
        }),
    );
    // completed before the up-call returned, or never
    rx.try_recv().ok()
}

#[test]
fn client_connected_is_called_without_callback_and_its_return_is_the_answer() {
    let r = connect(Some(slurm_connected)).expect("PMIX_SUCCESS completes at once");
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(WITH_CALLBACK.with(Cell::get), 0);
    let r = connect(Some(refusing)).expect("a refusal completes at once");
    assert_eq!(r.unwrap_err().status(), Status(PMIX_ERR_NOT_SUPPORTED));
    assert!(connect(None).expect("no slot: admitted").is_ok());
}
