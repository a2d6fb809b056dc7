//! `pmix events`: print events as they arrive, filtered by code.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use pmix_core::{Result, Status};

use super::notify::parse_code;
use super::{format, ServerArgs};

/// `pmix events` options.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// Only these codes (numbers or names); none: every event.
    #[arg(long = "code", allow_hyphen_values = true)]
    pub codes: Vec<String>,
    /// Only events from this namespace.
    #[arg(long = "from")]
    pub from: Option<String>,
    /// Exit after this many events.
    #[arg(long)]
    pub count: Option<usize>,
    /// Exit after this many seconds (status 0).
    #[arg(long)]
    pub timeout: Option<f64>,
}

/// Runs `pmix events`.
///
/// # Errors
/// A bad code, attaching or registering failed, the server went away.
pub fn run(server: &ServerArgs, args: &EventsArgs) -> Result<()> {
    let codes = args
        .codes
        .iter()
        .map(|c| parse_code(c))
        .collect::<Result<Vec<_>>>()?;
    let t = server.attach()?;
    let c = t
        .client()
        .ok_or_else(|| pmix_core::Error::with_context(Status::ERR_UNREACH, "not attached"))?
        .clone();
    let (tx, rx) = mpsc::channel::<String>();
    let tx = std::sync::Mutex::new(tx);
    let from = args.from.clone();
    let lost = Status::ERR_LOST_CONNECTION;
    // The server's loss ends the watch whatever the filter.
    let mut wanted_codes = codes.clone();
    if !codes.is_empty() && !codes.contains(&lost) {
        wanted_codes.push(lost);
    }
    c.register_event_handler(&wanted_codes, &[], move |e, done| {
        let src = e.source.map(|p| p.to_string()).unwrap_or_default();
        let wanted = from
            .as_deref()
            .map_or(true, |ns| e.source.is_some_and(|p| p.nspace.as_str() == ns));
        if wanted || e.status == lost {
            let mut line = format!("event {} ({}) from {src}", e.status.0, e.status);
            for i in e.info {
                line.push_str("; ");
                line.push_str(&format::info(i));
            }
            if e.status == lost {
                line = "LOST".to_owned();
            }
            let _ = tx.lock().map(|t| t.send(line));
        }
        done.done(Status::SUCCESS, vec![]);
    })?;
    println!("watching as {}", t.proc());
    let end = args
        .timeout
        .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let mut seen = 0usize;
    let r = loop {
        if args.count.is_some_and(|n| seen >= n) {
            break Ok(());
        }
        let wait = end.map_or(Duration::from_millis(500), |e| {
            e.saturating_duration_since(Instant::now())
        });
        if end.is_some() && wait.is_zero() {
            break Ok(());
        }
        match rx.recv_timeout(wait.min(Duration::from_millis(500))) {
            Ok(line) if line == "LOST" => {
                break Err(pmix_core::Error::with_context(lost, "the server went away"))
            }
            Ok(line) => {
                println!("{line}");
                seen += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(()),
        }
    };
    let _ = t.finalize();
    r
}
