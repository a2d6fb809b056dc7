/*
 * PMIx_Spawn and PMIx_Spawn_nb through pmix-rs's library under pmixrun
 * (tests/c_programs.rs), with Debian's pmix.h:
 *  - rank 0 spawns 2 copies of this program ("child" mode) with a job-level
 *    PMIX_SET_ENVAR / PMIX_PREPEND_ENVAR and PMIX_NOTIFY_COMPLETION, an app
 *    env entry and app-level PMIX_APPEND_ENVAR / PMIX_UNSET_ENVAR; the new
 *    namespace comes back in the caller's pmix_nspace_t;
 *  - the children check their environment and PMIX_PARENT_ID (rank 0 of
 *    the parent's namespace, passed on their command line);
 *  - rank 0 gets PMIX_EVENT_JOB_END for that namespace with
 *    PMIX_JOB_TERM_STATUS = PMIX_SUCCESS;
 *  - PMIx_Spawn_nb of a missing program reports
 *    PMIX_ERR_JOB_EXE_NOT_FOUND through its callback (off the calling
 *    thread, NULL namespace); a spawn with maxprocs 0 is
 *    PMIX_ERR_BAD_PARAM.
 *
 *  - with "connect": parent rank 0 and the children PMIx_Connect over
 *    {parent rank 0, the child namespace} (the way Open MPI's
 *    MPI_Comm_spawn joins them), then each reads a key the other side
 *    committed before (across namespaces), then PMIx_Disconnect.
 *
 * Usage: client_spawn [connect]          (parent, every rank of the first job)
 *        client_spawn child NS [connect] (spawned, NS = the parent's namespace)
 * Prints "rank R: client_spawn[-child]: N checks passed" and exits 0.
 */
#include "client_common.h"

static atomic_int end_seen, nb_done;
static char end_nspace[PMIX_MAX_NSLEN + 1];
static pmix_status_t end_status = -1;
static pmix_status_t nb_status = 1;
static int nb_null_nspace, nb_off_main = 1;

static void job_end(size_t id, pmix_status_t status, const pmix_proc_t *source,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                    size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                    void *cbdata)
{
    (void) id; (void) source; (void) results; (void) nresults;
    CHECK(status == PMIX_EVENT_JOB_END);
    for (size_t i = 0; i < ninfo; i++) {
        if (0 == strcmp(info[i].key, PMIX_JOB_TERM_STATUS) && PMIX_STATUS == info[i].value.type)
            end_status = info[i].value.data.status;
        if (0 == strcmp(info[i].key, PMIX_NSPACE) && PMIX_STRING == info[i].value.type)
            snprintf(end_nspace, sizeof(end_nspace), "%s", info[i].value.data.string);
    }
    atomic_store(&end_seen, 1);
    if (NULL != cbfunc)
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void registered(pmix_status_t status, size_t id, void *cbdata)
{
    (void) id;
    CHECK_RC(status, PMIX_SUCCESS);
    atomic_store((atomic_int *) cbdata, 1);
}

static void spawned_nb(pmix_status_t status, char nspace[], void *cbdata)
{
    if (on_main_thread())
        nb_off_main = 0;
    nb_status = status;
    nb_null_nspace = NULL == nspace;
    atomic_store((atomic_int *) cbdata, 1);
}

static void load_envar(pmix_info_t *info, const char *key, const char *name,
                       const char *value, char sep)
{
    pmix_envar_t e = {0};
    PMIX_ENVAR_LOAD(&e, name, value, sep);
    PMIX_INFO_LOAD(info, key, &e, PMIX_ENVAR);
    free(e.envar);
    free(e.value);
}

/* Connects parent rank 0 with the whole child namespace, reads `key`
 * (a uint32 `want`) committed by `peer`, disconnects. */
static void connect_and_read(const char *parent_ns, const char *child_ns,
                             const pmix_proc_t *peer, const char *key, uint32_t want)
{
    pmix_proc_t set[2];
    PMIX_PROC_LOAD(&set[0], parent_ns, 0);
    PMIX_PROC_LOAD(&set[1], child_ns, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_Connect(set, 2, NULL, 0), PMIX_SUCCESS);
    pmix_value_t *val = NULL;
    CHECK_RC(PMIx_Get(peer, key, NULL, 0, &val), PMIX_SUCCESS);
    CHECK(val && PMIX_UINT32 == val->type && val->data.uint32 == want);
    if (val)
        PMIX_VALUE_RELEASE(val);
    CHECK_RC(PMIx_Disconnect(set, 2, NULL, 0), PMIX_SUCCESS);
}

static void put_u32(const char *key, uint32_t x)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &x, PMIX_UINT32);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
}

