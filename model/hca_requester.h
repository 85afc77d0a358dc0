/* hca_requester.h — C model of rtl/hca_requester.sv, the send queues: the
 * send engine (hca_req_send, member send) and the response engine
 * (hca_req_resp, member resp), the per-QP state (IDLE / ACTIVE / INFLIGHT /
 * RESP / RNR_WAIT, park entries, kept NAKs and DONEs), the QP scheduler
 * (a FIFO of candidate QPs, an RNR queue, a DONE queue), and the shared ports: translation (hca_xarb, member xarb), DMA,
 * packet-buffer free, events and completions (hca_arb instances).
 *
 * Comb paths (outputs that depend on inputs of the same cycle):
 *   ra_qpn        <- pe_pend, pe_err (the scheduler's offer while the
 *                    send engine is idle)
 *   rb_qpn        <- rx.dst_qpn (response engine idle)
 *   sq_ci_inc, qp_err_valid <- cpl_ready
 *   cpl, cpl_cqn  <- rb_sq_ci (wqe_counter), rb_qpc.send_cqn (the response
 *                    engine's completion)
 *   evt           <- rb_qpc.pd (the response engine's READ_INV)
 *   dma_req       <- xs_len, xs_pa (a mover's segment request)
 *   dma_rsp_ready <- dma_rsp.rtag (bit 5 routes the answer)
 *   xs_ready      <- xs_valid, xs_status, dma_rsp_valid, dma_rsp.rtag (a
 *                    mover takes a beat, or a beat whose DMA is answered)
 *   every other output (all valids but sq_ci_inc / qp_err_valid, rx_ready,
 *   pb_alloc_ready, tx, xq, pb_free_id, sq_ci_qpn, qp_err_qpn, drain_busy):
 *   state only.
 * Structurally (as Verilator sees it) tx_ready and evt_ready also reach
 * ra_qpn, cpl, cpl_valid, sq_ci_inc, evt, xq and dma_req: the response
 * engine sees a message the send engine parks in the same cycle. That
 * changes what the response engine claims (internal), never an output: the
 * send engine is not idle then (ra_qpn is its register) and the response
 * engine shows its park-derived data only in states where it owns the QP.
 * (A probe flipping each input every cycle of the lockstep test saw exactly
 * the list above.)
 *
 * io carries a cache of comb's work (io->cache): edge reuses the nets comb
 * settled for the same state, cycle and inputs, and a second comb of the
 * cycle with unchanged inputs only copies outputs. Pass edge the io comb
 * last wrote (any other io works too, it is just settled again).
 */
#ifndef HCA_REQUESTER_H
#define HCA_REQUESTER_H

#include <stdint.h>

#include "hca_abi.h"
#include "hca_qfifo.h"
#include "hca_req_resp.h"
#include "hca_req_send.h"
#include "hca_xarb.h"
#include "m_prim.h"
#include "m_xreq.h"

/** Largest MAX_QP of the model: the ABI's (a power of two). */
#define HCA_REQUESTER_MAX_QP_LIMIT HCA_MAX_QP

/* qst_e of the RTL */
enum { HCA_REQUESTER_Q_IDLE, HCA_REQUESTER_Q_ACTIVE, HCA_REQUESTER_Q_INFLIGHT, HCA_REQUESTER_Q_RESP,
       HCA_REQUESTER_Q_RNR_WAIT };

/* The nets inside hca_requester in one cycle: the engines' and the
 * arbiters' ports (input 0 = send engine, 1 = response engine). */
typedef struct hca_requester_nets {
    hca_req_send_io_t s;       /**< u_send */
    hca_req_resp_io_t r;       /**< u_resp */
    hca_xarb_io_t x;           /**< u_xarb */
    m_arb_out_t sched;         /**< the scheduler's offer: valid (sched_valid), id (sched_qpn) */
    m_arb_out_t dma, free, evt, fin; /**< u_dma_arb, u_free_arb, u_evt_arb, u_fin_arb */
    uint8_t fin_ready;         /**< fin_ready: !fin_write || cpl_ready */
    uint8_t rsp_to_r;          /**< rsp_to_r: dma_rsp rtag bit 5 */
    uint16_t park_src;         /**< where r.park was copied from (0: nowhere yet) */
} hca_requester_nets_t;

