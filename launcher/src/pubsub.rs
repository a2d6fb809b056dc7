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
mod tests {
    use super::*;
    use pmix_core::{InfoFlags, Rank};
    use std::sync::mpsc::{channel, Receiver};

    const UID: u32 = 1000;

    fn p(r: u32) -> Proc {
        Proc::new("job", Rank(r)).unwrap()
    }

    fn uid(u: u32) -> Info {
        Info::new(attrs::USERID, Value::Uint32(u)).unwrap()
    }

    fn kv(k: &str, v: &str) -> Info {
        Info::new(k, v).unwrap()
    }

    fn keys(k: &[&str]) -> Vec<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    fn publish(s: &DataStore, r: u32, mut info: Vec<Info>) -> Result<()> {
        info.push(uid(UID));
        s.publish(&p(r), &info)
    }

    /// Starts a lookup; its outcome arrives on the receiver.
    fn lookup_rx(
        s: &DataStore,
        r: u32,
        k: &[&str],
        info: Vec<Info>,
    ) -> Receiver<Result<Vec<PData>>> {
        let (tx, rx) = channel();
        s.lookup(
            &p(r),
            &keys(k),
            &info,
            Box::new(move |res| {
                let _ = tx.send(res);
            }),
        );
        rx
    }

    fn lookup(s: &DataStore, r: u32, k: &[&str]) -> Result<Vec<PData>> {
        lookup_rx(s, r, k, vec![uid(UID)]).try_recv().unwrap()
    }

    fn status<T: std::fmt::Debug>(r: Result<T>) -> Status {
        r.unwrap_err().status()
    }

    fn unpublish(s: &DataStore, r: u32, k: &[&str]) -> Result<()> {
        s.unpublish(&p(r), &keys(k), &[uid(UID)])
    }

    fn one(found: &[PData]) -> (&str, &Value, u32) {
        assert_eq!(found.len(), 1, "{found:?}");
        (&found[0].key, &found[0].value, found[0].proc.rank.0)
    }

    #[test]
    fn publish_then_lookup_returns_the_value_and_publisher() {
        let s = DataStore::new();
        publish(&s, 0, vec![kv("svc", "port-1"), kv("other", "x")]).unwrap();
        let found = lookup(&s, 1, &["svc"]).unwrap();
        assert_eq!(one(&found), ("svc", &Value::from("port-1"), 0));
        // found twice: the default persistence keeps it
        let found = lookup(&s, 2, &["svc", "missing", "svc", "other"]).unwrap();
        let got: Vec<&str> = found.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(got, ["svc", "other"]);
        assert_eq!(status(lookup(&s, 1, &["missing"])), Status::ERR_NOT_FOUND);
    }

    #[test]
    fn a_duplicate_key_is_refused_and_nothing_of_that_request_is_stored() {
        let s = DataStore::new();
        publish(&s, 0, vec![kv("dup", "a")]).unwrap();
        let e = publish(&s, 1, vec![kv("fresh", "b"), kv("dup", "c")]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_DUPLICATE_KEY);
        assert_eq!(status(lookup(&s, 2, &["fresh"])), Status::ERR_NOT_FOUND);
        let found = lookup(&s, 2, &["dup"]).unwrap();
        assert_eq!(one(&found), ("dup", &Value::from("a"), 0));
        // the same key twice in one request
        let e = publish(&s, 1, vec![kv("twice", "b"), kv("twice", "c")]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_DUPLICATE_KEY);
        assert_eq!(status(lookup(&s, 2, &["twice"])), Status::ERR_NOT_FOUND);
        // another range is another name space; its own duplicate is refused
        let ns = Info::new(attrs::RANGE, DataRange::NAMESPACE).unwrap();
        publish(&s, 1, vec![kv("dup", "d"), ns.clone()]).unwrap();
        let e = publish(&s, 2, vec![kv("dup", "e"), ns]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_DUPLICATE_KEY);
        // the oldest visible datum answers
        assert_eq!(lookup(&s, 3, &["dup"]).unwrap()[0].value, Value::from("a"));
    }

