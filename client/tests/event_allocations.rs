//! The steady-state event path allocates nothing (issue 18): a counting
//! global allocator sees every heap allocation of this test process, and
//! after a warm-up (the replay cache, the duplicate filter and the pools
//! reach their steady size) N events sent one at a time, each awaited by
//! the notifier, must not allocate at all — notify, the record in the
//! queue, the decode on the progress thread, the cache, the matching
//! handlers, the handoff of each completion, the results of the chain.
//!
//! One test in this binary, so nothing else runs while it counts.

use pmix_shm::sync::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_client::ProcessEvents;
use pmix_core::{attrs, Info, Proc, Rank, Status};
use pmix_shm::alloc_count::{allocations, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const CODE: Status = Status(-3101);
const WARM: u64 = 6_000;
const N: u64 = 2_000;

/// Sends `n` events one at a time, waiting for the handler each time (a
/// spin that allocates nothing).
fn send(ev: &ProcessEvents, handled: &AtomicU64, info: &[Info], n: u64) {
    for _ in 0..n {
        // ORDERING: Acquire — pairs with the handler's Release increment.
        let before = handled.load(Ordering::Acquire);
        ev.notify(CODE, info, None).expect("notify");
        let deadline = Instant::now() + Duration::from_secs(10);
        // ORDERING: Acquire — as above.
        while handled.load(Ordering::Acquire) == before {
            assert!(Instant::now() < deadline, "an event was not handled");
            std::thread::yield_now();
        }
    }
}

#[test]
fn steady_state_events_allocate_nothing() {
    let ev = ProcessEvents::start(Proc::new("alloctest", Rank(0)).unwrap()).unwrap();
    let handled = Arc::new(AtomicU64::new(0));
    let h = Arc::clone(&handled);
    ev.register_event_handler(&[CODE], &[], move |e, done| {
        assert_eq!(e.status, CODE);
        // ORDERING: Release — publishes the handler's work to the notifier.
        h.fetch_add(1, Ordering::Release);
        done.done(Status::EVENT_NO_ACTION_TAKEN, Vec::new());
    })
    .unwrap();
    let do_not_cache = [Info::new(attrs::EVENT_DO_NOT_CACHE, true).unwrap()];
    for info in [&[][..], &do_not_cache[..]] {
        send(&ev, &handled, info, WARM);
        let before = allocations();
        send(&ev, &handled, info, N);
        let per_event = (allocations() - before) as f64 / N as f64;
        assert_eq!(
            allocations() - before,
            0,
            "{per_event} allocations per event with infos {info:?}"
        );
    }
}
