/* bench_xu — translation-unit throughput and simulation speed, both engines, one run.
 *
 * Prints, from a single run:
 *   - translations per cycle at steady state (back-to-back single-page requests;
 *     the limit is 1.0), per engine;
 *   - simulated cycles per second of the RTL untraced and FST-traced, and of the model;
 *   - the model/RTL speed ratio.
 * Figures are measured, never assumed; wall time comes from CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xu.h"
#include "bench_util.h"

#define BENCH_MRS 64u

/* MR i: index i+1, key byte 0x11, 16 pages of 4 KiB, VALID, local+remote rights. */
static int setup_tables(xu_t *xu)
{
    for (uint32_t i = 0; i < BENCH_MRS; i++) {
        hca_mpt_entry_t e;
        memset(&e, 0, sizeof e);
        hca_mpt_entry_set_alloc(&e, 1);
        hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
        hca_mpt_entry_set_kind(&e, HCA_MKEY_KIND_REGULAR);
        hca_mpt_entry_set_mode(&e, HCA_MKEY_MODE_MTT);
        hca_mpt_entry_set_access(&e, HCA_ACCESS_ALL);
        hca_mpt_entry_set_page_shift(&e, 12);
        e.key = ((i + 1) << HCA_KEY_INDEX_SHIFT) | 0x11;
        e.pd = 7;
        e.iova = 0x100000000ull * (i + 1);
        e.length = 16u << 12;
        e.mtt_base = i * 16;
        e.mtt_count = 16;
        int rc = xu_write_mpt(xu, i + 1, &e);
        for (uint32_t p = 0; rc == 0 && p < 16; p++) {
            hca_mtt_entry_t m = {0};
            hca_mtt_entry_set_present(&m, 1);
            hca_mtt_entry_set_pfn(&m, 0x80000 + i * 16 + p);
            rc = xu_write_mtt(xu, i * 16 + p, &m);
        }
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct run_result {
    uint64_t requests, beats, cycles;
    double seconds;
} run_result_t;

/* Stream n single-page requests back to back; count beats until all are back. */
static int stream(xu_t *xu, uint64_t n, run_result_t *r)
{
    uint64_t submitted = 0, beats = 0, bad = 0;
    uint64_t c0 = xu_cycle(xu), first_accept, last_beat = 0;
    double t0 = bench_now_s();
    while (beats < n) {
        while (submitted < n && xu_pending(xu) < XU_QUEUE_DEPTH / 2) {
            uint32_t mr = (uint32_t)(submitted % BENCH_MRS);
            xu_req_t q = {
                .tag = (uint8_t)submitted,
                .rights = HCA_ACCESS_LOCAL_WRITE,
                .key = ((mr + 1) << HCA_KEY_INDEX_SHIFT) | 0x11,
                .pd = 7,
                .len = 512,
                .va = 0x100000000ull * (mr + 1) + ((submitted * 4096u) % (16u << 12)),
            };
            if (xu_submit(xu, &q))
                return -EIO;
            submitted++;
        }
        xu_step(xu, 256);
        xu_seg_t s;
        while (xu_collect(xu, &s)) {
            beats++;
            bad += s.status != HCA_XLATE_STATUS_OK;
            last_beat = s.cycle;
        }
        if (xu_cycle(xu) - c0 > 64 * n + 100000)
            return -ETIMEDOUT;
    }
    r->seconds = bench_now_s() - t0;
    first_accept = xu_accept_cycle(xu, 0);
    r->requests = n;
    r->beats = beats;
    r->cycles = last_beat >= first_accept ? last_beat - first_accept + 1 : 0;
    return bad ? -EPROTO : 0;
}

static int bench_engine(xu_engine_kind_t kind, uint64_t n, const char *trace, run_result_t *r)
{
    xu_t *xu = NULL;
    int rc = xu_create(&xu, kind, NULL);
    if (rc)
        return rc;
    rc = setup_tables(xu); /* table writes submit no request: accept #0 is the stream's first */
    if (!rc && trace)
        rc = xu_trace_open(xu, trace, 0, UINT64_MAX);
    if (!rc)
        rc = stream(xu, n, r);
    if (trace)
        xu_trace_close(xu);
    xu_destroy(xu);
    return rc;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 400000;
    const char *trace_path = argc > 2 ? argv[2] : "build/bench/xu_trace.fst";
    run_result_t rtl, rtl_tr, model;
    int rc;
    if ((rc = bench_engine(XU_ENGINE_RTL, n, NULL, &rtl)) ||
        (rc = bench_engine(XU_ENGINE_RTL, n / 4, trace_path, &rtl_tr)) ||
        (rc = bench_engine(XU_ENGINE_MODEL, n, NULL, &model))) {
        fprintf(stderr, "bench_xu: failed: %s\n", strerror(-rc));
        return 1;
    }
    double rtl_cps = (double)rtl.cycles / rtl.seconds;
    double tr_cps = (double)rtl_tr.cycles / rtl_tr.seconds;
    double model_cps = (double)model.cycles / model.seconds;
    printf("translation unit, %" PRIu64 " single-page requests back to back:\n", n);
    printf("  translations/cycle   rtl %.4f   model %.4f   (limit 1.0)\n",
           (double)rtl.requests / (double)rtl.cycles, (double)model.requests / (double)model.cycles);
    printf("  cycles/s             rtl %.3g   rtl+fst %.3g   model %.3g\n", rtl_cps, tr_cps, model_cps);
    printf("  ratios               model/rtl %.1fx   rtl/rtl+fst %.1fx\n", model_cps / rtl_cps, rtl_cps / tr_cps);
    return 0;
}
