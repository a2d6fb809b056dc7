//! Event notification, server side (seed 001, "PMIx Server Registrations",
//! "RM Notifications").
//!
//! Every client slot has an inbound event ring in the segment
//! (`CLIENT_RING`/slot); records are `EventMsg`s of kind
//! [`RECORD_EVENT`]. Local clients push events straight into the rings of
//! their connected peers; the server gets a copy (`NOTIFY`) only for what
//! they cannot do: the cache, peers not connected or not registered yet,
//! and the host. The host's own events come through [`host_notify`].
//!
//! For each event the server, under its state lock, numbers it, picks the
//! registered in-range clients it still has to reach, caches it and holds
//! it for local targets not registered yet ([`store`]); it pushes the
//! records after releasing the lock (`push_timeout` for a connected client,
//! `try_push` for one that is not reading yet), so a full ring delays
//! nobody but the pusher, and never for longer than
//! `ServerConfig::event_push_timeout` per target. A record that cannot be
//! pushed is logged, never a panic.
//!
//! A newly registered client's ring is first emptied of what a previous
//! occupant of the slot left, then given the cached and held events that
//! target it, in arrival order (under the lock, with `try_push`, so a
//! concurrent event can neither overtake nor duplicate them). Held events
//! that did not fit are tried again once the client has connected.
//!
//! Interest (`EVENT_INTEREST`) is the set of codes each client's handlers
//! want; the union decides what the server registers with the host
//! ([`interest`]).

mod interest;
mod store;

use std::sync::Arc;

use pmix_core::event::{EventId, EventMsg, Origin, RECORD_EVENT};
use pmix_core::proto::{caps, msg, Reply};
use pmix_core::{DataRange, Error, Info, Nspace, Proc, Rank, Result, Status};

pub(crate) use interest::{HostCall, Interests};
pub(crate) use store::{EventStore, Registry, Stored};

use crate::conn::Conn;
use crate::state::State;
use crate::Inner;

/// The event part of the server's state (behind the state lock).
#[derive(Debug)]
pub(crate) struct EventState {
    /// The cache and the held events.
    pub(crate) store: EventStore,
    /// The clients' interest and the host's registrations.
    pub(crate) interest: Interests,
}

impl EventState {
    /// No events yet; a cache of `cache_size` events.
    pub(crate) fn new(cache_size: usize) -> Self {
        EventState {
            store: EventStore::new(cache_size),
            interest: Interests::default(),
        }
    }
}

/// One record to push once the state lock is released.
#[derive(Debug)]
struct Delivery {
    slot: u32,
    proc: Proc,
    /// The client reads its ring (connected, with `EVENTS` agreed): wait
    /// for room, bounded.
    wait: bool,
}

/// Logs from a host completion, which may run on any thread and outlive
/// the call.
#[derive(Clone, Debug)]
struct Logger {
    on: bool,
    nspace: Nspace,
}

impl Logger {
    fn of(inner: &Inner) -> Logger {
        Logger {
            on: inner.cfg.log,
            nspace: inner.me.nspace.clone(),
        }
    }

    fn log(&self, msg: std::fmt::Arguments<'_>) {
        if self.on {
            eprintln!("pmix-server[{}]: {msg}", self.nspace.as_str());
        }
    }
}

fn bad(msg: impl Into<String>) -> Error {
    Error::with_context(Status::ERR_BAD_PARAM, msg)
}

/// Under the state lock: numbers `ev`, picks the registered, live, in-range
/// clients whose slot is not in `skip`, caches and holds it.
fn plan(st: &mut State, ev: EventMsg, skip: &[u32]) -> (Arc<Stored>, Vec<Delivery>) {
    let targets = st
        .clients
        .iter()
        .filter(|(p, c)| !c.dead && !c.finalized && !skip.contains(&c.slot) && ev.targets(p))
        .map(|(p, c)| Delivery {
            slot: c.slot,
            proc: p.clone(),
            wait: reads_ring(c.conn.as_deref()),
        })
        .collect();
    let (events, reg) = st.events_and_registry();
    let stored = events.store.admit(ev);
    events.store.keep(&stored, &reg);
    (stored, targets)
}

