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
}

/* The comb of the RTL: lowest and highest free id (0 when none), count. */
typedef struct pb_view {
    uint32_t lo_id, hi_id, count;
} pb_view_t;

static inline pb_view_t pb_view(const hca_pbuf_t *m)
{
    pb_view_t v = {0, 0, 0};
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
    return v;
}

void hca_pbuf_comb(const hca_pbuf_t *m, hca_pbuf_io_t *io, uint64_t now)
{
    (void)now;
    const pb_view_t v = pb_view(m);
    io->rsp_alloc_valid = v.count != 0;
    io->rsp_alloc_id = v.hi_id;
    io->req_alloc_valid = v.count > m->resp_rsv;
    io->req_alloc_id = v.lo_id;
    io->req_free_ready = 1;
    io->rsp_free_ready = 1;
    io->free_count = v.count;
}

static inline void pb_set(uint64_t *bm, uint32_t i, int v)
{
    const uint64_t b = (uint64_t)1 << (i & 63);
    bm[i >> 6] = v ? bm[i >> 6] | b : bm[i >> 6] & ~b;
}

void hca_pbuf_edge(hca_pbuf_t *m, const hca_pbuf_io_t *io, uint64_t now)
{
    (void)now;
    const pb_view_t v = pb_view(m);
    if (io->req_alloc_ready && v.count > m->resp_rsv)
        pb_set(m->free_q, v.lo_id, 0);
    if (io->rsp_alloc_ready && v.count != 0)
        pb_set(m->free_q, v.hi_id, 0);
    /* ids are 8-bit ports; only ids of the pool match */
    const uint32_t rf = io->req_free_id & 0xffu, sf = io->rsp_free_id & 0xffu;
    if (io->req_free_valid && rf < m->pkt_bufs)
        pb_set(m->free_q, rf, 1);
    if (io->rsp_free_valid && sf < m->pkt_bufs)
        pb_set(m->free_q, sf, 1);
}

uint64_t hca_pbuf_quiet_until(const hca_pbuf_t *m, uint64_t now)
{
    (void)m;
    (void)now;
    return UINT64_MAX; /* acts only on its clients' takes and frees */
}
