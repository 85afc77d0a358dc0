/* bench_mm — memory-management work requests through the reference driver,
 * end-to-end device with firmware (rtl engine), one run:
 *
 *   FAST_REG_MR latency, post to CQE, one WR at a time, 1/16/256-page lists;
 *   FAST_REG_MR and LOCAL_INV steady-state throughput, device cycles per WR,
 *   with pipelined posting: QPS QPs x MRS_PER_QP MRs, a WR on each posted at
 *   once (every WR signaled), so the engine, the firmware and the DMA overlap
 *   as far as the device lets them;
 *   LOCAL_INV latency, post to CQE, one at a time;
 *   firmware instructions retired per FAST_REG_MR and per LOCAL_INV.
 *
 * Where the cycles go is printed from the same run: firmware busy cycles per
 * operation (executing, stalls on device registers and DMA included) against
 * the whole, and what the port sequencer did for it.
 *
 * "before" is the same bench at 8a1bc30 (the session of issue #13 item 4
 * started there: every register access by the core, the page list read by
 * fdma), at 420cd3a (the port sequencer, before the event service's fast
 * paths) and at 76c4918 (before the event read dropped rsvd and the 1-page
 * program its 6 MPT words copied from the event); they cannot be measured
 * in this run, the firmware and driver that did them being gone, so they are
 * quoted with their commits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_dev.h"
#include "hcadrv.h"
#include "bench_util.h"

#define QPS 4u      /* QPs posting in the throughput run */
#define MRS_PER_QP 8u /* fast-reg MRs per QP: registrations posted at once per QP */
#define MAX_PAGES 256u

/* bench_mm at 8a1bc30, 1-page lists (see the head comment) */
#define BEFORE_FR_STEADY 998.0
#define BEFORE_FR_LATENCY 1318.0
#define BEFORE_INV_STEADY 387.0
#define BEFORE_INV_LATENCY 707.0
/* bench_mm at 76c4918 (firmware/mm.c reading 12 event words, building the whole MPT entry per event) */
#define PREV_FR_STEADY 275.0
#define PREV_FR_LATENCY 645.0
#define PREV_INV_STEADY 180.0
#define PREV_INV_LATENCY 528.0
/* bench_mm at 420cd3a, before the event service's fast paths (firmware/mm.c) */
#define SEQ_FR_STEADY 588.0
#define SEQ_FR_LATENCY 930.0
#define SEQ_INV_STEADY 367.0
#define SEQ_INV_LATENCY 693.0

typedef struct bench {
    hostmem_t *mem;
    hca_dev_t *dev;
    hcadrv_t *drv;
    hcadrv_cq_t cq;
    hcadrv_qp_t qp[QPS];
    hcadrv_mr_t mr[QPS][MRS_PER_QP];
    hcadrv_page_list_t pl[QPS][MRS_PER_QP];
    uint64_t buf; /* MAX_PAGES pages the registrations map */
    uint32_t pd;
    uint8_t key;
} bench_t;

static int fail(const char *what, int rc)
{
    return bench_fail("bench_mm", what, rc);
}

