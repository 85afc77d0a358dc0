/* hca_req_send.c — C model of rtl/hca_req_send.sv, cycle for cycle: the
 * requester's send engine (docs/engine.md "Requester" steps 1-5 and 8).
 *
 * Claims the scheduled QP (S_IDLE), latches its context (S_CTX), fetches
 * the WQE at sq_ci (S_FETCH/S_FWAIT, or from the prefetch entry: S_PWAIT;
 * the QP's next posted WQE is read ahead, rs_prefetch), decodes it (S_DECODE), pre-checks its
 * SGEs through the mover (S_CHECK), then per MTU chunk allocates a packet
 * buffer (S_ALLOC) and gathers into it (S_GATHER: its DMAs posted, the
 * mover taking each beat as its DMA is accepted); the gathered chunk waits
 * in the pending register until its DMAs are answered and is sent from there
 * while the next chunk is gathered (S_HOLD when the one before still waits,
 * S_TXWAIT after the last; READ_REQ from S_TX); after the last packet the QP
 * is released in flight with park written. Failures stop at S_ABORT (every
 * posted DMA answered), S_FREE (pending and current buffers). Memory
 * management WRs post a fw_event (S_EVT); failures complete here
 * (S_FREE, S_FINISH). Same FSM, registers and cycles as the RTL; the
 * mover (u_mover) is the member mv. No known difference from the RTL.
 *
 * Speed: the outputs that depend on registers only (packet, event, park,
 * fin, fetch request, the mover's outputs) are rebuilt after every edge
 * that changes state (rs_derive) and only copied by comb; an idle edge
 * returns at once.
 */
#include "hca_req_send.h"

#include <errno.h>
#include <string.h>

/* state_e of the RTL */
enum {
    S_IDLE, S_CTX, S_FETCH, S_FWAIT, S_DECODE, S_CHECK, S_ALLOC, S_GATHER,
    S_TX, S_FREE, S_FINISH, S_EVT, S_HOLD, S_TXWAIT, S_ABORT, S_PWAIT
};

const char *hca_req_send_state_name(unsigned s)
{
    static const char *const name[] = {"S_IDLE", "S_CTX",  "S_FETCH", "S_FWAIT", "S_DECODE", "S_CHECK",
                                       "S_ALLOC", "S_GATHER", "S_TX", "S_FREE", "S_FINISH", "S_EVT",
                                       "S_HOLD", "S_TXWAIT", "S_ABORT", "S_PWAIT"};
    _Static_assert(sizeof name / sizeof name[0] == S_PWAIT + 1, "a name per state");
    return s <= S_PWAIT ? name[s] : "?";
}
#define RS_PFN HCA_REQ_SEND_PFN
#define RS_POST_MAX 8u /* posted DMAs per chunk: tags {0001, slot, seq mod 8} */

/* The RTL's localparams. */
#define RS_DTAG 0x00u /* requester, send engine */
#define RS_XTAG 0x00u
#define RS_WQE_BYTES ((uint32_t)sizeof(hca_sq_wqe_t)) /* HCA_SQ_WQE_W / 8 */
#define RS_PD_MASK ((1u << HCA_PD_BITS) - 1u)

typedef hca_req_send_dec_t rs_dec_t;

/* The host address of the WQE at index idx of a ring at base of 2^lg entries (the RTL's wqe_addr). */
static inline uint64_t rs_wqe_addr(uint64_t base, unsigned lg, uint16_t idx)
{
    return base + (uint64_t)(idx & (uint32_t)(((1u << lg) - 1u) & 0xffffu)) * RS_WQE_BYTES;
}

/* The decode and chunk wires: functions of the registers only. */
static void rs_decode(const hca_req_send_t *m, rs_dec_t *d)
{
    const uint8_t op = m->op;
    d->is_send_inv = op == HCA_WR_OPCODE_SEND_WITH_INV;
    d->is_read_inv = op == HCA_WR_OPCODE_RDMA_READ_WITH_INV;
    d->is_send = op == HCA_WR_OPCODE_SEND || d->is_send_inv;
    d->is_write = op == HCA_WR_OPCODE_RDMA_WRITE;
    d->is_read = op == HCA_WR_OPCODE_RDMA_READ || d->is_read_inv;
    d->is_mm = op == HCA_WR_OPCODE_LOCAL_INV || op == HCA_WR_OPCODE_FAST_REG_MR ||
               op == HCA_WR_OPCODE_REG_INDIR_MR;
    const int no_inv_key = m->inv_key == 0 && m->nsge == 0;
    d->malformed = op > HCA_WR_OPCODE_REG_INDIR_MR || m->nsge > HCA_MAX_SEND_SGE || m->rsvd_bad ||
                   (m->flags >> 2) != 0 || (d->is_read_inv && no_inv_key);
    d->nsge3 = m->nsge > HCA_SQ_WQE_SGE_COUNT ? HCA_SQ_WQE_SGE_COUNT : m->nsge; /* the SGEs the WQE holds */
    d->read_inv_key = m->inv_key != 0 ? m->inv_key : m->sges[0].lkey;

    uint64_t len33 = 0;
    for (unsigned g = 0; g < d->nsge3; g++)
        len33 += m->sges[g].length;
    d->msg_len = (uint32_t)len33;
    d->len_ovf = (uint8_t)(len33 >> 32 & 1u);

    switch (op) { /* completion opcode, also for WRs not served yet */
    case HCA_WR_OPCODE_RDMA_WRITE: d->wc_op = HCA_WC_OPCODE_RDMA_WRITE; break;
    case HCA_WR_OPCODE_RDMA_READ:
    case HCA_WR_OPCODE_RDMA_READ_WITH_INV: d->wc_op = HCA_WC_OPCODE_RDMA_READ; break;
    case HCA_WR_OPCODE_LOCAL_INV: d->wc_op = HCA_WC_OPCODE_LOCAL_INV; break;
    case HCA_WR_OPCODE_FAST_REG_MR: d->wc_op = HCA_WC_OPCODE_FAST_REG_MR; break;
    case HCA_WR_OPCODE_REG_INDIR_MR: d->wc_op = HCA_WC_OPCODE_REG_INDIR_MR; break;
    default: d->wc_op = HCA_WC_OPCODE_SEND; break;
    }

    /* MTU: mtu_log2 8..12; 0 (and anything out of range) is the default. */
    const uint32_t mtu = (m->mtu_log >= 8 && m->mtu_log <= 12) ? 1u << m->mtu_log : HCA_MTU_DEFAULT;
    const uint32_t rem = d->msg_len - m->off;
    d->chunk = rem > mtu ? mtu : rem;
    d->last_chunk = rem <= mtu;
}

