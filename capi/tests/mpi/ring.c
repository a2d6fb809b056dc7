/* A token goes once around the ring with MPI_Send/MPI_Recv: every rank
 * adds its own rank + 1 (rank 0 starts it at 1) and passes it on; rank 0
 * prints what comes back, size * (size + 1) / 2. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, token;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;

    if (rank == 0) {
        token = 1;
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int want = size * (size + 1) / 2;
        printf("ring token %d after %d ranks%s\n", token, size,
               token == want ? "" : " (WRONG)");
        fflush(stdout);
        MPI_Finalize();
        return token == want ? 0 : 1;
    }
    MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += rank + 1;
    MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