static int setup(bench_t *B)
{
    int rc = bench_open_device("bench_mm", &B->mem, &B->dev, &B->drv);
    if (rc)
        return rc;
    hcadrv_device_attr_t attr;
    if ((rc = hcadrv_query_device(B->drv, &attr)))
        return fail("query_device", rc);
    if (!attr.mem_mgt_extensions || attr.max_fast_reg_page_list_len < MAX_PAGES)
        return fprintf(stderr, "bench_mm: the device does not offer %u-page fast registration\n", MAX_PAGES),
               -EOPNOTSUPP;
    if ((rc = hcadrv_alloc_pd(B->drv, &B->pd)) || (rc = hcadrv_create_cq(B->drv, 256, &B->cq)))
        return fail("pd/cq", rc);
    hcadrv_qp_attr_t at = {B->pd, &B->cq, &B->cq, 64, 4, 7, 100, 0};
    for (unsigned q = 0; q < QPS; q++)
        if ((rc = hcadrv_create_qp(B->drv, &at, &B->qp[q])) || (rc = hcadrv_connect(B->drv, &B->qp[q], &B->qp[q])))
            return fail("qp", rc);
    if ((rc = hostmem_alloc(B->mem, (uint64_t)MAX_PAGES << 12, 4096, &B->buf)))
        return fail("buffer", rc);
    for (unsigned q = 0; q < QPS; q++)
        for (unsigned m = 0; m < MRS_PER_QP; m++) {
            if ((rc = hcadrv_alloc_mr(B->drv, B->pd, HCA_MKEY_KIND_FAST_REG, MAX_PAGES, &B->mr[q][m])) ||
                (rc = hcadrv_alloc_fast_reg_page_list(B->drv, MAX_PAGES, &B->pl[q][m])))
                return fail("fast-reg MR", rc);
            for (unsigned i = 0; i < MAX_PAGES; i++)
                if ((rc = hcadrv_page_list_set(&B->pl[q][m], i, B->buf + ((uint64_t)i << 12))))
                    return fail("page list", rc);
        }
    return 0;
}

static void teardown(bench_t *B)
{
    bench_close_device(B->mem, B->dev, B->drv);
}

/* Post a FAST_REG_MR of `pages` pages for MR (q, m), with the next key byte. */
static int post_fast_reg(bench_t *B, unsigned q, unsigned m, unsigned pages, uint64_t wr_id)
{
    hcadrv_mr_t *mr = &B->mr[q][m];
    hcadrv_update_fast_reg_key(mr, ++B->key);
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = wr_id;
    wr.opcode = HCA_WR_OPCODE_FAST_REG_MR;
    wr.flags = HCA_SEND_FLAGS_SIGNALED;
    wr.fr_iova = B->buf;
    wr.fr_length = (uint64_t)pages << 12;
    wr.fr_key = mr->lkey;
    wr.fr_page_shift = 12;
    wr.fr_access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;
    wr.fr_list_len = pages;
    wr.page_list = &B->pl[q][m];
    return hcadrv_post_send(B->drv, &B->qp[q], &wr);
}

static int post_local_inv(bench_t *B, unsigned q, unsigned m, uint64_t wr_id)
{
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = wr_id;
    wr.opcode = HCA_WR_OPCODE_LOCAL_INV;
    wr.flags = HCA_SEND_FLAGS_SIGNALED;
    wr.inv_key = B->mr[q][m].lkey;
    return hcadrv_post_send(B->drv, &B->qp[q], &wr);
}

/* Wait for one completion (SUCCESS required); its cycle in *at. */
static int reap_one(bench_t *B, hcadrv_wc_t *wc, uint64_t *at)
{
    for (uint64_t guard = 0; guard < 50000000; guard++) {
        int got = hcadrv_poll_cq(B->drv, &B->cq, wc, 1);
        if (got < 0)
            return got;
        if (got) {
            if (wc->status != HCA_WC_STATUS_SUCCESS)
                return fprintf(stderr, "bench_mm: wr %" PRIu64 " completed %s\n", wc->wr_id,
                               hca_wc_status_name(wc->status)),
                       -EIO;
            *at = hca_dev_cycle(B->dev);
            return 0;
        }
        hca_dev_step(B->dev, 1);
    }
    return -ETIMEDOUT;
}

typedef struct lat {
    double cycles, instrs, fw_busy;
    double port_accesses, port_stalls, fdma_transfers, fdma_cycles, seq_programs, seq_accesses;
} lat_t;

/* One WR at a time on QP 0, MR 0: FAST_REG_MR of `pages`, then LOCAL_INV;
 * averages over rounds. */
