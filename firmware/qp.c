/* qp.c — completion queues and queue pairs: CREATE/DESTROY_CQ,
 * CREATE/CONNECT/MODIFY/DESTROY/QUERY_QP (docs/engine.md).
 *
 * The firmware validates every argument, hands out CQ and QP numbers, counts
 * the QPs using each CQ and PD, and writes the WQE engine's contexts through
 * its ctx port. It keeps a shadow of each QP context as it last wrote it
 * (the engine's live copy — with the state hardware moved to ERROR — is what
 * QUERY_QP reads back). A device engine without a WQE engine answers the ctx
 * port with BAD_OP; every queue command then answers BAD_OP and allocates
 * nothing.
 */
#include "cmd.h"
#include "console.h"
#include "dev.h"
#include "start.h"

#define QPC_WORDS (sizeof(hca_qp_ctx_t) / 4)
#define CQC_WORDS (sizeof(hca_cq_ctx_t) / 4)
#define MTU_LOG2_MIN 8u  /* 256 bytes */
#define MTU_LOG2_MAX 12u /* 4096 bytes */
#define SQ_ALIGN 128u    /* sizeof(hca_sq_wqe_t) */
#define RQ_ALIGN 64u     /* sizeof(hca_rq_wqe_t) */
#define CQ_ALIGN 32u     /* sizeof(hca_cqe_t) */

_Static_assert(sizeof(hca_qp_ctx_t) / 4 <= HCA_CTX_DATA_COUNT, "qp_ctx fits the ctx staging");
_Static_assert(SQ_ALIGN == sizeof(hca_sq_wqe_t) && RQ_ALIGN == sizeof(hca_rq_wqe_t) && CQ_ALIGN == sizeof(hca_cqe_t),
               "ring alignment = entry size");

/* As last written; state RESET until CONNECT_QP. Set whole by CREATE_QP and
 * read only for a QP in use, so neither start.S nor qp_reset clears it (64
 * KiB at 1024 QPs: tens of thousands of boot cycles). */
static hca_qp_ctx_t qpc[HCA_MAX_QP] __attribute__((section(".noinit")));
static uint8_t qp_used[HCA_MAX_QP];
static uint8_t cq_used[HCA_MAX_CQ];
static uint8_t cq_users[HCA_MAX_CQ]; /* QP references (a QP using a CQ for both queues counts 2) */

/* ---------------------------------------------------------------- the engine */

enum { ENGINE_UNKNOWN, ENGINE_PRESENT, ENGINE_ABSENT };
static uint8_t engine;
/* 1 when the device has a WQE engine behind the ctx port (probed once, with
 * a ctx NOP, at the first queue command: never at boot). */
static int engine_present(void)
{
    if (engine == ENGINE_UNKNOWN) {
        probe_begin();
        unsigned r = ctx_run(HCA_CTX_OP_NOP, 0);
        const int faulted = probe_end();
        engine = !faulted && r == HCA_FWP_RESULT_OK ? ENGINE_PRESENT : ENGINE_ABSENT;
        if (engine == ENGINE_ABSENT)
            con_puts("hcafw: no WQE engine behind the ctx port: queue commands answer BAD_OP\n");
    }
    return engine == ENGINE_PRESENT;
}

static unsigned ctx_status(unsigned r)
{
    return r == HCA_FWP_RESULT_OK ? HCA_CMD_STATUS_OK
           : r == HCA_FWP_RESULT_BAD_OP ? HCA_CMD_STATUS_BAD_OP
                                        : HCA_CMD_STATUS_INTERNAL;
}

static unsigned write_qpc(uint32_t qpn)
{
    ctx_stage(&qpc[qpn], QPC_WORDS);
    return ctx_status(ctx_run(HCA_CTX_OP_WRITE_QPC, qpn));
}

static unsigned refuse(const char *cmd, unsigned st, const char *why)
{
    con_puts("hcafw: ");
    con_puts(cmd);
    con_puts(": ");
    con_puts(why);
    con_putc('\n');
    return st;
}

static int cq_valid(uint32_t cqn)
{
    return cqn > 0 && cqn < HCA_MAX_CQ && cq_used[cqn];
}

static int qp_valid(uint32_t qpn)
{
    return qpn > 0 && qpn < HCA_MAX_QP && qp_used[qpn];
}

void qp_reset(void)
{
    __builtin_memset(qp_used, 0, sizeof qp_used); /* libc.c: word stores */
    __builtin_memset(cq_used, 0, sizeof cq_used);
    __builtin_memset(cq_users, 0, sizeof cq_users);
    engine = ENGINE_UNKNOWN;
}

