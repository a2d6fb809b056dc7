/* MPI_Comm_dup of MPI_COMM_WORLD, then MPI_Comm_split of the duplicate
 * into even and odd ranks (key: the reverse rank): each half checks its
 * size, its new rank order and an MPI_Allreduce of the world ranks over
 * it; rank 0 prints the verdict of all ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(dup, rank % 2, size - rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);

    int color = rank % 2;
    int want_size = (size - color + 1) / 2;
    /* members of a color, by descending world rank */
    int want_rank = (size - 1 - rank) / 2;
    if ((size - 1) % 2 != color) {
        want_rank = (size - 2 - rank) / 2;
    }
    long sum = 0, mine = rank, want_sum = 0;
    for (int r = color; r < size; r += 2) {
        want_sum += r;
    }
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, half);

    int bad = hsize != want_size || hrank != want_rank || sum != want_sum;
    if (bad) {
        fprintf(stderr, "rank %d: half size %d rank %d sum %ld, want %d %d %ld\n",
                rank, hsize, hrank, sum, want_size, want_rank, want_sum);
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("comm_split %d ranks into halves%s\n", size, any_bad ? " (WRONG)" : "");
        fflush(stdout);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return any_bad;
}
