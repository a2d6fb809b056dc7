/* MPI Sessions' MPI_Comm_create_from_group over mpi://WORLD: Open MPI 5
 * builds the communicator with PMIx_Group_construct (with
 * PMIX_GROUP_ASSIGN_CONTEXT_ID and PMIX_GROUP_INFO), PMIx_Group_destruct
 * and a PMIx_Get of each peer's PMIX_GROUP_LOCAL_CID qualified by the
 * context id. Each rank checks its size and rank and an MPI_Allreduce
 * over the new communicator; rank 0 prints the verdict. Run twice, with
 * two tags, to create two communicators. */
#include <mpi.h>
#include <stdio.h>

static int one(MPI_Group g, const char *tag, int wrank, int wsize)
{
    MPI_Comm comm;
    if (MPI_SUCCESS
        != MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm)) {
        fprintf(stderr, "rank %d: MPI_Comm_create_from_group(%s) failed\n", wrank, tag);
        return 1;
    }
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long mine = rank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
    int bad = size != wsize || rank != wrank || sum != (long) wsize * (wsize - 1) / 2;
    MPI_Comm_free(&comm);
    return bad;
}

int main(void)
{
    MPI_Session s;
    if (MPI_SUCCESS != MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s)) {
        fprintf(stderr, "MPI_Session_init failed\n");
        return 1;
    }
    MPI_Group g;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    int wrank, wsize;
    MPI_Group_rank(g, &wrank);
    MPI_Group_size(g, &wsize);
    int bad = one(g, "pmixrs.first", wrank, wsize);
    bad |= one(g, "pmixrs.second", wrank, wsize);
    /* the verdicts, over one more communicator */
    MPI_Comm comm;
    MPI_Comm_create_from_group(g, "pmixrs.verdict", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (0 == wrank && !any)
        printf("comm_create_from_group %d ranks, 3 communicators\n", wsize);
    MPI_Comm_free(&comm);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
    return any;
}
