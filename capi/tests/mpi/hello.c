/* Each rank prints "hello <rank> of <size>" on stdout and, on stderr,
 * which PMIx library the process loaded ("pmix: <version>" or
 * "pmix: none"). Open MPI's pmix component brings libpmix.so.2 in;
 * PMIx_Get_version is looked up at run time so that this program does
 * not link against any PMIx itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static const char *pmix_version(void)
{
    typedef const char *(*get_version_fn)(void);
    void *sym = dlsym(RTLD_DEFAULT, "PMIx_Get_version");
    if (sym == NULL) {
        return NULL;
    }
    get_version_fn get_version;
    *(void **) &get_version = sym;
    return get_version();
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const char *version = pmix_version();
    fprintf(stderr, "pmix: %s\n", version != NULL ? version : "none");
    printf("hello %d of %d\n", rank, size);
    fflush(stdout);

    MPI_Finalize();
    return 0;
}
