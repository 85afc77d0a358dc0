/* fuzz_wqe.c — libFuzzer harness of the WQE decoder: raw send-queue bytes
 * (up to 4 WQEs of 128 bytes) posted on a connected QP pair of a live device,
 * through the driver's hcadrv_post_send_raw.
 *
 * Oracle, per input: the protection checker stays silent and the firmware
 * keeps running; a second QP pair (its own PD, CQ and MRs) still moves data
 * — an RDMA WRITE posted after the input completes SUCCESS and its bytes land
 * (every other QP still served); then the fuzzed pair is moved to RESET and
 * connected again (the QP lifecycle), which must succeed.
 *
 * The fuzzed QPs' PD holds one regular MR over a scratch buffer and nothing
 * privileged: an SGE naming the reserved L_Key is pointed at that MR instead,
 * since the reserved L_Key legitimately reaches any bus address (the harness's
 * own rings included) — that is the kernel's key, not a decoder bug.
 *
 * Guidance: the model engine's sources are compiled into this harness with
 * coverage (fuzz.mk), and the firmware words executed (memory-management
 * events) are extra counters, as in fuzz_mailbox.c. HCASIM_FUZZ_ENGINE=rtl
 * runs the RTL engine instead (its decoder is then the Verilated one).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_live.h"
#include "hca_abi.h"

#define MAX_WQES 4
#define SETTLE_CYCLES 200000u /* an input's WQEs get this long to be served */
#define CTRL_LEN 256u

static fuzz_live_t live;
static hcadrv_t *drv;
static hca_host_t host;
static hcadrv_cq_t cq_f, cq_c;
static hcadrv_qp_t qa, qb, qc, qd;
static hcadrv_mr_t mr_f, mr_c;
static uint64_t buf_f, buf_c;
static unsigned inputs;

static void must(const char *what, int rc)
{
    if (rc)
        fuzz_die(what, rc);
}

static void make_pair(uint32_t pd, hcadrv_cq_t *cq, hcadrv_qp_t *a, hcadrv_qp_t *b)
{
    hcadrv_qp_attr_t at = {.pd = pd, .send_cq = cq, .recv_cq = cq, .sq_depth = 16, .rq_depth = 16,
                           .rnr_retry = 0, .rnr_timer = 100};
    must("create_qp", hcadrv_create_qp(drv, &at, a));
    must("create_qp", hcadrv_create_qp(drv, &at, b));
    must("connect", hcadrv_connect(drv, a, b));
}

