/* bench_util.h — what every `make bench` program needs: a wall clock for
 * simulated-cycles-per-second figures and one way to report a failed step. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/** Monotonic wall-clock seconds. */
static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** "PROG: WHAT: reason" on stderr; returns rc (a negative errno), or -EIO for 0. */
static inline int bench_fail(const char *prog, const char *what, int rc)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(rc < 0 ? -rc : EIO));
    return rc ? rc : -EIO;
}

#endif /* BENCH_UTIL_H */
