"""A PMIx tool written against Debian's python3-pmix (the OpenPMIx 4.2.2
Python bindings' PMIxTool), run with pmix-rs as its libpmix.so.2: the
shape of OpenPMIx's `pps` + `pevent`. It attaches to a running job by its
launcher's pid (PMIX_SERVER_PIDINFO, rendezvous files under
PMIX_SERVER_TMPDIR), lists the namespaces (PMIX_QUERY_NAMESPACES) and
each job's process table (PMIX_QUERY_PROC_TABLE qualified by
PMIX_NSPACE), and raises event -3100 at the job's processes (a custom
range naming each job), which tests/c/tool_target.c waits for.

usage: pmix_tool.py PID TMPDIR

Prints "pytool proc NSPACE RANK PID STATE" per process, "pytool
notified" and "pytool done", and exits 0; a failure prints "pytool FAIL
..." and exits 1. An alarm (60 s) bounds the process.
"""
import os
import signal
import sys

import pmix


def fail(what):
    print(f"pytool FAIL {what}", flush=True)
    os._exit(1)


def main():
    signal.alarm(60)
    if len(sys.argv) < 3:
        fail("usage: pmix_tool.py PID TMPDIR")
    pid, tmpdir = int(sys.argv[1]), sys.argv[2]
    t = pmix.PMIxTool()
    # 4.2.2's bindings answer (status, the tool's proc)
    rc, me = t.init([
        {"key": pmix.PMIX_SERVER_PIDINFO, "value": pid, "val_type": pmix.PMIX_PID},
        {"key": pmix.PMIX_SERVER_TMPDIR, "value": tmpdir, "val_type": pmix.PMIX_STRING},
    ])
    if rc != pmix.PMIX_SUCCESS:
        fail(f"init: {t.error_string(rc)}")
    print(f"pytool {me['nspace']}:{me['rank']}", flush=True)

    rc, res = t.query([{"keys": [pmix.PMIX_QUERY_NAMESPACES], "qualifiers": []}])
    if rc != pmix.PMIX_SUCCESS or len(res) != 1:
        fail(f"PMIX_QUERY_NAMESPACES: {t.error_string(rc)} {res}")
    print(f"pytool namespaces {res[0]['value']}", flush=True)
    jobs = [ns for ns in res[0]["value"].split(",") if ns and ns != me["nspace"]]
    if not jobs:
        fail("no namespace")

    targets = []
    for ns in jobs:
        rc, res = t.query([{
            "keys": [pmix.PMIX_QUERY_PROC_TABLE],
            "qualifiers": [{"key": pmix.PMIX_NSPACE, "value": ns,
                            "val_type": pmix.PMIX_STRING}],
        }])
        if rc != pmix.PMIX_SUCCESS or len(res) != 1:
            fail(f"PMIX_QUERY_PROC_TABLE of {ns}: {t.error_string(rc)} {res}")
        table = res[0]["value"]
        if res[0]["val_type"] != pmix.PMIX_DATA_ARRAY or table["type"] != pmix.PMIX_PROC_INFO:
            fail(f"proc table of {ns} is not an array of pmix_proc_info_t: {res}")
        for pi in table["array"]:
            exe = pi["executable"].decode()
            print(f"pytool proc {pi['proc']['nspace'].decode()} {pi['proc']['rank']} "
                  f"{pi['pid']} {t.proc_state_string(pi['state'])} "
                  f"{os.path.basename(exe)}", flush=True)
        targets.append({"nspace": ns, "rank": pmix.PMIX_RANK_WILDCARD})

    rc = t.notify_event(-3100, me, pmix.PMIX_RANGE_CUSTOM,
                        [{"key": pmix.PMIX_EVENT_CUSTOM_RANGE,
                          "value": {"type": pmix.PMIX_PROC, "array": targets},
                          "val_type": pmix.PMIX_DATA_ARRAY}])
    if rc != pmix.PMIX_SUCCESS:
        fail(f"notify_event: {t.error_string(rc)}")
    print("pytool notified", flush=True)
    rc = t.finalize()
    if rc != pmix.PMIX_SUCCESS:
        fail(f"finalize: {t.error_string(rc)}")
    print("pytool done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
