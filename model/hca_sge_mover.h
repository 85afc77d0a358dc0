/* hca_sge_mover.h — C model of rtl/hca_sge_mover.sv: moves the bytes
 * [off, off + len) of a message between a packet buffer and the message's
 * SGE list (one translation request per SGE piece, one DMA request per
 * returned segment), or only key-checks them (check_only).
 *
 * Comb paths (outputs from inputs in the same cycle):
 *   xs_ready   <- xs_valid, xs_status, xs_last (M_BEAT); dma_rsp_valid (M_DWAIT);
 *                 dma_req_ready (M_DMA, post)
 *   dma_req    <- xs_len, xs_pa (len/addr fields), sge (key field)
 *   xq         <- sge (key field)
 *   busy, done, status, xq_valid, dma_req_valid, dma_rsp_ready: state only.
 */
#ifndef HCA_SGE_MOVER_H
#define HCA_SGE_MOVER_H

#include <stdint.h>

#include "hca_abi.h"
#include "m_xreq.h"

/* status_o values (the RTL's ST_* localparams) */
enum { HCA_SGE_MOVER_ST_OK = 0, HCA_SGE_MOVER_ST_PROT = 1, HCA_SGE_MOVER_ST_ACCESS = 2 };

/* state_e of the RTL (hca_sge_mover_t.state) */
enum {
    HCA_SGE_MOVER_M_IDLE, HCA_SGE_MOVER_M_SGE, HCA_SGE_MOVER_M_XREQ, HCA_SGE_MOVER_M_BEAT,
    HCA_SGE_MOVER_M_DMA, HCA_SGE_MOVER_M_DWAIT, HCA_SGE_MOVER_M_NEXT, HCA_SGE_MOVER_M_DONE
};

typedef struct hca_sge_mover_io {
    /* inputs */
    uint8_t start;       /**< only while !busy */
    uint8_t check_only;
    uint8_t to_host;
    uint8_t rights;      /**< HCA_ACCESS_W bits */
    uint32_t pd;         /**< HCA_PD_BITS bits */
    uint16_t qpn;        /**< the QP whose work this is (dma_req.qpn) */
    uint32_t off;
    uint32_t len;
    uint8_t buf;
    uint8_t num_sge;     /**< 3 bits */
    hca_sge_t sge[4];    /**< sge_i: read while busy */
    uint8_t xq_ready;
    uint8_t xs_valid;
    uint8_t xs_status;   /**< HCA_XLATE_STATUS_* */
    uint8_t xs_last;
    uint32_t xs_len;
    uint64_t xs_pa;
    uint8_t dma_req_ready;
    uint8_t dma_rsp_valid;
    uint8_t dma_rsp_err;
    /* outputs */
    uint8_t busy;
    uint8_t done;        /**< one cycle, with status */
    uint8_t status;      /**< HCA_SGE_MOVER_ST_* */
    uint8_t xq_valid;
    m_xreq_t xq;
    uint8_t xs_ready;
    uint8_t dma_req_valid;
    hca_dma_req_t dma_req;
    uint8_t dma_rsp_ready;
} hca_sge_mover_io_t;

typedef struct hca_sge_mover {
    /* parameters */
    uint8_t xtag, dtag;
    uint8_t post;        /**< POST: take a beat when its DMA is accepted */
    /* registers (names as the RTL's, without _q) */
    uint8_t state;       /**< HCA_SGE_MOVER_M_* */
    uint8_t chk, host, rights;
    uint32_t pd;
    uint16_t qpn;
    uint64_t lo, hi;     /**< 33 bits: off + len cannot wrap */
    uint8_t buf;
    uint8_t i;           /**< SGE index, 3 bits */
    uint64_t s;          /**< message offset of SGE i, 33 bits */
    uint8_t st;          /**< result so far */
    uint32_t boff;       /**< buffer offset of the next segment */
    uint64_t va;
    uint32_t plen;
} hca_sge_mover_t;

int hca_sge_mover_init(hca_sge_mover_t *m, uint8_t xtag, uint8_t dtag, uint8_t post); /* 0 */
void hca_sge_mover_reset(hca_sge_mover_t *m);
void hca_sge_mover_comb(const hca_sge_mover_t *m, hca_sge_mover_io_t *io, uint64_t now);
void hca_sge_mover_edge(hca_sge_mover_t *m, const hca_sge_mover_io_t *io, uint64_t now);
uint64_t hca_sge_mover_quiet_until(const hca_sge_mover_t *m, uint64_t now);

#endif /* HCA_SGE_MOVER_H */