/* The WQE prefetch's wires (rtl/hca_req_send.sv "prefetch"). */
typedef struct rs_pf {
    unsigned pe, pn, pa, pk, ps, fs, nent; /* pk: the kill's even entry (pk | 1 the odd) */
    int rtag_pf, ans, live, mine, hit, drop, take, fetch_ans, wqe_take, wqe_err, alloc, offer, go;
    int byp, miss, yield, new_rd; /* the entry's answer taken in S_PWAIT; the miss read; the yield */
    int hasnx;                    /* the other entry holds sq_ci + 1 (read or on its way) */
    int next;                     /* the claim's read of sq_ci + 1 */
    uint16_t nidx;                /* the index the new read fetches */
} rs_pf_t;

/* A QP's entry for SQ index idx: {qpn, idx bit 0} mod PFN (the RTL's pe, pn). */
static inline unsigned rs_pf_ent(unsigned qpn, unsigned idx)
{
    return (qpn << 1 | (idx & 1u)) & (RS_PFN - 1u);
}

static inline int rs_ctx_reset(const hca_req_send_t *m, const hca_req_send_io_t *io);

/* pf_offer: offered when neither the fetch nor the mover offers; once
 * offered it keeps the port until taken. */
static inline int rs_pf_offer(const hca_req_send_t *m)
{
    return m->pf_req && (m->pf_held || (m->state != S_FETCH && m->mv.state != HCA_SGE_MOVER_M_DMA));
}

static void rs_prefetch(const hca_req_send_t *m, const hca_req_send_io_t *io, rs_pf_t *p)
{
    const unsigned rtag = hca_dma_rsp_get_rtag(&io->dma_rsp);
    const int reset = rs_ctx_reset(m, io);
    const int ctx = m->state == S_CTX;
    const uint16_t ci = ctx ? io->sq_ci : m->sq_ci; /* the read port's at the claim, then latched */
    p->pe = rs_pf_ent(m->qpn, ci);
    p->pn = p->pe ^ 1u;
    p->pk = rs_pf_ent(io->pf_kill_qpn, 0);
    p->ps = rtag & 7u;
    p->pa = m->rd_ent[p->ps];
    p->fs = m->rd_out == 0xffu ? 7u : (unsigned)__builtin_ctz(~(unsigned)m->rd_out); /* the lowest free slot */
    p->rtag_pf = !(rtag >> 4 & 1u) && (rtag >> 3 & 1u);
    p->ans = io->dma_rsp_valid && p->rtag_pf;
    p->live = (m->pf_val >> p->pe & 1u) || ((m->pf_pend >> p->pe & 1u) && !(m->pf_dead >> p->pe & 1u));
    p->mine = m->pf_qpn[p->pe] == m->qpn;
    p->hit = p->mine && m->pf_idx[p->pe] == io->sq_ci && p->live;
    p->drop = m->state == S_CTX && !reset && p->mine && !p->hit;
    p->take = m->state == S_PWAIT && (m->pf_val >> p->pe & 1u);
    p->byp = m->state == S_PWAIT && p->ans && p->pa == p->pe && !(m->pf_dead >> p->pe & 1u);
    p->fetch_ans = m->state == S_FWAIT && io->dma_rsp_valid && !p->rtag_pf;
    p->wqe_take = p->fetch_ans || p->take || p->byp;
    p->wqe_err = p->take ? (int)(m->pf_err >> p->pe & 1u) : (int)hca_dma_rsp_get_err(&io->dma_rsp);
    const int pend = (int)(m->pf_pend >> p->pe & 1u);
    const int pendn = (int)(m->pf_pend >> p->pn & 1u);
    p->offer = rs_pf_offer(m);
    p->go = p->offer && io->dma_req_ready;
    /* two WQEs ahead per QP (rtl "The read-ahead keeps two WQEs per QP"):
     * from the take (its cycle, S_DECODE, S_EVT) i+1, then i+2 */
    const int pf_free = !m->pf_req || p->go, rd_free = m->rd_out != 0xffu;
    p->hasnx = m->pf_qpn[p->pn] == m->qpn && m->pf_idx[p->pn] == (uint16_t)(m->sq_ci + 1u) &&
               ((m->pf_val >> p->pn & 1u) || (pendn && !(m->pf_dead >> p->pn & 1u)));
    const uint16_t posted = (uint16_t)(io->sq_pi - m->sq_ci); /* the read port's now, not the claim's */
    const int held = (p->wqe_take && !p->wqe_err) || m->state == S_DECODE || m->state == S_EVT;
    p->alloc = held && !reset && pf_free && rd_free &&
               (p->hasnx ? (!pend || p->byp) && posted >= 3 : !pendn && posted >= 2);
    p->miss = ctx && !reset && !p->hit && !m->pf_req && !pend && rd_free; /* not by go: the yield */
    /* the claim's read of sq_ci + 1 */
    p->next = ctx && !reset && p->hit && !io->sched_valid && !m->pf_req && !pendn && rd_free &&
              (uint16_t)(io->sq_pi - io->sq_ci) >= 2 &&
              !((m->pf_val >> p->pn & 1u) && m->pf_qpn[p->pn] == m->qpn &&
                m->pf_idx[p->pn] == (uint16_t)(io->sq_ci + 1u));
    p->new_rd = p->alloc || p->miss || p->next;
    p->nent = (p->miss || (!p->next && p->hasnx)) ? p->pe : p->pn;
    p->nidx = ctx ? (uint16_t)(io->sq_ci + (p->next ? 1u : 0u)) : (uint16_t)(m->sq_ci + (p->hasnx ? 2u : 1u));
    /* the yield: waiting on the entry's read, or at the claim with no read to start */
    p->yield = ((m->state == S_PWAIT && !(m->pf_val >> p->pe & 1u) && !p->byp && pend &&
                 !(m->pf_dead >> p->pe & 1u) && !m->err_state) ||
                (ctx && !p->hit && !p->miss && hca_qp_ctx_get_state(&io->qpc) != HCA_QP_STATE_ERROR)) &&
               io->sched_valid && m->fresh && !reset;
}

