/* A tool that receives a spawned job's output (PMIx use case "Debugging",
 * PMIX_FWD_STDOUT), written against Debian's pmix_tool.h: starts
 * `pmixrun --stop-in-init all -n 1 PROGRAM` (argv[1], argv[2]) with its
 * stdout in argv[4], attaches, spawns 2 more ranks of PROGRAM held in
 * init with PMIX_FWD_STDOUT, pulls their stdout with PMIx_IOF_pull
 * (printing "iof NSPACE RANK: LINE"), releases them, waits for both
 * lines, deregisters, releases the first job and waits for pmixrun.
 * Prints "FAIL: ..." and exits 1 on an error. */
#include "tool_common.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char ready_ns[8][PMIX_MAX_NSLEN + 1];
static volatile int nready = 0;
static volatile int nlines = 0;

static void on_ready(size_t id, pmix_status_t status, const pmix_proc_t *src,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                     size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                     void *cbdata)
{
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && PMIX_STRING == info[i].value.type &&
            nready < 8) {
            snprintf(ready_ns[nready], sizeof ready_ns[0], "%s", info[i].value.data.string);
            nready++;
        }
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_output(size_t hdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    printf("iof %s %u ch%u: %.*s", source->nspace, source->rank, (unsigned)channel,
           (int)payload->size, payload->bytes);
    nlines++;
}

static int is_ready(const char *ns)
{
    for (int i = 0; i < nready; i++)
        if (0 == strcmp(ready_ns[i], ns)) return 1;
    return 0;
}

static void release(const char *ns)
{
    pmix_info_t info;
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, ns, PMIX_RANK_WILDCARD);
    pmix_data_array_t darr = {.type = PMIX_PROC, .size = 1, .array = &target};
    PMIX_INFO_LOAD(&info, PMIX_EVENT_CUSTOM_RANGE, &darr, PMIX_DATA_ARRAY);
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, &info, 1, NULL, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIX_DEBUGGER_RELEASE", rc);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        printf("FAIL: usage: iof_tool PMIXRUN PROGRAM PIDFILE LAUNCHER_OUT\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(90);
    pid_t launcher = fork();
    if (0 == launcher) {
        int fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0) _exit(126);
        execl(argv[1], argv[1], "--timeout", "60", "--report-pid", argv[3], "--stop-in-init",
              "all", "-n", "1", argv[2], (char *)NULL);
        _exit(127);
    }
    wait_for_pid_file(argv[3]);

    pmix_proc_t me;
    attach_to(launcher, &me);
    pmix_status_t rc;
    pmix_status_t code = PMIX_READY_FOR_DEBUG;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_ready, NULL, NULL);
    if (rc < 0) fail("register READY_FOR_DEBUG", rc);
    for (int i = 0; i < 3000 && 0 == nready; i++) usleep(10000);
    if (0 == nready) fail("no PMIX_READY_FOR_DEBUG for the first job", PMIX_ERR_TIMEOUT);
    char first[PMIX_MAX_NSLEN + 1];
    snprintf(first, sizeof first, "%s", ready_ns[0]);

    pmix_info_t jinfo[2];
    bool yes = true;
    PMIX_INFO_LOAD(&jinfo[0], PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&jinfo[1], PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv[2]);
    PMIX_ARGV_APPEND(rc, app.argv, argv[2]);
    app.maxprocs = 2;
    char child[PMIX_MAX_NSLEN + 1];
    rc = PMIx_Spawn(jinfo, 2, &app, 1, child);
    if (PMIX_SUCCESS != rc) fail("PMIx_Spawn", rc);
    for (int i = 0; i < 3000 && !is_ready(child); i++) usleep(10000);
    if (!is_ready(child)) fail("no PMIX_READY_FOR_DEBUG for the spawned job", PMIX_ERR_TIMEOUT);

    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, child, PMIX_RANK_WILDCARD);
    rc = PMIx_IOF_pull(&src, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    if (rc <= 0) fail("PMIx_IOF_pull", rc);
    size_t hdlr = (size_t)rc;
    printf("pulled %s as %zu\n", child, hdlr);
    release(child);
    for (int i = 0; i < 3000 && nlines < 2; i++) usleep(10000);
    if (nlines < 2) fail("the spawned ranks' output did not arrive", PMIX_ERR_TIMEOUT);
    rc = PMIx_IOF_deregister(hdlr, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIx_IOF_deregister", rc);
    rc = PMIx_IOF_deregister(hdlr, NULL, 0, NULL, NULL);
    printf("second deregister: %s\n", PMIx_Error_string(rc));
    release(first);
    PMIx_tool_finalize();

    int st = 0;
    if (waitpid(launcher, &st, 0) != launcher) fail("waitpid", PMIX_ERROR);
    printf("job exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return WIFEXITED(st) && 0 == WEXITSTATUS(st) ? 0 : 1;
}
