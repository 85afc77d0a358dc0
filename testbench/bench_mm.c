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
 * the whole, and what the port sequencer did for it. `bench_mm --floor
 * FIRMWARE STATELOG [QPS]` (make bench-mm-floor) breaks the steady bursts
 * down by engine state instead (see "--floor" below).
 *
 * "before" is the same bench at 8a1bc30 (the session of issue #13 item 4
 * started there: every register access by the core, the page list read by
 * fdma), at 420cd3a (the port sequencer, before the event service's fast
 * paths) and at c713a85 (before the sequencer's READ_EVT, GO and IDLE, the
 * fast paths' per-slot templates, the pipelined CQ writer and the send
 * engine's 16-entry WQE read-ahead with its miss read and yield; 76c4918
 * before that and each change alone are in docs/device.md); they cannot be measured
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
#define QPS_MAX 16u /* --floor's QP count at most */
#define QPS_WIDE 8u /* the second 1-page steady run's QPs (LOCAL_INV with 4 is bound by its serial chain: docs/device.md) */
#define MRS_PER_QP 8u /* fast-reg MRs per QP: registrations posted at once per QP */
#define MAX_PAGES 256u

/* bench_mm at 8a1bc30, 1-page lists (see the head comment) */
#define BEFORE_FR_STEADY 998.0
#define BEFORE_FR_LATENCY 1318.0
#define BEFORE_INV_STEADY 387.0
#define BEFORE_INV_LATENCY 707.0
/* bench_mm at c713a85 (every event read in 11 words, a STATUS read per batch, PROG + RUN per program,
 * the sequencer polled) */
#define PREV_FR_STEADY 263.0
#define PREV_FR_LATENCY 627.0
#define PREV_INV_STEADY 182.0
#define PREV_INV_LATENCY 521.0
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
    unsigned nqp; /* QPs posting: QPS, or --floor's */
    hcadrv_qp_t qp[QPS_MAX];
    hcadrv_mr_t mr[QPS_MAX][MRS_PER_QP];
    hcadrv_page_list_t pl[QPS_MAX][MRS_PER_QP];
    uint64_t buf; /* MAX_PAGES pages the registrations map */
    uint32_t pd;
    uint8_t key;
} bench_t;

static int fail(const char *what, int rc)
{
    return bench_fail("bench_mm", what, rc);
}

static int setup(bench_t *B, const hca_dev_config_t *cfg)
{
    int rc = bench_open_device_cfg("bench_mm", cfg, &B->mem, &B->dev, &B->drv);
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
    for (unsigned q = 0; q < B->nqp; q++)
        if ((rc = hcadrv_create_qp(B->drv, &at, &B->qp[q])) || (rc = hcadrv_connect(B->drv, &B->qp[q], &B->qp[q])))
            return fail("qp", rc);
    if ((rc = hostmem_alloc(B->mem, (uint64_t)MAX_PAGES << 12, 4096, &B->buf)))
        return fail("buffer", rc);
    for (unsigned q = 0; q < B->nqp; q++)
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

/* B (cleared first) with nqp QPs on a device of the engine, with firmware (NULL: the built image). */
static int bench_setup(bench_t *B, unsigned nqp, dev_engine_kind_t engine, const char *firmware)
{
    memset(B, 0, sizeof *B);
    B->nqp = nqp;
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = engine;
    cfg.firmware = firmware;
    return setup(B, &cfg);
}

/* Close B's device; rc, or -EIO when its firmware faulted or the protection
 * checker saw a breach (said on stderr). */
static int bench_finish(bench_t *B, int rc)
{
    char why[256] = "";
    if (!rc && hca_dev_fw_health(B->dev, why, sizeof why)) {
        fprintf(stderr, "bench_mm: firmware (%u QPs): %s\n", B->nqp, why);
        rc = -EIO;
    }
    const uint64_t breaches = B->dev ? protcheck_count(hca_dev_protcheck(B->dev)) : 0;
    if (!rc && breaches) {
        fprintf(stderr, "bench_mm: the protection checker reported %" PRIu64 " breaches (%u QPs)\n", breaches, B->nqp);
        rc = -EIO;
    }
    teardown(B);
    return rc;
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
    double fr_mid, inv_mid; /* per WR from a burst's QPS-th completion to its last: every QP's pipeline full */
} tput_t;

static int burst_at(bench_t *B, int inv, unsigned pages, double *cycles, double *busy, double *mid, uint64_t *from,
                    uint64_t *to)
{
    const unsigned n = B->nqp * MRS_PER_QP;
    uint64_t t0 = hca_dev_cycle(B->dev), b0 = hca_dev_fw_busy_cycles(B->dev), last = t0, full = t0;
    for (unsigned q = 0; q < B->nqp; q++)
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
        if (k + 1 == B->nqp)
            full = last;
    }
    if (mid && n > B->nqp)
        *mid += (double)(last - full) / (n - B->nqp);
    *cycles += (double)(last - t0) / n;
    *busy += (double)(hca_dev_fw_busy_cycles(B->dev) - b0) / n;
    if (from)
        *from = t0, *to = last;
    return 0;
}

