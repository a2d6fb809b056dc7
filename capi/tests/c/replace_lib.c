/* For tests/lib_replace.rs: loads <dir>/libpmix.so.2, prints "loaded",
 * waits until <dir>/go exists, then calls into the library it mapped
 * (PMIx_Error_string and PMIx_Get_version) and prints "alive". If the
 * file behind its mapping was overwritten in place meanwhile, the calls
 * fault (SIGBUS past the new end of the file). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replace_lib <dir>\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/libpmix.so.2", argv[1]);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    const char *(*error_string)(int);
    const char *(*get_version)(void);
    *(void **) &error_string = dlsym(lib, "PMIx_Error_string");
    *(void **) &get_version = dlsym(lib, "PMIx_Get_version");
    if (error_string == NULL || get_version == NULL) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 1;
    }
    printf("loaded %s\n", get_version());
    fflush(stdout);
    char go[4096];
    snprintf(go, sizeof go, "%s/go", argv[1]);
    for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++) {
        usleep(10000);
    }
    const char *s = error_string(-61);
    printf("alive %s %s\n", s, get_version());
    return (s != NULL && strlen(s) > 0) ? 0 : 3;
}
