/* hca_core.c — the C model of rtl/hca_core.sv: the device core's blocks
 * (one model/<module>.c per RTL module) wired as the RTL wires them, behind
 * core_engine_ops_t (core_model_ops), in the same harness as the RTL.
 *
 * One cycle: every block's comb runs, the wires between blocks are copied
 * (as hca_core.sv assigns them), and this repeats until no wire changes —
 * the RTL's combinational paths between blocks (valid forward through the
 * arbiters, ready back) settle as they do in a simulator's delta cycles.
 * Then every block takes the edge. A pass budget that runs out means a
 * combinational loop, which the RTL cannot have (Verilator refuses one): it
 * is reported once on stderr.
 *
 * Time: no block counts cycles it does nothing in; each tells when it next
 * acts on its own (quiet_until) and the harness skips the cycles between
 * (sim/harness/core.c core_quiet_until), which is where the model's speed
 * comes from.
 *
 * HCASIM_MODEL_STATELOG=PATH (read at create; off: one test per cycle) logs
 * where a WR spends its cycles: each change of the send engine's, response
 * engine's and CQ writer's state, of the scheduler's and event queue's
 * levels and of fw_irq, and each doorbell, firmware port access, event push,
 * DONE and completion taken, as "CYCLE TAG VALUE..." lines (a state holds
 * until its next line, skipped cycles included). testbench/bench_mm.c
 * --floor reads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_engine.h"
#include "hca_cq_writer.h"
#include "hca_ctx.h"
#include "hca_evt.h"
#include "hca_pbuf.h"
#include "hca_requester.h"
#include "hca_responder.h"
#include "hca_xarb.h"
#include "m_prim.h"
#include "xlate_unit.h"

/* hca_core.sv localparams */
#define CM_CTX_OFF (HCA_FW_CTX_BASE - HCA_DEVREG_BASE)
#define CM_CTX_END (CM_CTX_OFF + HCA_CTX_STATUS + 4u)
#define CM_FWP_END (HCA_FWP_CONFIG + 4u)
#define CM_EVT_OFF (HCA_FW_EVT_BASE - HCA_DEVREG_BASE)
#define CM_EVT_END (CM_EVT_OFF + HCA_EVT_DONE + 4u)
#define CM_PBUF_RESP_RSV 4u /* packet buffers only the responder can take */
/* The responder's receive queue: 1 << clog2(PKT_BUFS - PBUF_RESP_RSV + MAX_QP). */
#define CM_RXQ_NEED (HCA_PKT_BUFS - CM_PBUF_RESP_RSV + HCA_MAX_QP)
#define CM_RXQ_DEPTH (1u << (32 - __builtin_clz(CM_RXQ_NEED - 1u)))
#define CM_MAX_PASSES 16
enum { CM_SKIP_ON, CM_SKIP_OFF, CM_SKIP_CHECK };

/* Clients of the shared arbiters (hca_core.sv's concatenation order: input 0 is the rightmost). */
enum { XC_REQ = 0, XC_RESP = 1, XC_EXT = 2, XC_N };
enum { DC_REQ = 0, DC_RESP = 1, DC_CQW = 2, DC_N };
enum { TC_REQ = 0, TC_RESP = 1, TC_N };

/* Every wire between blocks: what one comb pass produces. */
typedef struct cm_wires {
    xu_pins_t xu;
    hca_xarb_io_t xarb;
    hca_ctx_io_t ctx;
    hca_evt_io_t evt;
    hca_pbuf_io_t pb;
    hca_requester_io_t rq;
    hca_responder_io_t rs;
    hca_cq_writer_io_t cw;
    m_arb_out_t tx_arb, dma_arb, cpl_arb;
    uint8_t rx_to_rs, rxq_room, rsp_client;
} cm_wires_t;

/* The blocks' state, in cm_t and in the check mode's cm_state_t (one list):
 * rxq is u_rs_rxq, other_rvalid other_rvalid_q (an access that hit no block). */
#define CM_BLOCK_STATE(X)                                                                                              \
    X(hca_xarb_t, xarb, ) X(hca_ctx_t, ctx, ) X(hca_evt_t, evt, ) X(hca_pbuf_t, pb, ) X(hca_requester_t, rq, )          \
    X(hca_responder_t, rs, ) X(hca_cq_writer_t, cw, ) X(m_arb_t, tx_arb, ) X(m_arb_t, dma_arb, )                        \
    X(m_arb_t, cpl_arb, ) X(m_fifo_t, rxq, ) X(hca_pkt_t, rxq_mem, [CM_RXQ_DEPTH]) X(uint8_t, other_rvalid, )
#define CM_BLOCK_DECL(type, name, dims) type name dims;

