/* hca_sge_mover.c — C model of rtl/hca_sge_mover.sv, cycle for cycle.
 *
 * For every SGE the range [off, off + len) touches, the piece in it is
 * key-checked (one translation request) and, unless check_only, every
 * segment beat becomes one DMA request (HOST_TO_BUF, or BUF_TO_HOST with
 * to_host); a segment's beat is taken only once its DMA is answered (post:
 * once its DMA is accepted; the owner counts the answers). The
 * first failing beat ends the walk with PROT, a DMA bus error with ACCESS.
 *
 * Same FSM (M_*), same registers, same cycle for every transition. No
 * known difference from the RTL.
 */
#include "hca_sge_mover.h"

#include <string.h>

/* The RTL's state names (enum in the header). */
enum {
    M_IDLE = HCA_SGE_MOVER_M_IDLE, M_SGE = HCA_SGE_MOVER_M_SGE, M_XREQ = HCA_SGE_MOVER_M_XREQ,
    M_BEAT = HCA_SGE_MOVER_M_BEAT, M_DMA = HCA_SGE_MOVER_M_DMA, M_DWAIT = HCA_SGE_MOVER_M_DWAIT,
    M_NEXT = HCA_SGE_MOVER_M_NEXT, M_DONE = HCA_SGE_MOVER_M_DONE
};

#define MASK33 ((1ull << 33) - 1)

/* The always_comb's next-state values. */
typedef struct mv_next {
    uint8_t state, i, st;
    uint64_t s;
    uint32_t boff, plen;
    uint64_t va;
    uint8_t xs_ready, dma_rsp_ready;
} mv_next_t;

/* The RTL's first always_comb, from the state and io's inputs. */
static void mv_step(const hca_sge_mover_t *m, const hca_sge_mover_io_t *io, mv_next_t *d)
{
    d->state = m->state;
    d->i = m->i;
    d->s = m->s;
    d->st = m->st;
    d->boff = m->boff;
    d->va = m->va;
    d->plen = m->plen;
    d->xs_ready = 0;
    d->dma_rsp_ready = 0;

    switch (m->state) {
    case M_IDLE:
        if (io->start) {
            d->i = 0;
            d->s = 0;
            d->st = HCA_SGE_MOVER_ST_OK;
            d->state = M_SGE;
        }
        break;
    case M_SGE: {
        const hca_sge_t *sg = &io->sge[m->i & 3u];
        const uint64_t sg_end = (m->s + sg->length) & MASK33;
        const uint64_t p_lo = m->lo > m->s ? m->lo : m->s;
        const uint64_t p_hi = m->hi < sg_end ? m->hi : sg_end;
        if (m->i >= (io->num_sge & 7u) || m->s >= m->hi) {
            d->state = M_DONE;
        } else if (p_lo < p_hi) {
            d->va = sg->addr + ((p_lo - m->s) & MASK33);
            d->plen = (uint32_t)(p_hi - p_lo);
            d->boff = (uint32_t)(p_lo - m->lo);
            d->state = M_XREQ;
        } else {
            d->state = M_NEXT;
        }
        break;
    }
    case M_XREQ:
        if (io->xq_ready)
            d->state = M_BEAT;
        break;
    case M_BEAT:
        if (io->xs_valid) {
            if (io->xs_status != HCA_XLATE_STATUS_OK && m->st == HCA_SGE_MOVER_ST_OK)
                d->st = HCA_SGE_MOVER_ST_PROT;
            /* Pre-checks, and beats after (or of) a failure, are taken at once. */
            if (m->chk || m->st != HCA_SGE_MOVER_ST_OK || io->xs_status != HCA_XLATE_STATUS_OK) {
                d->xs_ready = 1;
                if (io->xs_last)
                    d->state = M_NEXT;
            } else {
                d->state = M_DMA;
            }
        }
        break;
    case M_DMA:
        if (io->dma_req_ready && m->post) {
            /* POST: the beat is taken as its DMA is accepted (owner counts answers) */
            d->xs_ready = 1;
            d->boff = m->boff + io->xs_len;
            d->state = io->xs_last ? M_NEXT : M_BEAT;
        } else if (io->dma_req_ready) {
            d->state = M_DWAIT;
        }
        break;
    case M_DWAIT:
        d->dma_rsp_ready = 1;
        if (io->dma_rsp_valid) {
            /* The beat is still held: take it now that its DMA is answered. */
            d->xs_ready = 1;
            d->boff = m->boff + io->xs_len;
            if (io->dma_rsp_err)
                d->st = HCA_SGE_MOVER_ST_ACCESS;
            d->state = io->xs_last ? M_NEXT : M_BEAT;
        }
        break;
    case M_NEXT:
        if (m->st != HCA_SGE_MOVER_ST_OK) {
            d->state = M_DONE;
        } else {
            d->s = (m->s + io->sge[m->i & 3u].length) & MASK33;
            d->i = (uint8_t)((m->i + 1u) & 7u);
            d->state = M_SGE;
        }
        break;
    case M_DONE:
    default:
        d->state = M_IDLE;
        break;
    }
}

