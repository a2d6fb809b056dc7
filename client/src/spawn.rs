//! `PMIx_Spawn` (protocol version 5): the server hands the request to its
//! host, which registers the new namespace and starts its processes; the
//! answer is the new namespace. Environment directives
//! ([`pmix_core::envar`]) in `job_info` apply to every app first, then
//! each app's own.

use pmix_core::proto::{caps, Reply, Request};
use pmix_core::{App, Error, Info, Nspace, Result, Status};

use crate::Client;

fn nspace_of(r: Reply) -> Result<Nspace> {
    let bad = || {
        Error::with_context(
            Status::ERR_UNPACK_FAILURE,
            "spawn reply without a namespace",
        )
    };
    match r.into_result()? {
        Some(v) => Nspace::new(v.as_str().map_err(|_| bad())?),
        None => Err(bad()),
    }
}

/// The request for `apps`, checked as the server will check it (so a bad
/// request fails without a round trip).
fn request(job_info: &[Info], apps: &[App]) -> Result<Request> {
    App::check_spawn(apps)?;
    pmix_core::envar::EnvDirective::collect(job_info)?;
    for a in apps {
        pmix_core::envar::EnvDirective::collect(&a.info)?;
    }
    Ok(Request::Spawn {
        job_info: job_info.to_vec(),
        apps: apps.to_vec(),
    })
}

impl Client {
    /// `PMIx_Spawn_nb`: starts `apps` as a new job with the job-level
    /// directives `job_info`; `done` gets the new namespace on the client's
    /// reader thread.
    pub fn spawn_nb(
        &self,
        job_info: &[Info],
        apps: &[App],
        done: impl FnOnce(Result<Nspace>) + Send + 'static,
    ) {
        if self.inner.caps & caps::SPAWN == 0 {
            return done(Err(Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "the server does not offer spawn (protocol version < 5)",
            )));
        }
        let req = request(job_info, apps);
        self.host_request(caps::SPAWN, "spawn", req, nspace_of, Box::new(done));
    }

    /// `PMIx_Spawn`.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for no app, an app without a command or with
    /// `maxprocs` < 1, or a malformed environment directive;
    /// `PMIX_ERR_NOT_SUPPORTED` when the server (protocol < 5) or its host
    /// does not spawn; the host's status otherwise (a missing executable,
    /// too many processes, a child that failed to start).
    pub fn spawn(&self, job_info: &[Info], apps: &[App]) -> Result<Nspace> {
        Self::wait_for(|d| self.spawn_nb(job_info, apps, d))
    }
}
