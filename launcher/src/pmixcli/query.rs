//! `pmix query KEY…`: `PMIx_Query_info` of the keys, with qualifiers.

use clap::Args;
use pmix_core::{Info, Query, Result, Status, Value};

use super::{format, ServerArgs};

/// `pmix query` options.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Query keys (pmix.qry.ns, pmix.qry.ptable, pmix.qry.psets, …).
    #[arg(required = true)]
    pub keys: Vec<String>,
    /// A qualifier KEY=VALUE (a string value), e.g. pmix.nspace=JOB.
    #[arg(long = "qualifier", short = 'q')]
    pub qualifiers: Vec<String>,
}

/// Parses `KEY=VALUE` into a string info.
pub fn key_value(s: &str) -> Result<Info> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| pmix_core::Error::bad_param(format!("{s:?} is not KEY=VALUE")))?;
    Info::new(k, Value::String(v.to_owned()))
}

/// Runs `pmix query`.
///
/// # Errors
/// Attaching failed, or the query (a partial answer is printed, with the
/// status on stderr).
pub fn run(server: &ServerArgs, args: &QueryArgs) -> Result<()> {
    let qualifiers = args
        .qualifiers
        .iter()
        .map(|q| key_value(q))
        .collect::<Result<Vec<_>>>()?;
    let t = server.attach()?;
    let c = t
        .client()
        .ok_or_else(|| pmix_core::Error::with_context(Status::ERR_UNREACH, "not attached"))?;
    let r = c.query_with_status(&[Query {
        keys: args.keys.clone(),
        qualifiers,
    }]);
    let r = r.map(|a| {
        for i in &a.results {
            println!("{}", format::info(i));
        }
        if !a.status.is_success() {
            eprintln!("pmix: {}: some keys were not answered", a.status);
        }
    });
    let _ = t.finalize();
    r
}
