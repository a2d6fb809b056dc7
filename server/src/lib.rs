//! # pmix-server
//!
//! The PMIx server library, embedded in a host resource manager (our
//! `pmixrun`, or a foreign RM through the C ABI). It will hold:
//!
//! - the listener: a Unix stream socket (control plane only) with a versioned
//!   handshake, `SO_PEERCRED` credential checks and the shared segment passed
//!   over `SCM_RIGHTS`;
//! - the namespace and client registry, and publication of job data into the
//!   shared job-data store;
//! - request handling, event routing and the server's event cache;
//! - local collectives (fence), connect and group trackers;
//! - the `Host` trait: the up-calls into the RM for everything that crosses
//!   nodes or needs RM policy.
//!
//! Nothing is implemented yet: see the wire-up issue.
