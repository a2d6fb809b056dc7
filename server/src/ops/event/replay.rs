//! A client slot's event ring around registration: what a previous
//! occupant left is drained, the cached and held events meant for the new
//! client are replayed, and held events that did not fit are pushed after
//! its handshake.

use std::sync::Arc;

use pmix_core::Proc;

use crate::inner::{Inner, State};
use crate::link::Link;
use crate::ops::event::route::{push, push_in_order, reads_ring};

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

/// A newly registered client (already in the registry): gives its ring the
/// cached and held events that target it, in arrival order. Under the state
/// lock, so a concurrent event is either replayed here or delivered after,
/// never both and never lost.
pub(crate) fn replay(inner: &Inner, st: &mut State, proc: &Proc, slot: u32) {
    let events = &mut st.events;
    let mut left = 0usize;
    for s in events.replay_for(proc) {
        // After the first failure the rest is not tried: held events wait
        // for the connect, cached ones are dropped.
        if left == 0 && push(inner, slot, proc, &s, false) {
            events.delivered(proc, s.arrival);
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
    st.events.prune(&st.registry);
}

/// `link` completed its handshake: held events that did not fit its ring
/// at registration are pushed now, as it reads its ring from now on (a
/// client without `EVENTS` never does: they are given up). Each is tried
/// once, waiting for room on the pusher thread, never here.
pub(crate) fn connected(inner: &Arc<Inner>, link: &Link) {
    let proc = &link.proc;
    let (slot, pending) = {
        let st = inner.state.lock();
        let Some(c) = st.registry.clients.get(proc) else {
            return;
        };
        (c.slot, st.events.held_for(proc))
    };
    if pending.is_empty() {
        return;
    }
    if reads_ring(Some(link)) {
        for s in &pending {
            push_in_order(inner, slot, proc, s);
        }
    }
    let mut st = inner.state.lock();
    let st = &mut *st;
    for s in &pending {
        st.events.delivered(proc, s.arrival);
    }
    st.events.prune(&st.registry);
}
