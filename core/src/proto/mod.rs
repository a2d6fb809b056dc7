//! Control-plane messages between a client and its server (the Unix socket).
//!
//! Every message travels in one [`frame`](crate::codec::frame): the frame's
//! `msg_type` names the message, its `tag` pairs a reply with its request,
//! and its `version` is the protocol version the sender speaks on this
//! connection. The byte layout is in `docs/PROTOCOL.md`.
//!
//! The connection opens with a handshake: the client sends [`Hello`]
//! (the versions and [capabilities](caps) it speaks), the server answers
//! [`Welcome`] with the agreed version (the highest both speak), the agreed
//! capabilities (the intersection) and, on success, the shared segment's file
//! descriptor in the same `sendmsg`. A request that needs a capability the
//! peer did not announce is answered with `PMIX_ERR_NOT_SUPPORTED`.
//!
//! Decoders here read untrusted bytes: every count is bounded by the bytes
//! left, nothing panics (fuzzed by `fuzz/fuzz_targets/proto_decode.rs`).

use crate::codec::{Decoder, Encoder};
use crate::{Proc, Result, Value};

/// Magic word opening a [`Hello`] body.
pub const HELLO_MAGIC: [u8; 4] = *b"PXHI";

/// The newest protocol version this build speaks.
pub const PROTOCOL_VERSION: u16 = 5;

/// The oldest protocol version this build still serves.
pub const MIN_PROTOCOL_VERSION: u16 = 1;

/// Capability bits announced in the handshake.
pub mod caps {
    /// Job-level and proc-level job data is read from the shared store.
    pub const SHM_STORE: u64 = 1 << 0;
    /// The client writes its committed data into its own shared modex store.
    pub const SHM_MODEX: u64 = 1 << 1;
    /// Fences among local procs of one fully local namespace are a
    /// shared-memory barrier.
    pub const SHM_FENCE: u64 = 1 << 2;
    /// Fences whose participants span several namespaces.
    pub const MULTI_NSPACE_FENCE: u64 = 1 << 3;
    /// `get` of data not present locally is served by the server
    /// (direct modex).
    pub const DIRECT_MODEX: u64 = 1 << 4;
    /// Commit over the socket (the server writes the client's modex store).
    pub const SOCKET_COMMIT: u64 = 1 << 5;
    /// Event notification (protocol version 3): the client consumes its
    /// inbound event ring in the segment, pushes events straight into its
    /// local peers' rings, and sends [`NOTIFY`](super::msg::NOTIFY) and
    /// [`EVENT_INTEREST`](super::msg::EVENT_INTEREST) to the server.
    pub const EVENTS: u64 = 1 << 6;
    /// `PMIx_Log` goes to the host (protocol version 4):
    /// [`LOG`](super::msg::LOG).
    pub const LOG: u64 = 1 << 7;
    /// Publish / lookup / unpublish through the host (protocol version 4):
    /// [`PUBLISH`](super::msg::PUBLISH), [`LOOKUP`](super::msg::LOOKUP),
    /// [`UNPUBLISH`](super::msg::UNPUBLISH).
    pub const PUBSUB: u64 = 1 << 8;
    /// Connect / disconnect (RFC0003, protocol version 5):
    /// [`CONNECT`](super::msg::CONNECT), [`DISCONNECT`](super::msg::DISCONNECT).
    pub const CONNECT: u64 = 1 << 9;
    /// PMIx Groups (protocol version 5):
    /// [`GROUP_CONSTRUCT`](super::msg::GROUP_CONSTRUCT),
    /// [`GROUP_DESTRUCT`](super::msg::GROUP_DESTRUCT),
    /// [`GROUP_LEAVE`](super::msg::GROUP_LEAVE),
    /// [`GROUP_INVITE`](super::msg::GROUP_INVITE),
    /// [`GROUP_JOIN`](super::msg::GROUP_JOIN).
    pub const GROUPS: u64 = 1 << 11;
    /// `PMIx_Spawn` through the host (protocol version 5):
    /// [`SPAWN`](super::msg::SPAWN).
    pub const SPAWN: u64 = 1 << 10;
    /// `PMIx_Query_info` answered by the server and its host (protocol
    /// version 5): [`QUERY`](super::msg::QUERY).
    pub const QUERY: u64 = 1 << 12;
    /// Tools (protocol version 5): [`TOOL_HELLO`](super::msg::TOOL_HELLO)
    /// opens the connection of a process the host did not launch.
    pub const TOOL: u64 = 1 << 13;
    /// The inviting leader's actions on the invite path (protocol version
    /// 5, with [`GROUPS`]): [`GROUP_REPLACE`](super::msg::GROUP_REPLACE)
    /// (its handler invites replacements) and a
    /// [`GROUP_DECIDE`](super::msg::GROUP_DECIDE) on
    /// `PMIX_GROUP_CONSTRUCT_ABORT` (the leader notified the abort itself).
    pub const GROUP_LEADER_ACTIONS: u64 = 1 << 14;
    /// `PMIx_IOF_push`: a client or tool sends bytes to other processes'
    /// stdin through the server and its host
    /// ([`IOF_PUSH`](super::msg::IOF_PUSH)).
    pub const IOF_PUSH: u64 = 1 << 15;

