/* MPI_Comm_spawn: the parent job (every rank calls it, root 0) starts N
 * children (argv[1], default 2) with `child` as their argument. Parent
 * rank 0 sends each child 100 + its rank over the intercommunicator; each
 * child answers twice the value; parent rank 0 checks the answers and
 * prints "parent got N answers". Each child prints "child R of N got V".
 * Then both sides MPI_Comm_disconnect and finalize.
 *
 * The parent also prints on stderr "spawn_us T": the wall time from the
 * call to MPI_Comm_spawn to the first child's message at parent rank 0
 * (the benchmark of docs/BENCHMARKS.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int child(MPI_Comm parent)
{
    int rank, size, v;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* first message: hello to parent rank 0 */
    MPI_Send(&rank, 1, MPI_INT, 0, 0, parent);
    MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
    printf("child %d of %d got %d\n", rank, size, v);
    fflush(stdout);
    v *= 2;
    MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return child(parent);

    int n = argc > 1 ? atoi(argv[1]) : 2, rank, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *errs = calloc((size_t) n, sizeof(int));
    char *args[] = {"child", NULL};
    MPI_Comm inter;
    double t0 = MPI_Wtime();
    MPI_Comm_spawn(argv[0], args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
    if (rank == 0) {
        int who;
        MPI_Status st;
        MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, 0, inter, &st);
        fprintf(stderr, "spawn_us %.0f\n", (MPI_Wtime() - t0) * 1e6);
        for (int i = 1; i < n; i++)
            MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, 0, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) {
            int v = 100 + i;
            MPI_Send(&v, 1, MPI_INT, i, 1, inter);
        }
        for (int i = 0; i < n; i++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, i, 2, inter, MPI_STATUS_IGNORE);
            if (v != 2 * (100 + i))
                bad++;
        }
        printf("parent got %d answers%s\n", n, bad ? " (WRONG)" : "");
        fflush(stdout);
    }
    for (int i = 0; i < n; i++)
        if (errs[i] != MPI_SUCCESS)
            bad++;
    free(errs);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return bad ? 1 : 0;
}
