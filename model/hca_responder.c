/* hca_responder.c — C model of rtl/hca_responder.sv (see hca_responder.h),
 * cycle for cycle at its ports; the placement engine u_place is the model
 * of rtl/hca_resp_place.sv, a member of the state.
 *
 * One packet at a time, start to finish, and one flush step between two
 * packets when a QP is queued for it (u_flush_q: fq); the state machine, its endings (`fin` with the actions a_*)
 * and every register are the RTL's, under the RTL's names. edge() computes
 * every *_d from the *_q values as the RTL's always_comb does, then commits.
 * Every output is a function of the registers, so the outputs (and the
 * placement engine's job) are derived after each edge and reset (each part
 * only when a register it depends on changed) and comb() only copies them; edge() reads only inputs of io.
 *
 * Known differences from the RTL: none.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "hca_responder.h"

/* state_e of rtl/hca_responder.sv */
enum {
    S_IDLE,       /* take a packet, or one flush-scan step */
    S_PKT_CTX0,   /* context read of dst_qpn in flight */
    S_PKT_CTX1,   /* context sampled: dispatch on the opcode */
    S_FETCH_REQ,  /* RQ WQE READ_DATA */
    S_FETCH_RSP,
    S_SEND_PLAN,  /* WQE and length checks, SGE pieces */
    S_GO,         /* start the placement engine */
    S_PLACE,      /* placement engine busy */
    S_RESULT,     /* act on its outcome */
    S_RD_ALLOC,   /* READ: buffer for the next chunk */
    S_SCAN_CTX0,  /* flush step: context read of the flush queue's head in flight */
    S_SCAN_CTX1,
    S_FL_REQ,     /* flush: RQ WQE READ_DATA for its wr_id */
    S_FL_RSP,
    S_EVT,        /* SEND_INV placed: post its REMOTE_INV event */
    S_EVT_WAIT,   /* wait for the event's DONE */
    S_FINISH,     /* hand over response, CQE, free; pulse rq_ci_inc, qp_err */
    S_RD_DROP,    /* READ: the pending chunk's gather failed: drop its READ_RESP, free its buffer */
    S_RD_NAK      /* ... every posted DMA answered: NAK, free the current chunk's buffer */
};

/* localparams of rtl/hca_responder.sv */
#define PIECES HCA_MAX_RECV_SGE
#define BUF_SIZE HCA_PKT_BUF_SIZE
#define FETCH_TAG 0x3fu               /* local DMA tag of a WQE fetch; placement uses 0..7 */
#define WQE_BYTES 64u
#define RS_DMA_CLIENT 0x40u           /* tag bits {01}: the responder's DMA client */
#define RS_PLACE_SEGS 8u              /* u_place's SEGS */
#define RS_PD_MASK ((1u << HCA_PD_BITS) - 1u)

_Static_assert(PIECES <= HCA_RESP_PLACE_MAX_PIECES, "u_place takes at most 3 pieces");
_Static_assert(sizeof(hca_rq_wqe_t) <= sizeof(((hca_dma_rsp_t *)0)->rdata), "a WQE fits dma_rsp.rdata");

/* ---------------------------------------------------------------- builders */

/** resp_pkt: an ACK / NAK / RNR_NAK to the requester (its QP is the packet's source). */
static void rs_resp_pkt(const hca_responder_t *m, hca_pkt_t *r, unsigned op, unsigned syndrome)
{
    memset(r, 0, sizeof *r);
    r->hdr = (op & 15u) << HCA_PKT_OP_LSB | (syndrome & 31u) << HCA_PKT_SYNDROME_LSB;
    r->qpns = (uint32_t)m->p_sqpn << HCA_PKT_DST_QPN_LSB | (uint32_t)m->p_dqpn << HCA_PKT_SRC_QPN_LSB;
    r->psn = m->p_psn;
}

/* READ chunk: rd_rem, rd_chunk, rd_end */
static inline uint32_t rs_rd_rem(const hca_responder_t *m) { return m->p_msglen - m->rd_off; }
static inline uint32_t rs_rd_chunk(const hca_responder_t *m)
{
    const uint32_t rem = rs_rd_rem(m);
    return rem < m->c_mtu ? rem : m->c_mtu;
}

/** read_resp: the READ_RESP of the current chunk (one empty one for a zero-length READ). */
static void rs_read_resp(const hca_responder_t *m, hca_pkt_t *r)
{
    const uint32_t chunk = rs_rd_chunk(m);
    uint32_t first = m->rd_off == 0, last = chunk == rs_rd_rem(m), pbuf = m->rd_buf;
    rs_resp_pkt(m, r, HCA_PKT_OP_READ_RESP, HCA_WC_STATUS_SUCCESS);
    r->len = chunk;
    if (m->p_msglen == 0) { /* no buffer: pbuf 0, len 0 */
        first = last = 1;
        r->len = 0;
        pbuf = 0;
    }
    r->hdr |= first << HCA_PKT_FIRST_LSB | last << HCA_PKT_LAST_LSB | pbuf << HCA_PKT_PBUF_LSB;
    r->offset = m->rd_off;
    r->msg_len = m->p_msglen;
    r->raddr = m->p_raddr + m->rd_off;
}

/** recv_cqe: a recv CQE of the QP served, for the WQE at c_rqci (inv: WITH_INVALIDATE). */
static void rs_recv_cqe(const hca_responder_t *m, hca_cqe_t *c, uint64_t wr_id, unsigned status, uint32_t byte_len,
                        int inv)
{
    memset(c, 0, sizeof *c);
    c->wr_id = wr_id;
    c->byte_len = byte_len;
    c->qpn = m->qpn;
    c->info = (status & 31u) << HCA_CQE_STATUS_LSB | (uint32_t)HCA_WC_OPCODE_RECV << HCA_CQE_OPCODE_LSB;
    c->wqe_counter = m->c_rqci;
    if (inv) {
        c->info |= (uint32_t)HCA_WC_FLAGS_WITH_INVALIDATE << HCA_CQE_WC_FLAGS_LSB;
        c->invalidate_rkey = m->p_invkey;
    }
}

