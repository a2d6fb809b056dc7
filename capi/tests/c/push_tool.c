/* A tool that writes to a spawned rank's stdin (PMIx_IOF_push), written
 * against Debian's pmix_tool.h: starts `pmixrun --stop-in-init all -n 1
 * HOLDER` (argv[1], argv[2]), attaches, spawns one rank of READER
 * (argv[3]) with PMIX_FWD_STDIN, pulls its stdout ("iof RANK: LINE"),
 * pushes "alpha\n" (blocking), then "beta\n" with PMIX_IOF_COMPLETE
 * (with a callback), waits for the reader's "eof" line, checks that a
 * push to the closed stdin is refused, releases the first job and waits
 * for pmixrun. Prints "FAIL: ..." and exits 1 on an error. */
#include "tool_common.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int nready = 0;
static volatile int eof_seen = 0;
static volatile int pushed = 0;
static volatile pmix_status_t push_status = PMIX_ERROR;

static void on_ready(size_t id, pmix_status_t status, const pmix_proc_t *src,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                     size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                     void *cbdata)
{
    nready++;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_output(size_t hdlr, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    printf("iof %u: %.*s", source->rank, (int)payload->size, payload->bytes);
    if (payload->size >= 3 && 0 == memcmp(payload->bytes, "eof", 3)) eof_seen = 1;
}

static void on_pushed(pmix_status_t status, void *cbdata)
{
    push_status = status;
    pushed = 1;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        printf("FAIL: usage: push_tool PMIXRUN HOLDER READER PIDFILE\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(90);
    pid_t launcher = fork();
    if (0 == launcher) {
        execl(argv[1], argv[1], "--timeout", "60", "--report-pid", argv[4], "--stop-in-init",
              "all", "-n", "1", argv[2], (char *)NULL);
        _exit(127);
    }
    wait_for_pid_file(argv[4]);

    pmix_proc_t me;
    attach_to(launcher, &me);
    pmix_status_t rc;
    pmix_status_t code = PMIX_READY_FOR_DEBUG;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_ready, NULL, NULL);
    if (rc < 0) fail("register READY_FOR_DEBUG", rc);
    for (int i = 0; i < 3000 && 0 == nready; i++) usleep(10000);
    if (0 == nready) fail("no PMIX_READY_FOR_DEBUG for the first job", PMIX_ERR_TIMEOUT);

    pmix_info_t jinfo;
    bool yes = true;
    PMIX_INFO_LOAD(&jinfo, PMIX_FWD_STDIN, &yes, PMIX_BOOL);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv[3]);
    PMIX_ARGV_APPEND(rc, app.argv, argv[3]);
    app.maxprocs = 1;
    char child[PMIX_MAX_NSLEN + 1];
    rc = PMIx_Spawn(&jinfo, 1, &app, 1, child);
    if (PMIX_SUCCESS != rc) fail("PMIx_Spawn", rc);

    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, child, 0);
    rc = PMIx_IOF_pull(&target, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
    if (rc <= 0) fail("PMIx_IOF_pull", rc);

    pmix_byte_object_t bo;
    bo.bytes = "alpha\n";
    bo.size = 6;
    rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIx_IOF_push alpha", rc);
    pmix_info_t done;
    PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
    bo.bytes = "beta\n";
    bo.size = 5;
    rc = PMIx_IOF_push(&target, 1, &bo, &done, 1, on_pushed, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIx_IOF_push beta", rc);
    for (int i = 0; i < 3000 && !pushed; i++) usleep(10000);
    if (!pushed || PMIX_SUCCESS != push_status) fail("the push callback", push_status);
    for (int i = 0; i < 3000 && !eof_seen; i++) usleep(10000);
    if (!eof_seen) fail("the reader saw no end of its stdin", PMIX_ERR_TIMEOUT);
    rc = PMIx_IOF_push(&target, 1, &bo, NULL, 0, NULL, NULL);
    printf("push after close: %s\n", PMIx_Error_string(rc));

    pmix_proc_t first;
    char first_ns[PMIX_MAX_NSLEN + 1];
    snprintf(first_ns, sizeof first_ns, "run-%d-job", (int)launcher);
    PMIX_LOAD_PROCID(&first, first_ns, PMIX_RANK_WILDCARD);
    pmix_data_array_t darr = {.type = PMIX_PROC, .size = 1, .array = &first};
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_EVENT_CUSTOM_RANGE, &darr, PMIX_DATA_ARRAY);
    rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, &info, 1, NULL, NULL);
    if (PMIX_SUCCESS != rc) fail("PMIX_DEBUGGER_RELEASE", rc);
    PMIx_tool_finalize();

    int st = 0;
    if (waitpid(launcher, &st, 0) != launcher) fail("waitpid", PMIX_ERROR);
    printf("job exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return WIFEXITED(st) && 0 == WEXITSTATUS(st) ? 0 : 1;
}