static int burst(bench_t *B, int inv, unsigned pages, double *cycles, double *busy, double *mid)
{
    return burst_at(B, inv, pages, cycles, busy, mid, NULL, NULL);
}

static int throughput(bench_t *B, unsigned pages, unsigned rounds, tput_t *t)
{
    memset(t, 0, sizeof *t);
    for (unsigned r = 0; r < rounds; r++) {
        int rc = burst(B, 0, pages, &t->fr_cycles, &t->fr_busy, &t->fr_mid);
        if (rc || (rc = burst(B, 1, pages, &t->inv_cycles, &t->inv_busy, &t->inv_mid)))
            return rc;
    }
    t->fr_cycles /= rounds;
    t->inv_cycles /= rounds;
    t->fr_mid /= rounds;
    t->inv_mid /= rounds;
    t->fr_busy /= rounds;
    t->inv_busy /= rounds;
    return 0;
}

/* BENCH_MM_PCPROF=PREFIX: after the measured run, one more 1-page burst of
 * each kind with the firmware's per-PC profile on, written as PREFIX.fr and
 * PREFIX.inv ("address cycles" lines, device cycles the core spent at each
 * instruction, stalls included; annotate with addr2line). For where the
 * steady state's cycles go (docs/engine.md); the measured figures above are
 * taken without it. With --floor, after the model's bursts, with its QP count. */
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
        if ((rc = burst(B, inv, 1, &cycles, &busy, NULL)))
            return rc;
        char path[512];
        snprintf(path, sizeof path, "%s.%s", prefix, inv ? "inv" : "fr");
        FILE *f = fopen(path, "w");
        if (!f)
            return fail(path, -errno);
        fprintf(f, "# %u WRs, %.1f cycles/WR, firmware busy %.1f/WR\n", B->nqp * MRS_PER_QP, cycles, busy);
        for (size_t w = 0; w < words; w++)
            if (h[w] != before[w])
                fprintf(f, "%08" PRIx32 " %" PRIu64 "\n", (uint32_t)(HCA_FW_RAM_BASE + 4 * w), h[w] - before[w]);
        fclose(f);
    }
    return 0;
}

/* ---------------------------------------------------------------- --floor
 *
 * bench_mm --floor FIRMWARE STATELOG: where the engine's cycles per
 * memory-management WR go when the firmware costs as little as it can
 * (FIRMWARE: build/firmware/mutants/hcafw_done_at_once.elf, every event
 * answered SUCCESS as read). The steady 1-page FAST_REG_MR and LOCAL_INV
 * bursts run on the model with its state log (HCASIM_MODEL_STATELOG=
 * STATELOG, model/hca_core.c) and on the RTL, which must take the same
 * cycles (the model is its cycle-exact twin); the log, cut to the measured
 * bursts, gives per WR the cycles each block spends in each state and, per
 * WR followed through its QP, the serial chain from the scheduler's grant to
 * the completion. */

#define FLOOR_WARM 1u   /* rounds before the measured ones: queues and caches in their steady state */
#define FLOOR_ROUNDS 4u /* measured rounds (a FAST_REG_MR burst, then a LOCAL_INV burst, each) */
#define FLOOR_WINS (2u * FLOOR_ROUNDS)
#define FLOOR_NAMES 16u

