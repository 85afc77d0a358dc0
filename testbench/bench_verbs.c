/* bench_verbs — the end-to-end device through the reference driver, one
 * run, on each engine (rtl, then model, the same traffic):
 *
 *   RDMA WRITE and READ bandwidth in bytes per device cycle, 4 KiB and 64 KiB
 *   messages (a window of WRs kept posted on one QP pair over loopback);
 *   SEND latency in cycles, post to receive completion and post to send
 *   completion, unloaded; simulated device cycles per second with firmware,
 *   per wall second and per CPU second, and the model's speed as a multiple
 *   of the RTL's; the RTL's again with FST waves (the same traffic, traced). The host polls its CQ
 *   between device steps and steps over the cycles the device says nothing
 *   can happen in (bench_wait), as the scenario runner does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hca_dev.h"
#include "hcadrv.h"
#include "bench_util.h"

#define WINDOW 8u

/* B/cycle of the RTL engine in this bench before the data path was pipelined
 * (commit 8a1bc30: one host-bus data channel, one chunk gathered or placed
 * at a time), printed as the "before" of the ratios below; not asserted. */
static const double before_w4 = 2.65, before_w64 = 6.71, before_r4 = 2.65, before_r64 = 5.12;

typedef struct bench {
    hostmem_t *mem;
    hca_dev_t *dev;
    hcadrv_t *drv;
    hcadrv_cq_t cq;
    hcadrv_qp_t a, b;
    hcadrv_mr_t src, dst;
    uint64_t src_buf, dst_buf;
    uint32_t pd;
} bench_t;

static int fail(const char *what, int rc)
{
    return bench_fail("bench_verbs", what, rc);
}

static int setup(bench_t *B, dev_engine_kind_t engine, uint64_t buf_len)
{
    int rc = bench_open_device_on("bench_verbs", engine, &B->mem, &B->dev, &B->drv);
    if (rc)
        return rc;
    if ((rc = hcadrv_alloc_pd(B->drv, &B->pd)) || (rc = hcadrv_create_cq(B->drv, 256, &B->cq)))
        return fail("pd/cq", rc);
    hcadrv_qp_attr_t at = {B->pd, &B->cq, &B->cq, 64, 64, 7, 100, 0};
    if ((rc = hcadrv_create_qp(B->drv, &at, &B->a)) || (rc = hcadrv_create_qp(B->drv, &at, &B->b)) ||
        (rc = hcadrv_connect(B->drv, &B->a, &B->b)))
        return fail("qp", rc);
    const uint32_t acc = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;
    if ((rc = hostmem_alloc(B->mem, buf_len, 4096, &B->src_buf)) ||
        (rc = hostmem_alloc(B->mem, buf_len, 4096, &B->dst_buf)) ||
        (rc = hcadrv_reg_mr(B->drv, B->pd, B->src_buf, buf_len, B->src_buf, acc, 12, &B->src)) ||
        (rc = hcadrv_reg_mr(B->drv, B->pd, B->dst_buf, buf_len, B->dst_buf, acc, 12, &B->dst)))
        return fail("buffers", rc);
    return 0;
}

static void teardown(bench_t *B)
{
    bench_close_device(B->mem, B->dev, B->drv);
}

/* Wait for n completions on the CQ; returns 0 or an error (a failed WC too). */
static int reap(bench_t *B, unsigned n, uint64_t *last_cycle)
{
    hcadrv_wc_t wc[16];
    for (uint64_t guard = 0; n && guard < 50000000; guard++) {
        int got = hcadrv_poll_cq(B->drv, &B->cq, wc, 16);
        if (got < 0)
            return got;
        for (int i = 0; i < got; i++)
            if (wc[i].status != HCA_WC_STATUS_SUCCESS)
                return fprintf(stderr, "bench_verbs: wr %" PRIu64 " completed %s\n", wc[i].wr_id,
                               hca_wc_status_name(wc[i].status)),
                       -EIO;
        n -= (unsigned)got;
        if (got)
            *last_cycle = hca_dev_cycle(B->dev);
        else
            bench_wait(B->dev);
    }
    return n ? -ETIMEDOUT : 0;
}

