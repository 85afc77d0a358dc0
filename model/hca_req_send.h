/* hca_req_send.h — C model of rtl/hca_req_send.sv, the requester's send
 * engine: claim a scheduled QP, fetch (or take the prefetched) + decode its
 * WQE at sq_ci, read the next two posted WQEs ahead, pre-check
 * its SGEs, gather and send the message, then park it (in flight) or
 * complete it here. Instantiates hca_sge_mover (member mv).
 *
 * Comb paths (outputs from inputs in the same cycle):
 *   sched_ready      state only
 *   qpn              <- sched_qpn (S_IDLE)
 *   rel_evt          <- evt_ready (S_EVT)
 *   rel_inflight     <- tx_ready, nak (S_TX); evt_ready (S_EVT)
 *   rel_valid        <- tx_ready, nak (S_TX); evt_ready (S_EVT);
 *                       fin_ready (S_FINISH); qpc.state (S_CTX, S_FREE);
 *                       sched_valid, dma_rsp, qpc.state (S_PWAIT, S_CTX: the yield)
 *   rel_rnr          <- qpc.state (S_FREE)
 *   rnr_timer        <- qpc.rnr_timer
 *   alloc_ready      <- nak (S_ALLOC)
 *   rel_inflight     <- tx_ready, nak (S_TXWAIT, the pending packet)
 *   tx_valid         <- nak, qpc.state (the pending packet)
 *   xs_ready         <- xs_valid, xs_status, xs_last, dma_rsp_valid,
 *                       dma_req_ready (mover)
 *   dma_req          <- xs_len, xs_pa (mover's request fields)
 *   dma_rsp_ready    <- dma_rsp.rtag (posted gathers' and prefetches' answers)
 *   dma_req_valid, xq_valid, xq, free_*, tx, evt_valid, evt, park,
 *   fin_valid, fin, mv_busy: state only.
 */
#ifndef HCA_REQ_SEND_H
#define HCA_REQ_SEND_H

#include <stdint.h>

#include "hca_abi.h"
#include "hca_sge_mover.h"
#include "m_xreq.h"

/* park_o (PARK_W bits), MSB first as the RTL packs it:
 * {psn, wc opcode, READ_INV after the last byte, signaled, num_sge, msg_len,
 *  key to invalidate, wr_id, sges} */
typedef struct hca_req_send_park {
    uint16_t psn;       /**< 16: sq_ci of the WQE */
    uint8_t wc_op;      /**< 4: HCA_WC_OPCODE_* (low 4 bits) */
    uint8_t read_inv;   /**< 1: RDMA_READ_WITH_INV */
    uint8_t signaled;   /**< 1: flags.SIGNALED */
    uint8_t num_sge;    /**< 3: min(num_sge, 4) */
    uint32_t msg_len;   /**< 32 */
    uint32_t inv_key;   /**< 32: read_inv_key (inv_key, else sge[0].lkey) */
    uint64_t wr_id;     /**< 64 */
    hca_sge_t sge[4];   /**< SGES_W = 4 * 128, sge[0] at the LSBs */
} hca_req_send_park_t;

/* fin_o (FIN_W bits), MSB first: {qpn, cqn, write, err, cqe} */
typedef struct hca_req_send_fin {
    uint16_t qpn;       /**< 16 */
    uint16_t cqn;       /**< 16 */
    uint8_t write;      /**< 1: always 1 here */
    uint8_t err;        /**< 1: the completion moves the QP to ERROR */
    hca_cqe_t cqe;      /**< HCA_CQE_W, at the LSBs */
} hca_req_send_fin_t;

typedef struct hca_req_send_io {
    /* inputs */
    uint8_t sched_valid;
    uint16_t sched_qpn;     /**< QW bits */
    uint8_t sched_fresh;    /**< ...claimed from idle (nothing of it in flight) */
    hca_qp_ctx_t qpc;       /**< answers one cycle after qpn */
    uint16_t sq_ci;
    uint16_t sq_pi;         /**< with sq_ci: the WQEs posted */
    uint8_t pf_kill;        /**< a WRITE_QPC of pf_kill_qpn: drop its prefetch entry */
    uint16_t pf_kill_qpn;
    uint8_t nak;
    uint8_t nak_syn;        /**< 5 bits */
    uint8_t nak_rnr;        /**< the kept NAK is an RNR_NAK to retry */
    uint8_t evt_ready;
    uint8_t alloc_valid;
    uint8_t alloc_id;
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
    uint8_t tx_ready;
    uint8_t fin_ready;
    /* outputs */
    uint8_t sched_ready;
    uint16_t qpn;
    uint8_t rel_valid;
    uint8_t rel_inflight;
    uint8_t rel_evt;
    uint8_t rel_rnr;        /**< ...into RNR wait (stopped by an RNR_NAK) */
    uint32_t rnr_timer;     /**< with rel_rnr: the QP's rnr_timer */
    hca_req_send_park_t park;
    uint8_t evt_valid;
    hca_fw_event_t evt;
    uint8_t alloc_ready;
    uint8_t free_valid;
    uint8_t free_id;
    uint8_t xq_valid;
    m_xreq_t xq;
    uint8_t xs_ready;
    uint8_t dma_req_valid;
    hca_dma_req_t dma_req;
    uint8_t dma_rsp_ready;
    uint8_t tx_valid;
    hca_pkt_t tx;
    uint8_t fin_valid;
    hca_req_send_fin_t fin;
    uint8_t mv_busy;        /**< {slot 1 posted, slot 0 posted, mover} (ctx DRAIN) */
    uint16_t rd_busy;       /**< {prefetch read slot RDN-1..0 out, the fetch} (ctx DRAIN) */
} hca_req_send_io_t;

