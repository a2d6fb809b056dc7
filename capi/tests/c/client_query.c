/*
 * PMIx_Query_info(_nb) and process sets as a C tool or client sees them
 * (the shape of OpenPMIx's pquery/pps): written against Debian's OpenPMIx
 * 4.2 pmix.h, run on pmix-rs's libpmix.so.2.
 *
 * usage: client_query NP [psets [hosted]]
 *   NP     the job's size
 *   psets  the job was started with --pset even:0,2 --pset everyone:all
 *          (or its host defined those sets)
 *   hosted its host is server_query_host.c, which answers
 *          PMIX_TIME_REMAINING = 42
 *
 * Checks: PMIX_QUERY_NAMESPACES (a comma-separated string holding ours),
 * PMIX_QUERY_PROC_TABLE / LOCAL_PROC_TABLE (PMIX_DATA_ARRAY of
 * PMIX_PROC_INFO in rank order, our pid, RUNNING), partial success with
 * the answer kept, an unknown key (NOT_FOUND), a missing qualifier
 * (BAD_PARAM), _nb argument errors returned without the callback, _nb
 * answers on a library thread with a release function; with psets: the
 * set queries, PMIx_Get of PMIX_PSET_NAMES, and both define events reaching
 * a handler registered after init exactly once.
 */
#include "client_common.h"
#include <pmix_tool.h> /* PMIx_IOF_push */

static atomic_int nb_calls, nb_done, defines;
static pmix_status_t nb_status;
static size_t nb_n;
static char nb_key[PMIX_MAX_KEYLEN + 1];

static void query_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                     pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    atomic_fetch_add(&nb_calls, 1);
    nb_status = status;
    nb_n = ninfo;
    if (ninfo > 0)
        snprintf(nb_key, sizeof nb_key, "%s", info[0].key);
    if (on_main_thread())
        failures++;
    if (release_fn)
        release_fn(release_cbdata);
    atomic_store(&nb_done, 1);
}

static void define_cb(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_NAME))
            atomic_fetch_add(&defines, 1);
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void reg_cb(pmix_status_t status, size_t id, void *cbdata)
{
    atomic_store((atomic_int *) cbdata, 1);
}

/* One query of one key with an optional PMIX_NSPACE / PMIX_PSET_NAME
 * qualifier. */
