/* hca_requester.c — C model of rtl/hca_requester.sv, cycle for cycle: the
 * send queues. Two engines (hca_req_send, hca_req_resp) around per-QP
 * state; a scheduler (a FIFO of candidate QPs, hca_qfifo) hands QPs to the
 * send engine; the engines
 * share the translation port (hca_xarb), DMA, packet-buffer free, event and
 * completion ports (hca_arb each: m_arb; input 0 = send, 1 = response).
 *
 * The RTL's nets between the engines are combinational both ways (the
 * response engine sees a QP the send engine parks in the same cycle; the
 * scheduler drops a QP the response engine claims), so rq_settle() runs the
 * engines' comb and the wiring until the engines' inputs stop changing. The
 * settled nets stay in io->cache, keyed by a state generation (gen: bumped
 * by every edge that may change state, not by idle ones), the cycle and the
 * inputs; edge clocks everything from them.
 *
 * now_q (the RTL's now_i, the device's cycle, for RNR deadlines) is
 * (uint32_t)(cycle - base), base being the cycle of the first edge after
 * reset: deadlines are compared by difference, so the origin is not
 * observable. No known difference from the RTL.
 */
#include "hca_requester.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

enum { Q_IDLE = HCA_REQUESTER_Q_IDLE, Q_ACTIVE = HCA_REQUESTER_Q_ACTIVE, Q_INFLIGHT = HCA_REQUESTER_Q_INFLIGHT,
       Q_RESP = HCA_REQUESTER_Q_RESP, Q_RNR_WAIT = HCA_REQUESTER_Q_RNR_WAIT };

/* dma_rsp rtag bit 5 routes an answer: 0 send engine, 1 response engine */
#define RQ_RSP_TO_R_BIT 5u
/* settle passes before giving up (the nets settle in a few) */
#define RQ_SETTLE_MAX 16

_Static_assert(offsetof(hca_requester_io_t, tx) - offsetof(hca_requester_io_t, ra_qpc) == HCA_REQUESTER_IN_BYTES,
               "HCA_REQUESTER_IN_BYTES: the input block of hca_requester_io_t");
#define RQ_IN(io) ((const void *)&(io)->ra_qpc)

static inline uint32_t rq_now_q(const hca_requester_t *m, uint64_t now)
{
    return m->base_set ? (uint32_t)(now - m->base) : 0u;
}

/* expired = !(now_q - deadline_q >= 32'h8000_0000) */
static inline int rq_expired(const hca_requester_t *m, unsigned q, uint32_t now_q)
{
    return (uint32_t)(now_q - m->deadline[q]) < 0x80000000u;
}

static inline unsigned rq_ctz(uint64_t v) { return (unsigned)__builtin_ctzll(v); }

/* The scheduler's head against the rule (rtl sq_cand, before the response
 * engine's claim): IDLE with work, RNR_WAIT expired or in ERROR, INFLIGHT
 * in ERROR and not waiting for DONE. */
static int rq_head_cand(const hca_requester_t *m, int pend, int err, uint32_t now_q)
{
    if (!hca_qfifo_valid(&m->sq))
        return 0;
    const unsigned h = hca_qfifo_head(&m->sq);
    switch (m->qst[h]) {
    case Q_IDLE: return pend;
    case Q_RNR_WAIT: return rq_expired(m, h, now_q) || err;
    case Q_INFLIGHT: return err && !m->evt_wait[h];
    default: return 0;
    }
}

/* The RNR queue's head: its deadline passed (rtl rn_ripe) / it leaves the queue (rn_pop). */
static int rq_rn_ripe(const hca_requester_t *m, uint32_t now_q)
{
    if (!hca_qfifo_valid(&m->rnq))
        return 0;
    const unsigned h = hca_qfifo_head(&m->rnq);
    return m->qst[h] == Q_RNR_WAIT && rq_expired(m, h, now_q);
}