/* A tag is free for the gathering chunk's next post. */
static inline int rs_room(const hca_req_send_t *m)
{
    return (m->slot ? m->cnt1 : m->cnt0) < RS_POST_MAX;
}

/* The mover's port inputs as hca_req_send drives them. mv_start is the
 * state machine's; the rest are wires. */
static void rs_mover_in(const hca_req_send_t *m, const hca_req_send_io_t *io, const rs_dec_t *d,
                        uint8_t mv_start, hca_sge_mover_io_t *mio)
{
    const int decode = m->state == S_DECODE;
    mio->start = mv_start;
    mio->check_only = (uint8_t)decode;
    mio->to_host = 0;
    mio->rights = d->is_read ? HCA_ACCESS_LOCAL_WRITE : 0;
    mio->pd = m->pd;
    mio->qpn = m->qpn;
    mio->off = decode ? 0 : m->off;
    mio->len = decode ? d->msg_len : d->chunk;
    mio->buf = io->alloc_id;
    mio->num_sge = d->nsge3;
    memcpy(mio->sge, m->sges, sizeof(mio->sge));
    mio->xq_ready = io->xq_ready;
    mio->xs_valid = io->xs_valid;
    mio->xs_status = io->xs_status;
    mio->xs_last = io->xs_last;
    mio->xs_len = io->xs_len;
    mio->xs_pa = io->xs_pa;
    mio->dma_req_ready = io->dma_req_ready && rs_room(m) && !rs_pf_offer(m);
    mio->dma_rsp_valid = io->dma_rsp_valid;
    mio->dma_rsp_err = (uint8_t)hca_dma_rsp_get_err(&io->dma_rsp);
}

/* The state machine's always_comb: next state and mv_start (its outputs
 * sched_ready and alloc_ready are driven in hca_req_send_comb). */
typedef struct rs_next {
    uint8_t state, buf, status, err, rnr, cur, slot, pv;
    uint32_t off;
    uint8_t mv_start;
    uint8_t pend_go; /* the pending packet leaves this cycle */
} rs_next_t;

/* The firmware wrote the QP to RESET while this engine holds it (the read
 * port follows the live state): stop at the next step, release without a
 * completion (rtl/hca_req_send.sv). */
static inline int rs_ctx_reset(const hca_req_send_t *m, const hca_req_send_io_t *io)
{
    return m->gone || hca_qp_ctx_get_state(&io->qpc) == HCA_QP_STATE_RESET;
}

/* The pending packet may leave: every DMA of its chunk answered, none err,
 * the message not stopping. */
static inline int rs_tx_pend(const hca_req_send_t *m, const hca_req_send_io_t *io, int reset)
{
    return m->pv && (m->pslot ? m->cnt1 : m->cnt0) == 0 && !(m->pslot ? m->berr1 : m->berr0) && !io->nak &&
           !reset && m->state != S_ABORT && m->state != S_FREE && m->state != S_FINISH;
}

/* S_FREE gave back the last buffer of a message an RNR_NAK stopped: the QP
 * goes into RNR wait (no completion). */
static inline int rs_rel_rnr(const hca_req_send_t *m, int reset)
{
    return m->state == S_FREE && !m->pv && !m->cur && m->rnr && !reset;
}

/* A stop at a check point: 1 and n's status/err/state set, or 0. */
static int rs_stop(const hca_req_send_t *m, const hca_req_send_io_t *io, int reset, rs_next_t *n)
{
    if (reset) {
        n->state = S_ABORT;
    } else if (io->nak) {
        n->status = io->nak_syn & 0x1fu;
        n->err = !io->nak_rnr;
        n->rnr = io->nak_rnr;
        n->state = S_ABORT;
    } else if (m->berr0 || m->berr1) {
        n->status = HCA_WC_STATUS_LOC_ACCESS_ERR;
        n->err = 1;
        n->state = S_ABORT;
    } else {
        return 0;
    }
    return 1;
}

