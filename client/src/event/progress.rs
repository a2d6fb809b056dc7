//! The progress thread: drains commands, PROC_LOCAL events and the inbound
//! ring, and walks each event's handler chain.

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::event::{accepts, Chain, ChainRun, EventMsg, HandlerId, Origin, RECORD_EVENT};
use pmix_core::{attrs, DataRange, Info, Key, Status};
use pmix_shm::ring::Consumer;
use pmix_shm::sync::Ordering;

use super::library::Consumers;
use super::pools::Entries;
pub(crate) use super::pools::Pools;
use super::seen::SeenIds;
use super::{
    Command, Done, Event, EventCompletion, Events, Handler, Local, OutcomeFn, LOCAL_CACHE, SEEN_IDS,
};

/// Records taken from one source per round (keeps the sources fair).
const BATCH: usize = 256;
/// Longest sleep: the ring's recovery of dead producers runs on drains.
const MAX_SLEEP: Duration = Duration::from_millis(10);

/// The snapshots dispatch reads, kept across events (`Local::snapshots`).
pub(crate) struct Snapshots {
    chain: Arc<Chain<Arc<Handler>>>,
    library: Arc<Consumers>,
}

/// One event travelling its chain.
pub(crate) struct Run {
    ev: Arc<EventMsg>,
    entries: Entries,
    next: usize,
    chain: ChainRun,
    outcome: Option<OutcomeFn>,
    /// Result key of the handler whose completion is awaited.
    waiting_for: Option<Key>,
}

impl Local {
    fn new() -> Local {
        Local {
            cache: VecDeque::new(),
            seen: SeenIds::new(SEEN_IDS),
            runs: HashMap::new(),
            next_run: 0,
            snapshots: None,
            // a full batch beyond the replay cache: the most events held at once
            pools: Pools::new(LOCAL_CACHE + BATCH),
        }
    }
}

/// The thread's body.
pub(crate) fn run(ev: Arc<Events>, mut inbound: Consumer, mut local: Consumer) {
    super::PROGRESS_OF.with(|p| p.set(Arc::as_ptr(&ev) as usize));
    let mut st = Local::new();
    // Decoded inside the drain (no copy of the record), dispatched after
    // it: a handler may notify, i.e. push into the ring being drained.
    let mut batch: Vec<std::result::Result<Arc<EventMsg>, String>> = Vec::with_capacity(BATCH);
    loop {
        // ORDERING: Acquire — pairs with the Release store in `shutdown`.
        if ev.stop.load(Ordering::Acquire) {
            break;
        }
        let mut work = 0;
        // ORDERING: Relaxed load first — only a hint that saves the swap
        // (a read-modify-write) on the rounds without commands, nearly all
        // of them. AcqRel swap — Acquire pairs with the Release store in
        // `command` (the queue is then read under its lock); clearing first
        // means a command queued meanwhile sets the flag again. A flag set
        // after the load is seen by the wait's condition or the next round.
        if ev.pending.load(Ordering::Relaxed) && ev.pending.swap(false, Ordering::AcqRel) {
            let cmds: Vec<Command> = ev.commands.lock().drain(..).collect();
            work += cmds.len();
            for c in cmds {
                command(&ev, &mut st, c);
            }
        }
        for (source, consumer) in [
            (Origin::ThisProcess, &mut local),
            (Origin::ThisNode, &mut inbound),
        ] {
            let pools = &mut st.pools;
            let n = consumer.drain(BATCH, |kind, bytes| {
                if kind == RECORD_EVENT {
                    batch.push(decode(pools, source, bytes));
                }
            });
            work += n;
            for decoded in batch.drain(..) {
                record(&ev, &mut st, source, decoded);
            }
        }
        if work > 0 {
            continue;
        }
        let (loc, inb) = (&local, &inbound);
        // ORDERING: Acquire — as above; the consumers' checks are ordered
        // by the doorbell's fence.
        let ready = || {
            ev.stop.load(Ordering::Acquire)
                || ev.pending.load(Ordering::Acquire)
                || loc.is_ready()
                || inb.is_ready()
        };
        // Spin with the snapshots kept (the next event reuses them: at one
        // event per wait, reloading them cost a hazard claim per event);
        // let them go only before sleeping, so that no deregistered
        // handler is kept alive by a sleeping thread.
        if !ev.spin.is_zero() {
            let spun = Instant::now() + ev.spin;
            if ev
                .inbound
                .consumer_wait_until(ev.wake_bits, ready, ev.spin, Some(spun))
            {
                continue;
            }
        }
        st.snapshots = None;
        ev.inbound.consumer_wait_until(
            ev.wake_bits,
            ready,
            Duration::ZERO,
            Some(Instant::now() + MAX_SLEEP),
        );
    }
}

