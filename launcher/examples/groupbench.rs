//! Group construct + destruct latency against fences over the same
//! members (issue 16's benchmark: `MPI_Comm_create_from_group`'s cost,
//! goal "construct within 2× a fence"). Every rank of
//! `pmixrun -n N groupbench [iterations]` runs, per iteration, a fence over
//! the job (the shared-memory barrier), a fence with `PMIX_COLLECT_DATA`
//! (through the server, as a fence carrying data), then a construct of
//! group "bench" over the job with `PMIX_GROUP_ASSIGN_CONTEXT_ID` and its
//! destruct. Rank 0 prints the medians (and 90th percentiles) of its own
//! samples, in microseconds, on one line:
//! `n=<N> iters=<I> fence=<med>/<p90> fence_collect=… construct=… destruct=… construct+destruct=…`.
//! `groupbench <iterations> nocid` constructs without a context id.
//! The first tenth of the iterations is warm-up, not counted.

use std::time::{Duration, Instant};

use pmix_client::Client;
use pmix_core::{attrs, Info, Proc, Rank, Value};

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn summary(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    format!("{:.1}/{:.1}", at(0.5), at(0.9))
}

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let c = Client::init(&[]).expect("init");
    let me = c.proc().clone();
    let size = match c.get(
        &Proc::from_parts(me.nspace.clone(), Rank::WILDCARD),
        attrs::JOB_SIZE,
        &[],
    ) {
        Ok(Value::Uint32(n)) => n,
        other => panic!("job size: {other:?}"),
    };
    let all = [Proc::from_parts(me.nspace.clone(), Rank::WILDCARD)];
    let collect = [Info::new(attrs::COLLECT_DATA, Value::Bool(true)).unwrap()];
    // `groupbench <iterations> nocid`: without a context id
    let with_cid = std::env::args().nth(2).as_deref() != Some("nocid");
    let cid: Vec<Info> = if with_cid {
        vec![Info::new(attrs::GROUP_ASSIGN_CONTEXT_ID, Value::Bool(true)).unwrap()]
    } else {
        Vec::new()
    };
    let warm = iters / 10;
    let (mut fence, mut fcoll, mut cons, mut dest, mut both) =
        (vec![], vec![], vec![], vec![], vec![]);
    for i in 0..iters + warm {
        let t = Instant::now();
        c.fence(&all, &[]).expect("fence");
        let f = t.elapsed();
        let t = Instant::now();
        c.fence(&all, &collect).expect("fence with data");
        let fc = t.elapsed();
        let t = Instant::now();
        c.group_construct("bench", &all, &cid).expect("construct");
        let k = t.elapsed();
        let t2 = Instant::now();
        c.group_destruct("bench", &[]).expect("destruct");
        let d = t2.elapsed();
        if i >= warm {
            fence.push(micros(f));
            fcoll.push(micros(fc));
            cons.push(micros(k));
            dest.push(micros(d));
            both.push(micros(k + d));
        }
    }
    if me.rank.0 == 0 {
        println!(
            "n={size} iters={iters} cid={with_cid} fence={} fence_collect={} construct={} destruct={} \
             construct+destruct={}",
            summary(&mut fence),
            summary(&mut fcoll),
            summary(&mut cons),
            summary(&mut dest),
            summary(&mut both)
        );
    }
    c.finalize().expect("finalize");
}
