//! The server's one timer: a single thread, started at the first
//! [`Timer::at`], that runs each job once its time has come (fence
//! timeouts). A job must be quick and must not block: it runs on the timer
//! thread, in time order, with no lock of the timer held (it may take the
//! server's state lock, and may schedule more jobs).
//!
//! Jobs hold what they need weakly (a `Weak<Inner>`), so the timer never
//! keeps a server alive; dropping the [`Timer`] (with the server's state)
//! stops the thread, whatever jobs are left.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

/// Something to do at a given time.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

struct Entry {
    when: Instant,
    /// Scheduling order: jobs due at the same time run in it.
    seq: u64,
    job: Job,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.when, self.seq) == (other.when, other.seq)
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    /// Reversed: `BinaryHeap` is a max-heap and the earliest job must come
    /// out first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.when, other.seq).cmp(&(self.when, self.seq))
    }
}

#[derive(Default)]
struct Queue {
    entries: BinaryHeap<Entry>,
    next_seq: u64,
    started: bool,
    stopped: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
}

/// The server's timer (see the module docs).
#[derive(Default)]
pub(crate) struct Timer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Timer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = self.shared.queue.lock();
        f.debug_struct("Timer")
            .field("pending", &q.entries.len())
            .field("started", &q.started)
            .finish()
    }
}

impl Timer {
    /// Runs `job` on the timer thread once `when` has come (at once if it
    /// has). Starts the thread on first use; if it cannot be started, the
    /// job is dropped unrun (the callers' clients still end their waits by
    /// their own deadlines).
    pub(crate) fn at(&self, when: Instant, job: Job) {
        let mut q = self.shared.queue.lock();
        if q.stopped {
            return;
        }
        if !q.started {
            let shared = Arc::clone(&self.shared);
            let spawned = std::thread::Builder::new()
                .name("pmix-srv-timer".into())
                .spawn(move || run(&shared));
            if spawned.is_err() {
                return;
            }
            q.started = true;
        }
        let seq = q.next_seq;
        q.next_seq += 1;
        q.entries.push(Entry { when, seq, job });
        drop(q);
        self.shared.changed.notify_one();
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        // Never joins: the last reference to the server (and so this drop)
        // may be released by a job running on the timer thread itself.
        self.shared.queue.lock().stopped = true;
        self.shared.changed.notify_one();
    }
}

/// The timer thread: sleeps until the earliest job is due, runs it, and
/// stops once the [`Timer`] is dropped.
fn run(shared: &Shared) {
    loop {
        let job = {
            let mut q = shared.queue.lock();
            loop {
                if q.stopped {
                    return;
                }
                let now = Instant::now();
                match q.entries.peek().map(|e| e.when) {
                    Some(when) if when <= now => {
                        break q.entries.pop().map(|e| e.job);
                    }
                    Some(when) => {
                        let _ = shared.changed.wait_until(&mut q, when);
                    }
                    None => shared.changed.wait(&mut q),
                }
            }
        };
        if let Some(job) = job {
            job();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn jobs_run_in_time_order_once_due() {
        let timer = Timer::default();
        let (tx, rx) = mpsc::channel();
        let start = Instant::now();
        for (i, ms) in [(0u32, 60u64), (1, 20), (2, 40), (3, 20)] {
            let tx = tx.clone();
            timer.at(
                start + Duration::from_millis(ms),
                Box::new(move || {
                    let _ = tx.send((i, Instant::now()));
                }),
            );
        }
        let got: Vec<(u32, Instant)> = (0..4)
            .map(|_| rx.recv_timeout(Duration::from_secs(10)).unwrap())
            .collect();
        let order: Vec<u32> = got.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, [1, 3, 2, 0]);
        assert!(got[0].1 >= start + Duration::from_millis(20));
        assert!(got[3].1 >= start + Duration::from_millis(60));
    }

    #[test]
    fn a_dropped_timer_runs_nothing_more() {
        let timer = Timer::default();
        let (tx, rx) = mpsc::channel::<()>();
        timer.at(
            Instant::now() + Duration::from_millis(50),
            Box::new(move || {
                let _ = tx.send(());
            }),
        );
        drop(timer);
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    }
}