typedef struct floor_win {
    uint64_t t0, t1; /* first post, last CQE reaped */
    int inv;
} floor_win_t;

/* cycles per state name, per kind (0 FAST_REG_MR, 1 LOCAL_INV) */
typedef struct floor_occ {
    char name[FLOOR_NAMES][16];
    double cyc[FLOOR_NAMES][2];
    unsigned n;
    char cur[16];
    uint64_t since;
} floor_occ_t;

/* the serial chain of one WR through its QP, summed per kind */
enum { CH_SCHED, CH_SEND, CH_PUSH, CH_QUEUE, CH_FW, CH_FIN, CH_N };
static const char *const ch_name[CH_N] = {
    "completion -> grant (requeue, scheduler)",        "grant -> S_EVT (S_CTX, S_PWAIT/S_FETCH, S_DECODE)",
    "S_EVT -> event pushed",                           "pushed -> popped (wake-up, STATUS, batch read)",
    "popped -> DONE (rest of the batch, DONE write)", "DONE -> completion taken (R_CLAIM, R_FINISH, cpl)",
};

typedef struct floor_acc {
    const floor_win_t *win;
    unsigned nwin, nqp;
    floor_occ_t occ[3]; /* S, R, C */
    double lvl[3][2];   /* Q, E, I: level x cycles */
    double ev[8][2];    /* counts: B, P, D, K, F evt STATUS, F evt DATA, F evt POP, F evt DONE */
    double fother[2];   /* other port accesses */
    double chain[CH_N][2], chain_n[2];
    /* the firmware's port accesses back to back (classes: 0 STATUS, 1 DATA, 2 POP, 3 DONE, 4 other):
     * the cycles from one to the next, by the pair's classes */
    double gap[5][5][2];
    /* the middle of a burst: from its nqp-th completion to its last */
    double mid_cycles[2], mid_wrs[2];
    floor_win_t mid[FLOOR_WINS]; /* those spans, as windows */
} floor_acc_t;

/* The window holding cycle t: its kind, or -1. */
static int floor_kind(const floor_acc_t *a, uint64_t t)
{
    for (unsigned w = 0; w < a->nwin; w++)
        if (t >= a->win[w].t0 && t < a->win[w].t1)
            return a->win[w].inv;
    return -1;
}

/* Credit the cycles [from, to) in the windows to cell[kind]. */
static void floor_credit(const floor_acc_t *a, uint64_t from, uint64_t to, double cell[2], double weight)
{
    for (unsigned w = 0; w < a->nwin; w++) {
        const uint64_t lo = from > a->win[w].t0 ? from : a->win[w].t0, hi = to < a->win[w].t1 ? to : a->win[w].t1;
        if (hi > lo)
            cell[a->win[w].inv] += weight * (double)(hi - lo);
    }
}

static void floor_occ_to(floor_acc_t *a, floor_occ_t *o, const char *name, uint64_t t)
{
    if (o->cur[0]) {
        unsigned i = 0;
        while (i < o->n && strcmp(o->name[i], o->cur))
            i++;
        if (i == o->n && o->n < FLOOR_NAMES)
            snprintf(o->name[o->n++], sizeof o->name[0], "%s", o->cur);
        if (i < o->n)
            floor_credit(a, o->since, t, o->cyc[i], 1.0);
    }
    snprintf(o->cur, sizeof o->cur, "%s", name);
    o->since = t;
}

static double floor_occ_cycles(const floor_occ_t *o, const char *name, int kind)
{
    for (unsigned i = 0; i < o->n; i++)
        if (!strcmp(o->name[i], name))
            return o->cyc[i][kind];
    return 0;
}

static double floor_chain_sum(const floor_acc_t *a, int kind)
{
    double s = 0;
    for (int c = 0; c < CH_N; c++)
        s += a->chain[c][kind];
    return s;
}

