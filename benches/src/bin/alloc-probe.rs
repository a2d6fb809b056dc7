//! `alloc-probe`: counts the heap allocations of the native event path
//! between two ranks of a pmix-rs job (issue 18), with a counting global
//! allocator. Run under `pmixrun -n 2`; for each range (`local`: LOCAL +
//! DO_NOT_CACHE, straight into the peer's ring; `custom`: CUSTOM naming the
//! peer) rank 0 sends PING, rank 1 answers PONG, `warm` round trips first,
//! then `iters` counted ones. Each rank prints
//! `ALLOCS <range> <rank> <allocations> <iters>`: everything its process
//! allocated while it sent and received those events (notify, encode,
//! ring push, decode, dispatch, handler completion).
//! Usage: `pmixrun -n 2 alloc-probe [iters] [warm]`.

use pmix_shm::sync::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_client::{Client, Event};
use pmix_core::{attrs, DataRange, Info, Proc, Rank, Status, Value};
use pmix_shm::alloc_count::{allocations, CountingAllocator};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

const PING: Status = Status(-3201);
const PONG: Status = Status(-3202);

fn main() {
    if let Err(e) = run() {
        println!("FAILED {e}");
        std::process::exit(1);
    }
}

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Waits (spinning, allocation-free) until `n` reaches `want`.
fn wait(n: &AtomicU64, want: u64) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    // ORDERING: Acquire — pairs with the handler's Release increment.
    while n.load(Ordering::Acquire) < want {
        if Instant::now() > deadline {
            return Err(format!("event {want} never arrived"));
        }
        std::thread::yield_now();
    }
    Ok(())
}

fn run() -> Result<(), String> {
    let (iters, warm) = (arg(1, 2_000), arg(2, 3_000));
    let c = Client::init(&[]).map_err(|e| format!("init: {e}"))?;
    let me = c.proc().clone();
    let rank = me.rank.0;
    if rank > 1 {
        return c.finalize().map_err(|e| format!("finalize: {e}"));
    }
    let peer = Proc::from_parts(me.nspace.clone(), Rank(1 - rank));
    let got = Arc::new(AtomicU64::new(0));
    let g = Arc::clone(&got);
    let mine = me.clone();
    c.register_event_handler(&[PING, PONG], &[], move |e: &Event<'_>, done| {
        if e.source != Some(&mine) {
            // ORDERING: Release — publishes the arrival to `wait`.
            g.fetch_add(1, Ordering::Release);
        }
        done.done(Status::EVENT_NO_ACTION_TAKEN, Vec::new());
    })
    .map_err(|e| format!("register: {e}"))?;
    let ranges = [
        (
            "local",
            DataRange::LOCAL,
            Info::new(attrs::EVENT_DO_NOT_CACHE, Value::Bool(true)),
        ),
        (
            "custom",
            DataRange::CUSTOM,
            Info::new(attrs::EVENT_CUSTOM_RANGE, Value::Proc(peer)),
        ),
    ];
    for (phase, (name, range, info)) in (0u64..).zip(ranges) {
        let info = [info.map_err(|e| format!("info: {e}"))?];
        c.fence(&[], &[]).map_err(|e| format!("fence: {e}"))?;
        // Each phase brings exactly `warm + iters` events from the peer, so
        // the count at its start is known. (Reading the counter here raced:
        // the peer, out of the fence first, could already have sent the
        // phase's first event, and this rank then waited for one too many.)
        let base = phase * (warm + iters);
        let mut start = allocations();
        for i in 0..warm + iters {
            if rank == 0 {
                if i == warm {
                    start = allocations();
                }
                c.notify_event(PING, range, &info)
                    .map_err(|e| format!("notify: {e}"))?;
                wait(&got, base + i + 1)?;
            } else {
                wait(&got, base + i + 1)?;
                if i == warm {
                    start = allocations();
                }
                c.notify_event(PONG, range, &info)
                    .map_err(|e| format!("notify: {e}"))?;
            }
        }
        let n = allocations() - start;
        println!("ALLOCS {name} {rank} {n} {iters}");
    }
    c.fence(&[], &[]).map_err(|e| format!("fence: {e}"))?;
    c.finalize().map_err(|e| format!("finalize: {e}"))
}
