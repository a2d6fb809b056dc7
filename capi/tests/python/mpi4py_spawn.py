"""mpi4py COMM_SELF.Spawn (Debian python3-mpi4py on Debian's Open MPI 4.1).
Run with one argument N: the parent spawns N copies of this script, sends
100 + i to child i over the intercommunicator and waits for each to send
it back; then everyone disconnects. The parent prints "parent got N
answers", each child "child I of N got V".
Every process prints the libpmix it mapped on stderr ("libpmix: PATH")."""
import sys

from mpi4py import MPI


def pmix_library():
    """The libpmix this process mapped (the test checks whose it is)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libpmix.so" in line:
                return line.split()[-1]
    return "none"


print(f"libpmix: {pmix_library()}", file=sys.stderr, flush=True)

parent = MPI.Comm.Get_parent()
if parent == MPI.COMM_NULL:
    n = int(sys.argv[1])
    inter = MPI.COMM_SELF.Spawn(sys.executable, args=["-W", "ignore", __file__, str(n)],
                                maxprocs=n)
    for i in range(n):
        inter.send(100 + i, dest=i, tag=1)
    got = sorted(inter.recv(source=i, tag=2) for i in range(n))
    inter.Disconnect()
    ok = got == [100 + i for i in range(n)]
    print(f"parent got {n} answers{'' if ok else f' (WRONG: {got})'}", flush=True)
    sys.exit(0 if ok else 1)
else:
    me, n = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
    v = parent.recv(source=0, tag=1)
    print(f"child {me} of {n} got {v}", flush=True)
    parent.send(v, dest=0, tag=2)
    parent.Disconnect()
