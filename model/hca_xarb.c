/* hca_xarb.c — C twin of rtl/hca_xarb.sv: the translation unit shared by N
 * clients. Requests go through a round-robin hca_arb (m_arb); the id of each
 * granted client goes into an 8-deep xu_fifo (m_fifo), whose head names the
 * client of the current response beat and leaves with the request's last
 * beat. A request is granted only while the FIFO has room.
 * No known difference from the RTL. */
#include <errno.h>

#include "hca_xarb.h"

int hca_xarb_init(hca_xarb_t *m, unsigned n)
{
    if (n < 1 || n > HCA_XARB_MAX_N)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    m->n = (uint8_t)n;
    m_fifo_init(&m->ids, m->ids_mem, 1, HCA_XARB_DEPTH);
    hca_xarb_reset(m);
    return 0;
}

void hca_xarb_reset(hca_xarb_t *m)
{
    m_arb_reset(&m->arb, m->n);
    m_fifo_reset(&m->ids); /* ids_mem is storage: kept */
}

/* room: level < DEPTH; the arbiter's out_ready is xu_req_ready && room. */
static inline uint8_t xarb_arb_ready(const hca_xarb_t *m, const hca_xarb_io_t *io)
{
    return (uint8_t)(io->xu_req_ready && m_fifo_level(&m->ids) < HCA_XARB_DEPTH);
}

void hca_xarb_comb(const hca_xarb_t *m, hca_xarb_io_t *io, uint64_t now)
{
    (void)now;
    const uint8_t room = m_fifo_level(&m->ids) < HCA_XARB_DEPTH;
    m_arb_out_t o;
    m_arb_comb(&m->arb, io->c_req_valid, xarb_arb_ready(m, io), &o);
    io->c_req_ready = o.in_ready;
    io->xu_req_valid = (uint8_t)(o.valid && room);
    io->xu_req = io->c_req[o.id];

    const int head_valid = m_fifo_valid(&m->ids);
    const unsigned head_id = *(const uint8_t *)m_fifo_head(&m->ids);
    io->c_rsp_valid = head_valid && io->xu_rsp_valid ? 1u << head_id : 0u;
    io->xu_rsp_ready = (uint8_t)(head_valid && (io->c_rsp_ready >> head_id & 1u));
}

void hca_xarb_edge(hca_xarb_t *m, const hca_xarb_io_t *io, uint64_t now)
{
    (void)now;
    const uint8_t arb_ready = xarb_arb_ready(m, io);
    m_arb_out_t o;
    m_arb_comb(&m->arb, io->c_req_valid, arb_ready, &o);
    const uint8_t push = (uint8_t)(o.valid && arb_ready); /* xu_req_valid && xu_req_ready */
    const unsigned head_id = *(const uint8_t *)m_fifo_head(&m->ids);
    /* xu_rsp_valid && xu_rsp_ready && xu_rsp_last (m_fifo_edge adds head_valid) */
    const uint8_t pop = (uint8_t)(io->xu_rsp_valid && io->xu_rsp_last && (io->c_rsp_ready >> head_id & 1u));
    m_arb_edge(&m->arb, &o, arb_ready);
    const uint8_t id = (uint8_t)o.id; /* the FIFO holds 1-byte ids */
    m_fifo_edge(&m->ids, push, &id, pop);
}

uint64_t hca_xarb_quiet_until(const hca_xarb_t *m, uint64_t now)
{
    /* With every valid low only a held grant changes (it drops); ids in the
     * FIFO wait for xu_rsp_valid. */
    return m->arb.hold ? now + 1 : UINT64_MAX;
}
