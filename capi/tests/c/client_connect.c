/*
 * PMIx_Connect / PMIx_Disconnect (+ _nb) with OpenPMIx 4.2's signatures,
 * as Open MPI's dynamic processes call them:
 *  - ranks {0,1} and {2,3} connect at once, each pair with its own
 *    PMIX_CONNECT_ID; the group's namespace and the caller's rank are read
 *    with PMIx_Get of "pmixrs.cnct.nspace" / "pmixrs.cnct.rank" qualified
 *    by the id; both members see the same namespace, ranks 0 and 1;
 *  - PMIx_Get of JOB_SIZE on (group, WILDCARD) is 2; a get of a peer's
 *    committed key through (group, peer's new rank) works;
 *  - all four connect with PMIx_Connect_nb (the callback comes on a library
 *    thread) and disconnect with PMIx_Disconnect_nb;
 *  - bad input: no procs is BAD_PARAM; a disconnect over procs this process
 *    never connected with is NOT_FOUND.
 * Run by tests/c_programs.rs under `pmixrun -n 4` on pmix-rs's library.
 *
 * Prints "rank R: client_connect: N checks passed" and exits 0.
 */
#include "client_common.h"

static atomic_int cb_done;
static pmix_status_t cb_status = -1;
static atomic_int cb_off_main = 1;

static void op_cb(pmix_status_t status, void *cbdata)
{
    if (on_main_thread())
        cb_off_main = 0;
    CHECK(cbdata == (void *) &cb_done);
    cb_status = status;
    atomic_fetch_add(&cb_done, 1);
}

static void load_id(pmix_info_t *info, const char *id)
{
    PMIx_Info_load(info, "pmix.cnct.id", id, PMIX_STRING);
}

int main(void)
{
    main_thread = pthread_self();
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);

    /* bad input */
    CHECK_RC(PMIx_Connect(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM);

    /* pairs, concurrently, different ids */
    pmix_rank_t base = me.rank < 2 ? 0 : 2;
    pmix_proc_t pair[2];
    PMIX_PROC_LOAD(&pair[0], me.nspace, base + 1);
    PMIX_PROC_LOAD(&pair[1], me.nspace, base);
    pmix_info_t id;
    load_id(&id, me.rank < 2 ? "low" : "high");
    CHECK_RC(PMIx_Disconnect(pair, 2, &id, 1), PMIX_ERR_NOT_FOUND);

    uint32_t card = 500 + me.rank;
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &card, PMIX_UINT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "c-card", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);

    CHECK_RC(PMIx_Connect(pair, 2, &id, 1), PMIX_SUCCESS);
    pmix_value_t *val = NULL;
    char group[PMIX_MAX_NSLEN + 1] = "";
    CHECK_RC(PMIx_Get(&me, "pmixrs.cnct.nspace", &id, 1, &val), PMIX_SUCCESS);
    if (val && PMIX_STRING == val->type) {
        pmix_strncpy(group, val->data.string, PMIX_MAX_NSLEN);
    }
    CHECK(0 == strncmp(group, "pmixrs-cnct-", 12));
    if (val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    CHECK_RC(PMIx_Get(&me, "pmixrs.cnct.rank", &id, 1, &val), PMIX_SUCCESS);
    CHECK(val && PMIX_PROC_RANK == val->type && val->data.rank == me.rank - base);
    if (val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    /* the group's size and a peer's card through the group */
    pmix_proc_t gp;
    PMIX_PROC_LOAD(&gp, group, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&gp, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(val && PMIX_UINT32 == val->type && 2 == val->data.uint32);
    if (val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    PMIX_PROC_LOAD(&gp, group, 1 - (me.rank - base));
    CHECK_RC(PMIx_Get(&gp, "c-card", NULL, 0, &val), PMIX_SUCCESS);
    CHECK(val && PMIX_UINT32 == val->type && val->data.uint32 == 500 + base + 1 - (me.rank - base));
    if (val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;
    /* the namespace is the same for both members: exchange it */
    char key[32];
    PMIX_VALUE_LOAD(&v, group, PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "c-group", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    pmix_proc_t peer;
    PMIX_PROC_LOAD(&peer, me.nspace, me.rank ^ 1);
    snprintf(key, sizeof(key), "c-group");
    CHECK_RC(PMIx_Get(&peer, key, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(val && PMIX_STRING == val->type && 0 == strcmp(val->data.string, group));
    if (val)
        PMIX_VALUE_RELEASE(val);
    CHECK_RC(PMIx_Disconnect(pair, 2, &id, 1), PMIX_SUCCESS);
    CHECK_RC(PMIx_Disconnect(pair, 2, &id, 1), PMIX_ERR_NOT_FOUND);
    PMIX_INFO_DESTRUCT(&id);

    /* all four, non-blocking */
    pmix_proc_t all;
    PMIX_PROC_LOAD(&all, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect_nb(&all, 1, NULL, 0, op_cb, &cb_done), PMIX_SUCCESS);
    wait_for(&cb_done, 1, "the connect callback");
    CHECK_RC(cb_status, PMIX_SUCCESS);
    CHECK_RC(PMIx_Disconnect_nb(&all, 1, NULL, 0, op_cb, &cb_done), PMIX_SUCCESS);
    wait_for(&cb_done, 2, "the disconnect callback");
    CHECK_RC(cb_status, PMIX_SUCCESS);
    CHECK(cb_off_main);

    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish("client_connect");
}
