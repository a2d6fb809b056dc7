/*
 * The client of two_nodes.c: one rank on each of two "nodes" (two pmix-rs
 * servers driven by a foreign host). Checks the job data its server
 * registered (own and peer rank), then the two multi-node data paths:
 *
 *  - first, before anything was committed: rank 1 commits "early" 300 ms
 *    late; rank 0's PMIx_Get of it goes through the host's direct_modex to
 *    node B, whose PMIx_server_dmodex_request holds it until that first
 *    commit; then rank 1 reads rank 0's "early" the same way (answered at
 *    once: rank 0 has committed);
 *  - a GLOBAL "card" put before a collecting fence (PMIX_COLLECT_DATA over
 *    the whole namespace): the peer's card arrives in the blobs the hosts
 *    exchange through their fence_nb up-calls;
 *  - a GLOBAL "late" put after that fence, then a fence without data: the
 *    peer's "late" is not in any blob, so the PMIx_Get of it goes through
 *    the host's direct_modex and PMIx_server_dmodex_request on the peer's
 *    node;
 *  - then PMIx_Connect over the namespace (through the hosts' connect
 *    slots): the group's name and this rank in it, its JOB_SIZE, the peer's
 *    "late" through the group address; then PMIx_Disconnect.
 *
 * After the collecting fence, PMIx_Get with a NULL key (every value of a
 * proc, as a PMIX_DATA_ARRAY of pmix_info_t): the job level
 * (PMIX_RANK_WILDCARD), this rank (its puts, its registered data) and the
 * peer (its card from the fence blob, its registered data), blocking and
 * through PMIx_Get_nb.
 *
 * A last fence keeps both ranks (and so both clients' data) alive until
 * each has read the other's, as MPI_Finalize's barrier does.
 *
 * Usage: two_nodes_client (the job: namespace, rank 0 on "nodeA", rank 1
 * on "nodeB", from the environment the server's setup_fork gave)
 * Prints "two_nodes_client rank R: N checks passed" and exits 0.
 */
#include "client_common.h"

static const char *node_of(pmix_rank_t r)
{
    return 0 == r ? "nodeA" : "nodeB";
}

/* *val is a STRING equal to want; releases it. */
static void check_string(pmix_value_t **val, const char *want, const char *what)
{
    pmix_value_t *v = *val;
    int ok = NULL != v && PMIX_STRING == v->type && NULL != v->data.string &&
             0 == strcmp(v->data.string, want);
    if (!ok)
        fprintf(stderr, "rank %u: %s: got type %d \"%s\", want \"%s\"\n", me.rank, what,
                NULL == v ? -1 : (int) v->type,
                NULL != v && PMIX_STRING == v->type && NULL != v->data.string
                    ? v->data.string
                    : "(none)",
                want);
    CHECK(ok);
    if (NULL != v)
        PMIX_VALUE_RELEASE(v);
    *val = NULL;
}

/* The info of key in a NULL-key PMIx_Get answer (a PMIX_DATA_ARRAY of
 * PMIX_INFO), or NULL. */
static const pmix_value_t *find_in_all(const pmix_value_t *all, const char *key)
{
    if (NULL == all || PMIX_DATA_ARRAY != all->type || NULL == all->data.darray ||
        PMIX_INFO != all->data.darray->type)
        return NULL;
    const pmix_info_t *infos = (const pmix_info_t *) all->data.darray->array;
    for (size_t i = 0; i < all->data.darray->size; i++)
        if (0 == strncmp(infos[i].key, key, PMIX_MAX_KEYLEN))
            return &infos[i].value;
    return NULL;
}

/* The STRING of key in a NULL-key answer equals want. */
static int all_has_string(const pmix_value_t *all, const char *key, const char *want)
{
    const pmix_value_t *v = find_in_all(all, key);
    int ok = NULL != v && PMIX_STRING == v->type && NULL != v->data.string &&
             0 == strcmp(v->data.string, want);
    if (!ok)
        fprintf(stderr, "rank %u: NULL-key get: %s is not \"%s\"\n", me.rank, key, want);
    return ok;
}

