//! put / commit / get.

use std::time::{Duration, Instant};

use pmix_core::codec;
use pmix_core::proto::{self, caps, keys, peer_state, Request};
use pmix_core::{attrs, Error, Info, Key, Proc, Rank, Result, Scope, Status, Value};
use pmix_shm::sync::Ordering;
use pmix_shm::TableBuilder;

use crate::{deadline_from, flag, peers, Inner, PutEntry};

pub(crate) fn put(inner: &Inner, scope: Scope, key: &str, value: Value) -> Result<()> {
    let k = Key::new_data_key(key)?;
    if k.is_reserved() {
        return Err(Error::bad_param(format!(
            "{key}: keys starting with \"pmix.\" are reserved"
        )));
    }
    if !matches!(scope, Scope::LOCAL | Scope::REMOTE | Scope::GLOBAL) {
        return Err(Error::bad_param(format!(
            "put scope must be LOCAL, REMOTE or GLOBAL, not {scope}"
        )));
    }
    let mut puts = inner.puts.lock();
    puts.retain(|p| p.key != key);
    puts.push(PutEntry {
        key: key.to_owned(),
        scope,
        value,
    });
    Ok(())
}

pub(crate) fn commit(inner: &Inner) -> Result<()> {
    let puts = inner.puts.lock().clone();
    let mut modex = inner.modex.lock();
    if let Some(w) = modex.as_mut() {
        let (ns, r) = (inner.me.nspace.as_str(), inner.me.rank.0);
        let mut t = TableBuilder::new();
        for p in &puts {
            t.insert(ns, r, &p.key, proto::encode_modex_value(p.scope, &p.value));
        }
        w.publish(t).map_err(|e| {
            let e = Error::from(e);
            Error::with_context(
                Status::ERR_OUT_OF_RESOURCE,
                format!("commit: the card does not fit the modex store: {e}"),
            )
        })?;
        return Ok(());
    }
    drop(modex);
    if inner.caps & caps::SOCKET_COMMIT == 0 {
        return Err(Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            "the server offers no way to commit (no SHM_MODEX or SOCKET_COMMIT)",
        ));
    }
    // The server refuses reserved keys over the socket: a programming-model
    // declaration stays in this process (and its peers do not see it).
    let entries = puts
        .into_iter()
        .filter(|p| !crate::model::is_declared_key(&p.key))
        .map(|p| (p.key, p.scope.0, p.value))
        .collect();
    inner
        .conn
        .request(&Request::Commit { entries }, None)?
        .into_result()
        .map(|_| ())
}

fn decode(bytes: &[u8]) -> Option<Value> {
    codec::decode_value(bytes).ok()
}

/// Where a local peer's data stands.
enum Peer {
    Found(Value),
    /// Put with scope REMOTE: never visible on this node.
    OutsideScope,
    /// It can commit no more: finalized, dead, or its slot was freed.
    Ended,
    /// Not committed (yet) and still running, or not started yet.
    Pending,
}

fn peer_lookup(inner: &Inner, proc: &Proc, slot: u32, key: &str) -> Peer {
    let Some(r) = peers::store(inner, slot) else {
        return Peer::Ended;
    };
    // The state before the store: a peer's last commit happens before the
    // server marks it finalized, dead or free (this Acquire load pairs with
    // the server's Release store), so the lookup below already sees every
    // commit when the state says `Ended`.
    let state = peers::state(inner, slot);
    let found = r
        .with(proc.nspace.as_str(), proc.rank.0, key, |b| {
            proto::decode_modex_value(b).ok()
        })
        .flatten();
    match found {
        Some((scope, _)) if scope == Scope::REMOTE => Peer::OutsideScope,
        Some((_, v)) => Peer::Found(v),
        None if matches!(
            state,
            peer_state::FINALIZED | peer_state::DEAD | peer_state::FREE
        ) =>
        {
            Peer::Ended
        }
        None => Peer::Pending,
    }
}

fn not_found(proc: &Proc, key: &str, why: &str) -> Error {
    Error::with_context(
        Status::ERR_NOT_FOUND,
        format!(
            "{key} not found for {}:{}{why}",
            proc.nspace.as_str(),
            rank_name(proc.rank)
        ),
    )
}

fn timed_out(proc: &Proc, key: &str) -> Error {
    Error::with_context(
        Status::ERR_TIMEOUT,
        format!(
            "{key} of {}:{} was not committed before PMIX_TIMEOUT",
            proc.nspace.as_str(),
            rank_name(proc.rank)
        ),
    )
}

fn rank_name(r: Rank) -> String {
    match r {
        Rank::WILDCARD => "*".into(),
        Rank::UNDEF => "undef".into(),
        r => r.0.to_string(),
    }
}

/// Where a valid rank's data is, from one pin of the job table.
enum Located {
    /// In the job store: a remote proc's imported card, or the card a
    /// departed local proc left behind.
    Value(Value),
    /// A local proc's client slot.
    Slot(u32),
    /// Neither: a remote proc (or a departed local one) — the server knows.
    Elsewhere,
}

