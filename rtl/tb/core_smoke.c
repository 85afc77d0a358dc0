/* core_smoke.c — directed end-to-end bring-up of the Verilated hca_core
 * (rtl/hca_core.sv through sim/verilated/core_rtl.cpp) on the C harness (sim/harness/core.c:
 * DMA block, loopback link), without firmware or driver: contexts and MPT
 * entries are written through the firmware port, WQEs straight into host
 * memory, doorbells through the harness.
 *
 * Two QPs (1 and 2) connected to each other over the loopback link, MTU 256
 * so messages take several packets. Cases: SEND (2 SGEs) into a receive
 * WQE; RDMA WRITE and RDMA READ through a registered MR (rkey); unsignaled
 * WQE followed by a signaled one; malformed WQE (LOC_QP_OP_ERR) and the
 * flush of the WQE after it; bad lkey (LOC_PROT_ERR); SEND with no receive
 * posted (RNR retries exhausted); CQ overflow flag; READ_QPC live state;
 * no packet buffer leaks (more zero-length and one-packet messages than
 * there are buffers).
 * Every payload byte is compared; the protection checker must stay clean.
 * Prints "core_smoke: PASS" and exits 0, or names the first mismatch.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "hca_abi.h"
#include "hostmem.h"
#include "protcheck.h"

static core_t *c;
static hostmem_t *mem;
static protcheck_t *pc;
static int failures;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "core_smoke: FAIL at cycle %llu: ", (unsigned long long)core_cycle(c));
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

#define CHECK_EQ(what, exp, got)                                                                   \
    do {                                                                                           \
        unsigned long long e_ = (unsigned long long)(exp), g_ = (unsigned long long)(got);         \
        if (e_ != g_)                                                                              \
            fail("%s: expected %llu (0x%llx), got %llu (0x%llx)", what, e_, e_, g_, g_);           \
    } while (0)

static uint64_t halloc(uint64_t size)
{
    uint64_t a = 0;
    if (hostmem_alloc(mem, size, 4096, &a)) {
        fprintf(stderr, "core_smoke: hostmem_alloc failed\n");
        exit(2);
    }
    void *z = calloc(1, size);
    hostmem_write(mem, a, z, size);
    free(z);
    return a;
}

static uint32_t ctx_off(uint32_t reg) { return HCA_FW_CTX_BASE - HCA_DEVREG_BASE + reg; }

static void fw_wr(uint32_t off, uint32_t v)
{
    if (core_fw_write(c, off, v))
        fail("fw write 0x%x", off);
}

static uint32_t fw_rd(uint32_t off)
{
    uint32_t v = 0;
    if (core_fw_read(c, off, &v))
        fail("fw read 0x%x", off);
    return v;
}

static void ctx_cmd(unsigned op, unsigned index, const void *data, size_t len)
{
    uint32_t w[16] = {0};
    memcpy(w, data, len);
    for (int i = 0; i < 16; i++)
        fw_wr(ctx_off(HCA_CTX_DATA + 4 * i), w[i]);
    fw_wr(ctx_off(HCA_CTX_CMD), (uint32_t)op << HCA_CTX_CMD_OP_LSB | index);
    uint32_t st = fw_rd(ctx_off(HCA_CTX_STATUS));
    CHECK_EQ("ctx STATUS after command", 0, st);
}

enum { SQ_LOG = 4, RQ_LOG = 4, CQ_LOG = 3 };

typedef struct {
    unsigned qpn;
    uint64_t sq, rq;
    uint16_t sq_pi, rq_pi;
} qp_t;

typedef struct {
    unsigned cqn;
    uint64_t base;
    uint16_t ci;
} cq_t;

static void make_cq(cq_t *q, unsigned cqn)
{
    q->cqn = cqn;
    q->base = halloc(32u << CQ_LOG);
    q->ci = 0;
    hca_cq_ctx_t x;
    memset(&x, 0, sizeof x);
    x.base = q->base;
    x.cfg = CQ_LOG | 1u << HCA_CQ_CTX_CQ_VALID_LSB;
    ctx_cmd(HCA_CTX_OP_WRITE_CQC, cqn, &x, sizeof x);
}

static void make_qp(qp_t *q, unsigned qpn, unsigned remote, unsigned scq, unsigned rcq, unsigned rnr_retry,
                    uint32_t rnr_timer)
{
    q->qpn = qpn;
    q->sq = halloc(128u << SQ_LOG);
    q->rq = halloc(64u << RQ_LOG);
    q->sq_pi = q->rq_pi = 0;
    hca_qp_ctx_t x;
    memset(&x, 0, sizeof x);
    x.state_word = HCA_QP_STATE_RTS | 8u << HCA_QP_CTX_MTU_LOG2_LSB | rnr_retry << HCA_QP_CTX_RNR_RETRY_LSB |
                   (uint32_t)SQ_LOG << HCA_QP_CTX_SQ_LOG_LSB | (uint32_t)RQ_LOG << HCA_QP_CTX_RQ_LOG_LSB;
    x.pd = 5;
    x.sq_base = q->sq;
    x.rq_base = q->rq;
    x.cqns = scq | rcq << 16;
    x.remote_qpn = remote;
    x.rnr_timer = rnr_timer;
    ctx_cmd(HCA_CTX_OP_WRITE_QPC, qpn, &x, sizeof x);
}

static void post_send(qp_t *q, const hca_sq_wqe_t *w)
{
    hostmem_write(mem, q->sq + (uint64_t)(q->sq_pi & ((1u << SQ_LOG) - 1)) * 128, w, sizeof *w);
    q->sq_pi++;
    core_db_write(c, HCA_DB_SQ, q->qpn | (uint32_t)q->sq_pi << 16);
}

static void post_recv(qp_t *q, uint64_t wr_id, uint64_t addr, uint32_t len, uint32_t lkey)
{
    hca_rq_wqe_t w;
    memset(&w, 0, sizeof w);
    w.wr_id = wr_id;
    w.ctrl = 1;
    w.sge[0].addr = addr;
    w.sge[0].length = len;
    w.sge[0].lkey = lkey;
    hostmem_write(mem, q->rq + (uint64_t)(q->rq_pi & ((1u << RQ_LOG) - 1)) * 64, &w, sizeof w);
    q->rq_pi++;
    core_db_write(c, HCA_DB_RQ, q->qpn | (uint32_t)q->rq_pi << 16);
}

static hca_sq_wqe_t wqe(unsigned op, unsigned flags, uint64_t wr_id)
{
    hca_sq_wqe_t w;
    memset(&w, 0, sizeof w);
    w.ctrl = op | flags << HCA_SQ_WQE_FLAGS_LSB;
    w.wr_id = wr_id;
    return w;
}

static void add_sge(hca_sq_wqe_t *w, uint64_t addr, uint32_t len, uint32_t lkey)
{
    unsigned n = (w->ctrl >> HCA_SQ_WQE_NUM_SGE_LSB) & 0xf;
    w->sge[n].addr = addr;
    w->sge[n].length = len;
    w->sge[n].lkey = lkey;
    w->ctrl += 1u << HCA_SQ_WQE_NUM_SGE_LSB;
}

/* Wait for the next CQE of q (owner rule), up to `limit` cycles. */
static int poll_cq(cq_t *q, hca_cqe_t *out, uint64_t limit)
{
    for (uint64_t t = 0; t < limit; t += 16) {
        hca_cqe_t e;
        hostmem_read(mem, q->base + (uint64_t)(q->ci & ((1u << CQ_LOG) - 1)) * 32, &e, sizeof e);
        unsigned owner = e.info >> HCA_CQE_OWNER_LSB & 1;
        if (owner == (((q->ci >> CQ_LOG) & 1) ^ 1)) {
            *out = e;
            q->ci++;
            core_db_write(c, HCA_DB_CQ, q->cqn | (uint32_t)q->ci << 16);
            return 0;
        }
        core_step(c, 16);
    }
    return -1;
}

