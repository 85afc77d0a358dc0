/* hca_ctx.c — C twin of rtl/hca_ctx.sv: QP and CQ contexts and the
 * engine's queue indices.
 *
 * Tables are arrays indexed by QP/CQ number. The RTL's per-entry loops
 * become direct updates of the few entries a cycle names (doorbell, sq_ci
 * increment, rq_ci increment, ERROR requests, the command's index, the CQ
 * writer's CQ), applied in the RTL's order so the same-cycle priorities hold
 * (WRITE_QPC/WRITE_CQC last, winning). The MAX_QP-bit outputs sq_pending and
 * qp_error are bitmaps kept up to date for the entries an edge touched.
 *
 * Firmware block: DATA0..15 stage a context, CMD runs a command at the edge
 * of the cycle it is written, STATUS {result, busy}; every access is answered
 * one cycle later. DRAIN snapshots drain_busy; each snapshotted client drops
 * out the first cycle it is seen idle; STATUS.busy while any remains.
 *
 * Read ports register the index; the outputs show that entry (live) from the
 * next cycle. Reset: every QP RESET with indices 0, every CQ invalid with
 * indices and overflow 0, the firmware block cleared; the stored contexts
 * are data and survive. No known difference from the RTL. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hca_ctx.h"

/* localparams of rtl/hca_ctx.sv */
#define CTX_QPC_STORE_BYTES 36u                               /* QPC_STORE: qp_ctx words 0..8 */
#define CTX_CQC_STORE_BYTES ((unsigned)sizeof(hca_cq_ctx_t)) /* CQC_STORE */
#define CTX_WORDS HCA_CTX_DATA_COUNT                          /* WORDS */
#define CTX_CFG_VALID (1u << HCA_CQ_CTX_CQ_VALID_LSB)
#define CTX_CFG_OVF (1u << HCA_CQ_CTX_OVERFLOW_LSB)           /* OVF_BIT */

_Static_assert(4 * CTX_WORDS == sizeof(hca_qp_ctx_t), "ctx DATA staging does not match qp_ctx");
_Static_assert(CTX_QPC_STORE_BYTES == offsetof(hca_qp_ctx_t, rsvd0), "qp_ctx words 0..8");

int hca_ctx_init(hca_ctx_t *m, unsigned max_qp, unsigned max_cq, unsigned n_drain)
{
    if (max_qp < 2 || max_qp > HCA_CTX_MAX_QP_LIMIT || (max_qp & (max_qp - 1)) != 0 || max_cq < 2 ||
        max_cq > HCA_CTX_MAX_CQ_LIMIT || (max_cq & (max_cq - 1)) != 0 || n_drain < 1 ||
        n_drain > HCA_CTX_MAX_DRAIN)
        return -EINVAL;
    m->cqc = calloc(max_cq, sizeof(*m->cqc));
    m->cq = calloc(max_cq, sizeof(*m->cq));
    if (!m->cqc || !m->cq) {
        hca_ctx_free(m);
        return -ENOMEM;
    }
    m->max_qp = max_qp;
    m->max_cq = max_cq;
    m->n_drain = n_drain;
    hca_ctx_reset(m);
    return 0;
}

void hca_ctx_free(hca_ctx_t *m)
{
    free(m->cqc);
    free(m->cq);
    m->cqc = NULL;
    m->cq = NULL;
}

void hca_ctx_reset(hca_ctx_t *m)
{
    for (unsigned i = 0; i < m->max_qp; i++)
        m->qp[i] = (hca_ctx_qp_t){.state = HCA_QP_STATE_RESET};
    memset(m->sq_pending, 0, sizeof(m->sq_pending));
    memset(m->qp_error, 0, sizeof(m->qp_error));
    memset(m->cq, 0, (size_t)m->max_cq * sizeof(*m->cq));
    memset(m->stage, 0, sizeof(m->stage));
    m->rvalid = 0;
    m->rdata = 0;
    m->result = HCA_FWP_RESULT_OK;
    m->drain = 0;
    m->ra_idx = m->rb_idx = m->rs_idx = m->cq_idx = 0;
    m->cq_inrange = 0;
}

/* ---------------------------------------------------------------- views */

/** A QP context as the ports and READ_QPC show it: stored words, live state. */
static inline void ctx_qpc_view(const hca_ctx_t *m, uint32_t i, hca_qp_ctx_t *out)
{
    *out = m->qpc[i];
    hca_qp_ctx_set_state(out, m->qp[i].state);
}