static void rs_step(const hca_req_send_t *m, const hca_req_send_io_t *io, const rs_dec_t *d, const rs_pf_t *p,
                    rs_next_t *n)
{
    const uint8_t mv_done = m->mv.state == HCA_SGE_MOVER_M_DONE;
    const int reset = rs_ctx_reset(m, io);
    const uint8_t mv_status = m->mv.st;
    const int pend_go = rs_tx_pend(m, io, reset) && io->tx_ready;
    n->state = m->state;
    n->off = m->off;
    n->buf = m->buf;
    n->status = m->status;
    n->err = m->err;
    n->rnr = m->rnr && m->state != S_IDLE;
    n->cur = m->cur;
    n->slot = m->slot;
    n->pv = m->pv && !pend_go;
    n->pend_go = (uint8_t)pend_go;
    n->mv_start = 0;
    switch (m->state) {
    case S_IDLE:
        if (io->sched_valid)
            n->state = S_CTX;
        break;
    case S_CTX:
        /* RESET: nothing to serve (a WRITE_QPC raced the scheduler). */
        n->state = reset ? S_IDLE : (p->hit || p->miss) ? S_PWAIT : p->yield ? S_IDLE : S_FETCH;
        break;
    case S_FETCH:
        if (reset)
            n->state = S_FINISH;
        else if (io->dma_req_ready && !p->offer)
            n->state = S_FWAIT;
        break;
    case S_FWAIT:
    case S_PWAIT:
        if (p->wqe_take) {
            if (p->wqe_err) {
                n->status = m->err_state ? HCA_WC_STATUS_WR_FLUSH_ERR : HCA_WC_STATUS_LOC_ACCESS_ERR;
                n->err = 1;
                n->state = S_FINISH;
            } else {
                n->state = S_DECODE;
            }
        } else if (m->state == S_PWAIT && !p->live) {
            n->state = S_FETCH; /* the entry was killed */
        } else if (p->yield) {
            n->state = S_IDLE; /* released idle, queued again */
        }
        break;
    case S_DECODE:
        n->err = 1;
        if (reset) {
            n->state = S_FINISH;
        } else if (m->err_state) {
            n->status = HCA_WC_STATUS_WR_FLUSH_ERR;
            n->state = S_FINISH;
        } else if (d->malformed) {
            n->status = HCA_WC_STATUS_LOC_QP_OP_ERR;
            n->state = S_FINISH;
        } else if (d->is_mm) {
            n->err = 0;
            n->state = S_EVT;
        } else if (d->len_ovf) {
            n->status = HCA_WC_STATUS_LOC_LEN_ERR;
            n->state = S_FINISH;
        } else {
            n->err = 0;
            n->mv_start = 1;
            n->state = S_CHECK;
        }
        break;
    case S_CHECK:
        if (mv_done) {
            n->off = 0;
            if (reset) {
                n->state = S_FINISH;
            } else if (mv_status != HCA_SGE_MOVER_ST_OK) {
                n->status = HCA_WC_STATUS_LOC_PROT_ERR;
                n->err = 1;
                n->state = S_FINISH;
            } else {
                n->state = d->is_read ? S_TX : S_ALLOC;
            }
        }
        break;
    case S_ALLOC:
        if (rs_stop(m, io, reset, n)) {
        } else if (io->alloc_valid) {
            n->buf = io->alloc_id;
            n->cur = 1;
            n->mv_start = 1;
            n->state = S_GATHER;
        }
        break;
    case S_GATHER:
    case S_HOLD:
        /* S_GATHER acts once the chunk is walked (its DMAs posted) */
        if (m->state == S_HOLD || mv_done) {
            if (reset) {
                n->state = S_ABORT;
            } else if (io->nak) {
                n->status = io->nak_syn & 0x1fu;
                n->err = !io->nak_rnr;
                n->rnr = io->nak_rnr;
                n->state = S_ABORT;
            } else if (m->state == S_GATHER && mv_status != HCA_SGE_MOVER_ST_OK) {
                n->status = HCA_WC_STATUS_LOC_PROT_ERR;
                n->err = 1;
                n->state = S_ABORT;
            } else if (rs_stop(m, io, reset, n)) {
            } else if (m->pv) {
                n->state = S_HOLD; /* the chunk before is still pending */
            } else {
                n->pv = 1; /* this chunk becomes the pending packet */
                n->cur = 0;
                if (d->last_chunk) {
                    n->state = S_TXWAIT;
                } else {
                    n->off = m->off + d->chunk;
                    n->slot = !m->slot;
                    n->state = S_ALLOC;
                }
            }
        }
        break;
    case S_TXWAIT:
        if (rs_stop(m, io, reset, n)) {
        } else if (pend_go) {
            n->state = S_IDLE; /* the last packet left: in flight */
        }
        break;
    case S_TX: /* READ_REQ (holds no buffer) */
        if (reset) {
            n->state = S_FINISH;
        } else if (io->tx_ready) {
            if (io->nak) {
                n->status = io->nak_syn & 0x1fu;
                n->err = 1;
                n->state = S_FINISH;
            } else {
                n->state = S_IDLE;
            }
        }
        break;
    case S_ABORT: /* every posted DMA answered before the buffers go back */
        if (m->cnt0 == 0 && m->cnt1 == 0)
            n->state = S_FREE;
        break;
    case S_FREE:
        if (!m->pv && !m->cur) {
            n->state = rs_rel_rnr(m, reset) ? S_IDLE : S_FINISH;
        } else if (io->free_ready) {
            if (m->pv)
                n->pv = 0;
            else
                n->cur = 0;
        }
        break;
    case S_FINISH:
        if (io->fin_ready || reset)
            n->state = S_IDLE;
        break;
    case S_EVT:
        if (reset)
            n->state = S_FINISH;
        else if (io->evt_ready)
            n->state = S_IDLE;
        break;
    default:
        n->state = S_IDLE;
        break;
    }
}

/* wqe_ok (fw_event.hdr; abi/hca.toml names the rules): a FAST_REG_MR's
 * rules that read only the WQE, as the RTL's wqe_ok at S_DECODE. */
