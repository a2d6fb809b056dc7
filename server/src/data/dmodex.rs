//! Server-side `get` (direct modex): a client's `get` that shared memory
//! could not answer, and this node's answer to another node's direct-modex
//! request for a local proc ([`Server::dmodex_request_nb`]).
//!
//! Both may have to wait for a local proc's commit. Such a request is
//! *held* until the proc has committed the key (or, when no key is named,
//! anything at all), or can commit no more (finalized, dead, deregistered),
//! or its `PMIX_TIMEOUT` passes (docs/GET-RULES.md has the whole table).
//! With `SHM_MODEX` a client publishes into its own store and tells nobody,
//! so the server learns of commits by looking: one poller thread, alive
//! only while something is held, re-checks every held request each
//! [`POLL_TICK`]. Nothing on the wire changes, and nothing costs anything
//! while no request is held.
//!
//! The cards of deregistered clients are kept too (until their namespace
//! is deregistered; `data/commits.rs`): a peer may ask for them after
//! they left.
//!
//! [`Server::dmodex_request_nb`]: crate::Server::dmodex_request_nb

use std::sync::Arc;
use std::time::{Duration, Instant};

use pmix_core::codec::blob;
use pmix_core::proto::Reply;
use pmix_core::{attrs, Error, Info, Proc, Result, Status, Value};
use pmix_shm::sync::Ordering;

use crate::data::commits::{Hold, Outcome, Want};
use crate::data::job::{import_blobs, job_value};
use crate::data::modex::card;
use crate::directives::{deadline, flag};
use crate::host::Completion;
use crate::inner::Inner;
use crate::link::ReplyTo;

/// How often held requests are re-checked.
const POLL_TICK: Duration = Duration::from_millis(1);

/// Where `proc` stands for `want`: `None` while it is worth waiting.
fn check(inner: &Inner, proc: &Proc, want: &Want) -> Option<Outcome> {
    let Some(card) = card(inner, proc) else {
        return Some(Outcome::NotLocal);
    };
    let ready = card.ended
        || match want {
            Want::Key(k) => card.has(k),
            Want::Commit => card.committed,
        };
    ready.then_some(Outcome::Card(card))
}

/// Answers `done` now when it can (or must: `wait == false`), else holds it.
fn answer_or_hold(
    inner: &Arc<Inner>,
    by: Option<(Proc, Box<dyn Fn() -> bool + Send>)>,
    proc: Proc,
    want: Want,
    wait: bool,
    deadline: Option<Instant>,
    done: Box<dyn FnOnce(Outcome) + Send>,
) {
    if !wait {
        return done(card(inner, &proc).map_or(Outcome::NotLocal, Outcome::Card));
    }
    if let Some(out) = check(inner, &proc, &want) {
        return done(out);
    }
    let (by, requester_gone) = match by {
        Some((p, gone)) => (Some(p), Some(gone)),
        None => (None, None),
    };
    let held = inner.commits.hold(
        Hold {
            by,
            requester_gone,
            proc,
            want,
            deadline,
            done,
        },
        inner.cfg.max_pending_per_client,
    );
    let start = match held {
        Ok(start) => start,
        Err((h, n)) => return (h.done)(Outcome::TooMany(n)),
    };
    if start {
        let i = Arc::clone(inner);
        let spawned = std::thread::Builder::new()
            .name("pmix-srv-dmodex".into())
            .spawn(move || poll(&i));
        if spawned.is_err() {
            // No thread: answer everything held with what there is now.
            for h in inner.commits.give_up() {
                let out = card(inner, &h.proc).map_or(Outcome::NotLocal, Outcome::Card);
                (h.done)(out);
            }
        }
    }
}

/// The poller: re-checks every held request each tick; ends when none is
/// left.
fn poll(inner: &Arc<Inner>) {
    loop {
        std::thread::sleep(POLL_TICK);
        let held = inner.commits.take_held();
        // ORDERING: Relaxed — a stop flag; seeing it a tick late is fine.
        let stopping = inner.stopping.load(Ordering::Relaxed);
        let now = Instant::now();
        let mut keep = Vec::new();
        let mut fire = Vec::new();
        for h in held {
            if h.requester_gone.as_ref().is_some_and(|gone| gone()) {
                // Its client is gone: nobody reads the answer, and it
                // must not count against the rank's next connection.
                continue;
            }
            if stopping {
                fire.push((h.done, Outcome::Stopped));
            } else if let Some(out) = check(inner, &h.proc, &h.want) {
                fire.push((h.done, out));
            } else if h.deadline.is_some_and(|d| now >= d) {
                fire.push((h.done, Outcome::TimedOut));
            } else {
                keep.push(h);
            }
        }
        let done = inner.commits.hold_again(keep);
        for (f, out) in fire {
            f(out);
        }
        if done {
            return;
        }
    }
}

