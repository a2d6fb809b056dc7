//! `PMIx_Publish`, `PMIx_Lookup` and `PMIx_Unpublish`, handed to the host.
//! Each carries the client's effective uid (`PMIX_USERID`) as registered
//! by the host, so the host can scope the data (a client cannot claim
//! another uid: the server adds it, after the client's own infos). Each
//! counts against the client's limit of requests the host has not answered
//! (`inflight.rs`).

use pmix_core::proto::{self, Reply};
use pmix_core::{attrs, Info, Proc, Status, Value};

use crate::inflight::Ticket;
use crate::inner::Inner;
use crate::link::ReplyTo;

/// A ticket for one more host request of `to`'s client, or `None` when
/// its limit is reached (`to` is answered then).
fn ticket(inner: &Inner, to: &ReplyTo, what: &str) -> Option<Ticket> {
    match inner.inflight.take(to.proc(), what) {
        Ok(t) => Some(t),
        Err(e) => {
            to.send(&Reply::error(&e));
            None
        }
    }
}

/// `info` with the client's registered effective uid appended (any
/// `PMIX_USERID` the client sent is dropped first).
fn with_uid(inner: &Inner, proc: &Proc, mut info: Vec<Info>) -> Vec<Info> {
    info.retain(|i| !i.is(attrs::USERID));
    let uid = inner.state.lock().registry.clients.get(proc).map(|c| c.uid);
    if let Some(uid) = uid {
        if let Ok(i) = Info::new(attrs::USERID, Value::Uint32(uid)) {
            info.push(i);
        }
    }
    info
}

pub(crate) fn publish(inner: &Inner, to: ReplyTo, info: Vec<Info>) {
    let Some(t) = ticket(inner, &to, "publish") else {
        return;
    };
    let proc = to.proc().clone();
    let info = with_uid(inner, &proc, info);
    let done = to.completion(move |()| {
        drop(t);
        Reply::status(Status::SUCCESS)
    });
    inner.host.publish(&proc, &info, done);
}

pub(crate) fn lookup(inner: &Inner, to: ReplyTo, keys: Vec<String>, info: Vec<Info>) {
    let Some(t) = ticket(inner, &to, "lookup") else {
        return;
    };
    let proc = to.proc().clone();
    let info = with_uid(inner, &proc, info);
    let done = to.completion(move |found: Vec<proto::PData>| {
        drop(t);
        match proto::pdata_to_value(&found) {
            Ok(v) => Reply {
                status: Status::SUCCESS,
                value: Some(v),
                message: String::new(),
            },
            Err(e) => Reply::error(&e),
        }
    });
    inner.host.lookup(&proc, &keys, &info, done);
}

pub(crate) fn unpublish(inner: &Inner, to: ReplyTo, keys: Vec<String>, info: Vec<Info>) {
    let Some(t) = ticket(inner, &to, "unpublish") else {
        return;
    };
    let proc = to.proc().clone();
    let info = with_uid(inner, &proc, info);
    let done = to.completion(move |()| {
        drop(t);
        Reply::status(Status::SUCCESS)
    });
    inner.host.unpublish(&proc, &keys, &info, done);
}