static int latency(bench_t *B, unsigned pages, unsigned rounds, lat_t *fr, lat_t *inv)
{
    memset(fr, 0, sizeof *fr);
    memset(inv, 0, sizeof *inv);
    for (unsigned r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
            lat_t *l = k ? inv : fr;
            hca_dev_fw_stats_t f0, f1;
            hca_dev_get_fw_stats(B->dev, &f0);
            uint64_t t0 = hca_dev_cycle(B->dev), t1;
            int rc = k ? post_local_inv(B, 0, 0, r) : post_fast_reg(B, 0, 0, pages, r);
            hcadrv_wc_t wc;
            if (rc || (rc = reap_one(B, &wc, &t1)))
                return fail(k ? "LOCAL_INV" : "FAST_REG_MR", rc);
            hca_dev_get_fw_stats(B->dev, &f1);
            l->cycles += (double)(t1 - t0) / rounds;
            l->instrs += (double)(f1.instret - f0.instret) / rounds;
            l->fw_busy += (double)(f1.busy_cycles - f0.busy_cycles) / rounds;
            l->port_accesses += (double)(f1.port_accesses - f0.port_accesses) / rounds;
            l->port_stalls += (double)(f1.port_stall_cycles - f0.port_stall_cycles) / rounds;
            l->fdma_transfers += (double)(f1.fdma_transfers - f0.fdma_transfers) / rounds;
            l->fdma_cycles += (double)(f1.fdma_cycles - f0.fdma_cycles) / rounds;
            l->seq_programs += (double)(f1.seq_programs - f0.seq_programs) / rounds;
            l->seq_accesses += (double)(f1.seq_accesses - f0.seq_accesses) / rounds;
        }
    }
    return 0;
}

/* Steady state with pipelined posting: a FAST_REG_MR on every MR of every QP
 * posted at once (QPS x MRS_PER_QP in flight), all reaped; then a LOCAL_INV
 * on each likewise. Device cycles per FAST_REG_MR and per LOCAL_INV (first
 * post to last CQE over the count), firmware busy cycles per FAST_REG_MR;
 * averaged over rounds. */
typedef struct tput {
    double fr_cycles, inv_cycles, fr_busy, inv_busy;
} tput_t;

static int burst(bench_t *B, int inv, unsigned pages, double *cycles, double *busy)
{
    const unsigned n = QPS * MRS_PER_QP;
    uint64_t t0 = hca_dev_cycle(B->dev), b0 = hca_dev_fw_busy_cycles(B->dev), last = t0;
    for (unsigned q = 0; q < QPS; q++)
        for (unsigned m = 0; m < MRS_PER_QP; m++) {
            int rc = inv ? post_local_inv(B, q, m, q * MRS_PER_QP + m) : post_fast_reg(B, q, m, pages, q * MRS_PER_QP + m);
            if (rc)
                return fail("post", rc);
        }
    for (unsigned k = 0; k < n; k++) {
        hcadrv_wc_t wc;
        int rc = reap_one(B, &wc, &last);
        if (rc)
            return fail(inv ? "LOCAL_INV burst" : "FAST_REG_MR burst", rc);
    }
    *cycles += (double)(last - t0) / n;
    *busy += (double)(hca_dev_fw_busy_cycles(B->dev) - b0) / n;
    return 0;
}

static int throughput(bench_t *B, unsigned pages, unsigned rounds, tput_t *t)
{
    memset(t, 0, sizeof *t);
    for (unsigned r = 0; r < rounds; r++) {
        int rc = burst(B, 0, pages, &t->fr_cycles, &t->fr_busy);
        if (rc || (rc = burst(B, 1, pages, &t->inv_cycles, &t->inv_busy)))
            return rc;
    }
    t->fr_cycles /= rounds;
    t->inv_cycles /= rounds;
    t->fr_busy /= rounds;
    t->inv_busy /= rounds;
    return 0;
}

/* BENCH_MM_PCPROF=PREFIX: after the measured run, one more 1-page burst of
 * each kind with the firmware's per-PC profile on, written as PREFIX.fr and
 * PREFIX.inv ("address cycles" lines, device cycles the core spent at each
 * instruction, stalls included; annotate with addr2line). For where the
 * steady state's cycles go (docs/engine.md); the measured figures above are
 * taken without it. */