/** Bytes of the input ports of hca_requester_io_t (ra_qpc .. evt_done_status). */
#define HCA_REQUESTER_IN_BYTES 360u

/* Inputs first, then outputs (the cache below compares the inputs as one
 * block). Vector ports [MAX_QP-1:0]: bit q = QP q. */
typedef struct hca_requester_io {
    /* ---- inputs */
    hca_qp_ctx_t ra_qpc;       /**< hca_ctx read port a (send engine) */
    hca_qp_ctx_t rb_qpc;       /**< hca_ctx read port b (response engine) */
    hca_dma_rsp_t dma_rsp;
    hca_pkt_t rx;
    uint64_t xs_pa;
    uint32_t xs_len;
    uint16_t ra_sq_ci;
    uint16_t ra_sq_pi;
    uint16_t rb_sq_ci;
    uint16_t qpc_wr_qpn;
    uint16_t sq_db_qpn;
    uint16_t rs_err_qpn;
    uint8_t pe_pend;           /**< hca_ctx's answer for pe_qpn: sq_pi != sq_ci, not RESET */
    uint8_t pe_err;            /**< ... state ERROR */
    uint8_t sq_db;             /**< an SQ doorbell of sq_db_qpn was taken */
    uint8_t qpc_set;           /**< a WRITE_QPC of qpc_wr_qpn */
    uint8_t rs_err;            /**< the responder moved rs_err_qpn to ERROR */
    uint8_t qpc_wr;
    uint8_t tx_ready;
    uint8_t rx_valid;
    uint8_t xq_ready;
    uint8_t xs_valid;
    uint8_t xs_status;
    uint8_t xs_last;
    uint8_t dma_req_ready;
    uint8_t dma_rsp_valid;
    uint8_t pb_alloc_valid;
    uint8_t pb_alloc_id;
    uint8_t pb_free_ready;
    uint8_t cpl_ready;
    uint8_t evt_ready;
    uint8_t evt_done_valid;
    uint16_t evt_done_tag;
    uint8_t evt_done_status;
    /* ---- outputs */
    hca_pkt_t tx;
    hca_dma_req_t dma_req;
    hca_cqe_t cpl;
    hca_fw_event_t evt;
    m_xreq_t xq;
    uint16_t ra_qpn;
    uint16_t rb_qpn;
    uint16_t pe_qpn;           /**< the scheduler's head (state only: hca_requester_pe_qpn) */
    uint16_t sq_ci_qpn;
    uint16_t qp_err_qpn;
    uint16_t cpl_cqn;
    uint8_t sq_ci_inc;
    uint8_t qp_err_valid;
    uint8_t tx_valid;
    uint8_t rx_ready;
    uint8_t xq_valid;
    uint8_t xs_ready;
    uint8_t dma_req_valid;
    uint8_t dma_rsp_ready;
    uint8_t pb_alloc_ready;
    uint8_t pb_free_valid;
    uint8_t pb_free_id;
    uint8_t cpl_valid;
    uint16_t drain_busy;       /**< ctx DRAIN sources at their abi DRAIN_SRC_*_LSB: WQE_READS {prefetch read slot 7..0, fetch},
                                    RESPONSE, SEND (each {slot 1, slot 0, mover}) */
    uint8_t evt_valid;
    /* ---- not ports: comb's settled nets, for edge and for the next comb of
     * the cycle (reused when the state, the cycle and the inputs are the
     * same; else the starting guess of the settle). Any content is valid:
     * a zeroed or stale cache only costs time. */
    struct {
        uint64_t gen, now;     /**< of the state (hca_requester_t.gen) and cycle settled */
        uint8_t now_dep;       /**< the nets depend on the cycle (RNR deadlines) */
        uint8_t valid;
        uint32_t serial;       /**< counts the settles into n */
        uint8_t in[HCA_REQUESTER_IN_BYTES]; /**< the inputs settled */
        hca_requester_nets_t n;
    } cache;
} hca_requester_io_t;

