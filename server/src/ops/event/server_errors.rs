//! Internal server errors reported to the host (the event design's
//! "RM-Host Registrations"): a host that registered with
//! [`Server::register_host_events`](crate::Server::register_host_events)
//! is told, through [`Host::notify_event`](crate::Host::notify_event), of
//! the protocol violations the server meets — a request it cannot decode,
//! a one-way message it refuses, a connection whose handshake it refuses.
//! The report names the server as the source, has range `PMIX_RANGE_RM`
//! (it targets no process), and carries `PMIX_EVENT_AFFECTED_PROC` (the
//! offending client, when known) and `PMIX_EVENT_TEXT_MESSAGE` (what
//! happened). A host that did not register is told nothing; the server's
//! log says it either way.

use parking_lot::Mutex;
use pmix_core::{attrs, DataRange, Info, Proc, Status, Value};

use crate::inner::Inner;

/// The codes the host registered for: `None` until it registers, an empty
/// list for every code.
#[derive(Debug, Default)]
pub(crate) struct HostEvents {
    codes: Mutex<Option<Vec<Status>>>,
}

impl HostEvents {
    /// The host wants `codes` (empty: every code), replacing what it
    /// wanted before.
    pub(crate) fn register(&self, codes: &[Status]) {
        *self.codes.lock() = Some(codes.to_vec());
    }

    /// The host wants nothing any more.
    pub(crate) fn deregister(&self) {
        *self.codes.lock() = None;
    }

    /// Whether the host registered for `status`.
    pub(crate) fn wants(&self, status: Status) -> bool {
        self.codes
            .lock()
            .as_ref()
            .is_some_and(|c| c.is_empty() || c.contains(&status))
    }
}

/// Reports protocol violation `status` (`what`, by `offender` when known)
/// to the host, when it registered for the code. Never call it with the
/// state lock held (it calls the host).
pub(crate) fn report(inner: &Inner, status: Status, offender: Option<&Proc>, what: &str) {
    if !inner.host_events.wants(status) {
        return;
    }
    let mut info = Vec::with_capacity(2);
    if let Some(p) = offender {
        info.extend(Info::new(
            attrs::EVENT_AFFECTED_PROC,
            Value::Proc(p.clone()),
        ));
    }
    info.extend(Info::new(
        attrs::EVENT_TEXT_MESSAGE,
        Value::String(what.to_owned()),
    ));
    // The host's answer changes nothing: the violation already happened.
    inner
        .host
        .notify_event(status, &inner.me, DataRange::RM, &info, Box::new(|_| {}));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_wanted_until_the_host_registers() {
        let h = HostEvents::default();
        assert!(!h.wants(Status::ERR_UNPACK_FAILURE));
        h.register(&[Status::ERR_UNPACK_FAILURE]);
        assert!(h.wants(Status::ERR_UNPACK_FAILURE));
        assert!(!h.wants(Status::ERR_BAD_PARAM));
        h.register(&[]);
        assert!(h.wants(Status::ERR_BAD_PARAM));
        h.deregister();
        assert!(!h.wants(Status::ERR_BAD_PARAM));
    }
}
