/* hca_req_resp.c — C model of rtl/hca_req_resp.sv, cycle for cycle: the
 * requester's response engine. A packet (or a DONE kept by the wrapper) is
 * taken in R_IDLE, matched against the QP's park entry in R_CLAIM, a
 * READ_RESP scattered by the mover in R_MOVE, its buffer freed in R_FREE,
 * a READ_INV posted in R_EVT, the WR completed in R_FINISH.
 *
 * Same FSM (R_*), same registers, same cycle for every transition. No
 * known difference from the RTL.
 */
#include "hca_req_resp.h"

#include <errno.h>
#include <string.h>

enum { R_IDLE = HCA_REQ_RESP_R_IDLE, R_CLAIM = HCA_REQ_RESP_R_CLAIM, R_MOVE = HCA_REQ_RESP_R_MOVE,
       R_FREE = HCA_REQ_RESP_R_FREE, R_FINISH = HCA_REQ_RESP_R_FINISH, R_EVT = HCA_REQ_RESP_R_EVT };

/* localparams of rtl/hca_req_resp.sv */
#define RR_DTAG 0x20u /* requester, response engine */
#define RR_XTAG 0x01u
#define RR_OP_DONE 0xfu /* op of a DONE taken in R_IDLE: no packet op (pkt_op is 0..7) */

#define RR_PD_MASK ((1u << HCA_PD_BITS) - 1u)
#define RR_POST_MAX 8u /* posted DMAs per chunk: tags {0011, slot, seq mod 8} */

/* The state machine's always_comb: next-state values and the outputs it drives. */
typedef struct rr_next {
    uint8_t state, claimed, status, err;
    uint8_t rx_ready, claim, rel_valid, rel_kind, mv_start, nak_save, done_take;
    uint8_t moved, slot, pf, pfslot, pf_buf;
    uint16_t pf_qpn;
    int rerr_set, rerr_clr; /* a QP whose rerr bit is set / cleared (set first), or -1 */
} rr_next_t;

/* Posted scatters: a tag is free on the slot; every DMA answered; the posted
 * free may go out; the FSM frees an unscattered READ_RESP's buffer. */
/** An RNR_NAK now would be one too many (rnr_retry 7: retry forever). */
static inline int rr_rnr_out(const hca_req_resp_io_t *io)
{
    const unsigned rnr_retry = hca_qp_ctx_get_rnr_retry(&io->qpc);
    return rnr_retry != 7u && (io->rnr_cnt & 7u) >= rnr_retry;
}
static inline int rr_room(const hca_req_resp_t *m) { return (m->slot ? m->cnt1 : m->cnt0) < RR_POST_MAX; }
static inline int rr_cnt_idle(const hca_req_resp_t *m) { return m->cnt0 == 0 && m->cnt1 == 0; }
static inline int rr_quiet(const hca_req_resp_t *m) { return rr_cnt_idle(m) && !m->pf; }
static inline int rr_pf_rdy(const hca_req_resp_t *m) { return m->pf && (m->pfslot ? m->cnt1 : m->cnt0) == 0; }
static inline int rr_fsm_free(const hca_req_resp_t *m) { return m->state == HCA_REQ_RESP_R_FREE && m->len != 0 && !m->moved; }
static inline int rr_rerr(const hca_req_resp_t *m, unsigned q) { return (int)(m->rerr[q >> 6] >> (q & 63u) & 1u); }

/* qpn_q < 16'(1 << QW) */
static inline int rr_in_range(const hca_req_resp_t *m)
{
    return m->qpn < ((1u << m->qw) & 0xffffu);
}

/* The QP served was written to RESET by the firmware (rtl/hca_req_resp.sv:
 * no packet or DONE taken, released idle without event or completion). */
static inline int rr_ctx_reset(const hca_req_resp_io_t *io)
{
    return hca_qp_ctx_get_state(&io->qpc) == HCA_QP_STATE_RESET;
}

