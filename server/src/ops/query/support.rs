//! What this server says it supports when asked
//! (`PMIX_QUERY_SPAWN_SUPPORT`, `PMIX_QUERY_DEBUG_SUPPORT`): the
//! attributes, comma-separated as OpenPMIx 4.2 answers them. The host is
//! asked first (what a spawn honours is mostly the host's doing); these
//! lists answer when it does not. The debugger work extends them as it
//! lands.

/// Spawn attributes the server itself honours (`PMIx_Spawn`'s deadline).
pub(crate) const SPAWN_SUPPORT: &[&str] =
    &[pmix_core::attrs::TIMEOUT, pmix_core::attrs::SPAWN_TIMEOUT];

/// Debugger attributes this server honours: a job registered with
/// `PMIX_DEBUG_STOP_IN_INIT` is held in init by the client library
/// (`pmix_client::debug`), reporting `PMIX_BREAKPOINT`.
pub(crate) const DEBUG_SUPPORT: &[&str] = &[
    pmix_core::attrs::DEBUG_STOP_IN_INIT,
    pmix_core::attrs::BREAKPOINT,
];

/// The keys the server answers itself (`PMIX_QUERY_SUPPORTED_KEYS`).
pub(crate) const SERVER_KEYS: &[&str] = &[
    pmix_core::attrs::QUERY_NAMESPACES,
    pmix_core::attrs::QUERY_NAMESPACE_INFO,
    pmix_core::attrs::QUERY_LOCAL_PROC_TABLE,
    pmix_core::attrs::QUERY_PROC_TABLE,
    pmix_core::attrs::QUERY_NUM_PSETS,
    pmix_core::attrs::QUERY_PSET_NAMES,
    pmix_core::attrs::QUERY_PSET_MEMBERSHIP,
    pmix_core::attrs::QUERY_NUM_GROUPS,
    pmix_core::attrs::QUERY_GROUP_NAMES,
    pmix_core::attrs::QUERY_GROUP_MEMBERSHIP,
    pmix_core::attrs::QUERY_SPAWN_SUPPORT,
    pmix_core::attrs::QUERY_DEBUG_SUPPORT,
    pmix_core::attrs::QUERY_JOB_STATUS,
    pmix_core::attrs::QUERY_SUPPORTED_KEYS,
    pmix_core::attrs::JOB_SIZE,
    pmix_core::attrs::SERVER_URI,
];
