/*
 * Event handlers through the C API: three handlers for one code, named and
 * placed with FIRST / PREPEND / APPEND (registered in the opposite order),
 * two of them with a registration callback; rank 0 notifies
 * PMIX_RANGE_NAMESPACE and every rank prints the order the handlers ran in
 * and the results each saw. Then a PROC_LOCAL notify per rank (seen only
 * by the sender), a notify with a completion callback, deregistration
 * (callbacks always called, also for an unknown id) and a check that a
 * deregistered handler is not called again.
 *
 * Run by tests/c_programs.rs under `pmixrun -n 4`.
 * Prints "rank R order: ...", "rank R saw <name>: ..." lines and
 * "rank R: client_events: N checks passed".
 */
#include "client_common.h"

#define CODE_TEST (PMIX_EXTERNAL_ERR_BASE - 10)
#define CODE_LOCAL (PMIX_EXTERNAL_ERR_BASE - 11)
#define CODE_MARK (PMIX_EXTERNAL_ERR_BASE - 12)

static const char *names[3] = {"first", "prepend", "append"};
static atomic_int reg_done[3], calls[3], nseen;
static size_t ids[3];
static pmix_status_t reg_status[3];
static char order[64];
static char saw[3][512];
static atomic_int before_reg, off_main = 1, released, default_calls;
static atomic_int local_calls, local_from_other, marks, notify_done, dereg_done;
/* PMIX_EVENT_RETURN_OBJECT given at h_mark's registration: handed back among
 * the infos of each event (as OpenPMIx does; its examples find their lock
 * there) */
static int mark_object;
static atomic_int mark_object_seen;
static pmix_status_t dereg_status;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;

static void release_results(pmix_status_t status, void *cbdata)
{
    pmix_info_t *res = cbdata;
    PMIX_INFO_FREE(res, 1);
    atomic_fetch_add(&released, 1);
}

static void describe(char *out, size_t len, const pmix_info_t *r, size_t n)
{
    size_t off = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++) {
        const pmix_value_t *v = &r[i].value;
        const char *sep = i ? "," : "";
        if (PMIX_STATUS == v->type)
            off += snprintf(out + off, len - off, "%s%s=%s", sep, r[i].key,
                            PMIx_Error_string(v->data.status));
        else if (PMIX_STRING == v->type)
            off += snprintf(out + off, len - off, "%s%s=\"%s\"", sep, r[i].key,
                            v->data.string);
        else
            off += snprintf(out + off, len - off, "%s%s:%s", sep, r[i].key,
                            PMIx_Data_type_string(v->type));
    }
}

static void handle(int idx, size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    if (!atomic_load(&reg_done[idx]))
        before_reg = 1;
    if (on_main_thread())
        off_main = 0;
    CHECK(CODE_TEST == status);
    CHECK(NULL != source && 0 == source->rank && PMIX_CHECK_NSPACE(source->nspace, me.nspace));
    int tagged = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (0 == strcmp(info[i].key, "test.tag") && PMIX_STRING == info[i].value.type &&
            0 == strcmp(info[i].value.data.string, "ns"))
            tagged = 1;
    CHECK(tagged);
    pthread_mutex_lock(&mtx);
    if (order[0])
        strcat(order, ",");
    strcat(order, names[idx]);
    describe(saw[idx], sizeof(saw[idx]), results, nresults);
    pthread_mutex_unlock(&mtx);
    atomic_fetch_add(&calls[idx], 1);
    atomic_fetch_add(&nseen, 1);

    /* return one result; the array is ours until release_results runs */
    pmix_info_t *res;
    char key[32];
    PMIX_INFO_CREATE(res, 1);
    snprintf(key, sizeof(key), "%s.ret", names[idx]);
    PMIX_INFO_LOAD(&res[0], key, names[idx], PMIX_STRING);
    cbfunc(2 == idx ? PMIX_EVENT_ACTION_COMPLETE : PMIX_SUCCESS, res, 1, release_results, res,
           cbdata);
}

