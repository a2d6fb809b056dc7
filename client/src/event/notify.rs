//! Routing of a notify: PROC_LOCAL stays in the process; other ranges go
//! straight into the inbound rings of the connected local targets, and to
//! the server only when it must cache, reach clients not connected yet,
//! leave the node, or reach the host.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

use pmix_core::codec::Encoder;
use pmix_core::event::{EventMsg, Origin, RECORD_EVENT};
use pmix_core::proto::{peer_state, Request};
use pmix_core::{DataRange, Error, Info, Nspace, Proc, Rank, Result, Status, Value};
use pmix_shm::ring::{PushTimeoutError, Ring, TryPushError, WakeBatch};

use super::{Command, Events, OutcomeFn, PUSH_TIMEOUT};
use crate::{deadline_from, peers, Inner};

/// Where a non-PROC_LOCAL event goes from this client.
#[derive(Debug, Default, PartialEq)]
struct Plan {
    /// Connected local clients in range (their slots, sorted, unique).
    slots: Vec<u32>,
    /// The server must get a copy.
    server: bool,
}

/// Adds the connected local ranks of `ns` to the plan; anything unknown,
/// not connected or off-node needs the server.
fn whole_nspace(inner: &Inner, ns: &Nspace, plan: &mut Plan) {
    let Some(local) = peers::local_ranks(inner, ns) else {
        plan.server = true;
        return;
    };
    plan.server |= local.elsewhere;
    for slot in &local.slots {
        match slot.filter(|s| peers::connected(inner, *s)) {
            Some(s) => plan.slots.push(s),
            None => plan.server = true,
        }
    }
}

/// Where `ev` goes, written into `plan` (its slot list's memory reused).
fn plan(inner: &Inner, ev: &EventMsg, plan: &mut Plan) {
    plan.slots.clear();
    plan.server = false;
    match ev.range {
        DataRange::LOCAL | DataRange::SESSION | DataRange::GLOBAL => {
            for slot in 0..inner.barriers.peer_count() {
                let Some(cell) = inner.barriers.peer(slot) else {
                    continue;
                };
                match cell.state() {
                    peer_state::CONNECTED => plan.slots.push(slot),
                    // registered, not connected yet: the server delivers
                    peer_state::REGISTERED => plan.server = true,
                    _ => {}
                }
            }
            // clients that connect later get it from the server's cache;
            // SESSION and GLOBAL also reach other nodes through the host
            plan.server |= !ev.do_not_cache() || ev.range != DataRange::LOCAL;
        }
        DataRange::NAMESPACE => {
            if let Some(src) = &ev.source {
                whole_nspace(inner, &src.nspace, plan);
            }
        }
        DataRange::CUSTOM => {
            for p in &ev.custom_range {
                if p.rank == Rank::WILDCARD {
                    whole_nspace(inner, &p.nspace, plan);
                } else {
                    match peers::slot_of(inner, p).filter(|s| peers::connected(inner, *s)) {
                        Some(s) => plan.slots.push(s),
                        None => plan.server = true,
                    }
                }
            }
        }
        _ => plan.server = true,
    }
    plan.slots.sort_unstable();
    plan.slots.dedup();
}

/// Largest encoding buffer a thread keeps for the next notify.
const KEEP_ENCODED: usize = 64 * 1024;

/// Most heap bytes the infos of a thread's kept draft may hold, about.
const KEEP_INFO_BYTES: usize = 16 * 1024;

/// The heap bytes `v` holds, about; more than [`KEEP_INFO_BYTES`] for a
/// value that [`Value::assign_from`] would not reuse anyway.
fn held_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.capacity(),
        Value::ByteObject(b)
        | Value::CompressedString(b)
        | Value::CompressedByteObject(b)
        | Value::Regex(b) => b.capacity(),
        Value::DataArray(a) => {
            a.len() * std::mem::size_of::<Value>() + a.items().iter().map(held_bytes).sum::<usize>()
        }
        Value::Info(i) => std::mem::size_of::<Info>() + held_bytes(&i.value),
        Value::ProcInfo(_) | Value::App(_) | Value::Query(_) => KEEP_INFO_BYTES + 1,
        _ => 0,
    }
}