typedef struct cm {
    xu_model_t *xu;
    CM_BLOCK_STATE(CM_BLOCK_DECL)
    uint8_t tx_ready_pin; /* the last cycle's tx_ready (held while the harness skips) */
    uint8_t loop_reported;
    cm_wires_t w;
    /* cm_quiet_until's last answer: the device asks it more than once a
     * cycle (before stepping and before running the firmware ahead), and
     * only cm_cycle and cm_reset change what it reads (epoch counts them). */
    uint64_t epoch, q_epoch, q_next, q_val;
    FILE *statelog; /* HCASIM_MODEL_STATELOG, or NULL */
    /* HCASIM_MODEL_SKIP (read at create): CM_SKIP_ON (default), CM_SKIP_OFF
     * ("0": never quiet, every cycle stepped), CM_SKIP_CHECK ("check"): the
     * skipped cycles stepped with idle inputs, each required to change
     * nothing (cm_skip). last: the pins of the last cycle (check only). */
    uint8_t skip_mode;
    core_pins_t last;
    int32_t logged[6]; /* the last logged S, R, C, Q, E, I (-1: none yet) */
} cm_t;

/* ---------------------------------------------------------------- one cycle's comb
 *
 * Which block's outputs depend on which inputs in the same cycle (each
 * block's header): the translation unit, the contexts (but for qpc_wr, from
 * the firmware pins), the packet buffers and the responder drive their
 * outputs from registers, and the pins hold still through the cycle, so
 * those run once (cm_comb_once). The event queue's evt_ready, the
 * requester, the translation arbiter, the completion arbiter, the CQ writer
 * and the TX/DMA arbiters have paths from each other: they run in passes
 * until the wires they read back settle (cm_comb_pass, cm_feedback). Every
 * input a block reads only at its edge is refreshed once the wires settled
 * (cm_edge_inputs). */

static inline int cm_hit_fwp(uint16_t a) { return a < CM_FWP_END; }
static inline int cm_hit_ctx(uint16_t a) { return a >= CM_CTX_OFF && a < CM_CTX_END; }
static inline int cm_hit_evt(uint16_t a) { return a >= CM_EVT_OFF && a < CM_EVT_END; }

/* A block's dma_rsp input: the header (its rtag and err steer readies and
 * error paths whatever the valid) every cycle, the 128 data bytes only with
 * the block's valid, the one cycle they are read in (a WQE taken). */
static inline void cm_dma_rsp_in(hca_dma_rsp_t *to, const hca_dma_rsp_t *pin, int valid)
{
    if (valid)
        *to = *pin;
    else
        to->hdr = pin->hdr;
}