#define HANDLER(i, fn)                                                                   \
    static void fn(size_t id, pmix_status_t status, const pmix_proc_t *source,           \
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults, \
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)             \
    {                                                                                    \
        handle(i, id, status, source, info, ninfo, results, nresults, cbfunc, cbdata);   \
    }
HANDLER(0, h_first)
HANDLER(1, h_prepend)
HANDLER(2, h_append)

static void h_default(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    atomic_fetch_add(&default_calls, 1);
    fprintf(stderr, "rank %u: default handler got %s\n", me.rank, PMIx_Error_string(status));
    if (cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void h_local(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                    pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    if (NULL == source || source->rank != me.rank)
        local_from_other = 1;
    atomic_fetch_add(&local_calls, 1);
    cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void h_mark(size_t id, pmix_status_t status, const pmix_proc_t *source,
                   pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                   pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT) &&
            PMIX_POINTER == info[i].value.type && &mark_object == info[i].value.data.ptr)
            atomic_fetch_add(&mark_object_seen, 1);
    atomic_fetch_add(&marks, 1);
    cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void reg_cb(pmix_status_t status, size_t refid, void *cbdata)
{
    int idx = (int) (intptr_t) cbdata;
    if (on_main_thread())
        off_main = 0;
    reg_status[idx] = status;
    ids[idx] = refid;
    atomic_store(&reg_done[idx], 1);
}

static void op_cb(pmix_status_t status, void *cbdata)
{
    if (on_main_thread())
        off_main = 0;
    if (cbdata == (void *) &dereg_done) {
        dereg_status = status;
        atomic_fetch_add(&dereg_done, 1);
    } else {
        CHECK(PMIX_SUCCESS == status);
        atomic_store(&notify_done, 1);
    }
}

static pmix_info_t *placed(const char *name, const char *where)
{
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, 2);
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_HDLR_NAME, name, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], where, NULL, PMIX_BOOL);
    return info;
}

static void notify_ns(pmix_status_t code, pmix_op_cbfunc_t cb, void *cbdata)
{
    pmix_info_t tag;
    PMIX_INFO_CONSTRUCT(&tag);
    PMIX_INFO_LOAD(&tag, "test.tag", "ns", PMIX_STRING);
    CHECK_RC(PMIx_Notify_event(code, &me, PMIX_RANGE_NAMESPACE, &tag, 1, cb, cbdata),
             PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&tag);
}

