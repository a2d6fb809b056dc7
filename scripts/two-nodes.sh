#!/usr/bin/env bash
# Two "nodes" on one machine for Open MPI's mpirun: two network namespaces
# joined by a veth pair, each with its own host name (a UTS namespace) and
# an /etc/hosts of its own (a private mount namespace bind-mounting a file
# of this run's directory), and an rsh agent that starts ORTE's orted on
# the other node with `ip netns exec`. Runs one command on node A (usually
# `mpirun --hostfile "$TWO_NODES_HOSTFILE" ...`) and removes everything it
# created when it ends, whatever the outcome (an EXIT trap).
#
# Usage: scripts/two-nodes.sh [--timeout S] [--lib DIR] -- command [args...]
#   --lib DIR   the PMIx library of mpirun, orted and the ranks: DIR holds
#               libpmix.so.2 and goes first on LD_LIBRARY_PATH (pmix-rs:
#               capi/make-lib.sh's target/<profile>/pmix-lib); without it
#               Debian's OpenPMIx is used.
#   --timeout S the command is killed after S seconds (default 120).
# In the command's environment: TWO_NODES_HOSTFILE (2 slots on each node),
# TWO_NODES_AGENT (the rsh agent; the script also sets
# OMPI_MCA_plm_rsh_agent to it), TWO_NODES_DIR (this run's directory).
# Node A is "pmixrs-node-a" at 10.253.19.1, node B "pmixrs-node-b" at
# 10.253.19.2 (addresses inside the two namespaces only: nothing outside
# sees them). Needs root and iproute2's `ip`; exit 77 (with the reason on
# stderr) when either is missing.
set -euo pipefail

timeout_s=120
lib=""
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) timeout_s="$2"; shift 2 ;;
        --lib) lib="$(cd "$2" && pwd)"; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--timeout S] [--lib DIR] -- command [args...]" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--timeout S] [--lib DIR] -- command [args...]" >&2; exit 2; }

if [ "$(id -u)" != 0 ]; then
    echo "two-nodes: needs root (network namespaces)" >&2
    exit 77
fi
for tool in ip unshare mount timeout; do
    command -v "$tool" >/dev/null || { echo "two-nodes: needs $tool" >&2; exit 77; }
done

# Names unique to this run: two runs at once must not meet.
tag="$$"
ns_a="pmixrs2n-a-$tag"
ns_b="pmixrs2n-b-$tag"
veth_a="p2na$tag"
veth_b="p2nb$tag"
veth_a="${veth_a:0:15}"
veth_b="${veth_b:0:15}"
dir="$(mktemp -d "${TMPDIR:-/tmp}/pmixrs-two-nodes.XXXXXX")"

cleanup() {
    set +e
    ip netns del "$ns_a" 2>/dev/null
    ip netns del "$ns_b" 2>/dev/null
    ip link del "$veth_a" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT

if ! ip netns add "$ns_a"; then
    echo "two-nodes: cannot create a network namespace here (ip netns add failed)" >&2
    exit 77
fi
ip netns add "$ns_b"
ip link add "$veth_a" type veth peer name "$veth_b"
ip link set "$veth_a" netns "$ns_a"
ip link set "$veth_b" netns "$ns_b"
ip -n "$ns_a" addr add 10.253.19.1/24 dev "$veth_a"
ip -n "$ns_b" addr add 10.253.19.2/24 dev "$veth_b"
for n in "$ns_a" "$ns_b"; do ip -n "$n" link set lo up; done
ip -n "$ns_a" link set "$veth_a" up
ip -n "$ns_b" link set "$veth_b" up

cat >"$dir/hosts" <<HOSTS
127.0.0.1 localhost
10.253.19.1 pmixrs-node-a
10.253.19.2 pmixrs-node-b
HOSTS
cat >"$dir/hostfile" <<HOSTFILE
pmixrs-node-a slots=2
pmixrs-node-b slots=2
HOSTFILE

# on-node NS NAME HOSTS [unshare options] -- CMD...: CMD in network
# namespace NS with host name NAME and /etc/hosts bound to HOSTS.
cat >"$dir/on-node" <<'ONNODE'
#!/bin/sh
ns="$1"; name="$2"; hosts="$3"; shift 3
opts=""
while [ "$1" != "--" ]; do opts="$opts $1"; shift; done
shift
exec ip netns exec "$ns" unshare --uts --mount $opts sh -c \
    'mount --bind "$1" /etc/hosts && hostname "$2" && shift 2 && exec "$@"' \
    sh "$hosts" "$name" "$@"
ONNODE
# ORTE's rsh agent: "<agent> <host> <command line for a shell>".
cat >"$dir/agent" <<AGENT
#!/bin/sh
host="\$1"; shift
case "\$host" in
    pmixrs-node-a|10.253.19.1) ns="$ns_a" ;;
    pmixrs-node-b|10.253.19.2) ns="$ns_b" ;;
    *) echo "two-nodes agent: unknown host \$host" >&2; exit 255 ;;
esac
exec "$dir/on-node" "\$ns" "\$host" "$dir/hosts" -- sh -c "\$*"
AGENT
chmod 0755 "$dir/on-node" "$dir/agent"

export TWO_NODES_DIR="$dir"
export TWO_NODES_HOSTFILE="$dir/hostfile"
export TWO_NODES_AGENT="$dir/agent"
export OMPI_MCA_plm_rsh_agent="$dir/agent"
if [ -n "$lib" ]; then
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
set +e
# Node A's command is the first process of a PID namespace of its own:
# when it ends, or the timeout ends `unshare`, every process of the run
# (mpirun, both orteds, the ranks: all its descendants) is killed with it.
# It runs in the background so that a signal to this script is handled at
# once: the trap ends it, then the EXIT trap removes the nodes.
timeout -k 5 "$timeout_s" "$dir/on-node" "$ns_a" pmixrs-node-a "$dir/hosts" \
    --pid --fork --kill-child -- "$@" </dev/null &
child=$!
trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 130' INT TERM HUP
wait "$child"
rc=$?
set -e
case "$rc" in 124 | 137) echo "two-nodes: the command ran past ${timeout_s} s and was killed" >&2 ;; esac
exit "$rc"
