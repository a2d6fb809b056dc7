//! Pushes that wait for room in a connected client's event ring, off the
//! thread that routed the event: the reactor serves every client and must
//! never wait for one of them (a client that stops draining its ring
//! would stall everybody's requests for `ServerConfig::event_push_timeout`
//! per event). A record goes into the ring at once when it fits and no
//! earlier record for that ring is still waiting; otherwise it is queued
//! for the pusher thread (`pmix-srv-pusher`, started on first use, one
//! for the server), which waits for room, bounded, in arrival order per
//! ring. So one client's records keep their order, and a full ring delays
//! only the records for that ring.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

/// A waiting push, run on the pusher thread.
pub(crate) type PushJob = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<(u32, PushJob)>,
    /// Jobs queued or running, by slot.
    busy: HashMap<u32, usize>,
    started: bool,
    stopped: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
}

/// The server's pusher (see the module docs).
#[derive(Default)]
pub(crate) struct Pusher {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Pusher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = self.shared.queue.lock();
        f.debug_struct("Pusher")
            .field("queued", &q.jobs.len())
            .field("started", &q.started)
            .finish()
    }
}

impl Pusher {
    /// Runs `now` (a push that does not wait; `true` when the record went
    /// in) unless records for `slot` are waiting already; queues `later`
    /// (the push that waits) when they are or when `now` failed. Without
    /// a pusher thread (none could be started) `later` runs here.
    pub(crate) fn push(
        &self,
        slot: u32,
        now: impl FnOnce() -> bool,
        later: impl FnOnce() -> PushJob,
    ) {
        let mut q = self.shared.queue.lock();
        if q.stopped {
            return;
        }
        if !q.busy.contains_key(&slot) && now() {
            return;
        }
        if !q.started {
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new()
                .name("pmix-srv-pusher".into())
                .spawn(move || run(&shared));
            if spawned.is_err() {
                drop(q);
                return later()();
            }
            q.started = true;
        }
        *q.busy.entry(slot).or_insert(0) += 1;
        q.jobs.push_back((slot, later()));
        drop(q);
        self.shared.changed.notify_one();
    }
}

impl Pusher {
    /// Drops what is queued and ends the thread after the push it is
    /// running (the server stops). Never joins: the last reference to the
    /// server may be released by a job running on the pusher thread.
    pub(crate) fn stop(&self) {
        let dropped = {
            let mut q = self.shared.queue.lock();
            q.stopped = true;
            std::mem::take(&mut q.jobs)
        };
        drop(dropped);
        self.shared.changed.notify_one();
    }
}

impl Drop for Pusher {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The pusher thread: runs the queued pushes in order until the
/// [`Pusher`] is dropped.
fn run(shared: &Shared) {
    loop {
        let (slot, job) = {
            let mut q = shared.queue.lock();
            loop {
                if q.stopped {
                    return;
                }
                if let Some(j) = q.jobs.pop_front() {
                    break j;
                }
                shared.changed.wait(&mut q);
            }
        };
        job();
        let mut q = shared.queue.lock();
        if let Some(n) = q.busy.get_mut(&slot) {
            *n -= 1;
            if *n == 0 {
                q.busy.remove(&slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_slot_with_waiting_records_keeps_their_order() {
        let p = Pusher::default();
        let (tx, rx) = mpsc::channel();
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        // Record 1 does not fit: queued, and its job waits for the gate.
        let t = tx.clone();
        p.push(
            7,
            || false,
            || {
                Box::new(move || {
                    let _ = gate_rx.recv_timeout(Duration::from_secs(10));
                    let _ = t.send(1);
                })
            },
        );
        // Record 2 would fit, but 1 waits: queued behind it.
        let t = tx.clone();
        p.push(
            7,
            || panic!("tried before the waiting record"),
            || {
                Box::new(move || {
                    let _ = t.send(2);
                })
            },
        );
        // Another slot is not held up.
        let t = tx.clone();
        p.push(
            8,
            move || {
                let _ = t.send(3);
                true
            },
            || unreachable!(),
        );
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), 3);
        gate_tx.send(()).unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), 1);
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), 2);
    }
}