static void expect_cqe(const char *what, cq_t *q, uint64_t wr_id, unsigned status, unsigned opcode, uint32_t len,
                       unsigned qpn, unsigned counter)
{
    hca_cqe_t e;
    char b[160];
    if (poll_cq(q, &e, 200000)) {
        fail("%s: no CQE on CQ %u", what, q->cqn);
        return;
    }
    snprintf(b, sizeof b, "%s: wr_id", what);
    CHECK_EQ(b, wr_id, e.wr_id);
    const char *sn = hca_wc_status_name(e.info & 0xff);
    snprintf(b, sizeof b, "%s: status (%s)", what, sn ? sn : "?");
    CHECK_EQ(b, status, e.info & 0xff);
    snprintf(b, sizeof b, "%s: opcode", what);
    CHECK_EQ(b, opcode, e.info >> 8 & 0xff);
    if (status == HCA_WC_STATUS_SUCCESS) {
        snprintf(b, sizeof b, "%s: byte_len", what);
        CHECK_EQ(b, len, e.byte_len);
    }
    snprintf(b, sizeof b, "%s: qpn", what);
    CHECK_EQ(b, qpn, e.qpn);
    snprintf(b, sizeof b, "%s: wqe_counter", what);
    CHECK_EQ(b, counter, e.wqe_counter);
}