/** Recompute QP i's bits of the sq_pending / qp_error vectors. */
static inline void ctx_qp_bits(hca_ctx_t *m, uint32_t i)
{
    const hca_ctx_qp_t *q = &m->qp[i];
    const uint64_t b = (uint64_t)1 << (i & 63);
    uint64_t *p = &m->sq_pending[i >> 6], *e = &m->qp_error[i >> 6];
    *p = q->sq_pi != q->sq_ci && q->state != HCA_QP_STATE_RESET ? *p | b : *p & ~b;
    *e = q->state == HCA_QP_STATE_ERROR ? *e | b : *e & ~b;
}

/* ---------------------------------------------------------------- firmware decode */

typedef struct ctx_cmd {
    uint8_t wr, rd, hit_data, hit_cmd, hit_status;
    uint8_t do_wqpc, do_rqpc, do_wcqc, do_rcqc, do_drain;
    uint8_t qp_ok, cq_ok, op;
    uint32_t addr, idx;
} ctx_cmd_t;

static inline ctx_cmd_t ctx_decode(const hca_ctx_t *m, const hca_ctx_io_t *io)
{
    ctx_cmd_t c;
    c.addr = io->fw_addr & 0xffffu;
    c.wr = io->fw_valid && io->fw_write;
    c.rd = io->fw_valid && !io->fw_write;
    c.hit_data = (c.addr & 3u) == 0 && c.addr < HCA_CTX_DATA + 4 * CTX_WORDS;
    c.hit_cmd = c.addr == HCA_CTX_CMD;
    c.hit_status = c.addr == HCA_CTX_STATUS;
    c.op = (uint8_t)HCA_CTX_CMD_OP_GET(io->fw_wdata);
    c.idx = HCA_CTX_CMD_INDEX_GET(io->fw_wdata);
    c.qp_ok = c.idx != 0 && c.idx < m->max_qp;
    c.cq_ok = c.idx != 0 && c.idx < m->max_cq;
    const int cmd = c.wr && c.hit_cmd;
    c.do_wqpc = cmd && c.op == HCA_CTX_OP_WRITE_QPC && c.qp_ok;
    c.do_rqpc = cmd && c.op == HCA_CTX_OP_READ_QPC && c.qp_ok;
    c.do_wcqc = cmd && c.op == HCA_CTX_OP_WRITE_CQC && c.cq_ok;
    c.do_rcqc = cmd && c.op == HCA_CTX_OP_READ_CQC && c.cq_ok;
    c.do_drain = cmd && c.op == HCA_CTX_OP_DRAIN;
    return c;
}

/** new_reset: the staged state is RESET or RTS (a WRITE_QPC to it resets the indices). */
static inline int ctx_new_reset(const hca_ctx_t *m)
{
    const uint32_t s = m->stage[0] >> HCA_QP_CTX_STATE_LSB & 3u;
    return s == HCA_QP_STATE_RESET || s == HCA_QP_STATE_RTS;
}

/* ---------------------------------------------------------------- comb */

void hca_ctx_comb(const hca_ctx_t *m, hca_ctx_io_t *io, uint64_t now)
{
    (void)now;
    io->db_ready = 1;
    io->fw_rvalid = m->rvalid;
    io->fw_rdata = m->rdata;

    ctx_qpc_view(m, m->ra_idx, &io->ra_qpc);
    io->ra_sq_ci = m->qp[m->ra_idx].sq_ci;
    io->ra_sq_pi = m->qp[m->ra_idx].sq_pi;
    ctx_qpc_view(m, m->rb_idx, &io->rb_qpc);
    io->rb_sq_ci = m->qp[m->rb_idx].sq_ci;
    const uint32_t pe = io->pe_qpn & (m->max_qp - 1u);
    io->pe_pend = (uint8_t)(m->sq_pending[pe >> 6] >> (pe & 63u) & 1u);
    io->pe_err = (uint8_t)(m->qp_error[pe >> 6] >> (pe & 63u) & 1u);

    /* the combinational paths: fw inputs -> qpc_set, qpc_wr, qpc_wr_qpn (=
     * wdata's index, always); db inputs -> sq_db, sq_db_qpn, rq_db_err; pe_qpn -> pe_* */
    const ctx_cmd_t c = ctx_decode(m, io);
    io->qpc_set = c.do_wqpc;
    io->qpc_wr = (uint8_t)(c.do_wqpc && (ctx_new_reset(m) || !m->qp[c.idx].live));
    io->qpc_wr_qpn = c.idx;
    const uint32_t db_num = io->db_data & 0xffffu;
    io->sq_db = (uint8_t)(io->db_valid && (io->db_addr & 0xfu) == HCA_DB_SQ && db_num < m->max_qp &&
                          m->qp[db_num].state != HCA_QP_STATE_RESET);
    io->sq_db_qpn = db_num;
    io->rq_db_err = (uint8_t)(io->db_valid && (io->db_addr & 0xfu) == HCA_DB_RQ && db_num < m->max_qp &&
                              m->qp[db_num].state == HCA_QP_STATE_ERROR);

    const hca_ctx_qp_t *rs = &m->qp[m->rs_idx];
    ctx_qpc_view(m, m->rs_idx, &io->rs_qpc);
    io->rs_state = rs->state;
    io->rs_rq_pi = rs->rq_pi;
    io->rs_rq_ci = rs->rq_ci;

    const hca_ctx_cq_t *cq = &m->cq[m->cq_idx];
    io->cq_cqc = m->cqc[m->cq_idx];
    io->cq_cqc.cfg = (io->cq_cqc.cfg & ~(CTX_CFG_OVF | CTX_CFG_VALID)) | (cq->valid ? CTX_CFG_VALID : 0u);
    io->cq_inrange = m->cq_inrange;
    io->cq_pi = cq->pi;
    io->cq_ci = cq->ci;
}