fn locate(inner: &Inner, proc: &Proc, key: &str) -> Located {
    let (ns, rank) = (proc.nspace.as_str(), proc.rank.0);
    match inner.job.pin() {
        Ok(t) => match t.get(ns, rank, keys::SLOT).and_then(decode) {
            Some(Value::Uint32(s)) => Located::Slot(s),
            _ => t
                .get(ns, rank, key)
                .and_then(decode)
                .map_or(Located::Elsewhere, Located::Value),
        },
        Err(_) => Located::Elsewhere,
    }
}

/// The longest sleep of the local-peer wait loop.
const MAX_BACKOFF: Duration = Duration::from_millis(2);

/// Everything `get` looks at, with the rules of docs/GET-RULES.md.
pub(crate) fn get(inner: &Inner, proc: &Proc, key: &str, info: &[Info]) -> Result<Value> {
    pmix_core::proc::check_data_key(key)?;
    let reserved = pmix_core::proc::is_reserved_key(key);
    let (optional, immediate, refresh, deadline) = if info.is_empty() {
        (false, false, false, None)
    } else {
        (
            flag(info, attrs::OPTIONAL),
            flag(info, attrs::IMMEDIATE),
            flag(info, attrs::GET_REFRESH_CACHE),
            deadline_from(info)?,
        )
    };
    if let Some(r) = crate::connect::answer(inner, proc, key, info) {
        return r;
    }
    match crate::node_get::answer(inner, proc, key, info) {
        Some(crate::node_get::NodeGet::Answer(r)) => return r,
        Some(crate::node_get::NodeGet::ThisNode(rest)) => return get(inner, proc, key, &rest),
        None => {}
    }
    let qualifiers = pmix_core::proto::group::qualifiers_of(info);
    if !qualifiers.is_empty() {
        return qualified_get(inner, proc, key, &qualifiers);
    }
    let ns = proc.nspace.as_str();
    // A member of a connected group: its real process's data (the group's
    // own job level, JOB_SIZE and the like, is in the job store).
    if !reserved {
        if let Some(real) = crate::group::real_proc(inner, proc) {
            return get(inner, &real, key, info);
        }
    }

    // ORDERING: Relaxed — a hint that skips the lock when nothing was ever
    // stored; the lock orders the contents.
    if !refresh && inner.has_internal.load(Ordering::Relaxed) {
        if let Some(v) = inner
            .internal
            .lock()
            .iter()
            .find(|(p, kk, _)| p == proc && kk == key)
            .map(|(_, _, v)| v.clone())
        {
            return Ok(v);
        }
    }
    let rank = proc.rank;
    // Own data, committed or not (reserved keys are never put). Nobody
    // else can put it: a miss is final.
    if !reserved && (proc == &inner.me || (rank == Rank::UNDEF && proc.nspace == inner.me.nspace)) {
        if let Some(p) = inner.puts.lock().iter().find(|p| p.key == key) {
            return Ok(p.value.clone());
        }
        if proc == &inner.me {
            return Err(not_found(proc, key, " (never put by this process)"));
        }
    }
    if rank == Rank::WILDCARD || (rank == Rank::UNDEF && reserved) {
        if let Some(v) = peers::job_value(inner, ns, Rank::WILDCARD.0, key) {
            return Ok(v);
        }
        return server_or_not_found(inner, proc, key, info, optional, deadline, refresh);
    }
    if rank == Rank::UNDEF {
        return get_any_rank(inner, proc, key, info, optional, deadline);
    }
    if !rank.is_valid() {
        return Err(Error::bad_param(format!(
            "get: rank {} is not valid here",
            rank.0
        )));
    }
    if reserved && crate::model::is_declared_key(key) {
        // A programming-model declaration: the proc's own card.
        if proc == &inner.me {
            return crate::model::own(inner, proc, key);
        }
        return peer_get(inner, proc, key, info, true, deadline);
    }
    if reserved {
        // Reserved keys: a proc-level miss falls back to the job level.
        let found = inner.job.pin().ok().and_then(|t| {
            t.get(ns, rank.0, key)
                .or_else(|| t.get(ns, Rank::WILDCARD.0, key))
                .and_then(decode)
        });
        if let Some(v) = found {
            return Ok(v);
        }
        return server_or_not_found(inner, proc, key, info, optional, deadline, refresh);
    }
    peer_get(
        inner,
        proc,
        key,
        info,
        optional || immediate || refresh,
        deadline,
    )
}

