//! `PMIx_Connect` / `PMIx_Disconnect` (RFC0003) as
//! [`Client::connect_procs`] / [`Client::disconnect_nspace`] (the plain
//! names `connect` and `disconnect` already name the constructor and the
//! connection's close): requests to the server, which
//! completes them (with its host when they span nodes); each has a
//! blocking form and one completing through a callback on the client's
//! reader thread.
//!
//! A blocking call from an event handler (the progress thread) or from a
//! callback of another request (the reader thread) could never see its
//! reply delivered: it fails at once with `PMIX_ERR_WOULD_BLOCK` instead.

use std::time::Duration;

use pmix_core::proto::connect::{decode_outcome, CONNECT_NSPACE, CONNECT_RANK};
use pmix_core::proto::{canonical_procs, caps, Reply, Request};
use pmix_core::{attrs, Error, Info, Nspace, Proc, Rank, Result, Status, Value};

use crate::{deadline_from, group, Client, Inner};

/// How much longer than its `PMIX_TIMEOUT` a blocking call waits for the
/// server, which times the operation out itself (as for fences).
const SERVER_GRACE: Duration = Duration::from_secs(1);

/// A callback receiving a connect's outcome: the group's namespace and
/// this process's rank in it.
pub type ConnectDone = Box<dyn FnOnce(Result<(Nspace, Rank)>) + Send + 'static>;

fn check_caps(inner: &Inner, what: &str) -> Result<()> {
    if inner.caps & caps::CONNECT == 0 {
        return Err(Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            format!("the server does not offer {what} (protocol version < 5)"),
        ));
    }
    Ok(())
}

/// Refuses a blocking call on a thread that delivers replies.
fn check_may_block(inner: &Inner, what: &str) -> Result<()> {
    let on_progress = inner
        .events
        .as_ref()
        .is_some_and(|e| e.on_progress_thread());
    if on_progress || inner.conn.on_reader_thread() {
        return Err(Error::with_context(
            Status::ERR_WOULD_BLOCK,
            format!(
                "a blocking {what} from an event handler or a completion callback would wait \
                 for ever (that thread delivers its answer); use the _nb form"
            ),
        ));
    }
    Ok(())
}

fn check_connect(inner: &Inner, procs: &[Proc]) -> Result<()> {
    check_caps(inner, "connect")?;
    if procs.is_empty() {
        return Err(Error::bad_param("connect: no participants"));
    }
    if !procs.iter().any(|p| p.matches(&inner.me)) {
        return Err(Error::with_context(
            Status::ERR_NOT_A_MEMBER,
            format!(
                "connect: the caller {:?} is not among the participants",
                inner.me
            ),
        ));
    }
    Ok(())
}

/// One completed connect of this process, kept until its disconnect.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    set: Vec<Proc>,
    id: Option<String>,
    nspace: Nspace,
    rank: Rank,
    /// The group's rank map (from the reply: the job store's copy may come
    /// later).
    ranks: Vec<Proc>,
}

fn id_of(info: &[Info]) -> Option<String> {
    pmix_core::info::find(info, attrs::CONNECT_ID)
        .and_then(|i| i.value.as_str().ok().map(str::to_owned))
}

fn remember(inner: &Inner, procs: &[Proc], info: &[Info], got: &Outcome) {
    let Some(nspace) = &got.nspace else {
        return; // XCHG_ONLY: no group
    };
    let mut v = inner.connects.lock();
    v.push(Record {
        set: canonical_procs(procs.to_vec()),
        id: id_of(info),
        nspace: nspace.clone(),
        rank: got.rank,
        ranks: got.ranks.clone(),
    });
}

/// The rank map of a group this process is a live member of.
pub(crate) fn own_rank_map(inner: &Inner, ns: &str) -> Option<Vec<Proc>> {
    inner
        .connects
        .lock()
        .iter()
        .find(|r| r.nspace.as_str() == ns)
        .map(|r| r.ranks.clone())
}