/* ---------------------------------------------------------------- edge */

/* Read ports: register the indices. */
static inline void ctx_read_ports(hca_ctx_t *m, const hca_ctx_io_t *io)
{
    m->ra_idx = io->ra_qpn & (m->max_qp - 1u);
    m->rb_idx = io->rb_qpn & (m->max_qp - 1u);
    m->rs_idx = io->rs_qpn & (m->max_qp - 1u);
    m->cq_idx = io->cq_cqn & (m->max_cq - 1u);
    m->cq_inrange = (io->cq_cqn & 0xffffu) < m->max_cq;
}

void hca_ctx_edge(hca_ctx_t *m, const hca_ctx_io_t *io, uint64_t now)
{
    (void)now;
    /* No access, doorbell, index increment, ERROR request or CQ update, no
     * answer out (rdata is 0 then) and no DRAIN: only the read ports move. */
    if (!io->fw_valid && !io->db_valid && !io->req_sq_ci_inc && !io->rs_rq_ci_inc && !io->req_err_valid &&
        !io->rs_err_valid && !io->cq_pi_inc && !io->cq_ovf_set && !m->rvalid && !m->drain) {
        ctx_read_ports(m, io);
        return;
    }
    const ctx_cmd_t c = ctx_decode(m, io);
    const uint32_t busy = io->drain_busy & (uint32_t)((1ull << m->n_drain) - 1u);

    /* Firmware block: staging and status (all from the values before this edge). */
    uint32_t rdata = 0;
    if (c.rd && c.hit_data)
        rdata = m->stage[c.addr >> 2 & 15u];
    if (c.rd && c.hit_status)
        rdata = HCA_CTX_STATUS_RESULT_PUT(m->result) | HCA_CTX_STATUS_BUSY_PUT(m->drain != 0);
    m->rdata = rdata;
    m->rvalid = io->fw_valid;
    if (c.wr && c.hit_cmd) {
        switch (c.op) {
        case HCA_CTX_OP_NOP:
        case HCA_CTX_OP_DRAIN: m->result = HCA_FWP_RESULT_OK; break;
        case HCA_CTX_OP_WRITE_QPC:
        case HCA_CTX_OP_READ_QPC: m->result = c.qp_ok ? HCA_FWP_RESULT_OK : HCA_FWP_RESULT_BAD_INDEX; break;
        case HCA_CTX_OP_WRITE_CQC:
        case HCA_CTX_OP_READ_CQC: m->result = c.cq_ok ? HCA_FWP_RESULT_OK : HCA_FWP_RESULT_BAD_INDEX; break;
        default: m->result = HCA_FWP_RESULT_BAD_OP; break;
        }
    }
    /* a waited-for client drops out the first cycle it is seen idle */
    /* an invalidation's DRAIN waits for the key-checked sources, a destroy's (DRAIN_ALL) for all */
    const uint32_t sel = c.idx == HCA_DRAIN_ALL ? ~0u : (uint32_t)HCA_DRAIN_KEYED_MASK;
    m->drain = (m->drain & busy) | (c.do_drain ? busy & sel : 0u);

    /* The stage before this edge: WRITE_QPC/WRITE_CQC take it (never in the
     * same cycle as a stage write: those are other accesses). */
    const uint32_t new_state = m->stage[0] >> HCA_QP_CTX_STATE_LSB & 3u;
    const int new_reset = ctx_new_reset(m);
    const uint8_t new_cq_valid = (uint8_t)(m->stage[offsetof(hca_cq_ctx_t, cfg) / 4] >> HCA_CQ_CTX_CQ_VALID_LSB & 1u);
    if (c.do_wqpc) {
        memset(&m->qpc[c.idx], 0, sizeof(m->qpc[c.idx]));
        memcpy(&m->qpc[c.idx], m->stage, CTX_QPC_STORE_BYTES);
    }
    if (c.do_wcqc)
        memcpy(&m->cqc[c.idx], m->stage, CTX_CQC_STORE_BYTES);

    if (c.do_rqpc) {
        hca_qp_ctx_t v;
        ctx_qpc_view(m, c.idx, &v); /* old state: the QP updates come below */
        memcpy(m->stage, &v, sizeof(v));
    }
    if (c.do_rcqc) {
        hca_cq_ctx_t v = m->cqc[c.idx];
        const hca_ctx_cq_t *q = &m->cq[c.idx];
        v.cfg = (v.cfg & ~(CTX_CFG_OVF | CTX_CFG_VALID)) | (q->valid ? CTX_CFG_VALID : 0u) |
                (q->ovf ? CTX_CFG_OVF : 0u);
        memset(m->stage, 0, sizeof(m->stage));
        memcpy(m->stage, &v, sizeof(v));
    }
    if (c.wr && c.hit_data)
        m->stage[c.addr >> 2 & 15u] = io->fw_wdata;

    /* Doorbells: SQ/RQ of a QP not in RESET, CQ of any CQ in the table. */
    const uint32_t db_addr = io->db_addr & 0xfu;
    const uint32_t db_num = io->db_data & 0xffffu, db_idx = io->db_data >> 16; /* {index, number}, every kind */
    const int db_qp = io->db_valid && db_num < m->max_qp && m->qp[db_num].state != HCA_QP_STATE_RESET;

    /* QP table, in the RTL's order (later wins). */
    uint32_t touched[6];
    unsigned nt = 0;
    if (db_qp && db_addr == HCA_DB_SQ) {
        m->qp[db_num].sq_pi = (uint16_t)db_idx;
        touched[nt++] = db_num;
    }
    if (db_qp && db_addr == HCA_DB_RQ)
        m->qp[db_num].rq_pi = (uint16_t)db_idx;
    const uint32_t inc_qpn = io->req_sq_ci_qpn & 0xffffu;
    if (io->req_sq_ci_inc && inc_qpn < m->max_qp) {
        m->qp[inc_qpn].sq_ci++;
        touched[nt++] = inc_qpn;
    }
    const uint32_t rs_qpn = io->rs_qpn & (m->max_qp - 1u);
    if (io->rs_rq_ci_inc && rs_qpn < m->max_qp)
        m->qp[rs_qpn].rq_ci++;
    const uint32_t err_qpn = io->req_err_qpn & 0xffffu, rs_err_qpn = io->rs_err_qpn & (m->max_qp - 1u);
    if (io->req_err_valid && err_qpn < m->max_qp && m->qp[err_qpn].state == HCA_QP_STATE_RTS) {
        m->qp[err_qpn].state = HCA_QP_STATE_ERROR;
        touched[nt++] = err_qpn;
    }
    if (io->rs_err_valid && rs_err_qpn < m->max_qp && m->qp[rs_err_qpn].state == HCA_QP_STATE_RTS) {
        m->qp[rs_err_qpn].state = HCA_QP_STATE_ERROR;
        touched[nt++] = rs_err_qpn;
    }
    if (c.do_wqpc) {
        hca_ctx_qp_t *q = &m->qp[c.idx];
        q->state = (uint8_t)new_state;
        q->live = 1; /* its first write resets the indices too, whatever state (rtl: !qlive_q) */
        if (new_reset)
            q->sq_pi = q->sq_ci = q->rq_pi = q->rq_ci = 0;
        touched[nt++] = c.idx;
    }
    for (unsigned k = 0; k < nt; k++)
        ctx_qp_bits(m, touched[k]);

    /* CQ table. */
    if (io->db_valid && db_addr == HCA_DB_CQ && db_num < m->max_cq)
        m->cq[db_num].ci = (uint16_t)db_idx;
    if (io->cq_pi_inc && m->cq_inrange)
        m->cq[m->cq_idx].pi++;
    if (io->cq_ovf_set && m->cq_inrange)
        m->cq[m->cq_idx].ovf = 1;
    if (c.do_wcqc)
        m->cq[c.idx] = (hca_ctx_cq_t){.pi = 0, .ci = 0, .ovf = 0, .valid = new_cq_valid};

    ctx_read_ports(m, io);
}

uint64_t hca_ctx_quiet_until(const hca_ctx_t *m, uint64_t now)
{
    /* an answer lasts one cycle; a DRAIN drops its clients as they go idle */
    return m->rvalid || m->drain ? now + 1 : UINT64_MAX;
}
