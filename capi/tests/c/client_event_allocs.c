/*
 * Heap allocations per event through the C ABI (issue 18), np 2, counted
 * process-wide by the malloc/calloc/realloc/memalign definitions below
 * (the library's calls, Rust's included, resolve to them):
 * - rank 0: PMIX_RANGE_PROC_LOCAL events with one PMIX_UINT64 info, from
 *   the main thread to a C handler on the progress thread (sender and
 *   receiver in one process);
 * - rank 1: PMIX_RANGE_NAMESPACE events with one PMIX_UINT64 info from
 *   rank 0, counted while its handler receives them;
 * - both ranks: PMIX_RANGE_CUSTOM events with PMIX_EVENT_CUSTOM_RANGE as
 *   a pmix_data_array_t of one pmix_proc_t (as C programs give it) and the
 *   PMIX_UINT64 info, in a ping-pong: rank 0 sends one to rank 1, whose
 *   handler answers with one to rank 0; each rank counts while it sends
 *   and receives them, and its handler checks it sees exactly those infos.
 *   One event in flight at a time: the warm-up has used every pooled
 *   event the counted window uses (a burst deeper than any before would
 *   shape a pooled event for a data array once: not the steady state).
 * Each window comes after a warm-up; fewer than one allocation per 100
 * events passes (a stray allocation of another thread meanwhile is not
 * the event path's).
 */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "client_common.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_long allocs;
static atomic_int counting;

void *malloc(size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&allocs, 1);
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&allocs, 1);
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&allocs, 1);
    return __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&allocs, 1);
    void *p = __libc_memalign(align, n);
    if (NULL == p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add(&allocs, 1);
    return __libc_memalign(align, n);
}

#define WARM 1000
#define EVENTS 10000
#define CODE (PMIX_EXTERNAL_ERR_BASE - 7)
#define CUSTOM_CODE (PMIX_EXTERNAL_ERR_BASE - 8)
#define ANSWER (PMIX_EXTERNAL_ERR_BASE - 9)

static atomic_long seen;
/* CUSTOM phase: events rank 1 received, answers rank 0 received */
static atomic_long custom_seen, answers;
static atomic_long wrong;
static atomic_int registered;
/* the CUSTOM events' infos: the range (the other rank) and test.x */
static pmix_info_t to_peer[2];

/* Whether `info` is what a CUSTOM event of this test carries: the range
 * (one proc: this process) then test.x = 42. */
static int custom_infos_ok(const pmix_info_t *info, size_t ninfo)
{
    if (2 != ninfo || !PMIX_CHECK_KEY(&info[0], PMIX_EVENT_CUSTOM_RANGE)
        || PMIX_DATA_ARRAY != info[0].value.type || NULL == info[0].value.data.darray)
        return 0;
    const pmix_data_array_t *d = info[0].value.data.darray;
    if (PMIX_PROC != d->type || 1 != d->size || NULL == d->array)
        return 0;
    const pmix_proc_t *p = (const pmix_proc_t *)d->array;
    return PMIX_CHECK_NSPACE(p->nspace, me.nspace) && me.rank == p->rank
           && PMIX_CHECK_KEY(&info[1], "test.x") && PMIX_UINT64 == info[1].value.type
           && 42 == info[1].value.data.uint64;
}

static pmix_status_t notify_code(pmix_status_t code, pmix_data_range_t range, pmix_info_t *info,
                                 size_t ninfo)
{
    pmix_status_t rc;
    while (PMIX_ERR_OUT_OF_RESOURCE
           == (rc = PMIx_Notify_event(code, &me, range, info, ninfo, NULL, NULL)))
        sched_yield();
    return rc;
}

static pmix_status_t notify(pmix_data_range_t range, pmix_info_t *info)
{
    return notify_code(CODE, range, info, 1);
}

/* A CUSTOM event: on rank 1 it is answered at once (counted from the
 * WARM-th on, up to the last) */
