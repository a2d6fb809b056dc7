//! # pmix-loom-tests
//!
//! loom models of the pmix-rs lock-free structures: the header
//! publication every region shares (an attach racing the initialisation
//! sees nothing or everything), the MPSC ring across wrap-around and a full
//! ring, the futex doorbell (no lost wake-up), the job-data store
//! publication, the barrier table's episodes, and the handler chain under
//! concurrent register/deregister/dispatch.
//!
//! The models live in `tests/` and only build with `RUSTFLAGS="--cfg loom"`:
//!
//! ```text
//! RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p pmix-loom-tests --release
//! ```
