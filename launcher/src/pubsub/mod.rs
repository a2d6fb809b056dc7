//! The job's data store: `PMIx_Publish`, `PMIx_Lookup` and
//! `PMIx_Unpublish` as the server hands them to
//! [`LauncherHost`](crate::host::LauncherHost).
//!
//! # Semantics
//!
//! - **Publish.** Every info whose key does not start with `pmix.` is a
//!   datum; the `pmix.` ones are directives: `PMIX_RANGE` (default
//!   `PMIX_RANGE_SESSION`), `PMIX_PERSISTENCE` (default
//!   `PMIX_PERSIST_SESSION`) and `PMIX_USERID`, the caller's uid the server
//!   appends. A key already published on the same range and visible to the
//!   publisher (same uid; for `PROC_LOCAL` the same process, for
//!   `NAMESPACE` the same namespace) is `PMIX_ERR_DUPLICATE_KEY`, as is a
//!   key given twice; then nothing of the request is stored. Access
//!   restrictions (`PMIX_ACCESS_PERMISSIONS`, `…_USERIDS`, `…_GRPIDS`) are
//!   refused with `PMIX_ERR_NOT_SUPPORTED` rather than ignored: storing the
//!   data without the restriction would widen its access.
//! - **Visibility.** Only a requester of the publisher's uid sees a datum
//!   (as ORTE's data server: no `PMIX_USERID`, no access). With one job per
//!   `pmixrun` every range includes every rank, except `PROC_LOCAL` (the
//!   publisher only) and `NAMESPACE` (its namespace only). A lookup or
//!   unpublish with `PMIX_RANGE_PROC_LOCAL` considers only the caller's own
//!   data; other lookup ranges search everything visible.
//! - **Lookup.** For each requested key the oldest visible datum. None found
//!   is `PMIX_ERR_NOT_FOUND`; some found is success with those. With
//!   `PMIX_WAIT` (`true` or a flag: every key; an integer `n`: at least `n`
//!   keys, 0 meaning every key) a lookup that found too few is held, without
//!   blocking the calling thread, and answered by the publish that completes
//!   it; `PMIX_TIMEOUT` (seconds, 0 = none) ends the wait with
//!   `PMIX_ERR_TIMEOUT` (one timer thread serves every held lookup). Held
//!   lookups still waiting when the store is dropped (the job ended) get
//!   `PMIX_ERR_UNREACH`. A `PMIX_PERSIST_FIRST_READ` datum is removed by the
//!   first lookup that returns it.
//! - **Unpublish.** Removes the listed keys (none: every key) the caller
//!   itself published, on the given `PMIX_RANGE` if any;
//!   `PMIX_ERR_NOT_FOUND` when nothing was removed.
//!
//! An unknown `pmix.` directive marked `PMIX_INFO_REQD` is
//! `PMIX_ERR_NOT_SUPPORTED`; unknown optional ones are ignored.
//!
//! Completions are always called with the store's lock released, so a
//! completion may call back into the store.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pmix_core::proto::PData;
use pmix_core::{attrs, info, DataRange, Error, Info, Persistence, Proc, Result, Status, Value};
use pmix_server::Completion;

/// Prefix of the directives in a publish request.
const DIRECTIVE_PREFIX: &str = "pmix.";

/// Directives a publish understands.
const PUBLISH_DIRECTIVES: &[&str] = &[
    attrs::RANGE,
    attrs::PERSISTENCE,
    attrs::USERID,
    attrs::TIMEOUT,
];
/// Directives a lookup understands.
const LOOKUP_DIRECTIVES: &[&str] = &[attrs::RANGE, attrs::WAIT, attrs::TIMEOUT, attrs::USERID];
/// Directives an unpublish understands.
const UNPUBLISH_DIRECTIVES: &[&str] = &[attrs::RANGE, attrs::TIMEOUT, attrs::USERID];
/// Publish directives that restrict access, which this store cannot honour.
const ACCESS_DIRECTIVES: &[&str] = &[
    attrs::ACCESS_PERMISSIONS,
    attrs::ACCESS_USERIDS,
    attrs::ACCESS_GRPIDS,
];

fn mismatch(key: &str, want: &str, got: &Value) -> Error {
    Error::with_context(
        Status::ERR_TYPE_MISMATCH,
        format!("{key} must be a {want}, not a {}", got.data_type()),
    )
}

/// One published value.
#[derive(Clone, Debug)]
struct Datum {
    value: Value,
    owner: Proc,
    uid: u32,
    range: DataRange,
    persist: Persistence,
}

