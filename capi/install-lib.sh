#!/usr/bin/env bash
# Installs a built libpmix as a drop-in directory for LD_LIBRARY_PATH:
#   <dir>/libpmix.so.2   and   <dir>/libpmix.so -> libpmix.so.2
# Usage: capi/install-lib.sh <built libpmix.so> <dir>
#
# The replacement is atomic: a running job has libpmix.so.2 mapped, and
# writing into that inode in place (as `cp` over it does) changes or cuts
# the pages under the job (SIGBUS). A fresh file renamed over the name
# leaves the old inode to whoever still maps it.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 <built libpmix.so> <dir>" >&2
    exit 2
fi
src="$1"
out="$2"
mkdir -p "$out"
tmp="$(mktemp "$out/.libpmix.so.2.XXXXXX")"
trap 'rm -f "$tmp" "$out/.libpmix.so.link.$$"' EXIT
cp "$src" "$tmp"
chmod 0755 "$tmp"
mv -f "$tmp" "$out/libpmix.so.2"
ln -sfn libpmix.so.2 "$out/.libpmix.so.link.$$"
mv -Tf "$out/.libpmix.so.link.$$" "$out/libpmix.so"
trap - EXIT
echo "$out/libpmix.so.2"
