/* MPI_Comm_create_group over the even world ranks (only they call it):
 * each member checks its size and rank in the new communicator and an
 * MPI_Allreduce over it, then every rank joins a world MPI_Allreduce of
 * the verdicts; rank 0 prints it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int bad = 0;
    if (rank % 2 == 0) {
        MPI_Group world, evens;
        int members[64], n = 0;
        for (int r = 0; r < size && n < 64; r += 2) {
            members[n++] = r;
        }
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, n, members, &evens);
        MPI_Comm comm;
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 42, &comm);
        int grank, gsize;
        MPI_Comm_rank(comm, &grank);
        MPI_Comm_size(comm, &gsize);
        long mine = rank, sum = 0, want = 0;
        for (int i = 0; i < n; i++) {
            want += members[i];
        }
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
        bad = gsize != n || grank != rank / 2 || sum != want;
        if (bad) {
            fprintf(stderr, "rank %d: group size %d rank %d sum %ld, want %d %d %ld\n",
                    rank, gsize, grank, sum, n, rank / 2, want);
        }
        MPI_Comm_free(&comm);
        MPI_Group_free(&evens);
        MPI_Group_free(&world);
    }
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("comm_create_group of %d even ranks%s\n", (size + 1) / 2,
               any_bad ? " (WRONG)" : "");
        fflush(stdout);
    }
    MPI_Finalize();
    return any_bad;
}