thread_local! {
    /// This thread's event under construction, reused by every notify.
    static DRAFT: RefCell<Option<EventMsg>> = const { RefCell::new(None) };
    /// This thread's routing plan (its slot list reused).
    static PLAN: RefCell<Plan> = RefCell::new(Plan::default());
    /// This thread's encoding buffer, reused by every notify (no
    /// allocation once it reached the size of the largest event).
    static ENCODED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the event `for_notify` builds from the arguments, built in
/// this thread's reused draft (a fresh one if `f` notifies again).
///
/// # Errors
/// Those of [`EventMsg::for_notify`], and `f`'s.
pub(crate) fn with_draft<R>(
    status: Status,
    source: Option<Proc>,
    range: DataRange,
    info: &[Info],
    f: impl FnOnce(&mut EventMsg) -> Result<R>,
) -> Result<R> {
    DRAFT.with(|cell| {
        let Ok(mut held) = cell.try_borrow_mut() else {
            return f(&mut EventMsg::for_notify(status, source, range, info)?);
        };
        let mut draft = held.take().unwrap_or_else(|| EventMsg::new(status, range));
        let r = draft
            .refill_for_notify(status, source, range, info)
            .and_then(|()| f(&mut draft));
        // keep the infos: the next notify assigns over them, reusing a
        // same-shaped value's memory (a custom range's data array, issue
        // 18); an event holding much memory is let go now
        if draft
            .info
            .iter()
            .map(|i| held_bytes(&i.value))
            .sum::<usize>()
            > KEEP_INFO_BYTES
        {
            draft.info.clear();
        }
        draft.custom_range.clear();
        draft.source = None;
        *held = Some(draft);
        r
    })
}

/// Runs `f` on the encoding of `ev`, written into this thread's reused
/// buffer (a fresh one if `f` notifies again from inside).
fn with_encoded<R>(ev: &EventMsg, f: impl FnOnce(&[u8]) -> R) -> R {
    ENCODED.with(|cell| {
        let Ok(mut held) = cell.try_borrow_mut() else {
            return f(&ev.encode());
        };
        let mut buf = std::mem::take(&mut *held);
        buf.clear();
        let mut e = Encoder::from_vec(buf);
        ev.encode_into(&mut e);
        let buf = e.finish();
        let r = f(&buf);
        // keep an ordinary event's worth, not the largest one ever sent
        if buf.capacity() <= KEEP_ENCODED {
            *held = buf;
        }
        r
    })
}

fn push_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::with_context(Status::ERR_OUT_OF_RESOURCE, format!("{what}: {e}"))
}

/// Pushes one record: at once if there is room, else waiting for room up
/// to [`PUSH_TIMEOUT`] — except on the progress thread, which must not
/// wait for a ring it may itself have to drain. The caller owes the
/// consumer its wake-up (a [`WakeBatch`] for a fan-out); only a push that
/// had to wait for room has woken the consumer itself.
fn push_quiet(ring: &Ring, bytes: &[u8], may_wait: bool) -> Result<()> {
    match ring.try_push_quiet(RECORD_EVENT, bytes) {
        Ok(()) => Ok(()),
        Err(TryPushError::Full) if may_wait => ring
            .push_timeout(RECORD_EVENT, bytes, PUSH_TIMEOUT)
            .map_err(|e: PushTimeoutError| push_error("event ring", e)),
        Err(e) => Err(push_error("event ring", e)),
    }
}

impl Events {
    /// Queues a PROC_LOCAL event for this process's handlers: a record in
    /// the in-process queue (no system call unless the progress thread
    /// sleeps), or a command when the notifier wants the outcome.
    ///
    /// # Errors
    /// `PMIX_ERR_OUT_OF_RESOURCE` when the queue stayed full.
    #[cfg(test)]
    pub(crate) fn notify_local(&self, mut ev: EventMsg, outcome: Option<OutcomeFn>) -> Result<()> {
        self.notify_local_draft(&mut ev, outcome)
    }