/* The decode wires of the RTL (functions of the registers only). */
typedef struct hca_req_send_dec {
    uint8_t is_send, is_write, is_read, is_mm, is_send_inv, is_read_inv, malformed;
    uint8_t nsge3, wc_op, len_ovf, last_chunk;
    uint32_t msg_len, chunk, read_inv_key;
} hca_req_send_dec_t;

#define HCA_REQ_SEND_PFN HCA_SQ_PREFETCH_ENTRIES /**< WQE prefetch entries (the RTL's PFN) */
#define HCA_REQ_SEND_RDN HCA_SQ_PREFETCH_READS   /**< prefetch read slots (the RTL's RDN) */
_Static_assert(HCA_REQ_SEND_PFN >= 2 && HCA_REQ_SEND_PFN <= 32 && (HCA_REQ_SEND_PFN & (HCA_REQ_SEND_PFN - 1)) == 0,
               "the entry flags are uint32_t bit vectors");
_Static_assert(HCA_REQ_SEND_RDN == 8, "tag {0000_1, slot}; the DRAIN sources hca_core wires");

typedef struct hca_req_send {
    /* parameter */
    uint8_t qw;             /**< QP number bits (1..16) */
    /* control registers (names as the RTL's, without _q) */
    uint8_t state;          /**< state_e: S_IDLE .. S_EVT */
    uint16_t qpn;
    uint32_t off;
    uint8_t buf;
    uint8_t status;         /**< completion status, 5 bits */
    uint8_t err;
    uint8_t rnr;            /**< stopped by an RNR_NAK: released into RNR wait */
    uint8_t cur;            /**< buf is held by the chunk being gathered */
    uint8_t slot;           /**< the gathering chunk's slot (tag bit, answer counter) */
    uint8_t cnt0, cnt1;     /**< posted DMAs not yet answered, per slot (4 bits) */
    uint8_t seq0, seq1;     /**< tag of the slot's next post (3 bits) */
    uint8_t berr0, berr1;   /**< an answer of the slot's chunk was err */
    uint8_t pv;             /**< a gathered chunk waits to be sent */
    uint8_t pslot;
    /* the pending packet (data, not reset) */
    uint8_t pbuf, plast;
    uint32_t poff, plen;
    /* context fields (data, not reset) */
    uint64_t sq_base;
    uint8_t sq_log, mtu_log;
    uint32_t pd;
    uint16_t rqpn, cqn, sq_ci;
    uint8_t err_state;
    uint8_t fresh;       /**< fresh_q: claimed with sched_fresh */
    uint8_t gone;        /**< gone_q: the QP was in RESET at some cycle since its claim */
    /* the decoded WQE (data, not reset) */
    uint8_t op, flags, nsge, rsvd_bad;
    uint64_t wr_id, raddr;
    uint32_t rkey, inv_key;
    uint64_t fr_iova, fr_length, fr_list;  /**< fr_q, field by field */
    uint32_t fr_key, fr_params;
    uint8_t wqe_ok;      /**< wqe_ok_q: fw_event.hdr.wqe_ok, latched at S_DECODE */
    hca_sge_t sges[4];
    /* WQE prefetch (control: flags, request; data: tags and WQEs) */
    uint32_t pf_val, pf_pend, pf_dead, pf_err; /**< per entry, bit e */
    uint8_t pf_req, pf_held, pf_ent, pf_slot;
    uint8_t rd_out;                    /**< per read slot, bit s: its read is out (allocated, not answered) */
    uint8_t rd_ent[HCA_REQ_SEND_RDN];  /**< the entry slot s fills */
    uint64_t pf_addr;
    uint16_t pf_qpn[HCA_REQ_SEND_PFN], pf_idx[HCA_REQ_SEND_PFN];
    hca_sq_wqe_t pf_wqe[HCA_REQ_SEND_PFN];
    /* the SGE mover (u_mover) */
    hca_sge_mover_t mv;
    /* Derived from the registers above after every edge, reset and init
     * (not state of its own): the decode wires and the outputs that depend
     * on registers only, so comb copies them instead of rebuilding them. */
    hca_req_send_dec_t dec;
    hca_req_send_park_t park_w;
    hca_fw_event_t evt_w;
    hca_pkt_t tx_w;
    hca_req_send_fin_t fin_w;
    hca_dma_req_t fetch_w;      /**< the WQE fetch request */
    hca_sge_mover_io_t mv_w;    /**< the mover's outputs with its xs/dma inputs low */
} hca_req_send_t;

int hca_req_send_init(hca_req_send_t *m, unsigned qw); /* 0 / -EINVAL */
void hca_req_send_reset(hca_req_send_t *m);
void hca_req_send_comb(const hca_req_send_t *m, hca_req_send_io_t *io, uint64_t now);
void hca_req_send_edge(hca_req_send_t *m, const hca_req_send_io_t *io, uint64_t now);
uint64_t hca_req_send_quiet_until(const hca_req_send_t *m, uint64_t now);
/** S_PWAIT on a read still out, and the QP may yield to another the
 *  scheduler offers (the RTL's quiet_o is low then: hca_requester's). */
static inline int hca_req_send_may_yield(const hca_req_send_t *m)
{
    return m->state == 15 /* S_PWAIT */ && m->fresh && !m->err_state;
}
/** The RTL's name of state s (hca_req_send_t.state), for the model's state log. */
const char *hca_req_send_state_name(unsigned s);

#endif /* HCA_REQ_SEND_H */