static void rr_step(const hca_req_resp_t *m, const hca_req_resp_io_t *io, rr_next_t *d)
{
    const int reset = rr_ctx_reset(io);
    /* u_mover's done_o / status_o: registers */
    const uint8_t mv_done = m->mv.state == HCA_SGE_MOVER_M_DONE;
    const uint8_t mv_status = m->mv.st;
    d->state = m->state;
    d->claimed = m->claimed;
    d->status = m->status;
    d->err = m->err;
    d->rx_ready = 0;
    d->claim = 0;
    d->rel_valid = 0;
    d->rel_kind = HCA_REQ_RESP_REL_IDLE;
    d->mv_start = 0;
    d->nak_save = 0;
    d->done_take = 0;
    const int pf_go = rr_pf_rdy(m) && !rr_fsm_free(m) && io->free_ready;
    const unsigned qmask = (1u << m->qw) - 1u;
    d->moved = m->moved;
    d->slot = m->slot;
    d->pf = m->pf && !pf_go;
    d->pfslot = m->pfslot;
    d->pf_qpn = m->pf_qpn;
    d->pf_buf = m->pf_buf;
    d->rerr_set = (pf_go && (m->pfslot ? m->berr1 : m->berr0)) ? (int)m->pf_qpn : -1;
    d->rerr_clr = -1;

    const int pk_read = io->park.wc_op == HCA_WC_OPCODE_RDMA_READ;
    switch (m->state) {
    case R_IDLE:
        d->rx_ready = !io->done_valid;
        d->done_take = io->done_valid;
        d->claimed = 0;
        d->moved = 0;
        d->err = 0;
        d->status = HCA_WC_STATUS_SUCCESS;
        if (io->rx_valid || io->done_valid)
            d->state = R_CLAIM;
        break;
    case R_CLAIM: {
        const int in_range = rr_in_range(m);
        const int match = in_range && io->look_inflight && !reset &&
                          (m->op == RR_OP_DONE ? io->look_evt_wait
                                               : !io->look_evt_wait && io->park.psn == m->psn);
        d->state = R_IDLE;
        if (!match) {
            if (m->op == HCA_PKT_OP_READ_RESP)
                d->state = R_FREE;
            /* The responder NAKed (or RNR-NAKed) the message before its last
             * packet left: the send engine owns the QP and stops it. */
            if ((m->op == HCA_PKT_OP_NAK || m->op == HCA_PKT_OP_RNR_NAK) && in_range && io->look_active &&
                m->psn == io->sq_ci)
                d->nak_save = 1;
            break;
        }
        d->claim = 1;
        d->claimed = 1;
        switch (m->op) {
        case RR_OP_DONE:
            d->status = m->syn;
            d->err = m->syn != HCA_WC_STATUS_SUCCESS;
            d->state = R_FINISH;
            break;
        case HCA_PKT_OP_ACK:
            if (pk_read) {
                d->rel_valid = 1;
                d->rel_kind = HCA_REQ_RESP_REL_INFLIGHT;
            } else {
                d->state = R_FINISH;
            }
            break;
        case HCA_PKT_OP_NAK:
            d->status = m->syn;
            d->err = 1;
            d->state = R_FINISH;
            break;
        case HCA_PKT_OP_RNR_NAK: {
            if (rr_rnr_out(io)) {
                d->status = HCA_WC_STATUS_RNR_RETRY_EXC_ERR;
                d->err = 1;
                d->state = R_FINISH;
            } else {
                d->rel_valid = 1;
                d->rel_kind = HCA_REQ_RESP_REL_RNR;
            }
            break;
        }
        case HCA_PKT_OP_READ_RESP:
            if (pk_read) {
                d->mv_start = 1;
                d->moved = 1;
                d->state = R_MOVE;
                if (m->off == 0)
                    d->rerr_clr = (int)(m->qpn & qmask); /* a new message */
            } else {
                /* Not a READ: drop it, the message stays in flight. */
                d->err = 0;
                d->state = R_FREE;
            }
            break;
        default:
            d->rel_valid = 1;
            d->rel_kind = HCA_REQ_RESP_REL_INFLIGHT;
            break;
        }
        break;
    }
    case R_MOVE:
        if (mv_done) {
            if (mv_status != HCA_SGE_MOVER_ST_OK) {
                d->status = mv_status == HCA_SGE_MOVER_ST_PROT ? HCA_WC_STATUS_LOC_PROT_ERR
                                                               : HCA_WC_STATUS_LOC_ACCESS_ERR;
                d->err = 1;
            }
            d->state = R_FREE;
        }
        break;
    case R_FREE:
        if (m->moved && m->len != 0 && !m->pf) {
            /* the buffer is freed once the chunk's DMAs are answered */
            d->pf = 1;
            d->pf_buf = m->pbuf;
            d->pf_qpn = (uint16_t)(m->qpn & qmask);
            d->pfslot = m->slot;
            d->slot = !m->slot;
        }
        if (m->moved ? (m->len == 0 || !m->pf) : (io->free_ready || m->len == 0)) {
            d->state = R_IDLE;
            if (m->claimed) {
                if (reset) {
                    d->rel_valid = 1;
                    d->rel_kind = HCA_REQ_RESP_REL_IDLE;
                    d->rerr_clr = (int)(m->qpn & qmask);
                } else if (m->err) {
                    d->state = R_FINISH;
                } else if (m->last && pk_read && m->op == HCA_PKT_OP_READ_RESP) {
                    d->state = io->park.read_inv ? R_EVT : R_FINISH;
                } else {
                    d->rel_valid = 1;
                    d->rel_kind = HCA_REQ_RESP_REL_INFLIGHT;
                }
            }
        }
        break;
    case R_FINISH:
        if ((io->fin_ready && rr_quiet(m)) || reset) {
            d->rel_valid = 1;
            d->rel_kind = HCA_REQ_RESP_REL_IDLE;
            d->state = R_IDLE;
            d->rerr_clr = (int)(m->qpn & qmask); /* the message ended */
        }
        break;
    case R_EVT:
        if (reset) {
            d->rel_valid = 1;
            d->rel_kind = HCA_REQ_RESP_REL_IDLE;
            d->state = R_IDLE;
            d->rerr_clr = (int)(m->qpn & qmask);
        } else if (io->evt_ready && rr_quiet(m)) {
            d->rel_valid = 1;
            d->rel_kind = HCA_REQ_RESP_REL_EVT;
            d->state = R_IDLE;
        }
        break;
    default:
        d->state = R_IDLE;
        break;
    }
}

