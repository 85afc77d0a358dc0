/* bench_util.h — what every `make bench` program needs: a wall clock and a
 * CPU clock for simulated-cycles-per-second figures and one way to report a
 * failed step; for the device benches (hcadrv.h included first), the
 * device's bring-up and teardown. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/** Seconds on clock `id`. */
static inline double bench_clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/** Monotonic wall-clock seconds. */
static inline double bench_now_s(void) { return bench_clock_s(CLOCK_MONOTONIC); }

/** CPU seconds this process used: simulation speed on a shared machine,
 *  where wall time also counts the other processes' turns. */
static inline double bench_cpu_s(void) { return bench_clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/** "PROG: WHAT: reason" on stderr; returns rc (a negative errno), or -EIO for 0. */
static inline int bench_fail(const char *prog, const char *what, int rc)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(rc < 0 ? -rc : EIO));
    return rc ? rc : -EIO;
}

#ifdef HCADRV_H
/** Host memory, a device of configuration cfg, and the driver: 0, or the
 *  error (the reason printed as "PROG: device: ..."). */
static inline int bench_open_device_cfg(const char *prog, const hca_dev_config_t *cfg, hostmem_t **mem, hca_dev_t **dev,
                                        hcadrv_t **drv)
{
    char err[256] = "";
    int rc;
    hca_host_t host;
    if ((rc = hostmem_create(mem)) || (rc = hca_dev_create(dev, cfg, *mem, err, sizeof err)) ||
        (host = hca_dev_host(*dev), rc = hcadrv_open(drv, &host)))
        fprintf(stderr, "%s: device: %s\n", prog, err[0] ? err : strerror(-rc));
    return rc;
}

/** As bench_open_device_cfg, on engine with the default firmware. */
static inline int bench_open_device_on(const char *prog, dev_engine_kind_t engine, hostmem_t **mem, hca_dev_t **dev,
                                       hcadrv_t **drv)
{
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = engine;
    return bench_open_device_cfg(prog, &cfg, mem, dev, drv);
}

static inline int bench_open_device(const char *prog, hostmem_t **mem, hca_dev_t **dev, hcadrv_t **drv)
{
    return bench_open_device_on(prog, DEV_ENGINE_RTL, mem, dev, drv);
}

/* A host waiting for a completion: the next cycle, or at once over the
 * cycles in which nothing can happen (none on the RTL engine). */
static inline void bench_wait(hca_dev_t *dev)
{
    const uint64_t quiet = hca_dev_quiet_cycles(dev);
    hca_dev_step(dev, quiet ? quiet : 1);
}

static inline void bench_close_device(hostmem_t *mem, hca_dev_t *dev, hcadrv_t *drv)
{
    hcadrv_close(drv);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
}
#endif

#endif /* BENCH_UTIL_H */