static int pc_profile(bench_t *B, const char *prefix)
{
    int rc = hca_dev_fw_profile_start(B->dev);
    if (rc)
        return fail("fw profile", rc);
    size_t words = 0;
    const uint64_t *h = hca_dev_fw_profile(B->dev, &words);
    static uint64_t before[HCA_FW_RAM_SIZE / 4];
    for (int inv = 0; inv < 2; inv++) {
        memcpy(before, h, words * sizeof *h);
        double cycles = 0, busy = 0;
        if ((rc = burst(B, inv, 1, &cycles, &busy)))
            return rc;
        char path[512];
        snprintf(path, sizeof path, "%s.%s", prefix, inv ? "inv" : "fr");
        FILE *f = fopen(path, "w");
        if (!f)
            return fail(path, -errno);
        fprintf(f, "# %u WRs, %.1f cycles/WR, firmware busy %.1f/WR\n", QPS * MRS_PER_QP, cycles, busy);
        for (size_t w = 0; w < words; w++)
            if (h[w] != before[w])
                fprintf(f, "%08" PRIx32 " %" PRIu64 "\n", (uint32_t)(HCA_FW_RAM_BASE + 4 * w), h[w] - before[w]);
        fclose(f);
    }
    return 0;
}

int main(void)
{
    static bench_t B;
    if (setup(&B)) {
        teardown(&B);
        return 1;
    }
    static const unsigned sizes[] = {1, 16, 256};
    lat_t fr[3], inv[3];
    tput_t tput[3];
    uint64_t c0 = hca_dev_cycle(B.dev);
    double t0 = bench_now_s();
    int rc = 0;
    for (unsigned i = 0; !rc && i < 3; i++) {
        rc = latency(&B, sizes[i], 20, &fr[i], &inv[i]);
        if (!rc)
            rc = throughput(&B, sizes[i], sizes[i] == 256 ? 2 : 4, &tput[i]);
    }
    double cps = (double)(hca_dev_cycle(B.dev) - c0) / (bench_now_s() - t0);
    const char *prof = getenv("BENCH_MM_PCPROF");
    if (!rc && prof && *prof)
        rc = pc_profile(&B, prof);
    char why[256] = "";
    if (!rc && hca_dev_fw_health(B.dev, why, sizeof why)) {
        fprintf(stderr, "bench_mm: firmware: %s\n", why);
        rc = -EIO;
    }
    uint64_t breaches = protcheck_count(hca_dev_protcheck(B.dev));
    teardown(&B);
    if (rc)
        return 1;
    if (breaches)
        return fprintf(stderr, "bench_mm: the protection checker reported %" PRIu64 " breaches\n", breaches), 1;
    printf("memory-management WRs, end-to-end device (rtl) with firmware:\n");
    printf("  %-6s | %-30s | %-28s | %s\n", "", "latency, one at a time", "steady, pipelined",
           "LOCAL_INV");
    printf("  %-6s | %9s %9s %10s | %9s %18s | %9s %9s\n", "pages", "FR cycles", "fw instr", "fw busy",
           "FR cycles", "fw busy (of them)", "latency", "steady");
    for (unsigned i = 0; i < 3; i++)
        printf("  %-6u | %9.0f %9.0f %10.0f | %9.0f %18.0f | %9.0f %9.0f\n", sizes[i], fr[i].cycles,
               fr[i].instrs, fr[i].fw_busy, tput[i].fr_cycles, tput[i].fr_busy, inv[i].cycles, tput[i].inv_cycles);
    printf("  (cycles = device cycles post to CQE; steady = per WR with %u QPs x %u MRs posted at once;\n"
           "   fw busy = firmware core cycles not asleep, stalls on device registers and DMA included)\n",
           QPS, MRS_PER_QP);
    printf("  LOCAL_INV firmware instructions: %.0f\n", inv[0].instrs);
    printf("  where a 1-page FAST_REG_MR's %.0f cycles go (one at a time; the firmware's share measured,\n"
           "  the rest is the engine: doorbell, WQE fetch, event queue, CQE write):\n", fr[0].cycles);
    printf("    firmware busy %.0f: %.0f instructions, %.0f cycles stalled on %.0f engine register accesses,\n"
           "      %.0f fdma transfer(s) of %.0f cycles (the page list; the core polls meanwhile),\n"
           "      %.0f sequencer programs making %.0f port accesses (%.0f cycles of port time, 2 each)\n",
           fr[0].fw_busy, fr[0].instrs, fr[0].port_stalls, fr[0].port_accesses, fr[0].fdma_transfers,
           fr[0].fdma_cycles, fr[0].seq_programs, fr[0].seq_accesses, 2 * fr[0].seq_accesses);
    printf("    engine and wake-up %.0f\n", fr[0].cycles - fr[0].fw_busy);
    printf("  LOCAL_INV %.0f cycles: firmware busy %.0f (%.0f instructions, %.0f stalled on %.0f accesses,\n"
           "    %.0f sequencer programs making %.0f port accesses, the ctx DRAIN included), engine and wake-up %.0f\n",
           inv[0].cycles, inv[0].fw_busy, inv[0].instrs, inv[0].port_stalls, inv[0].port_accesses,
           inv[0].seq_programs, inv[0].seq_accesses, inv[0].cycles - inv[0].fw_busy);
    printf("  steady state, 1 page, per WR: FAST_REG_MR %.0f cycles, firmware busy %.0f; LOCAL_INV %.0f, firmware busy %.0f\n"
           "    (the send engine reads each QP's next WQE ahead, so the host read round trip is off the per-WR\n"
           "     path and the firmware sets the pace: firmware busy, its polls of the sequencer while a program\n"
           "     runs included, is nearly the whole of it)\n",
           tput[0].fr_cycles, tput[0].fr_busy, tput[0].inv_cycles, tput[0].inv_busy);
    printf("  76c4918 -> now, 1 page:\n"
           "    FAST_REG_MR steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n"
           "    LOCAL_INV   steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n",
           PREV_FR_STEADY, tput[0].fr_cycles, PREV_FR_STEADY / tput[0].fr_cycles, PREV_FR_LATENCY, fr[0].cycles,
           PREV_FR_LATENCY / fr[0].cycles, PREV_INV_STEADY, tput[0].inv_cycles, PREV_INV_STEADY / tput[0].inv_cycles,
           PREV_INV_LATENCY, inv[0].cycles, PREV_INV_LATENCY / inv[0].cycles);
    printf("  before the event service's fast paths (420cd3a) -> now, 1 page:\n"
           "    FAST_REG_MR steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n"
           "    LOCAL_INV   steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n",
           SEQ_FR_STEADY, tput[0].fr_cycles, SEQ_FR_STEADY / tput[0].fr_cycles, SEQ_FR_LATENCY, fr[0].cycles,
           SEQ_FR_LATENCY / fr[0].cycles, SEQ_INV_STEADY, tput[0].inv_cycles, SEQ_INV_STEADY / tput[0].inv_cycles,
           SEQ_INV_LATENCY, inv[0].cycles, SEQ_INV_LATENCY / inv[0].cycles);
    printf("  before -> now (before: 8a1bc30), 1 page:\n"
           "    FAST_REG_MR steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n"
           "    LOCAL_INV   steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n",
           BEFORE_FR_STEADY, tput[0].fr_cycles, BEFORE_FR_STEADY / tput[0].fr_cycles, BEFORE_FR_LATENCY,
           fr[0].cycles, BEFORE_FR_LATENCY / fr[0].cycles, BEFORE_INV_STEADY, tput[0].inv_cycles,
           BEFORE_INV_STEADY / tput[0].inv_cycles, BEFORE_INV_LATENCY, inv[0].cycles,
           BEFORE_INV_LATENCY / inv[0].cycles);
    printf("  device with firmware: %.3g cycles/s\n", cps);
    return 0;
}