/// Decodes a record from `source` in place into a pooled event (no copy
/// of the record, no allocation once the pools are warm).
fn decode(
    pools: &mut Pools,
    source: Origin,
    bytes: &[u8],
) -> std::result::Result<Arc<EventMsg>, String> {
    let mut slot = pools.msg();
    if Arc::get_mut(&mut slot).is_none() {
        // the pool only holds unshared events: not reached
        slot = Arc::new(EventMsg::new(Status::SUCCESS, DataRange::PROC_LOCAL));
    }
    let Some(msg) = Arc::get_mut(&mut slot) else {
        return Err("a fresh event is shared".into());
    };
    if let Err(e) = msg.decode_in_place(bytes, &mut pools.names) {
        pools.give_msg(slot);
        return Err(e.to_string());
    }
    if source == Origin::ThisProcess {
        // the in-process queue is only written by this process
        msg.origin = Origin::ThisProcess;
    } else if msg.origin == Origin::ThisProcess {
        // another process cannot claim to be this one
        msg.origin = Origin::ThisNode;
    }
    Ok(slot)
}

/// One decoded record from a ring.
fn record(
    ev: &Arc<Events>,
    st: &mut Local,
    source: Origin,
    decoded: std::result::Result<Arc<EventMsg>, String>,
) {
    match decoded {
        // the in-process queue holds each of this process's events once:
        // only copies from rings and the server need the duplicate check
        Ok(msg) => {
            if source == Origin::ThisProcess || st.seen.first_sight(msg.id) {
                dispatch(ev, st, msg, None);
            } else {
                st.pools.give_msg(msg);
            }
        }
        // dispatched on the next round, like any internal event
        Err(why) => raise_internal(ev, Status::ERR_COMM_FAILURE, Some(why), true, None),
    }
}

fn command(ev: &Arc<Events>, st: &mut Local, c: Command) {
    match c {
        Command::Arm(id) => arm(ev, st, id),
        Command::Continue(run_id, done) => {
            if let Some(mut run) = st.runs.remove(&run_id) {
                let key = run.waiting_for.take();
                apply(&mut run, key.as_ref(), done);
                advance(ev, st, run);
            }
        }
        Command::Local(msg, outcome) => {
            let _ = st.seen.first_sight(msg.id);
            dispatch(ev, st, Arc::from(msg), outcome);
        }
    }
}

/// Arms a new handler, then replays the cached events it accepts, in
/// arrival order, to it alone.
fn arm(ev: &Arc<Events>, st: &mut Local, id: HandlerId) {
    let chain = ev.chain.load();
    let Some(entry) = chain.get(id) else {
        return; // deregistered meanwhile
    };
    if !entry.handler.gate.arm() {
        return;
    }
    let replay: Vec<Arc<EventMsg>> = st
        .cache
        .iter()
        .filter(|m| accepts(&entry.spec, &ev.me, &m.view()))
        .cloned()
        .collect();
    for msg in replay {
        let run = Run {
            ev: msg,
            entries: vec![(id, Arc::clone(&entry.handler))],
            next: 0,
            chain: ChainRun::new(),
            outcome: None,
            waiting_for: None,
        };
        advance(ev, st, run);
    }
}

/// Caches an event and starts its chain over the current snapshot.
pub(crate) fn dispatch(
    ev: &Arc<Events>,
    st: &mut Local,
    msg: Arc<EventMsg>,
    outcome: Option<OutcomeFn>,
) {
    let snaps = match st.snapshots.take() {
        Some(mut s) => {
            ev.chain.refresh(&mut s.chain);
            ev.library.refresh(&mut s.library);
            s
        }
        None => Snapshots {
            chain: ev.chain.load(),
            library: ev.library.load(),
        },
    };
    // The library first: the user's chain may end early (ACTION_COMPLETE).
    Events::to_library(&snaps.library, &msg);
    let outcome = outcome.or_else(|| ev.decision_outcome(&msg));
    if !msg.do_not_cache() {
        if st.cache.len() >= LOCAL_CACHE {
            if let Some(old) = st.cache.pop_front() {
                st.pools.give_msg(old);
            }
        }
        st.cache.push_back(Arc::clone(&msg));
    }
    let mut entries = st.pools.entries();
    let view = msg.view();
    entries.extend(
        snaps
            .chain
            .iter()
            .filter(|e| accepts(&e.spec, &ev.me, &view))
            .map(|e| (e.id, Arc::clone(&e.handler))),
    );
    st.snapshots = Some(snaps);
    let run = Run {
        ev: msg,
        entries,
        next: 0,
        chain: st.pools.chain(),
        outcome,
        waiting_for: None,
    };
    advance(ev, st, run);
}

