/*
 * A tiny resource manager on pmix-rs's server API, the way mpirun drives
 * it (docs/CAPI.md, "Server side"): PMIx_server_init with a host module, two clients
 * registered before their namespace, the namespace with job size, local
 * size and per-rank pmix.pdata (lrank/nrank UINT16), setup_fork, then
 * fork+exec of the client program with that environment. Checks both
 * ranks exit 0 and that client_connected / client_finalized ran twice,
 * each with the server_object given to register_client.
 *
 * Usage: server_host <client program> [args...]
 * Prints "server_host: N checks passed" and exits 0.
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

#define NP 2

static int checks, failures;
#define CHECK(c)                                                                    \
    do {                                                                            \
        checks++;                                                                   \
        if (!(c)) {                                                                 \
            failures++;                                                             \
            fprintf(stderr, "server_host: %s:%d: check failed: %s\n", __FILE__,     \
                    __LINE__, #c);                                                  \
        }                                                                           \
    } while (0)
#define CHECK_RC(e, want)                                                           \
    do {                                                                            \
        pmix_status_t rc_ = (e);                                                    \
        checks++;                                                                   \
        if (rc_ != (want)) {                                                        \
            failures++;                                                             \
            fprintf(stderr, "server_host: line %d: %s = %d, wanted %d\n", __LINE__,  \
                    #e, (int) rc_, (int) (want));                                   \
        }                                                                           \
    } while (0)

static atomic_int n_connected, n_finalized, n_abort, n_fence, bad_object;
static int objects[NP];

static int rank_of_object(void *obj)
{
    for (int i = 0; i < NP; i++)
        if (obj == &objects[i])
            return i;
    return -1;
}

static pmix_status_t connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb, void *cbdata)
{
    if (rank_of_object(obj) != (int) proc->rank)
        atomic_fetch_add(&bad_object, 1);
    atomic_fetch_add(&n_connected, 1);
    return PMIX_OPERATION_SUCCEEDED; /* done, no callback */
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb, void *cbdata)
{
    if (rank_of_object(obj) != (int) proc->rank)
        atomic_fetch_add(&bad_object, 1);
    atomic_fetch_add(&n_finalized, 1);
    if (NULL != cb)
        cb(PMIX_SUCCESS, cbdata); /* inline callback, as a host may */
    return PMIX_SUCCESS;
}

