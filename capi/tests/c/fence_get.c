/*
 * Direct modex after a fence without data, the way Open MPI's ranks use
 * it: every rank puts one key, commits, joins PMIx_Fence with
 * PMIX_COLLECT_DATA=false over its whole namespace, then gets that key of
 * every peer — and leaves as soon as it has them (no closing barrier),
 * so a fast rank may have exited, and been deregistered by mpirun, before
 * a slow one asks for its key.
 *
 * Usage: fence_get <iterations> <jitter_us> [late]
 *   iterations  put/commit/fence/get rounds (a fresh key each round)
 *   jitter_us   before its gets each rank sleeps 0..jitter_us µs
 *               (pseudo-random per rank and round): the compute a real
 *               program does between fence and get
 *   late        rank 0 gets its peers' keys only after they exited
 *               (it watches their pids, which it gets first)
 *
 * Launched by Debian's mpirun (the PMIx server is mpirun's, i.e. this
 * library through LD_LIBRARY_PATH). Every rank is bounded by an alarm
 * (FENCE_GET_ALARM seconds, default 20): a get that never returns kills
 * the rank with SIGALRM, which mpirun reports.
 * Each rank prints "fence_get rank R: N gets ok" and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pmix.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static pmix_proc_t me;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "fence_get rank %u: %s: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(1);
}

static void put_u64(const char *key, uint64_t x)
{
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_UINT64;
    v.data.uint64 = x;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Put", rc);
}

static uint64_t get_u64(pmix_rank_t r, const char *key)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "fence_get rank %u: PMIx_Get(%u, %s): %s\n", me.rank, r, key,
                PMIx_Error_string(rc));
        exit(1);
    }
    if (NULL == v || PMIX_UINT64 != v->type) {
        fprintf(stderr, "fence_get rank %u: PMIx_Get(%u, %s): wrong type\n", me.rank, r, key);
        exit(1);
    }
    uint64_t x = v->data.uint64;
    PMIX_VALUE_RELEASE(v);
    return x;
}

static void fence_without_data(void)
{
    pmix_info_t info;
    bool no = false;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &no, PMIX_BOOL);
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Fence", rc);
}

/* The value rank r puts in round it. */
static uint64_t expected(pmix_rank_t r, int it)
{
    return ((uint64_t) r << 32) | (uint32_t) it;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fence_get <iterations> <jitter_us> [late]\n");
        return 2;
    }
    int iters = atoi(argv[1]);
    long jitter = atol(argv[2]);
    bool late = argc > 3 && 0 == strcmp(argv[3], "late");
    const char *a = getenv("FENCE_GET_ALARM");
    alarm(a ? (unsigned) atoi(a) : 20);

    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Init", rc);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Get(PMIX_JOB_SIZE)", rc);
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    unsigned seed = (unsigned) getpid() * 2654435761u + (unsigned) time(NULL);

    int gets = 0;
    char key[64];
    for (int it = 0; it < iters; it++) {
        snprintf(key, sizeof(key), "fence_get.%d", it);
        put_u64(key, expected(me.rank, it));
        if (0 == it)
            put_u64("fence_get.pid", (uint64_t) getpid());
        rc = PMIx_Commit();
        if (PMIX_SUCCESS != rc)
            die("PMIx_Commit", rc);
        fence_without_data();
        if (late && 0 != me.rank)
            continue; /* the peers leave at once */
        if (late) {
            /* wait (bounded) until every peer has exited, then a little
             * more for mpirun to deregister it */
            for (pmix_rank_t r = 0; r < n; r++) {
                if (r == me.rank)
                    continue;
                pid_t pid = (pid_t) get_u64(r, "fence_get.pid");
                gets++;
                for (int t = 0; t < 1000 && (0 == kill(pid, 0) || EPERM == errno); t++)
                    usleep(10000);
            }
            usleep(200000);
        }
        if (jitter > 0)
            usleep((useconds_t) (rand_r(&seed) % (unsigned long) jitter));
        for (pmix_rank_t k = 1; k < n; k++) {
            pmix_rank_t r = (me.rank + k) % n;
            if (get_u64(r, key) != expected(r, it)) {
                fprintf(stderr, "fence_get rank %u: round %d: wrong value from %u\n", me.rank,
                        it, r);
                return 1;
            }
            gets++;
        }
    }
    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc)
        die("PMIx_Finalize", rc);
    printf("fence_get rank %u: %d gets ok\n", me.rank, gets);
    fflush(stdout);
    return 0;
}
