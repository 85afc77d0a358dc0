/* hca_ctx.h — C twin of rtl/hca_ctx.sv: QP and CQ contexts, queue indices,
 * doorbells and the ctx firmware block (WRITE/READ_QPC, WRITE/READ_CQC,
 * DRAIN). Conventions: model/m_prim.h.
 *
 * The MAX_QP-bit vector ports sq_pending_o and qp_error_o are uint64_t
 * arrays of HCA_CTX_QP_WORDS words: bit i of the vector (QP i) is word i / 64,
 * bit i % 64 (the layout of m_prim.h's m_qv_t). The model's tables are sized
 * for the ABI's MAX_QP; hca_ctx_init takes any power of two up to it. */
#ifndef HCA_CTX_H
#define HCA_CTX_H

#include <stdint.h>

#include "hca_abi.h"

/** Largest MAX_QP of the model: the ABI's (rtl/hca_ctx.sv allows up to EVT_TAG_RESPONDER). */
#define HCA_CTX_MAX_QP_LIMIT HCA_MAX_QP
/** MAX_CQ bound of rtl/hca_ctx.sv. */
#define HCA_CTX_MAX_CQ_LIMIT 65536u
/** Most DRAIN clients the model takes (drain_busy is a uint32_t). */
#define HCA_CTX_MAX_DRAIN 32u
/** Words of a MAX_QP-bit vector port. */
#define HCA_CTX_QP_WORDS ((HCA_CTX_MAX_QP_LIMIT + 63u) / 64u)

typedef struct hca_ctx_io {
    /* doorbells (regs db) */
    uint8_t db_valid;                           /**< in */
    uint8_t db_ready;                           /**< out: 1 */
    uint32_t db_addr;                           /**< in [3:0] */
    uint32_t db_data;                           /**< in */
    /* firmware register block ctx (fw_addr = offset in the block) */
    uint8_t fw_valid;                           /**< in */
    uint8_t fw_write;                           /**< in */
    uint32_t fw_addr;                           /**< in [15:0] */
    uint32_t fw_wdata;                          /**< in */
    uint8_t fw_rvalid;                          /**< out */
    uint32_t fw_rdata;                          /**< out */
    uint32_t drain_busy;                        /**< in [N_DRAIN-1:0] */
    /* requester */
    uint32_t ra_qpn;                            /**< in [15:0] */
    hca_qp_ctx_t ra_qpc;                        /**< out */
    uint32_t ra_sq_ci;                          /**< out [15:0] */
    uint32_t ra_sq_pi;                          /**< out [15:0] (the send engine's WQE prefetch) */
    uint32_t rb_qpn;                            /**< in [15:0] */
    hca_qp_ctx_t rb_qpc;                        /**< out */
    uint32_t rb_sq_ci;                          /**< out [15:0] */
    uint8_t req_sq_ci_inc;                      /**< in */
    uint32_t req_sq_ci_qpn;                     /**< in [15:0] */
    uint8_t req_err_valid;                      /**< in */
    uint32_t req_err_qpn;                       /**< in [15:0] */
    uint32_t pe_qpn;                            /**< in: the requester's scheduler head */
    uint8_t pe_pend;                            /**< out: pe_qpn's sq_pi != sq_ci, not RESET */
    uint8_t pe_err;                             /**< out: pe_qpn's state ERROR */
    uint8_t sq_db;                              /**< out: an SQ doorbell was taken ... */
    uint32_t sq_db_qpn;                         /**< out [15:0]: ... for this QP */
    uint8_t rq_db_err;                          /**< out: an RQ doorbell of sq_db_qpn's QP, in ERROR */
    uint8_t qpc_set;                            /**< out: a WRITE_QPC (of qpc_wr_qpn) */
    uint8_t qpc_wr;                             /**< out: ... to RESET or RTS, or the QP's first */
    uint32_t qpc_wr_qpn;                        /**< out [15:0] */
    /* responder */
    uint32_t rs_qpn;                            /**< in [5:0] */
    hca_qp_ctx_t rs_qpc;                        /**< out */
    uint32_t rs_state;                          /**< out [1:0] */
    uint32_t rs_rq_pi;                          /**< out [15:0] */
    uint32_t rs_rq_ci;                          /**< out [15:0] */
    uint8_t rs_rq_ci_inc;                       /**< in: for the QP rs_qpn names now */
    uint8_t rs_err_valid;                       /**< in */
    uint32_t rs_err_qpn;                        /**< in [5:0] */
    /* CQ writer */
    uint32_t cq_cqn;                            /**< in [15:0] */
    hca_cq_ctx_t cq_cqc;                        /**< out (cfg bit 9: 0) */
    uint8_t cq_inrange;                         /**< out */
    uint32_t cq_pi;                             /**< out [15:0] */
    uint32_t cq_ci;                             /**< out [15:0] */
    uint8_t cq_pi_inc;                          /**< in: for the CQ cq_cqn named last cycle */
    uint8_t cq_ovf_set;                         /**< in: ditto */
} hca_ctx_io_t;

