/* hca_resp_place.c — C model of rtl/hca_resp_place.sv, the responder's
 * placement engine (see hca_resp_place.h), cycle for cycle at its ports.
 *
 * Check first, move second: every piece's key check is issued and every
 * beat collected (P_CHECK) before the first DMA (P_DMA), so a packet whose
 * check failed places no byte. A packet of more segments than the list holds
 * is translated again once checked and moved beat by beat (P_STREAM). Registers carry the RTL's widths (PI_W, SG_W
 * bits), so counters a misbehaving partner overruns wrap as in the RTL.
 *
 * Known differences from the RTL: one, on data shown while xq_valid is low.
 * Once every piece is asked about (iss = PIECES), xq_key/xq_len/xq_va select
 * past the end of key_i/len_i/va_i: X in the language. The model shows 0,
 * which is what the Verilated RTL shows for PIECES = 3 (the responder's); for
 * PIECES 1 and 2 Verilator's value is an artefact of its code (a wrapped
 * shift, a read past the vector) and the model does not follow it.
 */
#include <errno.h>
#include <string.h>

#include "hca_resp_place.h"

/* pstate_e of rtl/hca_resp_place.sv */
enum { P_IDLE, P_CHECK, P_DMA, P_STREAM };

/* The DMA tag's client bits {01} (docs/engine.md: responder = client 1). */
#define RP_DMA_TAG_CLIENT 0x40u

/** $clog2(v) for v >= 1. */
static unsigned rp_clog2(unsigned v)
{
    unsigned r = 0;
    while ((1u << r) < v)
        r++;
    return r;
}

/** present[p]: piece p (a 2-bit number) exists in the job. */
static inline int rp_present(const hca_resp_place_t *m, const hca_resp_place_io_t *io, unsigned p)
{
    return p < m->pieces && io->len[p] != 0;
}

static inline unsigned rp_npieces(const hca_resp_place_t *m, const hca_resp_place_io_t *io)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->pieces; i++)
        n += io->len[i] != 0;
    return n;
}

/* The control terms of the RTL, from state and the job. */
typedef struct rp_ctl {
    uint8_t iss_more, check_done, check_end, dma_done, dma_valid, stream_done;
} rp_ctl_t;

static inline void rp_ctl(const hca_resp_place_t *m, const hca_resp_place_io_t *io, rp_ctl_t *c)
{
    const int stream = m->state == P_STREAM;
    const unsigned outstanding = (unsigned)(m->dma - m->ans) & m->sg_mask;
    c->iss_more = (m->state == P_CHECK || stream) && m->iss < m->pieces;
    c->check_done = m->state == P_CHECK && m->iss == m->pieces && m->lasts == rp_npieces(m, io);
    c->check_end = c->check_done && (m->fail || io->check_only || m->nseg == 0);
    c->dma_done = m->state == P_DMA && m->dma == m->nseg && (io->post || m->ans == m->nseg);
    c->dma_valid = (m->state == P_DMA && m->dma < m->nseg) || (stream && m->hold && outstanding < m->segs);
    c->stream_done = stream && m->iss == m->pieces && m->lasts == rp_npieces(m, io) && !m->hold && m->dma == m->ans;
}

int hca_resp_place_init(hca_resp_place_t *m, unsigned pieces, unsigned segs)
{
    if (pieces < 1 || pieces > HCA_RESP_PLACE_MAX_PIECES || segs < 2 || segs > HCA_RESP_PLACE_MAX_SEGS ||
        (segs & (segs - 1)) != 0)
        return -EINVAL;
    memset(m, 0, sizeof *m);
    m->pieces = (uint8_t)pieces;
    m->segs = (uint8_t)segs;
    m->pi_mask = (uint8_t)((1u << rp_clog2(pieces + 1u)) - 1u);
    m->sg_mask = (uint8_t)((1u << rp_clog2(segs + 1u)) - 1u);
    hca_resp_place_reset(m);
    return 0;
}

void hca_resp_place_reset(hca_resp_place_t *m)
{
    m->state = P_IDLE;
    m->iss = m->lasts = m->nseg = m->fail = 0;
    m->dma = m->ans = m->berr = 0;
    m->boff = 0;
    m->ovf = m->hold = 0;
}

void hca_resp_place_comb(const hca_resp_place_t *m, hca_resp_place_io_t *io, uint64_t now)
{
    (void)now;
    rp_ctl_t c;
    rp_ctl(m, io, &c);

    /* iss_pc = 2'(iss_q); a piece number past PIECES selects past the end of
     * va_i/len_i/key_i: 0 (see the top of the file). */
    const unsigned pc = m->iss & 3u;
    const int in = pc < m->pieces;
    io->xq_valid = (uint8_t)(c.iss_more && rp_present(m, io, pc));
    io->xq.tag = (uint8_t)pc;
    io->xq.rights = io->rights;
    io->xq.remote = io->remote;
    io->xq.key = in ? io->key[pc] : 0;
    io->xq.pd = io->pd;
    io->xq.len = in ? io->len[pc] : 0;
    io->xq.va = in ? io->va[pc] : 0;
    /* beats are always taken (a stray one must not block the in-order
     * stream), except while a streamed segment waits for its DMA */
    io->xs_ready = !(m->state == P_STREAM && m->hold);

    const int stream = m->state == P_STREAM;
    const unsigned idx = m->dma & (m->segs - 1u);
    const unsigned spc = stream ? m->hold_pc : m->seg_pc[idx];
    hca_dma_req_t *r = &io->dma_req;
    memset(r, 0, sizeof *r);
    r->hdr = (uint32_t)(io->dma_op & 15u) << HCA_DMA_REQ_OP_LSB | (RP_DMA_TAG_CLIENT | idx) << HCA_DMA_REQ_TAG_LSB |
             (uint32_t)io->buf << HCA_DMA_REQ_BUF_LSB;
    r->len = stream ? m->hold_len : m->seg_len[idx];
    r->addr = stream ? m->hold_pa : m->seg_pa[idx];
    r->buf_off = m->boff;
    r->key = spc < m->pieces ? io->key[spc] : 0;
    r->qpn = io->qpn;
    io->dma_req_valid = c.dma_valid;

    io->busy = m->state != P_IDLE;
    io->done = c.check_end || c.dma_done || c.stream_done;
    io->posted = io->post && m->state == P_DMA;
    io->key_fail = (c.check_end || c.stream_done) && m->fail;
    io->bus_err = (c.dma_done || c.stream_done) && m->berr;
}

