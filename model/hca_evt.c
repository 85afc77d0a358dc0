/* hca_evt.c — C twin of rtl/hca_evt.sv: producers (0 requester, 1
 * responder) post whole fw_events through a round-robin hca_arb (m_arb) into
 * a DEPTH-deep xu_fifo (m_fifo); a full queue takes one in the cycle the
 * firmware POPs. The firmware block answers every access one cycle later:
 * DATA words show the head (0 when empty; an invalidation's word 0 with
 * hdr.inv_ok = io->inv_ok, the translation unit's verdict), STATUS {pending, count}; a write
 * of DONE is broadcast for one cycle from the next. irq = head valid.
 * No known difference from the RTL. */
#include <errno.h>
#include <stdlib.h>

#include "hca_evt.h"

#define EVT_WORDS (sizeof(hca_fw_event_t) / 4) /* EVT_DATA words of the head */
_Static_assert(EVT_WORDS == HCA_EVT_DATA_COUNT, "fw_event is EVT_DATA");

int hca_evt_init(hca_evt_t *m, unsigned depth)
{
    /* xu_fifo: a power of two >= 2; STATUS.count is 8 bits */
    if (depth < 2 || depth > 128 || (depth & (depth - 1)) != 0)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    m->mem = calloc(depth, sizeof(hca_fw_event_t));
    if (!m->mem)
        return -ENOMEM;
    m->depth = depth;
    m_fifo_init(&m->fifo, m->mem, sizeof(hca_fw_event_t), depth);
    hca_evt_reset(m);
    return 0;
}

void hca_evt_free(hca_evt_t *m)
{
    free(m->mem);
    m->mem = NULL;
}

void hca_evt_reset(hca_evt_t *m)
{
    m_arb_reset(&m->arb, 2);
    m_fifo_reset(&m->fifo);
    m->rvalid = 0;
    m->rdata = 0;
    m->done_valid = 0;
    m->done_tag = 0;
    m->done_status = 0;
}

/* pop: a write of POP while an event is pending */
static inline int evt_pop(const hca_evt_t *m, const hca_evt_io_t *io)
{
    return io->fw_valid && io->fw_write && (io->fw_addr & 0x3fu) == HCA_EVT_POP && m_fifo_valid(&m->fifo);
}

/* in_ready: room, or a full queue that pops this cycle */
static inline uint8_t evt_in_ready(const hca_evt_t *m, const hca_evt_io_t *io)
{
    return (uint8_t)(m_fifo_level(&m->fifo) != m->depth || evt_pop(m, io));
}

void hca_evt_comb(const hca_evt_t *m, hca_evt_io_t *io, uint64_t now)
{
    (void)now;
    m_arb_out_t o;
    m_arb_comb(&m->arb, io->evt_valid & 3u, evt_in_ready(m, io), &o);
    io->evt_ready = o.in_ready;
    io->fw_rvalid = m->rvalid;
    io->fw_rdata = m->rdata;
    io->done_valid = m->done_valid;
    io->done_tag = m->done_tag;
    io->done_status = m->done_status;
    io->irq = (uint8_t)m_fifo_valid(&m->fifo);
}

/* LOCAL_INV, REMOTE_INV, READ_INV: the kinds whose word 0 carries inv_ok (the RTL's inv_rd) */
static inline int evt_kind_inv(unsigned k)
{
    return k == HCA_EVT_KIND_LOCAL_INV || k == HCA_EVT_KIND_REMOTE_INV || k == HCA_EVT_KIND_READ_INV;
}

/* The read data of an access at addr (rdata of the RTL, with inv_ok_i as
 * it shows in the answer's cycle: inv_ok). */
static uint32_t evt_rdata(const hca_evt_t *m, unsigned addr, int inv_ok)
{
    const int head_valid = m_fifo_valid(&m->fifo);
    if (addr < HCA_EVT_DATA + 4 * HCA_EVT_DATA_COUNT) {
        if (!head_valid)
            return 0;
        uint32_t w;
        memcpy(&w, (const uint8_t *)m_fifo_head(&m->fifo) + 4 * (addr >> 2), 4);
        if (addr == HCA_EVT_DATA && inv_ok && evt_kind_inv(hca_fw_event_get_kind(m_fifo_head(&m->fifo))))
            w |= 1u << HCA_FW_EVENT_INV_OK_LSB;
        return w;
    }
    if (addr == HCA_EVT_STATUS)
        return HCA_EVT_STATUS_PENDING_PUT((uint32_t)head_valid) |
               HCA_EVT_STATUS_COUNT_PUT(m_fifo_level(&m->fifo));
    return 0;
}

void hca_evt_edge(hca_evt_t *m, const hca_evt_io_t *io, uint64_t now)
{
    (void)now;
    const unsigned addr = io->fw_addr & 0x3fu;
    const int wr = io->fw_valid && io->fw_write;
    const int rd = io->fw_valid && !io->fw_write;
    const int pop = evt_pop(m, io);

    /* registers first: they read the head and level before this edge */
    m->rdata = rd ? evt_rdata(m, addr, io->inv_ok) : 0;
    m->rvalid = io->fw_valid;
    m->done_valid = (uint8_t)(wr && addr == HCA_EVT_DONE);
    if (m->done_valid) {
        m->done_tag = (uint16_t)HCA_EVT_DONE_TAG_GET(io->fw_wdata);
        m->done_status = (uint8_t)HCA_EVT_DONE_STATUS_GET(io->fw_wdata);
    }

    const uint8_t in_ready = (uint8_t)(m_fifo_level(&m->fifo) != m->depth || pop);
    m_arb_out_t o;
    m_arb_comb(&m->arb, io->evt_valid & 3u, in_ready, &o);
    m_arb_edge(&m->arb, &o, in_ready);
    m_fifo_edge(&m->fifo, o.valid, &io->evt[o.id], (uint8_t)pop);
}

uint64_t hca_evt_quiet_until(const hca_evt_t *m, uint64_t now)
{
    /* an answer or a DONE lasts one cycle; a held grant drops */
    return m->rvalid || m->done_valid || m->arb.hold ? now + 1 : UINT64_MAX;
}
