//! `PMIx_Spawn`, handed to the host ([`Host::spawn`](crate::Host::spawn)).
//!
//! The server checks what it can without the host (`App::check_spawn`: at
//! least one app, every app with a command and a `maxprocs` that is not
//! negative; 0 leaves the count to the host), so a malformed request is
//! `PMIX_ERR_BAD_PARAM` at once and never reaches the host. The request
//! counts against the client's limit of requests the host has not answered
//! (`inflight.rs`). The reply's value is the new namespace
//! (`PMIX_STRING`).
//!
//! With `PMIX_SPAWN_TIMEOUT` or `PMIX_TIMEOUT` (seconds; the earlier
//! counts) the client is answered `PMIX_ERR_TIMEOUT` when the host has not
//! answered by then, so a host that never answers cannot leave the spawner
//! waiting; the host's late answer is dropped (a host that honours the
//! timeout itself — kills what it started — answers first).

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use pmix_core::proto::Reply;
use pmix_core::{attrs, App, Error, Info, Nspace, Status, Value};

use crate::host::Completion;
use crate::inner::Inner;
use crate::link::ReplyTo;

/// When the spawn's `PMIX_SPAWN_TIMEOUT` or `PMIX_TIMEOUT` (seconds from
/// now, the earlier of the two) passes; none, 0 or negative: never.
fn deadline(info: &[Info]) -> Option<(Instant, i64)> {
    [attrs::SPAWN_TIMEOUT, attrs::TIMEOUT]
        .into_iter()
        .filter_map(|k| pmix_core::info::find(info, k)?.value.to_i64().ok())
        .filter(|s| *s > 0)
        .min()
        .map(|s| (Instant::now() + Duration::from_secs(s.unsigned_abs()), s))
}

/// `done`, answered by whichever comes first: the host, or the timer at
/// `at` with `PMIX_ERR_TIMEOUT`.
fn with_deadline(
    inner: &Inner,
    done: Completion<Nspace>,
    (at, secs): (Instant, i64),
) -> Completion<Nspace> {
    let slot = Arc::new(Mutex::new(Some(done)));
    let timed = Arc::clone(&slot);
    inner.state.lock().timer.at(
        at,
        Box::new(move || {
            let first = timed.lock().take();
            if let Some(done) = first {
                done(Err(Error::with_context(
                    Status::ERR_TIMEOUT,
                    format!("spawn: the host did not answer within the spawn's timeout ({secs} s)"),
                )));
            }
        }),
    );
    Box::new(move |r| {
        let first = slot.lock().take();
        if let Some(done) = first {
            done(r);
        }
    })
}

/// A client's spawn request.
pub(crate) fn spawn(inner: &Inner, to: ReplyTo, job_info: Vec<Info>, apps: Vec<App>) {
    if let Err(e) = App::check_spawn(&apps) {
        to.send(&Reply::error(&e));
        return;
    }
    let ticket = match inner.inflight.take(to.proc(), "spawn") {
        Ok(t) => t,
        Err(e) => {
            to.send(&Reply::error(&e));
            return;
        }
    };
    let requestor = to.proc().clone();
    let mut done = to.completion(move |ns: Nspace| {
        drop(ticket);
        Reply {
            status: Status::SUCCESS,
            value: Some(Value::String(ns.as_str().to_owned())),
            message: String::new(),
        }
    });
    if let Some(d) = deadline(&job_info) {
        done = with_deadline(inner, done, d);
    }
    inner.host.spawn(&requestor, &job_info, &apps, done);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(cmd: &str, n: i32) -> App {
        App {
            cmd: cmd.into(),
            maxprocs: n,
            ..App::default()
        }
    }

    #[test]
    fn the_earlier_timeout_counts() {
        let t = |k: &str, v: i32| Info::new(k, Value::Int(v)).unwrap();
        assert!(deadline(&[]).is_none());
        assert!(deadline(&[t(attrs::TIMEOUT, 0)]).is_none());
        assert!(deadline(&[t(attrs::SPAWN_TIMEOUT, -3)]).is_none());
        assert_eq!(deadline(&[t(attrs::TIMEOUT, 9)]).unwrap().1, 9);
        let both = [t(attrs::TIMEOUT, 9), t(attrs::SPAWN_TIMEOUT, 4)];
        let (at, secs) = deadline(&both).unwrap();
        assert_eq!(secs, 4);
        assert!(at <= Instant::now() + Duration::from_secs(4));
    }

    #[test]
    fn apps_are_checked_before_the_host() {
        assert!(App::check_spawn(&[app("/bin/true", 1), app("x", 3)]).is_ok());
        // 0: the host decides (a mapping directive, daemon placement)
        assert!(App::check_spawn(&[app("/bin/true", 0)]).is_ok());
        for bad in [
            vec![],
            vec![app("", 1)],
            vec![app("/bin/true", 1), app("/bin/true", -2)],
        ] {
            let e = App::check_spawn(&bad).unwrap_err();
            assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{bad:?}");
        }
    }
}
