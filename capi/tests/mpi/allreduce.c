/* MPI_Allreduce of rank + 1 over MPI_COMM_WORLD with MPI_SUM: every rank
 * checks the sum against size * (size + 1) / 2, rank 0 prints it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long mine = rank + 1, sum = 0;
    long want = (long) size * (size + 1) / 2;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad = sum != want;
    if (bad) {
        fprintf(stderr, "rank %d: allreduce sum %ld, want %ld\n", rank, sum, want);
    }
    /* every rank's verdict, so that rank 0's exit status covers them all */
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("allreduce sum %ld over %d ranks%s\n", sum, size,
               any_bad ? " (WRONG)" : "");
        fflush(stdout);
    }
    MPI_Finalize();
    return any_bad ? 1 : 0;
}