    /// Everything protocol version 1 offered.
    pub const V1: u64 = SHM_STORE | SHM_MODEX | SHM_FENCE | DIRECT_MODEX | SOCKET_COMMIT;
    /// Everything protocol version 2 offered.
    pub const V2: u64 = V1 | MULTI_NSPACE_FENCE;
    /// Everything protocol version 3 offered.
    pub const V3: u64 = V2 | EVENTS;
    /// Everything protocol version 4 offered.
    pub const V4: u64 = V3 | LOG | PUBSUB;
    /// Everything this build offers.
    pub const ALL: u64 =
        V4 | CONNECT | SPAWN | QUERY | GROUPS | TOOL | GROUP_LEADER_ACTIONS | IOF_PUSH;

    /// Capabilities that appeared in `version`; a peer speaking an older
    /// version cannot have them.
    pub const fn for_version(version: u16) -> u64 {
        if version >= 5 {
            ALL
        } else if version >= 4 {
            V4
        } else if version >= 3 {
            V3
        } else if version >= 2 {
            V2
        } else {
            V1
        }
    }
}

/// Message types (`msg_type` of the frame).
pub mod msg {
    /// Client → server: [`Hello`](super::Hello).
    pub const HELLO: u16 = 1;
    /// Server → client: [`Welcome`](super::Welcome).
    pub const WELCOME: u16 = 2;
    /// Client → server: the client is finalizing; reply when the host knows.
    pub const FINALIZE: u16 = 10;
    /// Client → server: abort (status, message, procs).
    pub const ABORT: u16 = 11;
    /// Client → server: fence (procs, infos).
    pub const FENCE: u16 = 12;
    /// Client → server: get (proc, key, infos).
    pub const GET: u16 = 13;
    /// Client → server: commit a modex card over the socket.
    pub const COMMIT: u16 = 14;
    /// Client → server, one-way (tag 0, no reply): an event the server must
    /// cache, hold for clients not yet connected, deliver to local clients
    /// the sender could not reach, or pass to the host.
    pub const NOTIFY: u16 = 15;
    /// Client → server, one-way: the status codes this client's handlers
    /// want (the server registers with the host for environment events
    /// only when some client wants them).
    pub const EVENT_INTEREST: u16 = 16;
    /// Client → server: data to log (`PMIx_Log`), handed to the host.
    pub const LOG: u16 = 17;
    /// Client → server: data to publish, handed to the host with the
    /// client's effective uid.
    pub const PUBLISH: u16 = 18;
    /// Client → server: keys to look up; the reply carries the found data.
    pub const LOOKUP: u16 = 19;
    /// Client → server: keys to unpublish.
    pub const UNPUBLISH: u16 = 20;
    /// Client → server: connect (procs, infos); the reply carries the
    /// outcome (RFC0003).
    pub const CONNECT: u16 = 21;
    /// Client → server: disconnect from a connected namespace.
    pub const DISCONNECT: u16 = 22;
    /// Client → server: construct a PMIx group (id, procs, infos); the
    /// reply carries the outcome (`proto::group`).
    pub const GROUP_CONSTRUCT: u16 = 36;
    /// Client → server: destruct a PMIx group (id, infos).
    pub const GROUP_DESTRUCT: u16 = 37;
    /// Client → server: leave a PMIx group (id, infos).
    pub const GROUP_LEAVE: u16 = 38;
    /// Client → server: invite processes into a new PMIx group (id, procs,
    /// infos); the reply, once every invitee answered, carries the outcome.
    pub const GROUP_INVITE: u16 = 39;
    /// Client → server: answer an invitation (id, leader, `u8` accept,
    /// infos); an accept's reply carries the outcome.
    pub const GROUP_JOIN: u16 = 40;
    /// Client → server: what a participant's handlers decided about a
    /// group failure event (id, `i32` event status, `u8` decision, see
    /// [`group::decision`](super::group::decision)); status-only reply.
    pub const GROUP_DECIDE: u16 = 41;
    /// Client → server: the inviting leader's handler asked for
    /// replacements (`PMIX_GROUP_ADD_MEMBERS` in its results): invite
    /// these procs into the invitation (id, procs); status-only reply.
    pub const GROUP_REPLACE: u16 = 42;
    /// Client → server: spawn (job-level infos, apps); the reply's value is
    /// the new namespace (a string).
    pub const SPAWN: u16 = 23;
    /// Client → server: queries (`PMIx_Query_info`) the client could not
    /// answer itself; the reply carries the answers (`proto::query`).
    pub const QUERY: u16 = 46;
    /// Tool → server: [`ToolHello`](super::ToolHello), instead of a
    /// `HELLO` (protocol version 5, [`TOOL`](super::caps::TOOL)).
    pub const TOOL_HELLO: u16 = 47;
    /// Server → tool: [`ToolWelcome`](super::ToolWelcome) (a refusal is a
    /// plain `WELCOME`).
    pub const TOOL_WELCOME: u16 = 48;
    /// Client → server: `PMIx_IOF_pull`: send this connection the output
    /// of some procs on some channels, tagged with the client's handler id.
    pub const IOF_PULL: u16 = 49;
    /// Server → client, one-way (tag 0): a chunk of a process's output
    /// ([`iof::IofChunk`](super::iof::IofChunk)).
    pub const IOF_DELIVER: u16 = 50;
    /// Client → server: `PMIx_IOF_deregister` of one handler id.
    pub const IOF_DEREGISTER: u16 = 51;
    /// Client → server: `PMIx_IOF_push`: bytes for the stdin of some
    /// procs, handed to the host (`Host::push_stdin`).
    pub const IOF_PUSH: u16 = 52;
    /// Bit set in a reply's type: the reply to request type `t` is
    /// `REPLY | t`.
    pub const REPLY: u16 = 0x8000;
}

