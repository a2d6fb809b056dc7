//! `PMIx_Query_info`: the keys this library can answer itself
//! (`PMIX_QUERY_ATTRIBUTE_SUPPORT` for the client functions) it answers;
//! the rest go to the server in one `QUERY` request (protocol version 5),
//! which answers what it holds and asks its host for the rest. The answers
//! come back flat, one info per answered key in the order asked, with
//! `SUCCESS` (all answered), `PMIX_ERR_PARTIAL_SUCCESS` (some) or
//! `PMIX_ERR_NOT_FOUND` (none). A key missing its required qualifier is
//! `PMIX_ERR_BAD_PARAM`; a server older than version 5 cannot answer, so
//! keys only it could answer are `PMIX_ERR_NOT_SUPPORTED` when nothing
//! else was answered.

mod support;

use pmix_core::proto::{caps, query as wire, Request};
use pmix_core::{attrs, Error, Info, Query, Result, Status, Value};

use crate::Client;

/// The outcome of a query: its status (`SUCCESS` or
/// `PMIX_ERR_PARTIAL_SUCCESS`) and the answers.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryAnswer {
    /// `SUCCESS` when every key was answered, else
    /// `PMIX_ERR_PARTIAL_SUCCESS`.
    pub status: Status,
    /// One info per answered key, keyed by the query key, in the order
    /// asked.
    pub results: Vec<Info>,
}

/// One asked key and its answer, if any yet.
struct Slot {
    key: String,
    value: Option<Value>,
}

fn flag(quals: &[Info], key: &str) -> bool {
    quals
        .iter()
        .any(|i| i.is(key) && !matches!(i.value, Value::Bool(false)))
}

fn string_qual<'a>(quals: &'a [Info], key: &str) -> Option<&'a str> {
    quals
        .iter()
        .find(|i| i.is(key))
        .and_then(|i| match &i.value {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        })
}

/// `PMIX_QUERY_ATTRIBUTE_SUPPORT` for the client functions: with
/// `PMIX_CLIENT_ATTRIBUTES` (comma-separated function names, `all`: every
/// one) an array of infos, function → comma-separated attributes; with
/// `PMIX_CLIENT_FUNCTIONS` or no qualifier, the functions
/// (comma-separated). Server, tool and host functions are not known here.
fn attribute_support(agreed: u64, quals: &[Info]) -> Option<Value> {
    let offered = support::CLIENT_FUNCTIONS
        .iter()
        .filter(|f| f.needs & agreed == f.needs);
    if let Some(which) = string_qual(quals, attrs::CLIENT_ATTRIBUTES) {
        let wanted: Vec<&str> = which.split(',').map(str::trim).collect();
        let infos: Vec<Info> = offered
            .filter(|f| wanted.contains(&"all") || wanted.contains(&f.name))
            .filter_map(|f| Info::new(f.name, Value::String(f.attrs.join(","))).ok())
            .collect();
        return Some(Value::DataArray(Box::new(
            pmix_core::DataArray::from_infos(infos),
        )));
    }
    let other = [
        attrs::SERVER_FUNCTIONS,
        attrs::TOOL_FUNCTIONS,
        attrs::HOST_FUNCTIONS,
        attrs::SERVER_ATTRIBUTES,
        attrs::TOOL_ATTRIBUTES,
        attrs::HOST_ATTRIBUTES,
    ];
    if quals.iter().any(|i| other.iter().any(|k| i.is(k))) && !flag(quals, attrs::CLIENT_FUNCTIONS)
    {
        return None;
    }
    let names: Vec<&str> = offered.map(|f| f.name).collect();
    Some(Value::String(names.join(",")))
}

/// The PMIx Standard ABI levels this library offers, stable and
/// provisional ("MAJOR.MINOR"): the Standard defines no ABI yet, so
/// "0.0", as OpenPMIx 4.2 answers.
pub const STD_ABI_VERSIONS: (&str, &str) = ("0.0", "0.0");

/// The keys the library answers without a server, before init too.
fn answer_without_server(key: &str) -> Option<Value> {
    match key {
        attrs::QUERY_STABLE_ABI_VERSION => Some(Value::String(STD_ABI_VERSIONS.0.into())),
        attrs::QUERY_PROVISIONAL_ABI_VERSION => Some(Value::String(STD_ABI_VERSIONS.1.into())),
        _ => None,
    }
}

/// `queries` answered without a client, when every key can be
/// (`PMIX_QUERY_STABLE_ABI_VERSION`, `PMIX_QUERY_PROVISIONAL_ABI_VERSION`:
/// `PMIx_Query_info` works for them before `PMIx_Init`); `None` when some
/// key needs a server.
pub fn query_without_server(queries: &[Query]) -> Option<QueryAnswer> {
    let mut results = Vec::new();
    for k in queries.iter().flat_map(|q| &q.keys) {
        results.push(Info::new(k.as_str(), answer_without_server(k)?).ok()?);
    }
    (!results.is_empty()).then_some(QueryAnswer {
        status: Status::SUCCESS,
        results,
    })
}

/// What the library answers itself for `key`.
fn answer_locally(agreed: u64, key: &str, quals: &[Info]) -> Option<Value> {
    match key {
        attrs::QUERY_ATTRIBUTE_SUPPORT => attribute_support(agreed, quals),
        _ => answer_without_server(key),
    }
}

