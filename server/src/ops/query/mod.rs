//! `PMIx_Query_info` from a local client (protocol version 5): each key
//! the server can answer it answers (`answers.rs`); the others go to the
//! host in one [`Host::query`](crate::Host::query) with their qualifiers.
//! The answers come back flat, one info per answered key, in the order
//! asked; the status says how many were answered
//! ([`proto::query::overall_status`]). A key missing its required
//! qualifier fails the whole request with `PMIX_ERR_BAD_PARAM` before
//! anything reaches the host.

pub(crate) mod answers;
pub(crate) mod support;

use pmix_core::proto::{query as wire, Reply};
use pmix_core::{Info, Query, Result, Status};

use crate::inner::Inner;
use crate::link::ReplyTo;

use answers::{answer, Answer};

/// One asked key: where it stands in the request and what answers it.
struct Slot {
    key: String,
    value: Option<pmix_core::Value>,
    /// The server's answer when the host gives none.
    fallback: Option<pmix_core::Value>,
}

/// Answers what the server knows; the queries left for the host, each
/// with the index of its first slot per key.
fn answer_locally(inner: &Inner, queries: &[Query]) -> Result<(Vec<Slot>, Vec<Query>, Vec<usize>)> {
    let st = inner.state.lock();
    let mut slots = Vec::new();
    let mut for_host = Vec::new();
    let mut host_slots = Vec::new();
    for q in queries {
        let mut left = Query {
            keys: Vec::new(),
            qualifiers: q.qualifiers.clone(),
        };
        for k in &q.keys {
            let (value, fallback) = match answer(inner, &st, k, &q.qualifiers)? {
                Answer::Value(v) => (Some(v), None),
                Answer::Elsewhere => (None, None),
                Answer::HostFirst(v) => (None, Some(v)),
            };
            if value.is_none() {
                left.keys.push(k.clone());
                host_slots.push(slots.len());
            }
            slots.push(Slot {
                key: k.clone(),
                value,
                fallback,
            });
        }
        if !left.keys.is_empty() {
            for_host.push(left);
        }
    }
    Ok((slots, for_host, host_slots))
}

/// The reply for `slots`: the answered ones, in order, and the status.
fn reply_of(slots: Vec<Slot>) -> Reply {
    let asked = slots.len();
    let results: Vec<Info> = slots
        .into_iter()
        .filter_map(|s| {
            s.value
                .or(s.fallback)
                .and_then(|v| Info::new(s.key.as_str(), v).ok())
        })
        .collect();
    let status = wire::overall_status(asked, results.len());
    Reply {
        status,
        value: (!results.is_empty()).then(|| wire::encode_results(&results)),
        message: if status == Status::ERR_NOT_FOUND {
            "no key of the query could be answered".into()
        } else {
            String::new()
        },
    }
}

/// Puts the host's answers into the slots it was asked for: each answer
/// fills the first open slot of its key.
fn fill(slots: &mut [Slot], host_slots: &[usize], answers: Vec<Info>) {
    for a in answers {
        if let Some(&i) = host_slots
            .iter()
            .find(|&&i| slots[i].value.is_none() && a.is(&slots[i].key))
        {
            slots[i].value = Some(a.value);
        }
    }
}

pub(crate) fn query(inner: &Inner, to: ReplyTo, queries: Vec<Query>) {
    if let Err(e) = wire::check_queries(&queries) {
        to.send(&Reply::error(&e));
        return;
    }
    let (mut slots, for_host, host_slots) = match answer_locally(inner, &queries) {
        Ok(x) => x,
        Err(e) => {
            to.send(&Reply::error(&e));
            return;
        }
    };
    if for_host.is_empty() {
        to.send(&reply_of(slots));
        return;
    }
    let ticket = match inner.inflight.take(to.proc(), "query") {
        Ok(t) => t,
        Err(e) => {
            to.send(&Reply::error(&e));
            return;
        }
    };
    let proc = to.proc().clone();
    let asker = proc.clone();
    let log = inner.logger();
    let done = Box::new(move |r: Result<Vec<Info>>| {
        drop(ticket);
        match r {
            Ok(answers) => fill(&mut slots, &host_slots, answers),
            // The host answering nothing is not the request failing:
            // what the server answered stands.
            Err(e) => log.log(format_args!("{proc:?}: host query: {e}")),
        }
        to.send(&reply_of(slots));
    });
    inner.host.query(&asker, &for_host, done);
}
