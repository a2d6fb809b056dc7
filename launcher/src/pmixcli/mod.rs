//! The `pmix` command: a PMIx tool of our own, built on the public tool
//! API only (`pmix_client::tool`): `pmix ps`, `pmix query`, `pmix events`,
//! `pmix notify`, `pmix info`. The command line is parsed with clap
//! ([`Cli`]); each subcommand is its own file.

mod events;
mod format;
mod info;
mod notify;
mod ps;
mod query;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use pmix_client::tool::{self, Tool};
use pmix_core::{attrs, Error, Info, Status, Value};

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: a PMIx operation failed (the message names it).
pub const EXIT_FAILED: i32 = 1;
/// Exit status: a usage error (clap's).
pub const EXIT_USAGE: i32 = 2;
/// Exit status: no server could be reached (none found, several found
/// without one named, or it is gone).
pub const EXIT_UNREACH: i32 = 3;
/// Exit status: the server belongs to another user.
pub const EXIT_PERMISSION: i32 = 4;

const AFTER_HELP: &str = "\
Examples:
  pmix ps                              every job of every server of yours on this node
  pmix --pid 4242 ps                   the jobs of the pmixrun (or mpirun) of pid 4242
  pmix query pmix.qry.ns               the namespaces one server knows
  pmix query pmix.qry.ptable --qualifier pmix.nspace=run-4242-job
  pmix events --code -3100 --count 1   wait for one event -3100 and print it
  pmix notify -3100 --range session    raise event -3100 for every process
  pmix notify -3100 --range custom --target run-4242-job
  pmix info                            version, capabilities, paths

Which server: --uri, else --pid, else --nspace, else --system, else the only
live one found under --tmpdir (default $PMIX_SERVER_TMPDIR, $TMPDIR, /tmp).

Exit status: 0 success; 1 a PMIx operation failed; 2 usage error; 3 no
server reachable (none, several without one named, or gone); 4 the server
belongs to another user.";

/// The `pmix` command line.
#[derive(Debug, Parser)]
#[command(name = "pmix", version, about = "A PMIx tool for pmix-rs servers: list jobs, query, watch and raise events.", after_help = AFTER_HELP)]
pub struct Cli {
    /// Which server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Which server to attach to.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The server's URI (PMIX_SERVER_URI, as `pmixrun --report-uri` writes it).
    #[arg(long, global = true)]
    pub uri: Option<String>,
    /// The pid of the server's process (PMIX_SERVER_PIDINFO).
    #[arg(long, global = true)]
    pub pid: Option<u32>,
    /// The server's namespace (PMIX_SERVER_NSPACE).
    #[arg(long, global = true)]
    pub nspace: Option<String>,
    /// Attach to this node's system server (PMIX_CONNECT_TO_SYSTEM).
    #[arg(long, global = true)]
    pub system: bool,
    /// Where the rendezvous files are (PMIX_SERVER_TMPDIR).
    #[arg(long, global = true)]
    pub tmpdir: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the jobs and processes of the servers this user can reach
    /// (namespace, rank, pid, state, host).
    Ps(ps::PsArgs),
    /// Ask a server PMIx_Query_info keys (e.g. pmix.qry.ns).
    Query(query::QueryArgs),
    /// Print events as they arrive.
    Events(events::EventsArgs),
    /// Raise an event.
    Notify(notify::NotifyArgs),
    /// Version, capabilities, supported keys, the server's paths.
    Info,
}

impl ServerArgs {
    /// The tool-init directives these options make.
    pub fn infos(&self) -> Vec<Info> {
        let mut v: Vec<(&str, Value)> = Vec::new();
        if let Some(u) = &self.uri {
            v.push((attrs::SERVER_URI, Value::String(u.clone())));
        }
        if let Some(p) = self.pid {
            v.push((attrs::SERVER_PIDINFO, Value::Pid(p as i32)));
        }
        if let Some(n) = &self.nspace {
            v.push((attrs::SERVER_NSPACE, Value::String(n.clone())));
        }
        if self.system {
            v.push((attrs::CONNECT_TO_SYSTEM, Value::Bool(true)));
        }
        if let Some(d) = &self.tmpdir {
            v.push((
                attrs::SERVER_TMPDIR,
                Value::String(d.to_string_lossy().into_owned()),
            ));
        }
        v.into_iter()
            .filter_map(|(k, val)| Info::new(k, val).ok())
            .collect()
    }

    /// Whether a server was named.
    pub fn named(&self) -> bool {
        self.uri.is_some() || self.pid.is_some() || self.nspace.is_some() || self.system
    }

    /// Attaches to the server these options name.
    ///
    /// # Errors
    /// [`Tool::init`]'s.
    pub fn attach(&self) -> pmix_core::Result<Tool> {
        Tool::init(&self.infos())
    }

    /// The directory searched for servers.
    pub fn search_dir(&self) -> PathBuf {
        tool::server_tmpdir(&self.infos())
    }
}

/// The exit status for `e`, with its message on stderr.
pub fn report(e: &Error) -> i32 {
    eprintln!("pmix: {e}");
    exit_code(e.status())
}

/// The exit status for a PMIx status.
pub fn exit_code(s: Status) -> i32 {
    if s == Status::ERR_UNREACH || s == Status::ERR_LOST_CONNECTION {
        EXIT_UNREACH
    } else if s == Status::ERR_NO_PERMISSIONS || s == Status::ERR_INVALID_CRED {
        EXIT_PERMISSION
    } else {
        EXIT_FAILED
    }
}

/// Runs the parsed command; the process's exit status.
pub fn run(cli: &Cli) -> i32 {
    let r = match &cli.command {
        Command::Ps(a) => ps::run(&cli.server, a),
        Command::Query(a) => query::run(&cli.server, a),
        Command::Events(a) => events::run(&cli.server, a),
        Command::Notify(a) => notify::run(&cli.server, a),
        Command::Info => info::run(&cli.server),
    };
    match r {
        Ok(()) => EXIT_OK,
        Err(e) => report(&e),
    }
}