#define FLOOR_MAXQ HCA_MAX_QP
/* Read the state log into a; 0 or -errno. */
static int floor_read_log(const char *path, floor_acc_t *a)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fprintf(stderr, "bench_mm: %s: %s\n", path, strerror(errno)), -errno;
    const uint16_t evt = (uint16_t)(HCA_FW_EVT_BASE - HCA_DEVREG_BASE);
    uint64_t lvl_since[3] = {0, 0, 0}, end = 0;
    int lvl[3] = {0, 0, 0};
    /* per QP: the times of its WR's steps; the events queued (qpn), popped, in order */
    static uint64_t k_prev[FLOOR_MAXQ], grant[FLOOR_MAXQ], at_evt[FLOOR_MAXQ], pushed[FLOOR_MAXQ], popped[FLOOR_MAXQ],
        done[FLOOR_MAXQ];
    memset(k_prev, 0, sizeof k_prev);
    unsigned qfifo[256], dfifo[256], qh = 0, qt = 0, dh = 0, dt = 0, s_qpn = 0;
    uint64_t last_grant = 0, f_prev = 0, k_first[FLOOR_WINS] = {0}, k_last[FLOOR_WINS] = {0};
    int f_prev_cls = -1;
    unsigned k_count[FLOOR_WINS] = {0};
    char line[128], tag, s[32];
    unsigned long long t;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%llu %c", &t, &tag) != 2)
            continue;
        end = t;
        const char *rest = line + strcspn(line, " ") + 3;
        const int k = floor_kind(a, t);
        unsigned u = 0, w = 0;
        switch (tag) {
        case 'S':
            if (sscanf(rest, "%31s %u", s, &u) != 2)
                break;
            floor_occ_to(a, &a->occ[0], s, t);
            s_qpn = u % FLOOR_MAXQ;
            if (!strcmp(s, "S_CTX"))
                last_grant = t;
            else if (!strcmp(s, "S_EVT"))
                grant[s_qpn] = last_grant, at_evt[s_qpn] = t;
            break;
        case 'R':
        case 'C':
            if (sscanf(rest, "%31s", s) == 1)
                floor_occ_to(a, &a->occ[tag == 'R' ? 1 : 2], s, t);
            break;
        case 'Q':
        case 'E':
        case 'I': {
            const int i = tag == 'Q' ? 0 : tag == 'E' ? 1 : 2;
            floor_credit(a, lvl_since[i], t, a->lvl[i], lvl[i]);
            lvl[i] = atoi(rest);
            lvl_since[i] = t;
            break;
        }
        case 'B':
            if (k >= 0)
                a->ev[0][k]++;
            break;
        case 'P':
            if (k >= 0)
                a->ev[1][k]++;
            pushed[s_qpn] = t;
            qfifo[qt++ & 255u] = s_qpn;
            break;
        case 'D':
            if (k >= 0)
                a->ev[2][k]++;
            if (dh != dt)
                done[dfifo[dh++ & 255u]] = t;
            break;
        case 'F': {
            if (sscanf(rest, "%x %u", &u, &w) != 2)
                break;
            const unsigned off = u - evt; /* wraps above the block for an address below it */
            const int cls = off == HCA_EVT_STATUS && !w ? 4 : off < HCA_EVT_STATUS && !w ? 5
                            : off == HCA_EVT_POP && w ? 6 : off == HCA_EVT_DONE && w ? 7 : -1;
            if (k >= 0)
                *(cls < 0 ? &a->fother[k] : &a->ev[cls][k]) += 1;
            const int pc = cls < 0 ? 4 : cls - 4;
            if (k >= 0 && f_prev_cls >= 0 && floor_kind(a, f_prev) == k)
                a->gap[f_prev_cls][pc][k] += (double)(t - f_prev);
            f_prev = t, f_prev_cls = pc;
            if (cls == 6 && qh != qt) {
                const unsigned q = qfifo[qh++ & 255u];
                popped[q] = t;
                dfifo[dt++ & 255u] = q;
            }
            break;
        }
        case 'K': {
            const unsigned q = (unsigned)atoi(rest) % FLOOR_MAXQ;
            if (k >= 0) {
                a->ev[3][k]++;
                unsigned wi = 0;
                while (!(t >= a->win[wi].t0 && t < a->win[wi].t1))
                    wi++;
                if (++k_count[wi] == a->nqp)
                    k_first[wi] = t;
                k_last[wi] = t;
            }
            /* a WR whose whole chain, from the completion before it, lies in one window */
            if (k >= 0 && floor_kind(a, k_prev[q]) == k && k_prev[q] <= grant[q] && grant[q] <= at_evt[q] &&
                at_evt[q] <= pushed[q] && pushed[q] <= popped[q] && popped[q] <= done[q] && done[q] <= t) {
                const uint64_t st[CH_N + 1] = {k_prev[q], grant[q], at_evt[q], pushed[q], popped[q], done[q], t};
                for (unsigned c = 0; c < CH_N; c++)
                    a->chain[c][k] += (double)(st[c + 1] - st[c]);
                a->chain_n[k]++;
            }
            k_prev[q] = t;
            break;
        }
        default: break;
        }
    }
    fclose(f);
    for (unsigned wi = 0; wi < a->nwin; wi++)
        if (k_count[wi] > a->nqp) {
            a->mid_cycles[a->win[wi].inv] += (double)(k_last[wi] - k_first[wi]);
            a->mid_wrs[a->win[wi].inv] += k_count[wi] - a->nqp;
            a->mid[wi] = (floor_win_t){k_first[wi] + 1, k_last[wi] + 1, a->win[wi].inv}; /* its completions after the nqp-th */
        }
    for (int i = 0; i < 3; i++) {
        floor_occ_to(a, &a->occ[i], "", end + 1);
        floor_credit(a, lvl_since[i], end + 1, a->lvl[i], lvl[i]);
    }
    return 0;
}

