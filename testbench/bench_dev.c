/* bench_dev — the firmware's mailbox commands, both engines, one run.
 *
 * For CREATE_MKEY (regular over 1 and 16 pages, fast_reg) and DESTROY_MKEY:
 * device cycles from posting the command to its answer, and firmware
 * instructions retired, averaged over many commands; plus simulated device
 * cycles per second (firmware core + translation unit) per engine, per wall
 * second and per CPU second.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hca_dev.h"
#include "hcadrv.h"
#include "bench_util.h"

typedef struct stat {
    uint64_t cycles, instret, n;
} stat_t;

static void add(stat_t *s, hcadrv_t *drv, hca_dev_t *dev, uint64_t instret0)
{
    s->cycles += hcadrv_last_cmd_cycles(drv);
    s->instret += hca_dev_fw_instret(dev) - instret0;
    s->n++;
}

enum { REG1, REG16, FASTREG, DESTROY, N_STATS };
static const char *const names[N_STATS] = {"CREATE_MKEY regular, 1 page", "CREATE_MKEY regular, 16 pages",
                                           "CREATE_MKEY fast_reg (16)", "DESTROY_MKEY"};

static int bench(dev_engine_kind_t engine, unsigned rounds, stat_t st[N_STATS], double *cps, double *cpu_cps)
{
    hostmem_t *mem = NULL;
    hca_dev_t *dev = NULL;
    hcadrv_t *drv = NULL;
    char err[256] = "";
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = engine;
    int rc = hostmem_create(&mem);
    if (!rc)
        rc = hca_dev_create(&dev, &cfg, mem, err, sizeof err);
    hca_host_t host = dev ? hca_dev_host(dev) : (hca_host_t){0};
    if (!rc)
        rc = hcadrv_open(&drv, &host);
    uint32_t pd = 0;
    uint64_t buf = 0;
    if (!rc)
        rc = hcadrv_alloc_pd(drv, &pd); /* also waits out the boot */
    if (!rc)
        rc = hostmem_alloc(mem, 16 * 4096, 4096, &buf);
    uint64_t c0 = dev ? hca_dev_cycle(dev) : 0;
    double t0 = bench_now_s(), u0 = bench_cpu_s();
    for (unsigned r = 0; !rc && r < rounds; r++) {
        hcadrv_mr_t m[3];
        const unsigned kind[3] = {REG1, REG16, FASTREG};
        for (int k = 0; !rc && k < 3; k++) {
            uint64_t i0 = hca_dev_fw_instret(dev);
            if (kind[k] == FASTREG)
                rc = hcadrv_alloc_mr(drv, pd, HCA_MKEY_KIND_FAST_REG, 16, &m[k]);
            else
                rc = hcadrv_reg_mr(drv, pd, buf, kind[k] == REG1 ? 4096 : 16 * 4096, buf, HCA_ACCESS_LOCAL_WRITE, 12,
                                   &m[k]);
            add(&st[kind[k]], drv, dev, i0);
        }
        for (int k = 0; !rc && k < 3; k++) {
            uint64_t i0 = hca_dev_fw_instret(dev);
            rc = hcadrv_dereg_mr(drv, &m[k]);
            add(&st[DESTROY], drv, dev, i0);
        }
    }
    double secs = bench_now_s() - t0;
    if (!rc) {
        *cps = (double)(hca_dev_cycle(dev) - c0) / secs;
        *cpu_cps = (double)(hca_dev_cycle(dev) - c0) / (bench_cpu_s() - u0);
    }
    else
        fprintf(stderr, "bench_dev: %s: %s %s\n", dev_engine_name(engine), strerror(-rc), err);
    hcadrv_close(drv);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
    return rc;
}

int main(void)
{
    const unsigned rounds = 300;
    stat_t rtl[N_STATS], model[N_STATS];
    double rtl_cps = 0, model_cps = 0, rtl_cpu = 0, model_cpu = 0;
    memset(rtl, 0, sizeof rtl);
    memset(model, 0, sizeof model);
    if (bench(DEV_ENGINE_RTL, rounds, rtl, &rtl_cps, &rtl_cpu) ||
        bench(DEV_ENGINE_MODEL, rounds, model, &model_cps, &model_cpu))
        return 1;
    printf("mailbox commands through the firmware, %u of each, mean per command (post to answer):\n", rounds);
    printf("  %-32s %14s %14s %14s\n", "", "cycles (rtl)", "cycles (model)", "fw instrs");
    for (int k = 0; k < N_STATS; k++)
        printf("  %-32s %14.1f %14.1f %14.1f\n", names[k], (double)rtl[k].cycles / (double)rtl[k].n,
               (double)model[k].cycles / (double)model[k].n, (double)rtl[k].instret / (double)rtl[k].n);
    printf("  device with firmware, cycles/s   rtl %.3g   model %.3g   (model/rtl %.1fx)\n", rtl_cps, model_cps,
           model_cps / rtl_cps);
    printf("  ... per CPU second               rtl %.3g   model %.3g   (model/rtl %.1fx)\n", rtl_cpu, model_cpu,
           model_cpu / rtl_cpu);
    return 0;
}
