/* hca_responder.h — C model of rtl/hca_responder.sv: the responder of the
 * WQE engine (docs/engine.md "Responder"): incoming SEND, SEND_INV, WRITE and
 * READ_REQ packets, their ACK/NAK/RNR_NAK/READ_RESP answers, receive
 * completions, REMOTE_INV events and the RQ flush of QPs queued for it.
 * Instantiates the placement engine hca_resp_place (model/hca_resp_place.h)
 * and the flush queue hca_qfifo (model/hca_qfifo.h).
 *
 * Comb paths: none. Every output is a function of the registers alone
 * (tx, cpl, pb_free, rq_ci_inc, qp_err come from pending registers; pb_free
 * also from the posted free; tx_valid
 * also from the posted-gather counters; xq_*,
 * dma_req, place_busy from the placement engine's state and the job, which
 * is built from registers; pb_alloc_ready, rx_ready, evt_valid from the
 * state); xs_ready and dma_rsp_ready are constant 1. So comb needs no inputs
 * and one call per cycle settles it.
 */
#ifndef HCA_RESPONDER_H
#define HCA_RESPONDER_H

#include <stdint.h>

#include "hca_abi.h"
#include "hca_ctx.h"
#include "hca_qfifo.h"
#include "hca_resp_place.h"
#include "m_prim.h"
#include "m_xreq.h"

typedef struct hca_responder_io {
    /* ---- inputs */
    /* link in (requests) / out (ACK, NAK, RNR_NAK, READ_RESP) */
    uint8_t rx_valid;
    uint8_t tx_ready;
    hca_pkt_t rx;
    /* QP context read: qpc/qp_state/rq_pi/rq_ci describe QP qpc_idx one cycle after it is driven */
    uint8_t qp_state;        /**< HCA_QP_STATE_* */
    uint16_t rq_pi;
    uint16_t rq_ci;
    hca_qp_ctx_t qpc;
    /* translation unit answers (in order) */
    uint8_t xq_ready;
    uint8_t xs_valid;
    uint8_t xs_tag;
    uint8_t xs_status;       /**< HCA_XLATE_STATUS_* */
    uint8_t xs_last;
    uint32_t xs_len;
    uint64_t xs_pa;
    /* DMA */
    uint8_t dma_req_ready;
    uint8_t dma_rsp_valid;   /**< hca_core: dma_rsp_valid_i && rsp_client == 1 */
    hca_dma_rsp_t dma_rsp;
    /* packet buffers */
    uint8_t pb_alloc_valid;
    uint8_t pb_alloc_id;
    uint8_t pb_free_ready;
    /* completions */
    uint8_t cpl_ready;
    /* REMOTE_INV events and their DONE broadcast */
    uint8_t evt_ready;
    uint8_t evt_done_valid;
    uint16_t evt_done_tag;
    uint8_t evt_done_status; /**< a wc_status */
    /* flush-queue pushes (rtl fl_*_i): a WRITE_QPC, the requester's ERROR, an
     * RQ doorbell of a QP in ERROR; numbers [15:0], taken below max_qp */
    uint8_t fl_qpc_set, fl_req_err, fl_rq_db;
    uint32_t fl_qpc_qpn, fl_req_err_qpn, fl_rq_db_qpn;

    /* ---- outputs, rx_ready .. evt: one block (comb copies it whole) */
    uint8_t rx_ready;
    uint8_t tx_valid;
    uint16_t qpc_idx;        /**< QW bits */
    uint8_t rq_ci_inc;       /**< one-cycle pulse, for QP qpc_idx */
    uint8_t qp_err_valid;    /**< one-cycle pulse */
    uint16_t qp_err_qpn;     /**< QW bits */
    uint8_t xq_valid;
    uint8_t xs_ready;        /**< always 1 */
    uint8_t dma_req_valid;
    uint8_t dma_rsp_ready;   /**< always 1 */
    uint8_t pb_alloc_ready;
    uint8_t pb_free_valid;
    uint8_t pb_free_id;
    uint8_t cpl_valid;
    uint16_t cpl_cqn;        /**< the CQ of cpl */
    uint8_t place_busy;      /**< ctx DRAIN sources {slot 1 posted, slot 0 posted, engine} */
    uint8_t evt_valid;
    m_xreq_t xq;             /**< xq_tag_o, xq_rights_o, xq_remote_o, xq_key_o, xq_pd_o, xq_len_o, xq_va_o */
    hca_pkt_t tx;
    hca_dma_req_t dma_req;   /**< tags 8'b01xx_xxxx */
    hca_cqe_t cpl;           /**< a recv or flush CQE, owner bit 0 */
    hca_fw_event_t evt;      /**< REMOTE_INV */
} hca_responder_io_t;