void hca_resp_place_edge(hca_resp_place_t *m, const hca_resp_place_io_t *io, uint64_t now)
{
    (void)now;
    switch (m->state) {
    case P_IDLE:
        if (io->start) {
            m->state = P_CHECK;
            m->iss = m->lasts = m->nseg = m->fail = m->ovf = 0;
        }
        return;

    case P_CHECK: {
        rp_ctl_t c;
        rp_ctl(m, io, &c);
        const unsigned pc = m->iss & 3u;
        const unsigned iss = m->iss, nseg = m->nseg;
        /* A piece of length 0 is skipped without a request. */
        if (c.iss_more && (!rp_present(m, io, pc) || io->xq_ready))
            m->iss = (uint8_t)((iss + 1u) & m->pi_mask);
        if (io->xs_valid) {
            /* A beat must answer a piece this job asked about. */
            const int tag_ok = io->xs_tag < iss && rp_present(m, io, io->xs_tag & 3u);
            const int ok = tag_ok && io->xs_status == HCA_XLATE_STATUS_OK;
            const int seg = ok && !io->check_only && io->xs_len != 0;
            if (!ok)
                m->fail = 1;
            if (seg && nseg == m->segs)
                m->ovf = 1; /* list full: stream */
            if (seg && nseg < m->segs) { /* store */
                const unsigned si = nseg & (m->segs - 1u);
                m->seg_pa[si] = io->xs_pa;
                m->seg_len[si] = io->xs_len;
                m->seg_pc[si] = io->xs_tag & 3u;
                m->nseg = (uint8_t)(nseg + 1u);
            }
            if (io->xs_last && tag_ok)
                m->lasts = (uint8_t)((m->lasts + 1u) & m->pi_mask);
        }
        if (c.check_done) {
            if (c.check_end) {
                m->state = P_IDLE;
            } else {
                m->state = m->ovf ? P_STREAM : P_DMA;
                m->dma = m->ans = m->berr = 0;
                m->boff = 0;
                m->iss = m->lasts = 0; /* P_STREAM asks again */
                m->hold = 0;
            }
        }
        return;
    }

    case P_DMA: {
        rp_ctl_t c;
        rp_ctl(m, io, &c);
        if (c.dma_valid && io->dma_req_ready) {
            m->boff += m->seg_len[m->dma & (m->segs - 1u)];
            m->dma++;
        }
        if (io->dma_rsp_valid) {
            m->ans = (uint8_t)((m->ans + 1u) & m->sg_mask);
            m->berr = m->berr || io->dma_rsp_err;
        }
        if (c.dma_done)
            m->state = P_IDLE;
        return;
    }

    case P_STREAM: {
        rp_ctl_t c;
        rp_ctl(m, io, &c);
        const unsigned pc = m->iss & 3u;
        const unsigned iss = m->iss;
        const int hold = m->hold, fail = m->fail;
        if (c.iss_more && (!rp_present(m, io, pc) || io->xq_ready))
            m->iss = (uint8_t)((iss + 1u) & m->pi_mask);
        int take = 0;
        if (io->xs_valid && !hold) {
            const int tag_ok = io->xs_tag < iss && rp_present(m, io, io->xs_tag & 3u);
            const int ok = tag_ok && io->xs_status == HCA_XLATE_STATUS_OK;
            if (!ok)
                m->fail = 1;
            if (io->xs_last && tag_ok)
                m->lasts = (uint8_t)((m->lasts + 1u) & m->pi_mask);
            take = ok && io->xs_len != 0 && !fail;
        }
        if (c.dma_valid && io->dma_req_ready) {
            m->dma = (uint8_t)((m->dma + 1u) & m->sg_mask);
            m->boff += m->hold_len;
            m->hold = 0;
        }
        if (take) {
            m->hold = 1;
            m->hold_pa = io->xs_pa;
            m->hold_len = io->xs_len;
            m->hold_pc = io->xs_tag & 3u;
        }
        if (io->dma_rsp_valid) {
            m->ans = (uint8_t)((m->ans + 1u) & m->sg_mask);
            m->berr = m->berr || io->dma_rsp_err;
        }
        if (c.stream_done)
            m->state = P_IDLE;
        return;
    }

    default:
        m->state = P_IDLE;
        return;
    }
}

uint64_t hca_resp_place_quiet_until(const hca_resp_place_t *m, uint64_t now)
{
    return m->state == P_IDLE ? UINT64_MAX : now + 1;
}

int hca_resp_place_waits(const hca_resp_place_t *m, const hca_resp_place_io_t *io)
{
    /* P_DMA's dma_done = every DMA issued and (posted, or every answer in);
     * dma_valid = one to issue: neither, so only dma_rsp_valid moves it */
    return m->state == P_DMA && m->dma == m->nseg && !io->post && m->ans != m->nseg;
}
