//! Client requests the server hands to its host: `PMIx_Log`,
//! `PMIx_Publish`, `PMIx_Lookup` and `PMIx_Unpublish`. Publish, lookup and
//! unpublish carry the client's effective uid (`PMIX_USERID`) as registered
//! by the host, so the host can scope the data (a client cannot claim
//! another uid: the server adds it, after the client's own infos).

use std::sync::Arc;

use pmix_core::proto::{self, msg, Reply};
use pmix_core::{attrs, Info, Proc, Result, Status, Value};

use crate::conn::Conn;
use crate::Inner;

/// A completion that answers request `msg_type` with `to_reply` of the
/// host's result.
fn answer<T: 'static>(
    conn: &Arc<Conn>,
    msg_type: u16,
    tag: u32,
    to_reply: impl FnOnce(T) -> Reply + Send + 'static,
) -> crate::host::Completion<T> {
    let c = Arc::clone(conn);
    Box::new(move |r: Result<T>| {
        let reply = match r {
            Ok(v) => to_reply(v),
            Err(e) => Reply::error(&e),
        };
        c.reply(msg_type, tag, &reply);
    })
}

fn ok<T>(_: T) -> Reply {
    Reply::status(Status::SUCCESS)
}

/// `info` with the client's registered effective uid appended (any
/// `PMIX_USERID` the client sent is dropped first).
fn with_uid(inner: &Inner, proc: &Proc, mut info: Vec<Info>) -> Vec<Info> {
    info.retain(|i| !i.is(attrs::USERID));
    let uid = inner.state.lock().clients.get(proc).map(|c| c.uid);
    if let Some(uid) = uid {
        if let Ok(i) = Info::new(attrs::USERID, Value::Uint32(uid)) {
            info.push(i);
        }
    }
    info
}

pub(crate) fn log(
    inner: &Inner,
    conn: &Arc<Conn>,
    tag: u32,
    data: Vec<Info>,
    directives: Vec<Info>,
) {
    let done = answer(conn, msg::LOG, tag, ok);
    inner.host.log(&conn.proc, &data, &directives, done);
}

pub(crate) fn publish(inner: &Inner, conn: &Arc<Conn>, tag: u32, info: Vec<Info>) {
    let info = with_uid(inner, &conn.proc, info);
    let done = answer(conn, msg::PUBLISH, tag, ok);
    inner.host.publish(&conn.proc, &info, done);
}

pub(crate) fn lookup(
    inner: &Inner,
    conn: &Arc<Conn>,
    tag: u32,
    keys: Vec<String>,
    info: Vec<Info>,
) {
    let info = with_uid(inner, &conn.proc, info);
    let done = answer(
        conn,
        msg::LOOKUP,
        tag,
        |found: Vec<proto::PData>| match proto::pdata_to_value(&found) {
            Ok(v) => Reply {
                status: Status::SUCCESS,
                value: Some(v),
                message: String::new(),
            },
            Err(e) => Reply::error(&e),
        },
    );
    inner.host.lookup(&conn.proc, &keys, &info, done);
}

pub(crate) fn unpublish(
    inner: &Inner,
    conn: &Arc<Conn>,
    tag: u32,
    keys: Vec<String>,
    info: Vec<Info>,
) {
    let info = with_uid(inner, &conn.proc, info);
    let done = answer(conn, msg::UNPUBLISH, tag, ok);
    inner.host.unpublish(&conn.proc, &keys, &info, done);
}
