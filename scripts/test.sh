#!/usr/bin/env bash
# Runs every test of pmix-rs: format, lints, unit/integration/doc tests,
# rustdoc, the loom models (bounded), and keeps the fuzz targets and
# benchmarks compiling. This is the command README.md names and .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (all targets, -D warnings)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test --workspace"
cargo test --workspace

step "cargo doc --no-deps (-D warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

step "loom models (LOOM_MAX_PREEMPTIONS=2, --release, time-capped)"
# A separate target dir: --cfg loom changes every crate's build.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/loom"
LOOM_MAX_PREEMPTIONS=2 RUSTFLAGS="--cfg loom" \
    timeout "${LOOM_TIME_CAP:-900}" \
    cargo test -p pmix-loom-tests --release
unset CARGO_TARGET_DIR

step "fuzz targets compile"
cargo check --manifest-path fuzz/Cargo.toml --quiet

# The request-dispatch target under libFuzzer for a bounded time, when
# cargo-fuzz and a nightly toolchain are there (.ci/run installs them
# when it can); cargo test above already ran the same harness on stable
# (server/tests/dispatch_fuzz.rs). Its server lives in a TMPDIR of its own.
if cargo +nightly fuzz --version >/dev/null 2>&1; then
    step "fuzz request_dispatch (libFuzzer, ${FUZZ_DISPATCH_SECS:-30} s)"
    fuzz_tmp=$(mktemp -d)
    TMPDIR="$fuzz_tmp" cargo +nightly fuzz run request_dispatch -- \
        -max_total_time="${FUZZ_DISPATCH_SECS:-30}" -rss_limit_mb=4096
    rm -rf -- "$fuzz_tmp"
    # The event-record decoder, fresh and in place into a reused event
    # (what every client's progress thread does with its ring's records).
    step "fuzz event_decode (libFuzzer, ${FUZZ_EVENT_SECS:-15} s)"
    cargo +nightly fuzz run event_decode -- \
        -max_total_time="${FUZZ_EVENT_SECS:-15}" -rss_limit_mb=4096
else
    step "fuzz request_dispatch skipped: no cargo +nightly fuzz (the stable harness ran in cargo test)"
fi

echo
echo "all checks passed"