/// The outcome for `slots` once nothing more will come.
fn finish(slots: Vec<Slot>, server_missing: bool) -> Result<QueryAnswer> {
    let asked = slots.len();
    let results: Vec<Info> = slots
        .into_iter()
        .filter_map(|s| s.value.and_then(|v| Info::new(s.key.as_str(), v).ok()))
        .collect();
    let status = wire::overall_status(asked, results.len());
    if status == Status::ERR_NOT_FOUND {
        return Err(if server_missing {
            Error::with_context(
                Status::ERR_NOT_SUPPORTED,
                "query: the server speaks a protocol older than version 5 and cannot answer",
            )
        } else {
            Error::with_context(Status::ERR_NOT_FOUND, "query: no key could be answered")
        });
    }
    Ok(QueryAnswer { status, results })
}

impl Client {
    /// `PMIx_Query_info_nb`: answers `queries` and hands the outcome to
    /// `done` (inline, or on the reader thread when the server answers).
    ///
    /// Errors passed to `done`: `PMIX_ERR_BAD_PARAM` for no keys or a key
    /// missing its required qualifier (`PMIX_NSPACE` for proc tables,
    /// `PMIX_PSET_NAME` for a set's membership); `PMIX_ERR_NOT_FOUND`
    /// when nothing could be answered; `PMIX_ERR_NOT_SUPPORTED` when only
    /// a server older than protocol version 5 could have answered.
    pub fn query_nb(
        &self,
        queries: &[Query],
        done: impl FnOnce(Result<QueryAnswer>) + Send + 'static,
    ) {
        if let Err(e) = wire::check_queries(queries) {
            return done(Err(e));
        }
        let agreed = self.inner.caps;
        let mut slots = Vec::new();
        let mut remote = Vec::new();
        for q in queries {
            let refresh = flag(&q.qualifiers, attrs::QUERY_REFRESH_CACHE);
            let mut left = Query {
                keys: Vec::new(),
                qualifiers: q.qualifiers.clone(),
            };
            for k in &q.keys {
                let value = if refresh && k != attrs::QUERY_ATTRIBUTE_SUPPORT {
                    None
                } else {
                    answer_locally(agreed, k, &q.qualifiers)
                };
                if value.is_none() {
                    left.keys.push(k.clone());
                }
                slots.push(Slot {
                    key: k.clone(),
                    value,
                });
            }
            if !left.keys.is_empty() {
                remote.push(left);
            }
        }
        if remote.is_empty() {
            return done(finish(slots, false));
        }
        if agreed & caps::QUERY == 0 {
            return done(finish(slots, true));
        }
        let req = Request::Query { queries: remote };
        self.inner.conn.send(
            &req,
            Box::new(move |reply| {
                let status = reply.status;
                if !(status.is_success()
                    || status == Status::ERR_PARTIAL_SUCCESS
                    || status == Status::ERR_NOT_FOUND)
                {
                    return done(reply.into_result().map(|_| QueryAnswer {
                        status,
                        results: Vec::new(),
                    }));
                }
                match wire::decode_results(reply.value.as_ref()) {
                    Ok(answers) => {
                        for a in answers {
                            if let Some(s) =
                                slots.iter_mut().find(|s| s.value.is_none() && a.is(&s.key))
                            {
                                s.value = Some(a.value);
                            }
                        }
                        done(finish(slots, false));
                    }
                    Err(e) => done(Err(e)),
                }
            }),
        );
    }

    /// `PMIx_Query_info`, with its status: `SUCCESS` or
    /// `PMIX_ERR_PARTIAL_SUCCESS` (the answers that exist are kept).
    ///
    /// # Errors
    /// As [`query_nb`](Self::query_nb).
    pub fn query_with_status(&self, queries: &[Query]) -> Result<QueryAnswer> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.query_nb(queries, move |r| {
            let _ = tx.send(r);
        });
        rx.recv().unwrap_or_else(|_| {
            Err(Error::with_context(
                Status::ERR_LOST_CONNECTION,
                "no answer from the server",
            ))
        })
    }

    /// `get` of `PMIX_PSET_MEMBERS` qualified by `PMIX_PSET_NAME`: the
    /// members of that process set (an array of procs), asked of the
    /// server as `PMIX_QUERY_PSET_MEMBERSHIP`.
    pub(crate) fn pset_members(&self, info: &[Info]) -> Result<Value> {
        let name = string_qual(info, attrs::PSET_NAME).ok_or_else(|| {
            Error::bad_param("get of PMIX_PSET_MEMBERS needs a PMIX_PSET_NAME qualifier")
        })?;
        let q = Query {
            keys: vec![attrs::QUERY_PSET_MEMBERSHIP.into()],
            qualifiers: vec![Info::new(attrs::PSET_NAME, Value::String(name.into()))?],
        };
        self.query(&[q])?
            .into_iter()
            .next()
            .map(|i| i.value)
            .ok_or_else(|| {
                Error::with_context(Status::ERR_NOT_FOUND, format!("no process set {name:?}"))
            })
    }

    /// `PMIx_Query_info`: the answers, one info per answered key in the
    /// order asked. Some keys unanswered (`PMIX_ERR_PARTIAL_SUCCESS`) still
    /// returns the others; [`query_with_status`](Self::query_with_status)
    /// tells the two apart.
    ///
    /// # Errors
    /// As [`query_nb`](Self::query_nb).
    ///
    /// # Examples
    /// ```no_run
    /// # fn f(client: &pmix_client::Client) -> pmix_core::Result<()> {
    /// use pmix_core::{attrs, Query};
    /// let q = Query { keys: vec![attrs::QUERY_NAMESPACES.into()], qualifiers: vec![] };
    /// let answers = client.query(&[q])?;
    /// println!("{:?}", answers[0].value);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "PMIx_Query_info")]
    pub fn query(&self, queries: &[Query]) -> Result<Vec<Info>> {
        self.query_with_status(queries).map(|a| a.results)
    }
}