static pmix_status_t query1(const char *key, const char *qkey, const char *qval,
                            pmix_info_t **res, size_t *nres)
{
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_argv_append_nosize(&q.keys, key);
    if (qkey) {
        PMIX_INFO_CREATE(q.qualifiers, 1);
        q.nqual = 1;
        PMIX_INFO_LOAD(&q.qualifiers[0], qkey, qval, PMIX_STRING);
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    PMIX_QUERY_DESTRUCT(&q);
    return rc;
}

static void proc_table(const char *key, int np)
{
    pmix_info_t *res = NULL;
    size_t n = 0;
    CHECK_RC(query1(key, PMIX_NSPACE, me.nspace, &res, &n), PMIX_SUCCESS);
    CHECK(n == 1);
    if (n != 1)
        return;
    CHECK(PMIX_CHECK_KEY(&res[0], key));
    CHECK(res[0].value.type == PMIX_DATA_ARRAY);
    pmix_data_array_t *a = res[0].value.data.darray;
    CHECK(a && a->type == PMIX_PROC_INFO && a->size == (size_t) np);
    if (a && a->type == PMIX_PROC_INFO && a->size == (size_t) np) {
        pmix_proc_info_t *pi = (pmix_proc_info_t *) a->array;
        for (int r = 0; r < np; r++) {
            CHECK(pi[r].proc.rank == (pmix_rank_t) r);
            CHECK(PMIX_CHECK_NSPACE(pi[r].proc.nspace, me.nspace));
            CHECK(pi[r].hostname && pi[r].hostname[0]);
            CHECK(pi[r].pid > 0);
        }
        CHECK(pi[me.rank].pid == getpid());
        CHECK(pi[me.rank].state == PMIX_PROC_STATE_RUNNING);
        if (me.rank == 0)
            for (int r = 0; r < np; r++)
                printf("proc table: %s %u %s pid %d state %s\n", pi[r].proc.nspace,
                       pi[r].proc.rank, pi[r].hostname, (int) pi[r].pid,
                       PMIx_Proc_state_string(pi[r].state));
    }
    PMIX_INFO_FREE(res, n);
}

int main(int argc, char **argv)
{
    main_thread = pthread_self();
    int np = argc > 1 ? atoi(argv[1]) : 1;
    int with_psets = argc > 2 && strcmp(argv[2], "psets") == 0;
    int hosted = argc > 3 && strcmp(argv[3], "hosted") == 0;
    /* The ABI levels are the library's own: answered before PMIx_Init, as
     * OpenPMIx 4.2 answers them ("0.0": the Standard defines no ABI yet). */
    {
        pmix_info_t *abi = NULL;
        size_t nabi = 0;
        pmix_query_t aq[2];
        PMIX_QUERY_CONSTRUCT(&aq[0]);
        PMIX_QUERY_CONSTRUCT(&aq[1]);
        pmix_argv_append_nosize(&aq[0].keys, PMIX_QUERY_STABLE_ABI_VERSION);
        pmix_argv_append_nosize(&aq[1].keys, PMIX_QUERY_PROVISIONAL_ABI_VERSION);
        CHECK_RC(PMIx_Query_info(aq, 2, &abi, &nabi), PMIX_SUCCESS);
        CHECK(nabi == 2);
        if (nabi == 2) {
            CHECK(PMIX_CHECK_KEY(&abi[0], PMIX_QUERY_STABLE_ABI_VERSION));
            CHECK(PMIX_CHECK_KEY(&abi[1], PMIX_QUERY_PROVISIONAL_ABI_VERSION));
            CHECK(abi[0].value.type == PMIX_STRING && abi[1].value.type == PMIX_STRING);
            if (abi[0].value.type == PMIX_STRING)
                CHECK(strcmp(abi[0].value.data.string, "0.0") == 0);
        }
        PMIX_INFO_FREE(abi, nabi);
        /* anything else before init is PMIX_ERR_INIT */
        pmix_argv_append_nosize(&aq[1].keys, PMIX_QUERY_NAMESPACES);
        abi = NULL;
        nabi = 0;
        CHECK_RC(PMIx_Query_info(aq, 2, &abi, &nabi), PMIX_ERR_INIT);
        PMIX_QUERY_DESTRUCT(&aq[0]);
        PMIX_QUERY_DESTRUCT(&aq[1]);
    }
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);

    /* PMIX_QUERY_NAMESPACES: one string, comma-separated, with ours. */
    pmix_info_t *res = NULL;
    size_t n = 0;
    CHECK_RC(query1(PMIX_QUERY_NAMESPACES, NULL, NULL, &res, &n), PMIX_SUCCESS);
    CHECK(n == 1 && res[0].value.type == PMIX_STRING);
    if (n == 1 && res[0].value.type == PMIX_STRING) {
        CHECK(strstr(res[0].value.data.string, me.nspace) != NULL);
        if (me.rank == 0)
            printf("namespaces: %s\n", res[0].value.data.string);
    }
    PMIX_INFO_FREE(res, n);

    /* PMIX_QUERY_NAMESPACE_INFO: infos keyed PMIX_QUERY_NAMESPACE_INFO,
     * each an array of infos with PMIX_NSPACE (and PMIX_CMD_LINE), the
     * shape OpenPMIx 4.2 tools walk (its tool.c example). */
    res = NULL;
    n = 0;
    CHECK_RC(query1(PMIX_QUERY_NAMESPACE_INFO, NULL, NULL, &res, &n), PMIX_SUCCESS);
    CHECK(n == 1 && res[0].value.type == PMIX_DATA_ARRAY);
    if (n == 1 && res[0].value.type == PMIX_DATA_ARRAY) {
        pmix_data_array_t *outer = res[0].value.data.darray;
        int found = 0;
        CHECK(outer != NULL && outer->type == PMIX_INFO && outer->size >= 1);
        for (size_t j = 0; outer != NULL && outer->type == PMIX_INFO && j < outer->size; j++) {
            pmix_info_t *e = &((pmix_info_t *)outer->array)[j];
            CHECK(PMIX_CHECK_KEY(e, PMIX_QUERY_NAMESPACE_INFO));
            CHECK(e->value.type == PMIX_DATA_ARRAY && e->value.data.darray != NULL);
            if (e->value.type != PMIX_DATA_ARRAY || e->value.data.darray == NULL)
                continue;
            pmix_data_array_t *inner = e->value.data.darray;
            CHECK(inner->type == PMIX_INFO && inner->size >= 1);
            pmix_info_t *fields = (pmix_info_t *)inner->array;
            for (size_t f = 0; inner->type == PMIX_INFO && f < inner->size; f++)
                if (PMIX_CHECK_KEY(&fields[f], PMIX_NSPACE) && fields[f].value.type == PMIX_STRING
                    && strcmp(fields[f].value.data.string, me.nspace) == 0)
                    found = 1;
        }
        CHECK(found);
    }
    PMIX_INFO_FREE(res, n);

    /* PMIX_JOB_SIZE of a namespace, and the server's PMIX_SERVER_URI, as
     * PRRTE answers tools (OpenPMIx's tool.c example asks both). */
    res = NULL;
    n = 0;
    CHECK_RC(query1(PMIX_JOB_SIZE, PMIX_NSPACE, me.nspace, &res, &n), PMIX_SUCCESS);
    CHECK(n == 1 && res[0].value.type == PMIX_UINT32);
    if (n == 1 && res[0].value.type == PMIX_UINT32)
        CHECK(res[0].value.data.uint32 == (uint32_t)np);
    PMIX_INFO_FREE(res, n);
    res = NULL;
    n = 0;
    CHECK_RC(query1(PMIX_SERVER_URI, NULL, NULL, &res, &n), PMIX_SUCCESS);
    CHECK(n == 1 && res[0].value.type == PMIX_STRING);
    if (n == 1 && res[0].value.type == PMIX_STRING)
        CHECK(strstr(res[0].value.data.string, ";unix:") != NULL);
    PMIX_INFO_FREE(res, n);

    /* After a fence every rank is connected: the table has every pid. */
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    proc_table(PMIX_QUERY_PROC_TABLE, np);
    proc_table(PMIX_QUERY_LOCAL_PROC_TABLE, np);

    /* Partial success keeps the answer. */
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
    pmix_argv_append_nosize(&q.keys, "pmix.qry.nosuchkey");
    res = NULL;
    n = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &n), PMIX_ERR_PARTIAL_SUCCESS);
    CHECK(n == 1 && res && PMIX_CHECK_KEY(&res[0], PMIX_QUERY_NAMESPACES));
    PMIX_INFO_FREE(res, n);
    PMIX_QUERY_DESTRUCT(&q);

    /* Unknown key, missing qualifier. */
    res = NULL;
    n = 7;
    CHECK_RC(query1("pmix.qry.nosuchkey", NULL, NULL, &res, &n), PMIX_ERR_NOT_FOUND);
    CHECK(res == NULL && n == 0);
    CHECK_RC(query1(PMIX_QUERY_PROC_TABLE, NULL, NULL, &res, &n), PMIX_ERR_BAD_PARAM);

    /* _nb: argument errors come back from the call, never the callback. */
    CHECK_RC(PMIx_Query_info_nb(NULL, 0, query_cb, NULL), PMIX_ERR_BAD_PARAM);
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_argv_append_nosize(&q.keys, PMIX_QUERY_PROC_TABLE);
    CHECK_RC(PMIx_Query_info_nb(&q, 1, query_cb, NULL), PMIX_ERR_BAD_PARAM);
    PMIX_QUERY_DESTRUCT(&q);
    usleep(100000);
    CHECK(atomic_load(&nb_calls) == 0);
    /* ... and answers come through it, once, off this thread. */
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
    CHECK_RC(PMIx_Query_info_nb(&q, 1, query_cb, NULL), PMIX_SUCCESS);
    wait_for(&nb_done, 1, "the query callback");
    CHECK(nb_status == PMIX_SUCCESS && nb_n == 1);
    CHECK(strcmp(nb_key, PMIX_QUERY_NAMESPACES) == 0);
    usleep(50000);
    CHECK(atomic_load(&nb_calls) == 1);
    PMIX_QUERY_DESTRUCT(&q);

    /* What this library supports, answered by the library itself. */
    PMIX_QUERY_CONSTRUCT(&q);
    pmix_argv_append_nosize(&q.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    PMIX_INFO_CREATE(q.qualifiers, 1);
    q.nqual = 1;
    bool yes = true;
    PMIX_INFO_LOAD(&q.qualifiers[0], PMIX_CLIENT_FUNCTIONS, &yes, PMIX_BOOL);
    res = NULL;
    n = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &res, &n), PMIX_SUCCESS);
    CHECK(n == 1 && res[0].value.type == PMIX_STRING &&
          strstr(res[0].value.data.string, "PMIx_Query_info") != NULL);
    PMIX_INFO_FREE(res, n);
    PMIX_QUERY_DESTRUCT(&q);

    /* Keys the server leaves to its host (pmixrun or mpirun): the host's
     * answer, or NOT_FOUND, comes back (Open MPI 4.1's mpirun answers none
     * of these for a pmix-rs server; PMIX_QUERY_MEMORY_USAGE it never
     * answers at all, so it is not asked). */
    if (me.rank == 0) {
        const char *hk[] = {PMIX_QUERY_QUEUE_LIST, PMIX_QUERY_QUEUE_STATUS, PMIX_TIME_REMAINING};
        for (size_t k = 0; k < sizeof hk / sizeof hk[0]; k++) {
            res = NULL;
            n = 0;
            pmix_status_t rc = query1(hk[k], NULL, NULL, &res, &n);
            printf("host query %s: %s n=%zu type=%d\n", hk[k], PMIx_Error_string(rc), n,
                   n ? (int) res[0].value.type : -1);
            if (n && res[0].value.type == PMIX_STRING)
                printf("host query %s = %s\n", hk[k], res[0].value.data.string);
            PMIX_INFO_FREE(res, n);
        }
    }

    if (hosted) {
        /* server_query_host answers PMIX_TIME_REMAINING = 42; asked with a
         * key the server answers, both come back in the order asked. */
        PMIX_QUERY_CONSTRUCT(&q);
        pmix_argv_append_nosize(&q.keys, PMIX_TIME_REMAINING);
        pmix_argv_append_nosize(&q.keys, PMIX_QUERY_NUM_PSETS);
        res = NULL;
        n = 0;
        CHECK_RC(PMIx_Query_info(&q, 1, &res, &n), PMIX_SUCCESS);
        CHECK(n == 2);
        if (n == 2) {
            CHECK(PMIX_CHECK_KEY(&res[0], PMIX_TIME_REMAINING) &&
                  res[0].value.type == PMIX_UINT32 && res[0].value.data.uint32 == 42);
            CHECK(PMIX_CHECK_KEY(&res[1], PMIX_QUERY_NUM_PSETS) &&
                  res[1].value.type == PMIX_SIZE && res[1].value.data.size == 2);
        }
        PMIX_INFO_FREE(res, n);
        PMIX_QUERY_DESTRUCT(&q);
        /* PMIx_IOF_push reaches the host's push_stdin slot: answered
         * later, at once (with PMIX_IOF_COMPLETE), or refused. */
        if (me.rank == 0) {
            pmix_proc_t to;
            PMIX_LOAD_PROCID(&to, me.nspace, 1);
            pmix_byte_object_t bo = {.bytes = "hello\n", .size = 6};
            CHECK_RC(PMIx_IOF_push(&to, 1, &bo, NULL, 0, NULL, NULL), PMIX_SUCCESS);
            bool yes = true;
            pmix_info_t done;
            PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
            bo.bytes = "bye\n";
            bo.size = 4;
            CHECK_RC(PMIx_IOF_push(&to, 1, &bo, &done, 1, NULL, NULL), PMIX_SUCCESS);
            PMIX_LOAD_PROCID(&to, me.nspace, 7);
            CHECK_RC(PMIx_IOF_push(&to, 1, &bo, NULL, 0, NULL, NULL), PMIX_ERR_NOT_FOUND);
        }
    }

    if (with_psets) {
        /* The sets, by query. */
        res = NULL;
        n = 0;
        CHECK_RC(query1(PMIX_QUERY_PSET_NAMES, NULL, NULL, &res, &n), PMIX_SUCCESS);
        CHECK(n == 1 && res[0].value.type == PMIX_STRING &&
              strcmp(res[0].value.data.string, "even,everyone") == 0);
        PMIX_INFO_FREE(res, n);
        res = NULL;
        n = 0;
        CHECK_RC(query1(PMIX_QUERY_PSET_MEMBERSHIP, PMIX_PSET_NAME, "even", &res, &n),
                 PMIX_SUCCESS);
        CHECK(n == 1 && res[0].value.type == PMIX_DATA_ARRAY);
        if (n == 1 && res[0].value.type == PMIX_DATA_ARRAY) {
            pmix_data_array_t *a = res[0].value.data.darray;
            CHECK(a->type == PMIX_PROC && a->size == 2);
            if (a->type == PMIX_PROC && a->size == 2) {
                pmix_proc_t *p = (pmix_proc_t *) a->array;
                CHECK(p[0].rank == 0 && p[1].rank == 2);
            }
        }
        PMIX_INFO_FREE(res, n);

        /* My own sets, by PMIx_Get. */
        pmix_value_t *v = NULL;
        CHECK_RC(PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &v), PMIX_SUCCESS);
        if (v) {
            CHECK(v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_STRING);
            size_t want = me.rank % 2 == 0 ? 2 : 1;
            CHECK(v->data.darray->size == want);
            PMIX_VALUE_RELEASE(v);
        }

        /* The define events, raised before this process started, reach a
         * handler registered now, once each. */
        atomic_int registered = 0;
        pmix_status_t code = PMIX_PROCESS_SET_DEFINE;
        PMIx_Register_event_handler(&code, 1, NULL, 0, define_cb, reg_cb, &registered);
        wait_for(&registered, 1, "registration");
        wait_for(&defines, 2, "both define events");
        CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
        usleep(300000);
        CHECK(atomic_load(&defines) == 2);
    }

    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish("client_query");
}
