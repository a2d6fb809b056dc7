/*
 * Two pmix-rs servers driven the way a foreign host (ORTE's orteds,
 * docs/CAPI.md, "Server side") drives them on two nodes: the multi-node paths of
 * the server API.
 *
 * The program forks a copy of itself right away, so there are two server
 * processes, "node A" (the parent) and "node B" (the child), connected by
 * a socketpair made before the fork — the "network" between the hosts,
 * served on each side by one helper thread. Each calls PMIx_server_init
 * with its own module and its own pmix.srvr.tmpdir, registers its one
 * client of namespace "twonode" (job size 2: rank 0 on A, rank 1 on B) —
 * register_client, then register_nspace with nlocalprocs = 1 and pmix.pdata
 * for both ranks — and forks + execs the client program with the
 * environment of setup_fork.
 *
 * The host module:
 *  - fence_nb: the library hands over this node's blob malloc'd (the host
 *    owns it and frees it); it goes to the other host, and once the other
 *    host's blob arrived the concatenation (node A: own first, node B: peer
 *    first — any order must work) goes back through the modex callback with
 *    a release_fn that frees it;
 *  - direct_modex(proc): a request to the other host, whose helper thread
 *    calls PMIx_server_dmodex_request(proc) and sends the bytes back (once
 *    the library answers: it holds a request for a client that has not
 *    committed yet); they complete the original callback, again with a
 *    release_fn.
 *  - connect / disconnect (RFC0003, the 4.2 slots: procs, infos, an op
 *    callback): each host tells the other ('C' with the PMIX_GROUP_ID the
 *    library minted, 'D') and completes once both nodes' requests are in;
 *    the two minted names must be equal.
 *
 * Messages on the socketpair: 1 type byte, an 8-byte length, the payload.
 *   'F' fence blob     payload: the blob
 *   'Q' dmodex request payload: u64 id, pmix_proc_t
 *   'R' dmodex answer  payload: u64 id, i32 status, the bytes
 *   'C' connect        payload: the minted group name
 *   'D' disconnect     payload: none
 *   'X' done           payload: i32 client_finalized count of the sender
 *
 * Everything is bounded: an alarm (TWO_NODES_ALARM seconds, default 40)
 * kills a node and its client, and reads time out after 30 s.
 *
 * Usage: two_nodes <client program>
 * Each node prints "two_nodes: node A: N checks passed" (B likewise); node
 * A also waits for node B and fails when it failed. Exit 0 when all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pmix.h>
#include <pmix_server.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NSPACE "twonode"
/* the client's: collecting, plain, then the group's construct (carrying
 * the servers' contributions), fence over the group and destruct, final */
#define NFENCES 6
#define GROUP_CONSTRUCT_FENCE 2

static int node; /* 0 = A, 1 = B */
static const char *node_name(int n) { return 0 == n ? "A" : "B"; }

static atomic_int checks, failures;
#define CHECK(c)                                                                    \
    do {                                                                            \
        atomic_fetch_add(&checks, 1);                                               \
        if (!(c)) {                                                                 \
            atomic_fetch_add(&failures, 1);                                         \
            fprintf(stderr, "two_nodes: node %s: %s:%d: check failed: %s\n",        \
                    node_name(node), __FILE__, __LINE__, #c);                       \
        }                                                                           \
    } while (0)
#define CHECK_RC(e, want)                                                           \
    do {                                                                            \
        pmix_status_t rc_ = (e);                                                    \
        atomic_fetch_add(&checks, 1);                                               \
        if (rc_ != (want)) {                                                        \
            atomic_fetch_add(&failures, 1);                                         \
            fprintf(stderr, "two_nodes: node %s: line %d: %s = %s (%d), wanted %d\n", \
                    node_name(node), __LINE__, #e, PMIx_Error_string(rc_), (int) rc_, \
                    (int) (want));                                                  \
        }                                                                           \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The link to the other node                                               */

static int sock = -1;
static int wake[2] = {-1, -1}; /* wakes the helper when a fence_nb came */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

static int write_all(const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = send(sock, p, n, MSG_NOSIGNAL);
        if (w < 0 && EINTR == errno)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t) w;
    }
    return 0;
}

