//! How a server is set up: [`ServerConfig`] and its defaults.

use std::path::PathBuf;
use std::time::Duration;

use pmix_core::proto::{self, caps};
use pmix_core::{Nspace, Rank};

/// How the server is set up.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The server's own namespace (`PMIX_SERVER_NSPACE`).
    pub nspace: Nspace,
    /// The server's own rank (`PMIX_SERVER_RANK`).
    pub rank: Rank,
    /// Directory under which the server makes its private socket directory.
    pub tmpdir: PathBuf,
    /// This node's name.
    pub hostname: String,
    /// Most clients connected at once (client slots in the segment).
    pub max_clients: u32,
    /// Most namespaces registered at once (barrier cells).
    pub max_nspaces: u32,
    /// Bytes of one job-data store buffer (job data and remote cards).
    pub job_store_bytes: usize,
    /// Bytes of one client's modex store buffer (its committed card).
    pub modex_store_bytes: usize,
    /// Capabilities the server offers (tests switch some off).
    pub caps: u64,
    /// Newest protocol version the server speaks.
    pub max_version: u16,
    /// Print refusals and dropped connections on stderr.
    pub log: bool,
    /// Cells (64 bytes each) of each client's inbound event ring: a power
    /// of two, at least 4 (default 1024). A record may take at most half
    /// the ring.
    pub event_ring_cells: usize,
    /// Events the server caches for clients registered later
    /// (`PMIx_server_cache_size`; default 512; 0: no cache). The oldest is
    /// evicted first; job events some local target has not received yet
    /// are held apart from this cache.
    #[doc(alias = "PMIX_SERVER_CACHE_SIZE")]
    pub event_cache_size: usize,
    /// Longest the server waits for room in a connected client's event
    /// ring before it gives that record up (default 1 s).
    pub event_push_timeout: Duration,
    /// Most operations one client may have pending in the server at once,
    /// each kind counted apart: fence episodes it takes part in, `get`s
    /// held for a commit, lookups and other requests the host has not
    /// answered yet (default 256). Beyond it a request is answered
    /// `PMIX_ERR_OUT_OF_RESOURCE`.
    pub max_pending_per_client: usize,
    /// Most connections in their handshake at once (default 64). A
    /// connection beyond it is closed at once (logged).
    pub max_handshakes: usize,
    /// How long a new connection may take to complete its handshake, from
    /// its accept (default 10 s); not restarted by each byte received.
    pub handshake_timeout: Duration,
    /// Most reply bytes that may wait for one client that does not read
    /// its socket (default 64 MiB). A reply that would exceed it closes
    /// that client's connection (logged with its rank): the client is
    /// treated as lost, its operations fail, and nobody else waits for it.
    pub max_outbound_bytes: usize,
    /// Accept tools (`PMIX_SERVER_TOOL_SUPPORT`; default true) and leave
    /// the rendezvous files they look for in `tmpdir`
    /// (`pmix.<host>.tool.<pid>`, `pmix.<host>.tool.<nspace>`,
    /// `pmix.<host>.tool`).
    pub tool_support: bool,
    /// Be this node's system server (`PMIX_SERVER_SYSTEM_SUPPORT`; default
    /// false): also write `pmix.sys.<host>` in `system_tmpdir`.
    pub system_support: bool,
    /// Where the system server's file goes (`PMIX_SYSTEM_TMPDIR`; default
    /// `tmpdir`).
    pub system_tmpdir: Option<PathBuf>,
}

impl ServerConfig {
    /// Defaults for a server of namespace `nspace`, rank 0.
    pub fn new(nspace: Nspace) -> Self {
        ServerConfig {
            nspace,
            rank: Rank(0),
            tmpdir: std::env::temp_dir(),
            hostname: hostname(),
            max_clients: 256,
            max_nspaces: 64,
            job_store_bytes: 4 << 20,
            // 512 KiB: a card of 64 4-KiB blobs (OpenPMIx's modex_twice
            // example) fits; memfd pages are only backed once written
            modex_store_bytes: 512 << 10,
            caps: caps::ALL,
            max_version: proto::PROTOCOL_VERSION,
            log: true,
            event_ring_cells: 1024,
            event_cache_size: 512,
            event_push_timeout: Duration::from_secs(1),
            max_pending_per_client: 256,
            max_handshakes: 64,
            handshake_timeout: Duration::from_secs(10),
            max_outbound_bytes: 64 << 20,
            tool_support: true,
            system_support: false,
            system_tmpdir: None,
        }
    }
}

/// This node's host name (`/proc/sys/kernel/hostname`, else `localhost`).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}