    #[test]
    fn first_read_data_goes_away_after_the_first_lookup_that_returns_it() {
        let s = DataStore::new();
        let once = Info::new(attrs::PERSISTENCE, Persistence::FIRST_READ).unwrap();
        publish(&s, 0, vec![kv("once", "v"), kv("twice", "w"), once]).unwrap();
        let found = lookup(&s, 1, &["once"]).unwrap();
        assert_eq!(one(&found), ("once", &Value::from("v"), 0));
        assert_eq!(status(lookup(&s, 2, &["once"])), Status::ERR_NOT_FOUND);
        // the other key of that publish is still there until its first read
        assert_eq!(lookup(&s, 2, &["twice"]).unwrap().len(), 1);
        assert_eq!(status(lookup(&s, 2, &["twice"])), Status::ERR_NOT_FOUND);
        // and the key can be published again
        publish(&s, 3, vec![kv("once", "again")]).unwrap();
        assert_eq!(lookup(&s, 1, &["once"]).unwrap().len(), 1);
        assert_eq!(lookup(&s, 1, &["once"]).unwrap().len(), 1);
    }

    #[test]
    fn only_the_publishers_uid_sees_the_data() {
        let s = DataStore::new();
        publish(&s, 0, vec![kv("mine", "v")]).unwrap();
        let other = lookup_rx(&s, 1, &["mine"], vec![uid(UID + 1)]);
        assert_eq!(status(other.try_recv().unwrap()), Status::ERR_NOT_FOUND);
        // another uid may publish the same key: it does not see the first
        s.publish(&p(1), &[kv("mine", "theirs"), uid(UID + 1)])
            .unwrap();
        let theirs = lookup_rx(&s, 2, &["mine"], vec![uid(UID + 1)]);
        let found = theirs.try_recv().unwrap().unwrap();
        assert_eq!(one(&found), ("mine", &Value::from("theirs"), 1));
        assert_eq!(lookup(&s, 2, &["mine"]).unwrap()[0].value, Value::from("v"));
        // another uid cannot unpublish it either
        let e = s
            .unpublish(&p(0), &keys(&["mine"]), &[uid(UID + 1)])
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_FOUND);
        // no uid at all: refused
        let e = s.publish(&p(0), &[kv("x", "y")]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
        let anon = lookup_rx(&s, 1, &["mine"], vec![]);
        assert_eq!(status(anon.try_recv().unwrap()), Status::ERR_BAD_PARAM);
        let e = s.unpublish(&p(0), &[], &[]).unwrap_err();
        assert_eq!(e.status(), Status::ERR_BAD_PARAM);
    }

