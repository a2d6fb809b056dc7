//! `PMIx_Log`, handed to the host: the client gets the host's status (on
//! `PMIX_ERR_NOT_SUPPORTED` the C API writes the stdout/stderr channels
//! itself).

use pmix_core::proto::Reply;
use pmix_core::{Info, Status};

use crate::inner::Inner;
use crate::link::ReplyTo;

pub(crate) fn log(inner: &Inner, to: ReplyTo, data: Vec<Info>, directives: Vec<Info>) {
    let t = match inner.inflight.take(to.proc(), "log") {
        Ok(t) => t,
        Err(e) => return to.send(&Reply::error(&e)),
    };
    let proc = to.proc().clone();
    let done = to.completion(move |()| {
        drop(t);
        Reply::status(Status::SUCCESS)
    });
    inner.host.log(&proc, &data, &directives, done);
}