/// Who asks, as the server vouches for it.
#[derive(Clone, Debug)]
struct Requester {
    proc: Proc,
    uid: u32,
    /// The request's range is `PROC_LOCAL`: only the caller's own data.
    own_only: bool,
}

impl Requester {
    fn sees(&self, d: &Datum) -> bool {
        let own = d.owner == self.proc;
        d.uid == self.uid
            && (own || !self.own_only)
            && match d.range {
                DataRange::PROC_LOCAL => own,
                DataRange::NAMESPACE => d.owner.nspace == self.proc.nspace,
                _ => true,
            }
    }
}

/// A parsed publish request.
#[derive(Debug)]
struct PublishReq {
    uid: u32,
    range: DataRange,
    persist: Persistence,
    data: Vec<(String, Value)>,
}

/// A parsed lookup request.
#[derive(Debug)]
struct LookupReq {
    who: Requester,
    /// The requested keys, without repeats, in the caller's order.
    keys: Vec<String>,
    /// `PMIX_WAIT`: how many keys must be found before answering.
    wait: Option<usize>,
    /// `PMIX_TIMEOUT` of a waiting lookup.
    timeout: Option<Duration>,
}

/// A lookup held until enough of its keys are published.
struct Pending {
    req: LookupReq,
    need: usize,
    deadline: Option<Instant>,
    done: Completion<Vec<PData>>,
}

/// What the lock protects.
#[derive(Default)]
struct State {
    /// Published data by key, oldest first.
    data: BTreeMap<String, Vec<Datum>>,
    /// Held lookups, oldest first.
    pending: Vec<Pending>,
    /// The store was dropped: no more requests are held.
    closed: bool,
    /// The timer thread, started by the first lookup with a timeout.
    timer: Option<JoinHandle<()>>,
}

impl State {
    /// The index in `data[key]` of the oldest datum `who` sees.
    fn find(&self, key: &str, who: &Requester) -> Option<usize> {
        self.data.get(key)?.iter().position(|d| who.sees(d))
    }

    /// How many of `req`'s keys are found.
    fn count(&self, req: &LookupReq) -> usize {
        req.keys
            .iter()
            .filter(|k| self.find(k, &req.who).is_some())
            .count()
    }

    /// The data found for `req`, removing what persists until first read.
    fn take(&mut self, req: &LookupReq) -> Vec<PData> {
        let mut out = Vec::new();
        for key in &req.keys {
            let Some(i) = self.find(key, &req.who) else {
                continue;
            };
            let Some(list) = self.data.get_mut(key) else {
                continue;
            };
            let d = if list[i].persist == Persistence::FIRST_READ {
                let d = list.remove(i);
                if list.is_empty() {
                    self.data.remove(key);
                }
                d
            } else {
                list[i].clone()
            };
            out.push(PData {
                proc: d.owner,
                key: key.clone(),
                value: d.value,
            });
        }
        out
    }

    /// Removes and returns the held lookups whose deadline passed.
    fn expired(&mut self, now: Instant) -> Vec<Pending> {
        let (gone, keep) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|p| p.deadline.is_some_and(|d| d <= now));
        self.pending = keep;
        gone
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.pending.iter().filter_map(|p| p.deadline).min()
    }
}

/// The state and the condition variable that wakes the timer thread.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    cv: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The publish/lookup data store of one job.
pub(crate) struct DataStore {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for DataStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.shared.lock();
        f.debug_struct("DataStore")
            .field("keys", &st.data.len())
            .field("pending", &st.pending.len())
            .field("closed", &st.closed)
            .finish()
    }
}

impl Default for DataStore {
    fn default() -> Self {
        Self::new()
    }
}

fn timeout_error(p: &Pending) -> Error {
    let secs = p.req.timeout.map_or(0, |t| t.as_secs());
    Error::with_context(
        Status::ERR_TIMEOUT,
        format!(
            "lookup of {:?}: fewer than {} key(s) published within {secs} s",
            p.req.keys, p.need
        ),
    )
}

fn closed_error() -> Error {
    Error::with_context(
        Status::ERR_UNREACH,
        "the job's data store closed (the job ended) before the keys were published",
    )
}

