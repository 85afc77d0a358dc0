/* hca_requester.h — C model of rtl/hca_requester.sv, the send queues: the
 * send engine (hca_req_send, member send) and the response engine
 * (hca_req_resp, member resp), the per-QP state (IDLE / ACTIVE / INFLIGHT /
 * RESP / RNR_WAIT, park entries, kept NAKs and DONEs), the round-robin QP
 * scheduler, and the shared ports: translation (hca_xarb, member xarb), DMA,
 * packet-buffer free, events and completions (hca_arb instances).
 *
 * Comb paths (outputs from inputs in the same cycle; "ctl" below is the set
 * tx_ready, cpl_ready, evt_ready, pb_free_ready, ra_qpc.state, rb_qpc, rb_sq_ci):
 *   ra_qpn         <- sq_pending, qp_error (scheduler pick while the send
 *                     engine is idle); rx is not on it (the response engine
 *                     claims from registers), but the pick drops a QP the
 *                     response engine claims this cycle, so also <- ctl
 *   rb_qpn         <- rx_valid, rx.dst_qpn (response engine idle)
 *   rx_ready       state only
 *   pb_alloc_ready state only
 *   sq_ci_inc, qp_err_valid <- cpl_ready
 *   sq_ci_qpn, qp_err_qpn, cpl, cpl_cqn <- rb_qpc, rb_sq_ci (response
 *                     engine's fin), plus tx_ready, evt_ready (its park
 *                     entry is bypassed from a send engine parking it)
 *   cpl_valid      state only (the fin arbiter's pick is from registers;
 *                     the write bit of the response engine's fin <- park)
 *   xq_valid, xq   state only (xq.key from parked SGEs: state)
 *   xs_ready       <- xs_valid, xs_status, xs_last, dma_rsp_valid,
 *                     dma_rsp.rtag, dma_rsp.err (the movers' beat takes)
 *   dma_req_valid  state only; dma_req <- xs_len, xs_pa (movers)
 *   dma_rsp_ready  <- dma_rsp.rtag (routing by rtag bit 5)
 *   pb_free_valid, pb_free_id state only
 *   evt_valid      state only; evt <- rb_qpc.pd, tx_ready, evt_ready
 *                     (READ_INV key from the park entry, bypassed as above)
 *   tx_valid, tx, drain_busy state only
 * See hca_requester.c for the exact derivation; the device model only needs
 * to iterate comb until stable.
 */
#ifndef HCA_REQUESTER_H
#define HCA_REQUESTER_H

#include <stdint.h>

#include "hca_abi.h"
#include "hca_req_resp.h"
#include "hca_req_send.h"
#include "hca_xarb.h"
#include "m_prim.h"
#include "m_xreq.h"

/** Largest MAX_QP the RTL allows (a power of two in [2, 64]). */
#define HCA_REQUESTER_MAX_QP_LIMIT 64u

/* qst_e of the RTL */
enum { HCA_REQUESTER_Q_IDLE, HCA_REQUESTER_Q_ACTIVE, HCA_REQUESTER_Q_INFLIGHT, HCA_REQUESTER_Q_RESP,
       HCA_REQUESTER_Q_RNR_WAIT };

