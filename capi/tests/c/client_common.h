/*
 * Helpers shared by the client test programs (client_*.c): checks that
 * count failures, a bounded wait on a flag set by a callback, and the
 * thread the program's main() runs on (callbacks must come from a library
 * thread, never inline from the calling one).
 */
#ifndef CLIENT_COMMON_H
#define CLIENT_COMMON_H

#define _GNU_SOURCE
#include <pmix.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int checks, failures;
static pmix_proc_t me;
static pthread_t main_thread;

#define CHECK(cond)                                                              \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            fprintf(stderr, "rank %u: %s:%d: CHECK failed: %s\n", me.rank,       \
                    __FILE__, __LINE__, #cond);                                  \
        }                                                                        \
    } while (0)

#define CHECK_RC(rc, want)                                                       \
    do {                                                                         \
        pmix_status_t _rc = (rc), _want = (want);                                \
        checks++;                                                                \
        if (_rc != _want) {                                                      \
            failures++;                                                          \
            fprintf(stderr, "rank %u: %s:%d: %s = %s (%d), want %s\n", me.rank,  \
                    __FILE__, __LINE__, #rc, PMIx_Error_string(_rc), _rc,        \
                    PMIx_Error_string(_want));                                   \
        }                                                                        \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Waits up to 30 s for *flag to become at least want. */
static int wait_for(atomic_int *flag, int want, const char *what)
{
    double end = now_s() + 30.0;
    while (atomic_load(flag) < want) {
        if (now_s() > end) {
            fprintf(stderr, "rank %u: timed out waiting for %s\n", me.rank, what);
            failures++;
            return -1;
        }
        usleep(200);
    }
    return 0;
}

static int on_main_thread(void)
{
    return pthread_equal(pthread_self(), main_thread);
}

static int finish(const char *prog)
{
    if (failures) {
        fprintf(stderr, "rank %u: %s: %d of %d checks failed\n", me.rank, prog,
                failures, checks);
        return 1;
    }
    printf("rank %u: %s: %d checks passed\n", me.rank, prog, checks);
    fflush(stdout);
    return 0;
}

#endif