/// The timer thread: answers held lookups whose deadline passed with
/// `PMIX_ERR_TIMEOUT`, sleeping on the condition variable until the next
/// deadline (or until woken by a new one, or by the store closing).
fn run_timer(shared: &Shared) {
    let mut st = shared.lock();
    loop {
        if st.closed {
            return;
        }
        let now = Instant::now();
        let gone = st.expired(now);
        if !gone.is_empty() {
            drop(st);
            for p in gone {
                let e = timeout_error(&p);
                (p.done)(Err(e));
            }
            st = shared.lock();
            continue;
        }
        st = match st.next_deadline() {
            Some(at) => {
                shared
                    .cv
                    .wait_timeout(st, at.saturating_duration_since(now))
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => shared.cv.wait(st).unwrap_or_else(PoisonError::into_inner),
        };
    }
}

/// The caller's uid: the last `PMIX_USERID` (the server appends it after
/// the caller's own infos, having dropped any the caller sent).
fn euid(info: &[Info], what: &str) -> Result<u32> {
    let i = info
        .iter()
        .rev()
        .find(|i| i.is(attrs::USERID))
        .ok_or_else(|| {
            Error::bad_param(format!("{what}: no {} (the caller's uid)", attrs::USERID))
        })?;
    match i.value {
        Value::Uint32(u) => Ok(u),
        ref v => Err(mismatch(attrs::USERID, "PMIX_UINT32", v)),
    }
}

/// `PMIX_RANGE`, `None` when absent or `PMIX_RANGE_UNDEF`.
fn range(info: &[Info]) -> Result<Option<DataRange>> {
    let Some(i) = info::find(info, attrs::RANGE) else {
        return Ok(None);
    };
    match i.value {
        Value::DataRange(DataRange::UNDEF) => Ok(None),
        Value::DataRange(r) if r.0 <= DataRange::PROC_LOCAL.0 => Ok(Some(r)),
        Value::DataRange(r) => Err(Error::bad_param(format!(
            "{}: invalid range {r}",
            attrs::RANGE
        ))),
        ref v => Err(mismatch(attrs::RANGE, "PMIX_DATA_RANGE", v)),
    }
}

/// `PMIX_PERSISTENCE`, `PMIX_PERSIST_SESSION` when absent.
fn persistence(info: &[Info]) -> Result<Persistence> {
    let Some(i) = info::find(info, attrs::PERSISTENCE) else {
        return Ok(Persistence::SESSION);
    };
    match i.value {
        Value::Persistence(p) if p.0 <= Persistence::SESSION.0 => Ok(p),
        Value::Persistence(p) => Err(Error::bad_param(format!(
            "{}: invalid persistence {p}",
            attrs::PERSISTENCE
        ))),
        ref v => Err(mismatch(attrs::PERSISTENCE, "PMIX_PERSIST", v)),
    }
}

/// `PMIX_WAIT` for a lookup of `nkeys` keys: how many must be found.
fn wait(info: &[Info], nkeys: usize) -> Result<Option<usize>> {
    let Some(i) = info::find(info, attrs::WAIT) else {
        return Ok(None);
    };
    match &i.value {
        Value::Bool(b) => Ok(b.then_some(nkeys)),
        Value::Undef => Ok(Some(nkeys)),
        v => match v.to_i64() {
            Ok(0) => Ok(Some(nkeys)),
            Ok(n) if n > 0 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX).min(nkeys))),
            Ok(n) => Err(Error::bad_param(format!(
                "{}: negative key count {n}",
                attrs::WAIT
            ))),
            Err(_) => Err(mismatch(attrs::WAIT, "PMIX_BOOL or PMIX_INT", v)),
        },
    }
}

/// `PMIX_TIMEOUT` in seconds; `None` when absent or 0.
fn timeout(info: &[Info]) -> Result<Option<Duration>> {
    let Some(i) = info::find(info, attrs::TIMEOUT) else {
        return Ok(None);
    };
    match i.value.to_i64() {
        Ok(0) => Ok(None),
        Ok(n) if n > 0 => Ok(Some(Duration::from_secs(n.unsigned_abs()))),
        Ok(n) => Err(Error::bad_param(format!(
            "{}: negative timeout {n}",
            attrs::TIMEOUT
        ))),
        Err(_) => Err(mismatch(attrs::TIMEOUT, "PMIX_INT", &i.value)),
    }
}

/// Refuses a required `pmix.` directive outside `known`.
fn check_required(info: &[Info], known: &[&str], what: &str) -> Result<()> {
    match info.iter().find(|i| {
        let k = i.key.as_str();
        i.is_required() && k.starts_with(DIRECTIVE_PREFIX) && !known.contains(&k)
    }) {
        Some(i) => Err(Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            format!("{what}: required directive {} is not supported", i.key),
        )),
        None => Ok(()),
    }
}