static void expect_no_cqe(const char *what, cq_t *q, uint64_t cycles)
{
    hca_cqe_t e;
    if (!poll_cq(q, &e, cycles))
        fail("%s: unexpected CQE wr_id %llu status %u on CQ %u", what, (unsigned long long)e.wr_id,
             e.info & 0xff, q->cqn);
}

static void fill(uint64_t a, uint32_t len, unsigned seed)
{
    uint8_t *b = malloc(len);
    for (uint32_t i = 0; i < len; i++)
        b[i] = (uint8_t)(i * 7 + seed);
    hostmem_write(mem, a, b, len);
    free(b);
}

static void same(const char *what, uint64_t a, uint64_t b, uint32_t len)
{
    uint8_t *x = malloc(len), *y = malloc(len);
    hostmem_read(mem, a, x, len);
    hostmem_read(mem, b, y, len);
    for (uint32_t i = 0; i < len; i++)
        if (x[i] != y[i]) {
            fail("%s: byte %u differs (0x%02x vs 0x%02x)", what, i, x[i], y[i]);
            break;
        }
    free(x);
    free(y);
}

/* MR index 1 (key 0x0123), PD 5, over [base, base + pages * 4096), all rights. */
static uint32_t make_mr(uint64_t base, unsigned pages)
{
    for (unsigned p = 0; p < pages; p++) {
        uint64_t word = (base + 4096ull * p) | 1; /* present, pfn << 12 */
        fw_wr(HCA_FWP_MTT_DATA, (uint32_t)word);
        fw_wr(HCA_FWP_MTT_DATA + 4, (uint32_t)(word >> 32));
        fw_wr(HCA_FWP_CMD, (uint32_t)HCA_FWP_OP_WRITE_MTT << HCA_FWP_CMD_OP_LSB | p);
    }
    hca_mpt_entry_t m;
    memset(&m, 0, sizeof m);
    m.flags = 1 | 1u << HCA_MPT_ENTRY_STATE_LSB | (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ |
                                                  HCA_ACCESS_REMOTE_WRITE) << 8 | 12u << 16;
    m.key = 0x0123;
    m.pd = 5;
    m.mtt_base = 0;
    m.iova = base;
    m.length = 4096ull * pages;
    m.mtt_count = pages;
    uint32_t w[10];
    memcpy(w, &m, sizeof m);
    for (int i = 0; i < 10; i++)
        fw_wr(HCA_FWP_MPT_DATA + 4 * i, w[i]);
    fw_wr(HCA_FWP_CMD, (uint32_t)HCA_FWP_OP_WRITE_MPT << HCA_FWP_CMD_OP_LSB | 1);
    return m.key;
}