/// Environment variables [`setup_fork`] hands to a child, read by the
/// client's `init`.
///
/// [`setup_fork`]: https://docs.rs/pmix-server
pub mod env {
    /// The child's namespace (the standard name; Open MPI reads it too).
    pub const NAMESPACE: &str = "PMIX_NAMESPACE";
    /// The child's rank.
    pub const RANK: &str = "PMIX_RANK";
    /// Path of the server's Unix socket.
    pub const SERVER_SOCKET: &str = "PMIXRS_SERVER_SOCKET";
    /// The server's namespace and rank, `"<nspace>.<rank>"`.
    pub const SERVER_ID: &str = "PMIXRS_SERVER_ID";
    /// The server's temporary directory.
    pub const SERVER_TMPDIR: &str = "PMIX_SERVER_TMPDIR";
    /// The node's name as the server knows it.
    pub const HOSTNAME: &str = "PMIX_HOSTNAME";
    /// The library version string.
    pub const VERSION: &str = "PMIX_VERSION";
    /// The client's own secret, made by the server at registration and
    /// handed out by `setup_fork`: its hello must present it.
    pub const CLIENT_SECRET: &str = "PMIXRS_CLIENT_SECRET";
    /// Newest protocol version a client announces (tests of older clients).
    pub const PROTOCOL_MAX: &str = "PMIXRS_PROTOCOL_MAX";
    /// Capability mask a client announces (tests of older clients).
    pub const CAPS: &str = "PMIXRS_CAPS";
    /// How long a client's progress thread spins for work before it
    /// sleeps, in microseconds (default 2).
    pub const PROGRESS_SPIN_US: &str = "PMIXRS_PROGRESS_SPIN_US";
}

