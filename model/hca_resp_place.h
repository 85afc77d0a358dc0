/* hca_resp_place.h — C model of rtl/hca_resp_place.sv: the responder's
 * placement engine. Key-checks every piece {va, len, key} of one packet
 * through the translation unit, collects the translated segments, then (when
 * every check passed) moves them with one DMA per segment; more segments than
 * the list holds are translated again and moved as their beats come.
 *
 * Comb paths (outputs from inputs in the same cycle):
 *   xq (every field)   <- rights, remote, pd, va, len, key (job inputs)
 *   xq_valid           <- len (a zero-length piece is skipped)
 *   dma_req            <- dma_op, buf, key (job inputs)
 *   done, key_fail     <- check_only, len (check_end: nothing to move); post (done)
 *   posted             <- post
 *   busy, bus_err, dma_req_valid, xs_ready: state only.
 * None depends on a handshake input (xq_ready, xs_*, dma_req_ready,
 * dma_rsp_*), so the engine never closes a loop with its partners.
 */
#ifndef HCA_RESP_PLACE_H
#define HCA_RESP_PLACE_H

#include <stdint.h>

#include "hca_abi.h"
#include "m_xreq.h"

/** Largest PIECES the RTL accepts (its g_bad_param check) and SEGS. */
#define HCA_RESP_PLACE_MAX_PIECES 3u
#define HCA_RESP_PLACE_MAX_SEGS 64u

typedef struct hca_resp_place_io {
    /* job: the owner's registers, stable from start until done */
    uint8_t start;
    uint8_t check_only;
    uint8_t post;        /**< post_i: DMAs issued, not awaited; their answers the owner's */
    uint8_t dma_op;      /**< HCA_DMA_OP_* */
    uint8_t buf;
    uint32_t pd;         /**< HCA_PD_BITS bits */
    uint16_t qpn;        /**< the QP whose work this is (dma_req.qpn) */
    uint8_t rights;      /**< HCA_ACCESS_W bits */
    uint8_t remote;
    uint64_t va[HCA_RESP_PLACE_MAX_PIECES];  /**< va_i, piece i at [i*64 +: 64]; first PIECES used */
    uint32_t len[HCA_RESP_PLACE_MAX_PIECES]; /**< len_i: 0 = no piece */
    uint32_t key[HCA_RESP_PLACE_MAX_PIECES]; /**< key_i */
    uint8_t busy;        /**< out */
    uint8_t done;        /**< out: one cycle, with key_fail / bus_err */
    uint8_t key_fail;    /**< out */
    uint8_t bus_err;     /**< out */
    /* translation unit client */
    uint8_t xq_valid;    /**< out */
    uint8_t xq_ready;
    m_xreq_t xq;         /**< out: xq_tag_o .. xq_va_o */
    uint8_t xs_valid;
    uint8_t xs_ready;    /**< out: 1 but while a streamed segment waits (P_STREAM) */
    uint8_t xs_tag;
    uint8_t xs_status;   /**< HCA_XLATE_STATUS_* */
    uint8_t xs_last;
    uint32_t xs_len;
    uint64_t xs_pa;
    /* DMA */
    uint8_t dma_req_valid; /**< out */
    uint8_t dma_req_ready;
    hca_dma_req_t dma_req; /**< out: tag {01, segment index} */
    uint8_t dma_rsp_valid; /**< the owner routes this engine's answers here */
    uint8_t dma_rsp_err;
    uint8_t posted;        /**< out: the DMA request offered is a posted one */
} hca_resp_place_io_t;

typedef struct hca_resp_place {
    /* parameters */
    uint8_t pieces;      /**< PIECES, 1..3 */
    uint8_t segs;        /**< SEGS, a power of two in [2, 64] */
    uint8_t pi_mask;     /**< PI_W = $clog2(PIECES + 1) bits */
    uint8_t sg_mask;     /**< SG_W = $clog2(SEGS + 1) bits */
    /* registers (the RTL's names without _q) */
    uint8_t state;       /**< pstate_e: P_IDLE, P_CHECK, P_DMA, P_STREAM */
    uint8_t iss;         /**< next piece to ask about */
    uint8_t lasts;       /**< pieces whose last beat came */
    uint8_t nseg;        /**< segments collected */
    uint8_t fail;
    uint8_t dma;         /**< segments issued */
    uint8_t ans;         /**< DMA answers counted */
    uint8_t berr;
    uint32_t boff;       /**< buffer offset of segment dma */
    uint8_t ovf;         /**< the check found more segments than the list holds */
    uint8_t hold;        /**< P_STREAM: a segment waits in the holding register */
    uint64_t hold_pa;    /**< the holding register (data: never reset) */
    uint32_t hold_len;
    uint8_t hold_pc;
    /* segment list (data: never reset) */
    uint64_t seg_pa[HCA_RESP_PLACE_MAX_SEGS];
    uint32_t seg_len[HCA_RESP_PLACE_MAX_SEGS];
    uint8_t seg_pc[HCA_RESP_PLACE_MAX_SEGS];
} hca_resp_place_t;

/** 0, or -EINVAL when pieces/segs break the RTL's parameter check. The
 *  segment list starts zeroed (Verilator's initial value) and is kept by reset. */
int hca_resp_place_init(hca_resp_place_t *m, unsigned pieces, unsigned segs);
void hca_resp_place_reset(hca_resp_place_t *m);
void hca_resp_place_comb(const hca_resp_place_t *m, hca_resp_place_io_t *io, uint64_t now);
void hca_resp_place_edge(hca_resp_place_t *m, const hca_resp_place_io_t *io, uint64_t now);
uint64_t hca_resp_place_quiet_until(const hca_resp_place_t *m, uint64_t now);
/** In P_DMA, every DMA issued, waiting only for their answers (a job not
 *  posted): an edge without dma_rsp_valid changes nothing. io: the job. */
int hca_resp_place_waits(const hca_resp_place_t *m, const hca_resp_place_io_t *io);

#endif /* HCA_RESP_PLACE_H */