int hca_sge_mover_init(hca_sge_mover_t *m, uint8_t xtag, uint8_t dtag, uint8_t post)
{
    memset(m, 0, sizeof(*m));
    m->xtag = xtag;
    m->dtag = dtag;
    m->post = post & 1u;
    hca_sge_mover_reset(m);
    return 0;
}

void hca_sge_mover_reset(hca_sge_mover_t *m)
{
    /* The async-reset registers only; the rest keep their values. */
    m->state = M_IDLE;
    m->i = 0;
    m->s = 0;
    m->st = HCA_SGE_MOVER_ST_OK;
}

void hca_sge_mover_comb(const hca_sge_mover_t *m, hca_sge_mover_io_t *io, uint64_t now)
{
    (void)now;
    const uint32_t sg_key = io->sge[m->i & 3u].lkey;

    io->busy = m->state != M_IDLE;
    io->done = m->state == M_DONE;
    io->status = m->st;

    io->xq_valid = m->state == M_XREQ;
    io->xq.tag = m->xtag;
    io->xq.rights = m->rights;
    io->xq.remote = 0;
    io->xq.key = sg_key;
    io->xq.pd = m->pd;
    io->xq.len = m->plen;
    io->xq.va = m->va;

    memset(&io->dma_req, 0, sizeof(io->dma_req));
    io->dma_req.hdr = (uint32_t)(m->host ? HCA_DMA_OP_BUF_TO_HOST : HCA_DMA_OP_HOST_TO_BUF) << HCA_DMA_REQ_OP_LSB |
                      (uint32_t)m->dtag << HCA_DMA_REQ_TAG_LSB | (uint32_t)m->buf << HCA_DMA_REQ_BUF_LSB;
    io->dma_req.len = io->xs_len;
    io->dma_req.addr = io->xs_pa;
    io->dma_req.buf_off = m->boff;
    io->dma_req.key = sg_key;
    io->dma_req.qpn = m->qpn;
    io->dma_req_valid = m->state == M_DMA;

    /* Only M_BEAT and M_DWAIT (and M_DMA when posting) drive the readies. */
    if (m->state == M_BEAT || m->state == M_DWAIT || (m->post && m->state == M_DMA)) {
        mv_next_t d;
        mv_step(m, io, &d);
        io->xs_ready = d.xs_ready;
        io->dma_rsp_ready = d.dma_rsp_ready;
    } else {
        io->xs_ready = 0;
        io->dma_rsp_ready = 0;
    }
}

void hca_sge_mover_edge(hca_sge_mover_t *m, const hca_sge_mover_io_t *io, uint64_t now)
{
    (void)now;
    if (m->state == M_IDLE && !io->start)
        return; /* idle: every _d equals its _q */
    mv_next_t d;
    mv_step(m, io, &d);
    if (m->state == M_IDLE && io->start) {
        m->chk = io->check_only & 1u;
        m->host = io->to_host & 1u;
        m->rights = io->rights & 0xfu;
        m->pd = io->pd & ((1u << HCA_PD_BITS) - 1u);
        m->qpn = io->qpn;
        m->lo = io->off;
        m->hi = (uint64_t)io->off + io->len;
        m->buf = io->buf;
    }
    m->state = d.state;
    m->i = d.i;
    m->s = d.s;
    m->st = d.st;
    m->boff = d.boff;
    m->va = d.va;
    m->plen = d.plen;
}

uint64_t hca_sge_mover_quiet_until(const hca_sge_mover_t *m, uint64_t now)
{
    /* Idle, or waiting only for a translation beat / DMA answer (valids). */
    if (m->state == M_IDLE || m->state == M_BEAT || m->state == M_DWAIT)
        return UINT64_MAX;
    return now + 1;
}
