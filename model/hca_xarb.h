/* hca_xarb.h — C twin of rtl/hca_xarb.sv: shares the translation unit
 * between N (1..8) clients; round-robin requests, responses routed by an
 * in-order FIFO of granted client ids. Conventions: model/m_prim.h. */
#ifndef HCA_XARB_H
#define HCA_XARB_H

#include <stdint.h>

#include "m_prim.h"
#include "m_xreq.h"

/** Most clients the model takes (the RTL's N has no bound; hca_core uses 3,
 *  hca_requester 2). */
#define HCA_XARB_MAX_N 8u
/** DEPTH of the id FIFO (localparam of rtl/hca_xarb.sv). */
#define HCA_XARB_DEPTH 8u

/* Vector ports [N-1:0]: bit i = client i. c_req_i's N bundles are c_req[i]. */
typedef struct hca_xarb_io {
    /* clients */
    uint32_t c_req_valid;                /**< in */
    uint32_t c_req_ready;                /**< out */
    m_xreq_t c_req[HCA_XARB_MAX_N];      /**< in: c_req[i] for i < N */
    uint32_t c_rsp_valid;                /**< out */
    uint32_t c_rsp_ready;                /**< in */
    /* translation unit */
    uint8_t xu_req_valid;                /**< out */
    uint8_t xu_req_ready;                /**< in */
    m_xreq_t xu_req;                     /**< out: c_req[arbiter pick] */
    uint8_t xu_rsp_valid;                /**< in */
    uint8_t xu_rsp_ready;                /**< out */
    uint8_t xu_rsp_last;                 /**< in */
} hca_xarb_io_t;

typedef struct hca_xarb {
    uint8_t n;                           /**< parameter N */
    m_arb_t arb;                         /**< u_arb */
    m_fifo_t ids;                        /**< u_ids: granted client ids */
    uint8_t ids_mem[HCA_XARB_DEPTH];
} hca_xarb_t;

int hca_xarb_init(hca_xarb_t *m, unsigned n); /* 0, or -EINVAL for n outside [1, HCA_XARB_MAX_N] */
void hca_xarb_reset(hca_xarb_t *m);
void hca_xarb_comb(const hca_xarb_t *m, hca_xarb_io_t *io, uint64_t now);
void hca_xarb_edge(hca_xarb_t *m, const hca_xarb_io_t *io, uint64_t now);
uint64_t hca_xarb_quiet_until(const hca_xarb_t *m, uint64_t now);

#endif /* HCA_XARB_H */