static inline int rs_p_send(const hca_responder_t *m)
{
    return m->p_op == HCA_PKT_OP_SEND || m->p_op == HCA_PKT_OP_SEND_INV;
}

/** pkt_has_buf: the packet holds a payload buffer this side frees. */
static inline int rs_pkt_has_buf(const hca_responder_t *m)
{
    return rs_p_send(m) || m->p_op == HCA_PKT_OP_WRITE || (m->p_op == HCA_PKT_OP_READ_RESP && m->p_len != 0);
}

/** The packet [offset, offset + len) against the WQE's SGEs laid end to end:
 *  one piece per SGE it touches (sp_va/sp_len/sp_key); returns sg_total. 34-bit
 *  sums fit a uint64_t. */
static uint64_t rs_plan(const hca_responder_t *m, uint64_t *va, uint32_t *len, uint32_t *key)
{
    const unsigned num_sge = hca_rq_wqe_get_num_sge(&m->wqe);
    const uint64_t pkt_lo = m->p_off, pkt_hi = pkt_lo + m->p_len;
    uint64_t total = 0;
    for (unsigned i = 0; i < PIECES; i++) {
        const hca_sge_t *s = &m->wqe.sge[i];
        const uint64_t sg_len = i < num_sge ? s->length : 0;
        const uint64_t sg_end = total + sg_len;
        const uint64_t lo = pkt_lo > total ? pkt_lo : total;
        const uint64_t hi = pkt_hi < sg_end ? pkt_hi : sg_end;
        va[i] = 0;
        len[i] = 0;
        if (hi > lo) {
            len[i] = (uint32_t)(hi - lo);
            va[i] = s->addr + (lo - total); /* skip: bytes of this SGE before the piece */
        }
        key[i] = s->lkey;
        total = sg_end;
    }
    return total;
}

/** The placement engine's job: a function of registers that hold still while
 *  PLACE runs (p_*, wqe, whole, rd_off, rd_buf, c_pd, c_mtu). */
static void rs_job(hca_responder_t *m)
{
    hca_resp_place_io_t *p = &m->pio;
    p->check_only = 0;
    p->post = 0;
    p->dma_op = HCA_DMA_OP_BUF_TO_HOST;
    p->buf = m->p_pbuf;
    p->pd = m->c_pd;
    p->rights = HCA_ACCESS_REMOTE_WRITE;
    p->remote = 1;
    if (rs_p_send(m)) {
        p->rights = HCA_ACCESS_LOCAL_WRITE;
        p->remote = 0;
        (void)rs_plan(m, p->va, p->len, p->key);
        return;
    }
    memset(p->va, 0, sizeof p->va);
    memset(p->len, 0, sizeof p->len);
    memset(p->key, 0, sizeof p->key);
    p->key[0] = m->p_rkey;
    if (m->p_op == HCA_PKT_OP_WRITE) {
        p->check_only = m->whole;
        p->post = !m->whole && !m->p_last; /* a middle packet: posted */
        p->va[0] = m->p_raddr;
        p->len[0] = m->whole ? m->p_msglen : m->p_len;
    } else {
        p->check_only = m->whole;
        p->post = !m->whole; /* a READ chunk's gathers are posted */
        p->dma_op = HCA_DMA_OP_HOST_TO_BUF;
        p->buf = m->rd_buf;
        p->rights = HCA_ACCESS_REMOTE_READ;
        p->va[0] = m->p_raddr + m->rd_off;
        p->len[0] = m->whole ? m->p_msglen : rs_rd_chunk(m);
    }
}

/* What changed on an edge, for rs_outputs. */
enum {
    RS_CH_JOB = 1u,   /* an input of rs_job */
    RS_CH_ENG = 2u,   /* the placement engine's state (it stepped) */
    RS_CH_EVT = 4u,   /* qpn, c_pd or p_invkey */
    RS_CH_DMA = 8u,   /* the DMA port's source (fetch / engine) */
    RS_CH_ALL = 15u
};

/* The tx register's READ_RESP of a posted chunk waits for its answers; one
 * answered err is dropped (S_RD_DROP) instead of sent. */
static inline int rs_tx_wait(const hca_responder_t *m)
{
    return m->txp && (m->txslot ? m->rcnt1 : m->rcnt0) != 0;
}
static inline int rs_tx_bad(const hca_responder_t *m)
{
    return m->tx_pend && m->txp && !rs_tx_wait(m) && (m->txslot ? m->rberr1 : m->rberr0);
}

/* A posted job starts only on a free slot (its counter idle, no held
 * READ_RESP or posted free waiting for it). */
static inline int rs_go_wait(const hca_responder_t *m)
{
    const unsigned s = m->rslot;
    return m->pio.post && ((s ? m->rcnt1 : m->rcnt0) != 0 || (m->pf && m->pfslot == s) ||
                           (m->tx_pend && m->txp && m->txslot == s));
}
/* The posted free goes out once its packet's DMAs are answered. */
static inline int rs_pf_rdy(const hca_responder_t *m)
{
    return m->pf && (m->pfslot ? m->rcnt1 : m->rcnt0) == 0;
}
/* ... and is the one offered: an offer not taken stays (fsel). */
static inline int rs_pf_sel(const hca_responder_t *m)
{
    return rs_pf_rdy(m) && (m->fsel || !m->free_pend);
}

/** Everything shown this cycle, from the registers: the placement engine's
 *  job and outputs (m->pio), then the responder's outputs (m->o; tx, cpl,
 *  cpl_cqn are registers kept there). Parts whose sources did
 *  not change (ch) keep their values. */
