/* pmixbench_driver: the C-ABI side of pmixbench. One program, one
 * measurement per run, written against the public pmix.h only, so that it
 * runs on any libpmix.so.2 (pmix-rs's C ABI under pmixrun, OpenPMIx under
 * mpirun). pmixbench compiles it at run time with `cc` and launches it as
 *
 *   pmixbench_driver notify     RANGE WAIT ITERS WARM BUDGET_MS    (np 2)
 *   pmixbench_driver proc-local WAIT ITERS WARM BURST BUDGET_MS THREADS  (np 1)
 *   pmixbench_driver throughput PER_PRODUCER                       (np >= 2)
 *   pmixbench_driver get        N BATCH                            (np 2)
 *   pmixbench_driver fence      ITERS WARM                         (np >= 1)
 *   pmixbench_driver init                                          (any np)
 *
 * RANGE: custom | namespace | local (LOCAL + PMIX_EVENT_DO_NOT_CACHE).
 * WAIT: spin | yield (how a main thread polls a counter).
 * Output (stdout, one write per line): `SAMPLES <name> <ns> <ns> ...` and
 * `RESULT <name> <value>`; on error `FAILED <why>` and exit status 1.
 * Every wait gives up after 60 s. */
#define _GNU_SOURCE
#include <pmix.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EV_PING (PMIX_EXTERNAL_ERR_BASE - 1)
#define EV_PONG (PMIX_EXTERNAL_ERR_BASE - 2)
#define EV_LOCAL (PMIX_EXTERNAL_ERR_BASE - 3)
#define EV_BURST (PMIX_EXTERNAL_ERR_BASE - 4)
#define EV_STOP (PMIX_EXTERNAL_ERR_BASE - 5)

static const double WAIT_S = 60.0;
static pmix_proc_t me;
static _Atomic uint64_t received;
static _Atomic uint64_t last_arrival_ns;
static _Atomic int stopped;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void fail(const char *what, pmix_status_t rc)
{
    printf("FAILED rank %u: %s: %s (%d)\n", me.rank, what, PMIx_Error_string(rc), rc);
    fflush(stdout);
    exit(1);
}

static void check(pmix_status_t rc, const char *what)
{
    if (PMIX_SUCCESS != rc)
        fail(what, rc);
}

static long arg_num(int argc, char **argv, int i)
{
    if (i >= argc) {
        printf("FAILED: missing argument %d\n", i);
        exit(1);
    }
    return strtol(argv[i], NULL, 10);
}

/* Prints `SAMPLES name v...` in one line. */
static void print_samples(const char *name, const uint64_t *v, size_t n)
{
    size_t cap = 32 + n * 21;
    char *buf = malloc(cap);
    size_t len = (size_t) snprintf(buf, cap, "SAMPLES %s", name);
    for (size_t i = 0; i < n; i++)
        len += (size_t) snprintf(buf + len, cap - len, " %llu", (unsigned long long) v[i]);
    buf[len++] = '\n';
    fwrite(buf, 1, len, stdout);
    fflush(stdout);
    free(buf);
}

static void print_result(const char *name, double v)
{
    printf("RESULT %s %.6g\n", name, v);
    fflush(stdout);
}

static uint32_t job_size(void)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    check(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v), "PMIx_Get(JOB_SIZE)");
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return n;
}

static void sync_all(void)
{
    check(PMIx_Fence(NULL, 0, NULL, 0), "PMIx_Fence");
}

