//! `PMIx_Spawn`, handed to the host ([`Host::spawn`](crate::Host::spawn)).
//!
//! The server checks what it can without the host (at least one app, every
//! app with a command and a positive `maxprocs`), so a malformed request is
//! `PMIX_ERR_BAD_PARAM` at once and never reaches the host. The request
//! counts against the client's limit of requests the host has not answered
//! (`inflight.rs`). The reply's value is the new namespace
//! (`PMIX_STRING`).

use pmix_core::proto::Reply;
use pmix_core::{App, Error, Info, Nspace, Result, Status, Value};

use crate::inner::Inner;
use crate::link::ReplyTo;

/// Checks the apps of a spawn request (see the module documentation).
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` naming the first problem.
pub(crate) fn check_apps(apps: &[App]) -> Result<()> {
    if apps.is_empty() {
        return Err(Error::bad_param("spawn: no application given"));
    }
    for (i, a) in apps.iter().enumerate() {
        if a.cmd.is_empty() {
            return Err(Error::bad_param(format!("spawn: app {i} has no command")));
        }
        if a.maxprocs < 1 {
            return Err(Error::bad_param(format!(
                "spawn: app {i} ({}) asks for {} processes; at least 1 is needed",
                a.cmd, a.maxprocs
            )));
        }
    }
    Ok(())
}

/// A client's spawn request.
pub(crate) fn spawn(inner: &Inner, to: ReplyTo, job_info: Vec<Info>, apps: Vec<App>) {
    if let Err(e) = check_apps(&apps) {
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
    let done = to.completion(move |ns: Nspace| {
        drop(ticket);
        Reply {
            status: Status::SUCCESS,
            value: Some(Value::String(ns.as_str().to_owned())),
            message: String::new(),
        }
    });
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
    fn apps_are_checked_before_the_host() {
        assert!(check_apps(&[app("/bin/true", 1), app("x", 3)]).is_ok());
        for bad in [
            vec![],
            vec![app("", 1)],
            vec![app("/bin/true", 0)],
            vec![app("/bin/true", 1), app("/bin/true", -2)],
        ] {
            let e = check_apps(&bad).unwrap_err();
            assert_eq!(e.status(), Status::ERR_BAD_PARAM, "{bad:?}");
        }
    }
}