static int rq_rn_pop(const hca_requester_t *m, uint32_t now_q)
{
    return hca_qfifo_valid(&m->rnq) && (m->qst[hca_qfifo_head(&m->rnq)] != Q_RNR_WAIT || rq_rn_ripe(m, now_q));
}

/* The DONE queue's head: a DONE to offer (done_any). */
static int rq_done_any(const hca_requester_t *m)
{
    return hca_qfifo_valid(&m->dnq) && m->done[hca_qfifo_head(&m->dnq)];
}

static inline void rq_set8(uint8_t *dst, unsigned v, int *ch)
{
    if (*dst != (uint8_t)v) {
        *dst = (uint8_t)v;
        *ch = 1;
    }
}

static inline void rq_set16(uint16_t *dst, unsigned v, int *ch)
{
    if (*dst != (uint16_t)v) {
        *dst = (uint16_t)v;
        *ch = 1;
    }
}

/* The wiring: every engine input driven inside this block, from the engines'
 * current outputs, the state and io's inputs. *chs / *chr: a send / response
 * engine input changed. */
static void rq_wire(const hca_requester_t *m, const hca_requester_io_t *io, uint64_t now, hca_requester_nets_t *w,
                    int *chs, int *chr)
{
    hca_req_send_io_t *s = &w->s;
    hca_req_resp_io_t *r = &w->r;
    int cs = 0, cr = 0;

    /* The QP the send engine releases this cycle, seen by the response engine. */
    const unsigned look = r->look_qpn & (m->max_qp - 1u);
    const unsigned s_qpn = m->s_qpn;
    const int look_releasing = s->rel_valid && s_qpn == look;
    const int look_parking = s->rel_inflight && s_qpn == look;
    rq_set8(&r->look_inflight, m->qst[look] == Q_INFLIGHT || look_parking, &cr);
    rq_set8(&r->look_evt_wait, m->evt_wait[look] || (look_parking && s->rel_evt), &cr);
    rq_set8(&r->look_active, m->qst[look] == Q_ACTIVE && !look_releasing, &cr);
    rq_set8(&r->rnr_cnt, m->rnr_cnt[look], &cr);
    /* park_i: copied when its source changes (both are state within a settle) */
    const uint16_t park_src = (uint16_t)(1u + (look << 1 | (unsigned)look_parking));
    if (w->park_src != park_src) {
        r->park = look_parking ? s->park : m->park[look];
        w->park_src = park_src;
        cr = 1;
    }

    /* The DONE queue's head. */
    const unsigned done_qpn = hca_qfifo_head(&m->dnq);
    rq_set8(&r->done_valid, rq_done_any(m), &cr);
    rq_set16(&r->done_qpn, done_qpn, &cr);
    rq_set8(&r->done_status, m->done_st[done_qpn], &cr);

    rq_set8(&s->nak, m->nak[s_qpn], &cs);
    rq_set8(&s->nak_syn, m->nak_syn[s_qpn], &cs);
    rq_set8(&s->nak_rnr, m->nak_rnr[s_qpn], &cs);

    /* events */
    m_arb_comb(&m->evt_arb, (uint32_t)r->evt_valid << 1 | s->evt_valid, io->evt_ready, &w->evt);
    rq_set8(&s->evt_ready, w->evt.in_ready & 1u, &cs);
    rq_set8(&r->evt_ready, w->evt.in_ready >> 1 & 1u, &cr);

    /* packet-buffer frees */
    m_arb_comb(&m->free_arb, (uint32_t)r->free_valid << 1 | s->free_valid, io->pb_free_ready, &w->free);
    rq_set8(&s->free_ready, w->free.in_ready & 1u, &cs);
    rq_set8(&r->free_ready, w->free.in_ready >> 1 & 1u, &cr);

    /* DMA requests; answers go back by rtag bit 5 */
    m_arb_comb(&m->dma_arb, (uint32_t)r->dma_req_valid << 1 | s->dma_req_valid, io->dma_req_ready, &w->dma);
    rq_set8(&s->dma_req_ready, w->dma.in_ready & 1u, &cs);
    rq_set8(&r->dma_req_ready, w->dma.in_ready >> 1 & 1u, &cr);

    /* translation */
    hca_xarb_io_t *x = &w->x;
    x->c_req_valid = (uint32_t)r->xq_valid << 1 | s->xq_valid;
    x->c_req[0] = s->xq;
    x->c_req[1] = r->xq;
    x->c_rsp_ready = (uint32_t)r->xs_ready << 1 | s->xs_ready;
    hca_xarb_comb(&m->xarb, x, now);
    rq_set8(&s->xq_ready, x->c_req_ready & 1u, &cs);
    rq_set8(&r->xq_ready, x->c_req_ready >> 1 & 1u, &cr);
    rq_set8(&s->xs_valid, x->c_rsp_valid & 1u, &cs);
    rq_set8(&r->xs_valid, x->c_rsp_valid >> 1 & 1u, &cr);

    /* completions: fin_ready = !fin_write || cpl_ready, fin = the pick's */
    const uint32_t fin_v = (uint32_t)r->fin_valid << 1 | s->fin_valid;
    m_arb_comb(&m->fin_arb, fin_v, 0, &w->fin); /* the pick does not depend on out_ready */
    const hca_req_send_fin_t *fin = w->fin.id ? &r->fin : &s->fin;
    w->fin_ready = (uint8_t)(!fin->write || io->cpl_ready);
    m_arb_comb(&m->fin_arb, fin_v, w->fin_ready, &w->fin);
    rq_set8(&s->fin_ready, w->fin.in_ready & 1u, &cs);
    rq_set8(&r->fin_ready, w->fin.in_ready >> 1 & 1u, &cr);

    /* scheduler: a packet the response engine claims wins over the pick */
    const unsigned head = hca_qfifo_head(&m->sq);
    w->sched.id = (uint16_t)head;
    w->sched.valid = (uint8_t)(rq_head_cand(m, io->pe_pend, io->pe_err, rq_now_q(m, now)) && !(r->claim && look == head));
    rq_set8(&s->sched_valid, w->sched.valid, &cs);
    rq_set16(&s->sched_qpn, w->sched.id, &cs);
    rq_set8(&s->sched_fresh, m->qst[head] == Q_IDLE, &cs);

    *chs = cs;
    *chr = cr;
}