/* u_mover's ports from this engine's registers and inputs (start_i: mv_start). */
static void rr_mover_io(const hca_req_resp_t *m, const hca_req_resp_io_t *io, uint8_t start,
                        hca_sge_mover_io_t *mio)
{
    mio->start = start;
    mio->check_only = 0;
    mio->to_host = 1;
    mio->rights = HCA_ACCESS_LOCAL_WRITE;
    mio->pd = io->qpc.pd & RR_PD_MASK;
    mio->qpn = m->qpn;
    mio->off = m->off;
    mio->len = m->len;
    mio->buf = m->pbuf;
    mio->num_sge = io->park.num_sge & 7u;
    memcpy(mio->sge, io->park.sge, sizeof(mio->sge));
    mio->xq_ready = io->xq_ready;
    mio->xs_valid = io->xs_valid;
    mio->xs_status = io->xs_status;
    mio->xs_last = io->xs_last;
    mio->xs_len = io->xs_len;
    mio->xs_pa = io->xs_pa;
    mio->dma_req_ready = io->dma_req_ready && rr_room(m);
    mio->dma_rsp_valid = 0; /* posted: the answers are this engine's */
    mio->dma_rsp_err = 0;
}

/* qpn_o: the packet's (or DONE's) QP in R_IDLE, else the one taken. */
static inline uint16_t rr_qpn_o(const hca_req_resp_t *m, const hca_req_resp_io_t *io)
{
    if (m->state != R_IDLE)
        return m->qpn;
    return io->done_valid ? io->done_qpn : (uint16_t)hca_pkt_get_dst_qpn(&io->rx);
}

int hca_req_resp_init(hca_req_resp_t *m, unsigned qw)
{
    if (qw < 1 || qw > 16)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    m->qw = (uint8_t)qw;
    hca_sge_mover_init(&m->mv, RR_XTAG, RR_DTAG, 1);
    hca_req_resp_reset(m);
    return 0;
}

void hca_req_resp_reset(hca_req_resp_t *m)
{
    /* The async-reset registers only; the packet fields keep their values. */
    m->state = R_IDLE;
    m->claimed = 0;
    m->status = 0;
    m->err = 0;
    m->qpn = 0;
    m->moved = 0;
    m->slot = 0;
    m->cnt0 = m->cnt1 = 0;
    m->seq0 = m->seq1 = 0;
    m->berr0 = m->berr1 = 0;
    m->pf = m->pfslot = 0;
    m->pf_qpn = 0;
    memset(m->rerr, 0, sizeof(m->rerr));
    hca_sge_mover_reset(&m->mv);
}