static void setup(void)
{
    fuzz_live_open(&live);
    drv = live.drv;
    host = live.host;
    uint32_t pd_f, pd_c;
    must("alloc_pd", hcadrv_alloc_pd(drv, &pd_f));
    must("alloc_pd", hcadrv_alloc_pd(drv, &pd_c));
    must("mem_alloc", host.ops->mem_alloc(host.ctx, 65536, 4096, &buf_f));
    must("mem_alloc", host.ops->mem_alloc(host.ctx, 2 * CTRL_LEN, 4096, &buf_c));
    const uint32_t all = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;
    must("reg_mr", hcadrv_reg_mr(drv, pd_f, buf_f, 65536, buf_f, all, 12, &mr_f));
    must("reg_mr", hcadrv_reg_mr(drv, pd_c, buf_c, 2 * CTRL_LEN, buf_c, all, 12, &mr_c));
    must("create_cq", hcadrv_create_cq(drv, 256, &cq_f));
    must("create_cq", hcadrv_create_cq(drv, 64, &cq_c));
    make_pair(pd_f, &cq_f, &qa, &qb);
    make_pair(pd_c, &cq_c, &qc, &qd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setup();
    return 0;
}

/* Poll cq until want CQEs came (or, want = 0, until 20 polls 500 cycles
 * apart found nothing), within max cycles. */
static int drain_cq(hcadrv_cq_t *cq, int want, uint64_t max, hcadrv_wc_t *last)
{
    int got = 0, quiet = 0;
    uint64_t t0 = host.ops->now(host.ctx);
    while (host.ops->now(host.ctx) - t0 < max && (want || quiet < 20)) {
        hcadrv_wc_t wc[16];
        int n = hcadrv_poll_cq(drv, cq, wc, 16);
        if (n < 0)
            return n;
        if (n > 0 && last)
            *last = wc[n - 1];
        got += n;
        quiet = n ? 0 : quiet + 1;
        if (want && got >= want)
            break;
        host.ops->wait(host.ctx, 500, 0); /* not on the interrupt: nothing here acknowledges it */
    }
    return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    inputs++;
    fuzz_fw_cov_begin(&live);

    for (size_t at = 0, k = 0; at < size && k < MAX_WQES; at += sizeof(hca_sq_wqe_t), k++) {
        hca_sq_wqe_t w;
        memset(&w, 0, sizeof w);
        memcpy(&w, data + at, size - at < sizeof w ? size - at : sizeof w);
        for (unsigned i = 0; i < HCA_SQ_WQE_SGE_COUNT; i++)
            if (w.sge[i].lkey == HCA_RESERVED_LKEY)
                w.sge[i].lkey = mr_f.lkey;
        int rc = hcadrv_post_send_raw(drv, &qa, &w, sizeof w);
        if (rc && rc != -ENOMEM && rc != -ENOTCONN)
            fuzz_die("post_send_raw", rc);
    }
    /* Let the device serve them: until the fuzzed CQ is quiet. */
    if (drain_cq(&cq_f, 0, SETTLE_CYCLES, NULL) < 0) {
        fprintf(stderr, "the fuzzed pair's CQ overran (input %u)\n", inputs);
        abort();
    }
    fuzz_live_check(&live, "after the fuzzed WQEs");

    /* Every other QP still served: an RDMA WRITE on the control pair. */
    uint8_t pat[CTRL_LEN], back[CTRL_LEN];
    for (unsigned i = 0; i < CTRL_LEN; i++)
        pat[i] = (uint8_t)(i * 7 + inputs);
    host.ops->mem_write(host.ctx, buf_c, pat, sizeof pat);
    hcadrv_send_wr_t wr = {.wr_id = inputs, .opcode = HCA_WR_OPCODE_RDMA_WRITE, .flags = HCA_SEND_FLAGS_SIGNALED,
                           .num_sge = 1, .remote_addr = buf_c + CTRL_LEN, .rkey = mr_c.rkey};
    wr.sge[0] = (hca_sge_t){.addr = buf_c, .length = CTRL_LEN, .lkey = mr_c.lkey};
    must("control post_send", hcadrv_post_send(drv, &qc, &wr));
    hcadrv_wc_t wc = {0};
    if (drain_cq(&cq_c, 1, SETTLE_CYCLES, &wc) != 1 || wc.status != HCA_WC_STATUS_SUCCESS || wc.wr_id != inputs) {
        fprintf(stderr, "the control pair's RDMA WRITE after the input: %s, status %u, wr_id %" PRIu64 "\n",
                wc.wr_id == inputs ? "completed" : "no completion", wc.status, wc.wr_id);
        abort();
    }
    host.ops->mem_read(host.ctx, buf_c + CTRL_LEN, back, sizeof back);
    if (memcmp(pat, back, sizeof pat)) {
        fprintf(stderr, "the control pair's RDMA WRITE completed SUCCESS but its bytes did not land\n");
        abort();
    }
    /* The fuzzed pair back to a fresh connection. */
    must("modify_qp RESET", hcadrv_modify_qp(drv, &qa, HCA_QP_STATE_RESET));
    must("modify_qp RESET", hcadrv_modify_qp(drv, &qb, HCA_QP_STATE_RESET));
    must("connect after RESET", hcadrv_connect(drv, &qa, &qb));
    drain_cq(&cq_f, 0, 2000, NULL);
    fuzz_live_check(&live, "after the fuzzed pair's RESET");

    fuzz_fw_cov_end(&live);
    return 0;
}
