//! What this client library supports, as `PMIX_QUERY_ATTRIBUTE_SUPPORT`
//! reports it: the client functions and, per function, the attributes it
//! honours. A function that needs a capability the server did not agree
//! on (an older server) is not reported: it answers
//! `PMIX_ERR_NOT_SUPPORTED` on this connection.

use pmix_core::attrs;
use pmix_core::proto::caps;

/// One client function: its C name, the capability it needs (0: none)
/// and the attributes it honours.
pub(crate) struct Function {
    pub(crate) name: &'static str,
    pub(crate) needs: u64,
    pub(crate) attrs: &'static [&'static str],
}

/// The client functions of this library.
pub(crate) const CLIENT_FUNCTIONS: &[Function] = &[
    Function {
        name: "PMIx_Init",
        needs: 0,
        attrs: &[
            attrs::PROGRAMMING_MODEL,
            attrs::MODEL_LIBRARY_NAME,
            attrs::MODEL_LIBRARY_VERSION,
            attrs::THREADING_MODEL,
        ],
    },
    Function {
        name: "PMIx_Finalize",
        needs: 0,
        attrs: &[],
    },
    Function {
        name: "PMIx_Abort",
        needs: 0,
        attrs: &[],
    },
    Function {
        name: "PMIx_Put",
        needs: 0,
        attrs: &[],
    },
    Function {
        name: "PMIx_Commit",
        needs: 0,
        attrs: &[],
    },
    Function {
        name: "PMIx_Get",
        needs: 0,
        attrs: &[attrs::TIMEOUT, attrs::OPTIONAL, attrs::IMMEDIATE],
    },
    Function {
        name: "PMIx_Fence",
        needs: 0,
        attrs: &[attrs::COLLECT_DATA, attrs::TIMEOUT],
    },
    Function {
        name: "PMIx_Register_event_handler",
        needs: caps::EVENTS,
        attrs: &[attrs::EVENT_HDLR_NAME, attrs::EVENT_HDLR_PREPEND],
    },
    Function {
        name: "PMIx_Notify_event",
        needs: caps::EVENTS,
        attrs: &[attrs::EVENT_NON_DEFAULT],
    },
    Function {
        name: "PMIx_Log",
        needs: caps::LOG,
        attrs: &[],
    },
    Function {
        name: "PMIx_Publish",
        needs: caps::PUBSUB,
        attrs: &[attrs::RANGE, attrs::PERSISTENCE],
    },
    Function {
        name: "PMIx_Lookup",
        needs: caps::PUBSUB,
        attrs: &[attrs::RANGE, attrs::WAIT, attrs::TIMEOUT],
    },
    Function {
        name: "PMIx_Unpublish",
        needs: caps::PUBSUB,
        attrs: &[attrs::RANGE],
    },
    Function {
        name: "PMIx_Connect",
        needs: caps::CONNECT,
        attrs: &[attrs::TIMEOUT],
    },
    Function {
        name: "PMIx_Disconnect",
        needs: caps::CONNECT,
        attrs: &[attrs::TIMEOUT],
    },
    Function {
        name: "PMIx_Query_info",
        needs: caps::QUERY,
        attrs: &[
            attrs::QUERY_REFRESH_CACHE,
            attrs::NSPACE,
            attrs::PSET_NAME,
            attrs::QUERY_ATTRIBUTE_SUPPORT,
        ],
    },
    Function {
        name: "PMIx_IOF_push",
        needs: caps::IOF_PUSH,
        attrs: &[attrs::IOF_COMPLETE],
    },
];