static void on_custom(pmix_status_t status, const pmix_info_t *info, size_t ninfo)
{
    if (!custom_infos_ok(info, ninfo))
        atomic_fetch_add(&wrong, 1);
    if (ANSWER == status) {
        atomic_fetch_add(&answers, 1);
        return;
    }
    long k = atomic_fetch_add(&custom_seen, 1) + 1;
    if (WARM == k)
        atomic_store(&counting, 1);
    if (PMIX_SUCCESS != notify_code(ANSWER, PMIX_RANGE_CUSTOM, to_peer, 2))
        atomic_fetch_add(&wrong, 1);
    if (WARM + EVENTS == k)
        atomic_store(&counting, 0);
}

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    if (CUSTOM_CODE == status || ANSWER == status) {
        on_custom(status, info, ninfo);
    } else {
        long k = atomic_fetch_add(&seen, 1) + 1;
        if (1 == me.rank && WARM == k)
            atomic_store(&counting, 1);
        if (1 == me.rank && WARM + EVENTS == k)
            atomic_store(&counting, 0);
    }
    if (NULL != cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void registered_cb(pmix_status_t status, size_t id, void *cbdata)
{
    atomic_store(&registered, 1);
}

static int wait_count(atomic_long *count, long want)
{
    double end = now_s() + 60.0;
    while (atomic_load(count) < want) {
        if (now_s() > end) {
            fprintf(stderr, "rank %u: %ld of %ld events arrived\n", me.rank, atomic_load(count),
                    want);
            return -1;
        }
        sched_yield();
    }
    return 0;
}

static int wait_seen(long want)
{
    return wait_count(&seen, want);
}

int main(void)
{
    main_thread = pthread_self();
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    pmix_status_t codes[] = {CODE, CUSTOM_CODE, ANSWER};
    CHECK_RC(PMIx_Register_event_handler(codes, 3, NULL, 0, handler, registered_cb, NULL),
             PMIX_SUCCESS);
    CHECK(0 == wait_for(&registered, 1, "the registration"));
    pmix_info_t info;
    uint64_t x = 42;
    PMIX_INFO_LOAD(&info, "test.x", &x, PMIX_UINT64);

    if (0 == me.rank) {
        for (long i = 0; i < WARM; i++)
            CHECK_RC(notify(PMIX_RANGE_PROC_LOCAL, &info), PMIX_SUCCESS);
        CHECK(0 == wait_seen(WARM));
        long bad = 0;
        atomic_store(&counting, 1);
        for (long i = 0; i < EVENTS; i++) {
            if (PMIX_SUCCESS != notify(PMIX_RANGE_PROC_LOCAL, &info))
                bad++;
            if (0 != wait_seen(WARM + i + 1)) {
                bad++;
                break;
            }
        }
        atomic_store(&counting, 0);
        CHECK(0 == bad);
        long n = atomic_load(&allocs);
        printf("rank 0: %ld allocations in %d PROC_LOCAL events\n", n, EVENTS);
        CHECK(n * 100 < EVENTS);
    }
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    if (0 == me.rank) {
        for (long i = 0; i < WARM + EVENTS; i++)
            CHECK_RC(notify(PMIX_RANGE_NAMESPACE, &info), PMIX_SUCCESS);
    } else {
        CHECK(0 == wait_seen(WARM + EVENTS));
        long n = atomic_load(&allocs);
        printf("rank 1: %ld allocations while receiving %d NAMESPACE events\n", n, EVENTS);
        CHECK(n * 100 < EVENTS);
    }

    /* CUSTOM ping-pong, the range as a data array of one proc */
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
    pmix_data_array_t darr = {.type = PMIX_PROC, .size = 1, .array = &peer};
    PMIX_INFO_LOAD(&to_peer[0], PMIX_EVENT_CUSTOM_RANGE, &darr, PMIX_DATA_ARRAY);
    PMIX_INFO_LOAD(&to_peer[1], "test.x", &x, PMIX_UINT64);
    atomic_store(&allocs, 0);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    if (0 == me.rank) {
        long bad = 0;
        for (long i = 0; i < WARM + EVENTS && 0 == bad; i++) {
            if (WARM == i)
                atomic_store(&counting, 1);
            if (PMIX_SUCCESS != notify_code(CUSTOM_CODE, PMIX_RANGE_CUSTOM, to_peer, 2))
                bad++;
            if (0 != wait_count(&answers, i + 1))
                bad++;
        }
        atomic_store(&counting, 0);
        CHECK(0 == bad);
        long n = atomic_load(&allocs);
        printf("rank 0: %ld allocations while sending %d CUSTOM events and receiving their "
               "answers (%ld with other infos)\n",
               n, EVENTS, atomic_load(&wrong));
        CHECK(n * 100 < EVENTS);
    } else {
        CHECK(0 == wait_count(&custom_seen, WARM + EVENTS));
        long n = atomic_load(&allocs);
        printf("rank 1: %ld allocations while receiving %d CUSTOM events and answering them "
               "(%ld with other infos)\n",
               n, EVENTS, atomic_load(&wrong));
        CHECK(n * 100 < EVENTS);
    }
    CHECK(0 == atomic_load(&wrong));
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&to_peer[0]);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish("client_event_allocs");
}