static void cm_comb_once(cm_t *m, const core_pins_t *p, uint64_t now)
{
    cm_wires_t *w = &m->w;
    const uint16_t a = p->fw_addr;

    /* translation unit */
    w->xu.fw_valid = (uint8_t)(p->fw_valid && cm_hit_fwp(a));
    w->xu.fw_write = p->fw_write;
    w->xu.fw_addr = a;
    w->xu.fw_wdata = p->fw_wdata;
    xlate_unit_comb(m->xu, &w->xu, now);

    /* contexts */
    w->ctx.db_valid = p->db_valid;
    w->ctx.db_addr = p->db_addr;
    w->ctx.db_data = p->db_data;
    w->ctx.fw_valid = (uint8_t)(p->fw_valid && cm_hit_ctx(a));
    w->ctx.fw_write = p->fw_write;
    w->ctx.fw_addr = (uint16_t)(a - CM_CTX_OFF);
    w->ctx.fw_wdata = p->fw_wdata;
    w->ctx.pe_qpn = hca_requester_pe_qpn(&m->rq); /* requester state only */
    hca_ctx_comb(&m->ctx, &w->ctx, now);

    /* packet buffers */
    hca_pbuf_comb(&m->pb, &w->pb, now);

    /* event queue: its registered outputs (DONE, irq, the firmware answer) */
    w->evt.fw_valid = (uint8_t)(p->fw_valid && cm_hit_evt(a));
    w->evt.fw_write = p->fw_write;
    w->evt.fw_addr = (uint32_t)(a - CM_EVT_OFF) & 0x3fu;
    w->evt.fw_wdata = p->fw_wdata;
    /* xlate_unit's verdict on the head, for a read of its word 0 (the only one that shows it) */
    w->evt.inv_ok = (uint8_t)(w->evt.fw_valid && !p->fw_write && w->evt.fw_addr == HCA_EVT_DATA &&
                              m_fifo_valid(&m->evt.fifo) &&
                              xlate_unit_inv_ok(m->xu, (const hca_fw_event_t *)m_fifo_head(&m->evt.fifo)));
    hca_evt_comb(&m->evt, &w->evt, now);

    /* the link in: requests through the responder's queue, answers to the requester */
    const unsigned rx_op = hca_pkt_get_op(&p->rx);
    w->rx_to_rs = (uint8_t)(rx_op == HCA_PKT_OP_SEND || rx_op == HCA_PKT_OP_SEND_INV ||
                            rx_op == HCA_PKT_OP_WRITE || rx_op == HCA_PKT_OP_READ_REQ);
    w->rxq_room = (uint8_t)(m_fifo_level(&m->rxq) != CM_RXQ_DEPTH);
    /* DMA responses go back by rtag[7:6] */
    w->rsp_client = (uint8_t)(hca_dma_rsp_get_rtag(&p->dma_rsp) >> 6);

    /* responder: outputs from registers; its inputs from registered outputs and pins */
    hca_responder_io_t *rs = &w->rs;
    rs->rx_valid = (uint8_t)m_fifo_valid(&m->rxq);
    if (rs->rx_valid)
        rs->rx = *(const hca_pkt_t *)m_fifo_head(&m->rxq);
    rs->qpc = w->ctx.rs_qpc;
    rs->qp_state = (uint8_t)w->ctx.rs_state;
    rs->rq_pi = (uint16_t)w->ctx.rs_rq_pi;
    rs->rq_ci = (uint16_t)w->ctx.rs_rq_ci;
    rs->xs_tag = w->xu.rsp_tag;
    rs->xs_status = w->xu.rsp_status;
    rs->xs_last = w->xu.rsp_last;
    rs->xs_len = w->xu.rsp_len;
    rs->xs_pa = w->xu.rsp_pa;
    rs->dma_rsp_valid = (uint8_t)(p->dma_rsp_valid && w->rsp_client == DC_RESP);
    cm_dma_rsp_in(&rs->dma_rsp, &p->dma_rsp, rs->dma_rsp_valid);
    rs->pb_alloc_valid = w->pb.rsp_alloc_valid;
    rs->pb_alloc_id = (uint8_t)w->pb.rsp_alloc_id;
    rs->pb_free_ready = w->pb.rsp_free_ready;
    rs->evt_done_valid = w->evt.done_valid;
    rs->evt_done_tag = (uint16_t)w->evt.done_tag;
    rs->evt_done_status = (uint8_t)w->evt.done_status;
    hca_responder_comb(&m->rs, rs, now);

    /* requester: the inputs that hold still through the cycle */
    hca_requester_io_t *rq = &w->rq;
    rq->ra_qpc = w->ctx.ra_qpc;
    rq->ra_sq_ci = w->ctx.ra_sq_ci;
    rq->ra_sq_pi = (uint16_t)w->ctx.ra_sq_pi;
    rq->rb_qpc = w->ctx.rb_qpc;
    rq->rb_sq_ci = w->ctx.rb_sq_ci;
    rq->pe_pend = w->ctx.pe_pend; /* for pe_qpn = the scheduler's head, set before hca_ctx_comb */
    rq->pe_err = w->ctx.pe_err;
    rq->sq_db = w->ctx.sq_db;
    rq->sq_db_qpn = (uint16_t)w->ctx.sq_db_qpn;
    rq->qpc_set = w->ctx.qpc_set;
    rq->rs_err = rs->qp_err_valid;
    rq->rs_err_qpn = (uint16_t)rs->qp_err_qpn;
    rq->qpc_wr = w->ctx.qpc_wr;
    rq->qpc_wr_qpn = w->ctx.qpc_wr_qpn;
    rq->rx_valid = (uint8_t)(p->rx_valid && !w->rx_to_rs);
    rq->rx = p->rx;
    rq->xs_status = w->xu.rsp_status;
    rq->xs_last = w->xu.rsp_last;
    rq->xs_len = w->xu.rsp_len;
    rq->xs_pa = w->xu.rsp_pa;
    rq->dma_rsp_valid = (uint8_t)(p->dma_rsp_valid && w->rsp_client == DC_REQ);
    cm_dma_rsp_in(&rq->dma_rsp, &p->dma_rsp, rq->dma_rsp_valid);
    rq->pb_alloc_valid = w->pb.req_alloc_valid;
    rq->pb_alloc_id = w->pb.req_alloc_id;
    rq->pb_free_ready = w->pb.req_free_ready;
    rq->evt_done_valid = w->evt.done_valid;
    rq->evt_done_tag = (uint16_t)w->evt.done_tag;
    rq->evt_done_status = w->evt.done_status;

    /* CQ writer (of its dma_rsp only the tag is read: the write's slot) */
    w->cw.cq_cqc = w->ctx.cq_cqc;
    w->cw.cq_inrange = w->ctx.cq_inrange;
    w->cw.cq_pi = w->ctx.cq_pi;
    w->cw.cq_ci = w->ctx.cq_ci;
    w->cw.dma_rsp_valid = (uint8_t)(p->dma_rsp_valid && w->rsp_client == DC_CQW);
    w->cw.dma_rsp_rtag = hca_dma_rsp_get_rtag(&p->dma_rsp);
    w->cw.hold = (uint8_t)(m->ctx.drain >> HCA_DRAIN_SRC_CQ_WRITER_LSB & 1u); /* drain_q's CQ_WRITER bit */

    /* translation arbiter: the responder's and the external client's side, the unit's answers */
    hca_xarb_io_t *xa = &w->xarb;
    xa->c_req[XC_RESP] = rs->xq;
    xa->c_req[XC_EXT] = (m_xreq_t){.tag = p->xq_tag, .rights = p->xq_rights, .remote = p->xq_remote,
                                   .key = p->xq_key, .pd = p->xq_pd, .len = p->xq_len, .va = p->xq_va};
    xa->xu_req_ready = w->xu.req_ready;
    xa->xu_rsp_valid = w->xu.rsp_valid;
    xa->xu_rsp_last = w->xu.rsp_last;
}

