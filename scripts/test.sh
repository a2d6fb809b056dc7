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

echo
echo "all checks passed"