typedef struct hca_responder {
    unsigned max_qp;         /**< parameter MAX_QP: a power of two in 2..HCA_MAX_QP */
    /* control registers (the RTL's names without _q) */
    uint8_t state;           /**< state_e: S_IDLE .. S_FINISH */
    uint16_t qpn;
    m_qv_t busy;             /**< per QP: a SEND message accepted, not ended */
    uint8_t wqe_valid;
    uint16_t wqe_qpn;
    hca_qfifo_t fq;          /**< u_flush_q: QPs whose RQ may need a flush */
    uint8_t scan_pref;
    uint8_t whole;
    uint32_t rd_off;
    uint8_t rd_buf;
    uint8_t res_key, res_bus;
    uint8_t tx_pend, cpl_pend, free_pend, inc_pend, err_pend, err_wait;
    /* READ double buffering: posted gathers per slot, the tx register's slot */
    uint8_t rslot;           /**< slot of the chunk being gathered */
    uint8_t rcnt0, rcnt1;    /**< posted, not yet answered (4 bits) */
    uint8_t rberr0, rberr1;  /**< an answer of the slot's chunk was err */
    uint8_t txp, txslot;     /**< tx is a READ_RESP of posted chunk txslot */
    uint8_t rd_cur;          /**< RD_NAK: the current chunk holds rd_buf */
    /* WRITE overlap: the posted free of a middle packet's buffer */
    uint8_t pf, pfslot, pf_buf; /**< pf_buf waits for slot pfslot's answers (pf_buf: data) */
    uint16_t pf_qpn;
    uint8_t fsel;            /**< the posted free was offered and not taken: it stays offered */
    m_qv_t werr;             /**< per QP: a posted placement was answered err */
    uint8_t free_id;         /**< free_id_q (data) */
    /* data registers tx_q, cqe_q, cqn_q (never reset): they drive their
     * ports straight, so they live in o as o.tx, o.cpl, o.cpl_cqn */
    /* the packet: p_*_q */
    uint8_t p_op, p_first, p_last, p_pbuf;
    uint16_t p_dqpn, p_sqpn;
    uint32_t p_psn, p_rkey, p_len, p_msglen, p_off, p_invkey;
    uint64_t p_raddr;
    /* the context: c_*_q */
    uint32_t c_pd;
    uint64_t c_rqbase;
    uint8_t c_rqlog;
    uint16_t c_mtu, c_cqn, c_rqci;
    hca_rq_wqe_t wqe;        /**< wqe_q */
    hca_resp_place_t place;  /**< u_place */
    /* not RTL state (but for the data registers above): the outputs and
     * the placement engine's job and outputs, derived from the registers
     * after every edge and reset, each part when what it depends on changed */
    hca_responder_io_t o;
    hca_resp_place_io_t pio;
} hca_responder_t;

/** 0, or -EINVAL when max_qp is outside [2, 64]. Data registers start
 *  zeroed (Verilator's initial value); the responder is reset. */
int hca_responder_init(hca_responder_t *m, unsigned max_qp);
void hca_responder_reset(hca_responder_t *m);
/** Writes every output of io; reads no input (there is no comb path). */
void hca_responder_comb(const hca_responder_t *m, hca_responder_io_t *io, uint64_t now);
void hca_responder_edge(hca_responder_t *m, const hca_responder_io_t *io, uint64_t now);
/** The first cycle > now in which the responder acts on its own with every
 *  input idle and tx_ready as given (the TX pin, held while the harness
 *  skips: 0 while the link is full): UINT64_MAX when it sits in IDLE with
 *  nothing queued for the RQ flush (u_flush_q), nothing pending to hand
 *  over and the placement engine idle, or when it waits only for DMA
 *  answers (an RQ WQE, the placement engine's writes, the gathers of a
 *  READ_RESP) or for the link (only an input wakes it); else now + 1. */
uint64_t hca_responder_quiet_until(const hca_responder_t *m, int tx_ready, uint64_t now);
/** rx_ready as the responder shows it this cycle (from its registers): a
 *  packet waiting in hca_core's receive queue is taken only then. */
static inline int hca_responder_rx_ready(const hca_responder_t *m) { return m->o.rx_ready; }

#endif /* HCA_RESPONDER_H */
