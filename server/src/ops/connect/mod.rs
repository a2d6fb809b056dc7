//! `PMIx_Connect` / `PMIx_Disconnect` (RFC0003).

use std::sync::Arc;

use pmix_core::{Error, Info, Proc, Status};

use crate::inner::Inner;
use crate::link::ReplyTo;

/// A client's connect request.
pub(crate) fn connect(inner: &Arc<Inner>, to: ReplyTo, procs: Vec<Proc>, info: Vec<Info>) {
    let _ = (inner, procs, info);
    to.send_status(Err(Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        "connect is not implemented yet",
    )));
}

/// A client's disconnect request.
pub(crate) fn disconnect(inner: &Arc<Inner>, to: ReplyTo, nspace: String, info: Vec<Info>) {
    let _ = (inner, nspace, info);
    to.send_status(Err(Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        "disconnect is not implemented yet",
    )));
}
