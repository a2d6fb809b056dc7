//! # pmix-benches
//!
//! Cross-process latency/throughput harnesses for pmix-rs (no Criterion
//! micro-benchmarks), with the machine's own limits (cache-line ping-pong, futex
//! ping-pong) measured in the same run so every figure is reported as a ratio.
//!
//! The harnesses are binaries (`src/bin/`): `shmbench` (the shared-memory
//! rings), `wirebench` (wire-up: init, get, fence, launch) and `eventbench`
//! (events). What they share lives here: [`harness`] (statistics, spawned
//! jobs, the Markdown table), [`limits`] (the raw cache-line and futex
//! ping-pongs between two processes) and [`probe`] (the shared words those
//! ping-pongs use).
//!
//! ## `eventbench`: what each row measures
//!
//! Every PMIx row runs real clients under `pmixrun` (the binary runs itself
//! as `eventbench client …`); each experiment is repeated `--reps` times,
//! interleaved, and the table gives the median, min and max of the per-run
//! figures. User event codes are `PMIX_EXTERNAL_ERR_BASE - k`, as in the
//! C anchor programs (`docs/BENCHMARKS.md`, "The OpenPMIx anchor programs").
//!
//! - **limits** (two processes over a shared memfd): one cache line bounced
//!   between two spinning processes, and a shared futex word both sides
//!   always sleep on; RTT/2 of the median batch. Each is measured pinned to
//!   CPUs 0 and 1 (as in `docs/LIMITS.md` §1) and unpinned (as the PMIx
//!   clients run, for reference); the futex one also with both on CPU 0. Spinning rows
//!   are quoted as a multiple of the pinned line, sleeping rows of both
//!   pinned futex figures, since a same-CPU wake-up (a few µs) and a
//!   cross-CPU one (~30 µs on this 2-vCPU guest) bracket them.
//! - **notify one-way** (`pmixrun -n 2`): rank 0 notifies PING to rank 1
//!   (range CUSTOM = rank 1, NAMESPACE, or LOCAL with
//!   `PMIX_EVENT_DO_NOT_CACHE`), rank 1's handler notifies PONG back. Two
//!   variants: *handler→handler*, where rank 0's PONG handler sends the
//!   next PING itself (only the two progress threads run: the event path
//!   alone), and *main waits*, as the anchor `notify_lat`: rank 0's handler bumps an
//!   atomic its main thread spins on, and the main thread sends the next
//!   PING (skipped with spinning progress threads on fewer than 3 CPUs:
//!   three threads would spin). One-way = RTT/2, median over the round
//!   trips after a warm-up.
//!   Both with the progress threads spinning (`PMIXRS_PROGRESS_SPIN_US` =
//!   1 s; ratio to the cache-line limit) and sleeping at once (= 0; ratios
//!   to the futex limits).
//! - **PROC_LOCAL** (`pmixrun -n 1`): the main thread stamps, notifies with
//!   `PMIX_RANGE_PROC_LOCAL`, and spins until the handler (on the progress
//!   thread) has recorded its arrival stamp: one-way = arrival − stamp.
//!   Then a burst from the main thread, and the same burst split over 4
//!   producer threads: events/s until the handler counted the last one.
//! - **client→peer throughput**: 1 producer (`-n 2`) or 4 producer processes
//!   (`-n 5`) notify bursts (CUSTOM = rank 0) into rank 0, whose handler
//!   counts (a lost or duplicated event fails the run); events/s from rank
//!   0's exit from the start fence to the last arrival (and first→last
//!   arrival, and the producers' notify call rate).
//! - **fan-out** (`pmixrun -n N+1`, N = 2, 4, 8, 16): rank 0 notifies one
//!   event (NAMESPACE, or LOCAL + DO_NOT_CACHE) that N receivers handle;
//!   each receiver's handler adds one to a counter in a shared memfd
//!   segment the harness passes down. Rank 0 times the notify call itself,
//!   and the time from before the call until it sees the counter reach N
//!   (the last receiver's handler ran; one cache-line transfer late), then
//!   sends the next one (back to back, no pause). The sender yields between
//!   polls when it and the receivers outnumber the CPUs.
//!
//! Throughput and fan-out run with the default progress spin (2 µs); every
//! client-side wait has a 60 s timeout and every job a 120 s deadline, so a
//! missing event makes a FAIL row instead of a hang.

pub mod harness;
pub mod limits;
pub mod probe;
pub mod report;
pub mod summary;