/* ---------------------------------------------------------------- CQs */

unsigned cq_create(uint64_t in_addr, uint32_t *cqn)
{
    static const char C[] = "CREATE_CQ";
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    hca_create_cq_in_t in;
    if (fdma_copy(in_addr, &in, sizeof in, 0))
        return HCA_CMD_STATUS_DMA_ERR;
    if (in.log_depth > HCA_QUEUE_LOG_MAX)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "log_depth above QUEUE_LOG_MAX");
    if (in.base == 0 || in.base % CQ_ALIGN)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "base is 0 or not aligned to 32 bytes");
    uint32_t n = 1;
    while (n < HCA_MAX_CQ && cq_used[n])
        n++;
    if (n == HCA_MAX_CQ)
        return refuse(C, HCA_CMD_STATUS_NO_RESOURCES, "every CQ number is in use");
    hca_cq_ctx_t c = {in.base, 0, 0};
    hca_cq_ctx_set_log_depth(&c, in.log_depth);
    hca_cq_ctx_set_cq_valid(&c, 1);
    ctx_stage(&c, CQC_WORDS);
    unsigned st = ctx_status(ctx_run(HCA_CTX_OP_WRITE_CQC, n));
    if (st != HCA_CMD_STATUS_OK)
        return st;
    cq_used[n] = 1;
    cq_users[n] = 0;
    *cqn = n;
    return HCA_CMD_STATUS_OK;
}

unsigned cq_destroy(uint32_t cqn)
{
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    if (!cq_valid(cqn))
        return refuse("DESTROY_CQ", HCA_CMD_STATUS_BAD_INDEX, "no such CQ");
    if (cq_users[cqn])
        return refuse("DESTROY_CQ", HCA_CMD_STATUS_BUSY, "a QP still uses the CQ");
    hca_cq_ctx_t c = {0, 0, 0}; /* cq_valid 0 */
    ctx_stage(&c, CQC_WORDS);
    unsigned st = ctx_status(ctx_run(HCA_CTX_OP_WRITE_CQC, cqn));
    if (st != HCA_CMD_STATUS_OK)
        return st;
    /* The CQ writer drops what it takes from now on; a CQE write it issued
     * before may still be on the bus: the ctx DRAIN waits for it (the CQ
     * writer is a DRAIN source), so the driver may free the ring at once. */
    if (ctx_run(HCA_CTX_OP_DRAIN, HCA_DRAIN_ALL) != HCA_FWP_RESULT_OK)
        return HCA_CMD_STATUS_INTERNAL;
    cq_used[cqn] = 0;
    return HCA_CMD_STATUS_OK;
}

/* ---------------------------------------------------------------- QPs */