/* ---- events ---- */

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) info;
    (void) ninfo;
    (void) results;
    (void) nresults;
    /* LOCAL range echoes a ping-pong event to its sender: not counted.
     * The source is compared only for the ping-pong codes, as the native
     * side's handlers do (its PROC_LOCAL handler counts every event). */
    if (EV_LOCAL == status || EV_BURST == status || NULL == source || source->rank != me.rank
        || 0 != strncmp(source->nspace, me.nspace, PMIX_MAX_NSLEN)) {
        atomic_store_explicit(&last_arrival_ns, now_ns(), memory_order_relaxed);
        if (EV_STOP == status)
            atomic_store(&stopped, 1);
        else
            atomic_fetch_add_explicit(&received, 1, memory_order_release);
    }
    if (NULL != cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void register_handler(void)
{
    pmix_status_t codes[] = {EV_PING, EV_PONG, EV_LOCAL, EV_BURST, EV_STOP};
    pmix_status_t rc = PMIx_Register_event_handler(codes, 5, NULL, 0, on_event, NULL, NULL);
    if (rc < 0)
        fail("PMIx_Register_event_handler", rc);
}

/* Polls until `received` reaches `want` or STOP came; -1 after WAIT_S. */
static int wait_for(uint64_t want, int yield)
{
    uint64_t deadline = now_ns() + (uint64_t) (WAIT_S * 1e9);
    uint64_t n = 0;
    while (atomic_load_explicit(&received, memory_order_acquire) < want) {
        if (atomic_load(&stopped))
            return 1;
        if (yield)
            sched_yield();
        else
            __builtin_ia32_pause();
        if (0 == (++n & 0xfff) && now_ns() > deadline)
            return -1;
    }
    return 0;
}

/* info must hold 2 */
static pmix_data_range_t target(const char *range, const pmix_proc_t *peer, pmix_info_t *info,
                                size_t *ninfo)
{
    memset(info, 0, 2 * sizeof(pmix_info_t));
    *ninfo = 0;
    if (0 == strcmp(range, "custom")) {
        pmix_data_array_t da = {.type = PMIX_PROC, .size = 1, .array = (void *) peer};
        PMIx_Info_load(&info[(*ninfo)++], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
        return PMIX_RANGE_CUSTOM;
    }
    if (0 == strcmp(range, "local")) {
        bool yes = true;
        PMIx_Info_load(&info[(*ninfo)++], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
        return PMIX_RANGE_LOCAL;
    }
    return PMIX_RANGE_NAMESPACE;
}

static void notify(pmix_status_t code, pmix_data_range_t range, pmix_info_t *info, size_t n)
{
    check(PMIx_Notify_event(code, NULL, range, n ? info : NULL, n, NULL, NULL),
          "PMIx_Notify_event");
}

/* rank 0 sends PING, waits for PONG; rank 1 waits for PING, sends PONG. */
static void run_notify(const char *range, int yield, long iters, long warm, long budget_ms)
{
    register_handler();
    if (job_size() != 2) {
        printf("FAILED: notify needs 2 ranks\n");
        exit(1);
    }
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, 1 - me.rank);
    pmix_info_t info[2];
    size_t ninfo;
    pmix_data_range_t rng = target(range, &peer, info, &ninfo);
    sync_all();
    uint64_t *oneway = calloc((size_t) iters + 1, sizeof(uint64_t));
    long done = 0;
    if (0 == me.rank) {
        uint64_t end = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm)
                end = now_ns() + (uint64_t) budget_ms * 1000000u;
            uint64_t t0 = now_ns();
            notify(EV_PING, rng, info, ninfo);
            if (wait_for((uint64_t) i + 1, yield) != 0) {
                printf("FAILED rank 0: PONG %ld never came\n", i);
                exit(1);
            }
            uint64_t t1 = now_ns();
            if (i >= warm) {
                oneway[done++] = (t1 - t0) / 2;
                if (done >= 100 && t1 > end)
                    break;
            }
        }
        notify(EV_STOP, rng, info, ninfo);
        print_samples("oneway", oneway, (size_t) done);
        print_result("round_trips", (double) done);
    } else {
        for (uint64_t i = 1;; i++) {
            int r = wait_for(i, yield);
            if (r > 0)
                break;
            if (r < 0) {
                printf("FAILED rank 1: no PING %llu and no STOP\n", (unsigned long long) i);
                exit(1);
            }
            notify(EV_PONG, rng, info, ninfo);
        }
    }
    sync_all();
    free(oneway);
}

static _Atomic uint64_t busy_retries;

/* A burst event: a library that answers PMIX_ERR_OUT_OF_RESOURCE while its
 * queue is full (OpenPMIx 4.2 with several producer threads) is asked
 * again after a yield, for at most WAIT_S. */
static void notify_burst(void)
{
    uint64_t deadline = 0;
    for (;;) {
        pmix_status_t rc = PMIx_Notify_event(EV_BURST, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0,
                                             NULL, NULL);
        if (PMIX_ERR_OUT_OF_RESOURCE != rc) {
            check(rc, "PMIx_Notify_event(burst)");
            return;
        }
        atomic_fetch_add(&busy_retries, 1);
        if (0 == deadline)
            deadline = now_ns() + (uint64_t) (WAIT_S * 1e9);
        else if (now_ns() > deadline)
            fail("PMIx_Notify_event(burst), still out of resources", rc);
        sched_yield();
    }
}