static void cm_comb_pass(cm_t *m, const core_pins_t *p, uint64_t now)
{
    cm_wires_t *w = &m->w;
    hca_requester_io_t *rq = &w->rq;
    const hca_responder_io_t *rs = &w->rs;

    /* events: producer 0 requester, 1 responder (evt_ready follows the valids) */
    w->evt.evt_valid = (uint32_t)rq->evt_valid | (uint32_t)rs->evt_valid << 1;
    hca_evt_comb(&m->evt, &w->evt, now);

    /* requester */
    rq->tx_ready = (uint8_t)(w->tx_arb.in_ready >> TC_REQ & 1u);
    rq->xq_ready = (uint8_t)(w->xarb.c_req_ready >> XC_REQ & 1u);
    rq->xs_valid = (uint8_t)(w->xarb.c_rsp_valid >> XC_REQ & 1u);
    rq->dma_req_ready = (uint8_t)(w->dma_arb.in_ready >> DC_REQ & 1u);
    rq->cpl_ready = (uint8_t)(w->cpl_arb.in_ready >> TC_REQ & 1u);
    rq->evt_ready = (uint8_t)(w->evt.evt_ready & 1u);
    hca_requester_comb(&m->rq, rq, now);

    /* translation arbiter: clients requester, responder, external */
    hca_xarb_io_t *xa = &w->xarb;
    xa->c_req_valid = (uint32_t)rq->xq_valid | (uint32_t)rs->xq_valid << XC_RESP | (uint32_t)p->xq_valid << XC_EXT;
    xa->c_req[XC_REQ] = rq->xq;
    xa->c_rsp_ready = (uint32_t)rq->xs_ready | (uint32_t)rs->xs_ready << XC_RESP | (uint32_t)p->xs_ready << XC_EXT;
    hca_xarb_comb(&m->xarb, xa, now);

    /* completions: requester, responder -> CQ writer */
    m_arb_comb(&m->cpl_arb, (uint32_t)rq->cpl_valid | (uint32_t)rs->cpl_valid << TC_RESP, w->cw.cpl_ready,
               &w->cpl_arb);
    w->cw.cpl_valid = w->cpl_arb.valid;
    w->cw.cpl = w->cpl_arb.id == TC_REQ ? rq->cpl : rs->cpl;
    w->cw.cpl_cqn = w->cpl_arb.id == TC_REQ ? rq->cpl_cqn : rs->cpl_cqn;
    w->cw.dma_req_ready = (uint8_t)(w->dma_arb.in_ready >> DC_CQW & 1u);
    hca_cq_writer_comb(&m->cw, &w->cw, now);

    /* TX and DMA arbiters: inputs to the pins (their readies go back next pass) */
    m_arb_comb(&m->tx_arb, (uint32_t)rq->tx_valid | (uint32_t)rs->tx_valid << TC_RESP, p->tx_ready, &w->tx_arb);
    m_arb_comb(&m->dma_arb,
               (uint32_t)rq->dma_req_valid | (uint32_t)rs->dma_req_valid << DC_RESP |
                   (uint32_t)w->cw.dma_req_valid << DC_CQW,
               p->dma_req_ready, &w->dma_arb);
}