/* Every net of the cycle, settled; w holds a guess (any content). */
static void rq_settle(const hca_requester_t *m, const hca_requester_io_t *io, uint64_t now, hca_requester_nets_t *w)
{
    hca_req_send_io_t *s = &w->s;
    hca_req_resp_io_t *r = &w->r;

    /* inputs straight from the ports */
    s->qpc = io->ra_qpc;
    s->sq_ci = io->ra_sq_ci;
    s->sq_pi = io->ra_sq_pi;
    s->pf_kill = io->qpc_set;
    s->pf_kill_qpn = io->qpc_wr_qpn;
    s->alloc_valid = io->pb_alloc_valid;
    s->alloc_id = io->pb_alloc_id;
    s->tx_ready = io->tx_ready;
    r->rx_valid = io->rx_valid;
    r->rx = io->rx;
    r->qpc = io->rb_qpc;
    r->sq_ci = io->rb_sq_ci;
    w->rsp_to_r = (uint8_t)(io->dma_rsp.hdr >> (HCA_DMA_RSP_RTAG_LSB + RQ_RSP_TO_R_BIT) & 1u);
    s->dma_rsp_valid = io->dma_rsp_valid && !w->rsp_to_r;
    r->dma_rsp_valid = io->dma_rsp_valid && w->rsp_to_r;
    /* the data bytes only to the engine answered (read only with its valid), the header to both */
    if (s->dma_rsp_valid)
        s->dma_rsp = io->dma_rsp;
    else
        s->dma_rsp.hdr = io->dma_rsp.hdr;
    if (r->dma_rsp_valid)
        r->dma_rsp = io->dma_rsp;
    else
        r->dma_rsp.hdr = io->dma_rsp.hdr;
    s->xs_status = r->xs_status = io->xs_status;
    s->xs_last = r->xs_last = io->xs_last;
    s->xs_len = r->xs_len = io->xs_len;
    s->xs_pa = r->xs_pa = io->xs_pa;
    w->x.xu_req_ready = io->xq_ready;
    w->x.xu_rsp_valid = io->xs_valid;
    w->x.xu_rsp_last = io->xs_last;

    /* From the guess (look_qpn is a register: guessed right): wire, comb
     * both engines (their state may differ from the guess's), then wire and
     * comb again the engines whose inputs changed, until none did. The
     * logic is acyclic, so this reaches its one solution. */
    r->look_qpn = (uint16_t)(m->resp.qpn & (m->max_qp - 1u));
    int chs, chr;
    w->park_src = 0;
    rq_wire(m, io, now, w, &chs, &chr);
    chs = chr = 1;
    for (int pass = 0; pass < RQ_SETTLE_MAX && (chs || chr); pass++) {
        if (chs)
            hca_req_send_comb(&m->send, s, now);
        if (chr)
            hca_req_resp_comb(&m->resp, r, now);
        if (pass == 0 && w->park_src && ((w->park_src - 1u) & 1u)) /* copied from s->park (look_parking) */
            w->park_src = 0; /* park_i from the send engine's park_o, which is this state's now */
        rq_wire(m, io, now, w, &chs, &chr);
    }
}

