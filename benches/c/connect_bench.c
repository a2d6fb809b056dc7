/*
 * PMIx_Connect latency: every rank of the job connects over the whole
 * namespace (PMIX_RANK_WILDCARD), ITER times, a fence before each so all
 * start together, a PMIx_Disconnect after each. Rank 0 prints the median
 * and the minimum of its PMIx_Connect times in microseconds:
 *   connect np=<n> median_us=<m> min_us=<x> iters=<ITER>
 * Build: cc $(pkg-config --cflags pmix) connect_bench.c -o connect_bench -lpmix
 * Run:   mpirun --oversubscribe -np <n> ./connect_bench [iters]
 * (LD_LIBRARY_PATH=<pmix-rs lib dir> for pmix-rs; unset for OpenPMIx.)
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
    double *t = calloc((size_t) iters, sizeof(double));
    for (int i = -5; i < iters; i++) {
        PMIx_Fence(&all, 1, NULL, 0);
        double t0 = now_us();
        pmix_status_t rc = PMIx_Connect(&all, 1, NULL, 0);
        double dt = now_us() - t0;
        if (PMIX_SUCCESS != rc) {
            fprintf(stderr, "rank %u: PMIx_Connect: %s\n", me.rank, PMIx_Error_string(rc));
            return 2;
        }
        rc = PMIx_Disconnect(&all, 1, NULL, 0);
        if (PMIX_SUCCESS != rc) {
            fprintf(stderr, "rank %u: PMIx_Disconnect: %s\n", me.rank, PMIx_Error_string(rc));
            return 3;
        }
        if (i >= 0)
            t[i] = dt;
    }
    if (0 == me.rank) {
        qsort(t, (size_t) iters, sizeof(double), cmp);
        printf("connect np=%u median_us=%.1f min_us=%.1f iters=%d\n", np, t[iters / 2], t[0],
               iters);
    }
    free(t);
    PMIx_Finalize(NULL, 0);
    return 0;
}