/// Validated, repeat-free keys.
fn keys_of(keys: &[String], what: &str) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::with_capacity(keys.len());
    for k in keys {
        pmix_core::Key::new_data_key(k)
            .map_err(|e| Error::bad_param(format!("{what}: bad key {k:?}: {e}")))?;
        if !out.contains(k) {
            out.push(k.clone());
        }
    }
    Ok(out)
}

fn parse_publish(info: &[Info]) -> Result<PublishReq> {
    const WHAT: &str = "publish";
    check_required(info, PUBLISH_DIRECTIVES, WHAT)?;
    if let Some(i) = info
        .iter()
        .find(|i| ACCESS_DIRECTIVES.contains(&i.key.as_str()))
    {
        return Err(Error::with_context(
            Status::ERR_NOT_SUPPORTED,
            format!("{WHAT}: access restriction {} is not supported", i.key),
        ));
    }
    let uid = euid(info, WHAT)?;
    let range = range(info)?.unwrap_or(DataRange::SESSION);
    let persist = persistence(info)?;
    let mut data: Vec<(String, Value)> = Vec::new();
    for i in info {
        let k = i.key.as_str();
        if k.starts_with(DIRECTIVE_PREFIX) {
            continue;
        }
        if k.is_empty() {
            return Err(Error::bad_param(format!("{WHAT}: empty key")));
        }
        if data.iter().any(|(d, _)| d == k) {
            return Err(Error::with_context(
                Status::ERR_DUPLICATE_KEY,
                format!("{WHAT}: key {k:?} given twice"),
            ));
        }
        data.push((k.to_owned(), i.value.clone()));
    }
    if data.is_empty() {
        return Err(Error::bad_param(format!(
            "{WHAT}: no data (every key is a directive)"
        )));
    }
    Ok(PublishReq {
        uid,
        range,
        persist,
        data,
    })
}

fn parse_lookup(proc: &Proc, keys: &[String], info: &[Info]) -> Result<LookupReq> {
    const WHAT: &str = "lookup";
    check_required(info, LOOKUP_DIRECTIVES, WHAT)?;
    let uid = euid(info, WHAT)?;
    let keys = keys_of(keys, WHAT)?;
    if keys.is_empty() {
        return Err(Error::bad_param(format!("{WHAT}: no keys")));
    }
    let own_only = range(info)? == Some(DataRange::PROC_LOCAL);
    let wait = wait(info, keys.len())?;
    let timeout = if wait.is_some() { timeout(info)? } else { None };
    Ok(LookupReq {
        who: Requester {
            proc: proc.clone(),
            uid,
            own_only,
        },
        keys,
        wait,
        timeout,
    })
}

impl DataStore {
    /// An empty store.
    pub fn new() -> Self {
        DataStore {
            shared: Arc::new(Shared::default()),
        }
    }

    /// `PMIx_Publish` of `proc` (see the module documentation). Answers the
    /// held lookups it completes before it returns.
    ///
    /// # Errors
    /// `PMIX_ERR_DUPLICATE_KEY`, `PMIX_ERR_BAD_PARAM` (no data, no
    /// `PMIX_USERID`, a bad range or persistence), `PMIX_ERR_TYPE_MISMATCH`,
    /// `PMIX_ERR_NOT_SUPPORTED` (access restrictions, unknown required
    /// directives).
    pub fn publish(&self, proc: &Proc, info: &[Info]) -> Result<()> {
        let req = parse_publish(info)?;
        let who = Requester {
            proc: proc.clone(),
            uid: req.uid,
            own_only: false,
        };
        let mut ready = Vec::new();
        {
            let mut st = self.shared.lock();
            for (k, _) in &req.data {
                let taken = st
                    .data
                    .get(k)
                    .is_some_and(|l| l.iter().any(|d| d.range == req.range && who.sees(d)));
                if taken {
                    return Err(Error::with_context(
                        Status::ERR_DUPLICATE_KEY,
                        format!("publish: {k:?} is already published on {}", req.range),
                    ));
                }
            }
            for (k, value) in &req.data {
                st.data.entry(k.clone()).or_default().push(Datum {
                    value: value.clone(),
                    owner: proc.clone(),
                    uid: req.uid,
                    range: req.range,
                    persist: req.persist,
                });
            }
            // Held lookups in arrival order: with first-read data the
            // oldest gets it.
            let mut i = 0;
            while i < st.pending.len() {
                let p = &st.pending[i];
                let touched = p
                    .req
                    .keys
                    .iter()
                    .any(|k| req.data.iter().any(|(d, _)| d == k));
                if touched && st.count(&p.req) >= p.need {
                    let p = st.pending.remove(i);
                    let found = st.take(&p.req);
                    ready.push((p.done, found));
                } else {
                    i += 1;
                }
            }
        }
        for (done, found) in ready {
            done(Ok(found));
        }
        Ok(())
    }