void hca_req_resp_comb(const hca_req_resp_t *m, hca_req_resp_io_t *io, uint64_t now)
{
    rr_next_t d;
    rr_step(m, io, &d);
    /* No output of the mover depends on start_i: one pass. */
    hca_sge_mover_io_t mio;
    rr_mover_io(m, io, d.mv_start, &mio);
    hca_sge_mover_comb(&m->mv, &mio, now);
    io->rx_ready = d.rx_ready;
    io->claim = d.claim;
    io->rel_valid = d.rel_valid;
    io->rel_kind = d.rel_kind;
    io->nak_save = d.nak_save;
    io->done_take = d.done_take;

    io->look_qpn = (uint16_t)(m->qpn & ((1u << m->qw) - 1u));
    io->qpn = rr_qpn_o(m, io);
    io->rnr_timer = io->qpc.rnr_timer;
    /* an RNR_NAK kept for the send engine: retried, or RNR_RETRY_EXC_ERR */
    io->nak_rnr = m->op == HCA_PKT_OP_RNR_NAK && !rr_rnr_out(io);
    io->nak_syn = m->op == HCA_PKT_OP_RNR_NAK ? HCA_WC_STATUS_RNR_RETRY_EXC_ERR : m->syn;
    /* the FSM's free (an unscattered READ_RESP) first, else the posted one */
    const int fsm_free = rr_fsm_free(m);
    io->free_valid = fsm_free || rr_pf_rdy(m);
    io->free_id = fsm_free ? m->pbuf : m->pf_buf;

    const uint32_t pd = io->qpc.pd & RR_PD_MASK;
    memset(&io->evt, 0, sizeof(io->evt));
    io->evt.hdr = (uint32_t)HCA_EVT_KIND_READ_INV << HCA_FW_EVENT_KIND_LSB |
                  (uint32_t)(m->qpn & ((1u << HCA_FW_EVENT_TAG_WIDTH) - 1u)) << HCA_FW_EVENT_TAG_LSB | (uint32_t)m->qpn << HCA_FW_EVENT_QPN_LSB;
    io->evt.pd = pd;
    io->evt.key = io->park.inv_key;
    io->evt_valid = m->state == R_EVT && !rr_ctx_reset(io) && rr_quiet(m);

    hca_req_send_fin_t *f = &io->fin;
    memset(&f->cqe, 0, sizeof(f->cqe));
    f->cqe.wr_id = io->park.wr_id;
    f->cqe.byte_len = io->park.msg_len;
    f->cqe.qpn = m->qpn;
    /* a posted scatter of the message answered err: LOC_ACCESS_ERR (unless it failed otherwise first) */
    const int rerr_qp = rr_rerr(m, m->qpn & ((1u << m->qw) - 1u));
    const int fin_err = m->err || rerr_qp;
    const unsigned fin_status = (rerr_qp && !m->err) ? HCA_WC_STATUS_LOC_ACCESS_ERR : m->status;
    f->cqe.info = (uint32_t)(fin_status & 0x1fu) << HCA_CQE_STATUS_LSB |
                  (uint32_t)(io->park.wc_op & 0xfu) << HCA_CQE_OPCODE_LSB;
    f->cqe.wqe_counter = io->sq_ci;
    f->qpn = m->qpn;
    f->cqn = (uint16_t)hca_qp_ctx_get_send_cqn(&io->qpc);
    f->write = (uint8_t)((io->park.signaled & 1u) || fin_err);
    f->err = (uint8_t)fin_err;
    io->fin_valid = m->state == R_FINISH && !rr_ctx_reset(io) && rr_quiet(m);

    io->xq_valid = mio.xq_valid;
    io->xq = mio.xq;
    io->xs_ready = mio.xs_ready;
    /* posted scatters carry tag {0011, slot, seq} */
    io->dma_req_valid = mio.dma_req_valid && rr_room(m);
    io->dma_req = mio.dma_req;
    hca_dma_req_set_tag(&io->dma_req, 0x30u | (unsigned)m->slot << 3 | (m->slot ? m->seq1 : m->seq0));
    io->dma_rsp_ready = 1;
    /* busy from the first key check until every posted DMA was answered */
    io->mv_busy = (uint8_t)((m->cnt1 != 0) << 2 | (m->cnt0 != 0) << 1 | (mio.busy != 0));
}

