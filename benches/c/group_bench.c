/*
 * PMIx group construct + destruct latency with a context id (the cost of
 * Open MPI 5's MPI_Comm_create_from_group), against the same two
 * collectives built from fences as the floor. Every rank of the job, ITER
 * times after 5 warm-up rounds, a fence before each round so all start
 * together:
 *   group: PMIx_Group_construct(id_i, WILDCARD, ASSIGN_CONTEXT_ID +
 *          GROUP_INFO{LOCAL_CID}) then PMIx_Group_destruct(id_i);
 *   floor: two PMIx_Fence over the namespace (no data).
 * Rank 0 prints the medians and minima in microseconds:
 *   group np=<n> group_median_us=<g> group_min_us=<gm> fence2_median_us=<f> fence2_min_us=<fm> ratio=<g/f>
 * Build: cc $(pkg-config --cflags pmix) group_bench.c -o group_bench -lpmix
 * Run:   LD_LIBRARY_PATH=<pmix-rs lib dir> pmixrun -n <n> ./group_bench [iters]
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 50;
    pmix_proc_t me, all;
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0))
        return 1;
    PMIX_PROC_LOAD(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t np = 0;
    if (PMIX_SUCCESS == PMIx_Get(&all, PMIX_JOB_SIZE, NULL, 0, &v) && v) {
        np = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    double *tg = calloc((size_t) iters, sizeof(double));
    double *tf = calloc((size_t) iters, sizeof(double));
    bool yes = true;
    size_t cid = 100 + me.rank;
    pmix_info_t grpinfo;
    PMIX_INFO_LOAD(&grpinfo, PMIX_GROUP_LOCAL_CID, &cid, PMIX_SIZE);
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = 1, .array = &grpinfo};
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_INFO, &darray, PMIX_DATA_ARRAY);
    for (int i = -5; i < iters; i++) {
        char id[64];
        snprintf(id, sizeof(id), "bench-%d", i);
        PMIx_Fence(&all, 1, NULL, 0);
        double t0 = now_us();
        pmix_info_t *results = NULL;
        size_t nresults = 0;
        pmix_status_t rc = PMIx_Group_construct(id, &all, 1, info, 2, &results, &nresults);
        if (PMIX_SUCCESS != rc) {
            fprintf(stderr, "rank %u: construct: %s\n", me.rank, PMIx_Error_string(rc));
            return 2;
        }
        rc = PMIx_Group_destruct(id, NULL, 0);
        double dt = now_us() - t0;
        if (PMIX_SUCCESS != rc) {
            fprintf(stderr, "rank %u: destruct: %s\n", me.rank, PMIx_Error_string(rc));
            return 3;
        }
        if (results)
            PMIX_INFO_FREE(results, nresults);
        PMIx_Fence(&all, 1, NULL, 0);
        t0 = now_us();
        PMIx_Fence(&all, 1, NULL, 0);
        PMIx_Fence(&all, 1, NULL, 0);
        double df = now_us() - t0;
        if (i >= 0) {
            tg[i] = dt;
            tf[i] = df;
        }
    }
    if (0 == me.rank) {
        qsort(tg, (size_t) iters, sizeof(double), cmp);
        qsort(tf, (size_t) iters, sizeof(double), cmp);
        printf("group np=%u group_median_us=%.1f group_min_us=%.1f fence2_median_us=%.1f "
               "fence2_min_us=%.1f ratio=%.2f iters=%d\n",
               np, tg[iters / 2], tg[0], tf[iters / 2], tf[0], tg[iters / 2] / tf[iters / 2],
               iters);
    }
    free(tg);
    free(tf);
    PMIx_Finalize(NULL, 0);
    return 0;
}