static int rs_wqe_ok(const hca_req_send_t *m)
{
#define FRP(f) ((m->fr_params >> HCA_SQ_WQE_FR_##f##_LSB) & ((1u << HCA_SQ_WQE_FR_##f##_WIDTH) - 1u))
    if (m->op != HCA_WR_OPCODE_FAST_REG_MR)
        return 0;
#ifdef HCA_MUTANT_FR_WQE_OK_ALWAYS
    return 1; /* mutant (vectors/mutation.mk): every FAST_REG_MR's WQE passes */
#endif
    const uint32_t ps = FRP(PAGE_SHIFT), acc = FRP(ACCESS);
    const uint32_t mask = (uint32_t)((1ull << ps) - 1u), len = (uint32_t)m->fr_length;
    if (!FRP(INLINE) || FRP(LIST_LEN) != 1)
        return 0;
    if (m->rkey && m->rkey >> HCA_KEY_INDEX_SHIFT != m->fr_key >> HCA_KEY_INDEX_SHIFT)
        return 0;
    if (ps < HCA_PAGE_SHIFT_MIN || ps > HCA_PAGE_SHIFT_MAX)
        return 0;
    if (m->fr_length >> 32 || len - 1u >= mask + 1u - ((uint32_t)m->fr_iova & mask)) /* 1..page - fbo */
        return 0;
    if (m->fr_iova + m->fr_length < m->fr_iova || ((uint32_t)m->fr_list & mask))
        return 0;
    return (acc & HCA_ACCESS_LOCAL_WRITE) || !(acc & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC));
#undef FRP
}

/* Refresh the derived wires and register-only outputs (m->dec, *_w) after
 * the registers changed. */
static void rs_derive(hca_req_send_t *m)
{
    rs_dec_t *d = &m->dec;
    rs_decode(m, d);

    /* packet */
    hca_pkt_t *t = &m->tx_w;
    memset(t, 0, sizeof(*t));
    if (d->is_read) {
        t->hdr = (uint32_t)HCA_PKT_OP_READ_REQ << HCA_PKT_OP_LSB | 1u << HCA_PKT_FIRST_LSB |
                 1u << HCA_PKT_LAST_LSB;
        t->raddr = m->raddr;
        t->len = 0;
    } else {
        const uint32_t op = d->is_write ? HCA_PKT_OP_WRITE : d->is_send_inv ? HCA_PKT_OP_SEND_INV : HCA_PKT_OP_SEND;
        t->hdr = op << HCA_PKT_OP_LSB | (uint32_t)(m->poff == 0) << HCA_PKT_FIRST_LSB |
                 (uint32_t)m->plast << HCA_PKT_LAST_LSB | (uint32_t)m->pbuf << HCA_PKT_PBUF_LSB;
        t->inv_key = d->is_send_inv ? m->inv_key : 0;
        t->raddr = d->is_write ? m->raddr + m->poff : 0;
        t->len = m->plen;
    }
    t->qpns = (uint32_t)m->rqpn << HCA_PKT_DST_QPN_LSB | (uint32_t)m->qpn << HCA_PKT_SRC_QPN_LSB;
    t->psn = m->sq_ci;
    t->rkey = d->is_send ? 0 : m->rkey;
    t->msg_len = d->msg_len;
    t->offset = d->is_read ? 0 : m->poff;

    /* event: the WQE's fr_* fields are fw_event's params, iova, length, list */
    hca_fw_event_t *e = &m->evt_w;
    const int linv = m->op == HCA_WR_OPCODE_LOCAL_INV;
    const uint32_t kind = linv ? HCA_EVT_KIND_LOCAL_INV
                          : m->op == HCA_WR_OPCODE_FAST_REG_MR ? HCA_EVT_KIND_FAST_REG_MR
                                                               : HCA_EVT_KIND_REG_INDIR_MR;
    memset(e, 0, sizeof(*e));
    e->hdr = kind << HCA_FW_EVENT_KIND_LSB | (uint32_t)m->wqe_ok << HCA_FW_EVENT_WQE_OK_LSB | (uint32_t)(m->qpn & ((1u << HCA_FW_EVENT_TAG_WIDTH) - 1u)) << HCA_FW_EVENT_TAG_LSB |
             (uint32_t)m->qpn << HCA_FW_EVENT_QPN_LSB;
    e->pd = m->pd;
    e->key = linv ? m->inv_key : m->fr_key;
    e->params = m->fr_params;
    e->iova = m->fr_iova;
    e->length = m->fr_length;
    e->list = m->fr_list;
    e->mr_key = linv ? 0 : m->rkey; /* registrations: the MR the WR names */
    if (m->wqe_ok) { /* the MPT flags word the fast path commits as read */
        hca_mpt_entry_t f = {0};
        hca_mpt_entry_set_alloc(&f, 1);
        hca_mpt_entry_set_state(&f, HCA_MKEY_STATE_VALID);
        hca_mpt_entry_set_kind(&f, HCA_MKEY_KIND_FAST_REG);
        hca_mpt_entry_set_mode(&f, HCA_MKEY_MODE_MTT);
        hca_mpt_entry_set_access(&f, m->fr_params >> HCA_SQ_WQE_FR_ACCESS_LSB);
        hca_mpt_entry_set_page_shift(&f, m->fr_params >> HCA_SQ_WQE_FR_PAGE_SHIFT_LSB);
        e->mpt_flags = f.flags;
    }

    /* park */
    hca_req_send_park_t *p = &m->park_w;
    p->psn = m->sq_ci;
    p->wc_op = d->wc_op & 0xfu;
    p->read_inv = d->is_read_inv;
    p->signaled = m->flags & HCA_SEND_FLAGS_SIGNALED;
    p->num_sge = d->nsge3;
    p->msg_len = d->msg_len;
    p->inv_key = d->read_inv_key;
    p->wr_id = m->wr_id;
    memcpy(p->sge, m->sges, sizeof(p->sge));

    /* finish: a flush does not move the QP (it is in ERROR already) */
    hca_req_send_fin_t *f = &m->fin_w;
    f->qpn = m->qpn;
    f->cqn = m->cqn;
    f->write = 1;
    f->err = m->err && !m->err_state;
    memset(&f->cqe, 0, sizeof(f->cqe));
    f->cqe.wr_id = m->wr_id;
    f->cqe.byte_len = d->msg_len;
    f->cqe.qpn = m->qpn;
    f->cqe.info = (uint32_t)m->status << HCA_CQE_STATUS_LSB | (uint32_t)d->wc_op << HCA_CQE_OPCODE_LSB;
    f->cqe.wqe_counter = m->sq_ci;

    /* the WQE fetch: READ_DATA of the entry at sq_ci mod 2^sq_log */
    hca_dma_req_t *q = &m->fetch_w;
    memset(q, 0, sizeof(*q));
    q->hdr = (uint32_t)HCA_DMA_OP_READ_DATA << HCA_DMA_REQ_OP_LSB | (uint32_t)RS_DTAG << HCA_DMA_REQ_TAG_LSB;
    q->len = RS_WQE_BYTES;
    q->addr = rs_wqe_addr(m->sq_base, m->sq_log, m->sq_ci);
    q->qpn = m->qpn;

    /* the mover's outputs with every xs/dma input low */
    hca_sge_mover_io_t *mio = &m->mv_w;
    memset(mio, 0, sizeof(*mio));
    memcpy(mio->sge, m->sges, sizeof(mio->sge));
    hca_sge_mover_comb(&m->mv, mio, 0);
}