/* How many times key appears in a NULL-key answer. */
static int count_in_all(const pmix_value_t *all, const char *key)
{
    int n = 0;
    const pmix_info_t *infos = (const pmix_info_t *) all->data.darray->array;
    for (size_t i = 0; i < all->data.darray->size; i++)
        n += 0 == strncmp(infos[i].key, key, PMIX_MAX_KEYLEN);
    return n;
}

static atomic_int all_nb_done;
static pmix_status_t all_nb_status;
static int all_nb_ok;

/* PMIx_Get_nb with a NULL key for the job: the answer lives during the call. */
static void all_nb_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    const pmix_value_t *size = find_in_all(kv, PMIX_JOB_SIZE);
    all_nb_status = status;
    all_nb_ok = NULL != size && PMIX_UINT32 == size->type && 2 == size->data.uint32;
    atomic_store(&all_nb_done, 1);
}

static void fence(bool collect)
{
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
}

int main(void)
{
    /* helpers of client_common.h this client does not need */
    (void) finish;
    main_thread = pthread_self();
    CHECK(on_main_thread());
    pmix_value_t *val = NULL;
    pmix_value_t v;
    pmix_proc_t wild, peer;
    char want[64];

    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    CHECK(0 == strcmp(me.nspace, "twonode"));
    CHECK(me.rank < 2);
    pmix_rank_t other = 1 - me.rank;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&peer, me.nspace, other);

    /* job level: two procs in all, one on this node */
    CHECK_RC(PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT32 == val->type && 2 == val->data.uint32);
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&wild, PMIX_LOCAL_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT32 == val->type && 1 == val->data.uint32);
    PMIX_VALUE_RELEASE(val);
    val = NULL;

    /* own rank: local and node rank 0 (UINT16), this node's name */
    CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT16 == val->type && 0 == val->data.uint16);
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&me, PMIX_NODE_RANK, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT16 == val->type && 0 == val->data.uint16);
    PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&me, PMIX_HOSTNAME, NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, node_of(me.rank), "own pmix.hname");

    /* the peer's registered data (it is in this server's pmix.pdata too) */
    CHECK_RC(PMIx_Get(&peer, PMIX_HOSTNAME, NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, node_of(other), "peer pmix.hname");
    CHECK_RC(PMIx_Get(&peer, PMIX_NODEID, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT32 == val->type && other == val->data.uint32);
    PMIX_VALUE_RELEASE(val);
    val = NULL;

    /* 0. a direct modex held on the peer's node until its first commit */
    snprintf(want, sizeof(want), "early-of-%u", me.rank);
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_LOAD(&v, want, PMIX_STRING);
    if (1 == me.rank)
        usleep(300000);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "early", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    snprintf(want, sizeof(want), "early-of-%u", other);
    CHECK_RC(PMIx_Get(&peer, "early", NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, want, "peer early");

    /* 1. the card travels in the fence blobs */
    snprintf(want, sizeof(want), "card-of-%u", me.rank);
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_LOAD(&v, want, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "card", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    fence(true);
    snprintf(want, sizeof(want), "card-of-%u", other);
    CHECK_RC(PMIx_Get(&peer, "card", NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, want, "peer card");
    /* own card, committed */
    snprintf(want, sizeof(want), "card-of-%u", me.rank);
    CHECK_RC(PMIx_Get(&me, "card", NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, want, "own card");

    /* every value at once (a NULL key): the job's, this rank's, the peer's */
    CHECK_RC(PMIx_Get(&wild, NULL, NULL, 0, &val), PMIX_SUCCESS);
    const pmix_value_t *jsize = find_in_all(val, PMIX_JOB_SIZE);
    CHECK(NULL != jsize && PMIX_UINT32 == jsize->type && 2 == jsize->data.uint32);
    CHECK(NULL == find_in_all(val, "card")); /* no rank's data at the job level */
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&me, NULL, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(all_has_string(val, "card", want));
    snprintf(want, sizeof(want), "early-of-%u", me.rank);
    CHECK(all_has_string(val, "early", want));
    CHECK(all_has_string(val, PMIX_HOSTNAME, node_of(me.rank)));
    CHECK(NULL != val && 1 == count_in_all(val, "card"));
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&peer, NULL, NULL, 0, &val), PMIX_SUCCESS);
    snprintf(want, sizeof(want), "card-of-%u", other);
    CHECK(all_has_string(val, "card", want));
    CHECK(all_has_string(val, PMIX_HOSTNAME, node_of(other)));
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get_nb(&wild, NULL, NULL, 0, all_nb_cb, NULL), PMIX_SUCCESS);
    if (0 == wait_for(&all_nb_done, 1, "PMIx_Get_nb with a NULL key"))
        CHECK(PMIX_SUCCESS == all_nb_status && all_nb_ok);

    /* 2. a key put after the collecting fence comes by direct modex */
    snprintf(want, sizeof(want), "late-of-%u", me.rank);
    PMIX_VALUE_CONSTRUCT(&v);
    PMIX_VALUE_LOAD(&v, want, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "late", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    fence(false);
    snprintf(want, sizeof(want), "late-of-%u", other);
    CHECK_RC(PMIx_Get(&peer, "late", NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, want, "peer late");
    /* the card is still there (the direct-modex import added to it) */
    snprintf(want, sizeof(want), "card-of-%u", other);
    CHECK_RC(PMIx_Get(&peer, "card", NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, want, "peer card again");
    /* a key the peer never put: not found, whichever path is asked */
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&opt);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    CHECK(PMIX_SUCCESS != PMIx_Get(&peer, "never-put", &opt, 1, &val));
    CHECK(NULL == val);
    PMIX_INFO_DESTRUCT(&opt);

    /* 3. connect across the two nodes (the hosts' connect slots): the
     * group's namespace and this rank in it, its size, the peer's data
     * through the group address; then disconnect */
    CHECK_RC(PMIx_Connect(&wild, 1, NULL, 0), PMIX_SUCCESS);
    val = NULL;
    CHECK_RC(PMIx_Get(&me, "pmixrs.cnct.nspace", NULL, 0, &val), PMIX_SUCCESS);
    char group[PMIX_MAX_NSLEN + 1] = "";
    if (NULL != val && PMIX_STRING == val->type)
        pmix_strncpy(group, val->data.string, PMIX_MAX_NSLEN);
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    CHECK(0 == strncmp(group, "pmixrs-cnct-", 12));
    val = NULL;
    CHECK_RC(PMIx_Get(&me, "pmixrs.cnct.rank", NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_PROC_RANK == val->type && val->data.rank == me.rank);
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    pmix_proc_t gproc;
    PMIX_PROC_LOAD(&gproc, group, PMIX_RANK_WILDCARD);
    val = NULL;
    CHECK_RC(PMIx_Get(&gproc, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(NULL != val && PMIX_UINT32 == val->type && 2 == val->data.uint32);
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    PMIX_PROC_LOAD(&gproc, group, other);
    snprintf(want, sizeof(want), "late-of-%u", other);
    CHECK_RC(PMIx_Get(&gproc, "late", NULL, 0, &val), PMIX_SUCCESS);
    check_string(&val, want, "peer late through the group");
    CHECK_RC(PMIx_Disconnect(&wild, 1, NULL, 0), PMIX_SUCCESS);

    /* 4. both ranks have read each other's data before either leaves */
    fence(false);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);

    if (failures) {
        fprintf(stderr, "two_nodes_client rank %u: %d of %d checks failed\n", me.rank,
                failures, checks);
        return 1;
    }
    printf("two_nodes_client rank %u: %d checks passed\n", me.rank, checks);
    fflush(stdout);
    return 0;
}
