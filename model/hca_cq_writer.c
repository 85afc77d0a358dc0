/* hca_cq_writer.c — C twin of rtl/hca_cq_writer.sv: one CQE at a time
 * through the front, up to HCA_CQW_NOUT writes out behind it. IDLE accepts
 * a completion (while the next write's slot is free) and drives its CQ
 * number onto the context read port; LOOK (the context is there one cycle later) drops it (CQ out of
 * range or not valid), sets the overflow flag (ring full: cq_pi - cq_ci ==
 * 2^log_depth) or increments cq_pi and builds the WRITE_DATA of 32 bytes at
 * base + (cq_pi mod 2^log_depth) * 32 with owner = ((cq_pi >> log_depth) & 1)
 * ^ 1, tagged with slot nxt; WRITE offers it, and once accepted the slot
 * is out until an answer with its tag frees it (a bus error is ignored).
 * No known difference from the RTL. */
#include <string.h>

#include "hca_cq_writer.h"

#define CQW_TAG 0x80u /* TAG: client 2 of the DMA arbiter; | the slot */
_Static_assert((HCA_CQW_NOUT & (HCA_CQW_NOUT - 1u)) == 0 && HCA_CQW_NOUT <= 4u, "slot = rtag[1:0]");

int hca_cq_writer_init(hca_cq_writer_t *m)
{
    memset(m, 0, sizeof(*m));
    hca_cq_writer_reset(m);
    return 0;
}

void hca_cq_writer_reset(hca_cq_writer_t *m)
{
    m->state = HCA_CQW_ST_IDLE;
    m->cqn = 0; /* cqe and req are data: kept */
    m->out = 0;
    m->nxt = 0;
}

/* LOOK's decision from the context read port. */
typedef struct cqw_look {
    uint8_t ok, full, owner;
    uint32_t slot;
} cqw_look_t;

static inline cqw_look_t cqw_look(const hca_cq_writer_io_t *io)
{
    const unsigned log_depth = hca_cq_ctx_get_log_depth(&io->cq_cqc);
    const uint32_t used = (io->cq_pi - io->cq_ci) & 0xffffu;
    const uint32_t depth = log_depth > 16 ? 0x10000u : 1u << log_depth;
    cqw_look_t l;
    l.ok = (uint8_t)(io->cq_inrange && hca_cq_ctx_get_cq_valid(&io->cq_cqc));
    l.full = used >= depth;
    l.slot = io->cq_pi & (depth - 1u) & 0xffffu;
    l.owner = log_depth > 15 ? 1u : (uint8_t)(!((io->cq_pi >> log_depth) & 1u));
    return l;
}

/* take_ok: a slot free for the write, and no DRAIN waiting for the writer
 * (it idles once its writes out are answered, so the DRAIN ends) */
static inline int cqw_take_ok(const hca_cq_writer_t *m, const hca_cq_writer_io_t *io)
{
    return !(m->out >> m->nxt & 1u) && !io->hold;
}

void hca_cq_writer_comb(const hca_cq_writer_t *m, hca_cq_writer_io_t *io, uint64_t now)
{
    (void)now;
    io->cpl_ready = 0;
    io->cq_pi_inc = 0;
    io->cq_ovf_set = 0;
    io->cq_cqn = m->cqn;
    switch (m->state) {
    case HCA_CQW_ST_IDLE:
        io->cpl_ready = cqw_take_ok(m, io);
        io->cq_cqn = io->cpl_cqn & 0xffffu;
        break;
    case HCA_CQW_ST_LOOK: {
        const cqw_look_t l = cqw_look(io);
        io->cq_ovf_set = l.ok && l.full;
        io->cq_pi_inc = l.ok && !l.full;
        break;
    }
    default:
        break;
    }
    io->dma_req_valid = m->state == HCA_CQW_ST_WRITE;
    io->dma_req = m->req;
    io->dma_rsp_ready = m->out != 0;
#ifndef HCA_MUTANT_DRAIN_NO_CQE_WRITE
    io->busy = m->state != HCA_CQW_ST_IDLE || m->out != 0;
#else
    io->busy = 0;
#endif
}

void hca_cq_writer_edge(hca_cq_writer_t *m, const hca_cq_writer_io_t *io, uint64_t now)
{
    (void)now;
    const uint8_t out = m->out; /* out_q: this cycle's */
    if (io->dma_rsp_valid)
        m->out &= (uint8_t)~(1u << (io->dma_rsp_rtag & (HCA_CQW_NOUT - 1u)));
    switch (m->state) {
    case HCA_CQW_ST_IDLE:
        if (io->cpl_valid && !(out >> m->nxt & 1u) && !io->hold) {
            m->cqn = io->cpl_cqn & 0xffffu;
            m->cqe = io->cpl;
            m->state = HCA_CQW_ST_LOOK;
        }
        break;
    case HCA_CQW_ST_LOOK: {
        const cqw_look_t l = cqw_look(io);
        m->state = HCA_CQW_ST_IDLE;
        if (l.ok && !l.full) {
            hca_dma_req_t r;
            memset(&r, 0, sizeof(r));
            hca_dma_req_set_op(&r, HCA_DMA_OP_WRITE_DATA);
            hca_dma_req_set_tag(&r, CQW_TAG | m->nxt);
            r.len = (uint32_t)sizeof(hca_cqe_t);
            r.addr = io->cq_cqc.base + ((uint64_t)l.slot << 5);
            r.qpn = m->cqe.qpn; /* the CQE's QP: protcheck's I6 */
            hca_cqe_t c = m->cqe;
            hca_cqe_set_owner(&c, l.owner);
            memcpy(r.data, &c, sizeof(c));
            m->req = r;
            m->state = HCA_CQW_ST_WRITE;
        }
        break;
    }
    case HCA_CQW_ST_WRITE:
        if (io->dma_req_ready) {
            m->out |= (uint8_t)(1u << m->nxt);
            m->nxt = (uint8_t)((m->nxt + 1u) & (HCA_CQW_NOUT - 1u));
            m->state = HCA_CQW_ST_IDLE;
        }
        break;
    default:
        m->state = HCA_CQW_ST_IDLE;
        break;
    }
}

uint64_t hca_cq_writer_quiet_until(const hca_cq_writer_t *m, uint64_t now)
{
    /* LOOK decides and WRITE offers on their own; IDLE waits for input (a completion or an answer) */
    return m->state == HCA_CQW_ST_LOOK || m->state == HCA_CQW_ST_WRITE ? now + 1 : UINT64_MAX;
}

const char *hca_cq_writer_state_name(unsigned s)
{
    static const char *const name[] = {"CQW_IDLE", "CQW_LOOK", "CQW_WRITE"};
    _Static_assert(sizeof name / sizeof name[0] == HCA_CQW_ST_WRITE + 1, "a name per state");
    return s <= HCA_CQW_ST_WRITE ? name[s] : "?";
}
