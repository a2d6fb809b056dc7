//! What the server keeps of past events (the event design, "RM Notifications"):
//!
//! - the **cache**: the last `event_cache_size` cacheable events in arrival
//!   order, the oldest evicted first (`PMIx_server_cache_size`);
//! - the **held** job events: an event of range NAMESPACE or CUSTOM whose
//!   local targets are not all registered yet is kept, whatever the cache
//!   evicts, with the targets still missing, until each of them got it or
//!   its namespace went away.
//!
//! Pure bookkeeping under the server's state lock: it decides what goes
//! where; the caller pushes the records.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use pmix_core::event::EventMsg;
use pmix_core::{DataRange, Nspace, Proc, Rank};

use crate::registry::Registry;

/// An event the server routes, keeps or replays, encoded once.
#[derive(Debug)]
pub(crate) struct Stored {
    /// Server-local arrival number (increasing).
    pub(crate) arrival: u64,
    /// The event.
    pub(crate) ev: EventMsg,
    /// Its ring record payload (`EventMsg::encode`).
    pub(crate) bytes: Vec<u8>,
}

/// A job event retained for local targets that have not got it.
#[derive(Debug)]
struct Held {
    ev: Arc<Stored>,
    /// Namespaces all of whose local procs must get it: the ranks that did
    /// (or were registered when it came).
    nspaces: BTreeMap<Nspace, BTreeSet<Rank>>,
    /// Named procs that have not got it yet.
    procs: BTreeSet<Proc>,
}

impl Held {
    fn wants(&self, p: &Proc) -> bool {
        self.procs.contains(p)
            || self
                .nspaces
                .get(&p.nspace)
                .is_some_and(|reached| !reached.contains(&p.rank))
    }

    fn is_empty(&self) -> bool {
        self.nspaces.is_empty() && self.procs.is_empty()
    }
}

/// The cache and the held events.
#[derive(Debug)]
pub(crate) struct EventStore {
    cap: usize,
    next_arrival: u64,
    next_seq: u64,
    cache: VecDeque<Arc<Stored>>,
    held: Vec<Held>,
}

impl EventStore {
    /// A store caching at most `cap` events (0: no cache).
    pub(crate) fn new(cap: usize) -> Self {
        EventStore {
            cap,
            next_arrival: 0,
            next_seq: 0,
            cache: VecDeque::with_capacity(cap.min(1024)),
            held: Vec::new(),
        }
    }

    /// The sequence number of the next event the server itself originates.
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Numbers an event's arrival and encodes it.
    pub(crate) fn admit(&mut self, ev: EventMsg) -> Arc<Stored> {
        self.next_arrival += 1;
        let bytes = ev.encode();
        Arc::new(Stored {
            arrival: self.next_arrival,
            ev,
            bytes,
        })
    }

    /// Keeps `stored` as the newest cache entry (evicting the oldest beyond
    /// the cache size) and holds it for its local targets that are not
    /// registered yet. An event with `PMIX_EVENT_DO_NOT_CACHE` is neither
    /// cached nor held; one that no other process can be a target of (range
    /// RM or PROC_LOCAL) is not cached.
    pub(crate) fn keep(&mut self, stored: &Arc<Stored>, reg: &Registry) {
        let ev = &stored.ev;
        if ev.do_not_cache() {
            return;
        }
        if self.cap > 0 && ev.range != DataRange::RM && ev.range != DataRange::PROC_LOCAL {
            self.cache.push_back(Arc::clone(stored));
            while self.cache.len() > self.cap {
                self.cache.pop_front();
            }
        }
        if let Some(h) = hold(stored, reg) {
            self.held.push(h);
        }
    }

    /// What a newly registered `proc` must be given: every cached event
    /// that targets it and every held event waiting for it, each once, in
    /// arrival order.
    pub(crate) fn replay_for(&self, proc: &Proc) -> Vec<Arc<Stored>> {
        let mut out: BTreeMap<u64, Arc<Stored>> = BTreeMap::new();
        for s in self.cache.iter().filter(|s| s.ev.targets(proc)) {
            out.insert(s.arrival, Arc::clone(s));
        }
        for h in self.held.iter().filter(|h| h.wants(proc)) {
            out.insert(h.ev.arrival, Arc::clone(&h.ev));
        }
        out.into_values().collect()
    }

    /// Holds `stored` for `proc`, whose ring had no room for it before it
    /// connected: it is pushed again after the handshake (the event design: a job
    /// event is kept until every target got it).
    pub(crate) fn hold_for(&mut self, stored: &Arc<Stored>, proc: &Proc) {
        match self.held.iter_mut().find(|h| Arc::ptr_eq(&h.ev, stored)) {
            Some(h) => {
                h.procs.insert(proc.clone());
                if let Some(reached) = h.nspaces.get_mut(&proc.nspace) {
                    reached.remove(&proc.rank);
                }
            }
            None => self.held.push(Held {
                ev: Arc::clone(stored),
                nspaces: BTreeMap::new(),
                procs: BTreeSet::from([proc.clone()]),
            }),
        }
    }

