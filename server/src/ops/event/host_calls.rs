//! The clients' event interest (`EVENT_INTEREST`) and the up-calls it
//! leads to: `Host::register_events` / `deregister_events` for the union
//! of the codes wanted (`interest.rs` decides; this module calls).

use pmix_core::{Proc, Result, Status};

use crate::host::Completion;
use crate::inner::Inner;
use crate::ops::event::interest::HostCall;

/// An `EVENT_INTEREST` from `proc` (ignored once it finalized or died).
pub(crate) fn set_interest(inner: &Inner, proc: &Proc, codes: &[Status], default: bool) {
    {
        let mut st = inner.state.lock();
        if !st.registry.clients.get(proc).is_some_and(|c| c.is_live()) {
            return;
        }
        st.interest.set(proc, codes, default);
    }
    drive_host_calls(inner);
}

/// Makes the queued `register_events` / `deregister_events` up-calls, in
/// order, one thread at a time, never under the state lock. A thread that
/// finds another one at it leaves the new calls to it.
pub(crate) fn drive_host_calls(inner: &Inner) {
    if !inner.state.lock().interest.begin_calls() {
        return;
    }
    let logger = inner.logger();
    loop {
        let Some(call) = inner.state.lock().interest.next_call() else {
            return;
        };
        let l = logger.clone();
        let done = move |what: &'static str| -> Completion<()> {
            Box::new(move |r: Result<()>| {
                if let Err(e) = r {
                    if e.status() != Status::ERR_NOT_SUPPORTED {
                        l.log(format_args!("host {what}: {e}"));
                    }
                }
            })
        };
        match call {
            HostCall::Register(codes) => {
                inner.host.register_events(&codes, done("register_events"))
            }
            HostCall::Deregister(codes) => inner
                .host
                .deregister_events(&codes, done("deregister_events")),
        }
    }
}