static void rs_outputs(hca_responder_t *m, unsigned ch, uint64_t now)
{
    hca_resp_place_io_t *p = &m->pio;
    hca_responder_io_t *o = &m->o;

    if (ch & RS_CH_JOB)
        rs_job(m);
    if (ch & (RS_CH_JOB | RS_CH_ENG)) {
        hca_resp_place_comb(&m->place, p, now);
        o->xq_valid = p->xq_valid;
        o->xq = p->xq;
    }
    /* posted READ gathers count until answered */
    o->place_busy = (uint8_t)((m->rcnt1 != 0) << 2 | (m->rcnt0 != 0) << 1 | (p->busy != 0));
    /* ...and an RQ WQE read, from its offer to its answer (HCA_MUTANT_DRAIN_NO_WQE_READ: not) */
#ifndef HCA_MUTANT_DRAIN_NO_WQE_READ
    o->place_busy |= m->state == S_FETCH_REQ || m->state == S_FETCH_RSP || m->state == S_FL_REQ ||
                     m->state == S_FL_RSP;
#endif

    o->rx_ready = m->state == S_IDLE && !(m->scan_pref && hca_qfifo_valid(&m->fq));
    o->tx_valid = m->tx_pend && !rs_tx_wait(m) && !rs_tx_bad(m);
    o->qpc_idx = m->qpn;
    o->rq_ci_inc = m->inc_pend;
    o->qp_err_valid = m->err_pend;
    o->qp_err_qpn = m->qpn;
    o->xs_ready = p->xs_ready; /* 0 while a streamed segment waits for its DMA (hca_resp_place) */
    o->dma_rsp_ready = 1;
    o->pb_alloc_ready = m->state == S_RD_ALLOC;
    o->pb_free_valid = m->free_pend || rs_pf_rdy(m);
    o->pb_free_id = rs_pf_sel(m) ? m->pf_buf : m->free_id;
    o->cpl_valid = m->cpl_pend;

    /* DMA port: the WQE fetch, else the placement engine */
    const int fetch_valid = m->state == S_FETCH_REQ || m->state == S_FL_REQ;
    o->dma_req_valid = fetch_valid || p->dma_req_valid;
    if (fetch_valid) {
        const uint32_t rq_slot = m->c_rqci & (((1u << m->c_rqlog) - 1u) & 0xffffu);
        hca_dma_req_t *r = &o->dma_req;
        memset(r, 0, sizeof *r);
        r->hdr = (uint32_t)HCA_DMA_OP_READ_DATA << HCA_DMA_REQ_OP_LSB | (RS_DMA_CLIENT | FETCH_TAG) << HCA_DMA_REQ_TAG_LSB;
        r->len = WQE_BYTES;
        r->addr = m->c_rqbase + ((uint64_t)rq_slot << 6);
        r->qpn = m->qpn;
    } else {
        o->dma_req = p->dma_req;
        if (p->posted) /* a posted gather: tag {01, 1, slot, 0, idx} */
            hca_dma_req_set_tag(&o->dma_req,
                                hca_dma_req_get_tag(&o->dma_req) | 0x20u | (unsigned)m->rslot << 4);
    }

    /* REMOTE_INV: one event at a time, so the tag alone names it */
    o->evt_valid = m->state == S_EVT;
    if (ch & RS_CH_EVT) {
        memset(&o->evt, 0, sizeof o->evt);
        o->evt.hdr = (uint32_t)HCA_EVT_KIND_REMOTE_INV << HCA_FW_EVENT_KIND_LSB |
                     (HCA_EVT_TAG_RESPONDER | m->qpn) << HCA_FW_EVENT_TAG_LSB | (uint32_t)m->qpn << HCA_FW_EVENT_QPN_LSB;
        o->evt.pd = m->c_pd;
        o->evt.key = m->p_invkey;
    }
}

/* ---------------------------------------------------------------- API */

int hca_responder_init(hca_responder_t *m, unsigned max_qp)
{
    if (max_qp < 2 || max_qp > HCA_MAX_QP || (max_qp & (max_qp - 1u)) != 0)
        return -EINVAL;
    memset(m, 0, sizeof *m);
    m->max_qp = max_qp;
    int rc = hca_qfifo_init(&m->fq, max_qp);
    if (rc)
        return rc;
    rc = hca_resp_place_init(&m->place, PIECES, RS_PLACE_SEGS);
    if (rc)
        return rc;
    hca_responder_reset(m);
    return 0;
}

void hca_responder_reset(hca_responder_t *m)
{
    m->state = S_IDLE;
    m->qpn = 0;
    memset(&m->busy, 0, sizeof(m->busy));
    m->wqe_valid = 0;
    m->wqe_qpn = 0;
    hca_qfifo_reset(&m->fq);
    m->scan_pref = 0;
    m->whole = 0;
    m->rd_off = 0;
    m->rd_buf = 0;
    m->res_key = m->res_bus = 0;
    m->tx_pend = m->cpl_pend = m->free_pend = m->inc_pend = m->err_pend = m->err_wait = 0;
    m->rslot = 0;
    m->rcnt0 = m->rcnt1 = 0;
    m->rberr0 = m->rberr1 = 0;
    m->txp = m->txslot = 0;
    m->rd_cur = 0;
    m->pf = m->pfslot = m->pf_qpn = 0;
    m->fsel = 0;
    memset(&m->werr, 0, sizeof(m->werr));
    hca_resp_place_reset(&m->place);
    rs_outputs(m, RS_CH_ALL, 0);
}

/* The outputs, rx_ready .. evt, are one block of the io struct. */
#define RS_OUT_FIRST offsetof(hca_responder_io_t, rx_ready)
#define RS_OUT_END (offsetof(hca_responder_io_t, evt) + sizeof(hca_fw_event_t))
_Static_assert(offsetof(hca_responder_io_t, evt_done_status) < RS_OUT_FIRST &&
               RS_OUT_END == sizeof(hca_responder_io_t), "outputs last, in one block");

void hca_responder_comb(const hca_responder_t *m, hca_responder_io_t *io, uint64_t now)
{
    (void)now;
    memcpy((char *)io + RS_OUT_FIRST, (const char *)&m->o + RS_OUT_FIRST, RS_OUT_END - RS_OUT_FIRST);
}