/* io's cache holds the nets of this state, cycle and inputs. */
static int rq_cache_hit(const hca_requester_t *m, const hca_requester_io_t *io, uint64_t now)
{
    return io->cache.valid && io->cache.gen == m->gen && (io->cache.now == now || !io->cache.now_dep) &&
           memcmp(io->cache.in, RQ_IN(io), HCA_REQUESTER_IN_BYTES) == 0;
}

int hca_requester_init(hca_requester_t *m, unsigned max_qp)
{
    if (max_qp < 2 || max_qp > HCA_REQUESTER_MAX_QP_LIMIT || (max_qp & (max_qp - 1u)) != 0)
        return -EINVAL;
    m->max_qp = (uint16_t)max_qp;
    m->qw = (uint8_t)rq_ctz(max_qp);
    int rc = hca_req_send_init(&m->send, m->qw);
    if (rc == 0)
        rc = hca_req_resp_init(&m->resp, m->qw);
    if (rc == 0)
        rc = hca_xarb_init(&m->xarb, 2);
    if (rc == 0)
        rc = hca_qfifo_init(&m->sq, max_qp);
    if (rc == 0)
        rc = hca_qfifo_init(&m->rnq, max_qp);
    if (rc == 0)
        rc = hca_qfifo_init(&m->dnq, max_qp);
    if (rc != 0)
        return rc;
    hca_requester_reset(m);
    return 0;
}

void hca_requester_reset(hca_requester_t *m)
{
    /* Control state; deadlines, park entries, syndromes and DONE statuses
     * are data and keep their values. */
    memset(m->qst, Q_IDLE, sizeof(m->qst));
    memset(m->rnr_cnt, 0, sizeof(m->rnr_cnt));
    memset(m->nak, 0, sizeof(m->nak));
    memset(m->nak_rnr, 0, sizeof(m->nak_rnr));
    memset(m->evt_wait, 0, sizeof(m->evt_wait));
    memset(m->done, 0, sizeof(m->done));
    hca_qfifo_reset(&m->sq);
    hca_qfifo_reset(&m->rnq);
    hca_qfifo_reset(&m->dnq);
    m->s_qpn = 0;
    m->base = 0;
    m->base_set = 0;
    m->gen++;
    m->idle_again = 0;
    hca_req_send_reset(&m->send);
    hca_req_resp_reset(&m->resp);
    hca_xarb_reset(&m->xarb);
    m_arb_reset(&m->dma_arb, 2);
    m_arb_reset(&m->free_arb, 2);
    m_arb_reset(&m->evt_arb, 2);
    m_arb_reset(&m->fin_arb, 2);
}