fn apply(run: &mut Run, key: Option<&Key>, d: Done) {
    match key {
        Some(k) => run
            .chain
            .handler_done_keyed(k, d.status, d.updated_prior, d.results),
        None => run
            .chain
            .handler_done(None, d.status, d.updated_prior, d.results),
    };
}

/// Gives a finished run's parts back to the pools.
fn recycle(st: &mut Local, run: Run) {
    st.pools.give_entries(run.entries);
    st.pools.give_chain(run.chain);
    st.pools.give_msg(run.ev);
}

/// Calls the run's handlers until one completes later, or the chain ends.
fn advance(ev: &Arc<Events>, st: &mut Local, mut run: Run) {
    loop {
        if run.chain.is_stopped() || run.next >= run.entries.len() {
            if let Some(o) = run.outcome.take() {
                o(std::mem::take(&mut run.chain).finish());
            }
            recycle(st, run);
            return;
        }
        let i = run.next;
        run.next += 1;
        // Borrowed, not cloned: the entry list lives as long as the run
        // (one reference count less per handler call).
        let Run {
            ev: msg,
            entries,
            chain,
            outcome,
            ..
        } = &mut run;
        let (id, handler) = (entries[i].0, &entries[i].1);
        if !handler.gate.enter() {
            continue; // not armed yet, or deregistered
        }
        let slot = st.pools.handoff(ev);
        let run_id = st.next_run;
        st.next_run += 1;
        let completion = EventCompletion {
            slot: Arc::clone(&slot),
            run: run_id,
            done: false,
        };
        let event = Event {
            registration: id,
            status: msg.status,
            source: msg.source.as_ref(),
            info: &msg.info,
            results: chain.results(),
        };
        // A panicking handler drops its completion while unwinding, which
        // completes it as PMIX_EVENT_NO_ACTION_TAKEN; the chain goes on.
        let _ = catch_unwind(AssertUnwindSafe(|| (handler.f)(&event, completion)));
        handler.gate.exit();
        match slot.handoff.after_call() {
            Some(d) => {
                // The last handler's results reach only the notifier's
                // outcome: without one, nobody reads them.
                if i + 1 < entries.len() || outcome.is_some() {
                    let key = &handler.result_key;
                    chain.handler_done_keyed(key, d.status, d.updated_prior, d.results);
                }
                st.pools.give_handoff(slot);
            }
            None => {
                run.waiting_for = Some(handler.result_key.clone());
                st.runs.insert(run_id, run);
                return;
            }
        }
    }
}

/// Raises an event inside this client only, from any thread (the
/// connection's reader: `PMIX_ERR_LOST_CONNECTION` when the server went
/// away without a finalize, `PMIX_ERR_COMM_FAILURE` when a message could
/// not be unpacked). With `non_default` it carries `PMIX_EVENT_NON_DEFAULT`
/// (default handlers do not see it); with `why`, `PMIX_EVENT_TEXT_MESSAGE`.
/// `outcome` receives the chain's outcome once every handler ran.
pub(crate) fn raise_internal(
    ev: &Arc<Events>,
    status: Status,
    why: Option<String>,
    non_default: bool,
    outcome: Option<OutcomeFn>,
) {
    let mut msg = EventMsg::new(status, DataRange::PROC_LOCAL);
    msg.id = ev.next_id();
    msg.origin = Origin::ThisProcess;
    msg.info = [
        non_default
            .then(|| Info::new(attrs::EVENT_NON_DEFAULT, true).ok())
            .flatten(),
        why.and_then(|w| Info::new(attrs::EVENT_TEXT_MESSAGE, w).ok()),
    ]
    .into_iter()
    .flatten()
    .collect();
    ev.command(Command::Local(Box::new(msg), outcome));
}

impl Default for Local {
    fn default() -> Self {
        Local::new()
    }
}