/* The state half of the edge's wait (hca_responder_edge's first test);
 * tx_ready: this cycle's. A READ_RESP pending waits for its gathers'
 * answers (tx_waits) or, offered, for the link (tx_ready low). */
static int rs_waits(const hca_responder_t *m, int tx_ready)
{
    const int tx_waits = m->tx_pend && (rs_tx_wait(m) || (m->o.tx_valid && !tx_ready));
    if (m->pio.dma_req_valid || m->cpl_pend || m->free_pend || m->inc_pend || m->err_pend || m->err_wait ||
        rs_pf_rdy(m))
        return 0;
    switch (m->state) {
    case S_IDLE: return !m->pio.busy && !m->scan_pref && !hca_qfifo_valid(&m->fq) && (!m->tx_pend || tx_waits);
    case S_FETCH_RSP:
    case S_FL_RSP: return !m->pio.busy && (!m->tx_pend || tx_waits);
    case S_PLACE: return hca_resp_place_waits(&m->place, &m->pio) && (!m->tx_pend || tx_waits);
    case S_RESULT: /* also a WRITE packet behind the posted one's free (its DMAs first) */
        return !m->pio.busy &&
               (tx_waits || (!m->tx_pend && !rs_p_send(m) && m->p_op == HCA_PKT_OP_WRITE && m->pf));
    case S_FINISH: return !m->pio.busy && tx_waits;
    default: return 0;
    }
}