typedef struct floor_run {
    double cycles[2], busy[2];
    hca_dev_fw_stats_t fw[2]; /* summed over the measured bursts */
} floor_run_t;

/* The warm-up and measured bursts on one engine; windows into win (may be NULL). */
static int floor_bursts(dev_engine_kind_t engine, const char *firmware, unsigned nqp, floor_run_t *r, floor_win_t *win)
{
    static bench_t B;
    memset(r, 0, sizeof *r);
    int rc = bench_setup(&B, nqp, engine, firmware);
    for (unsigned round = 0; !rc && round < FLOOR_WARM + FLOOR_ROUNDS; round++)
        for (int inv = 0; !rc && inv < 2; inv++) {
            const int measured = round >= FLOOR_WARM;
            double cycles = 0, busy = 0;
            hca_dev_fw_stats_t f0, f1;
            hca_dev_get_fw_stats(B.dev, &f0);
            floor_win_t *w = measured && win ? &win[2 * (round - FLOOR_WARM) + (unsigned)inv] : NULL;
            if ((rc = burst_at(&B, inv, 1, &cycles, &busy, NULL, w ? &w->t0 : NULL, w ? &w->t1 : NULL)) || !measured)
                continue;
            if (w)
                w->inv = inv;
            hca_dev_get_fw_stats(B.dev, &f1);
            r->cycles[inv] += cycles / FLOOR_ROUNDS;
            r->busy[inv] += busy / FLOOR_ROUNDS;
            hca_dev_fw_stats_t *s = &r->fw[inv];
            s->instret += f1.instret - f0.instret;
            s->busy_cycles += f1.busy_cycles - f0.busy_cycles;
            s->port_accesses += f1.port_accesses - f0.port_accesses;
            s->port_stall_cycles += f1.port_stall_cycles - f0.port_stall_cycles;
            s->seq_programs += f1.seq_programs - f0.seq_programs;
            s->seq_accesses += f1.seq_accesses - f0.seq_accesses;
        }
    /* the per-PC profile with --floor's QP count: on the model's run (the RTL's is the same) */
    const char *prof = getenv("BENCH_MM_PCPROF");
    if (!rc && prof && *prof && engine == DEV_ENGINE_MODEL)
        rc = pc_profile(&B, prof);
    return bench_finish(&B, rc);
}