/// The answer to a `get` of [`CONNECT_NSPACE`] / [`CONNECT_RANK`] on the
/// caller itself, or of `PMIX_JOB_SIZE` of a group of its own (`None`:
/// none of those).
pub(crate) fn answer(
    inner: &Inner,
    proc: &Proc,
    key: &str,
    info: &[Info],
) -> Option<Result<Value>> {
    if key == attrs::JOB_SIZE && proc.rank == Rank::WILDCARD && proc.nspace != inner.me.nspace {
        let size = own_rank_map(inner, proc.nspace.as_str())?.len();
        return Some(Ok(Value::Uint32(u32::try_from(size).unwrap_or(u32::MAX))));
    }
    if key != CONNECT_NSPACE && key != CONNECT_RANK {
        return None;
    }
    if proc != &inner.me && !(proc.nspace == inner.me.nspace && proc.rank == Rank::UNDEF) {
        return Some(Err(Error::bad_param(format!(
            "{key} is kept for the calling process only"
        ))));
    }
    let id = id_of(info);
    let v = inner.connects.lock();
    Some(
        v.iter()
            .rev()
            .find(|r| r.id == id)
            .map(|r| {
                if key == CONNECT_NSPACE {
                    Value::String(r.nspace.as_str().to_owned())
                } else {
                    Value::Rank(r.rank)
                }
            })
            .ok_or_else(|| {
                Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("{key}: no completed connect with PMIX_CONNECT_ID {id:?}"),
                )
            }),
    )
}

/// A `CONNECT` reply as this process sees it.
struct Outcome {
    /// `None` for `PMIX_CONNECT_XCHG_ONLY`.
    nspace: Option<Nspace>,
    rank: Rank,
    ranks: Vec<Proc>,
}

impl Outcome {
    /// What the API returns: with `PMIX_CONNECT_XCHG_ONLY` there is no
    /// group: the caller's own namespace and `PMIX_RANK_UNDEF`.
    fn public(&self, inner: &Inner) -> (Nspace, Rank) {
        match &self.nspace {
            Some(ns) => (ns.clone(), self.rank),
            None => (inner.me.nspace.clone(), Rank::UNDEF),
        }
    }
}

/// The caller's view of a `CONNECT` reply.
fn outcome(inner: &Inner, r: Reply) -> Result<Outcome> {
    let v = r.into_result()?.ok_or_else(|| {
        Error::with_context(Status::ERR_UNPACK_FAILURE, "connect reply without outcome")
    })?;
    let (nspace, ranks) = decode_outcome(&v)?;
    let rank = match nspace {
        None => Rank::UNDEF,
        Some(_) => ranks
            .iter()
            .position(|p| p == &inner.me)
            .and_then(|i| u32::try_from(i).ok())
            .map_or(Rank::UNDEF, Rank),
    };
    Ok(Outcome {
        nspace,
        rank,
        ranks,
    })
}

impl Client {
    /// `PMIx_Connect_nb` (RFC0003): connects with `procs` (order does not
    /// matter; `PMIX_RANK_WILDCARD` = a whole namespace); `done` gets the
    /// group's namespace and this process's rank in it (its index in the
    /// canonical order of the participants). `info`: `PMIX_CONNECT_ID`,
    /// `PMIX_TIMEOUT`, `PMIX_CONNECT_OPTIONAL`, `PMIX_CONNECT_XCHG_ONLY`,
    /// `PMIX_CONNECT_NOTIFY_EACH`, `PMIX_CONNECT_NOTIFY_REQ`,
    /// `PMIX_CONNECT_EARLY_TERM_ALLOWED`.
    pub fn connect_procs_nb(
        &self,
        procs: &[Proc],
        info: &[Info],
        done: impl FnOnce(Result<(Nspace, Rank)>) + Send + 'static,
    ) {
        if let Err(e) = check_connect(&self.inner, procs) {
            return done(Err(e));
        }
        let req = Request::Connect {
            procs: group::translate(&self.inner, procs),
            info: info.to_vec(),
        };
        let inner = std::sync::Arc::clone(&self.inner);
        let (procs, info) = (procs.to_vec(), info.to_vec());
        self.inner.conn.send(
            &req,
            Box::new(move |r| {
                let r = outcome(&inner, r).map(|got| {
                    remember(&inner, &procs, &info, &got);
                    got.public(&inner)
                });
                done(r)
            }),
        );
    }