int hca_req_send_init(hca_req_send_t *m, unsigned qw)
{
    if (qw < 1 || qw > 16)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    m->qw = (uint8_t)qw;
    hca_sge_mover_init(&m->mv, RS_XTAG, RS_DTAG, 1);
    hca_req_send_reset(m);
    return 0;
}

void hca_req_send_reset(hca_req_send_t *m)
{
    /* The async-reset registers only; context and WQE fields keep theirs. */
    m->state = S_IDLE;
    m->gone = 0;
    m->qpn = 0;
    m->off = 0;
    m->buf = 0;
    m->status = 0;
    m->err = 0;
    m->rnr = 0;
    m->cur = 0;
    m->slot = 0;
    m->cnt0 = m->cnt1 = 0;
    m->seq0 = m->seq1 = 0;
    m->berr0 = m->berr1 = 0;
    m->pv = 0;
    m->pslot = 0;
    m->pf_val = m->pf_pend = m->pf_dead = 0;
    m->rd_out = 0;
    m->pf_req = m->pf_held = 0;
    hca_sge_mover_reset(&m->mv);
    rs_derive(m);
}

void hca_req_send_comb(const hca_req_send_t *m, hca_req_send_io_t *io, uint64_t now)
{
    const rs_dec_t *d = &m->dec;
    const uint8_t state = m->state;
    const int reset = rs_ctx_reset(m, io);

    /* The state machine's always_comb outputs (rs_step has the rest). */
    const int tx_pend = rs_tx_pend(m, io, reset);
    const int pend_go = tx_pend && io->tx_ready;
    io->sched_ready = state == S_IDLE;
    io->alloc_ready = state == S_ALLOC && !io->nak && !reset && !m->berr0 && !m->berr1;

    /* Releases: the wrapper feeds them back into the response engine's claim
     * in the same cycle. */
    io->rel_evt = state == S_EVT && io->evt_ready && !reset;
    io->rel_inflight = (state == S_TX && io->tx_ready && !io->nak && !reset) || (state == S_TXWAIT && pend_go) ||
                       io->rel_evt;
    io->rel_rnr = (uint8_t)rs_rel_rnr(m, reset);
    io->rnr_timer = io->qpc.rnr_timer;
    io->rel_valid = io->rel_inflight || io->rel_rnr || (state == S_FINISH && (io->fin_ready || reset)) || (state == S_CTX && reset);
    if ((state == S_PWAIT || state == S_CTX) && io->sched_valid) { /* the yield */
        rs_pf_t p;
        rs_prefetch(m, io, &p);
        io->rel_valid = io->rel_valid || p.yield;
    }
    io->qpn = state == S_IDLE ? (uint16_t)(io->sched_qpn & ((1u << m->qw) - 1u)) : m->qpn;
    io->free_valid = state == S_FREE && (m->pv || m->cur);
    io->free_id = m->pv ? m->pbuf : m->buf;

    /* The mover's outputs: from the cache, but its readies depend on its
     * inputs in M_BEAT / M_DWAIT (its comb does not read start: mv_start 0),
     * and its DMA request carries xs_len / xs_pa. */
    const hca_sge_mover_io_t *mw = &m->mv_w;
    uint8_t xs_ready = 0, mv_rsp_ready = 0;
    if (m->mv.state == HCA_SGE_MOVER_M_BEAT || m->mv.state == HCA_SGE_MOVER_M_DWAIT ||
        m->mv.state == HCA_SGE_MOVER_M_DMA) {
        hca_sge_mover_io_t mio;
        rs_mover_in(m, io, d, 0, &mio);
        hca_sge_mover_comb(&m->mv, &mio, now);
        xs_ready = mio.xs_ready;
        mv_rsp_ready = mio.dma_rsp_ready;
    }
    io->xq_valid = mw->xq_valid;
    io->xq = mw->xq;
    io->xs_ready = xs_ready;

    /* DMA: the WQE fetch shares the port with the mover (never at once). */
    /* Posted gathers carry tag {0001, slot, seq}: the answer names its chunk. */
    const int rtag_post = (hca_dma_rsp_get_rtag(&io->dma_rsp) >> 4) & 1u;
    const int pf_offer = rs_pf_offer(m);
    const unsigned rtag = hca_dma_rsp_get_rtag(&io->dma_rsp);
    const int rtag_pf = !(rtag >> 4 & 1u) && (rtag >> 3 & 1u);
    io->dma_req_valid = pf_offer || (state == S_FETCH && !reset) || (mw->dma_req_valid && rs_room(m));
    if (pf_offer) {
        hca_dma_req_t *q = &io->dma_req;
        memset(q, 0, sizeof(*q));
        q->hdr = (uint32_t)HCA_DMA_OP_READ_DATA << HCA_DMA_REQ_OP_LSB | (0x08u | m->pf_slot) << HCA_DMA_REQ_TAG_LSB;
        q->len = RS_WQE_BYTES;
        q->addr = m->pf_addr;
        q->qpn = m->pf_qpn[m->pf_ent];
    } else if (state == S_FETCH) {
        io->dma_req = m->fetch_w;
    } else {
        io->dma_req = mw->dma_req;
        io->dma_req.len = io->xs_len;
        io->dma_req.addr = io->xs_pa;
        hca_dma_req_set_tag(&io->dma_req, 0x10u | (unsigned)m->slot << 3 | (m->slot ? m->seq1 : m->seq0));
    }
    io->dma_rsp_ready = state == S_FWAIT || rtag_post || rtag_pf || mv_rsp_ready;
    /* busy from the first key check until every posted DMA was answered */
    io->mv_busy = (uint8_t)((m->cnt1 != 0) << 2 | (m->cnt0 != 0) << 1 | (mw->busy != 0));
    /* WQE reads: the fetch from its offer to its answer, each prefetch entry
     * from its allocation to its answer (HCA_MUTANT_DRAIN_NO_WQE_READ: none) */
#ifndef HCA_MUTANT_DRAIN_NO_WQE_READ
    io->rd_busy = (uint16_t)((unsigned)m->rd_out << 1 | (state == S_FETCH || state == S_FWAIT));
#else
    io->rd_busy = 0;
#endif

    io->tx = m->tx_w;
    io->tx_valid = (state == S_TX && !reset) || tx_pend;
    io->evt = m->evt_w;
    io->evt_valid = state == S_EVT && !reset;
    io->park = m->park_w;
    io->fin = m->fin_w;
    io->fin_valid = state == S_FINISH && !reset;
}