/* Vector ports [MAX_QP-1:0]: bit q = QP q. */
typedef struct hca_requester_io {
    /* hca_ctx */
    uint16_t ra_qpn;          /**< out */
    hca_qp_ctx_t ra_qpc;      /**< in */
    uint16_t ra_sq_ci;        /**< in */
    uint16_t rb_qpn;          /**< out */
    hca_qp_ctx_t rb_qpc;      /**< in */
    uint16_t rb_sq_ci;        /**< in */
    uint8_t sq_ci_inc;        /**< out */
    uint16_t sq_ci_qpn;       /**< out */
    uint8_t qp_err_valid;     /**< out */
    uint16_t qp_err_qpn;      /**< out */
    uint64_t sq_pending;      /**< in */
    uint64_t qp_error;        /**< in */
    uint8_t qpc_wr;           /**< in */
    uint16_t qpc_wr_qpn;      /**< in */
    /* link */
    uint8_t tx_valid;         /**< out */
    uint8_t tx_ready;         /**< in */
    hca_pkt_t tx;             /**< out */
    uint8_t rx_valid;         /**< in */
    uint8_t rx_ready;         /**< out */
    hca_pkt_t rx;             /**< in */
    /* translation client */
    uint8_t xq_valid;         /**< out */
    uint8_t xq_ready;         /**< in */
    m_xreq_t xq;              /**< out */
    uint8_t xs_valid;         /**< in */
    uint8_t xs_ready;         /**< out */
    uint8_t xs_status;        /**< in */
    uint8_t xs_last;          /**< in */
    uint32_t xs_len;          /**< in */
    uint64_t xs_pa;           /**< in */
    /* DMA client (tags 8'b00xx_xxxx) */
    uint8_t dma_req_valid;    /**< out */
    uint8_t dma_req_ready;    /**< in */
    hca_dma_req_t dma_req;    /**< out */
    uint8_t dma_rsp_valid;    /**< in */
    uint8_t dma_rsp_ready;    /**< out */
    hca_dma_rsp_t dma_rsp;    /**< in */
    /* packet buffers */
    uint8_t pb_alloc_valid;   /**< in */
    uint8_t pb_alloc_ready;   /**< out */
    uint8_t pb_alloc_id;      /**< in */
    uint8_t pb_free_valid;    /**< out */
    uint8_t pb_free_ready;    /**< in */
    uint8_t pb_free_id;       /**< out */
    /* completions to the CQ writer */
    uint8_t cpl_valid;        /**< out */
    uint8_t cpl_ready;        /**< in */
    hca_cqe_t cpl;            /**< out */
    uint16_t cpl_cqn;         /**< out */
    /* movers holding key-checked work: bit 1 response, bit 0 send */
    uint8_t drain_busy;       /**< out */
    /* memory-management events (hca_evt producer 0) and their DONE */
    uint8_t evt_valid;        /**< out */
    uint8_t evt_ready;        /**< in */
    hca_fw_event_t evt;       /**< out */
    uint8_t evt_done_valid;   /**< in */
    uint8_t evt_done_tag;     /**< in */
    uint8_t evt_done_status;  /**< in */
} hca_requester_io_t;

typedef struct hca_requester {
    /* parameter */
    uint8_t max_qp, qw;
    uint64_t qmask;           /**< MAX_QP ones */
    /* per-QP state (control: reset) */
    uint8_t qst[HCA_REQUESTER_MAX_QP_LIMIT];     /**< qst_q */
    uint8_t rnr_cnt[HCA_REQUESTER_MAX_QP_LIMIT]; /**< rnr_cnt_q */
    uint64_t nak, evt_wait, done;                /**< nak_q, evt_wait_q, done_q */
    uint64_t idle_m, active_m, inflight_m, rnr_m; /**< qst by state, bit q = QP q (derived) */
    uint16_t s_qpn;           /**< the QP the send engine owns */
    /* now_q = (uint32_t)(cycle - base) once base is set (the first edge
     * after reset); a deadline, not a counter, so the device may skip cycles */
    uint64_t base;
    uint8_t base_set;
    /* per-QP data (not reset, as the RTL's) */
    uint32_t deadline[HCA_REQUESTER_MAX_QP_LIMIT];
    hca_req_send_park_t park[HCA_REQUESTER_MAX_QP_LIMIT];
    uint8_t nak_syn[HCA_REQUESTER_MAX_QP_LIMIT];
    uint8_t done_st[HCA_REQUESTER_MAX_QP_LIMIT];
    /* instances */
    hca_req_send_t send;      /**< u_send */
    hca_req_resp_t resp;      /**< u_resp */
    m_arb_t sched;            /**< u_sched (N = MAX_QP: scanned here, m_arb's state) */
    hca_xarb_t xarb;          /**< u_xarb (N = 2: 0 send, 1 response) */
    m_arb_t dma_arb, free_arb, evt_arb, fin_arb; /**< N = 2: 0 send, 1 response */
} hca_requester_t;

int hca_requester_init(hca_requester_t *m, unsigned max_qp); /* 0 / -EINVAL */
void hca_requester_reset(hca_requester_t *m);
void hca_requester_comb(const hca_requester_t *m, hca_requester_io_t *io, uint64_t now);
void hca_requester_edge(hca_requester_t *m, const hca_requester_io_t *io, uint64_t now);
/** As m_prim.h, with sq_pending_i = qp_error_i = 0 (no QP to schedule but
 *  RNR waits expiring). */
uint64_t hca_requester_quiet_until(const hca_requester_t *m, uint64_t now);
/** The same with the level inputs sq_pending_i and qp_error_i as given (the
 *  device's hca_ctx model knows them). */
uint64_t hca_requester_quiet_until_in(const hca_requester_t *m, uint64_t sq_pending, uint64_t qp_error,
                                      uint64_t now);

#endif /* HCA_REQUESTER_H */