int main(void)
{
    main_thread = pthread_self();
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    pmix_status_t code = CODE_TEST, local = CODE_LOCAL, mark = CODE_MARK;
    pmix_info_t *info;
    int rc;

    /* registered in reverse order: placement, not arrival, decides */
    info = placed("append", PMIX_EVENT_HDLR_APPEND);
    rc = PMIx_Register_event_handler(&code, 1, info, 2, h_append, NULL, NULL);
    PMIX_INFO_FREE(info, 2);
    CHECK(rc >= 0);
    ids[2] = (size_t) rc;
    reg_done[2] = 1;
    info = placed("prepend", PMIX_EVENT_HDLR_PREPEND);
    CHECK_RC(PMIx_Register_event_handler(&code, 1, info, 2, h_prepend, reg_cb, (void *) 1),
             PMIX_SUCCESS);
    PMIX_INFO_FREE(info, 2); /* the library copied it */
    info = placed("first", PMIX_EVENT_HDLR_FIRST);
    CHECK_RC(PMIx_Register_event_handler(&code, 1, info, 2, h_first, reg_cb, (void *) 0),
             PMIX_SUCCESS);
    PMIX_INFO_FREE(info, 2);
    wait_for(&reg_done[0], 1, "registration callback 0");
    wait_for(&reg_done[1], 1, "registration callback 1");
    CHECK(PMIX_SUCCESS == reg_status[0] && PMIX_SUCCESS == reg_status[1]);
    CHECK(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
    CHECK(ids[0] != SIZE_MAX && ids[1] != SIZE_MAX);

    /* a second FIRST handler cannot be honoured: reported via the callback */
    size_t first_id = ids[0];
    info = placed("first-again", PMIX_EVENT_HDLR_FIRST);
    reg_done[0] = 0;
    CHECK_RC(PMIx_Register_event_handler(&code, 1, info, 2, h_first, reg_cb, (void *) 0),
             PMIX_SUCCESS);
    PMIX_INFO_FREE(info, 2);
    wait_for(&reg_done[0], 1, "failed registration callback");
    CHECK(PMIX_SUCCESS != reg_status[0] && UINT32_MAX == ids[0]);
    ids[0] = first_id;

    int did = PMIx_Register_event_handler(NULL, 0, NULL, 0, h_default, NULL, NULL);
    CHECK(did >= 0);
    int lid = PMIx_Register_event_handler(&local, 1, NULL, 0, h_local, NULL, NULL);
    CHECK(lid >= 0);
    pmix_info_t robj;
    PMIX_INFO_CONSTRUCT(&robj);
    PMIX_INFO_LOAD(&robj, PMIX_EVENT_RETURN_OBJECT, &mark_object, PMIX_POINTER);
    int mid = PMIx_Register_event_handler(&mark, 1, &robj, 1, h_mark, NULL, NULL);
    PMIX_INFO_DESTRUCT(&robj);
    CHECK(mid >= 0);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);

    /* rank 0 notifies the namespace; everyone (rank 0 included) runs the chain */
    if (0 == me.rank)
        notify_ns(CODE_TEST, NULL, NULL);
    wait_for(&nseen, 3, "the three handlers");
    CHECK(0 == before_reg);
    printf("rank %u order: %s\n", me.rank, order);
    for (int i = 0; i < 3; i++)
        printf("rank %u saw %s: [%s]\n", me.rank, names[i], saw[i]);
    wait_for(&released, 3, "the results releases");

    /* PROC_LOCAL: only the sender's own handlers */
    pmix_info_t from;
    PMIX_INFO_CONSTRUCT(&from);
    PMIX_INFO_LOAD(&from, "test.from", &me.rank, PMIX_UINT32);
    CHECK_RC(PMIx_Notify_event(CODE_LOCAL, NULL, PMIX_RANGE_PROC_LOCAL, &from, 1, NULL, NULL),
             PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&from);
    wait_for(&local_calls, 1, "the PROC_LOCAL event");
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);

    /* deregistration: callbacks always called, also for an unknown id */
    for (int i = 0; i < 3; i++) {
        int before = atomic_load(&dereg_done);
        CHECK_RC(PMIx_Deregister_event_handler(ids[i], op_cb, &dereg_done), PMIX_SUCCESS);
        wait_for(&dereg_done, before + 1, "deregistration callback");
        CHECK_RC(dereg_status, PMIX_SUCCESS);
    }
    CHECK_RC(PMIx_Deregister_event_handler(99999, op_cb, &dereg_done), PMIX_SUCCESS);
    wait_for(&dereg_done, 4, "deregistration callback of an unknown id");
    CHECK(PMIX_SUCCESS != dereg_status);
    CHECK_RC(PMIx_Deregister_event_handler((size_t) did, NULL, NULL), PMIX_SUCCESS);
    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);

    /* deregistered handlers stay silent: the mark, sent after, arrives after */
    if (0 == me.rank) {
        notify_ns(CODE_TEST, op_cb, &notify_done);
        wait_for(&notify_done, 1, "the notify callback");
        notify_ns(CODE_MARK, NULL, NULL);
    }
    wait_for(&marks, 1, "the mark");
    CHECK(atomic_load(&mark_object_seen) == atomic_load(&marks));
    for (int i = 0; i < 3; i++)
        CHECK(1 == atomic_load(&calls[i]));
    CHECK(1 == atomic_load(&local_calls) && 0 == local_from_other);
    CHECK(0 == atomic_load(&default_calls));
    CHECK(1 == off_main);
    CHECK_RC(PMIx_Deregister_event_handler((size_t) lid, NULL, NULL), PMIX_SUCCESS);
    CHECK_RC(PMIx_Deregister_event_handler((size_t) mid, NULL, NULL), PMIX_SUCCESS);

    CHECK_RC(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish("client_events");
}