void hca_req_send_edge(hca_req_send_t *m, const hca_req_send_io_t *io, uint64_t now)
{
    rs_pf_t p;
    rs_prefetch(m, io, &p);
    if (m->state == S_IDLE && !io->sched_valid && !m->pf_req && !p.ans &&
        !(io->pf_kill && ((m->pf_val | m->pf_pend) >> p.pk & 3u)))
        return; /* idle: nothing latches, the mover is idle too */

    rs_next_t n;
    hca_sge_mover_io_t mio;
    rs_step(m, io, &m->dec, &p, &n);
    rs_mover_in(m, io, &m->dec, n.mv_start, &mio);
    /* a post: the mover's DMA request accepted (valid from its state) */
    const int post = m->mv.state == HCA_SGE_MOVER_M_DMA && mio.dma_req_ready;
    const unsigned rtag = hca_dma_rsp_get_rtag(&io->dma_rsp);
    const int ans = io->dma_rsp_valid && (rtag >> 4 & 1u);
    const int ans0 = ans && !(rtag >> 3 & 1u), ans1 = ans && (rtag >> 3 & 1u);
    const int rsp_err = (int)hca_dma_rsp_get_err(&io->dma_rsp);
    const int start_here = n.mv_start && m->state == S_ALLOC;
    hca_sge_mover_edge(&m->mv, &mio, now);
    m->cnt0 = (uint8_t)((m->cnt0 + (post && !m->slot) - ans0) & 0xfu);
    m->cnt1 = (uint8_t)((m->cnt1 + (post && m->slot) - ans1) & 0xfu);
    m->seq0 = (uint8_t)((m->seq0 + (post && !m->slot)) & 7u);
    m->seq1 = (uint8_t)((m->seq1 + (post && m->slot)) & 7u);
    /* a chunk starting on a slot clears its error (the slot is idle then);
     * a new message clears both (a bus error of the last one's other slot
     * would stop it at its first check: every DMA was answered by then) */
    const int new_msg = m->state == S_CTX;
    m->berr0 = (new_msg || (start_here && !m->slot)) ? 0 : (uint8_t)(m->berr0 || (ans0 && rsp_err));
    m->berr1 = (new_msg || (start_here && m->slot)) ? 0 : (uint8_t)(m->berr1 || (ans1 && rsp_err));
    if (n.pv && !m->pv) {
        m->pslot = m->slot;
        m->pbuf = m->buf;
        m->poff = m->off;
        m->plen = m->dec.chunk;
        m->plast = m->dec.last_chunk;
    }

    const uint8_t state = m->state;
    if (state == S_IDLE && io->sched_valid) {
        m->qpn = (uint16_t)(io->sched_qpn & ((1u << m->qw) - 1u));
        m->fresh = io->sched_fresh;
    }
    if (state == S_DECODE)
        m->wqe_ok = (uint8_t)rs_wqe_ok(m);
    if (state == S_CTX) {
        const hca_qp_ctx_t *q = &io->qpc;
        m->sq_base = q->sq_base;
        m->sq_log = (uint8_t)hca_qp_ctx_get_sq_log(q);
        m->mtu_log = (uint8_t)hca_qp_ctx_get_mtu_log2(q);
        m->pd = q->pd & RS_PD_MASK;
        m->rqpn = (uint16_t)q->remote_qpn;
        m->cqn = (uint16_t)hca_qp_ctx_get_send_cqn(q);
        m->sq_ci = io->sq_ci;
        m->err_state = hca_qp_ctx_get_state(q) == HCA_QP_STATE_ERROR;
    }
    /* prefetch entries: answer, drop at a claim, take, allocation, kill */
    {
        const unsigned pe = p.pe, pa = p.pa, pk = p.pk, ne = p.nent;
        uint32_t val = m->pf_val, pend = m->pf_pend, dead = m->pf_dead;
        unsigned rd = m->rd_out;
        if (p.ans) {
            rd &= ~(1u << p.ps);
            pend &= ~(1u << pa);
            dead &= ~(1u << pa);
            val = (val & ~(1u << pa)) | (unsigned)!(m->pf_dead >> pa & 1u) << pa;
        }
        if (p.drop) {
            val &= ~(1u << pe);
            dead = (dead & ~(1u << pe)) | (pend & 1u << pe);
        }
        if (p.take || p.byp)
            val &= ~(1u << pe);
        if (p.new_rd) {
            rd |= 1u << p.fs;
            pend |= 1u << ne;
            dead &= ~(1u << ne);
            val &= ~(1u << ne);
        }
        if (io->pf_kill) { /* both entries of the number */
            val &= ~(3u << pk);
            dead = (dead & ~(3u << pk)) | (pend & 3u << pk);
        }
        m->pf_held = (uint8_t)(p.offer && !io->dma_req_ready);
        m->pf_req = (uint8_t)(p.new_rd || (m->pf_req && !p.go));
        if (p.new_rd) {
            /* at the claim: the context straight from the read port */
            const int ctx = m->state == S_CTX;
            const uint64_t base = ctx ? io->qpc.sq_base : m->sq_base;
            const unsigned lg = ctx ? hca_qp_ctx_get_sq_log(&io->qpc) : m->sq_log;
            m->pf_ent = (uint8_t)ne;
            m->pf_slot = (uint8_t)p.fs;
            m->rd_ent[p.fs] = (uint8_t)ne;
            m->pf_addr = rs_wqe_addr(base, lg, p.nidx);
            m->pf_qpn[ne] = m->qpn;
            m->pf_idx[ne] = p.nidx;
        }
        m->pf_val = val;
        m->pf_pend = pend;
        m->pf_dead = dead;
        m->rd_out = (uint8_t)rd;
    }
    if (p.wqe_take) {
        hca_sq_wqe_t w;
        if (p.take)
            w = m->pf_wqe[p.pe];
        else
            memcpy(&w, io->dma_rsp.rdata, sizeof(w)); /* rdata's bytes are the WQE */
        m->op = (uint8_t)hca_sq_wqe_get_opcode(&w);
        m->flags = (uint8_t)hca_sq_wqe_get_flags(&w);
        m->nsge = (uint8_t)hca_sq_wqe_get_num_sge(&w);
        m->rsvd_bad = hca_sq_wqe_get_ctrl_rsvd(&w) != 0 || w.rsvd0 != 0;
        m->wr_id = w.wr_id;
        m->raddr = w.remote_addr;
        m->rkey = w.rkey;
        m->inv_key = w.inv_key;
        m->fr_iova = w.fr_iova;
        m->fr_length = w.fr_length;
        m->fr_list = w.fr_list;
        m->fr_key = w.fr_key;
        m->fr_params = w.fr_params;
        memcpy(m->sges, w.sge, sizeof(m->sges));
        if (p.wqe_err) {
            /* A failed fetch completes with wr_id 0 and no SGEs. */
            m->op = HCA_WR_OPCODE_SEND;
            m->flags = 0;
            m->nsge = 0;
            m->wr_id = 0;
        }
    }
    if (p.ans) {
        memcpy(&m->pf_wqe[p.pa], io->dma_rsp.rdata, sizeof(m->pf_wqe[p.pa]));
        m->pf_err = (m->pf_err & ~(1u << p.pa)) | (uint32_t)hca_dma_rsp_get_err(&io->dma_rsp) << p.pa;
    }
    m->gone = state != S_IDLE && n.state != S_IDLE && rs_ctx_reset(m, io);
    m->state = n.state;
    m->off = n.off;
    m->buf = n.buf;
    m->status = n.status;
    m->err = n.err;
    m->rnr = n.rnr;
    m->cur = n.cur;
    m->slot = n.slot;
    m->pv = n.pv;
    rs_derive(m);
}

