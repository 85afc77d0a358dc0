/* bench_peer — peer memory, end-to-end device with firmware, one run per engine:
 *
 *   the invalidate callback's latency (device cycles from the call to its
 *   return: INVALIDATE_MKEY's fence, then unmap and put), idle and with N
 *   8 KiB RDMA READs out of the GPU's memory in flight on N QPs (N <= 8:
 *   each READ the revoke fails costs a fresh QP pair, and the device has 63);
 *   DMA bandwidth into and out of peer memory beside host memory's: one
 *   256 KiB RDMA WRITE / READ (MTU 4096), bytes per device cycle post to CQE.
 *
 * The GPU: 64 KiB pages, a 400-cycle read latency (PEERMEM_DEFAULT_READ_LATENCY),
 * posted writes and bandwidth as host memory's (bus_default_timing()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_dev.h"
#include "hcadrv.h"
#include "hcadrv_peer.h"
#include "peermem.h"
#include "bench_util.h"

#define WINDOW 0x100000000000ull
#define WINDOW_SIZE (64ull << 20)
#define GPU_PAGE 65536u
#define MAXQ 8u
#define BIG (256u * 1024u)

typedef struct bench {
    hostmem_t *mem;
    hca_dev_t *dev;
    hcadrv_t *drv;
    peermem_t *gpu;
    hcadrv_peer_window_t *win;
    uint32_t pd;
    hcadrv_cq_t cq;
    hcadrv_qp_t a[MAXQ], b[MAXQ];
    uint64_t hsrc, hdst, gbuf;
    hcadrv_mr_t msrc, mdst;
} bench_t;

static int fail(const char *what, int rc)
{
    return bench_fail("bench_peer", what, rc);
}

static int setup(bench_t *B, dev_engine_kind_t engine)
{
    int rc = bench_open_device_on("bench_peer", engine, &B->mem, &B->dev, &B->drv);
    if (rc)
        return rc;
    bus_timing_t t = bus_default_timing();
    t.read_latency = PEERMEM_DEFAULT_READ_LATENCY;
    if ((rc = peermem_create(&B->gpu, WINDOW, WINDOW_SIZE, &t)) ||
        (rc = hca_dev_map_window(B->dev, WINDOW, WINDOW_SIZE, peermem_bus(B->gpu))) ||
        (rc = hcadrv_peer_window_create(&B->win, B->drv, "gpu0", WINDOW, WINDOW_SIZE, GPU_PAGE, 1)))
        return fail("peer memory", rc);
    if ((rc = hcadrv_alloc_pd(B->drv, &B->pd)) || (rc = hcadrv_create_cq(B->drv, 256, &B->cq)))
        return fail("pd/cq", rc);
    hcadrv_qp_attr_t at = {B->pd, &B->cq, &B->cq, 16, 4, 7, 100, 4096};
    for (unsigned q = 0; q < MAXQ; q++)
        if ((rc = hcadrv_create_qp(B->drv, &at, &B->a[q])) || (rc = hcadrv_create_qp(B->drv, &at, &B->b[q])) ||
            (rc = hcadrv_connect(B->drv, &B->a[q], &B->b[q])))
            return fail("qp", rc);
    const uint32_t rw = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;
    if ((rc = hostmem_alloc(B->mem, BIG, 4096, &B->hsrc)) || (rc = hostmem_alloc(B->mem, BIG, 4096, &B->hdst)) ||
        (rc = peermem_alloc(B->gpu, BIG, GPU_PAGE, &B->gbuf)))
        return fail("buffers", rc);
    if ((rc = hcadrv_reg_mr(B->drv, B->pd, B->hsrc, BIG, B->hsrc, rw, 12, &B->msrc)) ||
        (rc = hcadrv_reg_mr(B->drv, B->pd, B->hdst, BIG, B->hdst, rw, 12, &B->mdst)))
        return fail("host MRs", rc);
    return 0;
}

static void teardown(bench_t *B)
{
    hcadrv_close(B->drv);
    hcadrv_peer_window_free(B->win);
    hca_dev_destroy(B->dev);
    peermem_destroy(B->gpu);
    hostmem_destroy(B->mem);
}

static int post(bench_t *B, hcadrv_qp_t *qp, unsigned opcode, hca_sge_t sge, uint64_t raddr, uint32_t rkey)
{
    hcadrv_send_wr_t w;
    memset(&w, 0, sizeof w);
    w.wr_id = 1;
    w.opcode = opcode;
    w.flags = HCA_SEND_FLAGS_SIGNALED;
    w.num_sge = 1;
    w.sge[0] = sge;
    w.remote_addr = raddr;
    w.rkey = rkey;
    return hcadrv_post_send(B->drv, qp, &w);
}

/* n completions, stepping the device; 0 or -ETIMEDOUT. */
static int reap(bench_t *B, unsigned n)
{
    hcadrv_wc_t wc[16];
    const uint64_t t0 = hca_dev_cycle(B->dev);
    while (n) {
        int r = hcadrv_poll_cq(B->drv, &B->cq, wc, n < 16 ? (int)n : 16);
        if (r < 0)
            return r;
        n -= (unsigned)r;
        if (n && hca_dev_cycle(B->dev) - t0 > 50000000)
            return -ETIMEDOUT;
        if (n)
            bench_wait(B->dev);
    }
    return 0;
}

