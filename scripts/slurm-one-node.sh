#!/usr/bin/env bash
# A one-node Slurm (Debian slurm-wlm: munged, slurmctld, slurmd) whose
# PMIx plugin (mpi_pmix_v4.so, in slurmstepd) and MPI ranks load pmix-rs,
# then `srun --mpi=pmix -n 4 <program>` for each program given.
#
#   usage: scripts/slurm-one-node.sh <libpmix.so.2> <mpi program>...
#
# Nothing outside a temporary directory of its own is written, and no
# system file is changed: the whole run happens in a private mount
# namespace (`unshare -m --propagation private`) in which pmix-rs is
# bind-mounted over the file Slurm's plugin dlopens by absolute path
# (/usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so -> libpmix.so.2.6.2);
# the mount, the daemons and the directory go away when the script ends,
# on failure too. Open MPI 4.1's ranks load the same file (their
# libpmix.so.2 is that file too), so the plugin and the ranks both run on
# pmix-rs; each program's output says which library it loaded when it
# prints PMIx_Get_version (capi/tests/mpi/hello.c does).
#
# Needs root (bind mount, Slurm daemons). Configuration: its own
# slurm.conf (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
# MpiDefault=pmix, SlurmdParameters=config_overrides so that 4 tasks fit a
# smaller VM), its own munge key and socket, free ports, state, spool and
# TmpFS (the PMIx directories) in the temporary directory.
#
# Exit status: 0 every program ran (exit 0) under srun; 77 skipped — a
# prerequisite is missing or Slurm cannot start here (the reason is
# printed on stderr as "SKIP: ..."); anything else: a program failed
# (its srun status).
set -euo pipefail

PLUGIN_LIBDIR=/usr/lib/x86_64-linux-gnu/pmix2/lib
PLUGIN=/usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix_v4.so
skip() {
    echo "SKIP: $*" >&2
    exit 77
}

if [ "${1:-}" != "--inside" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 <libpmix.so.2> <mpi program>..." >&2; exit 2; }
    [ "$(id -u)" = 0 ] || skip "not root (a bind mount and the Slurm daemons need root)"
    for tool in slurmctld slurmd srun sinfo munged mungekey unshare mount timeout python3; do
        command -v "$tool" >/dev/null || skip "$tool not installed (Debian: slurmd slurmctld slurm-client munge)"
    done
    [ -f "$PLUGIN" ] || skip "no $PLUGIN (Debian: slurm-wlm-basic-plugins)"
    target="$(readlink -f "$PLUGIN_LIBDIR/libpmix.so" || true)"
    [ -f "$target" ] || skip "no $PLUGIN_LIBDIR/libpmix.so to stand in for (Debian: libpmix-dev)"
    lib="$(readlink -f "$1")"
    [ -f "$lib" ] || { echo "no library $1" >&2; exit 2; }
    shift
    progs=()
    for p in "$@"; do progs+=("$(readlink -f "$p")"); done
    unshare -m --propagation private true 2>/dev/null ||
        skip "cannot create a private mount namespace (unshare -m)"
    exec unshare -m --propagation private "$0" --inside "$target" "$lib" "${progs[@]}"
fi

# ---- inside the private mount namespace ----
shift
target="$1"
lib="$2"
shift 2

work="$(mktemp -d "${TMPDIR:-/tmp}/pmixrs-slurm.XXXXXX")"
chmod 0700 "$work"
pids=()
# The slurmstepd processes of this Slurm (they daemonize, so they are not
# our children): the ones with a file open in our directory.
our_stepds() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
        if ls -l "$p/fd" 2>/dev/null | grep -q -- "-> $work/"; then
            echo "${p#/proc/}"
        fi
    done
}
cleanup() {
    local rc=$?
    # Let the steps report their end to slurmd/slurmctld first: a
    # slurmstepd whose controller is gone retries for ever.
    for _ in $(seq 100); do
        [ -z "$(our_stepds)" ] && break
        sleep 0.1
    done
    for pid in $(our_stepds); do
        echo "slurm: slurmstepd $pid still running, killed" >&2
        kill -9 "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    umount "$target" 2>/dev/null || true
    if [ -n "${PMIXRS_SLURM_KEEP:-}" ]; then
        # for debugging: the logs and configuration stay
        echo "slurm: kept $work" >&2
    else
        rm -rf "$work"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# pmix-rs where the plugin (and Open MPI 4.1) look for OpenPMIx; a copy,
# so that a rebuild during the run changes nothing
cp "$lib" "$work/libpmix.so.2"
mount --bind "$work/libpmix.so.2" "$target"

show_logs() {
    for f in "$work"/*.log; do
        [ -f "$f" ] || continue
        echo "--- $(basename "$f") (last 15 lines)" >&2
        tail -n 15 "$f" >&2
    done
}
cannot_start() {
    show_logs
    skip "Slurm cannot start here: $*"
}

# munge: a key and a socket of our own
mkdir -m 0700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" 2>/dev/null ||
    { dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none; }
chmod 0600 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.sock" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" \
    --seed-file="$work/munge/munged.seed" ||
    cannot_start "munged exited with $?"
for _ in $(seq 50); do [ -s "$work/munge/munged.pid" ] && break; sleep 0.1; done
[ -s "$work/munge/munged.pid" ] || cannot_start "munged wrote no pid file"
pids+=("$(cat "$work/munge/munged.pid")")

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
host="$(hostname -s)"
mkdir -p "$work/state" "$work/spool" "$work/tmpfs" "$work/pmixcli"
cat >"$work/slurm.conf" <<EOF
ClusterName=pmixrs
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
TmpFS=$work/tmpfs
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldDebug=info
SlurmdDebug=${PMIXRS_SLURMD_DEBUG:-info}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
NodeName=$host CPUs=4 State=UNKNOWN
PartitionName=one Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
cat >"$work/mpi.conf" <<EOF
PMIxCliTmpDirBase=$work/pmixcli
EOF
export SLURM_CONF="$work/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out.log" 2>&1 &
pids+=("$!")
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out.log" 2>&1 &
pids+=("$!")

state=""
for _ in $(seq 300); do
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || cannot_start "a daemon (pid $pid) exited"
    done
    state="$(sinfo -h -N -o %T 2>/dev/null | head -n1 || true)"
    case "$state" in idle*|mixed*|allocated*) break ;; esac
    sleep 0.1
done
case "$state" in
    idle*|mixed*|allocated*) ;;
    *) cannot_start "the node did not become idle within 30 s (state: '${state:-none}')" ;;
esac
echo "slurm: node $host is $state; srun --mpi=pmix on pmix-rs ($lib)" >&2

status=0
for prog in "$@"; do
    echo "==> srun --mpi=pmix -n 4 $prog" >&2
    set +e
    (cd "$work" && timeout 120 srun --mpi=pmix -n 4 -t 2 "$prog")
    rc=$?
    set -e
    echo "==> $(basename "$prog"): exit $rc" >&2
    if [ "$rc" != 0 ]; then
        status=$rc
        show_logs
    fi
done
exit "$status"
