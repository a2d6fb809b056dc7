//! The [`Host`] trait: the server's up-calls into the resource manager.
//!
//! Every up-call that can take time completes through a [`Completion`] the
//! host may call from any thread, inline or later, exactly once. The server
//! never holds its own locks while calling the host, so a host may call back
//! into the [`Server`](crate::Server) from inside an up-call.
//!
//! Most up-calls are made on the server's one control-plane thread (its
//! reactor), which serves every client: an up-call must not wait for
//! anything (hand slow work to another thread and complete from there),
//! or every client waits with it.
//!
//! The defaults answer `PMIX_ERR_NOT_SUPPORTED` (or succeed, for the pure
//! notifications `client_connected` / `client_finalized`), so a host
//! implements only what it offers.

use pmix_core::proto::PData;
use pmix_core::{App, Error, Info, Nspace, Proc, Result, Status};

/// A one-shot completion callback for an up-call.
pub type Completion<T> = Box<dyn FnOnce(Result<T>) + Send + 'static>;

fn not_supported<T>(done: Completion<T>, what: &str) {
    done(Err(Error::with_context(
        Status::ERR_NOT_SUPPORTED,
        format!("the host does not support {what}"),
    )));
}

/// What a connect produced (RFC0003), identical on every node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConnectOutcome {
    /// The namespace of the new group; `None` for `PMIX_CONNECT_XCHG_ONLY`.
    pub nspace: Option<Nspace>,
    /// The rank map: the real process of each new rank, in rank order
    /// (index = new rank, the canonical order of the participants).
    pub ranks: Vec<Proc>,
    /// The job-level info of every participating namespace, for the
    /// processes that lack it.
    pub job_info: Vec<(Nspace, Vec<Info>)>,
}

