/*
 * A foreign host on pmix-rs's server API (Debian's pmix_server.h) with a
 * query slot and process sets: PMIx_server_init with a module whose
 * `query` answers PMIX_TIME_REMAINING (42, from its own thread) and
 * nothing else; it defines the process sets "even" (ranks 0, 2) and
 * "everyone" with PMIx_server_define_process_set before starting NP
 * clients, deletes and redefines "gone" around nothing (checking the
 * return codes), then fork+execs the client program with the
 * environment PMIx_server_setup_fork gave. Its `push_stdin` slot records
 * what the clients push with PMIx_IOF_push.
 *
 * Usage: server_query_host <client program> [args...]
 * Prints "server_query_host: N checks passed" and exits 0.
 */
#include <pmix_server.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NP 3

static int checks, failures;
#define CHECK(c)                                                                    \
    do {                                                                            \
        checks++;                                                                   \
        if (!(c)) {                                                                 \
            failures++;                                                             \
            fprintf(stderr, "server_query_host: %s:%d: check failed: %s\n",         \
                    __FILE__, __LINE__, #c);                                        \
        }                                                                           \
    } while (0)
#define CHECK_RC(e, want)                                                           \
    do {                                                                            \
        pmix_status_t rc_ = (e);                                                    \
        checks++;                                                                   \
        if (rc_ != (want)) {                                                        \
            failures++;                                                             \
            fprintf(stderr, "server_query_host: line %d: %s = %d, wanted %d\n",     \
                    __LINE__, #e, (int) rc_, (int) (want));                         \
        }                                                                           \
    } while (0)

static atomic_int n_queries, bad_query;

struct answer {
    pmix_info_cbfunc_t cb;
    void *cbdata;
    pmix_info_t *info;
    size_t ninfo;
};

static void release(void *p)
{
    struct answer *a = p;
    PMIX_INFO_FREE(a->info, a->ninfo);
    free(a);
}

static void *answer_later(void *p)
{
    struct answer *a = p;
    usleep(1000);
    a->cb(a->ninfo ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, a->info, a->ninfo, a->cbdata, release, a);
    return NULL;
}

/* Answers PMIX_TIME_REMAINING only, from another thread. */
static pmix_status_t query(pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    atomic_fetch_add(&n_queries, 1);
    if (NULL == proct || NULL == queries || 0 == nqueries)
        atomic_fetch_add(&bad_query, 1);
    struct answer *a = calloc(1, sizeof *a);
    a->cb = cbfunc;
    a->cbdata = cbdata;
    for (size_t q = 0; q < nqueries; q++)
        for (char **k = queries[q].keys; k && *k; k++)
            if (0 == strcmp(*k, PMIX_TIME_REMAINING))
                a->ninfo = 1;
    if (a->ninfo) {
        uint32_t left = 42;
        PMIX_INFO_CREATE(a->info, 1);
        PMIX_INFO_LOAD(&a->info[0], PMIX_TIME_REMAINING, &left, PMIX_UINT32);
    }
    pthread_t t;
    pthread_create(&t, NULL, answer_later, a);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

/* push_stdin: records what rank 0's PMIx_IOF_push calls send (to rank
 * 1): the first answered from another thread, the one with
 * PMIX_IOF_COMPLETE at once (PMIX_OPERATION_SUCCEEDED), a target outside
 * the job refused with PMIX_ERR_NOT_FOUND. */
static atomic_int n_pushes, bad_push, push_complete;
static char pushed[64];

struct op_later {
    pmix_op_cbfunc_t cb;
    void *cbdata;
};

static void *op_answer_later(void *p)
{
    struct op_later *o = p;
    usleep(1000);
    o->cb(PMIX_SUCCESS, o->cbdata);
    free(o);
    return NULL;
}

static pmix_status_t push_stdin(const pmix_proc_t *source, const pmix_proc_t targets[],
                                size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                                const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc,
                                void *cbdata)
{
    atomic_fetch_add(&n_pushes, 1);
    if (NULL == source || 0 != source->rank || NULL == targets || 1 != ntargets)
        atomic_fetch_add(&bad_push, 1);
    if (NULL != targets && ntargets > 0 && targets[0].rank > 2)
        return PMIX_ERR_NOT_FOUND;
    if (NULL != bo && NULL != bo->bytes && strlen(pushed) + bo->size < sizeof pushed)
        strncat(pushed, bo->bytes, bo->size);
    for (size_t i = 0; i < ndirs; i++)
        if (PMIX_CHECK_KEY(&directives[i], PMIX_IOF_COMPLETE)) {
            atomic_store(&push_complete, 1);
            return PMIX_OPERATION_SUCCEEDED;
        }
    struct op_later *o = malloc(sizeof *o);
    o->cb = cbfunc;
    o->cbdata = cbdata;
    pthread_t t;
    pthread_create(&t, NULL, op_answer_later, o);
    pthread_detach(t);
    return PMIX_SUCCESS;
}

static pmix_status_t connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb, void *cbdata)
{
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb, void *cbdata)
{
    if (NULL != cb)
        cb(PMIX_SUCCESS, cbdata);
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
    if (argc < 2) {
        fprintf(stderr, "usage: server_query_host <client> [args]\n");
        return 2;
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    module.client_connected = connected;
    module.client_finalized = finalized;
    module.query = query;
    module.push_stdin = push_stdin;

    char tmpl[] = "/tmp/pmixrs-query-host-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    CHECK(NULL != tmp);
    pmix_info_t sinfo[1];
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
    CHECK_RC(PMIx_server_init(&module, sinfo, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&sinfo[0]);

    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "qhost-job");
    pmix_proc_t procs[NP];
    for (int r = 0; r < NP; r++) {
        PMIX_LOAD_PROCID(&procs[r], ns, r);
        CHECK_RC(PMIx_server_register_client(&procs[r], getuid(), getgid(), NULL, op_cb, NULL),
                 PMIX_SUCCESS);
        CHECK_RC(wait_op(), PMIX_SUCCESS);
    }
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, 2);
    uint32_t u32 = NP;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
    CHECK_RC(PMIx_server_register_nspace(ns, NP, info, 2, op_cb, NULL), PMIX_SUCCESS);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    PMIX_INFO_FREE(info, 2);

    /* Process sets through the C server API. */
    pmix_proc_t even[2];
    PMIX_LOAD_PROCID(&even[0], ns, 0);
    PMIX_LOAD_PROCID(&even[1], ns, 2);
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, ns, PMIX_RANK_WILDCARD);
    CHECK_RC(PMIx_server_define_process_set(even, 2, "even"), PMIX_SUCCESS);
    CHECK_RC(PMIx_server_define_process_set(&all, 1, "everyone"), PMIX_SUCCESS);
    CHECK_RC(PMIx_server_define_process_set(NULL, 0, "empty"), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_server_define_process_set(even, 2, NULL), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_server_delete_process_set("never-defined"), PMIX_ERR_NOT_FOUND);

    pid_t pids[NP];
    for (int r = 0; r < NP; r++) {
        extern char **environ;
        size_t n = 0;
        while (environ[n])
            n++;
        char **env = malloc((n + 1) * sizeof(char *));
        for (size_t i = 0; i < n; i++)
            env[i] = strdup(environ[i]);
        env[n] = NULL;
        CHECK_RC(PMIx_server_setup_fork(&procs[r], &env), PMIX_SUCCESS);
        pids[r] = fork();
        if (0 == pids[r]) {
            alarm(60);
            execve(argv[1], argv + 1, env);
            perror("execve");
            _exit(127);
        }
        for (char **e = env; *e; e++)
            free(*e);
        free(env);
    }
    for (int r = 0; r < NP; r++) {
        int st = 0;
        CHECK(pids[r] == waitpid(pids[r], &st, 0));
        CHECK(WIFEXITED(st) && 0 == WEXITSTATUS(st));
        PMIx_server_deregister_client(&procs[r], op_cb, NULL);
        CHECK_RC(wait_op(), PMIX_SUCCESS);
    }
    CHECK(atomic_load(&n_queries) > 0);
    CHECK(0 == atomic_load(&bad_query));
    CHECK(3 == atomic_load(&n_pushes));
    CHECK(0 == atomic_load(&bad_push));
    CHECK(1 == atomic_load(&push_complete));
    CHECK(0 == strcmp(pushed, "hello\nbye\n"));
    CHECK_RC(PMIx_server_delete_process_set("even"), PMIX_SUCCESS);
    PMIx_server_deregister_nspace(ns, op_cb, NULL);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS);
    rmdir(tmp);

    if (failures) {
        printf("server_query_host: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("server_query_host: %d checks passed\n", checks);
    return 0;
}