/* One message: type, length of a + b, then a and b. Any thread. */
static int send_msg(char type, const void *a, size_t na, const void *b, size_t nb)
{
    uint64_t len = na + nb;
    pthread_mutex_lock(&write_lock);
    int rc = write_all(&type, 1);
    if (0 == rc)
        rc = write_all(&len, sizeof(len));
    if (0 == rc && na > 0)
        rc = write_all(a, na);
    if (0 == rc && nb > 0)
        rc = write_all(b, nb);
    pthread_mutex_unlock(&write_lock);
    if (0 != rc)
        fprintf(stderr, "two_nodes: node %s: sending '%c' failed: %s\n", node_name(node), type,
                strerror(errno));
    return rc;
}

/* Reads exactly n bytes, each wait bounded by 30 s; -1 on EOF or timeout. */
static int read_all(void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        int pr = poll(&pfd, 1, 30000);
        if (pr < 0 && EINTR == errno)
            continue;
        if (pr <= 0)
            return -1;
        ssize_t r = read(sock, p, n);
        if (r < 0 && EINTR == errno)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t) r;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Host module state                                                        */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int client_object; /* the server_object of our client */
static atomic_int n_connected, n_finalized, n_abort, bad_object;

/* fences */
static struct {
    bool active;
    pmix_modex_cbfunc_t cb;
    void *cbdata;
    char *own; /* the library's blob, ours to free */
    size_t nown;
} pending_fence;
static struct {
    char *bytes;
    size_t n;
} peer_blobs[8];
static int npeer_blobs;
static atomic_int n_fence, n_fence_done, n_released, fence_overlap, bad_fence_procs;
static size_t own_sizes[NFENCES], peer_sizes[NFENCES];
static bool collect_seen[NFENCES], own_null[NFENCES];

/* direct modex */
static struct {
    bool used;
    uint64_t id;
    pmix_modex_cbfunc_t cb;
    void *cbdata;
} dm_pending[8];
static uint64_t dm_next_id = 1;
static atomic_int n_direct, n_direct_done, n_served, n_served_ok, bad_direct;
static size_t dm_answer_size;
static int dm_answer_status = 1;

static atomic_int peer_done, local_done, peer_finalized = -1, link_broken;

static void release_buf(void *p)
{
    free(p);
    atomic_fetch_add(&n_released, 1);
}