typedef struct hca_requester {
    /* parameter */
    uint16_t max_qp;
    uint8_t qw;
    /* per-QP state (control: reset) */
    uint8_t qst[HCA_REQUESTER_MAX_QP_LIMIT];     /**< qst_q */
    uint8_t rnr_cnt[HCA_REQUESTER_MAX_QP_LIMIT]; /**< rnr_cnt_q */
    uint8_t nak[HCA_REQUESTER_MAX_QP_LIMIT];      /**< nak_m */
    uint8_t evt_wait[HCA_REQUESTER_MAX_QP_LIMIT]; /**< evt_wait_m */
    uint8_t done[HCA_REQUESTER_MAX_QP_LIMIT];     /**< done_m */
    uint8_t nak_rnr[HCA_REQUESTER_MAX_QP_LIMIT];  /**< nak_rnr_m (data: read only with nak) */
    hca_qfifo_t sq, rnq, dnq;  /**< u_sched_q, u_rnr_q, u_done_q */
    uint16_t s_qpn;           /**< the QP the send engine owns */
    uint64_t gen;             /**< counts state changes (edges but idle ones, resets): keys io's cache */
    /* now_q = (uint32_t)(cycle - base) once base is set (the first edge
     * after reset); a deadline, not a counter, so the device may skip cycles */
    uint64_t base;
    uint8_t base_set;
    /* The last edge was idle and writes nothing from the nets of io's cache
     * settle idle_serial: an edge from that cache again changes nothing. */
    uint8_t idle_again;
    uint32_t idle_serial;
    /* per-QP data (not reset, as the RTL's) */
    uint32_t deadline[HCA_REQUESTER_MAX_QP_LIMIT];
    hca_req_send_park_t park[HCA_REQUESTER_MAX_QP_LIMIT];
    uint8_t nak_syn[HCA_REQUESTER_MAX_QP_LIMIT];
    uint8_t done_st[HCA_REQUESTER_MAX_QP_LIMIT];
    /* instances */
    hca_req_send_t send;      /**< u_send */
    hca_req_resp_t resp;      /**< u_resp */
    hca_xarb_t xarb;          /**< u_xarb (N = 2: 0 send, 1 response) */
    m_arb_t dma_arb, free_arb, evt_arb, fin_arb; /**< N = 2: 0 send, 1 response */
} hca_requester_t;

/* m: zeroed memory (calloc: the pages its tables never touch stay unmapped). 0 / -EINVAL */
int hca_requester_init(hca_requester_t *m, unsigned max_qp);
void hca_requester_reset(hca_requester_t *m);
void hca_requester_comb(const hca_requester_t *m, hca_requester_io_t *io, uint64_t now);
void hca_requester_edge(hca_requester_t *m, const hca_requester_io_t *io, uint64_t now);
/** As hca_requester_edge, for an io whose inputs are those the last
 *  hca_requester_comb of this cycle (same state, same now) settled: its
 *  cache is then known to hold this cycle's nets, and the inputs are not
 *  compared again (hca_core.c writes no input between them). */
void hca_requester_edge_settled(hca_requester_t *m, const hca_requester_io_t *io, uint64_t now);
/** The QP whose {sq_pending, qp_error} the scheduler asks hca_ctx for (pe_qpn_o). */
static inline unsigned hca_requester_pe_qpn(const hca_requester_t *m) { return hca_qfifo_head(&m->sq); }
/** As m_prim.h, with every QP's sq_pending = qp_error = 0. */
uint64_t hca_requester_quiet_until(const hca_requester_t *m, uint64_t now);
/** The same with every QP's {sq_pi != sq_ci, not RESET} and ERROR as given
 *  (the device's hca_ctx model knows them; the scheduler looks at its head's). */
uint64_t hca_requester_quiet_until_in(const hca_requester_t *m, const m_qv_t *sq_pending, const m_qv_t *qp_error,
                                      uint64_t now);

#endif /* HCA_REQUESTER_H */