uint64_t hca_req_send_quiet_until(const hca_req_send_t *m, uint64_t now)
{
    if (m->pf_req)
        return now + 1; /* a prefetch to offer */
    switch (m->state) {
    case S_IDLE:  /* waits for sched_valid (a prefetch's answer: dma_rsp_valid) */
    case S_FWAIT: /* waits for dma_rsp_valid */
        return UINT64_MAX;
    case S_PWAIT: /* waits for the entry's answer, unless it is there or dropped */
        return ((m->pf_pend & ~m->pf_dead) >> rs_pf_ent(m->qpn, m->sq_ci) & 1u) ? UINT64_MAX : now + 1;
    case S_HOLD:
    case S_TXWAIT: /* the pending packet waits for its answers: only dma_rsp_valid moves it (an
                    * answer's err, berr, and the requester's nak input, rs_stop, would) */
        if (m->pv && (m->pslot ? m->cnt1 : m->cnt0) != 0 && !m->berr0 && !m->berr1)
            return hca_sge_mover_quiet_until(&m->mv, now);
        return now + 1;
    case S_CHECK:
    case S_GATHER: /* the mover works; it reports its own waits */
        if (m->pv || m->cnt0 || m->cnt1)
            return now + 1; /* the pending packet's answers and the link */
        return hca_sge_mover_quiet_until(&m->mv, now);
    default:
        return now + 1;
    }
}
