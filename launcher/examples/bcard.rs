//! Business-card exchange, the heart of MPI wire-up: every rank puts a
//! card, commits, fences with data collection, then reads and checks every
//! peer's card. Rank 0 prints per-phase timings.
//!
//! ```text
//! cargo build --release -p pmix-launcher --bins --examples
//! target/release/pmixrun -n 8 target/release/examples/bcard [card bytes]
//! ```

use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, Info, Proc, Rank, Scope, Value};

fn card(rank: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(31).wrapping_add(rank) as u8)
        .collect()
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let len: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let t0 = Instant::now();
    let c = match Client::init(&[]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bcard: PMIx init failed: {e}");
            std::process::exit(1);
        }
    };
    let t_init = t0.elapsed();
    let me = c.proc().clone();
    let wild = Proc::from_parts(me.nspace.clone(), Rank::WILDCARD);
    let size = c
        .get(&wild, attrs::JOB_SIZE, &[])
        .and_then(|v| v.to_u64())
        .expect("job size") as u32;

    let t = Instant::now();
    c.put(
        Scope::GLOBAL,
        "bcard.card",
        Value::ByteObject(card(me.rank.0, len)),
    )
    .expect("put");
    c.commit().expect("commit");
    let t_put = t.elapsed();

    let collect = [Info::new(attrs::COLLECT_DATA, Value::Bool(true)).expect("info")];
    let t = Instant::now();
    c.fence(&[], &collect).expect("fence");
    let t_fence = t.elapsed();

    let t = Instant::now();
    let mut bad = 0;
    for r in 0..size {
        let p = Proc::from_parts(me.nspace.clone(), Rank(r));
        match c.get(&p, "bcard.card", &[]) {
            Ok(Value::ByteObject(b)) if b == card(r, len) => {}
            other => {
                eprintln!(
                    "bcard: rank {}: card of rank {r} is wrong: {other:?}",
                    me.rank.0
                );
                bad += 1;
            }
        }
    }
    let t_get = t.elapsed();

    let t = Instant::now();
    c.fence(&[], &[]).expect("sync fence");
    let t_sync = t.elapsed();

    let t = Instant::now();
    c.finalize().expect("finalize");
    let t_fin = t.elapsed();

    if bad > 0 {
        std::process::exit(1);
    }
    if me.rank.0 == 0 {
        println!("bcard: {size} ranks, {len}-byte cards, every card checked");
        println!("  init              {:>10.1} us", us(t_init));
        println!("  put + commit      {:>10.1} us", us(t_put));
        println!("  fence (collect)   {:>10.1} us", us(t_fence));
        println!(
            "  get {size} cards      {:>10.1} us  ({:.0} ns per get)",
            us(t_get),
            t_get.as_nanos() as f64 / f64::from(size)
        );
        println!("  fence (sync)      {:>10.1} us", us(t_sync));
        println!("  finalize          {:>10.1} us", us(t_fin));
    }
}
