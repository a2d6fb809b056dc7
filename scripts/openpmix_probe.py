#!/usr/bin/env python3
"""Issue 14's abuse probes against OpenPMIx: Debian's `mpirun` (Open MPI
4.1 on OpenPMIx 4.2) hosts the PMIx server its ranks connect to. This
script starts a 2-rank job of a small C program (built here against
Debian's libpmix) that times PMIx_Fence rounds on the probe's signal, finds
the server's rendezvous address in the ranks' environment
(PMIX_SERVER_URI*), and then, with mpirun's RSS and thread count sampled
from /proc:

  1. baseline: one fence;
  2. idle connections: opens --idle TCP connections (default 1500) that
     never send a byte, holds them --hold seconds (default 10) and runs a
     fence meanwhile: how long it takes, how many connections mpirun
     closed, threads and RSS;
  3. big hello: a connection whose header announces 64 MiB: closed or not
     after 1 s, RSS;
  4. dripped hello: one byte every 2 s for --drip seconds (default 14):
     still open at the end or not, and a fence meanwhile;
  5. a last fence (is the server still serving);
  6. in 3-rank jobs, rank 2 SIGKILLed (a) inside a fence rank 0 is in,
     rank 1 entering after the kill, (b) before entering the fence ranks 0
     and 1 are in: what each gets (status and time, or killed by mpirun),
     and how mpirun ends.

With --pmixrs the same probes run against pmix-rs instead: `pmixrun`
(target/debug, built first) launches the same program linked against
pmix-rs's libpmix.so.2 (capi/make-lib.sh debug, through LD_LIBRARY_PATH),
and the probes connect to its Unix socket (PMIXRS_SERVER_SOCKET); the big
hello is a pmix-rs frame header announcing 64 MiB.

Everything lives in a temporary directory the script makes and removes
(the job's TMPDIR too); every process it starts is killed by its pid at the
end. Usage: scripts/openpmix_probe.py [--idle N] [--hold S] [--drip S].
Figures go to docs/RELIABILITY.md ("OpenPMIx under the same probes").
"""

import argparse
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

FENCE_C = r"""
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static double now_ms(void) {
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
int main(void) {
    pmix_proc_t me;
    const char *dir = getenv("PROBE_DIR");
    char path[4096];
    if (!dir || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    if (getenv("PROBE_KILL")) {
        /* 6.: rank PROBE_KILL fences at "golate" (after the kill), the
         * others at "gokill"; the probe kills rank 2. */
        snprintf(path, sizeof path, "%s/pid.%u", dir, me.rank);
        FILE *f = fopen(path, "w");
        fprintf(f, "%d\n", (int) getpid());
        fclose(f);
        unsigned late = (unsigned) atoi(getenv("PROBE_KILL"));
        snprintf(path, sizeof path, "%s/%s", dir, me.rank == late ? "golate" : "gokill");
        for (int w = 0; access(path, F_OK) != 0; w++) {
            if (w > 12000) return 2;
            usleep(10000);
        }
        double t0 = now_ms();
        pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
        double dt = now_ms() - t0;
        snprintf(path, sizeof path, "%s/kill.%u", dir, me.rank);
        f = fopen(path, "w");
        fprintf(f, "%d %s %.1f\n", rc, PMIx_Error_string(rc), dt);
        fclose(f);
        PMIx_Finalize(NULL, 0);
        return 0;
    }
    if (me.rank == 0) {
        snprintf(path, sizeof path, "%s/uri.tmp", dir);
        FILE *f = fopen(path, "w");
        for (char **e = environ; *e; e++)
            if (!strncmp(*e, "PMIX_SERVER_URI", 15) || !strncmp(*e, "PMIXRS_SERVER_SOCKET=", 21))
                fprintf(f, "%s\n", *e);
        fclose(f);
        char done[4096];
        snprintf(done, sizeof done, "%s/uri", dir);
        rename(path, done);
    }
    for (int k = 1; k <= 4; k++) {
        snprintf(path, sizeof path, "%s/go%d", dir, k);
        for (int w = 0; access(path, F_OK) != 0; w++) {
            if (w > 12000) return 2; /* no signal within 120 s: give up */
            usleep(10000);
        }
        double t0 = now_ms();
        pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
        double dt = now_ms() - t0;
        snprintf(path, sizeof path, "%s/fence%d.%u", dir, k, me.rank);
        FILE *f = fopen(path, "w");
        fprintf(f, "%d %.1f\n", rc, dt);
        fclose(f);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
"""


