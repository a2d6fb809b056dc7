/*
 * PMIx_Get's per-thread answers (capi/src/client/get_cache.rs), np 2:
 * - a repeated get of a peer's key and of a job key allocates only what
 *   the caller frees: the pmix_value_t and, for a byte object, its bytes
 *   (malloc/calloc/realloc/memalign of this thread are counted by the
 *   definitions below, which the library's calls resolve to);
 * - a kept answer never outlives what it was read from: the peer's new
 *   commit, a PMIx_Store_internal value and another thread give the
 *   current value; after the last finalize a get fails with PMIX_ERR_INIT.
 */
/* client_common.h helpers this program does not need */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "client_common.h"

#include <malloc.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static __thread int counting;
static __thread long allocs;

void *malloc(size_t n)
{
    allocs += counting;
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    allocs += counting;
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    allocs += counting;
    return __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    allocs += counting;
    void *p = __libc_memalign(align, n);
    if (NULL == p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    allocs += counting;
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    allocs += counting;
    return __libc_memalign(align, n);
}

#define GETS 1000

static pmix_proc_t peer, wild;

static void put_blob(char fill)
{
    char blob[64];
    memset(blob, fill, sizeof(blob));
    pmix_value_t v;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = blob;
    v.data.bo.size = sizeof(blob);
    CHECK_RC(PMIx_Put(PMIX_LOCAL, "cache.k64", &v), PMIX_SUCCESS);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
}

/* The first byte of the peer's blob, or -1. */
static int peer_blob(void)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&peer, "cache.k64", NULL, 0, &v);
    int c = -1;
    if (PMIX_SUCCESS == rc && v->type == PMIX_BYTE_OBJECT && v->data.bo.size == 64)
        c = v->data.bo.bytes[0];
    if (NULL != v)
        PMIX_VALUE_RELEASE(v);
    return c;
}

/* Allocations of this thread per get of `key` at `p`, over GETS gets. */
static double allocs_per_get(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(p, key, NULL, 0, &v), PMIX_SUCCESS);
    if (NULL != v)
        PMIX_VALUE_RELEASE(v);
    long frees_ok = 1;
    allocs = 0;
    counting = 1;
    for (int i = 0; i < GETS; i++) {
        v = NULL;
        if (PMIX_SUCCESS != PMIx_Get(p, key, NULL, 0, &v))
            frees_ok = 0;
        if (NULL != v)
            PMIX_VALUE_RELEASE(v);
    }
    counting = 0;
    CHECK(frees_ok);
    return (double) allocs / GETS;
}

static void *other_thread(void *arg)
{
    *(int *) arg = peer_blob();
    return NULL;
}

static void fence(void)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
}

int main(void)
{
    main_thread = pthread_self();
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);

    put_blob((char) ('a' + me.rank));
    fence();
    if (0 == me.rank) {
        CHECK(peer_blob() == 'b');
        double job = allocs_per_get(&wild, PMIX_JOB_SIZE);
        double bo = allocs_per_get(&peer, "cache.k64");
        printf("rank 0: allocations per get: job key %.3f, peer's 64 B key %.3f\n", job, bo);
        /* the pmix_value_t (and a byte object's bytes); a rare get that
         * finds its kept answer outdated reads again (a few more) */
        CHECK(job >= 1.0 && job < 1.05);
        CHECK(bo >= 2.0 && bo < 2.05);
    }
    fence();
    /* the peer commits a new value: the kept answer is not handed out */
    if (1 == me.rank)
        put_blob('B');
    fence();
    if (0 == me.rank) {
        CHECK(peer_blob() == 'B');
        int seen = -1;
        pthread_t t;
        CHECK(0 == pthread_create(&t, NULL, other_thread, &seen));
        CHECK(0 == pthread_join(t, NULL));
        CHECK(seen == 'B');
        /* a value stored in this process comes first */
        pmix_value_t mine;
        char blob[64];
        memset(blob, 'x', sizeof(blob));
        memset(&mine, 0, sizeof(mine));
        mine.type = PMIX_BYTE_OBJECT;
        mine.data.bo.bytes = blob;
        mine.data.bo.size = sizeof(blob);
        CHECK_RC(PMIx_Store_internal(&peer, "cache.k64", &mine), PMIX_SUCCESS);
        CHECK(peer_blob() == 'x');
    }
    fence();
    /* after the last finalize nothing kept is handed out */
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    pmix_value_t *v = NULL;
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), PMIX_ERR_INIT);
    CHECK(NULL == v);
    return finish("client_get_cache");
}
