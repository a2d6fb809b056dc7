/*
 * The job directories the library supplies to a host that gives none
 * (CAPI.md of the project, "Job directories"). A host on the server API,
 * no clients:
 *
 *  1. PMIx_server_init with pmix.srvr.tmpdir = <base> (a directory of the
 *     test holding a canary);
 *  2. namespace "dirs-a" registered without directory keys: PMIx_Get (in
 *     the server process) finds PMIX_TMPDIR = a 0700 directory directly
 *     under <base> named pmixrs-session.*, PMIX_NSDIR = a 0700 directory
 *     in it, PMIX_TDIR_RMCLEAN = true; a file is written into PMIX_NSDIR;
 *     deregistering the namespace removes PMIX_NSDIR and keeps PMIX_TMPDIR;
 *  3. namespace "dirs-b" registered with the host's own PMIX_TMPDIR and
 *     PMIX_NSDIR: they come back unchanged, nothing is created for it;
 *  4. namespace "dirs-c" registered without keys and never deregistered:
 *     PMIx_server_finalize removes its directory and the session
 *     directory;
 *  5. namespace "dirs-d", whose client is registered (first) with another
 *     uid, gets no directories.
 *
 * Usage: server_dirs <base>
 * Prints "server_dirs: N checks passed" and exits 0; the test then checks
 * that <base> holds only what it put there.
 */
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int checks, failures;
#define CHECK(c)                                                                    \
    do {                                                                            \
        checks++;                                                                   \
        if (!(c)) {                                                                 \
            failures++;                                                             \
            fprintf(stderr, "server_dirs: %s:%d: check failed: %s\n", __FILE__,     \
                    __LINE__, #c);                                                  \
        }                                                                           \
    } while (0)
#define CHECK_RC(e, want)                                                           \
    do {                                                                            \
        pmix_status_t rc_ = (e);                                                    \
        checks++;                                                                   \
        if (rc_ != (want)) {                                                        \
            failures++;                                                             \
            fprintf(stderr, "server_dirs: line %d: %s = %d, wanted %d\n", __LINE__, \
                    #e, (int) rc_, (int) (want));                                   \
        }                                                                           \
    } while (0)

/* A registration's outcome, delivered on the library's thread. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} waiter_t;

static void op_done(pmix_status_t status, void *cbdata)
{
    waiter_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static pmix_status_t wait_op(waiter_t *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    w->done = false;
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

static waiter_t waiter = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0};

static pmix_status_t register_ns(const char *ns, pmix_info_t *info, size_t ninfo)
{
    pmix_status_t rc = PMIx_server_register_nspace(ns, 1, info, ninfo, op_done, &waiter);
    return rc == PMIX_SUCCESS ? wait_op(&waiter) : rc;
}

static pmix_status_t deregister_ns(const char *ns)
{
    PMIx_server_deregister_nspace(ns, op_done, &waiter);
    return wait_op(&waiter);
}

/* The job-level string `key` of `ns` (malloc'd), or NULL. */
static char *get_string(const char *ns, const char *key)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&wild, key, NULL, 0, &v) != PMIX_SUCCESS || v == NULL)
        return NULL;
    char *s = v->type == PMIX_STRING && v->data.string != NULL ? strdup(v->data.string) : NULL;
    PMIX_VALUE_RELEASE(v);
    return s;
}

/* Whether `ns` has PMIX_TDIR_RMCLEAN = true. */
static bool get_rmclean(const char *ns)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, ns, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&wild, PMIX_TDIR_RMCLEAN, NULL, 0, &v) != PMIX_SUCCESS || v == NULL)
        return false;
    bool b = v->type == PMIX_BOOL && v->data.flag;
    PMIX_VALUE_RELEASE(v);
    return b;
}

