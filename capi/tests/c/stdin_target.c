/* A job rank for push_tool.c: PMIx_Init, then "read LINE" for every line
 * of its stdin and "eof after N lines" at its end, then finalize. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        printf("read %s\n", line);
        fflush(stdout);
        n++;
    }
    printf("eof after %d lines\n", n);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
