//! `pmix notify CODE --range R`: raise an event.

use clap::{Args, ValueEnum};
use pmix_core::{attrs, DataArray, DataRange, Info, Proc, Rank, Result, Status, Value};

use super::query::key_value;
use super::ServerArgs;

/// The ranges `pmix notify` takes.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Range {
    /// This tool's own process only.
    ProcLocal,
    /// The tool's namespace.
    Namespace,
    /// Every process of the session (this server's jobs, and beyond
    /// through the host).
    Session,
    /// Every process everywhere.
    Global,
    /// The processes --target names.
    Custom,
    /// Processes on this node.
    Local,
}

/// `pmix notify` options.
#[derive(Debug, Args)]
pub struct NotifyArgs {
    /// The event's status code: a number (-3100) or a name (PMIX_ERR_JOB_ABORTED).
    #[arg(allow_hyphen_values = true)]
    pub code: String,
    /// Who receives it.
    #[arg(long, value_enum, default_value = "session")]
    pub range: Range,
    /// A target for --range custom: NSPACE (every rank) or NSPACE:RANK.
    #[arg(long = "target")]
    pub targets: Vec<String>,
    /// An info KEY=VALUE (string) carried by the event.
    #[arg(long = "info")]
    pub infos: Vec<String>,
}

/// A status from a number or a standard name.
pub fn parse_code(s: &str) -> Result<Status> {
    if let Ok(n) = s.parse::<i32>() {
        return Ok(Status(n));
    }
    Status::from_name(s).ok_or_else(|| pmix_core::Error::bad_param(format!("unknown status {s:?}")))
}

fn target(s: &str) -> Result<Proc> {
    let (ns, rank) = match s.rsplit_once(':') {
        Some((ns, r)) => (
            ns,
            Rank(
                r.parse()
                    .map_err(|_| pmix_core::Error::bad_param(format!("bad rank in {s:?}")))?,
            ),
        ),
        None => (s, Rank::WILDCARD),
    };
    Proc::new(ns, rank)
}

/// Runs `pmix notify`.
///
/// # Errors
/// A bad code or target, attaching failed, or the notify.
pub fn run(server: &ServerArgs, args: &NotifyArgs) -> Result<()> {
    let code = parse_code(&args.code)?;
    let range = match args.range {
        Range::ProcLocal => DataRange::PROC_LOCAL,
        Range::Namespace => DataRange::NAMESPACE,
        Range::Session => DataRange::SESSION,
        Range::Global => DataRange::GLOBAL,
        Range::Custom => DataRange::CUSTOM,
        Range::Local => DataRange::LOCAL,
    };
    let mut infos = args
        .infos
        .iter()
        .map(|i| key_value(i))
        .collect::<Result<Vec<_>>>()?;
    if !args.targets.is_empty() {
        let procs = args
            .targets
            .iter()
            .map(|t| target(t))
            .collect::<Result<Vec<_>>>()?;
        infos.push(Info::new(
            attrs::EVENT_CUSTOM_RANGE,
            Value::DataArray(Box::new(DataArray::from_procs(procs))),
        )?);
    } else if matches!(args.range, Range::Custom) {
        return Err(pmix_core::Error::bad_param(
            "--range custom needs at least one --target",
        ));
    }
    let t = server.attach()?;
    let c = t
        .client()
        .ok_or_else(|| pmix_core::Error::with_context(Status::ERR_UNREACH, "not attached"))?;
    let r = c.notify_event(code, range, &infos);
    if r.is_ok() {
        println!("notified {code} ({range}) as {}", t.proc());
    }
    let _ = t.finalize();
    r
}
