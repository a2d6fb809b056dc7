//! Routing one event: from the host ([`host_notify`]) or from a local
//! client ([`client_notify`]), to the local clients in range that still
//! need it, into the cache and the held events, and to the host when it
//! leaves the node.

use std::sync::Arc;

use pmix_core::event::{EventId, EventMsg, Origin, RECORD_EVENT};
use pmix_core::proto::{caps, msg, Reply};
use pmix_core::{DataRange, Error, Info, Proc, Rank, Result, Status};
use pmix_shm::ring::WakeBatch;

use crate::inner::{Inner, State};
use crate::link::Link;
use crate::ops::event::pusher::PushJob;
use crate::ops::event::server_errors;
use crate::ops::event::store::Stored;
use crate::registry::Registry;

/// One record to push once the state lock is released.
#[derive(Debug)]
struct Delivery {
    slot: u32,
    proc: Proc,
    /// The client reads its ring (connected, with `EVENTS` agreed): wait
    /// for room, bounded.
    wait: bool,
}

/// Under the state lock: numbers `ev`, picks the registered, live, in-range
/// clients whose slot is not in `skip`, caches and holds it.
fn plan(st: &mut State, ev: EventMsg, skip: &[u32]) -> (Arc<Stored>, Vec<Delivery>) {
    let targets = st
        .registry
        .clients
        .iter()
        .filter(|(p, c)| c.is_live() && !skip.contains(&c.slot) && ev.targets(p))
        .map(|(p, c)| Delivery {
            slot: c.slot,
            proc: p.clone(),
            wait: reads_ring(c.link.as_deref()),
        })
        .collect();
    let stored = st.events.admit(ev);
    st.events.keep(&stored, &st.registry);
    (stored, targets)
}

/// Whether a client reads its event ring: connected with `EVENTS` agreed.
/// Waiting for room in any other ring would only delay the pusher.
pub(crate) fn reads_ring(link: Option<&Link>) -> bool {
    link.is_some_and(|c| c.caps & caps::EVENTS != 0)
}

/// Pushes one record; `false` (logged) when it could not.
pub(crate) fn push(inner: &Inner, slot: u32, proc: &Proc, s: &Stored, wait: bool) -> bool {
    let mut wakes = WakeBatch::new();
    let pushed = push_batched(inner, slot, proc, s, wait, &mut wakes);
    wakes.finish();
    pushed
}