def status_of(pid):
    """(VmRSS KiB, Threads) of pid, or (None, None)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            s = f.read()
    except OSError:
        return (None, None)
    rss = re.search(r"^VmRSS:\s+(\d+)", s, re.M)
    thr = re.search(r"^Threads:\s+(\d+)", s, re.M)
    return (int(rss.group(1)) if rss else None, int(thr.group(1)) if thr else None)


def wait_file(path, limit):
    t0 = time.time()
    while not os.path.exists(path):
        if time.time() - t0 > limit:
            return False
        time.sleep(0.01)
    return True


def fence(d, k, limit):
    """Signals round k, waits (at most limit s) for both ranks' results."""
    t0 = time.time()
    open(os.path.join(d, f"go{k}"), "w").close()
    out = []
    for r in (0, 1):
        p = os.path.join(d, f"fence{k}.{r}")
        if not wait_file(p, max(0.0, limit - (time.time() - t0))):
            return None, time.time() - t0
        with open(p) as f:
            out.append(f.read().split())
    return out, time.time() - t0


def peer_closed(s):
    """Whether the other end closed s: drains what it sent (a refusal,
    say) without blocking and reports an end of stream or a reset."""
    s.setblocking(False)
    try:
        while True:
            if s.recv(65536) == b"":
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def closed_count(socks):
    return sum(1 for s in socks if peer_closed(s))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle", type=int, default=1500)
    ap.add_argument("--hold", type=float, default=10.0)
    ap.add_argument("--drip", type=float, default=14.0)
    ap.add_argument("--pmixrs", action="store_true")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, a.idle + 256)), hard))

    d = tempfile.mkdtemp(prefix="openpmix-probe.")
    job = None
    try:
        cflags = subprocess.check_output(["pkg-config", "--cflags", "--libs", "pmix"], text=True).split()
        src = os.path.join(d, "fence.c")
        with open(src, "w") as f:
            f.write(FENCE_C)
        exe = os.path.join(d, "fence")
        subprocess.check_call(["cc", "-O1", "-o", exe, src] + cflags)
        env = dict(os.environ, TMPDIR=os.path.join(d, "tmp"), PROBE_DIR=d)
        os.mkdir(env["TMPDIR"])
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if a.pmixrs:
            subprocess.check_call(["cargo", "build", "-q", "-p", "pmix-launcher", "--bin", "pmixrun"], cwd=repo)
            subprocess.check_call([os.path.join(repo, "capi", "make-lib.sh"), "debug"], cwd=repo,
                                  stdout=subprocess.DEVNULL)
            env["LD_LIBRARY_PATH"] = os.path.join(repo, "target", "debug", "pmix-lib")
            launcher = [os.path.join(repo, "target", "debug", "pmixrun"), "--timeout", "600"]
            cmd = launcher + ["-n", "2"]
        else:
            cmd = ["mpirun", "-n", "2", "-x", "PROBE_DIR", "--oversubscribe"]
            if os.geteuid() == 0:
                cmd.append("--allow-run-as-root")
        # Its own session: the end kills the whole job by its group id.
        job = subprocess.Popen(cmd + [exe], env=env, start_new_session=True)
        pid = job.pid
        if not wait_file(os.path.join(d, "uri"), 60):
            sys.exit("no PMIX_SERVER_URI from the ranks within 60 s")
        with open(os.path.join(d, "uri")) as f:
            uris = f.read()
        if a.pmixrs:
            m = re.search(r"^PMIXRS_SERVER_SOCKET=(.*)$", uris, re.M)
            if not m:
                sys.exit(f"no PMIXRS_SERVER_SOCKET in {uris!r}")
            addr, family, name = m.group(1), socket.AF_UNIX, "pmixrun"
        else:
            m = re.search(r"tcp4://([0-9.]+):(\d+)", uris)
            if not m:
                sys.exit(f"no tcp4 rendezvous in {uris!r}")
            addr, family, name = (m.group(1), int(m.group(2))), socket.AF_INET, "mpirun"
        print(f"{name} pid {pid}; PMIx server at {addr}")
        print(f"  {uris.strip()}")
        print(f"baseline: {name} rss/threads {status_of(pid)}")
        r, dt = fence(d, 1, 30)
        print(f"1. baseline fence: {r} ({dt * 1e3:.0f} ms incl. signalling)")

        # 2. idle connections
        socks, refused = [], 0
        t0 = time.time()
        for _ in range(a.idle):
            s = socket.socket(family, socket.SOCK_STREAM)
            s.settimeout(0.5)
            try:
                s.connect(addr)
                socks.append(s)
            except OSError:
                refused += 1
                s.close()
        print(f"2. {len(socks)} idle connections open ({refused} not accepted) in {time.time() - t0:.1f} s")
        time.sleep(2)
        print(f"   after 2 s: server rss/threads {status_of(pid)}, closed by the server {closed_count(socks)}")
        t_hold = time.time()
        r, dt = fence(d, 2, a.hold)
        time.sleep(max(0.0, a.hold - (time.time() - t_hold)))
        if r is None:
            print(f"   fence while they are open: not done after {dt:.1f} s (stalled)")
        else:
            print(f"   fence while they are open: {r} in {dt * 1e3:.0f} ms")
        print(f"   after {a.hold:.0f} s: server rss/threads {status_of(pid)}, closed by the server {closed_count(socks)}")
        for s in socks:
            s.close()
        t1 = time.time()
        if r is None:
            r, _ = fence_wait(d, 2, 30)
            print(f"   ... the fence ended {time.time() - t1:.2f} s after the idle connections closed: {r}")
        time.sleep(1)
        print(f"   after closing: server rss/threads {status_of(pid)}")

        # 3. big hello
        s = connect(family, addr)
        before = status_of(pid)
        if a.pmixrs:
            # magic, version 4, HELLO, tag 0, body length
            s.sendall(b"PMXF" + struct.pack("<HHII", 4, 1, 0, 64 << 20))
        else:
            s.sendall(struct.pack("<iIQ", 0, 0, 64 << 20))
        try:
            s.sendall(b"\0" * (1 << 20))
        except OSError:
            pass
        time.sleep(1)
        print(f"3. big hello (header announcing 64 MiB, 1 MiB sent): closed by the server after 1 s: "
              f"{closed_count([s]) == 1}; rss/threads before {before}, after {status_of(pid)}")
        s.close()

        # 4. dripped hello
        s = connect(family, addr)
        r = None
        t0 = time.time()
        open(os.path.join(d, "go3"), "w").close()
        dropped_at = None
        while time.time() - t0 < a.drip:
            try:
                if peer_closed(s):
                    raise OSError("closed")
                s.send(b"\1")
            except OSError:
                dropped_at = time.time() - t0
                break
            time.sleep(2)
        done = all(os.path.exists(os.path.join(d, f"fence3.{q}")) for q in (0, 1))
        print(f"4. dripped hello, one byte every 2 s for {a.drip:.0f} s: "
              + (f"dropped after {dropped_at:.1f} s" if dropped_at else "never dropped")
              + f"; fence meanwhile {'done' if done else 'not done (stalled)'}")
        s.close()
        if not done:
            t1 = time.time()
            r, _ = fence_wait(d, 3, 30)
            print(f"   ... the fence ended {time.time() - t1:.2f} s after the dripping connection closed: {r}")

        # 5. still serving?
        r, dt = fence(d, 4, 30)
        print(f"5. last fence: {r} ({dt * 1e3:.0f} ms)")
        print(f"   server rss/threads {status_of(pid)}")
        try:
            job.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(job.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        job.wait()
        job = None

        # 6. a rank killed mid-fence (pmix-rs: launcher/tests/fence_death.rs)
        if a.pmixrs:
            return
        for late, what in ((1, "6a. rank 2 SIGKILLed in a fence rank 0 is in, rank 1 arrives after the kill"),
                           (2, "6b. rank 2 SIGKILLed before its fence, ranks 0 and 1 in it")):
            job = kill_probe(d, env, exe, late, what)
    finally:
        if job is not None:
            try:
                os.killpg(job.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            job.wait()
        shutil.rmtree(d, ignore_errors=True)


def connect(family, addr):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(addr)
    return s


def kill_probe(d, env, exe, late, what):
    """A 3-rank job: rank `late` enters its fence after the kill of rank 2,
    the others before; prints what ranks 0 and 1 get and how mpirun ends.
    Returns None once the job is over."""
    kd = os.path.join(d, f"kill{late}")
    os.mkdir(kd)
    env = dict(env, PROBE_DIR=kd, PROBE_KILL=str(late))
    kcmd = ["mpirun", "-n", "3", "-x", "PROBE_DIR", "-x", "PROBE_KILL", "--oversubscribe"]
    if os.geteuid() == 0:
        kcmd.append("--allow-run-as-root")
    job = subprocess.Popen(kcmd + [exe], env=env, start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pids = {}
        for r in (0, 1, 2):
            p = os.path.join(kd, f"pid.{r}")
            if not wait_file(p, 60):
                sys.exit(f"{what}: rank {r} did not start")
            time.sleep(0.05)
            with open(p) as f:
                pids[r] = int(f.read())
        open(os.path.join(kd, "gokill"), "w").close()
        time.sleep(0.3)
        os.kill(pids[2], signal.SIGKILL)
        t_kill = time.time()
        if late != 2:
            time.sleep(0.5)
            open(os.path.join(kd, "golate"), "w").close()
        ended = {}
        while time.time() - t_kill < 15 and len(ended) < 2:
            for r in (0, 1):
                if r in ended:
                    continue
                res = os.path.join(kd, f"kill.{r}")
                if os.path.exists(res):
                    time.sleep(0.02)
                    with open(res) as f:
                        ended[r] = (f"fence returned {f.read().strip()} "
                                    f"({(time.time() - t_kill) * 1e3:.0f} ms after the kill)")
                elif status_of(pids[r]) == (None, None) or gone(pids[r]):
                    ended[r] = (f"killed by mpirun {(time.time() - t_kill) * 1e3:.0f} ms "
                                "after the kill, no fence result")
            time.sleep(0.005)
        try:
            rc = job.wait(timeout=15)
            how = f"mpirun exited {rc} {(time.time() - t_kill):.1f} s after the kill"
        except subprocess.TimeoutExpired:
            how = "mpirun still running 15 s after the kill"
        print(what)
        for r in (0, 1):
            print(f"   rank {r}: {ended.get(r, 'no result, still waiting after 15 s')}")
        print(f"   {how}")
    finally:
        try:
            os.killpg(job.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        job.wait()
    return None


def gone(pid):
    """Whether pid is a zombie (exited, not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def fence_wait(d, k, limit):
    """Waits (at most limit s) for round k's results, already signalled."""
    out = []
    for r in (0, 1):
        p = os.path.join(d, f"fence{k}.{r}")
        if not wait_file(p, limit):
            return None, limit
        with open(p) as f:
            out.append(f.read().split())
    return out, 0


if __name__ == "__main__":
    main()
