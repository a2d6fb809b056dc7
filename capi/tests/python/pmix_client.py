"""A PMIx client written against Debian's python3-pmix (the OpenPMIx 4.2.2
Python bindings), run with pmix-rs as its libpmix.so.2: init, job data,
put/commit/fence/get of every peer's key, resolve_peers/resolve_nodes,
publish/lookup, and an event every rank notifies the namespace
of. Launched with 2 or more ranks (pmixrun -n N, or Debian's mpirun).

Prints "pmix_client rank R: N checks passed" and exits 0; a failure prints
"pmix_client rank R: FAIL ..." and exits 1. An alarm (PMIX_CLIENT_ALARM
seconds, default 60) bounds the process.
"""
import os
import signal
import sys
import threading
import time

import pmix

EVENT = pmix.PMIX_EXTERNAL_ERR_BASE - 1919
checks = 0
rank = -1


def fail(what):
    print(f"pmix_client rank {rank}: FAIL {what}", flush=True)
    os._exit(1)


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        fail(what)


def main():
    global rank
    signal.alarm(int(os.environ.get("PMIX_CLIENT_ALARM", "60")))
    c = pmix.PMIxClient()
    rc, me = c.init([])
    check(rc == pmix.PMIX_SUCCESS, f"init: {rc}")
    rank = me["rank"]
    ns = me["nspace"]
    wild = {"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD}

    rc, size = c.get(wild, pmix.PMIX_JOB_SIZE, [])
    check(rc == pmix.PMIX_SUCCESS, f"get job size: {rc}")
    size = size["value"]
    check(size >= 2, f"job size {size}")
    rc, lrank = c.get(me, pmix.PMIX_LOCAL_RANK, [])
    check(rc == pmix.PMIX_SUCCESS and lrank["val_type"] == pmix.PMIX_UINT16,
          f"local rank {rc} {lrank}")

    # events: a handler for EVENT, then every rank notifies the namespace
    seen = set()
    lock = threading.Lock()

    def on_event(*args):
        # 4.2.2's bindings call (handler id, status, source, info, results);
        # older ones leave the id out
        status, source = args[-4], args[-3]
        if status == EVENT:
            with lock:
                seen.add(source["rank"])
        return pmix.PMIX_EVENT_ACTION_COMPLETE, []

    rc = c.register_event_handler([EVENT], [], on_event)
    # 4.2.2's bindings answer (status, handler id)
    rc = rc[0] if isinstance(rc, tuple) else rc
    check(rc == pmix.PMIX_SUCCESS, f"register_event_handler: {rc}")

    # put / commit / fence / get
    rc = c.put(pmix.PMIX_GLOBAL, "py.card", {"value": f"card-of-{rank}",
                                           "val_type": pmix.PMIX_STRING})
    check(rc == pmix.PMIX_SUCCESS, f"put: {rc}")
    check(c.commit() == pmix.PMIX_SUCCESS, "commit")
    rc = c.fence([], [{"key": pmix.PMIX_COLLECT_DATA, "value": True,
                       "val_type": pmix.PMIX_BOOL}])
    check(rc == pmix.PMIX_SUCCESS, f"fence: {rc}")
    for r in range(size):
        rc, v = c.get({"nspace": ns, "rank": r}, "py.card", [])
        check(rc == pmix.PMIX_SUCCESS and v["value"] == f"card-of-{r}",
              f"get card of {r}: {rc} {v}")

    # resolve
    rc, host = c.get(me, pmix.PMIX_HOSTNAME, [])
    check(rc == pmix.PMIX_SUCCESS, f"get hostname: {rc}")
    host = host["value"]
    rc, peers = c.resolve_peers(host, ns)
    check(rc == pmix.PMIX_SUCCESS and rank in [p["rank"] for p in peers],
          f"resolve_peers({host}): {rc} {peers}")
    rc, nodes = c.resolve_nodes(ns)
    check(rc == pmix.PMIX_SUCCESS and host in str(nodes),
          f"resolve_nodes: {rc} {nodes}")

    # publish / lookup (rank 0 publishes; everyone looks it up after a fence)
    if rank == 0:
        rc = c.publish([{"key": "py.pub", "value": "published-by-0",
                         "val_type": pmix.PMIX_STRING}])
        check(rc == pmix.PMIX_SUCCESS, f"publish: {rc}")
    check(c.fence([], []) == pmix.PMIX_SUCCESS, "fence after publish")
    rc, data = c.lookup([{"key": "py.pub"}], [])
    check(rc == pmix.PMIX_SUCCESS and "published-by-0" in str(data),
          f"lookup: {rc} {data}")
    check(c.fence([], []) == pmix.PMIX_SUCCESS, "fence after lookup")
    # No unpublish: the 4.2.2 bindings write the NULL that ends the key
    # array past the array they allocated, so PMIx_Unpublish may read a
    # garbage key after ours (under Debian mpirun ORTE then answered
    # PMIX_ERR_BAD_PARAM; a C program's unpublish works there).

    # every rank notifies the namespace; every rank hears every other
    rc = c.notify_event(EVENT, me, pmix.PMIX_RANGE_NAMESPACE, [])
    check(rc in (pmix.PMIX_SUCCESS, pmix.PMIX_OPERATION_SUCCEEDED),
          f"notify_event: {rc}")
    others = set(range(size)) - {rank}
    end = time.monotonic() + 20
    while time.monotonic() < end:
        with lock:
            if others <= seen:
                break
        # 4.2.2's bindings queue events; progress() runs the handlers
        if hasattr(c, "progress"):
            c.progress()
        time.sleep(0.01)
    with lock:
        check(others <= seen, f"events from {sorted(others - seen)} missing")

    check(c.fence([], []) == pmix.PMIX_SUCCESS, "last fence")
    check(c.finalize([]) == pmix.PMIX_SUCCESS, "finalize")
    print(f"pmix_client rank {rank}: {checks} checks passed", flush=True)
    # The bindings keep timer threads for event completions; do not wait.
    os._exit(0)


if __name__ == "__main__":
    main()