    /// Held events `proc` still waits for, in arrival order.
    pub(crate) fn held_for(&self, proc: &Proc) -> Vec<Arc<Stored>> {
        self.held
            .iter()
            .filter(|h| h.wants(proc))
            .map(|h| Arc::clone(&h.ev))
            .collect()
    }

    /// `proc` got (or gave up on) the event numbered `arrival`.
    pub(crate) fn delivered(&mut self, proc: &Proc, arrival: u64) {
        if let Some(h) = self.held.iter_mut().find(|h| h.ev.arrival == arrival) {
            h.procs.remove(proc);
            if let Some(reached) = h.nspaces.get_mut(&proc.nspace) {
                reached.insert(proc.rank);
            }
        }
    }

    /// Drops what nobody waits for any more: a namespace entry once every
    /// local proc got the event, a named proc once it cannot come any more
    /// (its namespace is complete without it: it lives elsewhere), and a
    /// held event once nothing is left of it.
    pub(crate) fn prune(&mut self, reg: &Registry) {
        for h in &mut self.held {
            h.nspaces.retain(|ns, reached| {
                reg.sizes(ns)
                    .is_some_and(|(nlocal, _)| (reached.len() as u64) < u64::from(nlocal))
            });
            h.procs
                .retain(|p| reg.is_registered(p) || reg.incomplete(&p.nspace));
        }
        self.held.retain(|h| !h.is_empty());
    }

    /// Namespace `ns` was deregistered: nothing is held for it any more.
    pub(crate) fn forget_nspace(&mut self, ns: &Nspace) {
        for h in &mut self.held {
            h.nspaces.remove(ns);
            h.procs.retain(|p| &p.nspace != ns);
        }
        self.held.retain(|h| !h.is_empty());
    }

    /// Arrival numbers of the cached events, oldest first.
    #[cfg(test)]
    pub(crate) fn cached(&self) -> Vec<u64> {
        self.cache.iter().map(|s| s.arrival).collect()
    }

    /// Number of held events.
    #[cfg(test)]
    pub(crate) fn held_count(&self) -> usize {
        self.held.len()
    }
}

