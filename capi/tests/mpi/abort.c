/* Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) after a barrier; the other
 * ranks sleep up to 30 s, so the launcher must kill them. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    for (int i = 0; i < 30; i++) {
        sleep(1);
    }
    printf("rank %d was not aborted\n", rank);
    MPI_Finalize();
    return 0;
}
