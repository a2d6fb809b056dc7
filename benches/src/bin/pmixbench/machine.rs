//! The machine's own limits, measured in the same run so that every
//! latency is quoted as a multiple of them: one cache line bounced
//! between two spinning processes, a futex word both sides sleep on (both
//! from `pmix_benches::limits`, pinned to two CPUs; the futex also with
//! both on the first CPU), and one byte bounced
//! over two pipes with a child sleeping in `read` (not pinned).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use pmix_benches::harness::ncpu;
use pmix_benches::limits::{pingpong_once, Limit};
use pmix_benches::report::median;

/// The name of the cache-line limit in the report.
pub const LINE: &str = "cache line";
/// The name of the futex limit.
pub const FUTEX: &str = "futex wake";
/// The futex limit with both processes on one CPU (for reference: a
/// wake-up that needs no idle CPU to wake up; sleeping rows are quoted
/// against [`FUTEX`], the cross-CPU one).
pub const FUTEX_ONE_CPU: &str = "futex wake, one CPU";
/// The name of the pipe limit.
pub const PIPE: &str = "pipe wake";

/// The argument that makes this binary the pipe ping-pong's echo.
pub const PIPE_ROLE: &str = "--pipe-role";

/// Measures the limits on CPUs `cpus` (the line and the futex);
/// `quick` takes fewer round trips. Returns (name, one-way ns).
///
/// # Errors
/// When a ping-pong process fails.
pub fn measure(cpus: [usize; 2], quick: bool) -> Result<Vec<(String, f64)>, String> {
    let (lb, lp) = if quick { (20, 500) } else { (200, 1000) };
    let (fb, fp) = if quick { (10, 20) } else { (50, 20) };
    if ncpu() < 2 {
        return Err("one CPU: a spinning ping-pong would measure time slices".into());
    }
    let line = pingpong_once(Limit::Line, Some(cpus), lb, lp)?;
    let futex = pingpong_once(Limit::Futex, Some(cpus), fb, fp)?;
    let futex_one = pingpong_once(Limit::Futex, Some([cpus[0], cpus[0]]), fb, fp)?;
    let pipe = pipe_oneway(if quick { 10 } else { 50 }, 20)?;
    let get =
        |m: &std::collections::HashMap<String, f64>| m.get("oneway_ns").copied().unwrap_or(0.0);
    Ok(vec![
        (LINE.to_owned(), get(&line)),
        (FUTEX.to_owned(), get(&futex)),
        (FUTEX_ONE_CPU.to_owned(), get(&futex_one)),
        (PIPE.to_owned(), pipe),
    ])
}

/// One-byte ping-pong with a child echoing over pipes: the median batch's
/// RTT/2 in ns.
fn pipe_oneway(batches: usize, per: usize) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg(PIPE_ROLE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let (Some(mut tx), Some(mut rx)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("no pipes".into());
    };
    let mut run = || -> Result<Vec<f64>, String> {
        let mut b = [0u8; 1];
        let mut rtt = || -> Result<(), String> {
            tx.write_all(&b).map_err(|e| e.to_string())?;
            rx.read_exact(&mut b).map_err(|e| format!("pipe peer: {e}"))
        };
        for _ in 0..per {
            rtt()?;
        }
        let mut v = Vec::with_capacity(batches);
        for _ in 0..batches {
            let t0 = Instant::now();
            for _ in 0..per {
                rtt()?;
            }
            v.push(t0.elapsed().as_nanos() as f64 / (2 * per) as f64);
        }
        Ok(v)
    };
    let r = run();
    drop(tx); // EOF ends the child
    let _ = child.wait();
    Ok(median(&r?))
}

/// The echoing end of [`pipe_oneway`]: copies stdin to stdout byte by
/// byte until EOF.
///
/// # Errors
/// An I/O error other than EOF.
pub fn pipe_role() -> Result<(), String> {
    let mut rx = std::io::stdin().lock();
    let mut tx = std::io::stdout().lock();
    let mut b = [0u8; 1];
    loop {
        match rx.read_exact(&mut b) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e.to_string()),
        }
        tx.write_all(&b)
            .and_then(|()| tx.flush())
            .map_err(|e| e.to_string())?;
    }
}