/// The held entry for `stored`, if some local target is missing.
fn hold(stored: &Arc<Stored>, reg: &Registry) -> Option<Held> {
    let ev = &stored.ev;
    let mut h = Held {
        ev: Arc::clone(stored),
        nspaces: BTreeMap::new(),
        procs: BTreeSet::new(),
    };
    let whole_ns = |ns: &Nspace, h: &mut Held| {
        if reg.incomplete(ns) {
            h.nspaces.insert(ns.clone(), reg.local_ranks(ns));
        }
    };
    match ev.range {
        DataRange::NAMESPACE => {
            let nspaces: BTreeSet<Nspace> = match &ev.source {
                Some(s) => BTreeSet::from([s.nspace.clone()]),
                None => {
                    let affected = ev.view().affected();
                    if affected.is_empty() {
                        reg.registered_nspaces().into_iter().collect()
                    } else {
                        affected.into_iter().map(|p| p.nspace).collect()
                    }
                }
            };
            for ns in &nspaces {
                whole_ns(ns, &mut h);
            }
        }
        DataRange::CUSTOM => {
            for c in &ev.custom_range {
                if c.rank == Rank::WILDCARD {
                    whole_ns(&c.nspace, &mut h);
                } else if c.rank.is_valid() && !reg.is_registered(c) && reg.incomplete(&c.nspace) {
                    h.procs.insert(c.clone());
                }
            }
        }
        _ => return None,
    }
    (!h.is_empty()).then_some(h)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use pmix_core::{attrs, Info, Status};

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(ns, Rank(r)).unwrap()
    }

    fn ns(s: &str) -> Nspace {
        Nspace::new(s).unwrap()
    }

    fn local(range: DataRange) -> EventMsg {
        EventMsg::new(Status(-3001), range)
    }

    #[test]
    fn cache_keeps_the_newest_in_arrival_order() {
        let reg = Registry::new(8, 8);
        let mut s = EventStore::new(3);
        for _ in 0..5 {
            let e = s.admit(local(DataRange::LOCAL));
            s.keep(&e, &reg);
        }
        assert_eq!(s.cached(), [3, 4, 5]);
        let got: Vec<u64> = s.replay_for(&p("a", 0)).iter().map(|e| e.arrival).collect();
        assert_eq!(got, [3, 4, 5]);
    }

    #[test]
    fn do_not_cache_and_rm_events_are_not_kept() {
        let reg = Registry::new(8, 8);
        let mut s = EventStore::new(8);
        let mut ev = EventMsg::for_notify(
            Status(-3001),
            None,
            DataRange::LOCAL,
            &[Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap()],
        )
        .unwrap();
        ev.origin = pmix_core::event::Origin::Host;
        let e = s.admit(ev);
        s.keep(&e, &reg);
        let e = s.admit(local(DataRange::RM));
        s.keep(&e, &reg);
        assert!(s.cached().is_empty());
    }

    #[test]
    fn a_zero_cache_keeps_nothing() {
        let reg = Registry::new(8, 8);
        let mut s = EventStore::new(0);
        let e = s.admit(local(DataRange::GLOBAL));
        s.keep(&e, &reg);
        assert!(s.cached().is_empty());
        assert!(s.replay_for(&p("a", 0)).is_empty());
    }

    #[test]
    fn a_namespace_event_is_held_until_every_local_proc_got_it() {
        let mut reg = Registry::new(8, 8);
        reg.add_nspace("a", 3, 3);
        reg.add_client(&p("a", 0));
        let mut s = EventStore::new(0);
        let mut ev = local(DataRange::NAMESPACE);
        ev.source = Some(p("a", 0));
        let e = s.admit(ev);
        s.keep(&e, &reg);
        assert_eq!(s.held_count(), 1);
        assert!(s.replay_for(&p("a", 0)).is_empty(), "rank 0 had it");
        assert!(s.replay_for(&p("b", 1)).is_empty(), "other namespace");
        for r in 1..3 {
            reg.add_client(&p("a", r));
            let got = s.replay_for(&p("a", r));
            assert_eq!(got.len(), 1);
            s.delivered(&p("a", r), got[0].arrival);
            s.prune(&reg);
        }
        assert_eq!(s.held_count(), 0);
    }

    #[test]
    fn a_complete_namespace_holds_nothing() {
        let mut reg = Registry::new(8, 8);
        reg.add_nspace("a", 1, 4);
        reg.add_client(&p("a", 0));
        let mut s = EventStore::new(0);
        let mut ev = local(DataRange::NAMESPACE);
        ev.source = Some(p("a", 0));
        let e = s.admit(ev);
        s.keep(&e, &reg);
        assert_eq!(s.held_count(), 0);
    }

    #[test]
    fn custom_targets_are_held_by_name_and_remote_ones_dropped() {
        let mut reg = Registry::new(8, 8);
        reg.add_nspace("a", 2, 4);
        reg.add_client(&p("a", 0));
        let mut s = EventStore::new(0);
        let mut ev = local(DataRange::CUSTOM);
        ev.custom_range = vec![p("a", 1), p("a", 3), p("zz", 0)];
        let e = s.admit(ev);
        s.keep(&e, &reg);
        assert_eq!(s.held_count(), 1);
        assert_eq!(s.held_for(&p("a", 3)).len(), 1);
        assert!(s.held_for(&p("zz", 0)).is_empty(), "unknown namespace");
        // Rank 1 registers: the namespace is complete, so rank 3 is remote.
        reg.add_client(&p("a", 1));
        let got = s.replay_for(&p("a", 1));
        s.delivered(&p("a", 1), got[0].arrival);
        s.prune(&reg);
        assert_eq!(s.held_count(), 0);
    }

    #[test]
    fn forgetting_a_namespace_drops_its_held_events() {
        let mut reg = Registry::new(8, 8);
        reg.add_nspace("a", 2, 2);
        let mut s = EventStore::new(0);
        let mut ev = local(DataRange::CUSTOM);
        ev.custom_range = vec![Proc::new("a", Rank::WILDCARD).unwrap()];
        let e = s.admit(ev);
        s.keep(&e, &reg);
        assert_eq!(s.held_count(), 1);
        s.forget_nspace(&ns("a"));
        assert_eq!(s.held_count(), 0);
    }

    #[test]
    fn replay_merges_cache_and_held_without_duplicates() {
        let mut reg = Registry::new(8, 8);
        reg.add_nspace("a", 2, 2);
        let mut s = EventStore::new(1);
        let mut held = local(DataRange::CUSTOM);
        held.custom_range = vec![p("a", 1)];
        let held = s.admit(held);
        s.keep(&held, &reg);
        let mut both = local(DataRange::CUSTOM);
        both.custom_range = vec![p("a", 1)];
        let both = s.admit(both);
        s.keep(&both, &reg);
        assert_eq!(s.cached(), [both.arrival], "the first was evicted");
        let got: Vec<u64> = s.replay_for(&p("a", 1)).iter().map(|e| e.arrival).collect();
        assert_eq!(got, [held.arrival, both.arrival]);
    }
}
