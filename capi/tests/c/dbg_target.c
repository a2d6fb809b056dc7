/* A job rank for debugger.c: PMIx_Init (where a debugger may hold it),
 * then "past init RANK", then finalize. */
#include <pmix.h>
#include <stdio.h>

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    printf("past init %u\n", me.rank);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
