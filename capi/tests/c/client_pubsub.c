/*
 * Publish / lookup / unpublish between the ranks of one job, the way MPI's
 * name service and connect/accept use them (docs/CAPI.md), plus peer and
 * node resolution:
 *  - ranks 1.. start a PMIx_Lookup_nb with PMIX_WAIT before rank 0
 *    publishes (a fence orders it), so the host holds their lookups;
 *  - rank 0 publishes a string and an integer; a second publish of the same
 *    key is PMIX_ERR_DUPLICATE_KEY; a publish with no data is BAD_PARAM;
 *  - a blocking PMIx_Lookup fills the caller's pdata (value and publisher);
 *    a missing key is PMIX_ERR_NOT_FOUND;
 *  - after rank 0's PMIx_Unpublish the key is gone;
 *  - PMIx_Resolve_peers(this node) names every rank, PMIx_Resolve_nodes
 *    this node.
 * Run by tests/c_programs.rs under `pmixrun -n 4` on pmix-rs's library.
 *
 * Usage: client_pubsub <expected job size>
 * Prints "rank R: client_pubsub: N checks passed" and exits 0.
 */
#include "client_common.h"

static atomic_int lookup_done;
static pmix_status_t lookup_status;
static char lookup_value[64];
static pmix_rank_t lookup_publisher = PMIX_RANK_UNDEF;
static atomic_int cb_off_main = 1;

static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata,
                      void *cbdata)
{
    if (on_main_thread())
        cb_off_main = 0;
    CHECK(cbdata == (void *) &lookup_done);
    lookup_status = status;
    for (size_t i = 0; i < ndata; i++) {
        if (0 == strcmp(data[i].key, "svc-port") && PMIX_STRING == data[i].value.type) {
            snprintf(lookup_value, sizeof(lookup_value), "%s", data[i].value.data.string);
            lookup_publisher = data[i].proc.rank;
        }
    }
    atomic_store(&lookup_done, 1);
}

static void barrier(void)
{
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
}

int main(int argc, char **argv)
{
    main_thread = pthread_self();
    uint32_t np = argc > 1 ? (uint32_t) atoi(argv[1]) : 4;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);

    /* 1. waiting lookups before the publish */
    if (me.rank != 0) {
        char *keys[] = {"svc-port", NULL};
        pmix_info_t *dirs;
        PMIX_INFO_CREATE(dirs, 2);
        bool yes = true;
        int timeout = 30;
        PMIx_Info_load(&dirs[0], PMIX_WAIT, &yes, PMIX_BOOL);
        PMIx_Info_load(&dirs[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
        CHECK_RC(PMIx_Lookup_nb(keys, dirs, 2, lookup_cb, &lookup_done), PMIX_SUCCESS);
        PMIX_INFO_FREE(dirs, 2);
    }
    barrier();

    /* 2. rank 0 publishes */
    if (me.rank == 0) {
        pmix_pdata_t *probe;
        PMIX_PDATA_CREATE(probe, 1);
        pmix_strncpy(probe[0].key, "svc-port", PMIX_MAX_KEYLEN);
        CHECK_RC(PMIx_Lookup(probe, 1, NULL, 0), PMIX_ERR_NOT_FOUND);
        PMIX_PDATA_FREE(probe, 1);

        pmix_info_t *info;
        PMIX_INFO_CREATE(info, 3);
        PMIx_Info_load(&info[0], "svc-port", "tcp://node:4242", PMIX_STRING);
        int answer = 42;
        PMIx_Info_load(&info[1], "svc-int", &answer, PMIX_INT);
        pmix_data_range_t range = PMIX_RANGE_SESSION;
        PMIx_Info_load(&info[2], PMIX_RANGE, &range, PMIX_DATA_RANGE);
        CHECK_RC(PMIx_Publish(info, 3), PMIX_SUCCESS);
        CHECK_RC(PMIx_Publish(info, 3), PMIX_ERR_DUPLICATE_KEY);
        CHECK_RC(PMIx_Publish(&info[2], 1), PMIX_ERR_BAD_PARAM);
        PMIX_INFO_FREE(info, 3);
    } else {
        if (0 == wait_for(&lookup_done, 1, "the waiting lookup")) {
            CHECK_RC(lookup_status, PMIX_SUCCESS);
            CHECK(0 == strcmp(lookup_value, "tcp://node:4242"));
            CHECK(lookup_publisher == 0);
            CHECK(cb_off_main);
        }
    }
    barrier();

    /* 3. blocking lookup of two keys, one missing */
    pmix_pdata_t *pd;
    PMIX_PDATA_CREATE(pd, 3);
    pmix_strncpy(pd[0].key, "svc-int", PMIX_MAX_KEYLEN);
    pmix_strncpy(pd[1].key, "no-such-key", PMIX_MAX_KEYLEN);
    pmix_strncpy(pd[2].key, "svc-port", PMIX_MAX_KEYLEN);
    CHECK_RC(PMIx_Lookup(pd, 3, NULL, 0), PMIX_SUCCESS);
    CHECK(PMIX_INT == pd[0].value.type && 42 == pd[0].value.data.integer);
    CHECK(0 == pd[0].proc.rank);
    CHECK(PMIX_UNDEF == pd[1].value.type);
    CHECK(PMIX_STRING == pd[2].value.type &&
          0 == strcmp(pd[2].value.data.string, "tcp://node:4242"));
    PMIX_PDATA_FREE(pd, 3);
    barrier();

    /* 4. unpublish */
    if (me.rank == 0) {
        char *keys[] = {"svc-port", NULL};
        CHECK_RC(PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS);
        CHECK_RC(PMIx_Unpublish(keys, NULL, 0), PMIX_ERR_NOT_FOUND);
    }
    barrier();
    PMIX_PDATA_CREATE(pd, 1);
    pmix_strncpy(pd[0].key, "svc-port", PMIX_MAX_KEYLEN);
    CHECK_RC(PMIx_Lookup(pd, 1, NULL, 0), PMIX_ERR_NOT_FOUND);
    PMIX_PDATA_FREE(pd, 1);
    barrier();
    if (me.rank == 0) {
        CHECK_RC(PMIx_Unpublish(NULL, NULL, 0), PMIX_SUCCESS); /* svc-int */
    }

    /* 5. resolution */
    pmix_proc_t *procs = NULL;
    size_t nprocs = 0;
    CHECK_RC(PMIx_Resolve_peers(NULL, NULL, &procs, &nprocs), PMIX_SUCCESS);
    CHECK(nprocs == np);
    if (NULL != procs) {
        for (size_t i = 0; i < nprocs; i++)
            CHECK(PMIX_CHECK_NSPACE(procs[i].nspace, me.nspace));
        PMIX_PROC_FREE(procs, nprocs);
    }
    char *nodes = NULL;
    CHECK_RC(PMIx_Resolve_nodes(me.nspace, &nodes), PMIX_SUCCESS);
    CHECK(NULL != nodes && strlen(nodes) > 0);
    if (NULL != nodes) {
        procs = NULL;
        CHECK_RC(PMIx_Resolve_peers(nodes, me.nspace, &procs, &nprocs), PMIX_SUCCESS);
        CHECK(nprocs == np);
        if (NULL != procs)
            PMIX_PROC_FREE(procs, nprocs);
        free(nodes);
    }
    procs = NULL;
    CHECK_RC(PMIx_Resolve_peers("no-such-node", NULL, &procs, &nprocs), PMIX_ERR_NOT_FOUND);
    CHECK(NULL == procs && 0 == nprocs);

    barrier();
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish("client_pubsub");
}
