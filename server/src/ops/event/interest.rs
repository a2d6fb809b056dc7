//! Which event codes the local clients' handlers want, and what the host
//! was asked for (the event design, "PMIx Server Registrations": the server
//! registers with the host only when some client wants those events, and
//! only once for all of them).
//!
//! Pure bookkeeping under the server's state lock. Changes of the union
//! become [`HostCall`]s in a queue; one thread at a time makes them, in
//! order, without holding the lock (see `host_calls::drive_host_calls`).

use std::collections::{BTreeSet, HashMap, VecDeque};

use pmix_core::{Proc, Status};

/// An up-call the union's change asks for. An empty code list means every
/// code (a default handler).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HostCall {
    /// `Host::register_events`.
    Register(Vec<Status>),
    /// `Host::deregister_events`.
    Deregister(Vec<Status>),
}

/// One client's wanted codes.
#[derive(Debug, Default)]
struct Wanted {
    codes: BTreeSet<Status>,
    all: bool,
}

/// Every client's interest and the host's registrations.
#[derive(Debug, Default)]
pub(crate) struct Interests {
    clients: HashMap<Proc, Wanted>,
    /// Codes the host was asked for and not released.
    host_codes: BTreeSet<Status>,
    /// The host was asked for every code.
    host_all: bool,
    queue: VecDeque<HostCall>,
    /// Some thread is making the queued calls.
    draining: bool,
}

impl Interests {
    /// `proc`'s handlers now want `codes`, and every code when `default`
    /// (replacing what it wanted before).
    pub(crate) fn set(&mut self, proc: &Proc, codes: &[Status], default: bool) {
        if codes.is_empty() && !default {
            self.clients.remove(proc);
        } else {
            self.clients.insert(
                proc.clone(),
                Wanted {
                    codes: codes.iter().copied().collect(),
                    all: default,
                },
            );
        }
        self.update();
    }

    /// `proc` finalized, died or was deregistered: it wants nothing.
    pub(crate) fn forget(&mut self, proc: &Proc) {
        if self.clients.remove(proc).is_some() {
            self.update();
        }
    }

    /// Queues the host calls that bring the host's registrations to the
    /// union of what the clients want.
    fn update(&mut self) {
        let union: BTreeSet<Status> = self
            .clients
            .values()
            .flat_map(|w| w.codes.iter().copied())
            .collect();
        let all = self.clients.values().any(|w| w.all);
        if all && !self.host_all {
            self.queue.push_back(HostCall::Register(Vec::new()));
        }
        let added: Vec<Status> = union.difference(&self.host_codes).copied().collect();
        if !added.is_empty() {
            self.queue.push_back(HostCall::Register(added));
        }
        let removed: Vec<Status> = self.host_codes.difference(&union).copied().collect();
        if !removed.is_empty() {
            self.queue.push_back(HostCall::Deregister(removed));
        }
        if !all && self.host_all {
            self.queue.push_back(HostCall::Deregister(Vec::new()));
        }
        self.host_codes = union;
        self.host_all = all;
    }

    /// Claims the queue for the calling thread; `false` when another thread
    /// already makes the calls (it will make the new ones too).
    pub(crate) fn begin_calls(&mut self) -> bool {
        !std::mem::replace(&mut self.draining, true)
    }

    /// The next call to make, for the thread that claimed the queue; `None`
    /// releases the claim.
    pub(crate) fn next_call(&mut self) -> Option<HostCall> {
        let c = self.queue.pop_front();
        if c.is_none() {
            self.draining = false;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_core::Rank;

    fn p(r: u32) -> Proc {
        Proc::new("job", Rank(r)).unwrap()
    }

    fn drain(i: &mut Interests) -> Vec<HostCall> {
        assert!(i.begin_calls());
        std::iter::from_fn(|| i.next_call()).collect()
    }

    #[test]
    fn the_host_is_asked_once_for_the_union() {
        let mut i = Interests::default();
        let (a, b) = (Status(-3001), Status(-3002));
        i.set(&p(0), &[a], false);
        i.set(&p(1), &[a, b], false);
        assert_eq!(
            drain(&mut i),
            [HostCall::Register(vec![a]), HostCall::Register(vec![b])]
        );
        i.set(&p(1), &[a], false);
        assert_eq!(drain(&mut i), [HostCall::Deregister(vec![b])]);
        i.forget(&p(1));
        assert!(drain(&mut i).is_empty(), "rank 0 still wants {a:?}");
        i.forget(&p(0));
        assert_eq!(drain(&mut i), [HostCall::Deregister(vec![a])]);
    }

    #[test]
    fn a_default_handler_registers_every_code_once() {
        let mut i = Interests::default();
        i.set(&p(0), &[], true);
        i.set(&p(1), &[], true);
        assert_eq!(drain(&mut i), [HostCall::Register(vec![])]);
        i.set(&p(0), &[], false);
        assert!(drain(&mut i).is_empty());
        i.forget(&p(1));
        assert_eq!(drain(&mut i), [HostCall::Deregister(vec![])]);
    }

    #[test]
    fn only_one_thread_makes_the_calls() {
        let mut i = Interests::default();
        i.set(&p(0), &[Status(-1)], false);
        assert!(i.begin_calls());
        assert!(!i.begin_calls());
        assert!(i.next_call().is_some());
        assert!(i.next_call().is_none());
        assert!(i.begin_calls());
    }
}