static pmix_status_t connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                               void *cbdata)
{
    if (obj != &client_object || (int) proc->rank != node || 0 != strcmp(proc->nspace, NSPACE))
        atomic_fetch_add(&bad_object, 1);
    atomic_fetch_add(&n_connected, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
                               void *cbdata)
{
    if (obj != &client_object || (int) proc->rank != node)
        atomic_fetch_add(&bad_object, 1);
    atomic_fetch_add(&n_finalized, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t do_abort(const pmix_proc_t *proc, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb,
                              void *cbdata)
{
    atomic_fetch_add(&n_abort, 1);
    return PMIX_OPERATION_SUCCEEDED;
}

static bool info_true(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++)
        if (0 == strcmp(info[i].key, key))
            return PMIX_INFO_TRUE(&info[i]);
    return false;
}

/* Thread-shifted like ORTE: records the fence, sends the blob, returns;
 * the helper thread completes it. */
static pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                           void *cbdata)
{
    int idx = atomic_fetch_add(&n_fence, 1);
    /* the whole namespace: one proc, the wildcard rank; or (the group's
     * operations) both ranks by name */
    bool whole = 1 == nprocs && NULL != procs && 0 == strcmp(procs[0].nspace, NSPACE) &&
                 PMIX_RANK_WILDCARD == procs[0].rank;
    bool both = 2 == nprocs && NULL != procs && 0 == strcmp(procs[0].nspace, NSPACE) &&
                0 == strcmp(procs[1].nspace, NSPACE) && 0 == procs[0].rank && 1 == procs[1].rank;
    if (!whole && !both)
        atomic_fetch_add(&bad_fence_procs, 1);
    if (idx < NFENCES) {
        own_sizes[idx] = ndata;
        own_null[idx] = NULL == data;
        collect_seen[idx] = info_true(info, ninfo, PMIX_COLLECT_DATA);
    }
    if (0 != send_msg('F', data, ndata, NULL, 0)) {
        free(data);
        return PMIX_ERR_UNREACH; /* no callback will come */
    }
    pthread_mutex_lock(&lock);
    if (pending_fence.active)
        atomic_fetch_add(&fence_overlap, 1);
    pending_fence.active = true;
    pending_fence.cb = cb;
    pending_fence.cbdata = cbdata;
    pending_fence.own = data;
    pending_fence.nown = ndata;
    pthread_mutex_unlock(&lock);
    char c = 1;
    if (1 != write(wake[1], &c, 1))
        atomic_fetch_add(&link_broken, 1);
    return PMIX_SUCCESS;
}

/* connect / disconnect: [0] = 'C', [1] = 'D' */
static struct {
    bool local;
    int peer;
    pmix_op_cbfunc_t cb;
    void *cbdata;
} pending_op[2];
static char own_group[PMIX_MAX_NSLEN + 1], peer_group[PMIX_MAX_NSLEN + 1];
static atomic_int n_connect, n_disconnect, n_op_done, bad_connect;

static pmix_status_t op_slot(int which, const pmix_proc_t procs[], size_t nprocs,
                             const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                             void *cbdata)
{
    atomic_fetch_add(0 == which ? &n_connect : &n_disconnect, 1);
    const char *group = "";
    for (size_t i = 0; i < ninfo; i++)
        if (0 == strcmp(info[i].key, PMIX_GROUP_ID) && PMIX_STRING == info[i].value.type)
            group = info[i].value.data.string;
    if (0 == which) {
        /* the whole namespace, with the name the library minted */
        if (1 != nprocs || 0 != strcmp(procs[0].nspace, NSPACE) ||
            PMIX_RANK_WILDCARD != procs[0].rank || 0 != strncmp(group, "pmixrs-cnct-", 12))
            atomic_fetch_add(&bad_connect, 1);
        pmix_strncpy(own_group, group, PMIX_MAX_NSLEN);
    }
    /* a copy: once the op is pending, the helper thread may complete it
     * (the peer answered first), and the library then frees info */
    char mine[PMIX_MAX_NSLEN + 1] = {0};
    pmix_strncpy(mine, group, PMIX_MAX_NSLEN);
    group = mine;
    pthread_mutex_lock(&lock);
    pending_op[which].local = true;
    pending_op[which].cb = cb;
    pending_op[which].cbdata = cbdata;
    pthread_mutex_unlock(&lock);
    if (0 != send_msg(0 == which ? 'C' : 'D', group, 0 == which ? strlen(group) + 1 : 0, NULL,
                      0)) {
        pthread_mutex_lock(&lock);
        pending_op[which].local = false;
        pthread_mutex_unlock(&lock);
        return PMIX_ERR_UNREACH;
    }
    char c = 1;
    if (1 != write(wake[1], &c, 1))
        atomic_fetch_add(&link_broken, 1);
    return PMIX_SUCCESS;
}

static pmix_status_t connect_slot(const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
    return op_slot(0, procs, nprocs, info, ninfo, cb, cbdata);
}

static pmix_status_t disconnect_slot(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cb,
                                     void *cbdata)
{
    return op_slot(1, procs, nprocs, info, ninfo, cb, cbdata);
}

/* Helper thread: completes a connect or disconnect once both nodes asked. */
static void try_complete_ops(void)
{
    for (int w = 0; w < 2; w++) {
        pthread_mutex_lock(&lock);
        if (!pending_op[w].local || 0 == pending_op[w].peer) {
            pthread_mutex_unlock(&lock);
            continue;
        }
        pmix_op_cbfunc_t cb = pending_op[w].cb;
        void *cbdata = pending_op[w].cbdata;
        pending_op[w].local = false;
        pending_op[w].peer--;
        pthread_mutex_unlock(&lock);
        atomic_fetch_add(&n_op_done, 1);
        cb(PMIX_SUCCESS, cbdata);
    }
}

/* Helper thread: completes the pending fence once the peer's blob is here. */
static void try_complete_fence(void)
{
    pthread_mutex_lock(&lock);
    if (!pending_fence.active || 0 == npeer_blobs) {
        pthread_mutex_unlock(&lock);
        return;
    }
    pmix_modex_cbfunc_t cb = pending_fence.cb;
    void *cbdata = pending_fence.cbdata;
    char *own = pending_fence.own;
    size_t nown = pending_fence.nown;
    char *peer = peer_blobs[0].bytes;
    size_t npeer = peer_blobs[0].n;
    npeer_blobs--;
    memmove(&peer_blobs[0], &peer_blobs[1], npeer_blobs * sizeof(peer_blobs[0]));
    pending_fence.active = false;
    pthread_mutex_unlock(&lock);

    int idx = atomic_load(&n_fence_done);
    if (idx < NFENCES)
        peer_sizes[idx] = npeer;
    size_t total = nown + npeer;
    char *all = malloc(total > 0 ? total : 1);
    if (0 == node) { /* A: own blob first */
        if (nown)
            memcpy(all, own, nown);
        if (npeer)
            memcpy(all + nown, peer, npeer);
    } else { /* B: the peer's first */
        if (npeer)
            memcpy(all, peer, npeer);
        if (nown)
            memcpy(all + npeer, own, nown);
    }
    free(own); /* the library handed it over malloc'd: the host frees it */
    free(peer);
    atomic_fetch_add(&n_fence_done, 1);
    cb(PMIX_SUCCESS, all, total, cbdata, release_buf, all);
}

static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cb, void *cbdata)
{
    atomic_fetch_add(&n_direct, 1);
    bool key_ok = false;
    for (size_t i = 0; i < ninfo; i++)
        if (0 == strcmp(info[i].key, PMIX_REQUIRED_KEY) && PMIX_STRING == info[i].value.type &&
            NULL != info[i].value.data.string &&
            (0 == strcmp(info[i].value.data.string, "early") ||
             0 == strcmp(info[i].value.data.string, "late")))
            key_ok = true;
    if (!key_ok || 0 != strcmp(proc->nspace, NSPACE) || (int) proc->rank != 1 - node)
        atomic_fetch_add(&bad_direct, 1);
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < 8 && slot < 0; i++)
        if (!dm_pending[i].used)
            slot = i;
    if (slot < 0) {
        pthread_mutex_unlock(&lock);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    uint64_t id = dm_next_id++;
    dm_pending[slot].used = true;
    dm_pending[slot].id = id;
    dm_pending[slot].cb = cb;
    dm_pending[slot].cbdata = cbdata;
    pthread_mutex_unlock(&lock);
    if (0 != send_msg('Q', &id, sizeof(id), proc, sizeof(*proc))) {
        pthread_mutex_lock(&lock);
        dm_pending[slot].used = false;
        pthread_mutex_unlock(&lock);
        return PMIX_ERR_UNREACH;
    }
    return PMIX_SUCCESS;
}

