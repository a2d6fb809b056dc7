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
mkdir -p "$out"
# Replace atomically: a running job has libpmix.so.2 mapped, and writing
# into that inode in place (cp over it) makes its pages change under the
# job (SIGBUS). A fresh file renamed over the name leaves the old inode to
# whoever still maps it.
tmp="$(mktemp "$out/.libpmix.so.2.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
cp "$target_dir/$profile/libpmix.so" "$tmp"
chmod 0755 "$tmp"
mv -f "$tmp" "$out/libpmix.so.2"
trap - EXIT
ln -sfn libpmix.so.2 "$out/libpmix.so.tmp.$$"
mv -Tf "$out/libpmix.so.tmp.$$" "$out/libpmix.so"
echo "$out/libpmix.so.2"
