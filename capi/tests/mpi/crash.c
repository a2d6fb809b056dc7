/* Rank 2 leaves with _exit(3) after a barrier, without MPI_Finalize; the
 * other ranks enter a second barrier (which can never complete) and then
 * sleep, so the launcher must notice the dead rank and end the job. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        _exit(3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 30; i++) {
        sleep(1);
    }
    printf("rank %d outlived the crash\n", rank);
    MPI_Finalize();
    return 0;
}
