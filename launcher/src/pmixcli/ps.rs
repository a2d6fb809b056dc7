//! `pmix ps`: every job of every server this user can reach on this node
//! (or of the one named), one line per process.

use clap::Args;
use pmix_client::tool::{self, Tool};
use pmix_client::Client;
use pmix_core::{attrs, Info, Query, Result, Status, Value};

use super::ServerArgs;

/// `pmix ps` options.
#[derive(Debug, Args)]
pub struct PsArgs {
    /// Print only the namespaces, not their processes.
    #[arg(long)]
    pub jobs: bool,
}

fn query(c: &Client, key: &str, qualifiers: Vec<Info>) -> Result<Vec<Info>> {
    c.query(&[Query {
        keys: vec![key.to_owned()],
        qualifiers,
    }])
}

/// The server's job namespaces (without tools', the caller's own).
fn namespaces(c: &Client) -> Result<Vec<String>> {
    let found = query(c, attrs::QUERY_NAMESPACES, Vec::new())?;
    let list = match found.first().map(|i| &i.value) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let me = c.proc().nspace.as_str().to_owned();
    Ok(list
        .split(',')
        .filter(|n| !n.is_empty() && *n != me)
        .map(str::to_owned)
        .collect())
}

fn one_server(t: &Tool, args: &PsArgs) -> Result<()> {
    let c = t
        .client()
        .ok_or_else(|| pmix_core::Error::with_context(Status::ERR_UNREACH, "not attached"))?;
    let srv = t.server().map_or(0, |s| s.rendezvous.pid);
    for ns in namespaces(c)? {
        if args.jobs {
            println!("{srv:>8}  {ns}");
            continue;
        }
        let q = vec![Info::new(attrs::NSPACE, Value::String(ns.clone()))?];
        let table = match query(c, attrs::QUERY_PROC_TABLE, q) {
            Ok(t) => t,
            Err(e) => {
                println!("{srv:>8}  {ns:<30} (no process table: {e})");
                continue;
            }
        };
        for i in &table {
            let Value::DataArray(a) = &i.value else {
                continue;
            };
            for v in a.items() {
                if let Value::ProcInfo(pi) = v {
                    println!(
                        "{srv:>8}  {:<30} {:>6} {:>8}  {:<24} {}",
                        pi.proc.nspace, pi.proc.rank.0, pi.pid, pi.state, pi.hostname
                    );
                }
            }
        }
    }
    Ok(())
}

/// Runs `pmix ps`.
///
/// # Errors
/// Attaching or querying failed.
pub fn run(server: &ServerArgs, args: &PsArgs) -> Result<()> {
    if args.jobs {
        println!("{:>8}  NSPACE", "SERVER");
    } else {
        println!(
            "{:>8}  {:<30} {:>6} {:>8}  {:<24} HOST",
            "SERVER", "NSPACE", "RANK", "PID", "STATE"
        );
    }
    if server.named() {
        let t = server.attach()?;
        let r = one_server(&t, args);
        let _ = t.finalize();
        return r;
    }
    let dir = server.search_dir();
    let servers = tool::live_servers(&dir);
    if servers.is_empty() {
        return Err(pmix_core::Error::with_context(
            Status::ERR_UNREACH,
            format!("no live pmix server found under {}", dir.display()),
        ));
    }
    let mut last = Ok(());
    for e in servers {
        match tool::attach(&e, None) {
            Ok(c) => {
                let t = Tool::from_client(c, e);
                if let Err(err) = one_server(&t, args) {
                    last = Err(err);
                }
                let _ = t.finalize();
            }
            Err(err) => {
                eprintln!("pmix: server pid {}: {err}", e.rendezvous.pid);
                last = Err(err);
            }
        }
    }
    last
}