/// Keys the server publishes for clients' internal use in the job store.
/// They start with `pmixrs.`, outside the reserved `pmix.` space.
pub mod keys {
    /// The prefix of every key private to pmix-rs: never handed to a
    /// caller that asks for all of a proc's values.
    pub const PRIVATE_PREFIX: &str = "pmixrs.";
    /// Per local proc: its client slot (`UINT32`).
    pub const SLOT: &str = "pmixrs.slot";
    /// Per namespace (rank `WILDCARD`): index of its barrier cell (`UINT32`).
    pub const BARRIER: &str = "pmixrs.barrier";
}

/// Values of a client slot's peer cell (`pmix_shm::barrier::PeerCell`).
pub mod peer_state {
    /// Unused slot.
    pub const FREE: u32 = 0;
    /// Registered by the host, not connected yet.
    pub const REGISTERED: u32 = 1;
    /// Connected (handshake done).
    pub const CONNECTED: u32 = 2;
    /// Finalized cleanly.
    pub const FINALIZED: u32 = 3;
    /// The connection dropped without finalize.
    pub const DEAD: u32 = 4;
}

/// Encodes one modex-store entry: the put's scope, then the value.
pub fn encode_modex_value(scope: crate::Scope, value: &Value) -> Vec<u8> {
    let mut e = Encoder::new();
    e.put_u8(scope.0);
    e.put_value(value);
    e.finish()
}

/// Decodes a modex-store entry.
///
/// # Errors
/// The decoder's errors.
pub fn decode_modex_value(bytes: &[u8]) -> Result<(crate::Scope, Value)> {
    let mut d = Decoder::new(bytes);
    let scope = crate::Scope(d.get_u8()?);
    let v = d.get_value()?;
    d.expect_end()?;
    Ok((scope, v))
}

/// The canonical form of a fence's participant list, which client and
/// server must agree on: sorted, deduplicated, and explicit ranks of a
/// namespace folded into that namespace's `PMIX_RANK_WILDCARD` when it is
/// present.
pub fn canonical_procs(mut procs: Vec<Proc>) -> Vec<Proc> {
    procs.sort();
    procs.dedup();
    let wild: std::collections::BTreeSet<_> = procs
        .iter()
        .filter(|p| p.rank == crate::Rank::WILDCARD)
        .map(|p| p.nspace.clone())
        .collect();
    procs.retain(|p| p.rank == crate::Rank::WILDCARD || !wild.contains(&p.nspace));
    procs
}

pub mod connect;
pub mod group;
mod handshake;
pub mod iof;
pub mod query;
mod reply;
mod request;
#[cfg(test)]
mod spawn_tests;
#[cfg(test)]
mod tests;
pub mod tool;

pub use handshake::{agree_version, Hello, Welcome};
pub use reply::Reply;
pub use request::{pdata_from_value, pdata_to_value, PData, Request};
pub use tool::{ToolHello, ToolWelcome};
