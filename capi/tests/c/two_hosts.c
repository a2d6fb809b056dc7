/*
 * A PMIx client for Debian's mpirun across two hosts
 * (scripts/two-nodes.sh: two network namespaces, an orted on the second
 * one): the multi-node paths through a real host, ORTE.
 *
 *  1. job data: the job's size, and the host names of the ranks — the
 *     job must span exactly two hosts; every rank picks a peer on the
 *     other host ("the remote peer");
 *  2. fence with 1 KiB cards: each round every rank puts a fresh 1 KiB
 *     byte object, commits, and joins PMIx_Fence with PMIX_COLLECT_DATA
 *     (timed); the remote peer's card of that round is checked;
 *  3. direct modex across hosts: each round every rank puts a fresh key,
 *     commits, joins a fence without data, then gets the remote peer's key
 *     (timed: it goes from this host's server through ORTE to the peer's);
 *  4. (with "events") a NAMESPACE event crossing hosts: rank 0 notifies
 *     PMIX_RANGE_NAMESPACE; every rank on the other host must run its
 *     handler for it within 10 s.
 *
 * Usage: two_hosts <rounds> [events]
 * Every rank prints "two_hosts rank R: ok" (and rank 0 the medians:
 * "two_hosts: fence_1k_us=<median> get_remote_us=<median> rounds=N") and
 * exits 0; any failure prints "two_hosts rank R: FAIL ..." and exits 1.
 * An alarm (TWO_HOSTS_ALARM seconds, default 60) bounds every rank.
 */
#define _GNU_SOURCE
#include <pmix.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EVENT_CODE (PMIX_EXTERNAL_ERR_BASE - 19)

static pmix_proc_t me;

static void fail(const char *what, pmix_status_t rc)
{
    printf("two_hosts rank %u: FAIL %s: %s\n", me.rank, what, PMIx_Error_string(rc));
    fflush(stdout);
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double) ts.tv_sec + 1e-3 * (double) ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(double), by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static pmix_value_t *get(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (PMIX_SUCCESS != rc || NULL == v) {
        char what[128];
        snprintf(what, sizeof(what), "PMIx_Get(rank %u, %s)", rank, key);
        fail(what, rc);
    }
    return v;
}

static void fence(bool collect)
{
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (PMIX_SUCCESS != rc)
        fail("PMIx_Fence", rc);
}

