/* hca_pbuf.h — C twin of rtl/hca_pbuf.sv: the packet buffer id pool
 * (alloc offers and free ports of requester and responder). Conventions:
 * model/m_prim.h. */
#ifndef HCA_PBUF_H
#define HCA_PBUF_H

#include <stdint.h>

/** Most buffers the RTL takes (8-bit ids). */
#define HCA_PBUF_MAX_BUFS 256u
/** RESP_RSV default of rtl/hca_pbuf.sv (hca_core passes PBUF_RESP_RSV = 4). */
#define HCA_PBUF_RESP_RSV_DEFAULT 4u

typedef struct hca_pbuf_io {
    /* requester (client 0) */
    uint8_t req_alloc_valid;  /**< out */
    uint8_t req_alloc_ready;  /**< in */
    uint32_t req_alloc_id;    /**< out [7:0] */
    uint8_t req_free_valid;   /**< in */
    uint8_t req_free_ready;   /**< out: 1 */
    uint32_t req_free_id;     /**< in [7:0] */
    /* responder (client 1) */
    uint8_t rsp_alloc_valid;  /**< out */
    uint8_t rsp_alloc_ready;  /**< in */
    uint32_t rsp_alloc_id;    /**< out [7:0] */
    uint8_t rsp_free_valid;   /**< in */
    uint8_t rsp_free_ready;   /**< out: 1 */
    uint32_t rsp_free_id;     /**< in [7:0] */
    uint32_t free_count;      /**< out [8:0] */
} hca_pbuf_io_t;

typedef struct hca_pbuf {
    uint32_t pkt_bufs, resp_rsv;               /**< parameters */
    uint64_t free_q[HCA_PBUF_MAX_BUFS / 64];   /**< bit i: buffer i is free */
    uint32_t lo_id, hi_id, count;              /**< the comb's view of free_q, kept at each change */
} hca_pbuf_t;

/* 0, or -EINVAL unless pkt_bufs in [2, 256] and resp_rsv in [1, pkt_bufs) */
int hca_pbuf_init(hca_pbuf_t *m, unsigned pkt_bufs, unsigned resp_rsv);
void hca_pbuf_reset(hca_pbuf_t *m);
void hca_pbuf_comb(const hca_pbuf_t *m, hca_pbuf_io_t *io, uint64_t now);
void hca_pbuf_edge(hca_pbuf_t *m, const hca_pbuf_io_t *io, uint64_t now);
uint64_t hca_pbuf_quiet_until(const hca_pbuf_t *m, uint64_t now);

#endif /* HCA_PBUF_H */
