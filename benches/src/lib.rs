//! # pmix-benches
//!
//! Cross-process latency/throughput harnesses for pmix-rs (no Criterion
//! micro-benchmarks), with the machine's own limits (cache-line ping-pong,
//! futex and pipe wake-ups) measured in the same run so every figure is
//! reported as a ratio.
//!
//! The binaries (`src/bin/`): `pmixbench`, the benchmark as a product —
//! events, wire-up and start-up, natively and through the C ABI of any
//! `libpmix.so.2` (see `pmixbench --help` and `docs/BENCHMARKS.md`) — and
//! `shmbench`, the shared-memory rings alone. What they share lives here:
//! [`summary`] (HDR-histogram latency distributions), [`report`] (rows,
//! ratios, table/CSV/JSON), [`harness`] (spawned jobs, batch statistics),
//! [`limits`] (the raw cache-line and futex ping-pongs between two
//! processes) and [`probe`] (the shared words those ping-pongs use).

pub mod harness;
pub mod limits;
pub mod probe;
pub mod report;
pub mod summary;