    /// As [`notify_local`](Self::notify_local), from an event the caller
    /// reuses (only the outcome path copies it).
    pub(crate) fn notify_local_draft(
        &self,
        ev: &mut EventMsg,
        outcome: Option<OutcomeFn>,
    ) -> Result<()> {
        ev.id = self.next_id();
        ev.origin = Origin::ThisProcess;
        if outcome.is_some() {
            self.command(Command::Local(Box::new(ev.clone()), outcome));
            return Ok(());
        }
        let may_wait = !self.on_progress_thread();
        // the progress thread sleeps on the inbound ring's doorbell (or the
        // wake group), never on the local queue's: one wake check suffices
        with_encoded(ev, |bytes| push_quiet(&self.local, bytes, may_wait))?;
        self.inbound.wake_consumer();
        Ok(())
    }
}

/// `PMIx_Notify_event` from this client. The source is always this
/// process. `outcome` (PROC_LOCAL only) receives the chain's outcome.
pub(crate) fn notify(
    inner: &Inner,
    status: Status,
    range: DataRange,
    info: &[Info],
    outcome: Option<OutcomeFn>,
) -> Result<()> {
    let events: &Arc<Events> = inner.events.as_ref().ok_or_else(|| {
        Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            "the server does not support events (protocol version < 3)",
        )
    })?;
    with_draft(status, Some(inner.me.clone()), range, info, |ev| {
        route(inner, events, ev, outcome, info)
    })
}

/// Sends the checked event `ev` of [`notify`] where its range says.
fn route(
    inner: &Inner,
    events: &Arc<Events>,
    ev: &mut EventMsg,
    outcome: Option<OutcomeFn>,
    info: &[Info],
) -> Result<()> {
    let range = ev.range;
    // a connected group's namespace stands for its real processes (this
    // process's own namespace is never a group: nothing to translate)
    if ev.custom_range.iter().any(|p| p.nspace != inner.me.nspace) {
        ev.custom_range = crate::group::translate(inner, &ev.custom_range);
    }
    if range == DataRange::PROC_LOCAL {
        return events.notify_local_draft(ev, outcome);
    }
    ev.id = events.next_id();
    let may_wait = !events.on_progress_thread();
    if outcome.is_some() {
        return Err(Error::bad_param(
            "an outcome is reported for PMIX_RANGE_PROC_LOCAL events only",
        ));
    }
    ev.origin = Origin::ThisNode;
    PLAN.with(|cell| match cell.try_borrow_mut() {
        Ok(mut p) => send(inner, ev, &mut p, may_wait, info),
        Err(_) => send(inner, ev, &mut Plan::default(), may_wait, info),
    })
}

/// Pushes `ev` into the rings of the connected targets, and sends it to
/// the server when the plan says so.
fn send(
    inner: &Inner,
    ev: &EventMsg,
    plan: &mut Plan,
    may_wait: bool,
    info: &[Info],
) -> Result<()> {
    let range = ev.range;
    self::plan(inner, ev, plan);
    // The server's copy first, naming the targets this process serves
    // itself: a local target that reacts at once (ends its job, say) can
    // then never make this call fail after it already delivered — an
    // error means no target got the event from here.
    if plan.server {
        let deadline: Option<Instant> = deadline_from(info)?;
        let req = Request::Notify {
            event: ev.clone(),
            delivered: plan.slots.clone(),
        };
        if range == DataRange::RM {
            inner.conn.request(&req, deadline)?.into_result()?;
        } else {
            inner.conn.post(&req)?;
        }
    }
    let mut failed = None;
    // every target's record first, then the wake-ups the sleeping targets
    // are owed: one system call for all that sleep in the segment's wake
    // group (issue 18)
    let mut wakes = WakeBatch::new();
    with_encoded(ev, |bytes| {
        for &slot in &plan.slots {
            let pushed = peers::ring(inner, slot)
                .and_then(|r| push_quiet(r, bytes, may_wait).map(|()| wakes.add(r)));
            if let Err(e) = pushed {
                failed = Some(e);
            }
        }
    });
    wakes.finish();
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