/* Cycles the invalidate callback takes with n 8 KiB READs out of the GPU in
 * flight (n = 0: idle); the QPs that failed are replaced by fresh ones. */
static int callback_cycles(bench_t *B, unsigned n, double *cycles)
{
    const unsigned rounds = n < MAXQ ? 3 : 1; /* a failed READ costs a QP pair: the device has 63 QPs */
    double sum = 0;
    for (unsigned r = 0; r < rounds; r++) {
        hcadrv_mr_t m;
        int rc = hcadrv_reg_mr(B->drv, B->pd, B->gbuf, BIG, B->gbuf, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ,
                               12, &m);
        if (rc)
            return fail("reg_mr over the GPU", rc);
        for (unsigned q = 0; q < n; q++)
            if ((rc = post(B, &B->a[q], HCA_WR_OPCODE_RDMA_READ, (hca_sge_t){B->hdst + q * 8192, 8192, B->mdst.lkey},
                           B->gbuf + q * 8192, m.rkey)))
                return fail("post", rc);
        if (n)
            hca_dev_step(B->dev, 600); /* every READ has its first chunks moving */
        const uint64_t t0 = hca_dev_cycle(B->dev);
        if ((rc = hcadrv_peer_window_revoke(B->win, B->gbuf, BIG, NULL)))
            return fail("revoke", rc);
        sum += (double)(hca_dev_cycle(B->dev) - t0);
        if ((rc = reap(B, n)) || (rc = hcadrv_dereg_mr(B->drv, &m)))
            return fail("after the revoke", rc);
        for (unsigned q = 0; q < n; q++) { /* a READ the revoke failed broke its pair: a fresh one */
            unsigned st = 0;
            if ((rc = hcadrv_query_qp(B->drv, &B->a[q], &st)))
                return fail("query_qp", rc);
            if (st == HCA_QP_STATE_RTS)
                continue;
            hcadrv_qp_attr_t at = {B->pd, &B->cq, &B->cq, 16, 4, 7, 100, 4096};
            if ((rc = hcadrv_create_qp(B->drv, &at, &B->a[q])) || (rc = hcadrv_create_qp(B->drv, &at, &B->b[q])) ||
                (rc = hcadrv_connect(B->drv, &B->a[q], &B->b[q])))
                return fail("fresh qp (the device has 63)", rc);
        }
    }
    *cycles = sum / rounds;
    return 0;
}

/* Bytes per cycle of one 256 KiB RDMA op, post to CQE. */
static int bandwidth(bench_t *B, unsigned opcode, int peer, double *bpc)
{
    hcadrv_mr_t m = B->mdst;
    int rc;
    if (peer && (rc = hcadrv_reg_mr(B->drv, B->pd, B->gbuf, BIG, B->gbuf,
                                    HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE, 12, &m)))
        return fail("reg_mr over the GPU", rc);
    const uint64_t t0 = hca_dev_cycle(B->dev);
    const hca_sge_t local = {B->hsrc, BIG, B->msrc.lkey}; /* the WRITE's source, the READ's sink */
    if ((rc = post(B, &B->a[0], opcode, local, m.iova, m.rkey)) || (rc = reap(B, 1)))
        return fail("bandwidth op", rc);
    *bpc = (double)BIG / (double)(hca_dev_cycle(B->dev) - t0);
    if (peer && (rc = hcadrv_dereg_mr(B->drv, &m)))
        return fail("dereg", rc);
    return 0;
}

static int run(dev_engine_kind_t engine)
{
    static bench_t B;
    memset(&B, 0, sizeof B);
    int rc = setup(&B, engine);
    static const unsigned inflight[] = {0, 1, 4, MAXQ};
    double cb[4] = {0}, w_host = 0, w_peer = 0, r_host = 0, r_peer = 0;
    for (unsigned i = 0; !rc && i < 4; i++)
        rc = callback_cycles(&B, inflight[i], &cb[i]);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_WRITE, 0, &w_host);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_WRITE, 1, &w_peer);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_READ, 0, &r_host);
    if (!rc)
        rc = bandwidth(&B, HCA_WR_OPCODE_RDMA_READ, 1, &r_peer);
    const uint64_t breaches = B.dev ? protcheck_count(hca_dev_protcheck(B.dev)) : 0;
    teardown(&B);
    if (rc)
        return 1;
    if (breaches)
        return fprintf(stderr, "bench_peer: the protection checker reported %" PRIu64 " breaches\n", breaches), 1;
    printf("peer memory (GPU: 64 KiB pages, %u-cycle reads), end-to-end device (%s) with firmware:\n",
           PEERMEM_DEFAULT_READ_LATENCY, dev_engine_name(engine));
    printf("  invalidate callback, call to return (cycles; mean of 3, of 1 with %u):", MAXQ);
    for (unsigned i = 0; i < 4; i++)
        printf("  %u in flight %.0f", inflight[i], cb[i]);
    printf("\n  256 KiB RDMA, bytes/cycle post to CQE:  WRITE into host %.2f, into GPU %.2f (%.2fx);"
           "  READ out of host %.2f, out of GPU %.2f (%.2fx)\n",
           w_host, w_peer, w_peer / w_host, r_host, r_peer, r_peer / r_host);
    return 0;
}

int main(void)
{
    return run(DEV_ENGINE_RTL) || run(DEV_ENGINE_MODEL);
}