/* The library's answer to PMIx_server_dmodex_request: valid during the
 * call, so it is sent (copied) right here. */
static void dmodex_answer(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    uint64_t id = (uint64_t) (uintptr_t) cbdata;
    if (PMIX_SUCCESS == status && sz > 0 && NULL != data)
        atomic_fetch_add(&n_served_ok, 1);
    size_t n = sizeof(id) + sizeof(int32_t) + sz;
    char *buf = malloc(n);
    int32_t st = status;
    memcpy(buf, &id, sizeof(id));
    memcpy(buf + sizeof(id), &st, sizeof(st));
    if (sz > 0)
        memcpy(buf + sizeof(id) + sizeof(st), data, sz);
    send_msg('R', buf, n, NULL, 0);
    free(buf);
}

static void serve_request(const char *payload, size_t n)
{
    atomic_fetch_add(&n_served, 1);
    uint64_t id;
    pmix_proc_t proc;
    if (n != sizeof(id) + sizeof(proc)) {
        atomic_fetch_add(&link_broken, 1);
        return;
    }
    memcpy(&id, payload, sizeof(id));
    memcpy(&proc, payload + sizeof(id), sizeof(proc));
    pmix_status_t rc = PMIx_server_dmodex_request(&proc, dmodex_answer, (void *) (uintptr_t) id);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "two_nodes: node %s: PMIx_server_dmodex_request = %s\n",
                node_name(node), PMIx_Error_string(rc));
        dmodex_answer(rc, NULL, 0, (void *) (uintptr_t) id);
    }
}