static void *burst_thread(void *arg)
{
    long n = (long) arg;
    for (long i = 0; i < n; i++)
        notify_burst();
    return NULL;
}

/* PMIX_RANGE_PROC_LOCAL: main thread stamps, handler stamps; then a burst
 * from this thread, and from `threads` threads. */
static void run_proc_local(int yield, long iters, long warm, long burst, long budget_ms,
                           long threads)
{
    register_handler();
    uint64_t *lat = calloc((size_t) iters + 1, sizeof(uint64_t));
    long done = 0;
    uint64_t end = 0;
    for (long i = 0; i < warm + iters; i++) {
        if (i == warm)
            end = now_ns() + (uint64_t) budget_ms * 1000000u;
        uint64_t t0 = now_ns();
        notify(EV_LOCAL, PMIX_RANGE_PROC_LOCAL, NULL, 0);
        if (wait_for((uint64_t) i + 1, yield) != 0) {
            printf("FAILED: PROC_LOCAL event %ld never reached the handler\n", i);
            exit(1);
        }
        if (i >= warm) {
            uint64_t t1 = atomic_load_explicit(&last_arrival_ns, memory_order_relaxed);
            lat[done++] = t1 > t0 ? t1 - t0 : 0;
            if (done >= 100 && now_ns() > end)
                break;
        }
    }
    print_samples("oneway", lat, (size_t) done);
    uint64_t start = atomic_load(&received);
    uint64_t t0 = now_ns();
    for (long i = 0; i < burst; i++)
        notify_burst();
    if (wait_for(start + (uint64_t) burst, 1) != 0) {
        printf("FAILED: burst: %llu of %ld events handled\n",
               (unsigned long long) (atomic_load(&received) - start), burst);
        exit(1);
    }
    print_result("burst_ev_s", (double) burst / ((double) (now_ns() - t0) / 1e9));
    if (threads > 1) {
        /* the same burst split over `threads` producer threads */
        long per = burst / threads;
        pthread_t tid[64];
        if (threads > 64)
            threads = 64;
        start = atomic_load(&received);
        t0 = now_ns();
        for (long i = 0; i < threads; i++)
            pthread_create(&tid[i], NULL, burst_thread, (void *) per);
        for (long i = 0; i < threads; i++)
            pthread_join(tid[i], NULL);
        uint64_t want = start + (uint64_t) (per * threads);
        if (wait_for(want, 1) != 0) {
            printf("FAILED: threaded burst: %llu of %ld events handled\n",
                   (unsigned long long) (atomic_load(&received) - start), per * threads);
            exit(1);
        }
        print_result("mt_burst_ev_s", (double) (per * threads) / ((double) (now_ns() - t0) / 1e9));
    }
    print_result("busy_retries", (double) atomic_load(&busy_retries));
    free(lat);
}

/* ranks 1.. send PER events each to rank 0 (CUSTOM), which counts them. */
static void run_throughput(long per)
{
    register_handler();
    uint32_t size = job_size();
    uint64_t total = (uint64_t) per * (size - 1);
    if (0 == me.rank) {
        sync_all();
        uint64_t t0 = now_ns();
        if (wait_for(total, 1) != 0) {
            printf("FAILED rank 0: %llu of %llu events arrived\n",
                   (unsigned long long) atomic_load(&received), (unsigned long long) total);
            exit(1);
        }
        uint64_t t1 = atomic_load(&last_arrival_ns);
        print_result("recv_ev_s", (double) total / ((double) (t1 - t0) / 1e9));
        print_result("received", (double) atomic_load(&received));
        sync_all();
    } else {
        pmix_proc_t root;
        PMIX_LOAD_PROCID(&root, me.nspace, 0);
        pmix_info_t info[2];
        size_t ninfo;
        pmix_data_range_t rng = target("custom", &root, info, &ninfo);
        sync_all();
        for (long i = 0; i < per; i++)
            notify(EV_BURST, rng, info, ninfo);
        sync_all();
    }
}

/* ---- wire-up ---- */