/* Inputs read only at the edge, from the settled wires. */
static void cm_edge_inputs(cm_t *m)
{
    cm_wires_t *w = &m->w;
    const hca_requester_io_t *rq = &w->rq;
    hca_responder_io_t *rs = &w->rs;

    w->xu.req_valid = w->xarb.xu_req_valid;
    w->xu.req_tag = w->xarb.xu_req.tag;
    w->xu.req_rights = w->xarb.xu_req.rights;
    w->xu.req_remote = w->xarb.xu_req.remote;
    w->xu.req_key = w->xarb.xu_req.key;
    w->xu.req_pd = w->xarb.xu_req.pd;
    w->xu.req_len = w->xarb.xu_req.len;
    w->xu.req_va = w->xarb.xu_req.va;
    w->xu.rsp_ready = w->xarb.xu_rsp_ready;

    /* each run at its abi DRAIN_SRC_*_LSB, as hca_core.sv wires them (the requester's: SEND..WQE_READS) */
    w->ctx.drain_busy = (rq->drain_busy & ((1u << HCA_DRAIN_SRC_RESPONDER_LSB) - 1u)) |
                        (uint32_t)rs->place_busy << HCA_DRAIN_SRC_RESPONDER_LSB |
                        (uint32_t)w->cw.busy << HCA_DRAIN_SRC_CQ_WRITER_LSB;
    w->ctx.ra_qpn = rq->ra_qpn;
    w->ctx.rb_qpn = rq->rb_qpn;
    w->ctx.req_sq_ci_inc = rq->sq_ci_inc;
    w->ctx.req_sq_ci_qpn = rq->sq_ci_qpn;
    w->ctx.req_err_valid = rq->qp_err_valid;
    w->ctx.req_err_qpn = rq->qp_err_qpn;
    w->ctx.rs_qpn = rs->qpc_idx;
    w->ctx.rs_rq_ci_inc = rs->rq_ci_inc;
    w->ctx.rs_err_valid = rs->qp_err_valid;
    w->ctx.rs_err_qpn = rs->qp_err_qpn;
    rs->fl_qpc_set = w->ctx.qpc_set; /* the responder's flush queue */
    rs->fl_qpc_qpn = w->ctx.qpc_wr_qpn;
    rs->fl_req_err = rq->qp_err_valid;
    rs->fl_req_err_qpn = rq->qp_err_qpn;
    rs->fl_rq_db = w->ctx.rq_db_err;
    rs->fl_rq_db_qpn = w->ctx.sq_db_qpn;
    w->ctx.cq_cqn = w->cw.cq_cqn;
    w->ctx.cq_pi_inc = w->cw.cq_pi_inc;
    w->ctx.cq_ovf_set = w->cw.cq_ovf_set;

    w->evt.evt[0] = rq->evt;
    w->evt.evt[1] = rs->evt;

    w->pb.req_alloc_ready = rq->pb_alloc_ready;
    w->pb.req_free_valid = rq->pb_free_valid;
    w->pb.req_free_id = rq->pb_free_id;
    w->pb.rsp_alloc_ready = rs->pb_alloc_ready;
    w->pb.rsp_free_valid = rs->pb_free_valid;
    w->pb.rsp_free_id = rs->pb_free_id;

    rs->tx_ready = (uint8_t)(w->tx_arb.in_ready >> TC_RESP & 1u);
    rs->xq_ready = (uint8_t)(w->xarb.c_req_ready >> XC_RESP & 1u);
    rs->xs_valid = (uint8_t)(w->xarb.c_rsp_valid >> XC_RESP & 1u);
    rs->dma_req_ready = (uint8_t)(w->dma_arb.in_ready >> DC_RESP & 1u);
    rs->cpl_ready = (uint8_t)(w->cpl_arb.in_ready >> TC_RESP & 1u);
    rs->evt_ready = (uint8_t)(w->evt.evt_ready >> 1 & 1u);
}

/* The pins the core drives, from the settled wires. */
static void cm_outputs(const cm_t *m, core_pins_t *p)
{
    const cm_wires_t *w = &m->w;
    p->db_ready = w->ctx.db_ready;
    p->fw_ready = 1;
    p->fw_rvalid = (uint8_t)(w->xu.fw_rvalid || w->ctx.fw_rvalid || w->evt.fw_rvalid || m->other_rvalid);
    p->fw_rdata = (w->xu.fw_rvalid ? w->xu.fw_rdata : 0) | (w->ctx.fw_rvalid ? w->ctx.fw_rdata : 0) |
                  (w->evt.fw_rvalid ? w->evt.fw_rdata : 0);
    p->fw_irq = w->evt.irq;
    p->fence_wait = (uint8_t)xlate_unit_fence_wait(m->xu);
    p->drain_wait = m->ctx.drain != 0;
    p->dma_req_valid = w->dma_arb.valid;
    switch (w->dma_arb.id) {
    case DC_REQ: p->dma_req = w->rq.dma_req; break;
    case DC_RESP: p->dma_req = w->rs.dma_req; break;
    default: p->dma_req = w->cw.dma_req; break;
    }
    switch (w->rsp_client) {
    case DC_REQ: p->dma_rsp_ready = w->rq.dma_rsp_ready; break;
    case DC_RESP: p->dma_rsp_ready = w->rs.dma_rsp_ready; break;
    case DC_CQW: p->dma_rsp_ready = w->cw.dma_rsp_ready; break;
    default: p->dma_rsp_ready = 1; break; /* nobody's: taken and dropped */
    }
    p->tx_valid = w->tx_arb.valid;
    p->tx = w->tx_arb.id == TC_REQ ? w->rq.tx : w->rs.tx;
    p->rx_ready = w->rx_to_rs ? w->rxq_room : w->rq.rx_ready;
    p->xq_ready = (uint8_t)(w->xarb.c_req_ready >> XC_EXT & 1u);
    p->xs_valid = (uint8_t)(w->xarb.c_rsp_valid >> XC_EXT & 1u);
    p->xs_tag = w->xu.rsp_tag;
    p->xs_status = w->xu.rsp_status;
    p->xs_last = w->xu.rsp_last;
    p->xs_len = w->xu.rsp_len;
    p->xs_pa = w->xu.rsp_pa;
}

/* The wires a pass reads before the pass writes them (outputs of blocks
 * evaluated later in cm_comb_pass than a block that reads them): when none
 * changed in a pass, every block of that pass saw its final inputs. */
typedef struct cm_feedback {
    uint32_t tx_ready, dma_ready, cpl_ready; /* arbiters -> requester, CQ writer */
    uint32_t c_req_ready, c_rsp_valid;       /* translation arbiter -> requester */
    uint32_t cw_cpl_ready;                   /* CQ writer -> completion arbiter */
    uint32_t rq_evt_valid;                   /* requester -> event queue */
} cm_feedback_t;

/* The state log (head comment): a line per change, from the settled wires
 * of cycle now, before its edge. */