/// Whether a client reads its event ring: connected with `EVENTS` agreed.
/// Waiting for room in any other ring would only delay the pusher.
fn reads_ring(conn: Option<&Conn>) -> bool {
    conn.is_some_and(|c| c.caps & caps::EVENTS != 0)
}

/// Pushes one record; `false` (logged) when it could not.
fn push(inner: &Inner, slot: u32, proc: &Proc, s: &Stored, wait: bool) -> bool {
    let Some(ring) = inner.rings.get(slot as usize) else {
        return false;
    };
    let r = if wait {
        ring.push_timeout(RECORD_EVENT, &s.bytes, inner.cfg.event_push_timeout)
            .map_err(|e| e.to_string())
    } else {
        ring.try_push(RECORD_EVENT, &s.bytes)
            .map_err(|e| e.to_string())
    };
    match r {
        Ok(()) => true,
        Err(e) => {
            inner.log(format_args!(
                "event {} ({} bytes) not delivered to {proc:?} (slot {slot}): {e}",
                s.ev.status,
                s.bytes.len()
            ));
            false
        }
    }
}

/// Pushes to every target. A client not reading its ring yet whose ring
/// is full gets the event held for it, pushed again after its handshake.
fn deliver(inner: &Inner, stored: &Arc<Stored>, to: &[Delivery]) {
    let missed: Vec<&Proc> = to
        .iter()
        .filter(|d| !push(inner, d.slot, &d.proc, stored, d.wait) && !d.wait)
        .map(|d| &d.proc)
        .collect();
    if missed.is_empty() {
        return;
    }
    let mut st = inner.state.lock();
    for p in missed {
        st.events.store.hold_for(stored, p);
    }
}

/// The host's `PMIx_Notify_event` (see [`Server::notify`](crate::Server::notify)).
pub(crate) fn host_notify(
    inner: &Inner,
    status: Status,
    source: Option<&Proc>,
    range: DataRange,
    info: &[Info],
) -> Result<()> {
    let mut ev = EventMsg::for_notify(status, source.cloned(), range, info)?;
    if range == DataRange::PROC_LOCAL {
        return Err(bad(
            "notify: PMIX_RANGE_PROC_LOCAL has no handlers in the server",
        ));
    }
    let (stored, to) = {
        let mut st = inner.state.lock();
        ev.origin = match source {
            None => Origin::Host,
            Some(p) if st.clients.contains_key(p) => Origin::ThisNode,
            Some(_) => Origin::OtherNode,
        };
        ev.id = EventId {
            origin: EventId::server_origin(std::process::id()),
            seq: st.events.store.next_seq(),
        };
        plan(&mut st, ev, &[])
    };
    deliver(inner, &stored, &to);
    Ok(())
}

/// Whether a local client's event must leave the node: SESSION, GLOBAL and
/// RM always; NAMESPACE when the namespace has processes elsewhere; CUSTOM
/// when a named proc is not a registered local client (a wildcard: when its
/// namespace has processes elsewhere).
fn leaves_node(ev: &EventMsg, reg: &impl Registry) -> bool {
    match ev.range {
        DataRange::SESSION | DataRange::GLOBAL | DataRange::RM => true,
        DataRange::NAMESPACE => ev
            .source
            .as_ref()
            .is_some_and(|s| reg.spans_nodes(&s.nspace)),
        DataRange::CUSTOM => ev.custom_range.iter().any(|c| {
            if c.rank == Rank::WILDCARD {
                reg.spans_nodes(&c.nspace)
            } else {
                !reg.is_registered(c)
            }
        }),
        _ => false,
    }
}

