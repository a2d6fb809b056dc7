/*
 * The spawn slot of a C host module on pmix-rs's server API (what ORTE's
 * mpirun fills for MPI_Comm_spawn): this program is the host and, run as
 * "server_spawn client", its one client.
 *  - the client's PMIx_Spawn reaches the slot with the requestor, the job
 *    info (PMIX_NOTIFY_COMPLETION) and the app (cmd, argv, env, maxprocs,
 *    app info); the host answers from another thread with a namespace,
 *    which comes back in the client's pmix_nspace_t;
 *  - a host callback with PMIX_ERR_JOB_EXE_NOT_FOUND reaches
 *    PMIx_Spawn_nb's callback with a NULL namespace;
 *  - a slot that returns PMIX_ERR_NOT_SUPPORTED (no callback) is the
 *    client's answer.
 * Run by tests/c_programs.rs on pmix-rs's library.
 *
 * Usage: server_spawn
 * Prints "server_spawn: N checks passed" (and the client
 * "server_spawn client: N checks passed") and exits 0.
 */
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *who = "server_spawn";
static int checks, failures;
#define CHECK(c)                                                                    \
    do {                                                                            \
        checks++;                                                                   \
        if (!(c)) {                                                                 \
            failures++;                                                             \
            fprintf(stderr, "%s: line %d: check failed: %s\n", who, __LINE__, #c);  \
        }                                                                           \
    } while (0)
#define CHECK_RC(e, want)                                                           \
    do {                                                                            \
        pmix_status_t rc_ = (e);                                                    \
        checks++;                                                                   \
        if (rc_ != (want)) {                                                        \
            failures++;                                                             \
            fprintf(stderr, "%s: line %d: %s = %d, wanted %d\n", who, __LINE__, #e, \
                    (int) rc_, (int) (want));                                       \
        }                                                                           \
    } while (0)

static int finish(void)
{
    if (failures) {
        printf("%s: %d of %d checks failed\n", who, failures, checks);
        return 1;
    }
    printf("%s: %d checks passed\n", who, checks);
    fflush(stdout);
    return 0;
}

/* ---- the client ---- */

static atomic_int nb_done;
static pmix_status_t nb_status = 1;
static int nb_null;

static void spawned_nb(pmix_status_t status, char nspace[], void *cbdata)
{
    nb_status = status;
    nb_null = NULL == nspace;
    atomic_store((atomic_int *) cbdata, 1);
}

static int client(void)
{
    who = "server_spawn client";
    pmix_proc_t me;
    CHECK_RC(PMIx_Init(&me, NULL, 0), PMIX_SUCCESS);
    pmix_info_t job;
    bool yes = true;
    PMIX_INFO_LOAD(&job, PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    pmix_app_t app;
    memset(&app, 0, sizeof(app));
    app.cmd = "/bin/child";
    char *argv[] = {"/bin/child", "arg1", NULL};
    char *env[] = {"SS_ENV=1", NULL};
    app.argv = argv;
    app.env = env;
    app.maxprocs = 3;
    pmix_info_t ainfo;
    pmix_envar_t e = {.envar = "SS_SET", .value = "v", .separator = ':'};
    PMIX_INFO_LOAD(&ainfo, PMIX_SET_ENVAR, &e, PMIX_ENVAR);
    app.info = &ainfo;
    app.ninfo = 1;
    pmix_nspace_t ns;
    memset(ns, 0, sizeof(ns));
    CHECK_RC(PMIx_Spawn(&job, 1, &app, 1, ns), PMIX_SUCCESS);
    CHECK(0 == strcmp(ns, "spawned-ns"));
    CHECK_RC(PMIx_Spawn_nb(&job, 1, &app, 1, spawned_nb, &nb_done), PMIX_SUCCESS);
    for (int i = 0; i < 10000 && !atomic_load(&nb_done); i++)
        usleep(1000);
    CHECK(atomic_load(&nb_done));
    CHECK_RC(nb_status, PMIX_ERR_JOB_EXE_NOT_FOUND);
    CHECK(nb_null);
    CHECK_RC(PMIx_Spawn(&job, 1, &app, 1, ns), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&job);
    PMIX_INFO_DESTRUCT(&ainfo);
    CHECK_RC(PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return finish();
}

/* ---- the host ---- */

static atomic_int n_spawn;
static char seen_req[PMIX_MAX_NSLEN + 1], seen_cmd[64], seen_arg1[64], seen_env[64];
static char seen_key[PMIX_MAX_KEYLEN + 1];
static pmix_rank_t seen_rank = PMIX_RANK_UNDEF;
static int seen_maxprocs, seen_napps, seen_notify;

static pmix_status_t connected(const pmix_proc_t *p, void *o, pmix_op_cbfunc_t cb, void *d)
{
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *p, void *o, pmix_op_cbfunc_t cb, void *d)
{
    return PMIX_OPERATION_SUCCEEDED;
}

struct answer {
    pmix_spawn_cbfunc_t cb;
    void *cbdata;
    pmix_status_t status;
    char *nspace;
};

/* The host answers from its own thread, as ORTE does. */
static void *answer(void *a)
{
    struct answer *x = a;
    usleep(2000);
    x->cb(x->status, x->nspace, x->cbdata);
    free(x);
    return NULL;
}

static pmix_status_t spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                           const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                           void *cbdata)
{
    int n = atomic_fetch_add(&n_spawn, 1);
    if (0 == n) {
        snprintf(seen_req, sizeof(seen_req), "%s", proc->nspace);
        seen_rank = proc->rank;
        seen_napps = (int) napps;
        for (size_t i = 0; i < ninfo; i++)
            if (0 == strcmp(job_info[i].key, PMIX_NOTIFY_COMPLETION))
                seen_notify = 1;
        if (napps > 0) {
            snprintf(seen_cmd, sizeof(seen_cmd), "%s", apps[0].cmd ? apps[0].cmd : "");
            if (apps[0].argv && apps[0].argv[0] && apps[0].argv[1])
                snprintf(seen_arg1, sizeof(seen_arg1), "%s", apps[0].argv[1]);
            if (apps[0].env && apps[0].env[0])
                snprintf(seen_env, sizeof(seen_env), "%s", apps[0].env[0]);
            if (apps[0].ninfo > 0)
                snprintf(seen_key, sizeof(seen_key), "%s", apps[0].info[0].key);
            seen_maxprocs = apps[0].maxprocs;
        }
    }
    if (n >= 2)
        return PMIX_ERR_NOT_SUPPORTED; /* no callback */
    struct answer *x = malloc(sizeof(*x));
    x->cb = cbfunc;
    x->cbdata = cbdata;
    x->status = 0 == n ? PMIX_SUCCESS : PMIX_ERR_JOB_EXE_NOT_FOUND;
    x->nspace = 0 == n ? "spawned-ns" : NULL;
    pthread_t t;
    pthread_create(&t, NULL, answer, x);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static atomic_int op_done;
static pmix_status_t op_status;
static void op_cb(pmix_status_t status, void *cbdata)
{
    op_status = status;
    atomic_store(&op_done, 1);
}

static pmix_status_t wait_op(void)
{
    for (int i = 0; i < 10000 && !atomic_load(&op_done); i++)
        usleep(1000);
    CHECK(atomic_load(&op_done));
    atomic_store(&op_done, 0);
    return op_status;
}

int main(int argc, char **argv)
{
    if (argc > 1 && 0 == strcmp(argv[1], "client"))
        return client();
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    module.client_connected = connected;
    module.client_finalized = finalized;
    module.spawn = spawn;

    char tmpl[] = "/tmp/pmixrs-server-spawn-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    CHECK(NULL != tmp);
    pmix_info_t sinfo;
    PMIX_INFO_LOAD(&sinfo, PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
    CHECK_RC(PMIx_server_init(&module, &sinfo, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&sinfo);

    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "parent-ns");
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, ns, 0);
    CHECK_RC(PMIx_server_register_client(&proc, getuid(), getgid(), NULL, op_cb, NULL),
             PMIX_SUCCESS);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    pmix_info_t info[2];
    uint32_t one = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
    CHECK_RC(PMIx_server_register_nspace(ns, 1, info, 2, op_cb, NULL), PMIX_SUCCESS);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);

    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++)
        env[i] = strdup(environ[i]);
    env[n] = NULL;
    CHECK_RC(PMIx_server_setup_fork(&proc, &env), PMIX_SUCCESS);
    pid_t pid = fork();
    if (0 == pid) {
        char *cargv[] = {argv[0], "client", NULL};
        execve(argv[0], cargv, env);
        perror("execve");
        _exit(127);
    }
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
    int st = 0;
    CHECK(pid == waitpid(pid, &st, 0));
    CHECK(WIFEXITED(st) && 0 == WEXITSTATUS(st));

    CHECK(3 == atomic_load(&n_spawn));
    CHECK(0 == strcmp(seen_req, "parent-ns") && 0 == seen_rank);
    CHECK(1 == seen_napps && 1 == seen_notify);
    CHECK(0 == strcmp(seen_cmd, "/bin/child") && 0 == strcmp(seen_arg1, "arg1"));
    CHECK(0 == strcmp(seen_env, "SS_ENV=1") && 3 == seen_maxprocs);
    CHECK(0 == strcmp(seen_key, PMIX_SET_ENVAR));

    PMIx_server_deregister_client(&proc, op_cb, NULL);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    PMIx_server_deregister_nspace(ns, op_cb, NULL);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS);
    rmdir(tmp);
    return finish();
}