void hca_responder_edge(hca_responder_t *m, const hca_responder_io_t *io, uint64_t now)
{
    /* Waiting with no input that wakes it (a packet it takes, a DMA answer, a
     * flush-queue push), nothing asking for DMA, nothing pending but posted
     * gathers still counting (a posted free not yet ready, a READ_RESP whose
     * gathers are not all answered), the placement engine idle or only
     * waiting for its writes' answers (rs_waits): in S_IDLE with no flush
     * step, in S_FETCH_RSP / S_FL_RSP for the RQ WQE, in S_PLACE (the
     * engine's wait, hca_resp_place_waits), in S_RESULT / S_FINISH behind
     * that READ_RESP, or in S_RESULT with a WRITE packet behind the posted
     * one's free. The edge below would keep every register but fsel (0
     * while no posted free is ready), so the outputs rs_outputs derived at
     * the last edge stand. Most stepped cycles of a busy requester. */
    if (!(io->rx_valid && m->o.rx_ready) && !io->dma_rsp_valid && !io->fl_qpc_set && !io->fl_req_err && !io->fl_rq_db &&
        rs_waits(m, io->tx_ready)) {
        m->fsel = 0;
        return;
    }
    const hca_resp_place_io_t *eng = &m->pio; /* the engine's job and outputs this cycle */
    const int st_rts = io->qp_state == HCA_QP_STATE_RTS;
    const int st_reset = io->qp_state == HCA_QP_STATE_RESET; /* rtl/hca_responder.sv st_reset */
    const int fq_valid = hca_qfifo_valid(&m->fq);
    const int rx_fire = io->rx_valid && m->state == S_IDLE && !(m->scan_pref && fq_valid);
    int fq_pop = 0;
    const int fetch_rsp = io->dma_rsp_valid && hca_dma_rsp_get_rtag(&io->dma_rsp) == (RS_DMA_CLIENT | FETCH_TAG);
    const int fetch_err = (int)hca_dma_rsp_get_err(&io->dma_rsp);
    const int p_send = rs_p_send(m);
    const int has_buf = rs_pkt_has_buf(m);

    uint8_t state_d = m->state;
    uint16_t qpn_d = m->qpn;
    m_qv_t busy_d = m->busy;
    uint8_t wqe_valid_d = m->wqe_valid;
    uint16_t wqe_qpn_d = m->wqe_qpn;
    uint8_t scan_pref_d = m->scan_pref, whole_d = m->whole;
    uint32_t rd_off_d = m->rd_off;
    uint8_t rd_buf_d = m->rd_buf, res_key_d = m->res_key, res_bus_d = m->res_bus;
    uint8_t tx_pend_d = m->tx_pend && !(m->o.tx_valid && io->tx_ready);
    uint8_t rslot_d = m->rslot, txp_d = m->txp, txslot_d = m->txslot, rd_cur_d = m->rd_cur;
    const int tx_bad = rs_tx_bad(m);
#ifndef HCA_MUTANT_RESP_CPL_AFTER_RESET
    uint8_t cpl_pend_d = m->cpl_pend && !io->cpl_ready && !st_reset; /* dropped once the QP is in RESET */
#else
    uint8_t cpl_pend_d = m->cpl_pend && !io->cpl_ready;
#endif
    const int pf_sel = rs_pf_sel(m);
    uint8_t free_pend_d = m->free_pend && !(io->pb_free_ready && !pf_sel);
    uint8_t inc_pend_d = 0, err_pend_d = 0, err_wait_d = m->err_wait;
    uint8_t free_id_d = m->free_id;
    const int go_wait = rs_go_wait(m);
    const int pf_go = pf_sel && io->pb_free_ready;
    uint8_t pf_d = m->pf && !pf_go, pfslot_d = m->pfslot, pf_buf_d = m->pf_buf;
    uint16_t pf_qpn_d = m->pf_qpn;
    m_qv_t werr_d = m->werr;
    if (pf_go && (m->pfslot ? m->rberr1 : m->rberr0))
        m_qv_put(&werr_d, m->pf_qpn, 1);
    int ctx_latch = 0, wqe_load = 0, tx_read = 0; /* tx_read: tx_d = read_resp (RESULT of a READ chunk) */

    /* the endings: `fin` moves to FINISH with the actions a_* */
    int fin = 0, a_tx = 0, a_cpl = 0, a_free = 0, a_inc = 0, a_err = 0, a_unbusy = 0, a_inv = 0;
    unsigned a_tx_op = HCA_PKT_OP_ACK, a_tx_syn = HCA_WC_STATUS_SUCCESS; /* a_tx_pkt = resp_pkt(op, syn) */
    int a_tx_read = 0;                                                   /* ... or read_resp */
    unsigned a_status = HCA_WC_STATUS_SUCCESS;
    uint64_t a_wr_id = m->wqe.wr_id;
    uint32_t a_byte_len = 0;
    uint8_t a_free_id = m->p_pbuf;
    int ev_send_ok = 0, ev_send_end = 0, ev_drop = 0;

    switch (m->state) {
    case S_IDLE:
        if (rx_fire) {
            const uint32_t rx_dqpn = hca_pkt_get_dst_qpn(&io->rx);
            state_d = S_PKT_CTX0;
            qpn_d = rx_dqpn < m->max_qp ? (uint16_t)rx_dqpn : 0; /* 0 when out of range */
            scan_pref_d = 1;
        } else if (fq_valid) {
            state_d = S_SCAN_CTX0;
            qpn_d = (uint16_t)hca_qfifo_head(&m->fq);
            scan_pref_d = 0;
        } else {
            scan_pref_d = 0;
        }
        break;

    case S_PKT_CTX0:
        if (m->p_dqpn == 0 || m->p_dqpn >= m->max_qp) {
            fin = 1; /* no such QP */
            a_free = has_buf;
        } else {
            state_d = S_PKT_CTX1;
        }
        break;

    case S_PKT_CTX1:
        ctx_latch = 1;
        if (!st_rts) {
            ev_drop = 1; /* RESET or ERROR: dropped, the scan flushes */
        } else if (p_send) {
            if (m->p_first) {
                if (io->rq_ci == io->rq_pi) {
                    fin = 1; /* receiver not ready */
                    a_tx = 1;
                    a_tx_op = HCA_PKT_OP_RNR_NAK;
                    a_free = has_buf;
                    a_unbusy = 1;
                } else {
                    state_d = S_FETCH_REQ;
                }
            } else if (!m_qv_get(&m->busy, m->qpn)) {
                fin = 1; /* its message was refused (RNR): drop quietly */
                a_free = has_buf;
            } else if (m->wqe_valid && m->wqe_qpn == m->qpn) {
                state_d = S_SEND_PLAN;
            } else {
                state_d = S_FETCH_REQ;
            }
        } else if (m->p_op == HCA_PKT_OP_WRITE) {
            if (m->p_len > BUF_SIZE) {
                fin = 1;
                a_tx = 1;
                a_tx_op = HCA_PKT_OP_NAK;
                a_tx_syn = HCA_WC_STATUS_REM_INV_REQ_ERR;
                a_err = 1;
                a_free = has_buf;
            } else if (m->p_first && m->p_msglen != 0) {
                state_d = S_GO;
                whole_d = 1;
            } else if (m->p_len != 0) {
                state_d = S_GO;
                whole_d = 0;
            } else {
                fin = 1; /* zero length: no key check (IBA C9-88) */
                a_tx = m->p_last;
                a_free = has_buf;
            }
        } else if (m->p_op == HCA_PKT_OP_READ_REQ) {
            rd_off_d = 0;
            if (m->p_msglen == 0) {
                fin = 1; /* zero length: no key check, one empty READ_RESP */
                a_tx = 1;
                a_tx_read = 1;
            } else {
                state_d = S_GO; /* the whole range first, as a WRITE's first packet */
                whole_d = 1;
            }
        } else {
            ev_drop = 1; /* not a request: not the responder's */
        }
        break;

    case S_FETCH_REQ:
        if (io->dma_req_ready)
            state_d = S_FETCH_RSP;
        break;

    case S_FETCH_RSP:
        if (fetch_rsp) {
            if (fetch_err) {
                fin = 1;
                a_cpl = 1;
                a_status = HCA_WC_STATUS_LOC_ACCESS_ERR;
                a_wr_id = 0;
                a_inc = 1;
                a_tx = 1;
                a_tx_op = HCA_PKT_OP_NAK;
                a_tx_syn = HCA_WC_STATUS_REM_OP_ERR;
                a_err = 1;
                a_free = has_buf;
                a_unbusy = 1;
            } else {
                wqe_load = 1;
                wqe_valid_d = 1;
                wqe_qpn_d = m->qpn;
                state_d = S_SEND_PLAN;
            }
        }
        break;

    case S_SEND_PLAN: {
        uint64_t va[PIECES];
        uint32_t len[PIECES], key[PIECES];
        const uint64_t sg_total = rs_plan(m, va, len, key);
        const uint64_t pkt_hi = (uint64_t)m->p_off + m->p_len;
        const int wqe_bad = hca_rq_wqe_get_num_sge(&m->wqe) > PIECES || hca_rq_wqe_get_rq_rsvd(&m->wqe) != 0 ||
                            m->wqe.rsvd != 0;
        const int len_bad = m->p_len > BUF_SIZE || pkt_hi > sg_total || (m->p_first && m->p_msglen > sg_total);
        if (st_reset) {
            ev_drop = 1; /* reset while its WQE was fetched */
        } else if (wqe_bad || len_bad) {
            fin = 1;
            a_cpl = 1;
            a_status = wqe_bad ? HCA_WC_STATUS_LOC_QP_OP_ERR : HCA_WC_STATUS_LOC_LEN_ERR;
            a_inc = 1;
            a_tx = 1;
            a_tx_op = HCA_PKT_OP_NAK;
            a_tx_syn = wqe_bad ? HCA_WC_STATUS_REM_OP_ERR : HCA_WC_STATUS_REM_INV_REQ_ERR;
            a_err = 1;
            a_free = has_buf;
            a_unbusy = 1;
        } else {
            m_qv_put(&busy_d, m->qpn, 1);
            if (m->p_len != 0) {
                state_d = S_GO;
                whole_d = 0;
            } else {
                ev_send_ok = 1;
            }
        }
        break;
    }

    case S_GO:
        if (!go_wait)
            state_d = S_PLACE;
        break;

    case S_PLACE:
        if (eng->done) {
            res_key_d = eng->key_fail;
            res_bus_d = eng->bus_err;
            state_d = S_RESULT;
        }
        break;

    case S_RESULT:
        /* A READ_RESP of the previous chunk may still wait for the link (or
         * for its answers: a bad one is dropped first). */
        if (tx_bad) {
            state_d = S_RD_DROP;
            rd_cur_d = 1;
            break;
        }
        if (m->tx_pend)
            break;
        if (p_send) {
            if (m->res_key || m->res_bus) {
                fin = 1;
                a_cpl = 1;
                a_status = m->res_key ? HCA_WC_STATUS_LOC_PROT_ERR : HCA_WC_STATUS_LOC_ACCESS_ERR;
                a_inc = 1;
                a_tx = 1;
                a_tx_op = HCA_PKT_OP_NAK;
                a_tx_syn = HCA_WC_STATUS_REM_OP_ERR;
                a_err = 1;
                a_free = has_buf;
                a_unbusy = 1;
            } else {
                ev_send_ok = 1;
            }
        } else if (m->p_op == HCA_PKT_OP_WRITE) {
            if (m->pf) {
                /* the posted packet before: its DMAs first (ACK/NAK follow them) */
            } else if (m->res_key || m->res_bus) {
                fin = 1;
                a_tx = 1;
                a_tx_op = HCA_PKT_OP_NAK;
                a_tx_syn = m->res_key ? HCA_WC_STATUS_REM_ACCESS_ERR : HCA_WC_STATUS_REM_OP_ERR;
                a_err = 1;
                a_free = has_buf;
                m_qv_put(&werr_d, m->qpn, 0);
            } else if (m->whole && m->p_len != 0 && st_reset) {
                fin = 1; /* reset after the whole-range check: place nothing */
                a_free = has_buf;
            } else if (m->whole && m->p_len != 0) {
                state_d = S_GO; /* the whole message may be written: now this packet */
                whole_d = 0;
            } else if (eng->post) {
                fin = 1; /* posted: its buffer is freed once its DMAs are answered */
                pf_d = 1;
                pf_buf_d = m->p_pbuf;
                pf_qpn_d = m->qpn;
                pfslot_d = m->rslot;
                rslot_d = !m->rslot;
            } else {
                fin = 1;
                a_tx = m->p_last; /* ACK once the last packet's DMAs are answered */
                a_free = has_buf;
                if (m->p_last) {
                    if (m_qv_get(&m->werr, m->qpn)) { /* a posted packet of the message failed */
                        a_tx_op = HCA_PKT_OP_NAK;
                        a_tx_syn = HCA_WC_STATUS_REM_OP_ERR;
                        a_err = 1;
                    }
                    m_qv_put(&werr_d, m->qpn, 0);
                }
            }
        } else {
            if (m->res_key || m->res_bus) {
                fin = 1;
                a_tx = 1;
                a_tx_op = HCA_PKT_OP_NAK;
                a_tx_syn = m->res_key ? HCA_WC_STATUS_REM_ACCESS_ERR : HCA_WC_STATUS_REM_OP_ERR;
                a_err = 1;
                a_free = !m->whole; /* the chunk's own buffer, never sent (none yet on the whole check) */
                a_free_id = m->rd_buf;
            } else if (m->whole) {
                state_d = S_RD_ALLOC; /* the whole range may be read: now chunk by chunk */
                whole_d = 0;
            } else {
                const uint32_t chunk = rs_rd_chunk(m);
                tx_pend_d = 1;
                tx_read = 1;
                txp_d = 1; /* sent once the chunk's posted gathers are answered */
                txslot_d = m->rslot;
                rslot_d = !m->rslot;
                rd_off_d = m->rd_off + chunk;
                state_d = chunk == rs_rd_rem(m) ? S_FINISH : S_RD_ALLOC;
            }
        }
        break;

    case S_RD_ALLOC:
        if (io->pb_alloc_valid) {
            rd_buf_d = io->pb_alloc_id;
            if (st_rts) {
                state_d = S_GO;
            } else {
                fin = 1; /* the QP left RTS meanwhile: stop, give it back */
                a_free = 1;
                a_free_id = io->pb_alloc_id;
            }
        } else if (!st_rts) {
            fin = 1;
        }
        break;

    case S_SCAN_CTX0:
        state_d = S_SCAN_CTX1;
        break;

    case S_SCAN_CTX1:
        ctx_latch = 1;
        if (!st_rts) {
            m_qv_put(&busy_d, m->qpn, 0);
            m_qv_put(&werr_d, m->qpn, 0);
            if (m->wqe_qpn == m->qpn)
                wqe_valid_d = 0;
        }
        if (io->qp_state == HCA_QP_STATE_ERROR && io->rq_ci != io->rq_pi) {
            state_d = S_FL_REQ; /* stay on this QP until its RQ is empty */
        } else {
            state_d = S_IDLE;
            fq_pop = 1;
        }
        break;

    case S_FL_REQ:
        if (io->dma_req_ready)
            state_d = S_FL_RSP;
        break;

    case S_FL_RSP:
        if (fetch_rsp) {
            hca_rq_wqe_t w;
            memcpy(&w, io->dma_rsp.rdata, sizeof w);
            fin = 1;
            a_cpl = 1;
            a_status = HCA_WC_STATUS_WR_FLUSH_ERR;
            a_wr_id = fetch_err ? 0 : w.wr_id;
            a_inc = 1;
        }
        break;

    case S_EVT:
        if (io->evt_ready)
            state_d = S_EVT_WAIT;
        break;

    case S_EVT_WAIT:
        ev_send_end = io->evt_done_valid && io->evt_done_tag == (HCA_EVT_TAG_RESPONDER | m->qpn);
        break;

    case S_FINISH:
        if (!m->err_pend && !st_rts)
            err_wait_d = 0;
        if (tx_bad) {
            state_d = S_RD_DROP; /* the last chunk's gather failed */
            rd_cur_d = 0;
        } else if (!m->tx_pend && !m->cpl_pend && !m->free_pend && !m->inc_pend && !m->err_pend && !m->err_wait) {
            state_d = S_IDLE;
        }
        break;

    case S_RD_DROP:
        if (!m->free_pend) {
            tx_pend_d = 0; /* the READ_RESP is not sent: its buffer goes back */
            txp_d = 0;
            free_pend_d = 1;
            free_id_d = (uint8_t)hca_pkt_get_pbuf(&m->o.tx);
            state_d = S_RD_NAK;
        }
        break;

    case S_RD_NAK:
        if (!m->free_pend && m->rcnt0 == 0 && m->rcnt1 == 0) {
            fin = 1;
            a_tx = 1;
            a_tx_op = HCA_PKT_OP_NAK;
            a_tx_syn = HCA_WC_STATUS_REM_OP_ERR;
            a_err = 1;
            a_free = m->rd_cur;
            a_free_id = m->rd_buf;
        }
        break;

    default:
        state_d = S_IDLE;
        break;
    }

    /* A SEND packet placed. The last packet of a SEND_INV first has the
     * firmware invalidate its key: CQE and ACK must follow the fence. */
    if (ev_send_ok) {
        if (m->p_last && m->p_op == HCA_PKT_OP_SEND_INV)
            state_d = S_EVT;
        else
            ev_send_end = 1;
    }

    /* The packet is done with; the last one completes the message. */
    if (ev_send_end) {
        fin = 1;
        a_free = has_buf;
        if (m->p_last) {
            a_cpl = 1;
            a_inc = 1;
            a_tx = 1;
            a_unbusy = 1;
            a_byte_len = m->p_off + m->p_len;
            if (m->p_op == HCA_PKT_OP_SEND_INV) {
                if (io->evt_done_status == HCA_WC_STATUS_SUCCESS) { /* evt_ok */
                    a_inv = 1;
                } else {
                    a_status = HCA_WC_STATUS_REM_INV_REQ_ERR;
                    a_tx_op = HCA_PKT_OP_NAK;
                    a_tx_syn = HCA_WC_STATUS_REM_INV_REQ_ERR;
                    a_err = 1;
                }
            }
        }
    }

    if (ev_drop) {
        fin = 1;
        a_free = has_buf;
        a_unbusy = 1;
    }

    /* tx_d, cqe_d, cqn_d: built from the *_q values, written below */
    if (tx_read)
        rs_read_resp(m, &m->o.tx);
    if (fin) {
        state_d = S_FINISH;
        inc_pend_d = (uint8_t)(a_inc && !st_reset);
        err_pend_d = (uint8_t)a_err;
        err_wait_d = (uint8_t)a_err;
        if (a_tx) {
            tx_pend_d = 1;
            txp_d = 0;
            if (a_tx_read)
                rs_read_resp(m, &m->o.tx);
            else
                rs_resp_pkt(m, &m->o.tx, a_tx_op, a_tx_syn);
        }
        if (a_cpl && !st_reset) {
            cpl_pend_d = 1;
            rs_recv_cqe(m, &m->o.cpl, a_wr_id, a_status, a_byte_len, a_inv);
            m->o.cpl_cqn = m->c_cqn;
        }
        if (a_free) {
            free_pend_d = 1;
            free_id_d = a_free_id;
        }
        if (a_unbusy || a_inc) {
            /* The message ended (or the WQE was consumed): forget its WQE. */
            m_qv_put(&busy_d, m->qpn, 0);
            if (m->wqe_qpn == m->qpn)
                wqe_valid_d = 0;
        }
    }

    unsigned ch = 0; /* what rs_outputs must rederive */

    /* posted READ gathers: tagged {01, 1, slot, 0, idx}, answers counted here */
    const unsigned rtag = hca_dma_rsp_get_rtag(&io->dma_rsp);
    const int posted_rsp = io->dma_rsp_valid && (rtag >> 5 & 1u) && !(rtag >> 3 & 1u);
    const int prsp0 = posted_rsp && !(rtag >> 4 & 1u), prsp1 = posted_rsp && (rtag >> 4 & 1u);
    const int post_fire = eng->posted && eng->dma_req_valid && io->dma_req_ready;
    const int start_post = m->state == S_GO && !go_wait && eng->post;
    const int rsp_err = (int)hca_dma_rsp_get_err(&io->dma_rsp);
    m->rcnt0 = (uint8_t)((m->rcnt0 + (post_fire && !m->rslot) - prsp0) & 0xfu);
    m->rcnt1 = (uint8_t)((m->rcnt1 + (post_fire && m->rslot) - prsp1) & 0xfu);
    m->rberr0 = (start_post && !m->rslot) ? 0 : (uint8_t)(m->rberr0 || (prsp0 && rsp_err));
    m->rberr1 = (start_post && m->rslot) ? 0 : (uint8_t)(m->rberr1 || (prsp1 && rsp_err));
    m->rslot = rslot_d;
    m->txp = txp_d;
    m->txslot = txslot_d;
    m->rd_cur = rd_cur_d;

    /* u_place's edge, with the job of this cycle (m->pio) and its handshakes */
    if (eng->busy || m->state == S_GO) { /* an idle engine without start does nothing */
        ch |= RS_CH_ENG;
        hca_resp_place_io_t *p = &m->pio;
        p->start = m->state == S_GO && !go_wait;
        p->qpn = m->qpn; /* qpn_q holds still while PLACE runs */
        p->xq_ready = io->xq_ready;
        p->xs_valid = io->xs_valid;
        p->xs_tag = io->xs_tag;
        p->xs_status = io->xs_status;
        p->xs_last = io->xs_last;
        p->xs_len = io->xs_len;
        p->xs_pa = io->xs_pa;
        p->dma_req_ready = io->dma_req_ready;
        p->dma_rsp_valid = io->dma_rsp_valid && !fetch_rsp && !posted_rsp;
        p->dma_rsp_err = (uint8_t)fetch_err;
        hca_resp_place_edge(&m->place, p, now);
    }

    /* data registers sampled on this edge (from the *_q values above) */
    if (rx_fire) {
        const hca_pkt_t *rx = &io->rx;
        m->p_op = (uint8_t)hca_pkt_get_op(rx);
        m->p_first = (uint8_t)hca_pkt_get_first(rx);
        m->p_last = (uint8_t)hca_pkt_get_last(rx);
        m->p_pbuf = (uint8_t)hca_pkt_get_pbuf(rx);
        m->p_dqpn = (uint16_t)hca_pkt_get_dst_qpn(rx);
        m->p_sqpn = (uint16_t)hca_pkt_get_src_qpn(rx);
        m->p_psn = rx->psn;
        m->p_rkey = rx->rkey;
        m->p_raddr = rx->raddr;
        m->p_len = rx->len;
        m->p_msglen = rx->msg_len;
        m->p_off = rx->offset;
        m->p_invkey = rx->inv_key;
        ch |= RS_CH_JOB | RS_CH_EVT;
    }
    if (ctx_latch) {
        const hca_qp_ctx_t *q = &io->qpc;
        const unsigned ml = hca_qp_ctx_get_mtu_log2(q);
        const uint32_t pd = q->pd & RS_PD_MASK;
        const uint16_t mtu = (uint16_t)(ml == 0 || ml > 12 ? 4096u : ml < 8 ? 256u : 1u << ml);
        if (pd != m->c_pd || mtu != m->c_mtu)
            ch |= RS_CH_JOB | RS_CH_EVT;
        m->c_pd = pd;
        m->c_rqbase = q->rq_base;
        m->c_rqlog = (uint8_t)hca_qp_ctx_get_rq_log(q);
        m->c_mtu = mtu;
        m->c_cqn = (uint16_t)hca_qp_ctx_get_recv_cqn(q);
        m->c_rqci = io->rq_ci;
    }
    if (wqe_load) {
        memcpy(&m->wqe, io->dma_rsp.rdata, sizeof m->wqe);
        ch |= RS_CH_JOB;
    }
    if (whole_d != m->whole || rd_off_d != m->rd_off || rd_buf_d != m->rd_buf)
        ch |= RS_CH_JOB;
    if (qpn_d != m->qpn)
        ch |= RS_CH_EVT;
    if (m->state == S_FETCH_REQ || m->state == S_FL_REQ) /* the port goes back to the engine */
        ch |= RS_CH_DMA;

    /* u_flush_q: the responder's own ERROR (err_pend, qpn), a WRITE_QPC, the
     * requester's ERROR, an RQ doorbell of a QP in ERROR */
    const uint8_t fq_push[4] = {m->err_pend, (uint8_t)(io->fl_qpc_set && io->fl_qpc_qpn < m->max_qp),
                                (uint8_t)(io->fl_req_err && io->fl_req_err_qpn < m->max_qp),
                                (uint8_t)(io->fl_rq_db && io->fl_rq_db_qpn < m->max_qp)};
    const uint16_t fq_val[4] = {m->qpn, (uint16_t)io->fl_qpc_qpn, (uint16_t)io->fl_req_err_qpn,
                                (uint16_t)io->fl_rq_db_qpn};
    hca_qfifo_edge(&m->fq, fq_pop, fq_push, fq_val, 4);

    m->state = state_d;
    m->qpn = qpn_d;
    m->busy = busy_d;
    m->wqe_valid = wqe_valid_d;
    m->wqe_qpn = wqe_qpn_d;
    m->scan_pref = scan_pref_d;
    m->whole = whole_d;
    m->rd_off = rd_off_d;
    m->rd_buf = rd_buf_d;
    m->res_key = res_key_d;
    m->res_bus = res_bus_d;
    m->tx_pend = tx_pend_d;
    m->cpl_pend = cpl_pend_d;
    m->free_pend = free_pend_d;
    m->inc_pend = inc_pend_d;
    m->err_pend = err_pend_d;
    m->err_wait = err_wait_d;
    m->free_id = free_id_d;
    m->fsel = (uint8_t)(pf_sel && !io->pb_free_ready);
    m->pf = pf_d;
    m->pfslot = pfslot_d;
    m->pf_qpn = pf_qpn_d;
    m->pf_buf = pf_buf_d;
    m->werr = werr_d;

    rs_outputs(m, ch, now);
}