/// A `NOTIFY` from a client: deliver to the local targets the sender did
/// not reach, cache, hold, and pass to the host when it leaves the node.
/// `tag` 0 is one-way: nothing is sent back.
pub(crate) fn client_notify(
    inner: &Arc<Inner>,
    conn: &Arc<Conn>,
    tag: u32,
    event: EventMsg,
    delivered: Vec<u32>,
) {
    let logger = Logger::of(inner);
    let answer = {
        let c = Arc::clone(conn);
        let logger = logger.clone();
        move |r: Result<()>| match (tag, r) {
            (0, Ok(())) => {}
            (0, Err(e)) => {
                if e.status() != Status::ERR_NOT_SUPPORTED {
                    logger.log(format_args!("event from {:?}: {e}", c.proc));
                }
            }
            (_, Ok(())) => c.reply(msg::NOTIFY, tag, &Reply::status(Status::SUCCESS)),
            (_, Err(e)) => c.reply(msg::NOTIFY, tag, &Reply::error(&e)),
        }
    };
    // The server names the source: a client cannot claim to be another.
    let checked = EventMsg::for_notify(
        event.status,
        Some(conn.proc.clone()),
        event.range,
        &event.info,
    )
    .and_then(|ev| {
        if ev.range == DataRange::PROC_LOCAL {
            Err(bad(
                "notify: PMIX_RANGE_PROC_LOCAL events stay in the process",
            ))
        } else {
            Ok(ev)
        }
    });
    let mut ev = match checked {
        Ok(ev) => ev,
        Err(e) => return answer(Err(e)),
    };
    ev.id = event.id;
    ev.origin = Origin::ThisNode;
    let (status, range, info) = (ev.status, ev.range, ev.info.clone());
    let (stored, to, leaves) = {
        let mut st = inner.state.lock();
        let leaves = leaves_node(&ev, &st.events_and_registry().1);
        let (stored, to) = plan(&mut st, ev, &delivered);
        (stored, to, leaves)
    };
    deliver(inner, &stored, &to);
    if leaves {
        inner
            .host
            .notify_event(status, &conn.proc, range, &info, Box::new(answer));
    } else {
        answer(Ok(()));
    }
}

/// A newly registered client's slot: empties what a previous occupant left
/// in its ring. Under the state lock (the drain never blocks).
pub(crate) fn drain_stale(inner: &Inner, slot: u32) {
    let Some(ring) = inner.rings.get(slot as usize) else {
        return;
    };
    match ring.consumer() {
        Ok(mut c) => {
            let n = c.drain(usize::MAX, |_, _| {});
            if n > 0 {
                inner.log(format_args!(
                    "dropped {n} stale event records from slot {slot}"
                ));
            }
        }
        Err(e) => inner.log(format_args!(
            "slot {slot}: a previous client still reads its event ring ({e}); stale events stay"
        )),
    }
}

/// A newly registered client (already in `st.clients`): gives its ring the
/// cached and held events that target it, in arrival order. Under the state
/// lock, so a concurrent event is either replayed here or delivered after,
/// never both and never lost.
pub(crate) fn replay(inner: &Inner, st: &mut State, proc: &Proc, slot: u32) {
    let events = &mut st.events;
    let mut left = 0usize;
    for s in events.store.replay_for(proc) {
        // After the first failure the rest is not tried: held events wait
        // for the connect, cached ones are dropped.
        if left == 0 && push(inner, slot, proc, &s, false) {
            events.store.delivered(proc, s.arrival);
        } else {
            left += 1;
        }
    }
    if left > 1 {
        inner.log(format_args!(
            "{} more cached events not replayed to {proc:?}",
            left - 1
        ));
    }
    let (events, reg) = st.events_and_registry();
    events.store.prune(&reg);
}

