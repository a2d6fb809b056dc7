/*
 * PMIx_Group_construct / PMIx_Group_destruct (+ _nb) with OpenPMIx 4.2's
 * signatures:
 *  - bad input: NULL id, empty id, an id equal to the job's namespace are
 *    BAD_PARAM; destruct of an unknown group is NOT_FOUND;
 *  - Open MPI 5's MPI_Comm_create_from_group sequence: construct over every
 *    rank with PMIX_GROUP_ASSIGN_CONTEXT_ID and PMIX_GROUP_INFO =
 *    {PMIX_GROUP_LOCAL_CID: 100 + rank}; the results carry
 *    PMIX_GROUP_CONTEXT_ID and PMIX_GROUP_MEMBERSHIP; destruct at once; then
 *    PMIx_Get of every peer's PMIX_GROUP_LOCAL_CID qualified by the context
 *    id (PMIX_INFO_QUALIFIER);
 *  - construct_nb over (nspace, WILDCARD) (the callback comes on a library
 *    thread, with the results and a release function); a fence over
 *    (group id, WILDCARD); destruct_nb;
 *  - invite / join / leave (4 ranks or more): rank 0 invites 1, 2, 3
 *    (ranks 1, 2 accept once PMIX_GROUP_INVITED arrived, rank 3 declines):
 *    the invite and the accepting joins return PMIX_ERR_PARTIAL_SUCCESS with
 *    3 members, the decline PMIX_SUCCESS; rank 2 leaves (leave_nb), ranks
 *    0 and 1 destruct.
 * With the argument "probe" it only reports what the first construct
 * answered ("rank R: construct status S") and passes whatever it was (the
 * same program under Open MPI's own PMIx).
 *
 * Prints "rank R: client_group: N checks passed" and exits 0.
 */
#include "client_common.h"

static atomic_int cb_done;
static pmix_status_t cb_status = -1;
static size_t cb_nmembers;
static atomic_int cb_off_main = 1;

static void construct_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    if (on_main_thread())
        cb_off_main = 0;
    CHECK(cbdata == (void *) &cb_done);
    cb_status = status;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP)
            && PMIX_DATA_ARRAY == info[i].value.type) {
            cb_nmembers = info[i].value.data.darray->size;
        }
    }
    if (NULL != release_fn)
        release_fn(release_cbdata);
    atomic_fetch_add(&cb_done, 1);
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    if (on_main_thread())
        cb_off_main = 0;
    CHECK(cbdata == (void *) &cb_done);
    cb_status = status;
    atomic_fetch_add(&cb_done, 1);
}

static atomic_int invited;

static void invited_cb(size_t id, pmix_status_t status, const pmix_proc_t *source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void) id;
    (void) status;
    (void) source;
    (void) info;
    (void) ninfo;
    (void) results;
    (void) nresults;
    atomic_fetch_add(&invited, 1);
    if (NULL != cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static size_t count_members(pmix_info_t *results, size_t nresults)
{
    size_t n = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP)
            && PMIX_DATA_ARRAY == results[i].value.type)
            n = results[i].value.data.darray->size;
    }
    return n;
}

static void invite_join_leave(uint32_t n)
{
    pmix_status_t code = PMIX_GROUP_INVITED;
    CHECK(PMIx_Register_event_handler(&code, 1, NULL, 0, invited_cb, NULL, NULL) >= 0);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    CHECK_RC(PMIx_Group_join("c-nope", NULL, PMIX_GROUP_ACCEPT, NULL, 0, &results, &nresults),
             PMIX_ERR_NOT_FOUND);
    if (0 == me.rank) {
        pmix_proc_t inv[3];
        for (int r = 0; r < 3; r++)
            PMIX_PROC_LOAD(&inv[r], me.nspace, r + 1);
        CHECK_RC(PMIx_Group_invite("c-inv", inv, 3, NULL, 0, &results, &nresults),
                 PMIX_ERR_PARTIAL_SUCCESS);
        CHECK(3 == count_members(results, nresults));
    } else if (me.rank <= 3) {
        wait_for(&invited, 1, "the invitation");
        pmix_proc_t leader;
        PMIX_PROC_LOAD(&leader, me.nspace, 0);
        if (3 == me.rank) {
            CHECK_RC(PMIx_Group_join("c-inv", &leader, PMIX_GROUP_DECLINE, NULL, 0, &results,
                                     &nresults),
                     PMIX_SUCCESS);
        } else {
            CHECK_RC(PMIx_Group_join("c-inv", &leader, PMIX_GROUP_ACCEPT, NULL, 0, &results,
                                     &nresults),
                     PMIX_ERR_PARTIAL_SUCCESS);
            CHECK(3 == count_members(results, nresults));
        }
    }
    if (results)
        PMIX_INFO_FREE(results, nresults);
    if (2 == me.rank) {
        CHECK_RC(PMIx_Group_leave_nb("c-inv", NULL, 0, op_cb, &cb_done), PMIX_SUCCESS);
        wait_for(&cb_done, 3, "the leave callback");
        CHECK_RC(cb_status, PMIX_SUCCESS);
    }
    /* the leave is done before the others destruct */
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    if (me.rank <= 1)
        CHECK_RC(PMIx_Group_destruct("c-inv", NULL, 0), PMIX_SUCCESS);
    (void) n;
}

