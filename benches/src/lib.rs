//! # pmix-benches
//!
//! Criterion micro-benchmarks and cross-process latency/throughput harnesses
//! for pmix-rs, with the machine's own limits (cache-line ping-pong, futex
//! ping-pong) measured in the same run so every figure is reported as a ratio.