/** Per-QP control state (reset). */
typedef struct hca_ctx_qp {
    uint8_t state;                 /**< state_q: live state (hca_qp_state) */
    uint8_t live;                  /**< qlive_q: written since reset */
    uint16_t sq_pi, sq_ci, rq_pi, rq_ci;
} hca_ctx_qp_t;

/** Per-CQ control state (reset). */
typedef struct hca_ctx_cq {
    uint16_t pi, ci;               /**< cq_pi_q, cq_ci_q */
    uint8_t ovf;                   /**< ovf_q */
    uint8_t valid;                 /**< cq_valid_q */
} hca_ctx_cq_t;

typedef struct hca_ctx {
    uint32_t max_qp, max_cq, n_drain;           /**< parameters */
    /* QP table */
    hca_qp_ctx_t qpc[HCA_CTX_MAX_QP_LIMIT];     /**< qpc_q: words 0..8 as written, 9..15 zero (data) */
    hca_ctx_qp_t qp[HCA_CTX_MAX_QP_LIMIT];
    uint64_t sq_pending[HCA_CTX_QP_WORDS];      /**< sq_pi != sq_ci && state != RESET, kept per QP */
    uint64_t qp_error[HCA_CTX_QP_WORDS];        /**< state == ERROR */
    /* CQ table (max_cq entries each) */
    hca_cq_ctx_t *cqc;                          /**< cqc_q, as written (data) */
    hca_ctx_cq_t *cq;
    /* firmware block */
    uint32_t stage[HCA_CTX_DATA_COUNT];         /**< stage_q: DATA0..15 */
    uint8_t rvalid;                             /**< rvalid_q */
    uint32_t rdata;                             /**< rdata_q */
    uint8_t result;                             /**< result_q */
    uint32_t drain;                             /**< drain_q: clients DRAIN still waits for */
    /* read ports: the registered indices */
    uint32_t ra_idx, rb_idx, rs_idx, cq_idx;
    uint8_t cq_inrange;
} hca_ctx_t;

/* m: zeroed memory (calloc). max_qp: power of two in [2, 64]; max_cq: power
 * of two in [2, 65536]; n_drain in [1, 32]. 0, -EINVAL or -ENOMEM. */
int hca_ctx_init(hca_ctx_t *m, unsigned max_qp, unsigned max_cq, unsigned n_drain);
void hca_ctx_free(hca_ctx_t *m);
void hca_ctx_reset(hca_ctx_t *m);
void hca_ctx_comb(const hca_ctx_t *m, hca_ctx_io_t *io, uint64_t now);
void hca_ctx_edge(hca_ctx_t *m, const hca_ctx_io_t *io, uint64_t now);
uint64_t hca_ctx_quiet_until(const hca_ctx_t *m, uint64_t now);

/* The responder's read port, for hca_responder_skip (model/hca_responder.h). */

/** QP i's live control state (state, queue indices): what rs_state,
 *  rs_rq_pi and rs_rq_ci show the cycle after rs_qpn names QP i. */
static inline const hca_ctx_qp_t *hca_ctx_qp(const hca_ctx_t *m, uint32_t i) { return &m->qp[i]; }
/** QP i's stored context words (its state field as written: the live state
 *  is hca_ctx_qp(m, i)->state, which the ports show instead). */
static inline const hca_qp_ctx_t *hca_ctx_qpc_stored(const hca_ctx_t *m, uint32_t i) { return &m->qpc[i]; }
/** Word w of the qp_error vector (bit i % 64: QP w * 64 + i is in ERROR). */
static inline uint64_t hca_ctx_qp_error_word(const hca_ctx_t *m, unsigned w) { return m->qp_error[w]; }
/** The QP the responder read port shows now (the rs_qpn registered at the last edge). */
static inline uint32_t hca_ctx_rs_idx(const hca_ctx_t *m) { return m->rs_idx; }
/** The QP the responder read port shows the cycle after rs_qpn is driven. */
static inline uint32_t hca_ctx_rs_idx_of(const hca_ctx_t *m, uint32_t rs_qpn) { return rs_qpn & (m->max_qp - 1u); }
/** The responder read port's register as an edge with rs_qpn driven leaves
 *  it (the other inputs of that edge idle): what a skipped cycle does to it. */
static inline void hca_ctx_rs_idx_set(hca_ctx_t *m, uint32_t rs_qpn) { m->rs_idx = hca_ctx_rs_idx_of(m, rs_qpn); }

#endif /* HCA_CTX_H */