static void cm_statelog(cm_t *m, const core_pins_t *p, uint64_t now)
{
    FILE *f = m->statelog;
    const cm_wires_t *w = &m->w;
    const unsigned long long t = (unsigned long long)now;
    const int32_t v[6] = {m->rq.send.state, m->rq.resp.state, m->cw.state,
                          (int32_t)(m->rq.sq.wr - m->rq.sq.rd), (int32_t)m_fifo_level(&m->evt.fifo), w->evt.irq};
    for (int i = 0; i < 6; i++) {
        if (v[i] == m->logged[i])
            continue;
        m->logged[i] = v[i];
        switch (i) {
        case 0: fprintf(f, "%llu S %s %u\n", t, hca_req_send_state_name((unsigned)v[i]), m->rq.s_qpn); break;
        case 1: fprintf(f, "%llu R %s\n", t, hca_req_resp_state_name((unsigned)v[i])); break;
        case 2: fprintf(f, "%llu C %s\n", t, hca_cq_writer_state_name((unsigned)v[i])); break;
        default: fprintf(f, "%llu %c %d\n", t, "QEI"[i - 3], (int)v[i]); break;
        }
    }
    if (p->db_valid && p->db_ready)
        fprintf(f, "%llu B %u\n", t, p->db_addr);
    if (p->fw_valid && p->fw_ready)
        fprintf(f, "%llu F %#x %u\n", t, p->fw_addr, p->fw_write);
    if (w->evt.evt_valid & w->evt.evt_ready)
        fprintf(f, "%llu P %u\n", t, w->evt.evt_valid & w->evt.evt_ready);
    if (w->evt.done_valid)
        fprintf(f, "%llu D %u\n", t, w->evt.done_tag);
    if (w->cw.cpl_valid && w->cw.cpl_ready)
        fprintf(f, "%llu K %u\n", t, w->cw.cpl.qpn);
}

static inline void cm_feedback(const cm_wires_t *w, cm_feedback_t *f)
{
    *f = (cm_feedback_t){w->tx_arb.in_ready, w->dma_arb.in_ready, w->cpl_arb.in_ready,
                         w->xarb.c_req_ready, w->xarb.c_rsp_valid, w->cw.cpl_ready, w->rq.evt_valid};
}

static void cm_cycle(void *eng, core_pins_t *p, uint64_t now)
{
    cm_t *m = eng;
    int pass = 0;
    cm_feedback_t before, after;
    m->epoch++;
    cm_comb_once(m, p, now);
    cm_feedback(&m->w, &after);
    do {
        before = after;
        cm_comb_pass(m, p, now);
        cm_feedback(&m->w, &after);
    } while (memcmp(&before, &after, sizeof after) && ++pass < CM_MAX_PASSES);
    if (pass == CM_MAX_PASSES && !m->loop_reported) {
        m->loop_reported = 1;
        fprintf(stderr, "hca_core model: wires did not settle in %d passes at cycle %llu (a combinational loop)\n",
                CM_MAX_PASSES, (unsigned long long)now);
    }
    cm_outputs(m, p);
    cm_edge_inputs(m);
    if (m->statelog)
        cm_statelog(m, p, now);

    /* the edge */
    const cm_wires_t *w = &m->w;
    xlate_unit_edge(m->xu, &w->xu, now);
    hca_xarb_edge(&m->xarb, &w->xarb, now);
    hca_ctx_edge(&m->ctx, &w->ctx, now);
    if (p->fw_valid && p->fw_write && cm_hit_evt(p->fw_addr) && p->fw_addr - CM_EVT_OFF == HCA_EVT_POP &&
        m_fifo_valid(&m->evt.fifo)) /* the RTL's evt_pop: fwp's registration bank keeps the head */
        xlate_unit_evt_pop(m->xu, HCA_EVT_POP_SLOT_GET(p->fw_wdata), (const hca_fw_event_t *)m_fifo_head(&m->evt.fifo));
    hca_evt_edge(&m->evt, &w->evt, now);
    hca_pbuf_edge(&m->pb, &w->pb, now);
    hca_requester_edge_settled(&m->rq, &w->rq, now); /* w->rq's inputs as its last comb (in cm_comb_pass) saw them */
    hca_responder_edge(&m->rs, &w->rs, now);
    hca_cq_writer_edge(&m->cw, &w->cw, now);
    m_arb_edge(&m->tx_arb, &w->tx_arb, p->tx_ready);
    m_arb_edge(&m->dma_arb, &w->dma_arb, p->dma_req_ready);
    m_arb_edge(&m->cpl_arb, &w->cpl_arb, w->cw.cpl_ready);
    m_fifo_edge(&m->rxq, (uint8_t)(p->rx_valid && w->rx_to_rs && w->rxq_room), &p->rx, w->rs.rx_ready);
    m->other_rvalid = (uint8_t)(p->fw_valid && !cm_hit_fwp(p->fw_addr) && !cm_hit_ctx(p->fw_addr) &&
                                !cm_hit_evt(p->fw_addr));
    m->tx_ready_pin = p->tx_ready;
    if (m->skip_mode == CM_SKIP_CHECK)
        m->last = *p;
}