/// As [`push`]; a record pushed without waiting leaves its consumer's
/// wake-up in `wakes` (one system call per fan-out, issue 18).
fn push_batched(
    inner: &Inner,
    slot: u32,
    proc: &Proc,
    s: &Stored,
    wait: bool,
    wakes: &mut WakeBatch,
) -> bool {
    let Some(ring) = inner.rings.get(slot as usize) else {
        return false;
    };
    let r = if wait {
        ring.push_timeout(RECORD_EVENT, &s.bytes, inner.cfg.event_push_timeout)
            .map_err(|e| e.to_string())
    } else {
        ring.try_push_quiet(RECORD_EVENT, &s.bytes)
            .map(|()| wakes.add(ring))
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

/// Pushes `s` into the ring of a connected client: at once when it fits
/// and nothing waits for that ring, else through the pusher thread
/// (`pusher.rs`), which waits for room, bounded. Never waits itself.
pub(crate) fn push_in_order(inner: &Arc<Inner>, slot: u32, proc: &Proc, s: &Arc<Stored>) {
    let mut wakes = WakeBatch::new();
    push_in_order_batched(inner, slot, proc, s, &mut wakes);
    wakes.finish();
}

/// As [`push_in_order`]; a record pushed at once leaves its consumer's
/// wake-up in `wakes`.
fn push_in_order_batched(
    inner: &Arc<Inner>,
    slot: u32,
    proc: &Proc,
    s: &Arc<Stored>,
    wakes: &mut WakeBatch,
) {
    let now = || {
        inner.rings.get(slot as usize).is_some_and(|r| {
            let pushed = r.try_push_quiet(RECORD_EVENT, &s.bytes).is_ok();
            if pushed {
                wakes.add(r);
            }
            pushed
        })
    };
    let later = || -> PushJob {
        let (weak, proc, s) = (Arc::downgrade(inner), proc.clone(), Arc::clone(s));
        Box::new(move || {
            if let Some(i) = weak.upgrade() {
                push(&i, slot, &proc, &s, true);
            }
        })
    };
    inner.pusher.push(slot, now, later);
}

/// Pushes to every target. A client not reading its ring yet whose ring
/// is full gets the event held for it, pushed again after its handshake.
fn deliver(inner: &Arc<Inner>, stored: &Arc<Stored>, to: &[Delivery]) {
    // every target's record first, then one wake-up call for the
    // targets asleep in the segment's wake group
    let mut wakes = WakeBatch::new();
    let missed: Vec<&Proc> = to
        .iter()
        .filter(|d| {
            if d.wait {
                push_in_order_batched(inner, d.slot, &d.proc, stored, &mut wakes);
                false
            } else {
                !push_batched(inner, d.slot, &d.proc, stored, false, &mut wakes)
            }
        })
        .map(|d| &d.proc)
        .collect();
    wakes.finish();
    if missed.is_empty() {
        return;
    }
    let mut st = inner.state.lock();
    for p in missed {
        st.events.hold_for(stored, p);
    }
}

/// The host's `PMIx_Notify_event` (see [`Server::notify`](crate::Server::notify)).
pub(crate) fn host_notify(
    inner: &Arc<Inner>,
    status: Status,
    source: Option<&Proc>,
    range: DataRange,
    info: &[Info],
) -> Result<()> {
    let mut ev = EventMsg::for_notify(status, source.cloned(), range, info)?;
    if range == DataRange::PROC_LOCAL {
        return Err(Error::bad_param(
            "notify: PMIX_RANGE_PROC_LOCAL has no handlers in the server",
        ));
    }
    let (stored, to) = {
        let mut st = inner.state.lock();
        ev.origin = match source {
            None => Origin::Host,
            Some(p) if st.registry.clients.contains_key(p) => Origin::ThisNode,
            Some(_) => Origin::OtherNode,
        };
        ev.id = EventId {
            origin: EventId::server_origin(std::process::id()),
            seq: st.events.next_seq(),
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
fn leaves_node(ev: &EventMsg, reg: &Registry) -> bool {
    match ev.range {
        DataRange::SESSION | DataRange::GLOBAL | DataRange::RM => true,
        DataRange::NAMESPACE => ev
            .source
            .as_ref()
            .is_some_and(|s| reg.spans_nodes(&s.nspace)),
        DataRange::CUSTOM => ev.custom_range.iter().any(|c| elsewhere(reg, c)),
        _ => false,
    }
}

/// Whether a target named in a custom range has a process on another
/// node: a named proc that is not a registered local client, or a
/// wildcard whose namespace has processes elsewhere (or is unknown here).
pub(crate) fn elsewhere(reg: &Registry, target: &Proc) -> bool {
    if target.rank == Rank::WILDCARD {
        reg.spans_nodes(&target.nspace)
    } else {
        !reg.is_registered(target)
    }
}

/// A `NOTIFY` from a client: deliver to the local targets the sender did
/// not reach, cache, hold, and pass to the host when it leaves the node.
/// `tag` 0 is one-way: nothing is sent back.
pub(crate) fn client_notify(
    inner: &Arc<Inner>,
    link: &Arc<Link>,
    tag: u32,
    event: EventMsg,
    delivered: Vec<u32>,
) {
    let answer = {
        let c = Arc::clone(link);
        let logger = inner.logger();
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
        Some(link.proc.clone()),
        event.range,
        &event.info,
    )
    .and_then(|ev| {
        if ev.range == DataRange::PROC_LOCAL {
            Err(Error::bad_param(
                "notify: PMIX_RANGE_PROC_LOCAL events stay in the process",
            ))
        } else {
            Ok(ev)
        }
    });
    let mut ev = match checked {
        Ok(ev) => ev,
        Err(e) => {
            if tag == 0 {
                // one-way: the client never learns it; the host may
                let what = format!("one-way event refused: {e}");
                server_errors::report(inner, e.status(), Some(&link.proc), &what);
            }
            return answer(Err(e));
        }
    };
    ev.id = event.id;
    ev.origin = Origin::ThisNode;
    let (status, range, info) = (ev.status, ev.range, ev.info.clone());
    let (stored, to, leaves) = {
        let mut st = inner.state.lock();
        let leaves = leaves_node(&ev, &st.registry);
        let (stored, to) = plan(&mut st, ev, &delivered);
        (stored, to, leaves)
    };
    deliver(inner, &stored, &to);
    if leaves {
        inner
            .host
            .notify_event(status, &link.proc, range, &info, Box::new(answer));
    } else {
        answer(Ok(()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(ns: &str, r: u32) -> Proc {
        Proc::new(ns, Rank(r)).unwrap()
    }

    fn reg() -> Registry {
        let mut r = Registry::new(8, 8);
        r.add_nspace("here", 2, 2);
        r.add_nspace("wide", 2, 8);
        for p in [p("here", 0), p("here", 1), p("wide", 0)] {
            r.add_client(&p);
        }
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