void hca_requester_comb(const hca_requester_t *m, hca_requester_io_t *io, uint64_t now)
{
    if (!rq_cache_hit(m, io, now)) {
        rq_settle(m, io, now, &io->cache.n);
        memcpy(io->cache.in, RQ_IN(io), HCA_REQUESTER_IN_BYTES);
        io->cache.gen = m->gen;
        io->cache.now = now;
        io->cache.now_dep = (uint8_t)(hca_qfifo_valid(&m->sq) || hca_qfifo_valid(&m->rnq)); /* RNR deadlines */
        io->cache.valid = 1;
        io->cache.serial++;
    }
    const hca_requester_nets_t *n = &io->cache.n;
    const hca_req_send_io_t *s = &n->s;
    const hca_req_resp_io_t *r = &n->r;

    io->ra_qpn = s->qpn;
    io->pe_qpn = (uint16_t)hca_qfifo_head(&m->sq);
    io->rb_qpn = r->qpn;
    io->tx_valid = s->tx_valid;
    io->tx = s->tx;
    io->rx_ready = r->rx_ready;
    io->pb_alloc_ready = s->alloc_ready;

    io->xq_valid = n->x.xu_req_valid;
    io->xq = n->x.xu_req;
    io->xs_ready = n->x.xu_rsp_ready;

    io->dma_req_valid = n->dma.valid;
    io->dma_req = n->dma.id ? r->dma_req : s->dma_req;
    io->dma_rsp_ready = n->rsp_to_r ? r->dma_rsp_ready : s->dma_rsp_ready;

    io->pb_free_valid = n->free.valid;
    io->pb_free_id = n->free.id ? r->free_id : s->free_id;

    io->evt_valid = n->evt.valid;
    io->evt = n->evt.id ? r->evt : s->evt;

    /* completions: {qpn, cqn, write, err, cqe} */
    const hca_req_send_fin_t *fin = n->fin.id ? &r->fin : &s->fin;
    const uint8_t take = n->fin.valid && n->fin_ready;
    io->cpl = fin->cqe;
    io->cpl_cqn = fin->cqn;
    io->cpl_valid = n->fin.valid && fin->write;
    io->sq_ci_inc = take;
    io->sq_ci_qpn = fin->qpn;
    io->qp_err_valid = take && fin->err;
    io->qp_err_qpn = fin->qpn;

    io->drain_busy = (uint16_t)((unsigned)s->rd_busy << HCA_DRAIN_SRC_WQE_READS_LSB |
                                (unsigned)r->mv_busy << HCA_DRAIN_SRC_RESPONSE_LSB |
                                (unsigned)s->mv_busy << HCA_DRAIN_SRC_SEND_LSB);
}

/* qst_q[q] <= st */
static inline void rq_set_qst(hca_requester_t *m, unsigned q, uint8_t st) { m->qst[q] = st; }