void hca_req_resp_edge(hca_req_resp_t *m, const hca_req_resp_io_t *io, uint64_t now)
{
    if (m->state == R_IDLE && !io->rx_valid && !io->done_valid && rr_cnt_idle(m) && !m->pf && !io->dma_rsp_valid) {
        /* idle: R_IDLE's defaults; the mover is idle too */
        m->claimed = 0;
        m->moved = 0;
        m->err = 0;
        m->status = HCA_WC_STATUS_SUCCESS;
        return;
    }

    rr_next_t d;
    rr_step(m, io, &d);
    hca_sge_mover_io_t mio;
    rr_mover_io(m, io, d.mv_start, &mio);

    /* posted scatters: requests accepted, answers by the slot bit of their tag */
    const int post = m->mv.state == HCA_SGE_MOVER_M_DMA && mio.dma_req_ready;
    const int aslot = (int)(hca_dma_rsp_get_rtag(&io->dma_rsp) >> 3 & 1u);
    const int ans0 = io->dma_rsp_valid && !aslot, ans1 = io->dma_rsp_valid && aslot;
    const int rsp_err = (int)hca_dma_rsp_get_err(&io->dma_rsp);
    m->cnt0 = (uint8_t)((m->cnt0 + (post && !m->slot) - ans0) & 0xfu);
    m->cnt1 = (uint8_t)((m->cnt1 + (post && m->slot) - ans1) & 0xfu);
    m->seq0 = (uint8_t)((m->seq0 + (post && !m->slot)) & 7u);
    m->seq1 = (uint8_t)((m->seq1 + (post && m->slot)) & 7u);
    /* a scatter starting on a slot clears its error (the slot is idle then) */
    m->berr0 = (d.mv_start && !m->slot) ? 0 : (uint8_t)(m->berr0 || (ans0 && rsp_err));
    m->berr1 = (d.mv_start && m->slot) ? 0 : (uint8_t)(m->berr1 || (ans1 && rsp_err));
    if (d.rerr_set >= 0)
        m->rerr[(unsigned)d.rerr_set >> 6] |= 1ull << ((unsigned)d.rerr_set & 63u);
    if (d.rerr_clr >= 0)
        m->rerr[(unsigned)d.rerr_clr >> 6] &= ~(1ull << ((unsigned)d.rerr_clr & 63u));
    m->moved = d.moved;
    m->slot = d.slot;
    m->pf = d.pf;
    m->pfslot = d.pfslot;
    m->pf_qpn = d.pf_qpn;
    m->pf_buf = d.pf_buf;

    if (m->state == R_IDLE && (io->rx_valid || io->done_valid)) {
        m->qpn = rr_qpn_o(m, io);
        if (io->done_valid) {
            m->op = RR_OP_DONE;
            m->syn = io->done_status & 0x1fu;
        } else {
            m->op = (uint8_t)hca_pkt_get_op(&io->rx);
            m->last = (uint8_t)hca_pkt_get_last(&io->rx);
            m->syn = (uint8_t)(hca_pkt_get_syndrome(&io->rx) & 0x1fu);
            m->pbuf = (uint8_t)hca_pkt_get_pbuf(&io->rx);
            m->psn = (uint16_t)io->rx.psn;
            m->len = io->rx.len;
            m->off = io->rx.offset;
        }
    }
    m->state = d.state;
    m->claimed = d.claimed;
    m->status = d.status;
    m->err = d.err;
    hca_sge_mover_edge(&m->mv, &mio, now);
}

uint64_t hca_req_resp_quiet_until(const hca_req_resp_t *m, uint64_t now)
{
    switch (m->state) {
    case R_IDLE: /* waits for rx_valid / done_valid (the mover is idle) once
                  * R_IDLE's defaults are in: status shows in fin; posted
                  * answers come as dma_rsp_valid, the posted free goes once
                  * its slot's are in (rr_pf_rdy) */
        return m->claimed || m->err || m->moved || rr_pf_rdy(m) || m->status != HCA_WC_STATUS_SUCCESS ? now + 1
                                                                                                       : UINT64_MAX;
    case R_MOVE:
        /* posted scatters' answers come as dma_rsp_valid, as in R_IDLE; the
         * posted free goes once its slot's answers are in (rr_pf_rdy) */
        if (rr_pf_rdy(m))
            return now + 1;
        return hca_sge_mover_quiet_until(&m->mv, now);
    case R_FREE:
        /* a moved chunk's buffer waits for the posted free before (its
         * answers: dma_rsp_valid) to take its place */
        if (m->moved && m->len != 0 && m->pf && !rr_pf_rdy(m))
            return hca_sge_mover_quiet_until(&m->mv, now);
        return now + 1;
    case R_FINISH:
    case R_EVT:
        /* fin / the event is offered once the posted answers are in
         * (rr_quiet): until then only dma_rsp_valid moves it, or the posted
         * free once its slot's are in; a RESET of the QP comes by a
         * firmware write, whose answer steps the next cycle */
        if (rr_quiet(m) || rr_pf_rdy(m))
            return now + 1;
        return hca_sge_mover_quiet_until(&m->mv, now);
    default:
        return now + 1;
    }
}

const char *hca_req_resp_state_name(unsigned s)
{
    static const char *const name[] = {"R_IDLE", "R_CLAIM", "R_MOVE", "R_FREE", "R_FINISH", "R_EVT"};
    _Static_assert(sizeof name / sizeof name[0] == R_EVT + 1, "a name per state");
    return s <= R_EVT ? name[s] : "?";
}