static atomic_int events_seen;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    if (EVENT_CODE == status && NULL != source && 0 == source->rank)
        atomic_fetch_add(&events_seen, 1);
    if (NULL != cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    bool events = argc > 2 && 0 == strcmp(argv[2], "events");
    alarm(getenv("TWO_HOSTS_ALARM") ? (unsigned) atoi(getenv("TWO_HOSTS_ALARM")) : 60);
    if (rounds < 1)
        rounds = 1;

    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc)
        fail("PMIx_Init", rc);

    /* 1. the job spans two hosts; a peer on the other one */
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (PMIX_SUCCESS != rc)
        fail("PMIx_Get(job size)", rc);
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    char mine[256] = "";
    v = get(me.rank, PMIX_HOSTNAME);
    snprintf(mine, sizeof(mine), "%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    pmix_rank_t remote = PMIX_RANK_UNDEF;
    int on_other = 0;
    for (uint32_t r = 0; r < size; r++) {
        v = get(r, PMIX_HOSTNAME);
        if (0 != strcmp(v->data.string, mine)) {
            on_other++;
            if (PMIX_RANK_UNDEF == remote)
                remote = r;
        }
        PMIX_VALUE_RELEASE(v);
    }
    if (PMIX_RANK_UNDEF == remote || 0 == on_other) {
        printf("two_hosts rank %u: FAIL every rank is on %s\n", me.rank, mine);
        return 1;
    }

    int handler = -1;
    if (events) {
        pmix_status_t code = EVENT_CODE;
        handler = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
        if (handler < 0)
            fail("PMIx_Register_event_handler", handler);
    }

    /* 2. fence with 1 KiB cards */
    double *tf = calloc((size_t) rounds, sizeof(double));
    double *tg = calloc((size_t) rounds, sizeof(double));
    unsigned char card[1024];
    for (int i = 0; i < rounds; i++) {
        memset(card, i & 0xff, sizeof(card));
        card[0] = (unsigned char) me.rank;
        pmix_value_t val;
        PMIX_VALUE_CONSTRUCT(&val);
        val.type = PMIX_BYTE_OBJECT;
        val.data.bo.bytes = (char *) card;
        val.data.bo.size = sizeof(card);
        if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, "two_hosts.card", &val)))
            fail("PMIx_Put(card)", rc);
        if (PMIX_SUCCESS != (rc = PMIx_Commit()))
            fail("PMIx_Commit", rc);
        double t0 = now_us();
        fence(true);
        tf[i] = now_us() - t0;
        v = get(remote, "two_hosts.card");
        if (PMIX_BYTE_OBJECT != v->type || 1024 != v->data.bo.size ||
            (unsigned char) v->data.bo.bytes[0] != (unsigned char) remote ||
            (unsigned char) v->data.bo.bytes[1023] != (unsigned char) (i & 0xff)) {
            printf("two_hosts rank %u: FAIL round %d: the card of rank %u is wrong\n", me.rank, i,
                   remote);
            return 1;
        }
        PMIX_VALUE_RELEASE(v);
    }

    /* 3. direct modex across hosts: a key put after the last collecting fence */
    for (int i = 0; i < rounds; i++) {
        char key[64];
        snprintf(key, sizeof(key), "two_hosts.dm.%d", i);
        pmix_value_t val;
        PMIX_VALUE_CONSTRUCT(&val);
        val.type = PMIX_UINT64;
        val.data.uint64 = 1000000ull * me.rank + (uint64_t) i;
        if (PMIX_SUCCESS != (rc = PMIx_Put(PMIX_GLOBAL, key, &val)))
            fail("PMIx_Put(dm)", rc);
        if (PMIX_SUCCESS != (rc = PMIx_Commit()))
            fail("PMIx_Commit", rc);
        fence(false);
        double t0 = now_us();
        v = get(remote, key);
        tg[i] = now_us() - t0;
        if (PMIX_UINT64 != v->type || v->data.uint64 != 1000000ull * remote + (uint64_t) i) {
            printf("two_hosts rank %u: FAIL direct modex %s of rank %u is wrong\n", me.rank, key,
                   remote);
            return 1;
        }
        PMIX_VALUE_RELEASE(v);
    }

    /* 4. a NAMESPACE event from rank 0 reaches the ranks of the other host */
    if (events) {
        fence(false); /* every handler is registered */
        bool on_host_of_0 = false;
        v = get(0, PMIX_HOSTNAME);
        on_host_of_0 = 0 == strcmp(v->data.string, mine);
        PMIX_VALUE_RELEASE(v);
        if (0 == me.rank) {
            rc = PMIx_Notify_event(EVENT_CODE, &me, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL);
            if (PMIX_SUCCESS != rc && PMIX_OPERATION_SUCCEEDED != rc)
                fail("PMIx_Notify_event", rc);
        }
        if (!on_host_of_0) {
            double end = now_us() + 10e6;
            while (0 == atomic_load(&events_seen) && now_us() < end)
                usleep(1000);
            if (0 == atomic_load(&events_seen)) {
                printf("two_hosts rank %u: FAIL the NAMESPACE event of rank 0 (on another "
                       "host) did not arrive within 10 s\n",
                       me.rank);
                return 1;
            }
            printf("two_hosts rank %u: event from rank 0 on the other host\n", me.rank);
        }
        fence(false);
        PMIx_Deregister_event_handler((size_t) handler, NULL, NULL);
    }

    if (0 == me.rank)
        printf("two_hosts: fence_1k_us=%.1f get_remote_us=%.1f rounds=%d\n", median(tf, rounds),
               median(tg, rounds), rounds);
    printf("two_hosts rank %u: ok (host %s, remote peer %u)\n", me.rank, mine, remote);
    fflush(stdout);
    free(tf);
    free(tg);
    fence(false);
    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc)
        fail("PMIx_Finalize", rc);
    return 0;
}
