//! A client's end: `PMIx_Finalize` (the host is told; the client is then
//! finalized in the registry, its event interest dropped and its barrier
//! peer cell marked) and `PMIx_Abort` (handed to the host).

use std::sync::Arc;

use pmix_core::proto::{peer_state, Reply};
use pmix_core::{Proc, Status};

use crate::inner::Inner;
use crate::link::ReplyTo;
use crate::ops::event::host_calls::drive_host_calls;

/// A tool's finalize is not the host's business (it never registered
/// the tool as a client; OpenPMIx does not tell it either): answered here.
pub(crate) fn finalize(inner: &Arc<Inner>, to: ReplyTo) {
    let i = Arc::clone(inner);
    let proc = to.proc().clone();
    let is_tool = inner.state.lock().tools.contains_key(&proc);
    let tell_host = |p: &Proc, done: crate::host::Completion<()>| {
        if is_tool {
            done(Ok(()));
        } else {
            inner.host.client_finalized(p, done);
        }
    };
    tell_host(
        &proc,
        Box::new(move |r| {
            let proc = to.proc();
            let slot = {
                let mut st = i.state.lock();
                st.interest.forget(proc);
                st.registry.clients.get_mut(proc).map(|rec| {
                    rec.finalized = true;
                    rec.slot
                })
            };
            drive_host_calls(&i);
            if let Some(cell) = slot.and_then(|s| i.barriers.peer(s)) {
                cell.set_state(peer_state::FINALIZED);
            }
            crate::ops::connect::proc_finalized(&i, proc);
            to.send_status(r);
        }),
    );
}

pub(crate) fn abort(inner: &Inner, to: ReplyTo, status: Status, message: &str, procs: &[Proc]) {
    let proc = to.proc().clone();
    let done = to.completion(|()| Reply::status(Status::SUCCESS));
    inner.host.abort(&proc, status, message, procs, done);
}
