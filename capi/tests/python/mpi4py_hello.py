"""mpi4py (Debian python3-mpi4py on Debian's Open MPI 4.1): every rank
prints "mpi4py hello R of N"; an allreduce of the ranks' numbers, checked
on every rank; rank 0 prints "mpi4py allreduce S over N ranks"."""
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
print(f"mpi4py hello {rank} of {size}", flush=True)
total = comm.allreduce(rank + 1, op=MPI.SUM)
want = size * (size + 1) // 2
bad = comm.allreduce(int(total != want), op=MPI.LOR)
if rank == 0:
    print(f"mpi4py allreduce {total} over {size} ranks{' (WRONG)' if bad else ''}",
          flush=True)
sys.exit(1 if bad else 0)
