/* hca_pbuf.c — C twin of rtl/hca_pbuf.sv: which of the PKT_BUFS packet
 * buffers are free. The responder is offered the highest free id, the
 * requester the lowest, and the requester only while more than RESP_RSV are
 * free; both can take in the same cycle. Frees are always taken and win over
 * a take of the same id; a free of an id beyond the pool is ignored.
 * No known difference from the RTL. */
#include <errno.h>
#include <string.h>

#include "hca_pbuf.h"

#define PB_WORDS (HCA_PBUF_MAX_BUFS / 64)

static void pb_view(hca_pbuf_t *m);

int hca_pbuf_init(hca_pbuf_t *m, unsigned pkt_bufs, unsigned resp_rsv)
{
    if (pkt_bufs < 2 || pkt_bufs > HCA_PBUF_MAX_BUFS || resp_rsv < 1 || resp_rsv >= pkt_bufs)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    m->pkt_bufs = pkt_bufs;
    m->resp_rsv = resp_rsv;
    hca_pbuf_reset(m);
    return 0;
}

void hca_pbuf_reset(hca_pbuf_t *m)
{
    for (unsigned w = 0; w < PB_WORDS; w++) {
        const unsigned lo = w * 64;
        m->free_q[w] = m->pkt_bufs >= lo + 64 ? ~(uint64_t)0
                       : m->pkt_bufs > lo     ? ((uint64_t)1 << (m->pkt_bufs - lo)) - 1u
                                              : 0;
    }
    pb_view(m);
}

/* The comb of the RTL: lowest and highest free id (0 when none), count;
 * derived once per change of free_q, not in every comb and edge. */
static void pb_view(hca_pbuf_t *m)
{
    struct {
        uint32_t lo_id, hi_id, count;
    } v = {0, 0, 0};
    int lo_found = 0;
    for (unsigned w = 0; w < PB_WORDS; w++) {
        const uint64_t f = m->free_q[w];
        if (!f)
            continue;
        if (!lo_found) {
            v.lo_id = w * 64 + (uint32_t)__builtin_ctzll(f);
            lo_found = 1;
        }
        v.hi_id = w * 64 + 63 - (uint32_t)__builtin_clzll(f);
        v.count += (uint32_t)__builtin_popcountll(f);
    }
    m->lo_id = v.lo_id;
    m->hi_id = v.hi_id;
    m->count = v.count;
}

void hca_pbuf_comb(const hca_pbuf_t *m, hca_pbuf_io_t *io, uint64_t now)
{
    (void)now;
    io->rsp_alloc_valid = m->count != 0;
    io->rsp_alloc_id = m->hi_id;
    io->req_alloc_valid = m->count > m->resp_rsv;
    io->req_alloc_id = m->lo_id;
    io->req_free_ready = 1;
    io->rsp_free_ready = 1;
    io->free_count = m->count;
}

static inline void pb_set(uint64_t *bm, uint32_t i, int v)
{
    const uint64_t b = (uint64_t)1 << (i & 63);
    bm[i >> 6] = v ? bm[i >> 6] | b : bm[i >> 6] & ~b;
}

void hca_pbuf_edge(hca_pbuf_t *m, const hca_pbuf_io_t *io, uint64_t now)
{
    (void)now;
    const int req_take = io->req_alloc_ready && m->count > m->resp_rsv, rsp_take = io->rsp_alloc_ready && m->count != 0;
    /* ids are 8-bit ports; only ids of the pool match */
    const uint32_t rf = io->req_free_id & 0xffu, sf = io->rsp_free_id & 0xffu;
    const int req_free = io->req_free_valid && rf < m->pkt_bufs, rsp_free = io->rsp_free_valid && sf < m->pkt_bufs;
    if (!req_take && !rsp_take && !req_free && !rsp_free)
        return;
    if (req_take)
        pb_set(m->free_q, m->lo_id, 0);
    if (rsp_take)
        pb_set(m->free_q, m->hi_id, 0);
    if (req_free)
        pb_set(m->free_q, rf, 1);
    if (rsp_free)
        pb_set(m->free_q, sf, 1);
    pb_view(m);
}

uint64_t hca_pbuf_quiet_until(const hca_pbuf_t *m, uint64_t now)
{
    (void)m;
    (void)now;
    return UINT64_MAX; /* acts only on its clients' takes and frees */
}