static int floor_main(const char *firmware, const char *statelog, unsigned nqp)
{
    floor_run_t model, rtl;
    floor_win_t win[FLOOR_WINS];
    if (setenv("HCASIM_MODEL_STATELOG", statelog, 1))
        return fail("setenv", -errno), 1;
    int rc = floor_bursts(DEV_ENGINE_MODEL, firmware, nqp, &model, win);
    unsetenv("HCASIM_MODEL_STATELOG");
    if (rc || floor_bursts(DEV_ENGINE_RTL, firmware, nqp, &rtl, NULL))
        return 1;
    /* a: the measured bursts whole; m: their middles (each QP's first WQE fetched, the pipeline full) */
    static floor_acc_t a, m;
    a.win = win;
    a.nwin = FLOOR_WINS;
    a.nqp = m.nqp = nqp;
    if (floor_read_log(statelog, &a))
        return 1;
    m.win = a.mid;
    m.nwin = FLOOR_WINS;
    if (floor_read_log(statelog, &m))
        return 1;
    const floor_acc_t *acc[2] = {&a, &m};
    /* WRs of one kind measured: whole bursts, middles */
    const double nw[2] = {(double)(FLOOR_ROUNDS * nqp * MRS_PER_QP), 0};
    const double nk[2][2] = {{nw[0], nw[0]}, {a.mid_wrs[0], a.mid_wrs[1]}};
    printf("engine floor: memory-management WRs with firmware %s\n"
           "  (the engine's floor with hcafw_done_at_once.elf: every event answered SUCCESS as read),\n"
           "  steady state, 1 page, %u QPs x %u WRs posted at once, %u rounds after %u warm-up; per WR,\n"
           "  over whole bursts and over their middles (from a burst's %uth completion to its last):\n",
           firmware, nqp, MRS_PER_QP, FLOOR_ROUNDS, FLOOR_WARM, nqp);
    printf("  %-54s %8s %8s %8s %8s\n", "", "FR", "FR mid", "LINV", "LINV mid");
/* a row: EXPR of (A, W, K, N) per WR (negative: "-") for kind K (0 FAST_REG_MR, 1 LOCAL_INV) over whole bursts (A = &a) and middles (A = &m) */
#define FLOOR_ROW(label, fmt, EXPR)                                                                                    \
    do {                                                                                                               \
        printf("  %-54s", label);                                                                                      \
        for (int K = 0; K < 2; K++)                                                                                    \
            for (int W = 0; W < 2; W++) {                                                                              \
                const floor_acc_t *A = acc[W];                                                                         \
                const double N = nk[W][K];                                                                             \
                const double v_ = (EXPR);                                                                              \
                (void)A, (void)N;                                                                                      \
                if (v_ < 0)                                                                                            \
                    printf(" %8s", "-");                                                                               \
                else                                                                                                   \
                    printf(" %8" fmt, v_);                                                                             \
            }                                                                                                          \
        printf("\n");                                                                                                  \
    } while (0)
    FLOOR_ROW("cycles per WR, rtl", ".1f", W ? -1.0 : rtl.cycles[K]);
    FLOOR_ROW("cycles per WR, model (the state log's run)", ".1f", W ? a.mid_cycles[K] / N : model.cycles[K]);
    if (model.cycles[0] != rtl.cycles[0] || model.cycles[1] != rtl.cycles[1])
        return fprintf(stderr, "bench_mm: the engines differ (the model is the RTL's cycle-exact twin)\n"), 1;
    FLOOR_ROW("firmware busy (whole bursts only)", ".1f", W ? -1.0 : model.busy[K]);
    FLOOR_ROW("  instructions", ".1f", W ? -1.0 : model.fw[K].instret / N);
    FLOOR_ROW("  core port accesses (DONE writes at once)", ".1f", W ? -1.0 : model.fw[K].port_accesses / N);
    FLOOR_ROW("  cycles stalled (on them, IDLE reads held)", ".1f", W ? -1.0 : model.fw[K].port_stall_cycles / N);
    FLOOR_ROW("  sequencer programs (event read batches)", ".2f", W ? -1.0 : model.fw[K].seq_programs / N);
    FLOOR_ROW("  sequencer port accesses (event DATA words, POP)", ".1f", W ? -1.0 : model.fw[K].seq_accesses / N);
    static const char *const blk[3] = {"send engine", "response engine", "CQ writer"};
    for (int b = 0; b < 3; b++) {
        printf("  %s, cycles per WR in each state:\n", blk[b]);
        for (unsigned i = 0; i < a.occ[b].n; i++) {
            char what[64];
            snprintf(what, sizeof what, "  %s", a.occ[b].name[i]);
            FLOOR_ROW(what, ".1f", floor_occ_cycles(&A->occ[b], a.occ[b].name[i], K) / N);
        }
    }
    double tot[2][2] = {{0, 0}, {0, 0}};
    for (unsigned w = 0; w < FLOOR_WINS; w++) {
        tot[0][win[w].inv] += (double)(win[w].t1 - win[w].t0);
        tot[1][a.mid[w].inv] += (double)(a.mid[w].t1 - a.mid[w].t0);
    }
    FLOOR_ROW("scheduler FIFO, mean QPs queued", ".2f", A->lvl[0][K] / tot[W][K]);
    FLOOR_ROW("event queue, mean events queued", ".2f", A->lvl[1][K] / tot[W][K]);
    FLOOR_ROW("fw_irq high (an event queued), cycles per WR", ".1f", A->lvl[2][K] / N);
    static const char *const evn[8] = {"doorbells", "events pushed", "DONEs", "completions taken",
                                       "event STATUS reads", "event DATA word reads", "event POPs", "DONE writes"};
    printf("  counted per WR:\n");
    for (int i = 0; i < 8; i++) {
        char what[64];
        snprintf(what, sizeof what, "  %s", evn[i]);
        FLOOR_ROW(what, ".2f", A->ev[i][K] / N);
    }
    FLOOR_ROW("  other engine port accesses", ".2f", A->fother[K] / N);
    static const char *const fcls[5] = {"STATUS", "DATA", "POP", "DONE", "other"};
    printf("  the firmware's port accesses back to back: cycles per WR from one to the next\n"
           "  (the event read program's DATA/POP; the core's STATUS reads and DONE writes):\n");
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            if (a.gap[i][j][0] + a.gap[i][j][1] + m.gap[i][j][0] + m.gap[i][j][1] > 0) {
                char what[64];
                snprintf(what, sizeof what, "  %s -> %s", fcls[i], fcls[j]);
                FLOOR_ROW(what, ".1f", A->gap[i][j][K] / N);
            }
    printf("  one WR followed through its QP (mean cycles over the WRs whose chain lies in one window):\n");
    for (int c = 0; c < CH_N; c++) {
        char what[64];
        snprintf(what, sizeof what, "  %s", ch_name[c]);
        FLOOR_ROW(what, ".1f", A->chain_n[K] ? A->chain[c][K] / A->chain_n[K] : 0.0);
    }
    FLOOR_ROW("  one QP's WR period (the sum; / QPs = cycles per WR)", ".1f",
              floor_chain_sum(A, K) / (A->chain_n[K] ? A->chain_n[K] : 1));
    FLOOR_ROW("  WRs followed", ".0f", A->chain_n[K]);
#undef FLOOR_ROW
    return 0;
}