static void rq_edge(hca_requester_t *m, const hca_requester_io_t *io, uint64_t now, int hit)
{
    hca_requester_nets_t local;
    const hca_requester_nets_t *n = &io->cache.n;
    /* The same state (an idle edge keeps it), inputs and nets as at the last
     * edge, which was idle and wrote nothing: this one would repeat it. A hit
     * across cycles means the nets do not depend on the cycle (now_dep). */
    if (hit && m->idle_again && m->idle_serial == io->cache.serial)
        return;
    if (!hit) { /* io not from comb of this cycle: settle here */
        local = io->cache.n;
        rq_settle(m, io, now, &local);
        n = &local;
    }
    const hca_req_send_io_t *s = &n->s;
    const hca_req_resp_io_t *r = &n->r;
    const uint32_t now_q = rq_now_q(m, now);
    const unsigned qmask = m->max_qp - 1u;

    const unsigned look = r->look_qpn & qmask;
    const unsigned s_qpn = m->s_qpn;
    const unsigned sched_qpn = n->sched.id;
    const int sched_take = n->sched.valid && s->sched_ready;
    const unsigned done_tag_qpn = io->evt_done_tag & qmask;
    const int done_mine = io->evt_done_valid && (io->evt_done_tag >> m->qw) == 0 && m->evt_wait[done_tag_qpn];
    const unsigned done_qpn = r->done_qpn;
    const hca_req_send_fin_t *fin = n->fin.id ? &r->fin : &s->fin;
    const int fin_take = n->fin.valid && n->fin_ready;

    /* The queues' edges, from the state before this one (rtl: u_sched_q,
     * u_rnr_q, u_done_q; pushes in port order). */
    const int rn_ripe = rq_rn_ripe(m, now_q), rn_pop = rq_rn_pop(m, now_q);
    const unsigned rn_head = hca_qfifo_head(&m->rnq);
    const int sq_pop = hca_qfifo_valid(&m->sq) && (!n->sched.valid || s->sched_ready);
    const int dn_any = rq_done_any(m);
    const int dn_pop = hca_qfifo_valid(&m->dnq) && (!dn_any || r->done_take);
    const uint8_t sq_push[7] = {s->rel_valid,
                                r->rel_valid,
                                (uint8_t)rn_ripe,
                                (uint8_t)(io->sq_db && io->sq_db_qpn < m->max_qp),
                                (uint8_t)(io->qpc_set && io->qpc_wr_qpn < m->max_qp),
                                io->rs_err,
                                (uint8_t)fin_take};
    const uint16_t sq_val[7] = {(uint16_t)s_qpn,
                                (uint16_t)look,
                                (uint16_t)rn_head,
                                (uint16_t)(io->sq_db_qpn & qmask),
                                (uint16_t)(io->qpc_wr_qpn & qmask),
                                (uint16_t)(io->rs_err_qpn & qmask),
                                (uint16_t)(fin->qpn & qmask)};
    const uint8_t rn_push[2] = {(uint8_t)(s->rel_valid && s->rel_rnr),
                                (uint8_t)(r->rel_valid && r->rel_kind == HCA_REQ_RESP_REL_RNR)};
    const uint16_t rn_val[2] = {(uint16_t)s_qpn, (uint16_t)look};
    const uint8_t dn_push = (uint8_t)done_mine;
    const uint16_t dn_val = (uint16_t)done_tag_qpn;
    int pushes = 0;
    for (unsigned k = 0; k < 7; k++)
        pushes |= sq_push[k];

    /* An edge that changes no state the outputs depend on (both engines idle,
     * the response engine's posted scatters answered and its posted free
     * gone, nothing offered, taken or held, no request in the translation
     * port, the queues still) keeps gen, so io's cache serves the next cycle
     * too. */
    const int idle_edge = m->base_set && m->send.state == 0 /* S_IDLE */ && !s->sched_valid && !m->send.pf_req &&
                          !io->qpc_set &&
                          m->resp.state == HCA_REQ_RESP_R_IDLE && !r->rx_valid && !r->done_valid && !m->resp.claimed &&
                          !m->resp.pf && m->resp.cnt0 == 0 && m->resp.cnt1 == 0 && !io->dma_rsp_valid &&
                          !m->resp.err && m->resp.status == HCA_WC_STATUS_SUCCESS &&
                          !m->dma_arb.hold && !m->free_arb.hold && !m->evt_arb.hold && !m->fin_arb.hold &&
                          !m->xarb.arb.hold && m_fifo_level(&m->xarb.ids) == 0 && !n->x.c_req_valid &&
                          !io->evt_done_valid && !io->qpc_wr && !pushes && !sq_pop && !rn_pop && !rn_push[0] &&
                          !rn_push[1] && !hca_qfifo_valid(&m->dnq);
    const unsigned wr_qpn = io->qpc_wr_qpn & qmask;
    /* the _q values the always_ff reads */
    const uint8_t rnr_look_q = m->rnr_cnt[look];
    const uint8_t qst_wr_q = m->qst[wr_qpn];

    /* Parked messages and RNR deadlines: data (read before the control
     * block's writes, which do not touch them). */
    if (s->rel_valid && s->rel_inflight)
        m->park[s_qpn] = s->park;
    if (r->rel_valid && r->rel_kind == HCA_REQ_RESP_REL_RNR)
        m->deadline[look] = now_q + r->rnr_timer;
    if (r->nak_save) {
        m->nak_syn[look] = r->nak_syn & 0x1fu;
        m->nak_rnr[look] = r->nak_rnr;
    }
    if (s->rel_rnr)
        m->deadline[s_qpn] = now_q + s->rnr_timer;
    if (done_mine)
        m->done_st[done_tag_qpn] = io->evt_done_status & 0x1fu;

    /* Per-QP control, in the RTL's order: a later write to the same QP wins. */
    if (sched_take) {
        m->s_qpn = (uint16_t)sched_qpn;
        rq_set_qst(m, sched_qpn, Q_ACTIVE);
        m->nak[sched_qpn] = 0;
    }
    if (r->nak_save)
        m->nak[look] = 1;
    if (s->rel_valid) {
        if (s->rel_inflight) {
            rq_set_qst(m, s_qpn, Q_INFLIGHT);
            m->evt_wait[s_qpn] = s->rel_evt;
        } else if (s->rel_rnr) {
            rq_set_qst(m, s_qpn, Q_RNR_WAIT);
            m->rnr_cnt[s_qpn] = (uint8_t)((m->rnr_cnt[s_qpn] + 1u) & 7u);
        } else {
            rq_set_qst(m, s_qpn, Q_IDLE);
            m->rnr_cnt[s_qpn] = 0;
        }
    }
    if (r->claim) {
        rq_set_qst(m, look, Q_RESP);
        m->evt_wait[look] = 0;
    }
    if (done_mine)
        m->done[done_tag_qpn] = 1;
    if (r->done_take)
        m->done[done_qpn & qmask] = 0;
    if (r->rel_valid) {
        switch (r->rel_kind) {
        case HCA_REQ_RESP_REL_INFLIGHT:
            rq_set_qst(m, look, Q_INFLIGHT);
            break;
        case HCA_REQ_RESP_REL_EVT:
            rq_set_qst(m, look, Q_INFLIGHT);
            m->evt_wait[look] = 1;
            break;
        case HCA_REQ_RESP_REL_RNR:
            rq_set_qst(m, look, Q_RNR_WAIT);
            m->rnr_cnt[look] = (uint8_t)((rnr_look_q + 1u) & 7u);
            break;
        default:
            rq_set_qst(m, look, Q_IDLE);
            m->rnr_cnt[look] = 0;
            break;
        }
    }
    /* The firmware reset, reconnected or first wrote the QP: forget what was
     * in flight (an engine that owns it, or takes it in this cycle, finishes
     * first and releases it). */
    const int wr_taken = (sched_take && sched_qpn == wr_qpn) || (r->claim && !r->rel_valid && look == wr_qpn);
    if (io->qpc_wr && io->qpc_wr_qpn < m->max_qp && qst_wr_q != Q_ACTIVE && qst_wr_q != Q_RESP && !wr_taken) {
        rq_set_qst(m, wr_qpn, Q_IDLE);
        m->rnr_cnt[wr_qpn] = 0;
        m->nak[wr_qpn] = 0;
        m->evt_wait[wr_qpn] = 0;
        m->done[wr_qpn] = 0;
    }

    /* queues */
    hca_qfifo_edge(&m->sq, sq_pop, sq_push, sq_val, 7);
    hca_qfifo_edge(&m->rnq, rn_pop, rn_push, rn_val, 2);
    hca_qfifo_edge(&m->dnq, dn_pop, &dn_push, &dn_val, 1);

    /* arbiters */
    m_arb_edge(&m->dma_arb, &n->dma, io->dma_req_ready);
    m_arb_edge(&m->free_arb, &n->free, io->pb_free_ready);
    m_arb_edge(&m->evt_arb, &n->evt, io->evt_ready);
    m_arb_edge(&m->fin_arb, &n->fin, n->fin_ready);
    hca_xarb_edge(&m->xarb, &n->x, now);

    /* engines */
    hca_req_send_edge(&m->send, s, now);
    hca_req_resp_edge(&m->resp, r, now);

    if (!idle_edge)
        m->gen++;
    /* what the edge could still write with idle_edge: data (deadlines, NAK
     * syndromes, parked messages) and per-QP control */
    m->idle_again = (uint8_t)(hit && idle_edge && !s->rel_rnr && !r->nak_save && !r->claim && !r->done_take &&
                              !r->rel_valid && !sched_take);
    m->idle_serial = io->cache.serial;
    if (!m->base_set) { /* now_q was 0 in this cycle */
        m->base = now;
        m->base_set = 1;
    }
}