static pmix_status_t do_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb, void *cbdata)
{
    atomic_fetch_add(&n_abort, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                           void *cbdata)
{
    /* single node: never called; if it were, hand the blob back */
    atomic_fetch_add(&n_fence, 1);
    cb(PMIX_SUCCESS, data, ndata, cbdata, free, data);
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

static atomic_int n_group;

/* The group slot: assigns context ids from 9000 up (asked once per
 * construct with PMIX_GROUP_ASSIGN_CONTEXT_ID). */
static pmix_status_t group(pmix_group_operation_t op, char *grp, const pmix_proc_t procs[],
                           size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void) procs;
    (void) directives;
    (void) ndirs;
    CHECK(PMIX_GROUP_CONSTRUCT == op && NULL != grp && nprocs > 0);
    size_t cid = 9000 + (size_t) atomic_fetch_add(&n_group, 1);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    cbfunc(PMIX_SUCCESS, &info, 1, cbdata, NULL, NULL);
    PMIX_INFO_DESTRUCT(&info);
    return PMIX_SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: server_host <client> [args]\n");
        return 2;
    }
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    module.client_connected = connected;
    module.client_finalized = finalized;
    module.abort = do_abort;
    module.fence_nb = fence;
    module.group = group;

    char tmpl[] = "/tmp/pmixrs-server-host-XXXXXX";
    char *tmp = mkdtemp(tmpl);
    CHECK(NULL != tmp);
    pmix_info_t sinfo[3];
    pmix_rank_t srank = 0;
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[1], PMIX_SERVER_NSPACE, "1070071808", PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[2], PMIX_SERVER_RANK, &srank, PMIX_PROC_RANK);
    CHECK_RC(PMIx_server_init(&module, sinfo, 3), PMIX_SUCCESS);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&sinfo[i]);

    char *regex = NULL, *ppn = NULL;
    CHECK_RC(PMIx_generate_regex("localhost", &regex), PMIX_SUCCESS);
    CHECK_RC(PMIx_generate_ppn("0,1", &ppn), PMIX_SUCCESS);
    CHECK(NULL != regex && NULL != ppn);

    pmix_nspace_t ns, nope;
    PMIX_LOAD_NSPACE(ns, "1070071809");
    PMIX_LOAD_NSPACE(nope, "nope");
    pmix_proc_t procs[NP];
    for (int r = 0; r < NP; r++) {
        PMIX_LOAD_PROCID(&procs[r], ns, r);
        CHECK_RC(PMIx_server_register_client(&procs[r], getuid(), getgid(), &objects[r], op_cb,
                                             NULL),
                 PMIX_SUCCESS);
        CHECK_RC(wait_op(), PMIX_SUCCESS);
    }

    /* job info: size, local size, maps, per-rank data */
    size_t ninfo = 5 + NP;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo);
    uint32_t u32 = NP;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_MAX_PROCS, &u32, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_NODE_MAP, regex, PMIX_STRING);
    PMIX_INFO_LOAD(&info[4], PMIX_PROC_MAP, ppn, PMIX_STRING);
    for (int r = 0; r < NP; r++) {
        pmix_data_array_t darray;
        pmix_info_t *pd;
        PMIX_INFO_CREATE(pd, 3);
        pmix_rank_t rr = r;
        uint16_t u16 = r;
        PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &rr, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &u16, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[2], PMIX_NODE_RANK, &u16, PMIX_UINT16);
        darray.type = PMIX_INFO;
        darray.size = 3;
        darray.array = pd;
        PMIX_INFO_LOAD(&info[5 + r], PMIX_PROC_DATA, &darray, PMIX_DATA_ARRAY);
        PMIX_INFO_FREE(pd, 3);
    }
    free(regex);
    free(ppn);
    CHECK_RC(PMIx_server_register_nspace(ns, NP, info, ninfo, op_cb, NULL), PMIX_SUCCESS);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    PMIX_INFO_FREE(info, ninfo); /* the library copied it */

    pid_t pids[NP];
    for (int r = 0; r < NP; r++) {
        char **env = NULL;
        /* start from a malloc'd copy of our environment, as ORTE does */
        extern char **environ;
        size_t n = 0;
        while (environ[n])
            n++;
        env = malloc((n + 1) * sizeof(char *));
        for (size_t i = 0; i < n; i++)
            env[i] = strdup(environ[i]);
        env[n] = NULL;
        CHECK_RC(PMIx_server_setup_fork(&procs[r], &env), PMIX_SUCCESS);
        bool has_ns = false;
        for (char **e = env; *e; e++) {
            if (0 == strncmp(*e, "PMIX_NAMESPACE=", 15))
                has_ns = 0 == strcmp(*e + 15, ns);
            if (e >= env + n) /* ours: no '*' (singleton pipe separator) */
                CHECK(NULL == strchr(*e, '*'));
        }
        CHECK(has_ns);
        pids[r] = fork();
        if (0 == pids[r]) {
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
    CHECK(NP == atomic_load(&n_connected));
    CHECK(NP == atomic_load(&n_finalized));
    CHECK(0 == atomic_load(&n_abort));
    CHECK(0 == atomic_load(&bad_object));

    PMIx_server_deregister_nspace(ns, op_cb, NULL);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    /* the library answers the deregistration callback even for an unknown namespace */
    PMIx_server_deregister_nspace(nope, op_cb, NULL);
    CHECK(PMIX_SUCCESS != wait_op());
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS);
    rmdir(tmp);

    if (failures) {
        printf("server_host: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("server_host: group calls %d\n", atomic_load(&n_group));
    printf("server_host: %d checks passed\n", checks);
    return 0;
}