/* A recorded earlier figure against this run's, 1 page. */
static void versus(const char *then, double fr_steady, double fr_lat, double inv_steady, double inv_lat,
                   const tput_t *t, const lat_t *fr, const lat_t *inv)
{
    printf("  %s -> now, 1 page:\n"
           "    FAST_REG_MR steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n"
           "    LOCAL_INV   steady %.0f -> %.0f cycles/WR (x%.2f), latency %.0f -> %.0f (x%.2f)\n",
           then, fr_steady, t->fr_cycles, fr_steady / t->fr_cycles, fr_lat, fr->cycles, fr_lat / fr->cycles,
           inv_steady, t->inv_cycles, inv_steady / t->inv_cycles, inv_lat, inv->cycles, inv_lat / inv->cycles);
}

/* The 1-page steady state with nqp QPs, on a device of its own; 0, or -EIO on a
 * firmware fault or a protection breach (said on stderr). */
static int steady_wide(unsigned nqp, tput_t *t)
{
    static bench_t W;
    int rc = bench_setup(&W, nqp, DEV_ENGINE_RTL, NULL);
    if (!rc)
        rc = throughput(&W, 1, 4, t);
    return bench_finish(&W, rc);
}

int main(int argc, char **argv)
{
    const unsigned nqp = argc == 5 ? (unsigned)atoi(argv[4]) : QPS;
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "--floor") && nqp >= 1 && nqp <= QPS_MAX)
        return floor_main(argv[2], argv[3], nqp);
    if (argc != 1)
        return fprintf(stderr, "usage: bench_mm [--floor FIRMWARE STATELOG [QPS 1..%u]]\n", QPS_MAX), 2;
    static bench_t B;
    if (bench_setup(&B, QPS, DEV_ENGINE_RTL, NULL)) {
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
    tput_t wide;
    if (bench_finish(&B, rc) || steady_wide(QPS_WIDE, &wide))
        return 1;
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
    printf("    firmware busy %.0f: %.0f instructions, %.0f cycles stalled (IDLE reads held; %.0f direct engine accesses),\n"
           "      %.0f fdma transfer(s) of %.0f cycles (the page list; the core polls meanwhile),\n"
           "      %.0f sequencer programs making %.0f port accesses (2 cycles each, a posted write 1)\n",
           fr[0].fw_busy, fr[0].instrs, fr[0].port_stalls, fr[0].port_accesses, fr[0].fdma_transfers,
           fr[0].fdma_cycles, fr[0].seq_programs, fr[0].seq_accesses);
    printf("    engine and wake-up %.0f\n", fr[0].cycles - fr[0].fw_busy);
    printf("  LOCAL_INV %.0f cycles: firmware busy %.0f (%.0f instructions, %.0f stalled, %.0f direct accesses,\n"
           "    %.0f sequencer programs making %.0f port accesses, the ctx DRAIN included), engine and wake-up %.0f\n",
           inv[0].cycles, inv[0].fw_busy, inv[0].instrs, inv[0].port_stalls, inv[0].port_accesses,
           inv[0].seq_programs, inv[0].seq_accesses, inv[0].cycles - inv[0].fw_busy);
    printf("  steady state, 1 page, per WR: FAST_REG_MR %.0f cycles, firmware busy %.0f; LOCAL_INV %.0f, firmware busy %.0f\n"
           "    (the send engine reads each QP's next WQE ahead, so the host read round trip is off the per-WR\n"
           "     path and the firmware sets the pace: firmware busy, its IDLE reads held while a program runs\n"
           "     included, is nearly the whole of it)\n",
           tput[0].fr_cycles, tput[0].fr_busy, tput[0].inv_cycles, tput[0].inv_busy);
    printf("    once every QP's pipeline is full (a burst's %uth completion to its last): FAST_REG_MR %.0f, LOCAL_INV %.0f\n"
           "    (the rest is the burst's start: each QP's first WQE is a host read round trip, the QPs' reads\n"
           "     overlapping (a QP waiting for its read yields the send engine), before the firmware's first event;\n"
           "     where the engine's own cycles go: make bench-mm-floor, docs/device.md \"The engine floor\")\n",
           QPS, tput[0].fr_mid, tput[0].inv_mid);
    printf("  with %u QPs x %u MRs, 1 page, per WR: FAST_REG_MR %.1f cycles (%.1f once full), LOCAL_INV %.1f (%.1f)\n"
           "    (a LOCAL_INV starts only once its QP's earlier WRs completed (SEMANTICS.md), so one QP's rate is one\n"
           "     WR per round trip and the device's comes from the QPs' overlap)\n",
           QPS_WIDE, MRS_PER_QP, wide.fr_cycles, wide.fr_mid, wide.inv_cycles, wide.inv_mid);
    versus("c713a85", PREV_FR_STEADY, PREV_FR_LATENCY, PREV_INV_STEADY, PREV_INV_LATENCY, &tput[0], &fr[0], &inv[0]);
    versus("before the event service's fast paths (420cd3a)", SEQ_FR_STEADY, SEQ_FR_LATENCY, SEQ_INV_STEADY,
           SEQ_INV_LATENCY, &tput[0], &fr[0], &inv[0]);
    versus("before (8a1bc30)", BEFORE_FR_STEADY, BEFORE_FR_LATENCY, BEFORE_INV_STEADY, BEFORE_INV_LATENCY, &tput[0],
           &fr[0], &inv[0]);
    printf("  device with firmware: %.3g cycles/s\n", cps);
    return 0;
}
