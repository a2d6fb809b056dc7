#!/usr/bin/env bash
# Builds the C ABI drop-in and lays it out for LD_LIBRARY_PATH:
#   target/<profile>/pmix-lib/libpmix.so.2   (SONAME libpmix.so.2)
#   target/<profile>/pmix-lib/libpmix.so -> libpmix.so.2   (for -lpmix)
# Usage: capi/make-lib.sh [release|debug]   (default: release)
# Then:  LD_LIBRARY_PATH=target/release/pmix-lib ./a_pmix_program
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${1:-release}"
case "$profile" in
    release) cargo build -p pmix-capi --release ;;
    debug) cargo build -p pmix-capi ;;
    *) echo "usage: $0 [release|debug]" >&2; exit 2 ;;
esac

target_dir="${CARGO_TARGET_DIR:-target}"
out="$target_dir/$profile/pmix-lib"
exec capi/install-lib.sh "$target_dir/$profile/libpmix.so" "$out"
