//! # pmix-launcher
//!
//! `pmixrun`: a single-node resource manager. It will embed the pmix-rs
//! server, implement the `Host` trait for one node, register the job, fork N
//! clients with the environment `setup_fork` gives, forward their
//! stdout/stderr and exit with the job's status.