/* ---------------------------------------------------------------- time */

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The first cycle >= next in which a block acts with its inputs as they are:
 * the harness's inputs are idle (it checks its own side), so only the
 * blocks' own work and timers count. */
static uint64_t cm_quiet_until_now(const cm_t *m, uint64_t next)
{
    /* a packet in the responder's receive queue waits (nothing moves) until
     * the responder shows rx_ready, which its own quiet_until then covers */
    if (m->other_rvalid || (m_fifo_valid(&m->rxq) && hca_responder_rx_ready(&m->rs)) || m->tx_arb.hold ||
        m->dma_arb.hold || m->cpl_arb.hold)
        return next;
    /* An event queued at the last edge raises fw_irq only in the next cycle's
     * outputs: the device, which judges the firmware's sleep by that pin,
     * must see it before anything is skipped. */
    if (m_fifo_valid(&m->evt.fifo) && !m->w.evt.irq)
        return next;
    /* Blocks report in their own terms (first cycle > the last one run);
     * the busiest first, and the first busy one ends the search: this runs
     * every cycle the firmware sleeps. */
    const uint64_t last = next - 1;
    uint64_t q = UINT64_MAX;
#define CM_QUIET(block_quiet_until)                                                                                    \
    do {                                                                                                               \
        const uint64_t t_ = (block_quiet_until);                                                                      \
        if (t_ <= next)                                                                                                \
            return next;                                                                                               \
        q = min_u64(q, t_);                                                                                            \
    } while (0)
    CM_QUIET(hca_responder_quiet_until(&m->rs, m->tx_ready_pin, last));
    CM_QUIET(hca_requester_quiet_until_in(&m->rq, (const m_qv_t *)m->ctx.sq_pending, (const m_qv_t *)m->ctx.qp_error,
                                          last));
    CM_QUIET(xlate_unit_quiet_until(m->xu, last));
    CM_QUIET(hca_xarb_quiet_until(&m->xarb, last));
    CM_QUIET(hca_ctx_quiet_until(&m->ctx, last));
    CM_QUIET(hca_evt_quiet_until(&m->evt, last));
    CM_QUIET(hca_pbuf_quiet_until(&m->pb, last));
    CM_QUIET(hca_cq_writer_quiet_until(&m->cw, last));
#undef CM_QUIET
    return q;
}

static uint64_t cm_quiet_until(const void *eng, uint64_t next)
{
    cm_t *m = (cm_t *)eng; /* the answer's cache only (the engine is allocated writable) */
    if (m->skip_mode == CM_SKIP_OFF)
        return next;
    if (m->q_epoch != m->epoch || m->q_next != next) {
        m->q_val = cm_quiet_until_now(m, next);
        m->q_epoch = m->epoch;
        m->q_next = next;
    }
    return m->q_val;
}

/* HCASIM_MODEL_SKIP=check: the state a skipped cycle must leave as it is —
 * every block's registers, the wiring and caches aside (the wires, the
 * requester's cache key gen and its idle-edge memo, quiet_until's memo) and
 * the contexts' read-port index registers of the requester and CQ writer,
 * which a skip leaves as they were (docs/model.md, "Known inexactness
 * without effect"); the translation unit is checked through its pins. */
typedef struct cm_state {
    CM_BLOCK_STATE(CM_BLOCK_DECL)
} cm_state_t;

static void cm_state(const cm_t *m, cm_state_t *s)
{
    memset(s, 0, sizeof *s); /* padding compares equal */
#define CM_BLOCK_COPY(type, name, dims) memcpy(&s->name, &m->name, sizeof s->name);
    CM_BLOCK_STATE(CM_BLOCK_COPY)
#undef CM_BLOCK_COPY
    s->ctx.ra_idx = s->ctx.rb_idx = s->ctx.cq_idx = 0;
    s->ctx.cq_inrange = 0;
    s->rq.gen = 0;
    s->rq.idle_again = 0;
    s->rq.idle_serial = 0;
}

static void cm_skip_failed(uint64_t from, uint64_t now, const char *what)
{
    fprintf(stderr, "HCASIM_MODEL_SKIP=check: the model declared cycles %llu.. quiet, but %s changed in cycle %llu\n",
            (unsigned long long)from, what, (unsigned long long)now);
    abort();
}

/* The harness skipped [from, to) (every cycle quiet by cm_quiet_until, the
 * harness's inputs idle). Check mode: step them, with the last cycle's pins
 * and every input valid low (what the harness drives while it has nothing to
 * offer); none may complete a handshake or answer the firmware, change
 * fw_irq (the device judges the firmware's sleep by it) or raise fence_wait
 * or drain_wait from the last cycle's (the harness counts their rises; they
 * may fall: they show registers the last edge may have cleared), or change
 * an output from the first of them, and the state must be as before.
 * Otherwise nothing runs on its own in quiet cycles. */