static void get_batches(const pmix_proc_t *who, const char *key, long n, long batch,
                        const char *name)
{
    size_t nb = (size_t) (n / batch);
    uint64_t *per = calloc(nb + 1, sizeof(uint64_t));
    for (size_t b = 0; b < nb; b++) {
        uint64_t t0 = now_ns();
        for (long i = 0; i < batch; i++) {
            pmix_value_t *v = NULL;
            check(PMIx_Get(who, key, NULL, 0, &v), "PMIx_Get");
            PMIX_VALUE_RELEASE(v);
        }
        per[b] = (now_ns() - t0) / (uint64_t) batch;
    }
    print_samples(name, per, nb);
    free(per);
}

static void run_get(long n, long batch)
{
    char blob[64];
    memset(blob, 'a' + (int) me.rank, sizeof(blob));
    pmix_value_t val;
    memset(&val, 0, sizeof(val));
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = blob;
    val.data.bo.size = sizeof(blob);
    check(PMIx_Put(PMIX_GLOBAL, "bench.k64", &val), "PMIx_Put");
    check(PMIx_Commit(), "PMIx_Commit");
    pmix_info_t coll;
    bool yes = true;
    memset(&coll, 0, sizeof(coll));
    PMIx_Info_load(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    check(PMIx_Fence(NULL, 0, &coll, 1), "PMIx_Fence(collect)");
    if (0 == me.rank) {
        pmix_proc_t wild, peer;
        PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
        PMIX_LOAD_PROCID(&peer, me.nspace, 1);
        get_batches(&wild, PMIX_JOB_SIZE, batch, batch, "warm");
        get_batches(&wild, PMIX_JOB_SIZE, n, batch, "job_key");
        get_batches(&peer, "bench.k64", batch, batch, "warm");
        get_batches(&peer, "bench.k64", n, batch, "peer_key");
    }
    sync_all();
}

static void run_fence(long iters, long warm)
{
    unsigned char blob[1024];
    pmix_info_t coll;
    bool yes = true;
    memset(&coll, 0, sizeof(coll));
    PMIx_Info_load(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    uint64_t *lat = calloc((size_t) iters + 1, sizeof(uint64_t));
    for (long i = 0; i < warm + iters; i++) {
        memset(blob, (int) (i & 0xff), sizeof(blob));
        pmix_value_t val;
        memset(&val, 0, sizeof(val));
        val.type = PMIX_BYTE_OBJECT;
        val.data.bo.bytes = (char *) blob;
        val.data.bo.size = sizeof(blob);
        check(PMIx_Put(PMIX_GLOBAL, "bench.blob1k", &val), "PMIx_Put");
        check(PMIx_Commit(), "PMIx_Commit");
        uint64_t t0 = now_ns();
        check(PMIx_Fence(NULL, 0, &coll, 1), "PMIx_Fence(collect)");
        if (i >= warm)
            lat[i - warm] = now_ns() - t0;
    }
    if (0 == me.rank)
        print_samples("fence", lat, (size_t) iters);
    free(lat);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("FAILED: usage: %s notify|proc-local|throughput|get|fence|init ARGS\n", argv[0]);
        return 1;
    }
    const char *what = argv[1];
    uint64_t t0 = now_ns();
    check(PMIx_Init(&me, NULL, 0), "PMIx_Init");
    uint64_t init_ns = now_ns() - t0;
    if (0 == strcmp(what, "notify"))
        run_notify(argc > 2 ? argv[2] : "custom", argc > 3 && 0 == strcmp(argv[3], "yield"),
                   arg_num(argc, argv, 4), arg_num(argc, argv, 5), arg_num(argc, argv, 6));
    else if (0 == strcmp(what, "proc-local"))
        run_proc_local(0 == strcmp(argc > 2 ? argv[2] : "spin", "yield"), arg_num(argc, argv, 3),
                       arg_num(argc, argv, 4), arg_num(argc, argv, 5), arg_num(argc, argv, 6),
                       arg_num(argc, argv, 7));
    else if (0 == strcmp(what, "throughput"))
        run_throughput(arg_num(argc, argv, 2));
    else if (0 == strcmp(what, "get"))
        run_get(arg_num(argc, argv, 2), arg_num(argc, argv, 3));
    else if (0 == strcmp(what, "fence"))
        run_fence(arg_num(argc, argv, 2), arg_num(argc, argv, 3));
    else if (0 == strcmp(what, "init"))
        print_samples("init", &init_ns, 1);
    else {
        printf("FAILED: unknown measurement %s\n", what);
        return 1;
    }
    check(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    return 0;
}