/// `conn` completed its handshake: held events that did not fit its ring
/// at registration are pushed now, as it reads its ring from now on (a
/// client without `EVENTS` never does: they are given up). Each is tried
/// once.
pub(crate) fn connected(inner: &Inner, conn: &Conn) {
    let proc = &conn.proc;
    let (slot, pending) = {
        let st = inner.state.lock();
        let Some(c) = st.clients.get(proc) else {
            return;
        };
        (c.slot, st.events.store.held_for(proc))
    };
    if pending.is_empty() {
        return;
    }
    if reads_ring(Some(conn)) {
        for s in &pending {
            push(inner, slot, proc, s, true);
        }
    }
    let mut st = inner.state.lock();
    let (events, reg) = st.events_and_registry();
    for s in &pending {
        events.store.delivered(proc, s.arrival);
    }
    events.store.prune(&reg);
}

/// An `EVENT_INTEREST` from `proc` (ignored once it finalized or died).
pub(crate) fn set_interest(inner: &Inner, proc: &Proc, codes: &[Status], default: bool) {
    {
        let mut st = inner.state.lock();
        if !st
            .clients
            .get(proc)
            .is_some_and(|c| !c.finalized && !c.dead)
        {
            return;
        }
        st.events.interest.set(proc, codes, default);
    }
    drive_host_calls(inner);
}

/// Makes the queued `register_events` / `deregister_events` up-calls, in
/// order, one thread at a time, never under the state lock. A thread that
/// finds another one at it leaves the new calls to it.
pub(crate) fn drive_host_calls(inner: &Inner) {
    if !inner.state.lock().events.interest.begin_calls() {
        return;
    }
    let logger = Logger::of(inner);
    loop {
        let Some(call) = inner.state.lock().events.interest.next_call() else {
            return;
        };
        let l = logger.clone();
        let done = move |what: &'static str| -> crate::Completion<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::event::store::tests::Reg;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(ns, Rank(r)).unwrap()
    }

    fn reg() -> Reg {
        let mut r = Reg::default();
        r.ns.insert(Nspace::new("here").unwrap(), (2, 2));
        r.ns.insert(Nspace::new("wide").unwrap(), (2, 8));
        r.procs.extend([p("here", 0), p("here", 1), p("wide", 0)]);
        r
    }

    fn event(range: DataRange, source: Proc, custom: Vec<Proc>) -> EventMsg {
        let mut ev = EventMsg::new(Status(-3001), range);
        ev.source = Some(source);
        ev.custom_range = custom;
        ev
    }

    #[test]
    fn local_ranges_stay_and_wide_ones_leave() {
        let r = reg();
        let src = p("here", 0);
        for range in [DataRange::SESSION, DataRange::GLOBAL, DataRange::RM] {
            assert!(leaves_node(&event(range, src.clone(), vec![]), &r));
        }
        assert!(!leaves_node(
            &event(DataRange::LOCAL, src.clone(), vec![]),
            &r
        ));
        assert!(!leaves_node(
            &event(DataRange::NAMESPACE, src.clone(), vec![]),
            &r
        ));
        assert!(leaves_node(
            &event(DataRange::NAMESPACE, p("wide", 0), vec![]),
            &r
        ));
    }

    #[test]
    fn custom_leaves_for_procs_that_are_not_local() {
        let r = reg();
        let src = p("here", 0);
        let custom = |c: Vec<Proc>| event(DataRange::CUSTOM, src.clone(), c);
        assert!(!leaves_node(&custom(vec![p("here", 1), p("wide", 0)]), &r));
        assert!(leaves_node(&custom(vec![p("wide", 5)]), &r));
        assert!(!leaves_node(
            &custom(vec![Proc::new("here", Rank::WILDCARD).unwrap()]),
            &r
        ));
        assert!(leaves_node(
            &custom(vec![Proc::new("wide", Rank::WILDCARD).unwrap()]),
            &r
        ));
        assert!(leaves_node(
            &custom(vec![Proc::new("unknown", Rank::WILDCARD).unwrap()]),
            &r
        ));
    }
}