static void cm_skip(void *eng, uint64_t from, uint64_t to)
{
    cm_t *m = eng;
    if (m->skip_mode != CM_SKIP_CHECK || from >= to)
        return;
    static cm_state_t before, after; /* large: not on the stack; check mode only */
    cm_state(m, &before);
    core_pins_t idle = m->last, first;
    idle.db_valid = idle.fw_valid = idle.dma_rsp_valid = idle.rx_valid = idle.xq_valid = 0;
    for (uint64_t c = from; c < to; c++) {
        core_pins_t q = idle;
        cm_cycle(m, &q, c);
        const core_pins_t *l = &idle;
        if ((q.dma_req_valid && q.dma_req_ready) || (q.tx_valid && q.tx_ready) || (q.xs_valid && q.xs_ready) ||
            q.fw_rvalid)
            cm_skip_failed(from, c, "a handshake or firmware answer (none happens in a skipped cycle)");
        if (q.fw_irq != l->fw_irq || (q.fence_wait && !l->fence_wait) || (q.drain_wait && !l->drain_wait))
            cm_skip_failed(from, c, "fw_irq, or a rise of fence_wait or drain_wait (the harness counts rises)");
        if (c == from)
            first = q;
        else if (memcmp(&q, &first, sizeof q))
            cm_skip_failed(from, c, "an output");
    }
    cm_state(m, &after);
    if (memcmp(&before, &after, sizeof before))
        cm_skip_failed(from, to - 1, "the state");
}

/* ---------------------------------------------------------------- life cycle */

static void cm_reset(void *eng)
{
    cm_t *m = eng;
    xlate_unit_reset(m->xu);
    hca_xarb_reset(&m->xarb);
    hca_ctx_reset(&m->ctx);
    hca_evt_reset(&m->evt);
    hca_pbuf_reset(&m->pb);
    hca_requester_reset(&m->rq);
    hca_responder_reset(&m->rs);
    hca_cq_writer_reset(&m->cw);
    m_arb_reset(&m->tx_arb, TC_N);
    m_arb_reset(&m->dma_arb, DC_N);
    m_arb_reset(&m->cpl_arb, TC_N);
    m_fifo_reset(&m->rxq);
    m->other_rvalid = 0;
    memset(&m->w, 0, sizeof m->w);
    m->epoch++;
    m->q_epoch = 0; /* epoch is >= 1 from here: no stale answer */
}

static void cm_destroy(void *eng)
{
    cm_t *m = eng;
    if (!m)
        return;
    if (m->statelog)
        fclose(m->statelog);
    xlate_unit_destroy(m->xu);
    hca_ctx_free(&m->ctx);
    hca_evt_free(&m->evt);
    free(m);
}

static int cm_create(void **eng, const xu_params_t *params)
{
    if (!eng)
        return -EINVAL;
    *eng = NULL;
    if (!params || !xu_params_ok(params))
        return -EINVAL;
    cm_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    int rc = xlate_unit_create(&m->xu, params);
    if (!rc)
        rc = hca_xarb_init(&m->xarb, XC_N);
    if (!rc)
        rc = hca_ctx_init(&m->ctx, HCA_MAX_QP, HCA_MAX_CQ, HCA_DRAIN_SOURCES);
    if (!rc)
        rc = hca_evt_init(&m->evt, HCA_EVT_QUEUE_DEPTH);
    if (!rc)
        rc = hca_pbuf_init(&m->pb, HCA_PKT_BUFS, CM_PBUF_RESP_RSV);
    if (!rc)
        rc = hca_requester_init(&m->rq, HCA_MAX_QP);
    if (!rc)
        rc = hca_responder_init(&m->rs, HCA_MAX_QP);
    if (!rc)
        rc = hca_cq_writer_init(&m->cw);
    if (rc) {
        cm_destroy(m);
        return rc;
    }
    m_fifo_init(&m->rxq, m->rxq_mem, sizeof m->rxq_mem[0], CM_RXQ_DEPTH);
    const char *log = getenv("HCASIM_MODEL_STATELOG");
    if (log && *log && !(m->statelog = fopen(log, "w"))) {
        fprintf(stderr, "hca_core model: HCASIM_MODEL_STATELOG %s: cannot write\n", log);
        cm_destroy(m);
        return -EIO;
    }
    const char *skip = getenv("HCASIM_MODEL_SKIP");
    m->skip_mode = !skip ? CM_SKIP_ON : !strcmp(skip, "0") ? CM_SKIP_OFF : !strcmp(skip, "check") ? CM_SKIP_CHECK : CM_SKIP_ON;
    for (int i = 0; i < 6; i++)
        m->logged[i] = -1;
    cm_reset(m);
    *eng = m;
    return 0;
}

static int cm_trace_open(void *eng, const char *path)
{
    (void)eng, (void)path;
    return -ENOTSUP; /* waves are the RTL's */
}

static void cm_trace_close(void *eng) { (void)eng; }

const core_engine_ops_t core_model_ops = {
    .name = "model",
    .create = cm_create,
    .destroy = cm_destroy,
    .reset = cm_reset,
    .cycle = cm_cycle,
    .trace_open = cm_trace_open,
    .trace_close = cm_trace_close,
    .quiet_until = cm_quiet_until,
    .skip = cm_skip, /* nothing runs on its own in quiet cycles (HCASIM_MODEL_SKIP=check steps them) */
};
