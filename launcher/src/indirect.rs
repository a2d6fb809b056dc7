//! Indirect launch (`PMIX_LAUNCHER_RNDZ_URI`): a tool that starts pmixrun
//! names, in that environment variable, the URI of a PMIx server it runs
//! itself. pmixrun then connects back to it as a tool before it starts
//! its job:
//!
//! 1. it attaches to that server (`Tool::init` with `PMIX_SERVER_URI`;
//!    the tool's host gives it its identity),
//! 2. raises `PMIX_LAUNCHER_READY` (range `PMIX_RANGE_RM`: the event
//!    reaches the tool's host),
//! 3. reads `PMIX_LAUNCH_DIRECTIVES` (an info array) from its own
//!    namespace's job data, which the tool registered before it started
//!    pmixrun, and applies the environment directives among them
//!    (`PMIX_SET_ENVAR`, `PMIX_ADD_ENVAR`, `PMIX_UNSET_ENVAR`,
//!    `PMIX_PREPEND_ENVAR`, `PMIX_APPEND_ENVAR`) to the job's ranks,
//! 4. once the job is started, raises `PMIX_LAUNCH_COMPLETE` with
//!    `PMIX_NSPACE` naming the job's namespace,
//!
//! and stays attached until it exits.

use pmix_client::tool::Tool;
use pmix_core::{attrs, DataRange, Info, Nspace, Proc, Rank, Status, Value};

/// The environment variable naming the tool's server.
pub(crate) const RNDZ_URI: &str = "PMIX_LAUNCHER_RNDZ_URI";

/// pmixrun attached to the tool that started it.
pub(crate) struct Rendezvous {
    tool: Tool,
}

impl std::fmt::Debug for Rendezvous {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rendezvous").finish_non_exhaustive()
    }
}

impl Rendezvous {
    /// Steps 1–3 when `PMIX_LAUNCHER_RNDZ_URI` is set: the rendezvous and
    /// the tool's launch directives; `None` when it is not set.
    ///
    /// # Errors
    /// A message naming the URI when the tool cannot be reached or the
    /// event cannot be raised.
    pub(crate) fn connect_back() -> Result<Option<(Rendezvous, Vec<Info>)>, String> {
        let Ok(uri) = std::env::var(RNDZ_URI) else {
            return Ok(None);
        };
        let at = |e: pmix_core::Error| format!("{RNDZ_URI}={uri}: {e}");
        let info = Info::new(attrs::SERVER_URI, Value::String(uri.clone())).map_err(at)?;
        let tool = Tool::init(&[info]).map_err(at)?;
        let c = tool
            .client()
            .ok_or_else(|| format!("{RNDZ_URI}={uri}: the tool's server did not connect"))?;
        c.notify_event(Status::LAUNCHER_READY, DataRange::RM, &[])
            .map_err(at)?;
        let job = Proc::from_parts(c.proc().nspace.clone(), Rank::WILDCARD);
        let directives = match c.get(&job, attrs::LAUNCH_DIRECTIVES, &[]) {
            Ok(Value::DataArray(a)) => a.infos().map_err(at)?.into_iter().cloned().collect(),
            Ok(v) => {
                return Err(format!(
                    "{RNDZ_URI}={uri}: PMIX_LAUNCH_DIRECTIVES is a {}, not an info array",
                    v.data_type()
                ))
            }
            Err(e) if e.status() == Status::ERR_NOT_FOUND => Vec::new(),
            Err(e) => return Err(at(e)),
        };
        Ok(Some((Rendezvous { tool }, directives)))
    }

    /// Step 4: the job `nspace` is started.
    pub(crate) fn launched(&self, nspace: &Nspace) {
        let Some(c) = self.tool.client() else { return };
        let info = Info::new(attrs::NSPACE, Value::String(nspace.as_str().to_owned()));
        if let Ok(i) = info {
            if let Err(e) = c.notify_event(Status::LAUNCH_COMPLETE, DataRange::RM, &[i]) {
                eprintln!("pmixrun: cannot tell the tool that {nspace} launched: {e}");
            }
        }
    }

    /// Detaches from the tool.
    pub(crate) fn finish(self) {
        let _ = self.tool.finalize();
    }
}
