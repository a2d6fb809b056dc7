/* A PMIx tool in the shape of OpenPMIx's pps/pevent, written against
 * Debian's pmix_tool.h: attaches to the server of pid argv[1] (rendezvous
 * files under argv[2]), lists the servers it is attached to, the
 * namespaces, and each job namespace's processes (PMIX_QUERY_PROC_TABLE),
 * then raises event -3100 (range SESSION) for the job's handlers and
 * detaches. Prints "FAIL: ..." and exits 1 on an error. */
#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, pmix_status_t rc)
{
    printf("FAIL: %s: %s\n", what, PMIx_Error_string(rc));
    exit(1);
}

static void proc_table(const char *ns)
{
    pmix_query_t *q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_PROC_TABLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[0], 1);
    PMIX_INFO_LOAD(&q[0].qualifiers[0], PMIX_NSPACE, ns, PMIX_STRING);
    rc = PMIx_Query_info(q, 1, &res, &nres);
    if (PMIX_SUCCESS != rc) fail("proc table", rc);
    if (nres != 1 || res[0].value.type != PMIX_DATA_ARRAY) fail("proc table shape", PMIX_ERROR);
    pmix_data_array_t *d = res[0].value.data.darray;
    if (d->type != PMIX_PROC_INFO) fail("proc table type", PMIX_ERROR);
    pmix_proc_info_t *pi = (pmix_proc_info_t *)d->array;
    for (size_t i = 0; i < d->size; i++) {
        printf("proc %s %u %s %d %s\n", pi[i].proc.nspace, pi[i].proc.rank,
               pi[i].hostname ? pi[i].hostname : "?", (int)pi[i].pid,
               PMIx_Proc_state_string(pi[i].state));
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 1);
}

int main(int argc, char **argv)
{
    pmix_info_t info[2];
    pmix_proc_t me, *servers = NULL;
    size_t nservers = 0, n = 0;
    pmix_status_t rc;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 3) {
        printf("FAIL: usage: tool_ps PID TMPDIR\n");
        return 1;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TMPDIR, argv[2], PMIX_STRING);
    rc = PMIx_tool_init(&me, info, 2);
    if (PMIX_SUCCESS != rc) fail("PMIx_tool_init", rc);
    printf("tool %s:%u\n", me.nspace, me.rank);
    rc = PMIx_tool_get_servers(&servers, &nservers);
    if (PMIX_SUCCESS != rc || nservers != 1) fail("PMIx_tool_get_servers", rc);
    printf("server %s:%u\n", servers[0].nspace, servers[0].rank);
    PMIX_PROC_FREE(servers, nservers);

    pmix_query_t *q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    rc = PMIx_Query_info(q, 1, &res, &nres);
    if (PMIX_SUCCESS != rc || nres != 1 || res[0].value.type != PMIX_STRING)
        fail("PMIX_QUERY_NAMESPACES", rc);
    printf("namespaces %s\n", res[0].value.data.string);
    char *all = strdup(res[0].value.data.string);
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 1);
    pmix_proc_t targets[16];
    for (char *ns = strtok(all, ","); ns && n < 16; ns = strtok(NULL, ",")) {
        if (strcmp(ns, me.nspace) != 0) {
            proc_table(ns);
            PMIX_LOAD_PROCID(&targets[n], ns, PMIX_RANK_WILDCARD);
            n++;
        }
    }
    free(all);
    if (n == 0) fail("no job namespace", PMIX_ERR_NOT_FOUND);

    /* pevent: the jobs' processes, named (a custom range stays on this
     * node when every target is here). */
    pmix_info_t range;
    pmix_data_array_t darr = {.type = PMIX_PROC, .size = n, .array = targets};
    PMIX_INFO_LOAD(&range, PMIX_EVENT_CUSTOM_RANGE, &darr, PMIX_DATA_ARRAY);
    rc = PMIx_Notify_event(-3100, NULL, PMIX_RANGE_CUSTOM, &range, 1, NULL, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIx_Notify_event", rc);
    printf("notified\n");
    rc = PMIx_tool_finalize();
    if (PMIX_SUCCESS != rc) fail("PMIx_tool_finalize", rc);
    printf("tool done\n");
    return 0;
}
