//! `pmix info`: this build's version, the server attached to (URI, socket,
//! rendezvous file, pid), the protocol and capabilities agreed, and what
//! the server says it supports.

use pmix_core::proto::caps;
use pmix_core::{attrs, Query, Result, Status};

use super::{format, ServerArgs};

/// Names of the capability bits.
const CAPS: &[(u64, &str)] = &[
    (caps::SHM_STORE, "shm-store"),
    (caps::SHM_MODEX, "shm-modex"),
    (caps::SHM_FENCE, "shm-fence"),
    (caps::MULTI_NSPACE_FENCE, "multi-nspace-fence"),
    (caps::DIRECT_MODEX, "direct-modex"),
    (caps::SOCKET_COMMIT, "socket-commit"),
    (caps::EVENTS, "events"),
    (caps::LOG, "log"),
    (caps::PUBSUB, "pubsub"),
    (caps::CONNECT, "connect"),
    (caps::QUERY, "query"),
    (caps::TOOL, "tool"),
    (caps::IOF_PUSH, "iof-push"),
];

/// Runs `pmix info`.
///
/// # Errors
/// Attaching failed.
pub fn run(server: &ServerArgs) -> Result<()> {
    println!("pmix-rs {}", env!("CARGO_PKG_VERSION"));
    println!(
        "protocol versions {}..={}",
        pmix_core::proto::MIN_PROTOCOL_VERSION,
        pmix_core::proto::PROTOCOL_VERSION
    );
    let t = server.attach()?;
    let c = t
        .client()
        .ok_or_else(|| pmix_core::Error::with_context(Status::ERR_UNREACH, "not attached"))?;
    if let Some(e) = t.server() {
        println!("server {} (pid {})", e.server, e.rendezvous.pid);
        println!("uri {}", e.rendezvous.uri);
        println!("socket {}", e.socket.display());
        if let Some(f) = &e.file {
            println!("rendezvous file {}", f.display());
        }
        println!("server library version {}", e.rendezvous.version);
    }
    println!("tool {}", t.proc());
    println!("agreed protocol version {}", c.protocol_version());
    let have = c.capabilities();
    let names: Vec<&str> = CAPS
        .iter()
        .filter(|(b, _)| have & b != 0)
        .map(|(_, n)| *n)
        .collect();
    println!("capabilities {}", names.join(","));
    for key in [
        attrs::QUERY_SUPPORTED_KEYS,
        attrs::QUERY_SPAWN_SUPPORT,
        attrs::QUERY_DEBUG_SUPPORT,
    ] {
        let q = Query {
            keys: vec![key.to_owned()],
            qualifiers: Vec::new(),
        };
        match c.query(&[q]) {
            Ok(a) => a.iter().for_each(|i| println!("{}", format::info(i))),
            Err(e) => println!("{key}: {e}"),
        }
    }
    let _ = t.finalize();
    Ok(())
}