    /// `PMIx_Lookup` of `proc`: answers `done` now, or later from the
    /// publish that completes it, the timer thread, or the store's drop.
    pub fn lookup(
        &self,
        proc: &Proc,
        keys: &[String],
        info: &[Info],
        done: Completion<Vec<PData>>,
    ) {
        let req = match parse_lookup(proc, keys, info) {
            Ok(r) => r,
            Err(e) => return done(Err(e)),
        };
        let mut st = self.shared.lock();
        if st.closed {
            drop(st);
            return done(Err(closed_error()));
        }
        let found = st.count(&req);
        let need = match req.wait {
            Some(n) if found < n => n,
            Some(_) => 0,
            None if found == 0 => {
                drop(st);
                return done(Err(Error::with_context(
                    Status::ERR_NOT_FOUND,
                    format!("lookup: none of {:?} is published", req.keys),
                )));
            }
            None => 0,
        };
        if need == 0 {
            let data = st.take(&req);
            drop(st);
            return done(Ok(data));
        }
        let deadline = req.timeout.map(|t| Instant::now() + t);
        if deadline.is_some() && st.timer.is_none() {
            let shared = Arc::clone(&self.shared);
            match std::thread::Builder::new()
                .name("pmixrun-lookup-timer".into())
                .spawn(move || run_timer(&shared))
            {
                Ok(h) => st.timer = Some(h),
                Err(e) => {
                    drop(st);
                    return done(Err(Error::with_context(
                        Status::ERR_OUT_OF_RESOURCE,
                        format!("lookup: cannot start the timeout thread: {e}"),
                    )));
                }
            }
        }
        st.pending.push(Pending {
            req,
            need,
            deadline,
            done,
        });
        drop(st);
        if deadline.is_some() {
            self.shared.cv.notify_all();
        }
    }

    /// `PMIx_Unpublish` of `proc`: removes `keys` (none: all) it published.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when nothing was removed; `PMIX_ERR_BAD_PARAM`
    /// (no `PMIX_USERID`, a bad key or range); `PMIX_ERR_NOT_SUPPORTED`.
    pub fn unpublish(&self, proc: &Proc, keys: &[String], info: &[Info]) -> Result<()> {
        const WHAT: &str = "unpublish";
        check_required(info, UNPUBLISH_DIRECTIVES, WHAT)?;
        let uid = euid(info, WHAT)?;
        let keys = keys_of(keys, WHAT)?;
        let range = range(info)?;
        let mine =
            |d: &Datum| d.owner == *proc && d.uid == uid && range.map_or(true, |r| d.range == r);
        let mut removed = 0;
        let mut st = self.shared.lock();
        st.data.retain(|k, list| {
            if keys.is_empty() || keys.contains(k) {
                let before = list.len();
                list.retain(|d| !mine(d));
                removed += before - list.len();
            }
            !list.is_empty()
        });
        drop(st);
        if removed == 0 {
            return Err(Error::with_context(
                Status::ERR_NOT_FOUND,
                if keys.is_empty() {
                    format!("{WHAT}: {proc} published nothing")
                } else {
                    format!("{WHAT}: {proc} did not publish {keys:?}")
                },
            ));
        }
        Ok(())
    }
}

impl Drop for DataStore {
    /// Stops the timer thread and answers every held lookup with
    /// `PMIX_ERR_UNREACH`.
    fn drop(&mut self) {
        let (timer, pending) = {
            let mut st = self.shared.lock();
            st.closed = true;
            (st.timer.take(), std::mem::take(&mut st.pending))
        };
        self.shared.cv.notify_all();
        if let Some(h) = timer {
            // A completion run by the timer thread could drop the last
            // owner of the store; that thread must not wait for itself.
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        for p in pending {
            (p.done)(Err(closed_error()));
        }
    }
}

#[cfg(test)]
mod tests;
