/* For the launcher-death test (tests/mpi_lost_launcher.rs): every rank
 * writes its pid to <dir>/pid.<rank>, then rank 0 sleeps (argv[2]
 * seconds) before MPI_Finalize while the others go into MPI_Finalize at
 * once and wait there for rank 0. The test SIGKILLs mpirun meanwhile:
 * no rank may outlive it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: outlive <dir> <seconds>\n");
        return 2;
    }
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/pid.%d", argv[1], rank);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "%d\n", (int) getpid());
    fclose(f);
    if (rank == 0) {
        sleep((unsigned) atoi(argv[2]));
    }
    MPI_Finalize();
    return 0;
}
