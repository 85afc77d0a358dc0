/* hca_req_resp.h — C model of rtl/hca_req_resp.sv, the requester's response
 * engine: ACK / NAK / RNR_NAK / READ_RESP of the messages the send engine
 * parked, and the DONE of a QP waiting for the firmware. Instantiates
 * hca_sge_mover (member mv). The park entry and fin bundle are hca_req_send's
 * types (model/hca_req_send.h): one definition for the two engines.
 *
 * Comb paths (outputs from inputs in the same cycle):
 *   rx_ready, done_take  <- done_valid (R_IDLE)
 *   qpn                  <- done_valid, done_qpn, rx.dst_qpn (R_IDLE)
 *   claim, nak_save      <- look_inflight, look_evt_wait, park.psn,
 *                           park.wc_op, rnr_cnt, qpc.rnr_retry, look_active,
 *                           sq_ci (R_CLAIM)
 *   rel_valid, rel_kind  <- as claim (R_CLAIM); free_ready, park.wc_op,
 *                           park.read_inv (R_FREE); fin_ready (R_FINISH);
 *                           evt_ready (R_EVT)
 *   rnr_timer            <- qpc.rnr_timer
 *   evt                  <- qpc.pd, park.inv_key
 *   fin                  <- qpc.send_cqn, park (wr_id, msg_len, wc_op,
 *                           signaled), sq_ci
 *   xq                   <- park.sge (key field)
 *   dma_req              <- xs_len, xs_pa, park.sge (key field)
 *   xs_ready             <- xs_valid, xs_status, dma_req_ready (posted)
 *   look_qpn, nak_syn, evt_valid, free_valid, free_id, fin_valid, xq_valid,
 *   dma_req_valid, dma_rsp_ready, mv_busy: state only.
 */
#ifndef HCA_REQ_RESP_H
#define HCA_REQ_RESP_H

#include <stdint.h>

#include "hca_abi.h"
#include "hca_req_send.h"
#include "hca_sge_mover.h"
#include "m_xreq.h"

/* state_e of the RTL (hca_req_resp_t.state) */
enum { HCA_REQ_RESP_R_IDLE, HCA_REQ_RESP_R_CLAIM, HCA_REQ_RESP_R_MOVE, HCA_REQ_RESP_R_FREE, HCA_REQ_RESP_R_FINISH,
       HCA_REQ_RESP_R_EVT };

/* rel_kind_o values (the RTL's REL_* localparams; hca_requester decodes them) */
enum {
    HCA_REQ_RESP_REL_IDLE = 0,     /**< completed: QP to IDLE */
    HCA_REQ_RESP_REL_INFLIGHT = 1, /**< message stays in flight */
    HCA_REQ_RESP_REL_RNR = 2,      /**< RNR wait of rnr_timer cycles */
    HCA_REQ_RESP_REL_EVT = 3       /**< in flight, waiting for DONE */
};

typedef struct hca_req_resp_io {
    /* inputs */
    uint8_t rx_valid;
    hca_pkt_t rx;
    uint8_t look_inflight;
    hca_req_send_park_t park;  /**< park_i: the park entry of look_qpn */
    uint8_t rnr_cnt;           /**< 3 bits */
    uint8_t look_active;
    uint8_t look_evt_wait;
    uint8_t done_valid;
    uint16_t done_qpn;         /**< QW bits */
    uint8_t done_status;       /**< 5 bits */
    uint8_t evt_ready;
    hca_qp_ctx_t qpc;          /**< answers one cycle after qpn */
    uint16_t sq_ci;
    uint8_t free_ready;
    uint8_t xq_ready;
    uint8_t xs_valid;
    uint8_t xs_status;
    uint8_t xs_last;
    uint32_t xs_len;
    uint64_t xs_pa;
    uint8_t dma_req_ready;
    uint8_t dma_rsp_valid;
    hca_dma_rsp_t dma_rsp;
    uint8_t fin_ready;
    /* outputs */
    uint8_t rx_ready;
    uint16_t look_qpn;         /**< QW bits */
    uint8_t claim;
    uint8_t rel_valid;
    uint8_t rel_kind;          /**< HCA_REQ_RESP_REL_* */
    uint32_t rnr_timer;
    uint8_t nak_save;
    uint8_t nak_syn;           /**< 5 bits (RNR_RETRY_EXC_ERR for an RNR_NAK) */
    uint8_t nak_rnr;           /**< the kept NAK is an RNR_NAK with retries left */
    uint8_t done_take;
    uint8_t evt_valid;
    hca_fw_event_t evt;
    uint16_t qpn;
    uint8_t free_valid;
    uint8_t free_id;
    uint8_t xq_valid;
    m_xreq_t xq;
    uint8_t xs_ready;
    uint8_t dma_req_valid;
    hca_dma_req_t dma_req;
    uint8_t dma_rsp_ready;
    uint8_t fin_valid;
    hca_req_send_fin_t fin;
    uint8_t mv_busy;       /**< {slot 1 posted, slot 0 posted, mover} (ctx DRAIN) */
} hca_req_resp_io_t;

typedef struct hca_req_resp {
    /* parameter */
    uint8_t qw;            /**< QP number bits (1..16) */
    /* control registers (names as the RTL's, without _q) */
    uint8_t state;         /**< state_e: HCA_REQ_RESP_R_* */
    uint16_t qpn;
    uint8_t claimed;
    uint8_t status;        /**< completion status, 5 bits */
    uint8_t err;
    uint8_t moved;         /**< the packet went through R_MOVE (its buffer is posted-freed) */
    /* posted scatters: per slot, and the posted free */
    uint8_t slot;
    uint8_t cnt0, cnt1;    /**< posted, not yet answered (4 bits) */
    uint8_t seq0, seq1;    /**< tag of the slot's next post (3 bits) */
    uint8_t berr0, berr1;  /**< an answer of the slot's chunk was err */
    uint8_t pf, pfslot;    /**< pf_buf waits for slot pfslot's answers */
    uint16_t pf_qpn;
    uint64_t rerr[1024];   /**< per QP (QW <= 16 bits): a posted scatter of its READ was answered err */
    /* the packet (data, not reset) */
    uint8_t op;            /**< 4 bits; OP_DONE for a DONE */
    uint8_t last;
    uint8_t syn;           /**< 5 bits */
    uint8_t pbuf;
    uint8_t pf_buf;        /**< the posted free's buffer */
    uint16_t psn;
    uint32_t len, off;
    /* the SGE mover (u_mover) */
    hca_sge_mover_t mv;
} hca_req_resp_t;

int hca_req_resp_init(hca_req_resp_t *m, unsigned qw); /* 0 / -EINVAL */
void hca_req_resp_reset(hca_req_resp_t *m);
void hca_req_resp_comb(const hca_req_resp_t *m, hca_req_resp_io_t *io, uint64_t now);
void hca_req_resp_edge(hca_req_resp_t *m, const hca_req_resp_io_t *io, uint64_t now);
uint64_t hca_req_resp_quiet_until(const hca_req_resp_t *m, uint64_t now);
/** The RTL's name of state s (hca_req_resp_t.state), for the model's state log. */
const char *hca_req_resp_state_name(unsigned s);

#endif /* HCA_REQ_RESP_H */