/* Bytes per cycle of back-to-back RDMA ops of msg bytes, a window of WINDOW posted. */
static int bandwidth(bench_t *B, unsigned opcode, uint32_t msg, unsigned count, double *bpc)
{
    uint64_t c0 = hca_dev_cycle(B->dev), last = c0;
    unsigned posted = 0, done = 0;
    while (done < count) {
        while (posted < count && posted - done < WINDOW) {
            hcadrv_send_wr_t wr;
            memset(&wr, 0, sizeof wr);
            wr.wr_id = posted;
            wr.opcode = opcode;
            wr.flags = HCA_SEND_FLAGS_SIGNALED;
            wr.num_sge = 1;
            wr.sge[0] = (hca_sge_t){B->src_buf, msg, B->src.lkey};
            wr.remote_addr = B->dst_buf;
            wr.rkey = B->dst.rkey;
            int rc = hcadrv_post_send(B->drv, &B->a, &wr);
            if (rc)
                return fail("post_send", rc);
            posted++;
        }
        int rc = reap(B, 1, &last);
        if (rc)
            return fail("completion", rc);
        done++;
    }
    *bpc = (double)msg * count / (double)(last - c0);
    return 0;
}

/* One SEND at a time: cycles from post to the receive CQE and to the send CQE. */
static int send_latency(bench_t *B, unsigned rounds, double *to_recv, double *to_send)
{
    uint64_t sum_r = 0, sum_s = 0;
    for (unsigned r = 0; r < rounds; r++) {
        hcadrv_recv_wr_t rw = {r, 1, {{B->dst_buf, 64, B->dst.lkey}}};
        int rc = hcadrv_post_recv(B->drv, &B->b, &rw);
        if (rc)
            return fail("post_recv", rc);
        hcadrv_send_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = r;
        wr.opcode = HCA_WR_OPCODE_SEND;
        wr.flags = HCA_SEND_FLAGS_SIGNALED;
        wr.num_sge = 1;
        wr.sge[0] = (hca_sge_t){B->src_buf, 64, B->src.lkey};
        uint64_t t0 = hca_dev_cycle(B->dev);
        if ((rc = hcadrv_post_send(B->drv, &B->a, &wr)))
            return fail("post_send", rc);
        hcadrv_wc_t wc;
        unsigned seen = 0;
        for (uint64_t guard = 0; seen < 2 && guard < 10000000; guard++) {
            int got = hcadrv_poll_cq(B->drv, &B->cq, &wc, 1);
            if (got < 0 || (got && wc.status != HCA_WC_STATUS_SUCCESS))
                return fail("send completion", got < 0 ? got : -EIO);
            if (got) {
                uint64_t dt = hca_dev_cycle(B->dev) - t0;
                *(wc.opcode == HCA_WC_OPCODE_RECV ? &sum_r : &sum_s) += dt;
                seen++;
            } else {
                bench_wait(B->dev);
            }
        }
        if (seen < 2)
            return fail("send latency", -ETIMEDOUT);
    }
    *to_recv = (double)sum_r / rounds;
    *to_send = (double)sum_s / rounds;
    return 0;
}

typedef struct figures {
    double w4, w64, r4, r64, lat_r, lat_s, cps, cpu_cps;
} figures_t;

/* The traffic below on one engine; waves to `trace` (NULL: none). */
static int measure(dev_engine_kind_t engine, const char *trace, figures_t *f)
{
    bench_t B;
    memset(&B, 0, sizeof B);
    if (setup(&B, engine, 64 * 1024) || (trace && hca_dev_trace_open(B.dev, trace, 0, UINT64_MAX))) {
        teardown(&B);
        return 1;
    }
    uint64_t c0 = hca_dev_cycle(B.dev);
    double t0 = bench_now_s(), u0 = bench_cpu_s();
    int rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_WRITE, 4096, 200, &f->w4);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_WRITE, 65536, 40, &f->w64);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_READ, 4096, 200, &f->r4);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_READ, 65536, 40, &f->r64);
    if (!rc)
        rc = send_latency(&B, 50, &f->lat_r, &f->lat_s);
    f->cps = (double)(hca_dev_cycle(B.dev) - c0) / (bench_now_s() - t0);
    f->cpu_cps = (double)(hca_dev_cycle(B.dev) - c0) / (bench_cpu_s() - u0);
    if (trace)
        hca_dev_trace_close(B.dev);
    teardown(&B);
    return rc ? 1 : 0;
}

/* argv[1]: where the RTL run with waves writes them (default: build/bench/),
 * or --rtl-cps [WAVES], or --model-cps. */