static void deliver_answer(const char *payload, size_t n)
{
    uint64_t id;
    int32_t st;
    if (n < sizeof(id) + sizeof(st)) {
        atomic_fetch_add(&link_broken, 1);
        return;
    }
    memcpy(&id, payload, sizeof(id));
    memcpy(&st, payload + sizeof(id), sizeof(st));
    size_t sz = n - sizeof(id) - sizeof(st);
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < 8 && slot < 0; i++)
        if (dm_pending[i].used && dm_pending[i].id == id)
            slot = i;
    if (slot < 0) {
        pthread_mutex_unlock(&lock);
        atomic_fetch_add(&bad_direct, 1);
        return;
    }
    pmix_modex_cbfunc_t cb = dm_pending[slot].cb;
    void *cbdata = dm_pending[slot].cbdata;
    dm_pending[slot].used = false;
    dm_answer_size = sz;
    dm_answer_status = st;
    pthread_mutex_unlock(&lock);
    char *bytes = malloc(sz > 0 ? sz : 1);
    if (sz > 0)
        memcpy(bytes, payload + sizeof(id) + sizeof(st), sz);
    atomic_fetch_add(&n_direct_done, 1);
    cb(st, bytes, sz, cbdata, release_buf, bytes);
}

/* The helper thread: serves the link, and completes this node's fences,
 * until both nodes are done (the peer's last blob may come just before
 * its 'X', ahead of this node's own last fence_nb). */