void hca_requester_edge(hca_requester_t *m, const hca_requester_io_t *io, uint64_t now)
{
    rq_edge(m, io, now, rq_cache_hit(m, io, now));
}

void hca_requester_edge_settled(hca_requester_t *m, const hca_requester_io_t *io, uint64_t now)
{
    rq_edge(m, io, now, 1);
}

/* The first cycle >= t0 in which RNR-waiting QP q has expired. */
static uint64_t rq_expiry(const hca_requester_t *m, unsigned q, uint64_t t0)
{
    const uint32_t diff = rq_now_q(m, t0) - m->deadline[q];
    if (diff < 0x80000000u)
        return t0;
    return t0 + (uint64_t)(0u - diff); /* wraps to 0 at the deadline */
}

uint64_t hca_requester_quiet_until_in(const hca_requester_t *m, const m_qv_t *sq_pending, const m_qv_t *qp_error,
                                      uint64_t now)
{
    const uint64_t next = now + 1;
    if (!m->base_set || hca_qfifo_valid(&m->dnq) || m->dma_arb.hold || m->free_arb.hold || m->evt_arb.hold ||
        m->fin_arb.hold)
        return next;
    if (m->send.state != 0 /* S_IDLE */ && m->nak[m->s_qpn])
        return next; /* the send engine's nak input: rs_stop */
    uint64_t t = hca_req_send_quiet_until(&m->send, now);
    const uint64_t tr = hca_req_resp_quiet_until(&m->resp, now);
    const uint64_t tx = hca_xarb_quiet_until(&m->xarb, now);
    if (tr < t)
        t = tr;
    if (tx < t)
        t = tx;
    if (t <= next)
        return next;

    /* The scheduler's head: dropped, or taken (send engine idle), next
     * cycle; a candidate stays one while the send engine is busy. */
    if (hca_qfifo_valid(&m->sq)) {
        const unsigned h = hca_qfifo_head(&m->sq);
        if (!rq_head_cand(m, m_qv_get(sq_pending, h), m_qv_get(qp_error, h), rq_now_q(m, next)) ||
            m->send.state == 0 /* S_IDLE */ || hca_req_send_may_yield(&m->send))
            return next;
    }
    /* The RNR queue's head: dropped next cycle, or moved when it expires. */
    if (hca_qfifo_valid(&m->rnq)) {
        const unsigned h = hca_qfifo_head(&m->rnq);
        if (m->qst[h] != Q_RNR_WAIT)
            return next;
        const uint64_t te = rq_expiry(m, h, next);
        if (te < t)
            t = te;
    }
    return t;
}

uint64_t hca_requester_quiet_until(const hca_requester_t *m, uint64_t now)
{
    static const m_qv_t none; /* all zero */
    return hca_requester_quiet_until_in(m, &none, &none, now);
}