/// Up-calls from the server into its host resource manager.
pub trait Host: Send + Sync + 'static {
    /// A registered client completed the handshake. An error refuses it.
    fn client_connected(&self, proc: &Proc, done: Completion<()>) {
        let _ = proc;
        done(Ok(()));
    }

    /// A tool asks to attach (`PMIx_tool_init`): `done` gets its
    /// identity. `info` carries `PMIX_TOOL_NSPACE` / `PMIX_TOOL_RANK` when
    /// the tool asked for an identity, then `PMIX_USERID`, `PMIX_GRPID`
    /// and `PMIX_PROC_PID` (from the socket's credentials). An error
    /// refuses the tool. The default gives the identity asked for, else
    /// `pmix.tool.<pid>` rank 0.
    #[doc(alias = "pmix_server_tool_connection_fn_t")]
    fn tool_connected(&self, info: &[Info], done: Completion<Proc>) {
        done(default_tool_identity(info));
    }

    /// A client called `finalize`; the client stays blocked until `done`.
    fn client_finalized(&self, proc: &Proc, done: Completion<()>) {
        let _ = proc;
        done(Ok(()));
    }

    /// A client asked to abort `procs` (empty: its whole namespace).
    fn abort(
        &self,
        proc: &Proc,
        status: Status,
        message: &str,
        procs: &[Proc],
        done: Completion<()>,
    ) {
        let _ = (proc, status, message, procs);
        not_supported(done, "abort");
    }

    /// The cross-node part of a fence: every local participant arrived.
    /// `data` is this node's self-delimiting, concatenable blob (empty when
    /// data is not collected); `done` receives the concatenation of every
    /// node's blob, in any order.
    fn fence_nb(&self, procs: &[Proc], info: &[Info], data: Vec<u8>, done: Completion<Vec<u8>>) {
        let _ = (procs, info, data);
        not_supported(done, "fence across nodes");
    }

    /// Direct modex: fetch a remote proc's committed data (a blob as made by
    /// [`Server::dmodex_request`](crate::Server::dmodex_request) on the
    /// proc's node). `info` carries `PMIX_REQUIRED_KEY` when one key is
    /// wanted.
    fn direct_modex(&self, proc: &Proc, info: &[Info], done: Completion<Vec<u8>>) {
        let _ = (proc, info);
        not_supported(done, "direct modex");
    }

    /// `PMIx_Publish` of a local client: `info` holds the key/value pairs
    /// and the caller's directives (`PMIX_RANGE`, `PMIX_PERSISTENCE`,
    /// `PMIX_TIMEOUT`), followed by `PMIX_USERID` (`pmix.euid`), the
    /// client's effective uid as registered, which the host uses to scope
    /// access. A key already published in the range is
    /// `PMIX_ERR_DUPLICATE_KEY`.
    fn publish(&self, proc: &Proc, info: &[Info], done: Completion<()>) {
        let _ = (proc, info);
        not_supported(done, "publish");
    }

    /// `PMIx_Lookup` of a local client: the published data for `keys`.
    /// `info` carries the caller's directives (`PMIX_WAIT`: hold the answer
    /// until the keys are published; `PMIX_TIMEOUT` in seconds;
    /// `PMIX_RANGE`) and then `PMIX_USERID`. No key found is
    /// `PMIX_ERR_NOT_FOUND`; otherwise `done` gets what was found.
    fn lookup(&self, proc: &Proc, keys: &[String], info: &[Info], done: Completion<Vec<PData>>) {
        let _ = (proc, keys, info);
        not_supported(done, "lookup");
    }

    /// `PMIx_Unpublish` of a local client: removes `keys` it published (no
    /// keys: all of them). `info` as for [`lookup`](Self::lookup).
    fn unpublish(&self, proc: &Proc, keys: &[String], info: &[Info], done: Completion<()>) {
        let _ = (proc, keys, info);
        not_supported(done, "unpublish");
    }

    /// `PMIx_Spawn` of a local client (`requestor`): start `apps` as a new
    /// job with the job-level directives `job_info`; `done` gets the new
    /// namespace once the host registered it and started its processes.
    fn spawn(&self, requestor: &Proc, job_info: &[Info], apps: &[App], done: Completion<Nspace>) {
        let _ = (requestor, job_info, apps);
        not_supported(done, "spawn");
    }

    /// The cross-node part of a connect (RFC0003): every local participant
    /// of the operation arrived. `procs` is the canonical participant set
    /// (sorted, de-duplicated, whole namespaces as `PMIX_RANK_WILDCARD`;
    /// names of another cluster as `cluster:nspace`, unchanged); `info`
    /// carries `PMIX_CONNECT_ID` when the callers gave one, their other
    /// directives, and `PMIX_GROUP_ID` (`pmix.grp.id`) holding the name the
    /// server minted, which a host that cannot name the group uses as is.
    /// `done` gets the outcome every node must agree on.
    fn connect(&self, procs: &[Proc], info: &[Info], done: Completion<ConnectOutcome>) {
        let _ = (procs, info);
        not_supported(done, "connect across nodes");
    }

    /// The cross-node part of a disconnect from the namespace `nspace`
    /// made by a connect over the canonical set `procs`: every local member
    /// of it disconnected.
    fn disconnect(&self, nspace: &Nspace, procs: &[Proc], info: &[Info], done: Completion<()>) {
        let _ = (nspace, procs, info);
        not_supported(done, "disconnect across nodes");
    }

    /// Relay a local client's event beyond this node: its range is
    /// SESSION, GLOBAL or RM, or NAMESPACE / CUSTOM with targets on other
    /// nodes. `source` is the client (the server stamps it; a client cannot
    /// claim to be another proc). The server's connect events for members
    /// on other nodes come this way too (CUSTOM, naming only those members;
    /// e.g. `PMIX_ERR_PROC_TERM_WO_SYNC` with `source` the member that
    /// died): pass them to those nodes' [`Server::notify`](crate::Server::notify). The server has already delivered the
    /// event to its own local targets; an event the host itself gave to
    /// [`Server::notify`](crate::Server::notify) never comes back here.
    /// A client that asked for an answer (`PMIX_RANGE_RM`) gets the status
    /// `done` receives.
    #[doc(alias = "pmix_server_notify_event_fn_t")]
    fn notify_event(
        &self,
        status: Status,
        source: &Proc,
        range: pmix_core::DataRange,
        info: &[Info],
        done: Completion<()>,
    ) {
        let _ = (status, source, range, info);
        not_supported(done, "notify_event");
    }

    /// Some local client now wants events of `codes` (an empty slice: every
    /// code — a client registered a default handler). The server calls this
    /// only when the union of its clients' wanted codes grows, so the host
    /// registers each code once however many clients want it (the event design,
    /// "PMIx Server Registrations"); the host should then pass matching
    /// environment events to [`Server::notify`](crate::Server::notify).
    #[doc(alias = "pmix_server_register_events_fn_t")]
    fn register_events(&self, codes: &[Status], done: Completion<()>) {
        let _ = codes;
        not_supported(done, "register_events");
    }

    /// No local client wants events of `codes` any more (an empty slice:
    /// the last default handler went away). Mirrors
    /// [`register_events`](Self::register_events).
    #[doc(alias = "pmix_server_deregister_events_fn_t")]
    fn deregister_events(&self, codes: &[Status], done: Completion<()>) {
        let _ = codes;
        not_supported(done, "deregister_events");
    }

    /// `PMIx_Query_info` of a local client (`proc`): the queries, or the
    /// keys of them, the server could not answer itself (it answers the
    /// namespaces it serves, their local proc tables, process sets, and
    /// what it supports), each with the caller's qualifiers
    /// (`PMIX_NSPACE`, `PMIX_PSET_NAME`, `PMIX_GROUP_ID`, …). `done` gets
    /// one info per answered key, keyed by the query key, typed as the
    /// attribute table says (`pmix_core::attrs`); keys the host cannot
    /// answer are simply left out. An error counts as no answer.
    #[doc(alias = "pmix_server_query_fn_t")]
    fn query(&self, proc: &Proc, queries: &[pmix_core::Query], done: Completion<Vec<Info>>) {
        let _ = (proc, queries);
        not_supported(done, "query");
    }

    /// `PMIx_Log` of a local client: `data` keyed by channel
    /// (`PMIX_LOG_MSG`, `PMIX_LOG_STDERR`, `PMIX_LOG_STDOUT`, `PMIX_LOG_SYSLOG`,
    /// …) with the caller's `directives`. The client gets the status
    /// `done` receives; on `PMIX_ERR_NOT_SUPPORTED` (the default) the C
    /// API's `PMIx_Log` writes the stdout/stderr channels in the client
    /// itself.
    fn log(&self, proc: &Proc, data: &[Info], directives: &[Info], done: Completion<()>) {
        let _ = (proc, data, directives);
        not_supported(done, "log");
    }

    /// `PMIx_IOF_push` of a local client or tool (`proc`): `data` for the
    /// stdin of `targets` (a wildcard rank: every rank of its job), in
    /// order; `PMIX_IOF_COMPLETE` among the `directives` closes their
    /// stdin once `data` is written (`data` may then be empty). The host
    /// owns its processes' stdin; `done` gets the status the caller sees
    /// (`PMIX_ERR_NOT_FOUND` for a target whose stdin it does not hold).
    #[doc(alias = "pmix_server_stdin_fn_t")]
    fn push_stdin(
        &self,
        proc: &Proc,
        targets: &[Proc],
        data: &[u8],
        directives: &[Info],
        done: Completion<()>,
    ) {
        let _ = (proc, targets, data, directives);
        not_supported(done, "stdin forwarding");
    }

    /// Job control (later issue).
    fn job_control(
        &self,
        proc: &Proc,
        targets: &[Proc],
        directives: &[Info],
        done: Completion<()>,
    ) {
        let _ = (proc, targets, directives);
        not_supported(done, "job_control");
    }

    /// Group operations (`op`: `pmix_core::proto::group::op`). The server
    /// tracks groups itself and calls this once per construct, after its
    /// local members arrived (and, across nodes, after the fence that
    /// carried the contributions), with the members and the directives;
    /// only for a construct asking `PMIX_GROUP_ASSIGN_CONTEXT_ID`. A host
    /// that answers `PMIX_GROUP_CONTEXT_ID` among its results assigns the
    /// context id (unique in its allocation, the same for every server of
    /// the group); one that does not support it leaves the server's own
    /// counter to assign it.
    fn group(
        &self,
        op: u8,
        group: &str,
        procs: &[Proc],
        directives: &[Info],
        done: Completion<Vec<Info>>,
    ) {
        let _ = (op, group, procs, directives);
        not_supported(done, "group operations");
    }
}

/// The identity [`Host::tool_connected`] gives by default: the one the
/// tool asked for (`PMIX_TOOL_NSPACE` / `PMIX_TOOL_RANK`), else
/// `pmix.tool.<pid>` rank 0.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` for an invalid namespace.
pub fn default_tool_identity(info: &[Info]) -> Result<Proc> {
    crate::tool::default_identity(info)
}

/// A host that offers nothing beyond the defaults (a single node whose
/// fences never leave it).
#[derive(Clone, Copy, Debug, Default)]
pub struct NullHost;

impl Host for NullHost {}
