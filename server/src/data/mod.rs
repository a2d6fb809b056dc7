//! The data path: registration (what the host registers, published into
//! the shared job-data store), the job data and the modex as the server
//! reads them, and the server-side `get` (direct modex) that waits for a
//! local commit or asks the host.
//!
//! | file | job |
//! |---|---|
//! | `registration.rs` | register / deregister namespaces and clients |
//! | `job.rs` | the job-data store: values, imported remote cards, the host's `get` |
//! | `card.rs` | a local proc's committed card (a plain value) |
//! | `nodes.rs` | per-node job data: node-qualified keys, this node's job level |
//! | `modex.rs` | reading cards from the clients' modex stores, node blobs, socket commits |
//! | `commits.rs` | baselines, departed cards, requests held for a commit |
//! | `update.rs` | job data that changes while the job runs |
//! | `dmodex.rs` | the server-side `get` and `Server::dmodex_request_nb` |

pub(crate) mod card;
pub(crate) mod commits;
pub(crate) mod dmodex;
pub(crate) mod job;
pub(crate) mod modex;
pub(crate) mod nodes;
pub(crate) mod registration;
pub(crate) mod update;
