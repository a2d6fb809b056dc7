/* A direct-launch debugger in the shape the PMIx use case describes,
 * written against Debian's pmix_tool.h: starts `pmixrun --stop-in-init
 * all -n N PROGRAM` (argv[1..4]), attaches to it as a tool, waits for the
 * job's PMIX_READY_FOR_DEBUG (every rank waits in PMIx_Init), reads the
 * process table, releases the ranks with PMIX_DEBUGGER_RELEASE and waits
 * for the job. Prints "FAIL: ..." and exits 1 on an error. */
#include "tool_common.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int ready = 0;
static char job[PMIX_MAX_NSLEN + 1];
static char breakpoint[64];

static void on_ready(size_t id, pmix_status_t status, const pmix_proc_t *src,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                     size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                     void *cbdata)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && PMIX_STRING == info[i].value.type)
            snprintf(job, sizeof job, "%s", info[i].value.data.string);
        if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && PMIX_STRING == info[i].value.type)
            snprintf(breakpoint, sizeof breakpoint, "%s", info[i].value.data.string);
    }
    ready = 1;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        printf("FAIL: usage: debugger PMIXRUN N PROGRAM PIDFILE\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(90);
    pid_t launcher = fork();
    if (0 == launcher) {
        execl(argv[1], argv[1], "--timeout", "60", "--report-pid", argv[4],
              "--stop-in-init", "all", "-n", argv[2], argv[3], (char *)NULL);
        _exit(127);
    }
    wait_for_pid_file(argv[4]);

    pmix_proc_t me;
    attach_to(launcher, &me);
    pmix_status_t rc;
    pmix_status_t code = PMIX_READY_FOR_DEBUG;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_ready, NULL, NULL);
    if (rc < 0) fail("register READY_FOR_DEBUG", rc);
    for (int i = 0; i < 3000 && !ready; i++) usleep(10000);
    if (!ready) fail("no PMIX_READY_FOR_DEBUG", PMIX_ERR_TIMEOUT);
    printf("ready-for-debug %s at %s\n", job, breakpoint);

    pmix_query_t *q;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    PMIX_QUERY_CREATE(q, 1);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_PROC_TABLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[0], 1);
    PMIX_INFO_LOAD(&q[0].qualifiers[0], PMIX_NSPACE, job, PMIX_STRING);
    rc = PMIx_Query_info(q, 1, &res, &nres);
    if (PMIX_SUCCESS != rc || nres != 1) fail("proc table", rc);
    pmix_data_array_t *d = res[0].value.data.darray;
    pmix_proc_info_t *pi = (pmix_proc_info_t *)d->array;
    for (size_t i = 0; i < d->size; i++)
        printf("proc %s %u pid %d %s\n", pi[i].proc.nspace, pi[i].proc.rank, (int)pi[i].pid,
               PMIx_Proc_state_string(pi[i].state));
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 1);

    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, job, PMIX_RANK_WILDCARD);
    pmix_data_array_t darr = {.type = PMIX_PROC, .size = 1, .array = &target};
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_EVENT_CUSTOM_RANGE, &darr, PMIX_DATA_ARRAY);
    printf("releasing\n");
    rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, &info, 1, NULL, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIX_DEBUGGER_RELEASE", rc);
    PMIx_tool_finalize();

    int st = 0;
    if (waitpid(launcher, &st, 0) != launcher) fail("waitpid", PMIX_ERROR);
    printf("job exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return WIFEXITED(st) && 0 == WEXITSTATUS(st) ? 0 : 1;
}
