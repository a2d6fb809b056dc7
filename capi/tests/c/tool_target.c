/* A job rank for tool_ps.c: registers a handler for event -3100, prints
 * "ready", waits (at most 30 s) for a tool to raise it, prints
 * "got -3100 from NSPACE:RANK" and finalizes. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int got = 0;
static pmix_proc_t source;

static void handler(size_t id, pmix_status_t status, const pmix_proc_t *src,
                    pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                    size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                    void *cbdata)
{
    if (src) memcpy(&source, src, sizeof source);
    got = status;
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(void)
{
    pmix_proc_t me;
    pmix_status_t code = -3100, rc;
    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, handler, NULL, NULL);
    if (rc < 0) {
        printf("FAIL: register: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("ready %s:%u\n", me.nspace, me.rank);
    fflush(stdout);
    for (int i = 0; i < 3000 && !got; i++) usleep(10000);
    if (!got) {
        printf("FAIL: rank %u: no event from a tool within 30 s\n", me.rank);
        return 1;
    }
    printf("got %d from %s:%u\n", got, source.nspace, source.rank);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