    /// `PMIx_Connect`: [`connect_procs_nb`](Self::connect_procs_nb), waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` for no procs; `PMIX_ERR_NOT_A_MEMBER` when the
    /// caller is not among them; `PMIX_ERR_TIMEOUT` when `PMIX_TIMEOUT`
    /// passed first (for every waiting participant); `PMIX_ERR_PROC_ABORTED`
    /// when a participant ended before arriving; `PMIX_ERR_WOULD_BLOCK`
    /// from an event handler.
    pub fn connect_procs(&self, procs: &[Proc], info: &[Info]) -> Result<(Nspace, Rank)> {
        check_connect(&self.inner, procs)?;
        check_may_block(&self.inner, "connect")?;
        let deadline = deadline_from(info)?;
        let req = Request::Connect {
            procs: group::translate(&self.inner, procs),
            info: info.to_vec(),
        };
        let r = self
            .inner
            .conn
            .request(&req, deadline.map(|d| d + SERVER_GRACE))?;
        let got = outcome(&self.inner, r)?;
        remember(&self.inner, procs, info, &got);
        Ok(got.public(&self.inner))
    }

    /// `PMIx_Disconnect_nb`: leaves group `nspace` once every member left.
    pub fn disconnect_nspace_nb(
        &self,
        nspace: &Nspace,
        info: &[Info],
        done: impl FnOnce(Result<()>) + Send + 'static,
    ) {
        if let Err(e) = check_caps(&self.inner, "disconnect") {
            return done(Err(e));
        }
        let req = Request::Disconnect {
            nspace: nspace.as_str().to_owned(),
            info: info.to_vec(),
        };
        let inner = std::sync::Arc::clone(&self.inner);
        let ns = nspace.clone();
        self.inner.conn.send(
            &req,
            Box::new(move |r| {
                let r = r.into_result().map(|_| ());
                if r.is_ok() {
                    inner.connects.lock().retain(|c| c.nspace != ns);
                }
                done(r)
            }),
        );
    }

    /// `PMIx_Disconnect`: [`disconnect_nspace_nb`](Self::disconnect_nspace_nb), waiting.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` for a namespace no connect made (or already
    /// disconnected); `PMIX_ERR_NOT_A_MEMBER` for a group the caller is
    /// not in; `PMIX_ERR_TIMEOUT`; `PMIX_ERR_WOULD_BLOCK` from an event
    /// handler.
    pub fn disconnect_nspace(&self, nspace: &Nspace, info: &[Info]) -> Result<()> {
        check_caps(&self.inner, "disconnect")?;
        check_may_block(&self.inner, "disconnect")?;
        let deadline = deadline_from(info)?;
        let req = Request::Disconnect {
            nspace: nspace.as_str().to_owned(),
            info: info.to_vec(),
        };
        self.inner
            .conn
            .request(&req, deadline.map(|d| d + SERVER_GRACE))?
            .into_result()?;
        self.inner.connects.lock().retain(|c| c.nspace != *nspace);
        Ok(())
    }

    /// The namespace of this process's live connect over `procs` (any
    /// order; wildcards as given to the connect) with the
    /// `PMIX_CONNECT_ID` of `info`: what the 4.2 `PMIx_Disconnect`, which
    /// names the procs rather than the group, disconnects from.
    pub fn connected_nspace(&self, procs: &[Proc], info: &[Info]) -> Option<Nspace> {
        let set = canonical_procs(group::translate(&self.inner, procs));
        let id = id_of(info);
        // A copy of the candidates: translating a set reads the records
        // again (a group's rank map), so the lock is not held meanwhile.
        let candidates: Vec<(Vec<Proc>, Nspace)> = self
            .inner
            .connects
            .lock()
            .iter()
            .rev()
            .filter(|r| r.id == id)
            .map(|r| (r.set.clone(), r.nspace.clone()))
            .collect();
        candidates
            .into_iter()
            .find(|(s, _)| canonical_procs(group::translate(&self.inner, s)) == set)
            .map(|(_, ns)| ns)
    }

    /// The rank map of a group this process connected to (index = rank),
    /// as the job store holds it; `None` for a namespace no connect made.
    pub fn group_members(&self, nspace: &Nspace) -> Option<Vec<Proc>> {
        group::rank_map(&self.inner, nspace.as_str())
    }
}