unsigned qp_create(uint64_t in_addr, uint32_t *qpn)
{
    static const char C[] = "CREATE_QP";
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    hca_create_qp_in_t in;
    if (fdma_copy(in_addr, &in, sizeof in, 0))
        return HCA_CMD_STATUS_DMA_ERR;
    uint32_t scq = hca_create_qp_in_get_send_cqn(&in), rcq = hca_create_qp_in_get_recv_cqn(&in);
    uint32_t sq_log = hca_create_qp_in_get_sq_log(&in), rq_log = hca_create_qp_in_get_rq_log(&in);
    uint32_t mtu = hca_create_qp_in_get_mtu_log2(&in);
    if (!pd_valid(in.pd))
        return refuse(C, HCA_CMD_STATUS_BAD_INDEX, "pd is not an allocated PD");
    if (!cq_valid(scq))
        return refuse(C, HCA_CMD_STATUS_BAD_INDEX, "send_cqn is not a CQ");
    if (!cq_valid(rcq))
        return refuse(C, HCA_CMD_STATUS_BAD_INDEX, "recv_cqn is not a CQ");
    if (in.sq_base == 0 || in.sq_base % SQ_ALIGN)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "sq_base is 0 or not aligned to 128 bytes");
    if (in.rq_base == 0 || in.rq_base % RQ_ALIGN)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "rq_base is 0 or not aligned to 64 bytes");
    if (sq_log > HCA_QUEUE_LOG_MAX)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "sq_log above QUEUE_LOG_MAX");
    if (rq_log > HCA_QUEUE_LOG_MAX)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "rq_log above QUEUE_LOG_MAX");
    if (mtu == 0)
        mtu = MTU_LOG2_MAX; /* MTU_DEFAULT */
    if (mtu < MTU_LOG2_MIN || mtu > MTU_LOG2_MAX)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "mtu_log2 outside 8..12");
    if (in.logs >> (HCA_CREATE_QP_IN_RNR_RETRY_LSB + HCA_CREATE_QP_IN_RNR_RETRY_WIDTH))
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "logs: reserved bits above rnr_retry set");
    uint32_t n = 1;
    while (n < HCA_MAX_QP && qp_used[n])
        n++;
    if (n == HCA_MAX_QP)
        return refuse(C, HCA_CMD_STATUS_NO_RESOURCES, "every QP number is in use");

    hca_qp_ctx_t *q = &qpc[n];
    *q = (hca_qp_ctx_t){0};
    hca_qp_ctx_set_state(q, HCA_QP_STATE_RESET);
    hca_qp_ctx_set_mtu_log2(q, mtu);
    hca_qp_ctx_set_rnr_retry(q, hca_create_qp_in_get_rnr_retry(&in));
    hca_qp_ctx_set_sq_log(q, sq_log);
    hca_qp_ctx_set_rq_log(q, rq_log);
    q->pd = in.pd;
    q->sq_base = in.sq_base;
    q->rq_base = in.rq_base;
    hca_qp_ctx_set_send_cqn(q, scq);
    hca_qp_ctx_set_recv_cqn(q, rcq);
    q->rnr_timer = in.rnr_timer;
    unsigned st = write_qpc(n);
    if (st != HCA_CMD_STATUS_OK)
        return st;
    qp_used[n] = 1;
    pd_get(in.pd);
    cq_users[scq]++;
    cq_users[rcq]++;
    *qpn = n;
    return HCA_CMD_STATUS_OK;
}

/* Both QPs go to RTS, each the other's remote (a QP may be its own peer).
 * Only QPs in RESET connect (fresh from CREATE_QP, or moved there by
 * MODIFY_QP RESET): a connected QP stays with its peer until reset. */
unsigned qp_connect(uint32_t in_mod)
{
    static const char C[] = "CONNECT_QP";
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    uint32_t a = in_mod & 0xffff, b = in_mod >> 16;
    if (!qp_valid(a))
        return refuse(C, HCA_CMD_STATUS_BAD_INDEX, "qpn (IN_MOD[15:0]) is not a QP");
    if (!qp_valid(b))
        return refuse(C, HCA_CMD_STATUS_BAD_INDEX, "remote qpn (IN_MOD[31:16]) is not a QP");
    if (hca_qp_ctx_get_state(&qpc[a]) != HCA_QP_STATE_RESET || hca_qp_ctx_get_state(&qpc[b]) != HCA_QP_STATE_RESET)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "a QP is already connected");
    hca_qp_ctx_set_state(&qpc[a], HCA_QP_STATE_RTS);
    qpc[a].remote_qpn = b;
    unsigned st = write_qpc(a);
    if (st == HCA_CMD_STATUS_OK && b != a) {
        hca_qp_ctx_set_state(&qpc[b], HCA_QP_STATE_RTS);
        qpc[b].remote_qpn = a;
        st = write_qpc(b);
        if (st != HCA_CMD_STATUS_OK) {
            hca_qp_ctx_set_state(&qpc[b], HCA_QP_STATE_RESET);
            qpc[b].remote_qpn = 0;
        }
    }
    if (st != HCA_CMD_STATUS_OK) { /* back to RESET: neither is left half connected */
        hca_qp_ctx_set_state(&qpc[a], HCA_QP_STATE_RESET);
        qpc[a].remote_qpn = 0;
        write_qpc(a);
    }
    return st;
}

/* Write the shadow (state RESET) to the engine, then fence: the ctx's
 * RESET empties the QP's indices and makes the requester forget what it
 * parked; an engine holding the QP stops at its next step without DMA,
 * packet or completion (docs/engine.md "QP lifecycle"). What it had
 * key-checked before may still be on its way to memory: the ctx DRAIN
 * waits for that, as DESTROY_MKEY's does. */
static unsigned reset_and_fence(uint32_t qpn)
{
    unsigned st = write_qpc(qpn);
    if (st != HCA_CMD_STATUS_OK)
        return st;
#ifndef HCAFW_MUTANT_QP_NO_DRAIN
    if (ctx_run(HCA_CTX_OP_DRAIN, HCA_DRAIN_ALL) != HCA_FWP_RESULT_OK)
        return HCA_CMD_STATUS_INTERNAL;
#endif /* the mutant image that proves a destroy answering before the DRAIN is caught */
    return HCA_CMD_STATUS_OK;
}