fn outcome_error(out: Outcome, proc: &Proc, what: &str) -> Error {
    match out {
        Outcome::TimedOut => Error::with_context(
            Status::ERR_TIMEOUT,
            format!("{what} of {proc:?}: not committed before PMIX_TIMEOUT"),
        ),
        Outcome::Stopped => Error::with_context(
            Status::ERR_UNREACH,
            format!("{what} of {proc:?}: the server stopped"),
        ),
        Outcome::TooMany(n) => Error::with_context(
            Status::ERR_OUT_OF_RESOURCE,
            format!(
                "{what} of {proc:?}: this client already has {n} requests held for a commit, \
                 the server's limit per client (ServerConfig::max_pending_per_client)"
            ),
        ),
        Outcome::NotLocal | Outcome::Card(_) => Error::with_context(
            Status::ERR_NOT_FOUND,
            format!("{what}: {proc:?} is not a client of this server"),
        ),
    }
}

/// [`Server::dmodex_request_nb`](crate::Server::dmodex_request_nb).
pub(crate) fn request(inner: &Arc<Inner>, proc: &Proc, info: &[Info], done: Completion<Vec<u8>>) {
    let want = match pmix_core::info::find(info, attrs::REQUIRED_KEY).map(|i| &i.value) {
        Some(Value::String(k)) => Want::Key(k.clone()),
        _ => Want::Commit,
    };
    let wait = !(flag(info, attrs::IMMEDIATE) || flag(info, attrs::GET_REFRESH_CACHE));
    let p = proc.clone();
    answer_or_hold(
        inner,
        None,
        proc.clone(),
        want,
        wait,
        deadline(info),
        Box::new(move |out| match out {
            Outcome::Card(card) => {
                let entries: Result<Vec<Info>> = card
                    .visible(true)
                    .map(|(k, _, v)| Info::new(k, v.clone()))
                    .collect();
                done(entries.and_then(|e| blob::encode_modex(&[(p, e)])));
            }
            out => done(Err(outcome_error(out, &p, "direct modex"))),
        }),
    );
}

fn send_get(to: &ReplyTo, r: Result<Value>) {
    let reply = match r {
        Ok(v) => Reply {
            status: Status::SUCCESS,
            value: Some(v),
            message: String::new(),
        },
        Err(e) => Reply::error(&e),
    };
    to.send(&reply);
}

fn not_found(key: &str, proc: &Proc, why: &str) -> Error {
    Error::with_context(
        Status::ERR_NOT_FOUND,
        format!("{key} not found for {proc:?}{why}"),
    )
}

/// A `get` the client could not serve from shared memory, answered to
/// `to`.
pub(crate) fn get(inner: &Arc<Inner>, to: ReplyTo, proc: Proc, key: String, info: Vec<Info>) {
    let local = card(inner, &proc).is_some();
    if let Some(v) = job_value(inner, &proc, &key) {
        return send_get(&to, Ok(v));
    }
    // Job-level keys, and reserved keys of a local proc, never wait: the
    // job data is complete from registration on.
    if !proc.rank.is_valid() || (local && pmix_core::proc::is_reserved_key(&key)) {
        return send_get(&to, Err(not_found(&key, &proc, "")));
    }
    let no_wait = flag(&info, attrs::OPTIONAL)
        || flag(&info, attrs::IMMEDIATE)
        || flag(&info, attrs::GET_REFRESH_CACHE);
    if local {
        // A local proc, registered or departed: wait for its commit.
        let (p, k) = (proc.clone(), key.clone());
        let asker = to.clone();
        return answer_or_hold(
            inner,
            Some((to.proc().clone(), Box::new(move || asker.requester_gone()))),
            proc,
            Want::Key(key),
            !no_wait,
            deadline(&info),
            Box::new(move |out| {
                let r = match out {
                    Outcome::Card(card) => card
                        .visible(false)
                        .find(|(kk, _, _)| kk == &k)
                        .map(|(_, _, v)| v.clone())
                        .ok_or_else(|| {
                            let why = if card.has(&k) {
                                " on this node (put with scope REMOTE)"
                            } else if card.ended {
                                " (it can commit no more)"
                            } else {
                                " (not committed yet)"
                            };
                            not_found(&k, &p, why)
                        }),
                    out => Err(outcome_error(out, &p, "get")),
                };
                send_get(&to, r);
            }),
        );
    }
    if flag(&info, attrs::IMMEDIATE) || flag(&info, attrs::OPTIONAL) {
        return send_get(&to, Err(not_found(&key, &proc, "")));
    }
    // A remote proc: ask the host for its data.
    let mut dinfo = info;
    if let Ok(k) = Info::new(attrs::REQUIRED_KEY, Value::String(key.clone())) {
        dinfo.push(k);
    }
    let t = match inner.inflight.take(to.proc(), "get") {
        Ok(t) => t,
        Err(e) => return send_get(&to, Err(e)),
    };
    let i = Arc::clone(inner);
    let p = proc.clone();
    inner.host.direct_modex(
        &proc,
        &dinfo,
        Box::new(move |r| {
            drop(t);
            let r = r
                .and_then(|bytes| import_blobs(&i, &bytes))
                .and_then(|()| job_value(&i, &p, &key).ok_or_else(|| not_found(&key, &p, "")));
            send_get(&to, r);
        }),
    );
}