static void *helper(void *arg)
{
    while (!(atomic_load(&peer_done) && atomic_load(&local_done))) {
        /* after the peer's 'X' its end may close at any time: not read */
        struct pollfd pfd[2] = {{.fd = atomic_load(&peer_done) ? -1 : sock, .events = POLLIN},
                                {.fd = wake[0], .events = POLLIN}};
        int pr = poll(pfd, 2, 1000);
        if (pr < 0 && EINTR == errno)
            continue;
        if (pr < 0)
            break;
        if (pfd[1].revents & POLLIN) {
            char c[16];
            if (read(wake[0], c, sizeof(c)) <= 0)
                atomic_fetch_add(&link_broken, 1);
            try_complete_fence();
            try_complete_ops();
        }
        if (0 == (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        char type;
        uint64_t len;
        if (0 != read_all(&type, 1) || 0 != read_all(&len, sizeof(len)) || len > (1u << 30)) {
            fprintf(stderr, "two_nodes: node %s: the link to node %s broke\n", node_name(node),
                    node_name(1 - node));
            atomic_fetch_add(&link_broken, 1);
            break;
        }
        char *payload = malloc(len > 0 ? len : 1);
        if (len > 0 && 0 != read_all(payload, len)) {
            free(payload);
            atomic_fetch_add(&link_broken, 1);
            break;
        }
        switch (type) {
        case 'F':
            pthread_mutex_lock(&lock);
            if (npeer_blobs < 8) {
                peer_blobs[npeer_blobs].bytes = payload;
                peer_blobs[npeer_blobs].n = len;
                npeer_blobs++;
                payload = NULL;
            }
            pthread_mutex_unlock(&lock);
            if (NULL != payload)
                atomic_fetch_add(&link_broken, 1);
            try_complete_fence();
            break;
        case 'Q':
            serve_request(payload, len);
            break;
        case 'R':
            deliver_answer(payload, len);
            break;
        case 'C':
        case 'D':
            pthread_mutex_lock(&lock);
            pending_op['C' == type ? 0 : 1].peer++;
            if ('C' == type && len > 0)
                pmix_strncpy(peer_group, payload, len < sizeof(peer_group) ? len : PMIX_MAX_NSLEN);
            pthread_mutex_unlock(&lock);
            try_complete_ops();
            break;
        case 'X':
            if (len == sizeof(int32_t)) {
                int32_t f;
                memcpy(&f, payload, sizeof(f));
                atomic_store(&peer_finalized, f);
            }
            atomic_store(&peer_done, 1);
            break;
        default:
            atomic_fetch_add(&link_broken, 1);
        }
        free(payload);
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Completion waits                                                         */

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

static atomic_int own_dm_done;
static pmix_status_t own_dm_status;
static size_t own_dm_size;
static void own_dm_cb(pmix_status_t status, char *data, size_t sz, void *cbdata)
{
    own_dm_status = status;
    own_dm_size = sz;
    atomic_store(&own_dm_done, 1);
}

static volatile pid_t client_pid;
static void on_alarm(int sig)
{
    static const char msg[2][32] = {"two_nodes: node A: timed out\n",
                                    "two_nodes: node B: timed out\n"};
    if (client_pid > 0)
        kill(client_pid, SIGKILL);
    if (write(2, msg[node], strlen(msg[node])) < 0)
        _exit(3);
    _exit(3);
}

/* ------------------------------------------------------------------------ */
/* One node                                                                 */

static pmix_info_t *pdata_entry(pmix_info_t *slot, pmix_rank_t r)
{
    pmix_info_t *pd;
    PMIX_INFO_CREATE(pd, 5);
    uint16_t zero16 = 0; /* each rank is alone on its node */
    uint32_t nodeid = r;
    PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &zero16, PMIX_UINT16);
    PMIX_INFO_LOAD(&pd[2], PMIX_NODE_RANK, &zero16, PMIX_UINT16);
    PMIX_INFO_LOAD(&pd[3], PMIX_HOSTNAME, 0 == r ? "nodeA" : "nodeB", PMIX_STRING);
    PMIX_INFO_LOAD(&pd[4], PMIX_NODEID, &nodeid, PMIX_UINT32);
    pmix_data_array_t darray = {.type = PMIX_INFO, .size = 5, .array = pd};
    PMIX_INFO_LOAD(slot, PMIX_PROC_DATA, &darray, PMIX_DATA_ARRAY);
    PMIX_INFO_FREE(pd, 5); /* PMIx_Info_load copied it */
    return slot;
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

/* PMIx_Get with a NULL key in this server process, as ORTE's daemons call
 * it: a proc of the daemons' job known only from PMIx_Store_internal, the
 * client's job level, and the client (its committed card, after it left). */
static void check_get_all(const pmix_proc_t *client)
{
    pmix_proc_t daemon, wild;
    PMIX_LOAD_PROCID(&daemon, "1070071808", (pmix_rank_t) node);
    PMIX_LOAD_PROCID(&wild, NSPACE, PMIX_RANK_WILDCARD);
    pmix_value_t note, *val = NULL;
    PMIX_VALUE_CONSTRUCT(&note);
    PMIX_VALUE_LOAD(&note, "tcp://10.0.0.1:4242", PMIX_STRING);
    CHECK_RC(PMIx_Store_internal(&daemon, "pmix.puri", &note), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&note);

    CHECK_RC(PMIx_Get(&daemon, NULL, NULL, 0, &val), PMIX_SUCCESS);
    const pmix_value_t *uri = find_in_all(val, "pmix.puri");
    CHECK(NULL != uri && PMIX_STRING == uri->type &&
          0 == strcmp(uri->data.string, "tcp://10.0.0.1:4242"));
    CHECK(NULL != val && PMIX_DATA_ARRAY == val->type && 1 == val->data.darray->size);
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;

    CHECK_RC(PMIx_Get(&wild, NULL, NULL, 0, &val), PMIX_SUCCESS);
    const pmix_value_t *size = find_in_all(val, PMIX_JOB_SIZE);
    CHECK(NULL != size && PMIX_UINT32 == size->type && 2 == size->data.uint32);
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;

    CHECK_RC(PMIx_Get(client, NULL, NULL, 0, &val), PMIX_SUCCESS);
    const pmix_value_t *card = find_in_all(val, "card");
    char want[64];
    snprintf(want, sizeof(want), "card-of-%u", client->rank);
    CHECK(NULL != card && PMIX_STRING == card->type && 0 == strcmp(card->data.string, want));
    if (NULL != val)
        PMIX_VALUE_RELEASE(val);
    val = NULL;

    /* a proc nobody knows: not found, *val NULL */
    pmix_proc_t nobody;
    PMIX_LOAD_PROCID(&nobody, "nobody", 0);
    CHECK(PMIX_ERR_NOT_FOUND == PMIx_Get(&nobody, NULL, NULL, 0, &val) && NULL == val);
}

/* Runs this node; the checks go to the counters. */
static void run_node(const char *base, const char *client)
{
    alarm(getenv("TWO_NODES_ALARM") ? (unsigned) atoi(getenv("TWO_NODES_ALARM")) : 40);
    CHECK(0 == pipe(wake));

    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    module.client_connected = connected;
    module.client_finalized = finalized;
    module.abort = do_abort;
    module.fence_nb = fence;
    module.direct_modex = direct_modex;
    module.connect = connect_slot;
    module.disconnect = disconnect_slot;

    char tmp[512];
    snprintf(tmp, sizeof(tmp), "%s/node%s", base, node_name(node));
    CHECK(0 == mkdir(tmp, 0700));
    pmix_info_t sinfo[3];
    pmix_rank_t srank = node; /* the daemons' job, one rank per node */
    PMIX_INFO_LOAD(&sinfo[0], PMIX_SERVER_TMPDIR, tmp, PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[1], PMIX_SERVER_NSPACE, "1070071808", PMIX_STRING);
    PMIX_INFO_LOAD(&sinfo[2], PMIX_SERVER_RANK, &srank, PMIX_PROC_RANK);
    CHECK_RC(PMIx_server_init(&module, sinfo, 3), PMIX_SUCCESS);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&sinfo[i]);

    pthread_t thr;
    CHECK(0 == pthread_create(&thr, NULL, helper, NULL));

    pmix_proc_t me, peer;
    PMIX_LOAD_PROCID(&me, NSPACE, node);
    PMIX_LOAD_PROCID(&peer, NSPACE, 1 - node);
    CHECK_RC(PMIx_server_register_client(&me, getuid(), getgid(), &client_object, op_cb, NULL),
             PMIX_SUCCESS);
    CHECK_RC(wait_op(), PMIX_SUCCESS);

    char *regex = NULL, *ppn = NULL;
    CHECK_RC(PMIx_generate_regex("nodeA,nodeB", &regex), PMIX_SUCCESS);
    CHECK_RC(PMIx_generate_ppn("0;1", &ppn), PMIX_SUCCESS);
    size_t ninfo = 7;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, ninfo);
    uint32_t two = 2, one = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &two, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_MAX_PROCS, &two, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[3], PMIX_NODE_MAP, regex, PMIX_STRING);
    PMIX_INFO_LOAD(&info[4], PMIX_PROC_MAP, ppn, PMIX_STRING);
    pdata_entry(&info[5], 0);
    pdata_entry(&info[6], 1);
    free(regex);
    free(ppn);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, NSPACE);
    CHECK_RC(PMIx_server_register_nspace(ns, 1, info, ninfo, op_cb, NULL), PMIX_SUCCESS);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    PMIX_INFO_FREE(info, ninfo);

    /* the peer is not ours: a dmodex request for it fails (through the callback) */
    CHECK_RC(PMIx_server_dmodex_request(&peer, own_dm_cb, NULL), PMIX_SUCCESS);
    for (int i = 0; i < 10000 && !atomic_load(&own_dm_done); i++)
        usleep(1000);
    CHECK(atomic_load(&own_dm_done));
    CHECK(PMIX_SUCCESS != own_dm_status && 0 == own_dm_size);

    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++)
        env[i] = strdup(environ[i]);
    env[n] = NULL;
    CHECK_RC(PMIx_server_setup_fork(&me, &env), PMIX_SUCCESS);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (0 == pid) {
        char *args[] = {(char *) client, NULL};
        execve(client, args, env);
        perror("execve");
        _exit(127);
    }
    client_pid = pid;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);

    int st = 0;
    CHECK(pid == waitpid(pid, &st, 0));
    client_pid = 0;
    CHECK(WIFEXITED(st) && 0 == WEXITSTATUS(st));
    if (!(WIFEXITED(st) && 0 == WEXITSTATUS(st)))
        fprintf(stderr, "two_nodes: node %s: client status 0x%x\n", node_name(node), st);
    check_get_all(&me);
    PMIx_server_deregister_client(&me, op_cb, NULL);
    CHECK_RC(wait_op(), PMIX_SUCCESS);

    /* tell the peer we are done; serve it until it is done too */
    int32_t fin = atomic_load(&n_finalized);
    CHECK(0 == send_msg('X', &fin, sizeof(fin), NULL, 0));
    atomic_store(&local_done, 1);
    char c = 1;
    CHECK(1 == write(wake[1], &c, 1));
    CHECK(0 == pthread_join(thr, NULL));
    CHECK(atomic_load(&peer_done));
    CHECK(0 == atomic_load(&link_broken));

    PMIx_server_deregister_nspace(ns, op_cb, NULL);
    CHECK_RC(wait_op(), PMIX_SUCCESS);
    CHECK_RC(PMIx_server_finalize(), PMIX_SUCCESS);
    rmdir(tmp);

    /* the up-calls */
    CHECK(1 == atomic_load(&n_connected));
    CHECK(1 == atomic_load(&n_finalized));
    CHECK(2 == atomic_load(&n_finalized) + atomic_load(&peer_finalized));
    CHECK(0 == atomic_load(&n_abort));
    CHECK(0 == atomic_load(&bad_object));
    /* six fences, each with one fence_nb, never two at once */
    CHECK(NFENCES == atomic_load(&n_fence));
    CHECK(NFENCES == atomic_load(&n_fence_done));
    CHECK(0 == atomic_load(&fence_overlap));
    CHECK(0 == atomic_load(&bad_fence_procs));
    CHECK(0 == npeer_blobs);
    /* the collecting fence carries both blobs, the group construct both
     * servers' contributions, the others none */
    CHECK(collect_seen[0] && own_sizes[0] > 0 && !own_null[0] && peer_sizes[0] > 0);
    for (int i = 1; i < NFENCES; i++) {
        if (GROUP_CONSTRUCT_FENCE == i)
            CHECK(!collect_seen[i] && own_sizes[i] > 0 && peer_sizes[i] > 0);
        else
            CHECK(!collect_seen[i] && 0 == own_sizes[i] && 0 == peer_sizes[i]);
    }
    /* two direct modex each way: "early" (held on node B until the first
     * commit there) and "late" of the peer, nothing else */
    CHECK(1 == atomic_load(&n_connect));
    CHECK(1 == atomic_load(&n_disconnect));
    CHECK(2 == atomic_load(&n_op_done));
    CHECK(0 == atomic_load(&bad_connect));
    CHECK(0 != own_group[0] && 0 == strcmp(own_group, peer_group));
    CHECK(2 == atomic_load(&n_direct));
    CHECK(2 == atomic_load(&n_direct_done));
    CHECK(0 == atomic_load(&bad_direct));
    CHECK(PMIX_SUCCESS == dm_answer_status && dm_answer_size > 0);
    CHECK(2 == atomic_load(&n_served));
    CHECK(2 == atomic_load(&n_served_ok));
    /* the library released every result the host handed it */
    CHECK(NFENCES + 2 == atomic_load(&n_released));

    fprintf(stderr,
            "two_nodes: node %s: blobs %zu (own) + %zu (peer), direct modex answer %zu bytes\n",
            node_name(node), own_sizes[0], peer_sizes[0], dm_answer_size);
}