static uint32_t job_size(void)
{
    pmix_proc_t all;
    pmix_value_t *val = NULL;
    uint32_t n = 0;
    PMIX_PROC_LOAD(&all, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Get(&all, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    if (val && PMIX_UINT32 == val->type)
        n = val->data.uint32;
    if (val)
        PMIX_VALUE_RELEASE(val);
    return n;
}

int main(int argc, char **argv)
{
    int probe = argc > 1 && 0 == strcmp(argv[1], "probe");
    main_thread = pthread_self();
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    uint32_t n = job_size();
    CHECK(n > 0);

    pmix_proc_t *procs;
    PMIX_PROC_CREATE(procs, n);
    for (uint32_t r = 0; r < n; r++)
        PMIX_PROC_LOAD(&procs[r], me.nspace, r);

    /* Open MPI 5's sequence */
    pmix_info_t info[2];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    pmix_info_t grpinfo;
    size_t local_cid = 100 + me.rank;
    PMIX_INFO_LOAD(&grpinfo, PMIX_GROUP_LOCAL_CID, &local_cid, PMIX_SIZE);
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = 1, .array = &grpinfo};
    PMIX_INFO_LOAD(&info[1], PMIX_GROUP_INFO, &darray, PMIX_DATA_ARRAY);
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Group_construct("c-ompi5", procs, n, info, 2, &results, &nresults);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]); /* its copy of the group info */
    PMIX_INFO_DESTRUCT(&grpinfo);
    printf("rank %u: construct status %s\n", me.rank, PMIx_Error_string(rc));
    fflush(stdout);
    if (probe) {
        PMIx_Finalize(NULL, 0);
        return 0;
    }
    CHECK_RC(rc, PMIX_SUCCESS);
    size_t cid = 0;
    int have_cid = 0;
    size_t nmembers = 0;
    for (size_t i = 0; i < nresults; i++) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_CONTEXT_ID)) {
            have_cid = 1;
            PMIX_VALUE_GET_NUMBER(rc, &results[i].value, cid, size_t);
        }
        if (PMIX_CHECK_KEY(&results[i], PMIX_GROUP_MEMBERSHIP)
            && PMIX_DATA_ARRAY == results[i].value.type) {
            nmembers = results[i].value.data.darray->size;
        }
    }
    CHECK(have_cid);
    CHECK(nmembers == n);
    if (results)
        PMIX_INFO_FREE(results, nresults);
    CHECK_RC(PMIx_Group_destruct("c-ompi5", NULL, 0), PMIX_SUCCESS);
    for (uint32_t r = 0; r < n; r++) {
        pmix_info_t q[2];
        uint32_t secs = 5;
        PMIX_INFO_LOAD(&q[0], PMIX_TIMEOUT, &secs, PMIX_UINT32);
        PMIX_INFO_LOAD(&q[1], PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
        PMIX_INFO_SET_QUALIFIER(&q[1]);
        pmix_value_t *val = NULL;
        CHECK_RC(PMIx_Get(&procs[r], PMIX_GROUP_LOCAL_CID, q, 2, &val), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&q[0]);
        PMIX_INFO_DESTRUCT(&q[1]);
        CHECK(val && PMIX_SIZE == val->type && val->data.size == 100 + r);
        if (val)
            PMIX_VALUE_RELEASE(val);
    }
    printf("rank %u: cid %zu\n", me.rank, cid);

    /* bad input */
    CHECK_RC(PMIx_Group_construct(NULL, procs, n, NULL, 0, &results, &nresults),
             PMIX_ERR_BAD_PARAM);
    CHECK(NULL == results && 0 == nresults);
    CHECK_RC(PMIx_Group_construct("", procs, n, NULL, 0, &results, &nresults), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Group_construct(me.nspace, procs, n, NULL, 0, &results, &nresults),
             PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Group_destruct("c-never", NULL, 0), PMIX_ERR_NOT_FOUND);

    /* non-blocking, over the whole namespace; a fence over the group */
    pmix_proc_t all;
    PMIX_PROC_LOAD(&all, me.nspace, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Group_construct_nb("c-nb", &all, 1, NULL, 0, construct_cb, &cb_done),
             PMIX_SUCCESS);
    wait_for(&cb_done, 1, "the construct callback");
    CHECK_RC(cb_status, PMIX_SUCCESS);
    CHECK(cb_nmembers == n);
    pmix_proc_t grp;
    PMIX_PROC_LOAD(&grp, "c-nb", PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Fence(&grp, 1, NULL, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Group_destruct_nb("c-nb", NULL, 0, op_cb, &cb_done), PMIX_SUCCESS);
    wait_for(&cb_done, 2, "the destruct callback");
    CHECK_RC(cb_status, PMIX_SUCCESS);
    CHECK(cb_off_main);

    if (n >= 4)
        invite_join_leave(n);

    PMIX_PROC_FREE(procs, n);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish("client_group");
}
