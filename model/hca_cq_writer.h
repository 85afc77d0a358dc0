/* hca_cq_writer.h — C twin of rtl/hca_cq_writer.sv: completions into the CQ
 * rings in host memory, one at a time through the front, up to
 * HCA_CQW_NOUT writes out behind it. Conventions: model/m_prim.h. */
#ifndef HCA_CQ_WRITER_H
#define HCA_CQ_WRITER_H

#include <stdint.h>

#include "hca_abi.h"

#define HCA_CQW_NOUT 4u /* NOUT: CQE writes out at once (a slot each, the slot in the tag) */

typedef struct hca_cq_writer_io {
    /* completions: a CQE (owner bit ignored) for CQ cpl_cqn */
    uint8_t cpl_valid;          /**< in */
    uint8_t cpl_ready;          /**< out */
    hca_cqe_t cpl;              /**< in */
    uint32_t cpl_cqn;           /**< in [15:0] */
    uint8_t hold;               /**< in: a ctx DRAIN waits for this writer: take no completion */
    /* CQ context read port of hca_ctx */
    uint32_t cq_cqn;            /**< out [15:0] */
    hca_cq_ctx_t cq_cqc;        /**< in */
    uint8_t cq_inrange;         /**< in */
    uint32_t cq_pi;             /**< in [15:0] */
    uint32_t cq_ci;             /**< in [15:0] */
    uint8_t cq_pi_inc;          /**< out */
    uint8_t cq_ovf_set;         /**< out */
    /* DMA client (tags 8'b1000_00ii: i = the write's slot) */
    uint8_t dma_req_valid;      /**< out */
    uint8_t dma_req_ready;      /**< in */
    hca_dma_req_t dma_req;      /**< out */
    uint8_t dma_rsp_valid;      /**< in (hca_core: dma_rsp_valid && rtag client 2) */
    uint8_t dma_rsp_ready;      /**< out */
    uint32_t dma_rsp_rtag;      /**< in: the answer's rtag (of dma_rsp only its slot is read) */
    uint8_t busy;               /**< out: a completion taken or a CQE write not answered (ctx DRAIN) */
} hca_cq_writer_io_t;

/** state_e of the RTL */
typedef enum hca_cq_writer_state {
    HCA_CQW_ST_IDLE,   /**< waiting for a completion (and a free slot) */
    HCA_CQW_ST_LOOK,   /**< the CQ context is on the read port: drop or write */
    HCA_CQW_ST_WRITE   /**< WRITE_DATA offered to the DMA arbiter */
} hca_cq_writer_state_t;

typedef struct hca_cq_writer {
    uint8_t state;              /**< state_q (hca_cq_writer_state_t) */
    uint32_t cqn;               /**< cqn_q */
    uint8_t out;                /**< out_q: bit i while the write tagged TAG | i is unanswered */
    uint8_t nxt;                /**< nxt_q: the next write's slot */
    hca_cqe_t cqe;              /**< cqe_q (data: not reset) */
    hca_dma_req_t req;          /**< req_q (data: not reset) */
} hca_cq_writer_t;

int hca_cq_writer_init(hca_cq_writer_t *m); /* 0 */
void hca_cq_writer_reset(hca_cq_writer_t *m);
void hca_cq_writer_comb(const hca_cq_writer_t *m, hca_cq_writer_io_t *io, uint64_t now);
void hca_cq_writer_edge(hca_cq_writer_t *m, const hca_cq_writer_io_t *io, uint64_t now);
uint64_t hca_cq_writer_quiet_until(const hca_cq_writer_t *m, uint64_t now);
/** The RTL's name of state s (hca_cq_writer_t.state), for the model's state log. */
const char *hca_cq_writer_state_name(unsigned s);

#endif /* HCA_CQ_WRITER_H */
