//! A debugger daemon for `launcher/tests/tools.rs`: init, then prints
//! `daemon <rank> of <size> target <PMIX_DEBUG_TARGET> per-proc <n>
//! serves <target rank>` from its job data, finalize.

use pmix_core::{attrs, Proc, Rank, Value};

fn main() {
    let c = pmix_client::Client::init(&[]).unwrap_or_else(|e| {
        println!("FAIL: init: {e}");
        std::process::exit(1)
    });
    let job = Proc::from_parts(c.proc().nspace.clone(), Rank::WILDCARD);
    let get = |k: &str| c.get(&job, k, &[]);
    let size = match get(attrs::JOB_SIZE) {
        Ok(v) => v.to_i64().unwrap_or(-1),
        Err(e) => {
            println!("FAIL: job size: {e}");
            std::process::exit(1)
        }
    };
    let target = match get(attrs::DEBUG_TARGET) {
        Ok(Value::Proc(p)) => p,
        other => {
            println!("FAIL: PMIX_DEBUG_TARGET: {other:?}");
            std::process::exit(1)
        }
    };
    let per_proc = get(attrs::DEBUG_DAEMONS_PER_PROC)
        .ok()
        .and_then(|v| v.to_i64().ok())
        .unwrap_or(0);
    let me = c.proc().rank.0;
    let serves = if per_proc > 0 {
        (i64::from(me) / per_proc).to_string()
    } else {
        "all".into()
    };
    println!(
        "daemon {me} of {size} target {}:{:?} per-proc {per_proc} serves {serves}",
        target.nspace.as_str(),
        target.rank
    );
    let _ = c.finalize();
}
