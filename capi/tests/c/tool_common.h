/*
 * Helpers shared by the tool test programs (debugger.c, iof_tool.c,
 * push_tool.c), each of which starts pmixrun itself and attaches to it:
 * a failure report, the wait for pmixrun's --report-pid file, and the
 * attach by pmixrun's pid.
 */
#ifndef TOOL_COMMON_H
#define TOOL_COMMON_H

#include <pmix_tool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Prints "FAIL: what: status" and exits 1. */
static void fail(const char *what, pmix_status_t rc)
{
    printf("FAIL: %s: %s\n", what, PMIx_Error_string(rc));
    exit(1);
}

/* Waits up to 20 s for pmixrun's --report-pid file at `path` (pmixrun
 * writes its pid once its server listens). */
static void wait_for_pid_file(const char *path)
{
    FILE *f = NULL;
    for (int i = 0; i < 2000 && !f; i++) {
        f = fopen(path, "r");
        if (!f) usleep(10000);
    }
    if (!f) fail("no --report-pid file", PMIX_ERR_TIMEOUT);
    fclose(f);
}

/* PMIx_tool_init attached to the server of pmixrun `launcher`. */
static void attach_to(pid_t launcher, pmix_proc_t *me)
{
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_PIDINFO, &launcher, PMIX_PID);
    pmix_status_t rc = PMIx_tool_init(me, &info, 1);
    if (PMIX_SUCCESS != rc) fail("PMIx_tool_init", rc);
}

#endif
