//! What a client does when its server is gone (the connection closed
//! without a finalize: the server, or the launcher embedding it, died).
//!
//! 1. Every request waiting for a reply fails with
//!    `PMIX_ERR_LOST_CONNECTION` (the connection's reader, `conn.rs`).
//! 2. Every shared-memory wait — a fence on the barrier, a `get` waiting
//!    for a local peer's commit — polls [`Conn::is_lost`](crate::conn::Conn)
//!    at least every 100 ms and ends with `PMIX_ERR_LOST_CONNECTION`.
//! 3. `PMIX_ERR_LOST_CONNECTION` is raised to this process's handlers,
//!    default (no-code) handlers included, as OpenPMIx does: Open MPI's
//!    default handler aborts the rank, so an MPI job does not outlive its
//!    launcher.
//! 4. If no handler at all ran for it and the process was launched by the
//!    server ([`Client::init`](crate::Client::init) from the environment),
//!    the policy [`LostServer`] decides: by default the process is sent
//!    `SIGTERM`, as the launcher would have done to its ranks, after a
//!    line on stderr saying why. `PMIXRS_ON_LOST_SERVER=continue` keeps it
//!    running. Clients made with [`Client::connect`](crate::Client::connect)
//!    (tools, tests) and a server living in this same process never
//!    terminate it.

use std::sync::Arc;

use pmix_core::{Error, Proc, Result, Status};

use crate::event::{self, Events};

/// The environment variable that chooses the [`LostServer`] policy of a
/// client initialised from the environment: `terminate` (the default) or
/// `continue`.
pub const ON_LOST_SERVER_ENV: &str = "PMIXRS_ON_LOST_SERVER";

/// What a client whose server is gone does when none of its event
/// handlers ran for `PMIX_ERR_LOST_CONNECTION`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostServer {
    /// Send this process `SIGTERM` (the job does not outlive its launcher).
    Terminate,
    /// Keep running; every call needing the server fails with
    /// `PMIX_ERR_LOST_CONNECTION`.
    Continue,
}

impl LostServer {
    /// Parses the value of [`ON_LOST_SERVER_ENV`].
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` naming the accepted values.
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "terminate" | "" => Ok(LostServer::Terminate),
            "continue" => Ok(LostServer::Continue),
            other => Err(Error::bad_param(format!(
                "{ON_LOST_SERVER_ENV}={other}: expected \"terminate\" or \"continue\""
            ))),
        }
    }
}

/// Runs once when the connection is lost: raises the event and applies
/// the policy if no handler took it.
pub(crate) fn server_lost(
    me: &Proc,
    events: Option<&Arc<Events>>,
    policy: LostServer,
    server_pid: Option<u32>,
) {
    let terminate =
        policy == LostServer::Terminate && server_pid.is_some_and(|p| p != std::process::id());
    let me = me.clone();
    let apply = move |handlers_run: usize| {
        if terminate && handlers_run == 0 {
            terminate_self(&me, server_pid);
        }
    };
    match events {
        Some(ev) => event::raise_internal(
            ev,
            Status::ERR_LOST_CONNECTION,
            Some("the connection to the PMIx server was lost".into()),
            false,
            Some(Box::new(move |o| apply(o.handlers_run))),
        ),
        None => apply(0),
    }
}

fn terminate_self(me: &Proc, server_pid: Option<u32>) {
    eprintln!(
        "pmix-rs: {}:{}: the PMIx server (pid {}) is gone and no event handler \
         took PMIX_ERR_LOST_CONNECTION: terminating this process \
         (set {ON_LOST_SERVER_ENV}=continue to keep it running)",
        me.nspace.as_str(),
        me.rank.0,
        server_pid.unwrap_or(0),
    );
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::TERM);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_parses_its_two_values_and_refuses_others() {
        assert_eq!(
            LostServer::parse("terminate").unwrap(),
            LostServer::Terminate
        );
        assert_eq!(
            LostServer::parse(" Continue ").unwrap(),
            LostServer::Continue
        );
        assert_eq!(LostServer::parse("").unwrap(), LostServer::Terminate);
        let e = LostServer::parse("ignore").unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        assert!(e.to_string().contains(ON_LOST_SERVER_ENV));
    }
}