int main(int argc, char **argv)
{
    /* --rtl-cps: only the RTL engine's simulated cycles per CPU second over
     * this traffic, as one number (bench_tables.py compares table sizes);
     * with WAVES, of the run writing them (rtl/rtl.mk trains the Verilated
     * core's profile-guided build on both). */
    /* --model-cps: the same for the model engine alone (what a profiler of
     * the model runs, docs/model.md "Speed"). */
    int model = argc > 1 && strcmp(argv[1], "--model-cps") == 0;
    if (argc > 1 && (model || strcmp(argv[1], "--rtl-cps") == 0)) {
        figures_t rc;
        memset(&rc, 0, sizeof rc);
        if (measure(model ? DEV_ENGINE_MODEL : DEV_ENGINE_RTL, model ? NULL : argc > 2 ? argv[2] : NULL, &rc))
            return 1;
        printf("%.0f\n", rc.cpu_cps);
        return 0;
    }
    if (argc > 2 || (argc > 1 && argv[1][0] == '-')) { /* an option it does not know is not a file name */
        fprintf(stderr, "usage: bench_verbs [WAVES.fst] | --rtl-cps [WAVES.fst] | --model-cps\n");
        return 2;
    }
    const char *waves = argc > 1 ? argv[1] : "build/bench/verbs_rtl.fst";
    figures_t f[DEV_ENGINE_MODEL + 1], traced;
    memset(f, 0, sizeof f);
    memset(&traced, 0, sizeof traced);
    for (int e = DEV_ENGINE_RTL; e <= DEV_ENGINE_MODEL; e++)
        if (measure((dev_engine_kind_t)e, NULL, &f[e]))
            return 1;
    if (measure(DEV_ENGINE_RTL, waves, &traced))
        return fprintf(stderr, "bench_verbs: the RTL run with waves to %s failed\n", waves), 1;
    const figures_t *r = &f[DEV_ENGINE_RTL], *m = &f[DEV_ENGINE_MODEL];
    bus_timing_t t = bus_default_timing();
    printf("end-to-end device, one QP pair over loopback, %u WRs in flight:      rtl        model\n", WINDOW);
    printf("  RDMA WRITE  4 KiB (B/cycle)                                  %8.2f   %8.2f\n", r->w4, m->w4);
    printf("  RDMA WRITE 64 KiB (B/cycle)                                  %8.2f   %8.2f\n", r->w64, m->w64);
    printf("  RDMA READ   4 KiB (B/cycle)                                  %8.2f   %8.2f\n", r->r4, m->r4);
    printf("  RDMA READ  64 KiB (B/cycle)                                  %8.2f   %8.2f\n", r->r64, m->r64);
    printf("  SEND 64 B latency, post to receive CQE (cycles)              %8.0f   %8.0f\n", r->lat_r, m->lat_r);
    printf("  SEND 64 B latency, post to send CQE (cycles)                 %8.0f   %8.0f\n", r->lat_s, m->lat_s);
    printf("  device with firmware (simulated cycles/s)                    %8.3g   %8.3g\n", r->cps, m->cps);
    printf("  ... per CPU second (what the machine's load does not change) %8.3g   %8.3g\n", r->cpu_cps, m->cpu_cps);
    printf("  ... RTL with FST waves, per second / per CPU second          %8.3g   %8.3g\n", traced.cps, traced.cpu_cps);
    printf("  model speed: %.1fx the RTL's (same traffic, same run; %.1fx per CPU second)\n", m->cps / r->cps,
           m->cpu_cps / r->cpu_cps);
    printf("  (host bus limit %u B/cycle each way, read round trip %u cycles)\n", t.bytes_per_cycle, t.read_latency);
    printf("RDMA bandwidth before -> after the pipelined data path (rtl, B/cycle of the bus's %u):\n",
           t.bytes_per_cycle);
    printf("  WRITE  4 KiB %5.2f -> %5.2f (%.2fx)   64 KiB %5.2f -> %5.2f (%.2fx)\n", before_w4, r->w4,
           r->w4 / before_w4, before_w64, r->w64, r->w64 / before_w64);
    printf("  READ   4 KiB %5.2f -> %5.2f (%.2fx)   64 KiB %5.2f -> %5.2f (%.2fx)\n", before_r4, r->r4,
           r->r4 / before_r4, before_r64, r->r64, r->r64 / before_r64);
    return 0;
}