/* MODIFY_QP: IN_MOD = qpn | state << 16. RESET (from any state): queues
 * emptied without completions, fenced, CONNECT_QP may follow. ERROR: the
 * engine flushes every outstanding and later WR with WR_FLUSH_ERR (the
 * indices are kept: docs/engine.md). RTS is CONNECT_QP's. */
unsigned qp_modify(uint32_t in_mod)
{
    static const char C[] = "MODIFY_QP";
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    uint32_t qpn = in_mod & 0xffff, state = in_mod >> 16;
    if (!qp_valid(qpn))
        return refuse(C, HCA_CMD_STATUS_BAD_INDEX, "qpn (IN_MOD[15:0]) is not a QP");
    if (state != HCA_QP_STATE_RESET && state != HCA_QP_STATE_ERROR)
        return refuse(C, HCA_CMD_STATUS_BAD_PARAM, "state (IN_MOD[31:16]) is neither RESET nor ERROR");
    hca_qp_ctx_t old = qpc[qpn];
    hca_qp_ctx_set_state(&qpc[qpn], state);
    if (state == HCA_QP_STATE_RESET)
        qpc[qpn].remote_qpn = 0;
    unsigned st = state == HCA_QP_STATE_RESET ? reset_and_fence(qpn) : write_qpc(qpn);
    if (st != HCA_CMD_STATUS_OK)
        qpc[qpn] = old;
    return st;
}

unsigned qp_destroy(uint32_t qpn)
{
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    if (!qp_valid(qpn))
        return refuse("DESTROY_QP", HCA_CMD_STATUS_BAD_INDEX, "no such QP");
    hca_qp_ctx_t old = qpc[qpn];
    qpc[qpn] = (hca_qp_ctx_t){0}; /* RESET, everything cleared */
    unsigned st = reset_and_fence(qpn);
    if (st != HCA_CMD_STATUS_OK) {
        qpc[qpn] = old;
        return st;
    }
    qp_used[qpn] = 0;
    pd_put(old.pd);
    cq_users[hca_qp_ctx_get_send_cqn(&old)]--;
    cq_users[hca_qp_ctx_get_recv_cqn(&old)]--;
    return HCA_CMD_STATUS_OK;
}

void qp_caps(hca_query_device_out_t *q)
{
    if (!engine_present())
        return; /* no WQE engine: no queues */
    q->max_qp = HCA_MAX_QP - 1; /* 0 is never a QP or CQ number */
    q->max_cq = HCA_MAX_CQ - 1;
    q->max_qp_wr = 1u << HCA_QUEUE_LOG_MAX;
    q->max_cqe = 1u << HCA_QUEUE_LOG_MAX;
    q->max_send_sge = HCA_MAX_SEND_SGE;
    q->max_recv_sge = HCA_MAX_RECV_SGE;
}

unsigned cq_query(uint32_t cqn, uint64_t out_addr)
{
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    if (!cq_valid(cqn))
        return refuse("QUERY_CQ", HCA_CMD_STATUS_BAD_INDEX, "no such CQ");
    unsigned st = ctx_status(ctx_run(HCA_CTX_OP_READ_CQC, cqn));
    if (st != HCA_CMD_STATUS_OK)
        return st;
    hca_cq_ctx_t c;
    ctx_fetch(&c, CQC_WORDS);
    return fdma_copy(out_addr, &c, sizeof c, 1) ? HCA_CMD_STATUS_DMA_ERR : HCA_CMD_STATUS_OK;
}

unsigned qp_query(uint32_t qpn, uint64_t out_addr)
{
    if (!engine_present())
        return HCA_CMD_STATUS_BAD_OP;
    if (!qp_valid(qpn))
        return refuse("QUERY_QP", HCA_CMD_STATUS_BAD_INDEX, "no such QP");
    unsigned st = ctx_status(ctx_run(HCA_CTX_OP_READ_QPC, qpn));
    if (st != HCA_CMD_STATUS_OK)
        return st;
    hca_qp_ctx_t q;
    ctx_fetch(&q, QPC_WORDS);
    return fdma_copy(out_addr, &q, sizeof q, 1) ? HCA_CMD_STATUS_DMA_ERR : HCA_CMD_STATUS_OK;
}