/* ---------------------------------------------------------------- quiet
 *
 * With every input idle, edge() in S_IDLE with scan_pref 0, the flush queue
 * empty and nothing pending changes nothing: only an input (a packet, a
 * push) wakes the responder. */
uint64_t hca_responder_quiet_until(const hca_responder_t *m, int tx_ready, uint64_t now)
{
    const int idle = m->state == S_IDLE && !m->scan_pref && !hca_qfifo_valid(&m->fq) && !m->tx_pend &&
                     !m->cpl_pend && !m->free_pend && !m->inc_pend && !m->rcnt0 && !m->rcnt1 && !m->pf &&
                     !m->err_pend && !m->err_wait && hca_resp_place_quiet_until(&m->place, 0) == UINT64_MAX;
    /* Also quiet (the model only; rtl/hca_responder.sv's quiet_o is the
     * narrower test above): the edge's wait for DMA answers or the link
     * (rs_waits), once its one change (fsel to 0) is made, with no request
     * to the translation port: every input valid low, that edge keeps every
     * register, and the outputs derived at the last edge stand. The answers
     * come from the harness's DMA block and the link's room from its next
     * arrival, which end the skip. */
    const int waits = !m->fsel && !m->o.xq_valid && rs_waits(m, tx_ready);
    return idle || waits ? UINT64_MAX : now + 1;
}
