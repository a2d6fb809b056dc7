/*
 * The data path of a PMIx client, as an MPI library drives it: init, job
 * and own-rank data with their exact types, put/commit, a collecting
 * fence, a peer's data (blocking and non-blocking), store_internal, a
 * fence_nb barrier, log, finalize. Run by tests/c_programs.rs under
 * `pmixrun -n 4` on pmix-rs's libpmix.so.2 (also under valgrind).
 *
 * Usage: client_basic <expected job size>
 * Prints "rank R: client_basic: N checks passed" and exits 0.
 */
#include "client_common.h"

static atomic_int got_value, fence_done, log_done;
static atomic_int cb_off_main = 1;
static char got_string[64];
static pmix_status_t got_status, fence_status, log_status;

static void value_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    if (on_main_thread())
        cb_off_main = 0;
    got_status = status;
    if (PMIX_SUCCESS == status && NULL != kv && PMIX_STRING == kv->type)
        snprintf(got_string, sizeof(got_string), "%s", kv->data.string);
    CHECK(cbdata == (void *) &got_value);
    atomic_store(&got_value, 1);
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    if (on_main_thread())
        cb_off_main = 0;
    if (cbdata == (void *) &fence_done) {
        fence_status = status;
        atomic_store(&fence_done, 1);
    } else {
        log_status = status;
        atomic_store(&log_done, 1);
    }
}