static int child(const char *parent_ns, int do_connect)
{
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    if (do_connect) {
        put_u32("cs-child", 700 + me.rank);
        pmix_proc_t parent0;
        PMIX_PROC_LOAD(&parent0, parent_ns, 0);
        connect_and_read(parent_ns, me.nspace, &parent0, "cs-parent", 42);
    }
    const char *a = getenv("CS_A"), *p = getenv("CS_PATH"), *e = getenv("CS_ENV");
    CHECK(a && 0 == strcmp(a, "app"));
    CHECK(p && 0 == strcmp(p, "/job:/base:/app"));
    CHECK(e && 0 == strcmp(e, "e"));
    CHECK(NULL == getenv("CS_GONE"));
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    CHECK_RC(PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &val), PMIX_SUCCESS);
    if (NULL != val) {
        CHECK(PMIX_PROC == val->type);
        if (PMIX_PROC == val->type) {
            CHECK(0 == strcmp(val->data.proc->nspace, parent_ns));
            CHECK(0 == val->data.proc->rank);
        }
        PMIX_VALUE_RELEASE(val);
    }
    CHECK(0 != strcmp(me.nspace, parent_ns));
    int rc = finish("client_spawn-child");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return rc;
}

static void parent(char *self, int do_connect)
{
    if (do_connect)
        put_u32("cs-parent", 42);
    atomic_int reg = 0;
    pmix_status_t code = PMIX_EVENT_JOB_END;
    PMIx_Register_event_handler(&code, 1, NULL, 0, job_end, registered, &reg);
    wait_for(&reg, 1, "event registration");

    pmix_info_t *job;
    PMIX_INFO_CREATE(job, 3);
    load_envar(&job[0], PMIX_SET_ENVAR, "CS_A", "job", 0);
    load_envar(&job[1], PMIX_PREPEND_ENVAR, "CS_PATH", "/job", ':');
    bool yes = true;
    PMIX_INFO_LOAD(&job[2], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);

    pmix_app_t app;
    memset(&app, 0, sizeof(app));
    app.cmd = strdup(self);
    char *argv[] = {self, "child", me.nspace, do_connect ? "connect" : NULL, NULL};
    app.argv = argv;
    char *env[] = {"CS_ENV=e", "CS_A=appenv", NULL};
    app.env = env;
    app.maxprocs = 2;
    PMIX_INFO_CREATE(app.info, 3);
    app.ninfo = 3;
    load_envar(&app.info[0], PMIX_APPEND_ENVAR, "CS_PATH", "/app", ':');
    PMIX_INFO_LOAD(&app.info[1], PMIX_UNSET_ENVAR, "CS_GONE", PMIX_STRING);
    load_envar(&app.info[2], PMIX_SET_ENVAR, "CS_A", "app", 0);

    pmix_nspace_t child_ns;
    memset(child_ns, 0, sizeof(child_ns));
    CHECK_RC(PMIx_Spawn(job, 3, &app, 1, child_ns), PMIX_SUCCESS);
    CHECK(child_ns[0] != '\0' && 0 != strcmp(child_ns, me.nspace));
    if (do_connect) {
        pmix_proc_t child1;
        PMIX_PROC_LOAD(&child1, child_ns, 1);
        connect_and_read(me.nspace, child_ns, &child1, "cs-child", 701);
    }

    /* maxprocs 0 */
    app.maxprocs = 0;
    pmix_nspace_t unused;
    CHECK_RC(PMIx_Spawn(NULL, 0, &app, 1, unused), PMIX_ERR_BAD_PARAM);

    /* a missing program, non-blocking */
    pmix_app_t missing;
    memset(&missing, 0, sizeof(missing));
    missing.cmd = "/nonexistent/pmixrs-no-such-program";
    missing.maxprocs = 1;
    CHECK_RC(PMIx_Spawn_nb(NULL, 0, &missing, 1, spawned_nb, &nb_done), PMIX_SUCCESS);
    wait_for(&nb_done, 1, "PMIx_Spawn_nb callback");
    CHECK_RC(nb_status, PMIX_ERR_JOB_EXE_NOT_FOUND);
    CHECK(nb_null_nspace);
    CHECK(nb_off_main);

    wait_for(&end_seen, 1, "PMIX_EVENT_JOB_END");
    CHECK_RC(end_status, PMIX_SUCCESS);
    CHECK(0 == strcmp(end_nspace, child_ns));

    PMIX_INFO_FREE(job, 3);
    PMIX_INFO_FREE(app.info, app.ninfo);
    free(app.cmd);
}

int main(int argc, char **argv)
{
    main_thread = pthread_self();
    if (argc > 2 && 0 == strcmp(argv[1], "child"))
        return child(argv[2], argc > 3 && 0 == strcmp(argv[3], "connect"));
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    if (0 == me.rank)
        parent(argv[0], argc > 1 && 0 == strcmp(argv[1], "connect"));
    int rc = finish("client_spawn");
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return rc;
}