    #[test]
    fn proc_local_and_namespace_ranges() {
        let s = DataStore::new();
        let local = Info::new(attrs::RANGE, DataRange::PROC_LOCAL).unwrap();
        publish(&s, 0, vec![kv("self", "v"), local.clone()]).unwrap();
        assert_eq!(status(lookup(&s, 1, &["self"])), Status::ERR_NOT_FOUND);
        assert_eq!(lookup(&s, 0, &["self"]).unwrap().len(), 1);
        // a lookup on PROC_LOCAL considers only the caller's own data
        publish(&s, 1, vec![kv("shared", "w")]).unwrap();
        let rx = lookup_rx(&s, 0, &["shared"], vec![local, uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_NOT_FOUND);
        let ns = Info::new(attrs::RANGE, DataRange::NAMESPACE).unwrap();
        let stranger = Proc::new("other-job", Rank(0)).unwrap();
        s.publish(&stranger, &[kv("nsonly", "x"), ns, uid(UID)])
            .unwrap();
        assert_eq!(status(lookup(&s, 1, &["nsonly"])), Status::ERR_NOT_FOUND);
    }

    #[test]
    fn a_waiting_lookup_is_answered_by_the_publish_that_completes_it() {
        let s = DataStore::new();
        let wait = Info::new(attrs::WAIT, true).unwrap();
        let rx = lookup_rx(&s, 1, &["a", "b"], vec![wait, uid(UID)]);
        assert!(rx.try_recv().is_err(), "answered before any publish");
        publish(&s, 0, vec![kv("a", "1")]).unwrap();
        assert!(rx.try_recv().is_err(), "answered with one key of two");
        // an unrelated publish does not answer it
        publish(&s, 0, vec![kv("c", "3")]).unwrap();
        assert!(rx.try_recv().is_err());
        publish(&s, 2, vec![kv("b", "2")]).unwrap();
        let found = rx.try_recv().unwrap().unwrap();
        let got: Vec<(&str, u32)> = found
            .iter()
            .map(|d| (d.key.as_str(), d.proc.rank.0))
            .collect();
        assert_eq!(got, [("a", 0), ("b", 2)]);
        // PMIX_WAIT as a count: one key of two is enough
        let rx = lookup_rx(
            &s,
            1,
            &["x", "y"],
            vec![Info::new(attrs::WAIT, Value::Int(1)).unwrap(), uid(UID)],
        );
        assert!(rx.try_recv().is_err());
        publish(&s, 0, vec![kv("y", "1")]).unwrap();
        let found = rx.try_recv().unwrap().unwrap();
        assert_eq!(one(&found).0, "y");
        // already there: answered at once
        let rx = lookup_rx(
            &s,
            1,
            &["y"],
            vec![Info::new(attrs::WAIT, Value::Int(0)).unwrap(), uid(UID)],
        );
        assert_eq!(rx.try_recv().unwrap().unwrap().len(), 1);
    }

    #[test]
    fn a_waiting_lookup_of_another_uid_is_not_answered_and_first_read_goes_to_the_oldest() {
        let s = DataStore::new();
        let wait = || Info::new(attrs::WAIT, true).unwrap();
        let stranger = lookup_rx(&s, 1, &["k"], vec![wait(), uid(UID + 1)]);
        let first = lookup_rx(&s, 2, &["k"], vec![wait(), uid(UID)]);
        let second = lookup_rx(&s, 3, &["k"], vec![wait(), uid(UID)]);
        let once = Info::new(attrs::PERSISTENCE, Persistence::FIRST_READ).unwrap();
        publish(&s, 0, vec![kv("k", "v"), once]).unwrap();
        assert_eq!(first.try_recv().unwrap().unwrap().len(), 1);
        assert!(second.try_recv().is_err());
        assert!(stranger.try_recv().is_err());
        drop(s);
        // the job ended: the held lookups get an error
        assert_eq!(status(second.try_recv().unwrap()), Status::ERR_UNREACH);
        assert_eq!(status(stranger.try_recv().unwrap()), Status::ERR_UNREACH);
    }

    #[test]
    fn a_waiting_lookup_times_out() {
        let s = DataStore::new();
        let info = |secs: i32| {
            vec![
                Info::new(attrs::WAIT, true).unwrap(),
                Info::new(attrs::TIMEOUT, Value::Int(secs)).unwrap(),
                uid(UID),
            ]
        };
        let t0 = Instant::now();
        let long = lookup_rx(&s, 2, &["never"], info(30));
        let short = lookup_rx(&s, 1, &["never"], info(1));
        let r = short.recv_timeout(Duration::from_secs(10)).unwrap();
        let took = t0.elapsed();
        assert_eq!(status(r), Status::ERR_TIMEOUT);
        assert!(took >= Duration::from_secs(1), "{took:?}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        // the other one still waits, and a publish still answers it
        assert!(long.try_recv().is_err());
        publish(&s, 0, vec![kv("never", "now")]).unwrap();
        assert_eq!(long.try_recv().unwrap().unwrap().len(), 1);
        // dropping the store stops the timer thread
        let held = lookup_rx(&s, 3, &["later"], info(30));
        drop(s);
        assert_eq!(status(held.try_recv().unwrap()), Status::ERR_UNREACH);
    }

    #[test]
    fn unpublish_some_then_all() {
        let s = DataStore::new();
        publish(&s, 0, vec![kv("a", "1"), kv("b", "2"), kv("c", "3")]).unwrap();
        publish(&s, 1, vec![kv("d", "4")]).unwrap();
        unpublish(&s, 0, &["a", "zz"]).unwrap();
        assert_eq!(status(lookup(&s, 1, &["a"])), Status::ERR_NOT_FOUND);
        assert_eq!(status(unpublish(&s, 0, &["a"])), Status::ERR_NOT_FOUND);
        // not the publisher
        assert_eq!(status(unpublish(&s, 1, &["b"])), Status::ERR_NOT_FOUND);
        assert_eq!(lookup(&s, 1, &["b"]).unwrap().len(), 1);
        // only on the given range
        let ns = Info::new(attrs::RANGE, DataRange::NAMESPACE).unwrap();
        let e = s
            .unpublish(&p(0), &keys(&["b"]), &[ns, uid(UID)])
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_NOT_FOUND);
        // all of rank 0's, none of rank 1's
        unpublish(&s, 0, &[]).unwrap();
        assert_eq!(
            status(lookup(&s, 1, &["a", "b", "c"])),
            Status::ERR_NOT_FOUND
        );
        assert_eq!(lookup(&s, 0, &["d"]).unwrap().len(), 1);
        assert_eq!(status(unpublish(&s, 0, &[])), Status::ERR_NOT_FOUND);
        // the keys can be published again, by anyone
        publish(&s, 2, vec![kv("b", "new")]).unwrap();
    }

    #[test]
    fn bad_requests_are_typed_errors() {
        let s = DataStore::new();
        // nothing but directives
        let e = publish(
            &s,
            0,
            vec![Info::new(attrs::RANGE, DataRange::LOCAL).unwrap()],
        );
        assert_eq!(status(e), Status::ERR_BAD_PARAM);
        let e = publish(
            &s,
            0,
            vec![kv("k", "v"), Info::new(attrs::RANGE, "session").unwrap()],
        );
        assert_eq!(status(e), Status::ERR_TYPE_MISMATCH);
        let e = publish(
            &s,
            0,
            vec![
                kv("k", "v"),
                Info::new(attrs::RANGE, DataRange::INVALID).unwrap(),
            ],
        );
        assert_eq!(status(e), Status::ERR_BAD_PARAM);
        let e = publish(
            &s,
            0,
            vec![
                kv("k", "v"),
                Info::new(attrs::PERSISTENCE, Persistence::INVALID).unwrap(),
            ],
        );
        assert_eq!(status(e), Status::ERR_BAD_PARAM);
        let auids = Info::new(attrs::ACCESS_USERIDS, Value::Uint32(5)).unwrap();
        assert_eq!(
            status(publish(&s, 0, vec![kv("k", "v"), auids])),
            Status::ERR_NOT_SUPPORTED
        );
        let mut reqd = Info::new("pmix.some.future", true).unwrap();
        reqd.flags = InfoFlags::REQD;
        assert_eq!(
            status(publish(&s, 0, vec![kv("k", "v"), reqd.clone()])),
            Status::ERR_NOT_SUPPORTED
        );
        let optional = Info::new("pmix.some.future", true).unwrap();
        publish(&s, 0, vec![kv("k", "v"), optional]).unwrap();
        let rx = lookup_rx(&s, 0, &[], vec![uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
        let rx = lookup_rx(&s, 0, &[""], vec![uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
        let rx = lookup_rx(&s, 0, &["k"], vec![reqd, uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_NOT_SUPPORTED);
        let bad_wait = Info::new(attrs::WAIT, Value::Int(-1)).unwrap();
        let rx = lookup_rx(&s, 0, &["k"], vec![bad_wait, uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
        let bad_wait = Info::new(attrs::WAIT, "soon").unwrap();
        let rx = lookup_rx(&s, 0, &["k"], vec![bad_wait, uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_TYPE_MISMATCH);
        let w = Info::new(attrs::WAIT, true).unwrap();
        let t = Info::new(attrs::TIMEOUT, Value::Int(-2)).unwrap();
        let rx = lookup_rx(&s, 0, &["nope"], vec![w, t, uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_BAD_PARAM);
        let wrong_uid = Info::new(attrs::USERID, "root").unwrap();
        let rx = lookup_rx(&s, 0, &["k"], vec![wrong_uid]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_TYPE_MISMATCH);
        // a false PMIX_WAIT does not wait
        let nowait = Info::new(attrs::WAIT, false).unwrap();
        let rx = lookup_rx(&s, 0, &["nope"], vec![nowait, uid(UID)]);
        assert_eq!(status(rx.try_recv().unwrap()), Status::ERR_NOT_FOUND);
    }

    #[test]
    fn a_completion_may_call_back_into_the_store() {
        let s = Arc::new(DataStore::new());
        let (tx, rx) = channel();
        let s2 = Arc::clone(&s);
        s.lookup(
            &p(1),
            &keys(&["k"]),
            &[Info::new(attrs::WAIT, true).unwrap(), uid(UID)],
            Box::new(move |r| {
                assert!(r.is_ok());
                // re-entering the store from the publish that answered us
                let again = lookup(&s2, 1, &["k"]);
                let _ = tx.send(again.map(|v| v.len()));
            }),
        );
        publish(&s, 0, vec![kv("k", "v")]).unwrap();
        assert_eq!(rx.try_recv().unwrap().unwrap(), 1);
    }
}