static bool is_private_dir(const char *path)
{
    struct stat st;
    return path != NULL && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
           (st.st_mode & 07777) == 0700 && st.st_uid == geteuid();
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Whether `child` is `parent`/<one component>. */
static bool directly_under(const char *child, const char *parent)
{
    size_t n = strlen(parent);
    return child != NULL && strncmp(child, parent, n) == 0 && child[n] == '/' && child[n + 1] &&
           strchr(child + n + 1, '/') == NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: server_dirs <base>\n");
        return 2;
    }
    const char *base = argv[1];

    pmix_info_t init[2];
    PMIX_INFO_LOAD(&init[0], PMIX_SERVER_TMPDIR, base, PMIX_STRING);
    PMIX_INFO_LOAD(&init[1], PMIX_SERVER_NSPACE, "dirs-srv", PMIX_STRING);
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    CHECK_RC(PMIx_server_init(&module, init, 2), PMIX_SUCCESS);

    /* 2. No directory keys: the library's. */
    CHECK_RC(register_ns("dirs-a", NULL, 0), PMIX_SUCCESS);
    char *tmp_a = get_string("dirs-a", PMIX_TMPDIR);
    char *ns_a = get_string("dirs-a", PMIX_NSDIR);
    printf("dirs-a: tmpdir=%s nsdir=%s\n", tmp_a ? tmp_a : "-", ns_a ? ns_a : "-");
    CHECK(directly_under(tmp_a, base));
    CHECK(tmp_a != NULL && strstr(tmp_a, "/pmixrs-session.") != NULL);
    CHECK(is_private_dir(tmp_a));
    CHECK(directly_under(ns_a, tmp_a));
    CHECK(is_private_dir(ns_a));
    CHECK(get_rmclean("dirs-a"));
    if (ns_a != NULL) {
        char file[4096];
        snprintf(file, sizeof(file), "%s/scratch", ns_a);
        FILE *f = fopen(file, "w");
        CHECK(f != NULL);
        if (f != NULL)
            fclose(f);
    }
    CHECK_RC(deregister_ns("dirs-a"), PMIX_SUCCESS);
    CHECK(ns_a != NULL && !exists(ns_a));
    CHECK(is_private_dir(tmp_a));

    /* 3. The host's own directories are kept. */
    char given_tmp[4096], given_ns[4096];
    snprintf(given_tmp, sizeof(given_tmp), "%s/host-tmp", base);
    snprintf(given_ns, sizeof(given_ns), "%s/host-tmp/dirs-b", base);
    pmix_info_t b[2];
    PMIX_INFO_LOAD(&b[0], PMIX_TMPDIR, given_tmp, PMIX_STRING);
    PMIX_INFO_LOAD(&b[1], PMIX_NSDIR, given_ns, PMIX_STRING);
    CHECK_RC(register_ns("dirs-b", b, 2), PMIX_SUCCESS);
    char *tmp_b = get_string("dirs-b", PMIX_TMPDIR);
    char *ns_b = get_string("dirs-b", PMIX_NSDIR);
    CHECK(tmp_b != NULL && strcmp(tmp_b, given_tmp) == 0);
    CHECK(ns_b != NULL && strcmp(ns_b, given_ns) == 0);
    CHECK(!get_rmclean("dirs-b"));
    CHECK(!exists(given_tmp));
    CHECK_RC(deregister_ns("dirs-b"), PMIX_SUCCESS);

    /* 4. Left registered: finalize removes it all. */
    CHECK_RC(register_ns("dirs-c", NULL, 0), PMIX_SUCCESS);
    char *tmp_c = get_string("dirs-c", PMIX_TMPDIR);
    char *ns_c = get_string("dirs-c", PMIX_NSDIR);
    CHECK(tmp_a != NULL && tmp_c != NULL && strcmp(tmp_a, tmp_c) == 0);
    CHECK(directly_under(ns_c, tmp_c));
    CHECK(is_private_dir(ns_c));

    /* 5. Clients of another user could not enter the library's 0700
     *    directories: none are supplied (no process runs here). */
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, "dirs-d", 0);
    CHECK_RC(PMIx_server_register_client(&other, geteuid() + 1, getegid(), NULL, op_done, &waiter),
             PMIX_SUCCESS);
    CHECK_RC(wait_op(&waiter), PMIX_SUCCESS);
    CHECK_RC(register_ns("dirs-d", NULL, 0), PMIX_SUCCESS);
    char *ns_d = get_string("dirs-d", PMIX_NSDIR);
    CHECK(ns_d == NULL);
    free(ns_d);

    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS);
    CHECK(ns_c != NULL && !exists(ns_c));
    CHECK(tmp_a != NULL && !exists(tmp_a));

    free(tmp_a);
    free(ns_a);
    free(tmp_b);
    free(ns_b);
    free(tmp_c);
    free(ns_c);
    PMIX_INFO_DESTRUCT(&init[0]);
    PMIX_INFO_DESTRUCT(&init[1]);
    PMIX_INFO_DESTRUCT(&b[0]);
    PMIX_INFO_DESTRUCT(&b[1]);
    if (failures) {
        fprintf(stderr, "server_dirs: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("server_dirs: %d checks passed\n", checks);
    return 0;
}