int main(int argc, char **argv)
{
    main_thread = pthread_self();
    uint32_t want_size = argc > 1 ? (uint32_t) atoi(argv[1]) : 4;
    pmix_value_t *val = NULL;
    pmix_proc_t wild, peer;

    CHECK(0 == PMIx_Initialized());
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    CHECK(1 == PMIx_Initialized());
    CHECK(me.nspace[0] != '\0' && me.rank < want_size);

    /* job size: UINT32 at the wildcard rank, and through a NULL proc */
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT32 == val->type && want_size == val->data.uint32);
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(NULL, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT32 == val->type && want_size == val->data.uint32);
    PMIX_VALUE_RELEASE(val);

    /* relative locality from the locality strings: two ranks of one node
     * share at least the node (unbound: everything the strings list) */
    {
        pmix_value_t *mine = NULL, *theirs = NULL;
        pmix_proc_t other;
        pmix_locality_t loc = 0;
        PMIX_LOAD_PROCID(&other, me.nspace, (me.rank + 1) % want_size);
        /* a host that registers no locality strings (server_host.c) has
         * nothing to compare: only the bad-string case is checked then */
        pmix_status_t r1 = PMIx_Get(&me, PMIX_LOCALITY_STRING, NULL, 0, &mine);
        pmix_status_t r2 = PMIx_Get(&other, PMIX_LOCALITY_STRING, NULL, 0, &theirs);
        if (r1 == PMIX_SUCCESS && r2 == PMIX_SUCCESS) {
            CHECK(mine->type == PMIX_STRING && theirs->type == PMIX_STRING);
            if (mine->type == PMIX_STRING && theirs->type == PMIX_STRING) {
                CHECK_RC(PMIx_Get_relative_locality(mine->data.string, theirs->data.string,
                                                    &loc),
                         PMIX_SUCCESS);
                CHECK(loc & PMIX_LOCALITY_SHARE_NODE);
            }
        } else {
            CHECK(r1 == PMIX_ERR_NOT_FOUND && r2 == PMIX_ERR_NOT_FOUND);
        }
        CHECK_RC(PMIx_Get_relative_locality("not a locality", "SK0", &loc), PMIX_ERR_BAD_PARAM);
        CHECK(loc == PMIX_LOCALITY_UNKNOWN);
        if (mine) PMIX_VALUE_RELEASE(mine);
        if (theirs) PMIX_VALUE_RELEASE(theirs);
    }

    /* own local rank: UINT16 (one node: local rank = rank) */
    val = NULL;
    CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT16 == val->type && me.rank == val->data.uint16);
    PMIX_VALUE_FREE(val, 1);

    /* a NULL key: every value of the proc, a PMIX_DATA_ARRAY of pmix_info_t
     * (this rank's local rank among them), released as one value */
    val = (pmix_value_t *) 0x1;
    CHECK_RC(PMIx_Get(&me, NULL, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_DATA_ARRAY == val->type && NULL != val->data.darray &&
          PMIX_INFO == val->data.darray->type);
    if (NULL != val && PMIX_DATA_ARRAY == val->type && NULL != val->data.darray) {
        const pmix_info_t *all = (const pmix_info_t *) val->data.darray->array;
        int found = 0;
        for (size_t i = 0; i < val->data.darray->size; i++)
            found += 0 == strcmp(all[i].key, PMIX_LOCAL_RANK) &&
                     PMIX_UINT16 == all[i].value.type && me.rank == all[i].value.data.uint16;
        CHECK(1 == found);
        PMIX_VALUE_FREE(val, 1);
    }

    /* bad parameters */
    CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, NULL), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, NULL, NULL), PMIX_ERR_BAD_PARAM);

    /* a missing key, asked as optional */
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&opt);
    PMIx_Info_load(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    val = NULL;
    CHECK_RC(PMIx_Get(&me, "test.never.put", &opt, 1, &val), PMIX_ERR_NOT_FOUND);
    CHECK(NULL == val);
    PMIX_INFO_DESTRUCT(&opt);

    /* puts: a string, a byte object, a local-scope value; a reserved key
     * is accepted and ignored, as OpenPMIx does (Open MPI puts pmix.hname) */
    char buf[64];
    pmix_value_t v;
    snprintf(buf, sizeof(buf), "hello from %u", me.rank);
    PMIX_VALUE_LOAD(&v, buf, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "test.greeting", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v); /* the library keeps its own copy */
    pmix_byte_object_t bo;
    bo.bytes = malloc(1000);
    bo.size = 1000;
    memset(bo.bytes, (int) (me.rank + 1), bo.size);
    PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);
    free(bo.bytes);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "test.blob", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    uint64_t u64 = 1000 + me.rank;
    PMIX_VALUE_LOAD(&v, &u64, PMIX_UINT64);
    CHECK_RC(PMIx_Put(PMIX_LOCAL, "test.local", &v), PMIX_SUCCESS);
    PMIX_VALUE_LOAD(&v, "somehost", PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, PMIX_HOSTNAME, &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    /* an array of values of mixed types (PMIX_VALUE elements, as
     * OpenPMIx's client2 example puts) */
    {
        pmix_value_t vals[2];
        uint64_t x = 7000 + me.rank;
        PMIX_VALUE_CONSTRUCT(&vals[0]);
        PMIX_VALUE_CONSTRUCT(&vals[1]);
        PMIX_VALUE_LOAD(&vals[0], &x, PMIX_UINT64);
        PMIX_VALUE_LOAD(&vals[1], "second", PMIX_STRING);
        pmix_data_array_t da = {.type = PMIX_VALUE, .size = 2, .array = vals};
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_DATA_ARRAY;
        v.data.darray = &da;
        CHECK_RC(PMIx_Put(PMIX_GLOBAL, "test.values", &v), PMIX_SUCCESS);
        PMIX_VALUE_DESTRUCT(&vals[0]);
        PMIX_VALUE_DESTRUCT(&vals[1]);
    }
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);

    /* collecting fence over the whole namespace (NULL procs) */
    pmix_info_t collect;
    PMIX_INFO_CONSTRUCT(&collect);
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, &collect, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&collect);

    /* the next rank's data */
    uint32_t next = (me.rank + 1) % want_size;
    PMIX_LOAD_PROCID(&peer, me.nspace, next);
    val = NULL;
    CHECK_RC(PMIx_Get(&peer, "test.greeting", NULL, 0, &val), PMIX_SUCCESS);
    snprintf(buf, sizeof(buf), "hello from %u", next);
    CHECK(NULL != val && PMIX_STRING == val->type && 0 == strcmp(val->data.string, buf));
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&peer, "test.blob", NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_BYTE_OBJECT == val->type && 1000 == val->data.bo.size &&
          (char) (next + 1) == val->data.bo.bytes[999]);
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&peer, "test.local", NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT64 == val->type && 1000 + next == val->data.uint64);
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&peer, "test.values", NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_DATA_ARRAY == val->type && NULL != val->data.darray);
    if (NULL != val && PMIX_DATA_ARRAY == val->type && NULL != val->data.darray) {
        pmix_data_array_t *d = val->data.darray;
        pmix_value_t *e = (pmix_value_t *) d->array;
        CHECK(PMIX_VALUE == d->type && 2 == d->size);
        if (PMIX_VALUE == d->type && 2 == d->size) {
            CHECK(PMIX_UINT64 == e[0].type && 7000 + next == e[0].data.uint64);
            CHECK(PMIX_STRING == e[1].type && 0 == strcmp(e[1].data.string, "second"));
        }
    }
    if (val)
        PMIX_VALUE_RELEASE(val);

    /* non-blocking get: callback on a library thread, value owned by it */
    uint32_t prev = (me.rank + want_size - 1) % want_size;
    PMIX_LOAD_PROCID(&peer, me.nspace, prev);
    CHECK_RC(PMIx_Get_nb(&peer, "test.greeting", NULL, 0, value_cb, &got_value),
             PMIX_SUCCESS);
    wait_for(&got_value, 1, "Get_nb");
    snprintf(buf, sizeof(buf), "hello from %u", prev);
    CHECK(PMIX_SUCCESS == got_status && 0 == strcmp(got_string, buf));
    CHECK_RC(PMIx_Get_nb(&peer, "test.greeting", NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);

    /* store_internal: found by Get, for this process only */
    uint16_t loc = 0x1234;
    PMIX_VALUE_LOAD(&v, &loc, PMIX_UINT16);
    CHECK_RC(PMIx_Store_internal(&peer, "pmix.loc", &v), PMIX_SUCCESS);
    val = NULL;
    CHECK_RC(PMIx_Get(&peer, "pmix.loc", NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT16 == val->type && 0x1234 == val->data.uint16);
    PMIX_VALUE_RELEASE(val);

    /* log to stderr: the callback comes from a library thread */
    pmix_info_t logi;
    PMIX_INFO_CONSTRUCT(&logi);
    snprintf(buf, sizeof(buf), "client_basic log line from rank %u\n", me.rank);
    PMIX_INFO_LOAD(&logi, PMIX_LOG_STDERR, buf, PMIX_STRING);
    CHECK_RC(PMIx_Log_nb(&logi, 1, NULL, 0, op_cb, &log_done), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&logi);
    wait_for(&log_done, 1, "Log_nb");
    CHECK_RC(log_status, PMIX_SUCCESS);

    /* job control other than cleanup is not supported */
    pmix_info_t kill;
    PMIX_INFO_CONSTRUCT(&kill);
    PMIX_INFO_LOAD(&kill, PMIX_JOB_CTRL_KILL, NULL, PMIX_BOOL);
    CHECK_RC(PMIx_Job_control_nb(&me, 1, &kill, 1, NULL, NULL), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&kill);

    /* end-of-init barrier as MPI does it: Fence_nb, wait for the callback */
    CHECK_RC(PMIx_Fence_nb(NULL, 0, NULL, 0, op_cb, &fence_done), PMIX_SUCCESS);
    wait_for(&fence_done, 1, "Fence_nb");
    CHECK_RC(fence_status, PMIX_SUCCESS);
    CHECK(1 == cb_off_main);

    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    CHECK(0 == PMIx_Initialized());
    val = NULL;
    CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val), PMIX_ERR_INIT);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_ERR_INIT);
    return finish("client_basic");
}