/// A `get` whose directives carry qualifiers (`PMIX_INFO_QUALIFIER`):
/// the value stored for `key` under exactly those qualifiers
/// (`proto::group::qualified_key`; the server stores a group's
/// `PMIX_GROUP_INFO` so), at the proc, else at its job level.
fn qualified_get(
    inner: &Inner,
    proc: &Proc,
    key: &str,
    qualifiers: &[(&str, &Value)],
) -> Result<Value> {
    let real = crate::group::real_proc(inner, proc).unwrap_or_else(|| proc.clone());
    let qkey = pmix_core::proto::group::qualified_key(key, qualifiers);
    let ns = real.nspace.as_str();
    peers::job_value(inner, ns, real.rank.0, &qkey)
        .or_else(|| peers::job_value(inner, ns, Rank::WILDCARD.0, &qkey))
        .ok_or_else(|| {
            let q: Vec<&str> = qualifiers.iter().map(|(k, _)| *k).collect();
            not_found(&real, key, &format!(" with the qualifiers {q:?}"))
        })
}

/// A non-reserved key of another rank: shared memory for a local peer
/// (waiting for its commit unless `no_wait`), the server for the others.
fn peer_get(
    inner: &Inner,
    proc: &Proc,
    key: &str,
    info: &[Info],
    no_wait: bool,
    deadline: Option<Instant>,
) -> Result<Value> {
    let mut backoff = Duration::from_micros(20);
    loop {
        // The job table again each round: a peer that leaves moves its card
        // there and gives its slot up.
        let slot = match locate(inner, proc, key) {
            Located::Value(v) => return Ok(v),
            Located::Elsewhere if no_wait => return Err(not_found(proc, key, "")),
            Located::Elsewhere => return server_get(inner, proc, key, info, deadline),
            Located::Slot(s) => s,
        };
        match peer_lookup(inner, proc, slot, key) {
            Peer::Found(v) => return Ok(v),
            Peer::OutsideScope => {
                return Err(not_found(
                    proc,
                    key,
                    " on this node (put with scope REMOTE)",
                ))
            }
            Peer::Ended => {
                // Its card may just have moved to the job store.
                if let Located::Value(v) = locate(inner, proc, key) {
                    return Ok(v);
                }
                return Err(not_found(proc, key, " (the proc can commit no more)"));
            }
            Peer::Pending if no_wait => return Err(not_found(proc, key, " (not committed yet)")),
            Peer::Pending => {}
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(timed_out(proc, key));
        }
        if inner.conn.is_lost() {
            return Err(Error::with_context(
                Status::ERR_LOST_CONNECTION,
                format!(
                    "get {key} of {}:{}: the connection to the server is lost",
                    proc.nspace.as_str(),
                    rank_name(proc.rank)
                ),
            ));
        }
        let nap = deadline.map_or(backoff, |d| {
            backoff.min(d.saturating_duration_since(Instant::now()))
        });
        std::thread::sleep(nap);
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// Rank `UNDEF` with a non-reserved key: the first local proc of the
/// namespace that has it.
fn get_any_rank(
    inner: &Inner,
    proc: &Proc,
    key: &str,
    info: &[Info],
    optional: bool,
    deadline: Option<Instant>,
) -> Result<Value> {
    let ns = proc.nspace.as_str();
    let size = peers::job_value(inner, ns, Rank::WILDCARD.0, attrs::JOB_SIZE)
        .and_then(|v| v.to_u64().ok())
        .unwrap_or(0);
    for r in 0..size.min(u64::from(Rank::VALID.0)) {
        let p = Proc::from_parts(proc.nspace.clone(), Rank(r as u32));
        if let Some(v) = peers::job_value(inner, ns, p.rank.0, key) {
            return Ok(v);
        }
        if let Some(slot) = peers::slot_of(inner, &p) {
            if let Peer::Found(v) = peer_lookup(inner, &p, slot, key) {
                return Ok(v);
            }
        }
    }
    server_or_not_found(inner, proc, key, info, optional, deadline, false)
}

/// A miss in shared memory: ask the server when that can help.
fn server_or_not_found(
    inner: &Inner,
    proc: &Proc,
    key: &str,
    info: &[Info],
    optional: bool,
    deadline: Option<Instant>,
    ask: bool,
) -> Result<Value> {
    let known =
        peers::job_value(inner, proc.nspace.as_str(), Rank::WILDCARD.0, keys::BARRIER).is_some();
    if optional || (known && !ask) {
        return Err(not_found(proc, key, ""));
    }
    server_get(inner, proc, key, info, deadline)
}

fn server_get(
    inner: &Inner,
    proc: &Proc,
    key: &str,
    info: &[Info],
    deadline: Option<Instant>,
) -> Result<Value> {
    if inner.caps & caps::DIRECT_MODEX == 0 {
        return Err(not_found(proc, key, " (the server offers no direct modex)"));
    }
    let req = Request::Get {
        proc: proc.clone(),
        key: key.to_owned(),
        info: info.to_vec(),
    };
    match inner.conn.request(&req, deadline) {
        Ok(r) => r.into_result()?.ok_or_else(|| not_found(proc, key, "")),
        Err(e) if e.status() == Status::ERR_TIMEOUT => Err(timed_out(proc, key)),
        Err(e) => Err(e),
    }
}
