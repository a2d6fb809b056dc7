"""mpi4py Open_port / Publish_name / Lookup_name / Accept / Connect inside
one job (Debian python3-mpi4py on Debian's Open MPI 4.1): the even ranks
(the "server" half) accept on a port their root opened and published; after
a barrier the odd ranks look it up and connect. The server root sends 42 to
the client root over the intercommunicator; the merged communicator sums
the world ranks; everyone disconnects. Every rank prints one line:
"mpi4py R server|client got G sum S".
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

world = MPI.COMM_WORLD
rank, size = world.Get_rank(), world.Get_size()
server = rank % 2 == 0
half = world.Split(int(server), rank)
SERVICE = "mpi4py-cxa"
port = None
if server and half.Get_rank() == 0:
    port = MPI.Open_port()
    MPI.Publish_name(SERVICE, port)
world.Barrier()
if server:
    inter = half.Accept(port, root=0)
else:
    found = MPI.Lookup_name(SERVICE) if half.Get_rank() == 0 else None
    inter = half.Connect(found, root=0)
got = -1
if half.Get_rank() == 0:
    if server:
        inter.send(42, dest=0, tag=7)
        got = 42
    else:
        got = inter.recv(source=0, tag=7)
got = half.bcast(got, root=0)
merged = inter.Merge(high=not server)
total = merged.allreduce(rank, op=MPI.SUM)
merged.Free()
inter.Disconnect()
world.Barrier()
if port is not None:
    MPI.Unpublish_name(SERVICE, port)
    MPI.Close_port(port)
ok = got == 42 and total == size * (size - 1) // 2
print(f"mpi4py {rank} {'server' if server else 'client'} got {got} sum {total}"
      f"{'' if ok else ' (WRONG)'}", flush=True)
sys.exit(0 if ok else 1)