int main(int argc, char **argv)
{
    static evlog_t log;
    if (hostmem_create(&mem) || protcheck_create(&pc) || protcheck_attach(pc, &log) ||
        core_create(&c, &core_rtl_ops, NULL, &(dev_engine_env_t){hostmem_bus(mem), &log})) {
        fprintf(stderr, "core_smoke: cannot create the core\n");
        return 2;
    }
    if (argc > 1)
        core_trace_open(c, argv[1], 0, UINT64_MAX);

    const uint32_t L = HCA_RESERVED_LKEY;
    cq_t cq1, cq2, cq3;
    qp_t q1, q2;
    make_cq(&cq1, 1);
    make_cq(&cq2, 2);
    make_cq(&cq3, 3);
    make_qp(&q1, 1, 2, 1, 1, 7, 100);
    make_qp(&q2, 2, 1, 2, 2, 1, 200);

    uint64_t src = halloc(16384), dst = halloc(16384), mr = halloc(16384);
    fill(src, 16384, 3);
    uint32_t rkey = make_mr(mr, 4);

    /* 1. SEND 1000 bytes (300 + 700) from QP 1 into QP 2's receive WQE. */
    post_recv(&q2, 77, dst + 100, 2048, L);
    hca_sq_wqe_t w = wqe(HCA_WR_OPCODE_SEND, 1, 11);
    add_sge(&w, src + 5, 300, L);
    add_sge(&w, src + 1000, 700, L);
    post_send(&q1, &w);
    expect_cqe("send: requester", &cq1, 11, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 1000, 1, 0);
    expect_cqe("send: responder", &cq2, 77, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, 1000, 2, 0);
    same("send: first SGE", src + 5, dst + 100, 300);
    same("send: second SGE", src + 1000, dst + 400, 700);

    /* 2. RDMA WRITE 5000 bytes (crosses MR pages) through the rkey; unsignaled
     *    WRITE first, then a signaled one: one CQE, wqe_counter of the second. */
    w = wqe(HCA_WR_OPCODE_RDMA_WRITE, 0, 21);
    add_sge(&w, src + 64, 100, L);
    w.remote_addr = mr + 8000;
    w.rkey = rkey;
    post_send(&q1, &w);
    w = wqe(HCA_WR_OPCODE_RDMA_WRITE, 1, 22);
    add_sge(&w, src + 2000, 5000, L);
    w.remote_addr = mr + 3000;
    w.rkey = rkey;
    post_send(&q1, &w);
    expect_cqe("write", &cq1, 22, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, 5000, 1, 2);
    same("write: unsignaled", src + 64, mr + 8000, 100);
    same("write: signaled", src + 2000, mr + 3000, 5000);

    /* 3. RDMA READ 3000 bytes from the MR into two local SGEs. */
    fill(mr + 9000, 3000, 9);
    w = wqe(HCA_WR_OPCODE_RDMA_READ, 1, 31);
    add_sge(&w, dst + 4000, 1000, L);
    add_sge(&w, dst + 6000, 2000, L);
    w.remote_addr = mr + 9000;
    w.rkey = rkey;
    post_send(&q1, &w);
    expect_cqe("read", &cq1, 31, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_READ, 3000, 1, 3);
    same("read: first SGE", mr + 9000, dst + 4000, 1000);
    same("read: second SGE", mr + 10000, dst + 6000, 2000);

    /* 4. Zero-length SEND and zero-length READ. */
    post_recv(&q2, 78, dst, 16, L);
    w = wqe(HCA_WR_OPCODE_SEND, 1, 41);
    post_send(&q1, &w);
    expect_cqe("send 0: requester", &cq1, 41, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 0, 1, 4);
    expect_cqe("send 0: responder", &cq2, 78, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, 0, 2, 1);
    w = wqe(HCA_WR_OPCODE_RDMA_READ, 1, 42);
    w.remote_addr = mr;
    w.rkey = rkey;
    post_send(&q1, &w);
    expect_cqe("read 0", &cq1, 42, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_READ, 0, 1, 5);

    /* 5. Bad lkey on QP 2's SEND: LOC_PROT_ERR, QP 2 -> ERROR; its next
     *    WQE (and one posted later) flushed. */
    w = wqe(HCA_WR_OPCODE_SEND, 0, 51);
    add_sge(&w, src, 10, 0x0999);
    post_send(&q2, &w);
    w = wqe(HCA_WR_OPCODE_SEND, 0, 52);
    post_send(&q2, &w);
    expect_cqe("bad lkey", &cq2, 51, HCA_WC_STATUS_LOC_PROT_ERR, HCA_WC_OPCODE_SEND, 0, 2, 0);
    expect_cqe("flush 1", &cq2, 52, HCA_WC_STATUS_WR_FLUSH_ERR, HCA_WC_OPCODE_SEND, 0, 2, 1);
    w = wqe(HCA_WR_OPCODE_RDMA_WRITE, 0, 53);
    post_send(&q2, &w);
    expect_cqe("flush 2", &cq2, 53, HCA_WC_STATUS_WR_FLUSH_ERR, HCA_WC_OPCODE_RDMA_WRITE, 0, 2, 2);
    {
        uint32_t st;
        fw_wr(ctx_off(HCA_CTX_CMD), (uint32_t)HCA_CTX_OP_READ_QPC << HCA_CTX_CMD_OP_LSB | 2);
        st = fw_rd(ctx_off(HCA_CTX_DATA));
        CHECK_EQ("READ_QPC state of QP 2", HCA_QP_STATE_ERROR, st & 3);
    }

    /* 6. Malformed WQE on a fresh QP 3 (reserved ctrl bits): LOC_QP_OP_ERR. */
    qp_t q3, q4;
    make_qp(&q3, 3, 4, 3, 3, 1, 50);
    make_qp(&q4, 4, 3, 3, 3, 1, 50);
    w = wqe(HCA_WR_OPCODE_SEND, 0, 61);
    w.ctrl |= 1u << 20;
    post_send(&q3, &w);
    expect_cqe("malformed", &cq3, 61, HCA_WC_STATUS_LOC_QP_OP_ERR, HCA_WC_OPCODE_SEND, 0, 3, 0);

    /* 7. SEND from QP 4 to QP 3 (in ERROR: drops it) ... and SEND with no
     *    receive posted: RNR with rnr_retry 1 -> RNR_RETRY_EXC_ERR. Fresh
     *    pair 5/6. */
    qp_t q5, q6;
    make_qp(&q5, 5, 6, 3, 3, 1, 40);
    make_qp(&q6, 6, 5, 3, 3, 1, 40);
    w = wqe(HCA_WR_OPCODE_SEND, 0, 71);
    add_sge(&w, src, 64, L);
    post_send(&q5, &w);
    expect_cqe("rnr", &cq3, 71, HCA_WC_STATUS_RNR_RETRY_EXC_ERR, HCA_WC_OPCODE_SEND, 0, 5, 0);

    /* 8. CQ overflow: CQ 3 has 8 entries; 9 unconsumed completions. */
    qp_t q7, q8;
    make_qp(&q7, 7, 8, 4, 4, 7, 40);
    make_qp(&q8, 8, 7, 4, 4, 7, 40);
    cq_t cq4;
    make_cq(&cq4, 4);
    for (int i = 0; i < 9; i++) {
        w = wqe(HCA_WR_OPCODE_RDMA_WRITE, 1, 80 + i);
        add_sge(&w, src, 8, L);
        w.remote_addr = mr;
        w.rkey = rkey;
        post_send(&q7, &w);
    }
    core_step(c, 60000);
    fw_wr(ctx_off(HCA_CTX_CMD), (uint32_t)HCA_CTX_OP_READ_CQC << HCA_CTX_CMD_OP_LSB | 4);
    CHECK_EQ("READ_CQC overflow flag", 1, fw_rd(ctx_off(HCA_CTX_DATA + 8)) >> 9 & 1);
    for (int i = 0; i < 8; i++)
        expect_cqe("overflow ring", &cq4, 80 + i, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, 8, 7, i);
    expect_no_cqe("overflow: the 9th was dropped", &cq4, 2000);

    /* 9. A long SEND again on 1 -> 2 (QP 1 still RTS): 9000 bytes, 36 packets. */
    post_recv(&q1, 90, dst, 16, L); /* unused: QP 2 is in ERROR, 1 receives nothing */
    qp_t q9, q10;
    cq_t cq5;
    make_cq(&cq5, 5);
    make_qp(&q9, 9, 10, 5, 5, 7, 40);
    make_qp(&q10, 10, 9, 5, 5, 7, 40);
    uint64_t big = halloc(16384);
    post_recv(&q10, 91, big, 16384, L);
    w = wqe(HCA_WR_OPCODE_SEND, 1, 92);
    add_sge(&w, src + 1, 9000, L);
    post_send(&q9, &w);
    expect_cqe("long send: responder", &cq5, 91, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, 9000, 10, 0);
    expect_cqe("long send: requester", &cq5, 92, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 9000, 9, 0);
    same("long send", src + 1, big, 9000);

    /* 10. Packet buffers do not leak: more zero-length SENDs and READs, and
     *     one-packet WRITEs, than there are buffers. */
    for (int i = 0; i < 2 * (int)HCA_PKT_BUFS; i++) {
        post_recv(&q10, 100 + i, big, 16, L);
        w = wqe(HCA_WR_OPCODE_SEND, 1, 200 + i);
        post_send(&q9, &w);
        expect_cqe("leak: recv", &cq5, 100 + i, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, 0, 10, 1 + i);
        expect_cqe("leak: send", &cq5, 200 + i, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 0, 9, 1 + 3 * i);
        w = wqe(HCA_WR_OPCODE_RDMA_READ, 1, 300 + i);
        w.remote_addr = mr;
        w.rkey = rkey;
        post_send(&q9, &w);
        expect_cqe("leak: read", &cq5, 300 + i, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_READ, 0, 9, 2 + 3 * i);
        w = wqe(HCA_WR_OPCODE_RDMA_WRITE, 1, 400 + i);
        add_sge(&w, src, 200, L);
        w.remote_addr = mr + 100;
        w.rkey = rkey;
        post_send(&q9, &w);
        expect_cqe("leak: write", &cq5, 400 + i, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, 200, 9,
                   3 + 3 * i);
    }

    /* 11. Decode: each malformed WQE on a QP of its own completes
     *     LOC_QP_OP_ERR (wc opcode of its WR opcode); bus errors. The
     *     memory-management opcodes are served (events to a firmware this
     *     smoke test does not have: test_core CoreRtlEvt.*), except an
     *     RDMA_READ_WITH_INV that names no key (inv_key 0, no SGE). */
    {
        cq_t cq6;
        make_cq(&cq6, 6);
        struct {
            uint32_t ctrl_or, rsvd0;
            unsigned op, wc_op;
        } bad[] = {
            {0, 0, 9, HCA_WC_OPCODE_SEND},                             /* opcode > 7 */
            {5u << HCA_SQ_WQE_NUM_SGE_LSB, 0, HCA_WR_OPCODE_SEND, HCA_WC_OPCODE_SEND}, /* num_sge 5 */
            {0, 1, HCA_WR_OPCODE_RDMA_WRITE, HCA_WC_OPCODE_RDMA_WRITE}, /* rsvd0 */
            {4u << HCA_SQ_WQE_FLAGS_LSB, 0, HCA_WR_OPCODE_SEND, HCA_WC_OPCODE_SEND}, /* flag above FENCE */
            {1u << 31, 0, HCA_WR_OPCODE_RDMA_READ, HCA_WC_OPCODE_RDMA_READ}, /* ctrl_rsvd top bit */
            {0, 0, HCA_WR_OPCODE_RDMA_READ_WITH_INV, HCA_WC_OPCODE_RDMA_READ}, /* no key to invalidate */
        };
        for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            qp_t q;
            char what[64];
            make_qp(&q, 20 + i, 21 + i, 6, 6, 7, 40);
            w = wqe(bad[i].op, 1, 500 + i);
            w.ctrl |= bad[i].ctrl_or;
            w.rsvd0 = bad[i].rsvd0;
            post_send(&q, &w);
            snprintf(what, sizeof what, "decode case %u", i);
            expect_cqe(what, &cq6, 500 + i, HCA_WC_STATUS_LOC_QP_OP_ERR, bad[i].wc_op, 0, 20 + i, 0);
        }
        /* The SQ ring itself unreachable: LOC_ACCESS_ERR, wr_id 0. */
        qp_t qa;
        make_qp(&qa, 40, 41, 6, 6, 7, 40);
        hca_qp_ctx_t x;
        memset(&x, 0, sizeof x);
        x.state_word = HCA_QP_STATE_RTS | (uint32_t)SQ_LOG << HCA_QP_CTX_SQ_LOG_LSB;
        x.sq_base = 0x7000000000ull;
        x.cqns = 6 | 6u << 16;
        x.remote_qpn = 41;
        ctx_cmd(HCA_CTX_OP_WRITE_QPC, 40, &x, sizeof x);
        core_db_write(c, HCA_DB_SQ, 40 | 1u << 16);
        expect_cqe("fetch bus error", &cq6, 0, HCA_WC_STATUS_LOC_ACCESS_ERR, HCA_WC_OPCODE_SEND, 0, 40, 0);
        /* A gather from unbacked memory through the reserved L_Key. */
        qp_t qb, qc;
        make_qp(&qb, 42, 43, 6, 6, 7, 40);
        make_qp(&qc, 43, 42, 6, 6, 7, 40);
        post_recv(&qc, 600, big, 4096, L);
        w = wqe(HCA_WR_OPCODE_SEND, 0, 601);
        add_sge(&w, 0x7100000000ull, 100, L);
        post_send(&qb, &w);
        expect_cqe("gather bus error", &cq6, 601, HCA_WC_STATUS_LOC_ACCESS_ERR, HCA_WC_OPCODE_SEND, 0, 42, 0);
    }

    protcheck_stats_t ps;
    protcheck_get_stats(pc, &ps);
    CHECK_EQ("protection checker violations", 0, ps.violations);
    dev_engine_stats_t cs;
    core_get_stats(c, &cs);
    CHECK_EQ("malformed DMA requests", 0, cs.dma_bad_reqs);
    printf("core_smoke: %llu cycles, %llu DMA requests, %llu packets\n", (unsigned long long)core_cycle(c),
           (unsigned long long)cs.dma_reqs, (unsigned long long)cs.pkts);
    core_destroy(c);
    protcheck_destroy(pc);
    hostmem_destroy(mem);
    if (failures) {
        printf("core_smoke: FAIL (%d)\n", failures);
        return 1;
    }
    printf("core_smoke: PASS\n");
    return 0;
}