static int report(void)
{
    if (atomic_load(&failures)) {
        printf("two_nodes: node %s: %d of %d checks failed\n", node_name(node),
               atomic_load(&failures), atomic_load(&checks));
        fflush(stdout);
        return 1;
    }
    printf("two_nodes: node %s: %d checks passed\n", node_name(node), atomic_load(&checks));
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: two_nodes <client program>\n");
        return 2;
    }
    signal(SIGALRM, on_alarm);
    char tmpl[] = "/tmp/pmixrs-two-nodes-XXXXXX";
    char *base = mkdtemp(tmpl);
    if (NULL == base) {
        perror("mkdtemp");
        return 1;
    }
    int sv[2];
    if (0 != socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
        perror("socketpair");
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t b = fork();
    if (b < 0) {
        perror("fork");
        return 1;
    }
    if (0 == b) { /* node B */
        node = 1;
        close(sv[0]);
        sock = sv[1];
        run_node(base, argv[1]);
        _exit(report());
    }
    node = 0; /* node A, which also checks that node B passed */
    close(sv[1]);
    sock = sv[0];
    run_node(base, argv[1]);
    int st = 0;
    CHECK(b == waitpid(b, &st, 0));
    CHECK(WIFEXITED(st) && 0 == WEXITSTATUS(st));
    if (!(WIFEXITED(st) && 0 == WEXITSTATUS(st)))
        fprintf(stderr, "two_nodes: node B ended with status 0x%x\n", st);
    rmdir(base);
    return report();
}
