`default_nettype none
`include "hca_abi.svh"

// hca_core — the device core: the WQE engine around the translation unit
// (docs/engine.md is the contract; ports = core_pins_t of sim/core_engine.h).
//
//   hca_ctx        QP/CQ contexts, queue indices, doorbells, ctx fw block
//   hca_requester  send queues (send engine + response engine)
//   hca_responder  incoming SEND/WRITE/READ_REQ, receive queues
//   hca_cq_writer  CQEs into the CQ rings
//   xlate_unit     key check and translation, shared through hca_xarb by
//                  requester (0), responder (1) and the external xq/xs
//                  client (2), answers routed by an in-order id FIFO
//   hca_pbuf       packet buffer ids
//   hca_evt        memory-management events to the firmware (requester
//                  producer 0, responder producer 1; DONE broadcast back)
//
// DMA: round-robin between requester, responder and CQ writer; their tags
// are {client, local}: 00 requester, 01 responder, 10 CQ writer, and an
// answer goes back by rtag[7:6] (11 is nobody's: taken and dropped).
// TX: round-robin between requester and responder. RX: by op — SEND,
// SEND_INV, WRITE, READ_REQ to the responder, the answers (READ_RESP, ACK,
// NAK, RNR_NAK) to the requester.
// Completions: round-robin between requester and responder into the CQ
// writer.
//
// Invalidation and in-flight DMA (docs/engine.md): the translation unit's
// INVALIDATE fences key checks; the responder's placement engine issues its
// DMAs after it took all of a packet's beats, so a DMA checked before an
// INVALIDATE may still be on its way after it. The ctx command DRAIN is the
// device-level DMA fence: hca_ctx snapshots the busy signals of the clients
// that key-check and then DMA (requester send and response movers,
// responder placement engine) when DRAIN is written and stays busy until
// each snapshotted client was seen idle once (its work answered); work
// started after the command checked against the invalidated entry and is
// not waited for. Firmware: INVALIDATE, DRAIN, then free the MPT slot.
//
// Firmware port (always ready, every access answered one cycle later):
// 0x000-0x03f the translation unit's fwp block, 0x400-0x447 (FW_CTX_BASE -
// DEVREG_BASE) the ctx block, 0x800-0x83b (FW_EVT_BASE - DEVREG_BASE) the
// evt block; anything else reads 0, writes are ignored. fw_irq_o: an event
// is pending in evt.
module hca_core #(
  parameter int MPT_ENTRIES = `HCA_MPT_ENTRIES_DEFAULT,
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT,
  parameter int MAX_QP      = `HCA_MAX_QP,
  parameter int MAX_CQ      = `HCA_MAX_CQ,
  parameter int PKT_BUFS    = `HCA_PKT_BUFS
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // the device's cycle (low 32 bits), a timebase shared as an SoC distributes
  // one: the core holds no free-running counter, so a quiet core's state
  // stands still and the harness may skip its cycles (quiet_o)
  // verilator tracing_off
  input  logic [31:0]                    now_i,
  // verilator tracing_on

  // doorbells
  input  logic                           db_valid_i,
  output logic                           db_ready_o,
  input  logic [3:0]                     db_addr_i,
  input  logic [31:0]                    db_data_i,

  // firmware port
  input  logic                           fw_valid_i,
  output logic                           fw_ready_o,
  input  logic                           fw_write_i,
  input  logic [15:0]                    fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  output logic                           fw_rvalid_o,
  output logic [31:0]                    fw_rdata_o,
  output logic                           fw_irq_o,
  // what the harness counts (docs/scenarios.md, counters): 1 while the
  // translation unit's fence waits for in-flight requests / a DRAIN waits
  output logic                           fence_wait_o,
  output logic                           drain_wait_o,

  // DMA
  output logic                           dma_req_valid_o,
  input  logic                           dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]      dma_req_o,
  input  logic                           dma_rsp_valid_i,
  output logic                           dma_rsp_ready_o,
  input  logic [`HCA_DMA_RSP_W-1:0]      dma_rsp_i,

  // link
  output logic                           tx_valid_o,
  input  logic                           tx_ready_i,
  output logic [`HCA_PKT_W-1:0]          tx_o,
  input  logic                           rx_valid_i,
  output logic                           rx_ready_o,
  input  logic [`HCA_PKT_W-1:0]          rx_i,

  // external translation client
  input  logic                           xq_valid_i,
  output logic                           xq_ready_o,
  input  logic [`HCA_XU_TAG_BITS-1:0]    xq_tag_i,
  input  logic [`HCA_ACCESS_W-1:0]       xq_rights_i,
  input  logic                           xq_remote_i,
  input  logic [`HCA_KEY_BITS-1:0]       xq_key_i,
  input  logic [`HCA_PD_BITS-1:0]        xq_pd_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]    xq_len_i,
  input  logic [63:0]                    xq_va_i,
  output logic                           xs_valid_o,
  input  logic                           xs_ready_i,
  output logic [`HCA_XU_TAG_BITS-1:0]    xs_tag_o,
  output logic [`HCA_XLATE_STATUS_W-1:0] xs_status_o,
  output logic                           xs_last_o,
  output logic [`HCA_XU_LEN_BITS-1:0]    xs_len_o,
  output logic [63:0]                    xs_pa_o,

  // With the inputs idle (no valid, no firmware access) nothing changes,
  // outputs included, until now_i passes wake_o (when wake_valid_o; an RNR
  // wait's deadline, due when now_i - wake_o < 2^31): the harness may skip
  // to there. From the registers alone (the twin of the model's
  // cm_quiet_until); fw_irq_o may have risen (the caller compares).
  output logic                           quiet_o,
  output logic                           wake_valid_o,
  output logic [31:0]                    wake_o
);

  localparam int XREQ_W = `HCA_XU_TAG_BITS + `HCA_ACCESS_W + 1 + `HCA_KEY_BITS + `HCA_PD_BITS +
                          `HCA_XU_LEN_BITS + 64;
  localparam logic [15:0] CTX_OFF = 16'(`HCA_FW_CTX_BASE - `HCA_DEVREG_BASE);
  localparam logic [15:0] CTX_END = CTX_OFF + 16'(`HCA_CTX_STATUS + 4);
  localparam logic [15:0] FWP_END = 16'(`HCA_FWP_CONFIG + 4);
  localparam logic [15:0] EVT_OFF = 16'(`HCA_FW_EVT_BASE - `HCA_DEVREG_BASE);
  localparam logic [15:0] EVT_END = EVT_OFF + 16'(`HCA_EVT_DONE + 4);
  // packet buffers only the responder can take (its READ_RESPs; hca_pbuf)
  localparam int PBUF_RESP_RSV = 4;

  // ---------------------------------------------------------------- firmware port decode
  logic        hit_fwp, hit_ctx, hit_evt;
  logic        fwp_rvalid, ctx_rvalid, evt_rvalid, other_rvalid_q;
  logic [31:0] fwp_rdata, ctx_rdata, evt_rdata;
  logic [15:0] evt_addr;
  logic        fwp_ready;

  assign hit_fwp    = fw_addr_i < FWP_END;
  assign hit_ctx    = fw_addr_i >= CTX_OFF && fw_addr_i < CTX_END;
  assign hit_evt    = fw_addr_i >= EVT_OFF && fw_addr_i < EVT_END;
  assign evt_addr   = fw_addr_i - EVT_OFF;
  // A POP that drops an event (one is at the head: irq) hands it to fwp's
  // registration bank at the slot POP's value names (fwp FAST_REG).
  logic                       evt_pop;
  logic [`HCA_FW_EVENT_W-1:0] evt_head;
  logic                       evt_inv_ok;  // xlate_unit's MPT verdict on the head (hdr.inv_ok)
  assign evt_pop    = fw_valid_i && fw_write_i && hit_evt && evt_addr == 16'(`HCA_EVT_POP) && fw_irq_o;
  assign fw_ready_o = 1'b1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      other_rvalid_q <= 1'b0;
    end else begin
      other_rvalid_q <= fw_valid_i && !hit_fwp && !hit_ctx && !hit_evt;
    end
  end

  assign fw_rvalid_o = fwp_rvalid || ctx_rvalid || evt_rvalid || other_rvalid_q;
  assign fw_rdata_o  = (fwp_rvalid ? fwp_rdata : 32'd0) | (ctx_rvalid ? ctx_rdata : 32'd0) |
                       (evt_rvalid ? evt_rdata : 32'd0);

  // ---------------------------------------------------------------- translation unit
  logic                           xu_req_valid, xu_req_ready;
  logic [XREQ_W-1:0]              xu_req;
  logic                           xu_rsp_valid, xu_rsp_ready, xu_rsp_last;
  logic [`HCA_XU_TAG_BITS-1:0]    xu_rsp_tag;
  logic [`HCA_XLATE_STATUS_W-1:0] xu_rsp_status;
  logic [`HCA_XU_LEN_BITS-1:0]    xu_rsp_len;
  logic [63:0]                    xu_rsp_pa;

  logic [`HCA_XU_TAG_BITS-1:0]    xu_req_tag;
  logic [`HCA_ACCESS_W-1:0]       xu_req_rights;
  logic                           xu_req_remote;
  logic [`HCA_KEY_BITS-1:0]       xu_req_key;
  logic [`HCA_PD_BITS-1:0]        xu_req_pd;
  logic [`HCA_XU_LEN_BITS-1:0]    xu_req_len;
  logic [63:0]                    xu_req_va;
  assign {xu_req_tag, xu_req_rights, xu_req_remote, xu_req_key, xu_req_pd, xu_req_len,
          xu_req_va} = xu_req;

  xlate_unit #(
    .MPT_ENTRIES (MPT_ENTRIES),
    .MTT_ENTRIES (MTT_ENTRIES)
  ) u_xu (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .req_valid_i  (xu_req_valid),
    .req_ready_o  (xu_req_ready),
    .req_tag_i    (xu_req_tag),
    .req_rights_i (xu_req_rights),
    .req_remote_i (xu_req_remote),
    .req_key_i    (xu_req_key),
    .req_pd_i     (xu_req_pd),
    .req_len_i    (xu_req_len),
    .req_va_i     (xu_req_va),
    .rsp_valid_o  (xu_rsp_valid),
    .rsp_ready_i  (xu_rsp_ready),
    .rsp_tag_o    (xu_rsp_tag),
    .rsp_status_o (xu_rsp_status),
    .rsp_last_o   (xu_rsp_last),
    .rsp_len_o    (xu_rsp_len),
    .rsp_pa_o     (xu_rsp_pa),
    .fw_valid_i   (fw_valid_i && hit_fwp),
    .fw_ready_o   (fwp_ready),
    .fw_write_i   (fw_write_i),
    .fw_addr_i    (fw_addr_i),
    .fw_wdata_i   (fw_wdata_i),
    .fw_rvalid_o  (fwp_rvalid),
    .fw_rdata_o   (fwp_rdata),
    .fence_wait_o (fence_wait_o),
    .evt_pop_i    (evt_pop),
    .evt_pop_slot_i (fw_wdata_i[`HCA_EVT_POP_SLOT_LSB +: `HCA_EVT_POP_SLOT_W]),
    .evt_pop_evt_i  (evt_head),
    .inv_ok_o     (evt_inv_ok),
    .quiet_o      (xu_quiet)
  );

  // clients: 0 requester, 1 responder, 2 external
  logic              rq_xq_valid, rq_xq_ready, rq_xs_valid, rq_xs_ready;
  logic [XREQ_W-1:0] rq_xq;
  logic              rs_xq_valid, rs_xq_ready, rs_xs_valid, rs_xs_ready;
  logic [XREQ_W-1:0] rs_xq;

  hca_xarb #(
    .N (3)
  ) u_xarb (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .c_req_valid_i  ({xq_valid_i, rs_xq_valid, rq_xq_valid}),
    .c_req_ready_o  ({xq_ready_o, rs_xq_ready, rq_xq_ready}),
    .c_req_i        ({xq_tag_i, xq_rights_i, xq_remote_i, xq_key_i, xq_pd_i, xq_len_i, xq_va_i,
                      rs_xq, rq_xq}),
    .c_rsp_valid_o  ({xs_valid_o, rs_xs_valid, rq_xs_valid}),
    .c_rsp_ready_i  ({xs_ready_i, rs_xs_ready, rq_xs_ready}),
    .xu_req_valid_o (xu_req_valid),
    .xu_req_ready_i (xu_req_ready),
    .xu_req_o       (xu_req),
    .xu_rsp_valid_i (xu_rsp_valid),
    .xu_rsp_ready_o (xu_rsp_ready),
    .xu_rsp_last_i  (xu_rsp_last),
    .quiet_o        (xarb_quiet)
  );

  assign xs_tag_o    = xu_rsp_tag;
  assign xs_status_o = xu_rsp_status;
  assign xs_last_o   = xu_rsp_last;
  assign xs_len_o    = xu_rsp_len;
  assign xs_pa_o     = xu_rsp_pa;

  // ---------------------------------------------------------------- contexts
  logic [15:0]              ra_qpn, rb_qpn, ra_sq_ci, rb_sq_ci, ra_sq_pi;
  logic [`HCA_QP_CTX_W-1:0] ra_qpc, rb_qpc;
  logic                     sq_ci_inc, rq_err_valid;
  logic [15:0]              sq_ci_qpn, rq_err_qpn;
  logic [$clog2(MAX_QP)-1:0] pe_qpn;                   // the requester's scheduler lookup
  logic                     pe_pend, pe_err, sq_db, rq_db_err, qpc_set, qpc_wr;
  logic [MAX_QP-1:0]        qp_live;
  logic [15:0]              sq_db_qpn, qpc_wr_qpn;

  logic [$clog2(MAX_QP)-1:0] rs_qpc_idx, rs_err_qpn;   // the responder's QP numbers: QW bits
  logic [`HCA_QP_CTX_W-1:0] rs_qpc;
  logic [1:0]               rs_state;
  logic [15:0]              rs_rq_pi, rs_rq_ci;
  logic                     rs_rq_ci_inc, rs_err_valid;

  logic [15:0]              cq_cqn, cq_pi, cq_ci;
  logic [`HCA_CQ_CTX_W-1:0] cq_cqc;
  logic                     cq_inrange, cq_pi_inc, cq_ovf_set;
  logic [`HCA_DRAIN_SRC_RESPONDER_LSB-1:0] rq_drain_busy; // SEND, RESPONSE, WQE_READS
  logic [2:0]               rs_drain_busy;
  logic                     cw_drain_busy;
  logic [`HCA_DRAIN_SOURCES-1:0] drain_busy, drain_pend;
  // Each run at its abi DRAIN_SRC_*_LSB (DRAIN_KEYED_MASK is built from them).
  assign drain_busy[`HCA_DRAIN_SRC_RESPONDER_LSB-1:0] = rq_drain_busy;
  assign drain_busy[`HCA_DRAIN_SRC_RESPONDER_LSB +: `HCA_DRAIN_SRC_RESPONDER_WIDTH] = rs_drain_busy;
  assign drain_busy[`HCA_DRAIN_SRC_CQ_WRITER_LSB] = cw_drain_busy;

  hca_ctx #(
    .MAX_QP  (MAX_QP),
    .MAX_CQ  (MAX_CQ),
    .N_DRAIN (`HCA_DRAIN_SOURCES)
  ) u_ctx (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .db_valid_i      (db_valid_i),
    .db_ready_o      (db_ready_o),
    .db_addr_i       (db_addr_i),
    .db_data_i       (db_data_i),
    .fw_valid_i      (fw_valid_i && hit_ctx),
    .fw_write_i      (fw_write_i),
    .fw_addr_i       (fw_addr_i - CTX_OFF),
    .fw_wdata_i      (fw_wdata_i),
    .fw_rvalid_o     (ctx_rvalid),
    .fw_rdata_o      (ctx_rdata),
    .drain_wait_o    (drain_wait_o),
    .drain_busy_i    (drain_busy),
    .drain_pend_o    (drain_pend),   // its CQ_WRITER bit: the writer's hold_i
    .ra_qpn_i        (ra_qpn),
    .ra_qpc_o        (ra_qpc),
    .ra_sq_ci_o      (ra_sq_ci),
    .ra_sq_pi_o      (ra_sq_pi),
    .rb_qpn_i        (rb_qpn),
    .rb_qpc_o        (rb_qpc),
    .rb_sq_ci_o      (rb_sq_ci),
    .req_sq_ci_inc_i (sq_ci_inc),
    .req_sq_ci_qpn_i (sq_ci_qpn),
    .req_err_valid_i (rq_err_valid),
    .req_err_qpn_i   (rq_err_qpn),
    .pe_qpn_i        (pe_qpn),
    .pe_pend_o       (pe_pend),
    .pe_err_o        (pe_err),
    .qp_live_o       (qp_live),
    .sq_db_o         (sq_db),
    .sq_db_qpn_o     (sq_db_qpn),
    .rq_db_err_o     (rq_db_err),
    .qpc_set_o       (qpc_set),
    .qpc_wr_o        (qpc_wr),
    .qpc_wr_qpn_o    (qpc_wr_qpn),
    .rs_qpn_i        (rs_qpc_idx),
    .rs_qpc_o        (rs_qpc),
    .rs_state_o      (rs_state),
    .rs_rq_pi_o      (rs_rq_pi),
    .rs_rq_ci_o      (rs_rq_ci),
    .rs_rq_ci_inc_i  (rs_rq_ci_inc),
    .rs_err_valid_i  (rs_err_valid),
    .rs_err_qpn_i    (rs_err_qpn),
    .cq_cqn_i        (cq_cqn),
    .cq_cqc_o        (cq_cqc),
    .cq_inrange_o    (cq_inrange),
    .cq_pi_o         (cq_pi),
    .cq_ci_o         (cq_ci),
    .cq_pi_inc_i     (cq_pi_inc),
    .cq_ovf_set_i    (cq_ovf_set),
    .quiet_o         (ctx_quiet)
  );

  // ---------------------------------------------------------------- link
  logic                   rx_to_rs;
  logic                   rq_rx_ready, rs_rx_ready;
  logic                   rq_tx_valid, rq_tx_ready, rs_tx_valid, rs_tx_ready;
  logic [`HCA_PKT_W-1:0]  rq_tx, rs_tx;
  logic [`HCA_PKT_OP_W-1:0] rx_op;

  assign rx_op      = `HCA_PKT_OP(rx_i);
  assign rx_to_rs   = rx_op == `HCA_PKT_OP_SEND || rx_op == `HCA_PKT_OP_SEND_INV ||
                      rx_op == `HCA_PKT_OP_WRITE || rx_op == `HCA_PKT_OP_READ_REQ;
  assign rx_ready_o = rx_to_rs ? rs_rxq_room : rq_rx_ready;

  // The responder's receive queue. The link is one in-order stream: a request
  // waiting at its head for a busy responder (serving a long READ, or waiting
  // for a REMOTE_INV's DONE) would hold back the READ_RESPs behind it, whose
  // buffers are what the responder waits for — a deadlock. So requests never
  // wait on the link: they queue here, and the queue cannot fill. Requests in
  // flight are bounded: SEND/WRITE packets each hold a packet buffer the
  // requester allocated (at most PKT_BUFS - PBUF_RESP_RSV), and a READ_REQ is
  // its QP's one message in flight (at most MAX_QP).
  localparam int RS_RXQ_DEPTH = 1 << $clog2(PKT_BUFS - PBUF_RESP_RSV + MAX_QP);
  logic                                    rs_rxq_valid, rs_rxq_room;
  logic [`HCA_PKT_W-1:0]                   rs_rxq;
  logic [$clog2(RS_RXQ_DEPTH + 1)-1:0]     rs_rxq_level;
  assign rs_rxq_room = rs_rxq_level != ($clog2(RS_RXQ_DEPTH + 1))'(RS_RXQ_DEPTH);

  xu_fifo #(
    .WIDTH (`HCA_PKT_W),
    .DEPTH (RS_RXQ_DEPTH)
  ) u_rs_rxq (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (rx_valid_i && rx_to_rs && rs_rxq_room),
    .in_data_i   (rx_i),
    .out_valid_o (rs_rxq_valid),
    .out_ready_i (rs_rx_ready),
    .out_data_o  (rs_rxq),
    .level_o     (rs_rxq_level)
  );

  logic unused_tx_id;
  hca_arb #(
    .N (2),
    .W (`HCA_PKT_W)
  ) u_tx_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({rs_tx_valid, rq_tx_valid}),
    .in_ready_o  ({rs_tx_ready, rq_tx_ready}),
    .in_data_i   ({rs_tx, rq_tx}),
    .out_valid_o (tx_valid_o),
    .out_ready_i (tx_ready_i),
    .out_data_o  (tx_o),
    .out_id_o    (unused_tx_id),
    .hold_o      (tx_hold)
  );

  // ---------------------------------------------------------------- DMA
  logic                      rq_dma_valid, rq_dma_ready, rs_dma_valid, rs_dma_ready;
  logic                      cw_dma_valid, cw_dma_ready;
  logic [`HCA_DMA_REQ_W-1:0] rq_dma, rs_dma, cw_dma;
  logic                      rq_rsp_ready, rs_rsp_ready, cw_rsp_ready;
  logic [1:0]                rsp_client;
  logic [1:0]                unused_dma_id;

  hca_arb #(
    .N (3),
    .W (`HCA_DMA_REQ_W)
  ) u_dma_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({cw_dma_valid, rs_dma_valid, rq_dma_valid}),
    .in_ready_o  ({cw_dma_ready, rs_dma_ready, rq_dma_ready}),
    .in_data_i   ({cw_dma, rs_dma, rq_dma}),
    .out_valid_o (dma_req_valid_o),
    .out_ready_i (dma_req_ready_i),
    .out_data_o  (dma_req_o),
    .out_id_o    (unused_dma_id),
    .hold_o      (dma_hold)
  );

  assign rsp_client = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 6 +: 2];
  always_comb begin
    case (rsp_client)
      2'd0:    dma_rsp_ready_o = rq_rsp_ready;
      2'd1:    dma_rsp_ready_o = rs_rsp_ready;
      2'd2:    dma_rsp_ready_o = cw_rsp_ready;
      default: dma_rsp_ready_o = 1'b1;
    endcase
  end

  // ---------------------------------------------------------------- packet buffers
  logic       rq_pa_valid, rq_pa_ready, rs_pa_valid, rs_pa_ready;
  logic [7:0] rq_pa_id, rs_pa_id;
  logic       rq_pf_valid, rq_pf_ready, rs_pf_valid, rs_pf_ready;
  logic [7:0] rq_pf_id, rs_pf_id;
  logic [8:0] pb_free_count;

  hca_pbuf #(
    .PKT_BUFS (PKT_BUFS),
    .RESP_RSV (PBUF_RESP_RSV)
  ) u_pbuf (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .req_alloc_valid_o (rq_pa_valid),
    .req_alloc_ready_i (rq_pa_ready),
    .req_alloc_id_o    (rq_pa_id),
    .req_free_valid_i  (rq_pf_valid),
    .req_free_ready_o  (rq_pf_ready),
    .req_free_id_i     (rq_pf_id),
    .rsp_alloc_valid_o (rs_pa_valid),
    .rsp_alloc_ready_i (rs_pa_ready),
    .rsp_alloc_id_o    (rs_pa_id),
    .rsp_free_valid_i  (rs_pf_valid),
    .rsp_free_ready_o  (rs_pf_ready),
    .rsp_free_id_i     (rs_pf_id),
    .free_count_o      (pb_free_count)
  );

  // ---------------------------------------------------------------- completions
  logic                  rq_cpl_valid, rq_cpl_ready, rs_cpl_valid, rs_cpl_ready;
  logic [`HCA_CQE_W-1:0] rq_cpl, rs_cpl;
  logic [15:0]           rq_cpl_cqn, rs_cpl_cqn;
  logic                  cpl_valid, cpl_ready;
  logic [`HCA_CQE_W-1:0] cpl;
  logic [15:0]           cpl_cqn;
  logic                  unused_cpl_id;

  hca_arb #(
    .N (2),
    .W (16 + `HCA_CQE_W)
  ) u_cpl_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({rs_cpl_valid, rq_cpl_valid}),
    .in_ready_o  ({rs_cpl_ready, rq_cpl_ready}),
    .in_data_i   ({rs_cpl_cqn, rs_cpl, rq_cpl_cqn, rq_cpl}),
    .out_valid_o (cpl_valid),
    .out_ready_i (cpl_ready),
    .out_data_o  ({cpl_cqn, cpl}),
    .out_id_o    (unused_cpl_id),
    .hold_o      (cpl_hold)
  );

  hca_cq_writer u_cqw (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .cpl_valid_i     (cpl_valid),
    .cpl_ready_o     (cpl_ready),
    .cpl_i           (cpl),
    .cpl_cqn_i       (cpl_cqn),
    .hold_i          (drain_pend[`HCA_DRAIN_SRC_CQ_WRITER_LSB]),
    .cq_cqn_o        (cq_cqn),
    .cq_cqc_i        (cq_cqc),
    .cq_inrange_i    (cq_inrange),
    .cq_pi_i         (cq_pi),
    .cq_ci_i         (cq_ci),
    .cq_pi_inc_o     (cq_pi_inc),
    .cq_ovf_set_o    (cq_ovf_set),
    .dma_req_valid_o (cw_dma_valid),
    .dma_req_ready_i (cw_dma_ready),
    .dma_req_o       (cw_dma),
    .dma_rsp_valid_i (dma_rsp_valid_i && rsp_client == 2'd2),
    .dma_rsp_ready_o (cw_rsp_ready),
    .dma_rsp_i       (dma_rsp_i),
    .busy_o          (cw_drain_busy),
    .quiet_o         (cqw_quiet)
  );

  // ---------------------------------------------------------------- events
  logic                        rq_evt_valid, rq_evt_ready, rs_evt_valid, rs_evt_ready;
  logic [`HCA_FW_EVENT_W-1:0]  rq_evt, rs_evt;
  logic                        evt_done_valid;
  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag;
  logic [7:0]                  evt_done_status;

  hca_evt u_evt (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .evt_valid_i   ({rs_evt_valid, rq_evt_valid}),
    .evt_ready_o   ({rs_evt_ready, rq_evt_ready}),
    .evt_i         ({rs_evt, rq_evt}),
    .fw_valid_i    (fw_valid_i && hit_evt),
    .fw_write_i    (fw_write_i),
    .fw_addr_i     (evt_addr[5:0]),
    .fw_wdata_i    (fw_wdata_i),
    .fw_rvalid_o   (evt_rvalid),
    .fw_rdata_o    (evt_rdata),
    .done_valid_o  (evt_done_valid),
    .done_tag_o    (evt_done_tag),
    .done_status_o (evt_done_status),
    .irq_o         (fw_irq_o),
    .head_o        (evt_head),
    .inv_ok_i      (evt_inv_ok),
    .quiet_o       (evt_quiet)
  );

  // ---------------------------------------------------------------- requester
  hca_requester #(
    .MAX_QP (MAX_QP)
  ) u_req (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .now_i            (now_i),
    .ra_qpn_o         (ra_qpn),
    .ra_qpc_i         (ra_qpc),
    .ra_sq_ci_i       (ra_sq_ci),
    .ra_sq_pi_i       (ra_sq_pi),
    .rb_qpn_o         (rb_qpn),
    .rb_qpc_i         (rb_qpc),
    .rb_sq_ci_i       (rb_sq_ci),
    .sq_ci_inc_o      (sq_ci_inc),
    .sq_ci_qpn_o      (sq_ci_qpn),
    .qp_err_valid_o   (rq_err_valid),
    .qp_err_qpn_o     (rq_err_qpn),
    .pe_qpn_o         (pe_qpn),
    .pe_pend_i        (pe_pend),
    .pe_err_i         (pe_err),
    .qp_live_i        (qp_live),
    .sq_db_i          (sq_db),
    .sq_db_qpn_i      (sq_db_qpn),
    .qpc_set_i        (qpc_set),
    .qpc_wr_i         (qpc_wr),
    .qpc_wr_qpn_i     (qpc_wr_qpn),
    .rs_err_i         (rs_err_valid),
    .rs_err_qpn_i     (rs_err_qpn),
    .tx_valid_o       (rq_tx_valid),
    .tx_ready_i       (rq_tx_ready),
    .tx_o             (rq_tx),
    .rx_valid_i       (rx_valid_i && !rx_to_rs),
    .rx_ready_o       (rq_rx_ready),
    .rx_i             (rx_i),
    .xq_valid_o       (rq_xq_valid),
    .xq_ready_i       (rq_xq_ready),
    .xq_o             (rq_xq),
    .xs_valid_i       (rq_xs_valid),
    .xs_ready_o       (rq_xs_ready),
    .xs_status_i      (xu_rsp_status),
    .xs_last_i        (xu_rsp_last),
    .xs_len_i         (xu_rsp_len),
    .xs_pa_i          (xu_rsp_pa),
    .dma_req_valid_o  (rq_dma_valid),
    .dma_req_ready_i  (rq_dma_ready),
    .dma_req_o        (rq_dma),
    .dma_rsp_valid_i  (dma_rsp_valid_i && rsp_client == 2'd0),
    .dma_rsp_ready_o  (rq_rsp_ready),
    .dma_rsp_i        (dma_rsp_i),
    .pb_alloc_valid_i (rq_pa_valid),
    .pb_alloc_ready_o (rq_pa_ready),
    .pb_alloc_id_i    (rq_pa_id),
    .pb_free_valid_o  (rq_pf_valid),
    .pb_free_ready_i  (rq_pf_ready),
    .pb_free_id_o     (rq_pf_id),
    .cpl_valid_o      (rq_cpl_valid),
    .cpl_ready_i      (rq_cpl_ready),
    .cpl_o            (rq_cpl),
    .cpl_cqn_o        (rq_cpl_cqn),
    .drain_busy_o     (rq_drain_busy),
    .evt_valid_o       (rq_evt_valid),
    .evt_ready_i       (rq_evt_ready),
    .evt_o             (rq_evt),
    .evt_done_valid_i  (evt_done_valid),
    .evt_done_tag_i    (evt_done_tag),
    .evt_done_status_i (evt_done_status),
    .quiet_o           (rq_quiet),
    .wake_valid_o      (wake_valid_o),
    .wake_o            (wake_o)
  );

  // ---------------------------------------------------------------- responder
  logic [`HCA_XU_TAG_BITS-1:0] rs_xq_tag;
  logic [`HCA_ACCESS_W-1:0]    rs_xq_rights;
  logic                        rs_xq_remote;
  logic [31:0]                 rs_xq_key, rs_xq_len;
  logic [23:0]                 rs_xq_pd;
  logic [63:0]                 rs_xq_va;
  assign rs_xq = {rs_xq_tag, rs_xq_rights, rs_xq_remote, rs_xq_key, rs_xq_pd, rs_xq_len, rs_xq_va};

  hca_responder #(
    .MAX_QP (MAX_QP)
  ) u_resp (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .rx_valid_i       (rs_rxq_valid),
    .rx_ready_o       (rs_rx_ready),
    .rx_i             (rs_rxq),
    .tx_valid_o       (rs_tx_valid),
    .tx_ready_i       (rs_tx_ready),
    .tx_o             (rs_tx),
    .qpc_idx_o        (rs_qpc_idx),
    .qpc_i            (rs_qpc),
    .qp_state_i       (rs_state),
    .rq_pi_i          (rs_rq_pi),
    .rq_ci_i          (rs_rq_ci),
    .rq_ci_inc_o      (rs_rq_ci_inc),
    .qp_err_valid_o   (rs_err_valid),
    .qp_err_qpn_o     (rs_err_qpn),
    .fl_qpc_set_i     (qpc_set),
    .fl_qpc_qpn_i     (qpc_wr_qpn),
    .fl_req_err_i     (rq_err_valid),
    .fl_req_err_qpn_i (rq_err_qpn),
    .fl_rq_db_i       (rq_db_err),
    .fl_rq_db_qpn_i   (sq_db_qpn),
    .xq_valid_o       (rs_xq_valid),
    .xq_ready_i       (rs_xq_ready),
    .xq_tag_o         (rs_xq_tag),
    .xq_rights_o      (rs_xq_rights),
    .xq_remote_o      (rs_xq_remote),
    .xq_key_o         (rs_xq_key),
    .xq_pd_o          (rs_xq_pd),
    .xq_len_o         (rs_xq_len),
    .xq_va_o          (rs_xq_va),
    .xs_valid_i       (rs_xs_valid),
    .xs_ready_o       (rs_xs_ready),
    .xs_tag_i         (xu_rsp_tag),
    .xs_status_i      (xu_rsp_status),
    .xs_last_i        (xu_rsp_last),
    .xs_len_i         (xu_rsp_len),
    .xs_pa_i          (xu_rsp_pa),
    .dma_req_valid_o  (rs_dma_valid),
    .dma_req_ready_i  (rs_dma_ready),
    .dma_req_o        (rs_dma),
    .dma_rsp_valid_i  (dma_rsp_valid_i && rsp_client == 2'd1),
    .dma_rsp_ready_o  (rs_rsp_ready),
    .dma_rsp_i        (dma_rsp_i),
    .pb_alloc_valid_i (rs_pa_valid),
    .pb_alloc_ready_o (rs_pa_ready),
    .pb_alloc_id_i    (rs_pa_id),
    .pb_free_valid_o  (rs_pf_valid),
    .pb_free_ready_i  (rs_pf_ready),
    .pb_free_id_o     (rs_pf_id),
    .cpl_valid_o      (rs_cpl_valid),
    .cpl_ready_i      (rs_cpl_ready),
    .cpl_o            (rs_cpl),
    .cpl_cqn_o        (rs_cpl_cqn),
    .place_busy_o     (rs_drain_busy),
    .evt_valid_o       (rs_evt_valid),
    .evt_ready_i       (rs_evt_ready),
    .evt_o             (rs_evt),
    .evt_done_valid_i  (evt_done_valid),
    .evt_done_tag_i    (evt_done_tag),
    .evt_done_status_i (evt_done_status),
    .quiet_o           (rs_quiet)
  );

  // ---------------------------------------------------------------- quiet
  logic xu_quiet, xarb_quiet, ctx_quiet, cqw_quiet, evt_quiet, rq_quiet, rs_quiet, tx_hold, dma_hold, cpl_hold;
  // (a packet in the responder's RX queue waits, nothing moving, until the
  // responder shows rx_ready: its quiet_o covers that wait)
  assign quiet_o = xu_quiet && xarb_quiet && ctx_quiet && cqw_quiet && evt_quiet && rq_quiet && rs_quiet &&
                   !tx_hold && !dma_hold && !cpl_hold && !(rs_rxq_valid && rs_rx_ready) && !other_rvalid_q;

  // The translation unit's firmware port is always ready (xu_fw_port).
  logic unused;
  assign unused = ^{fwp_ready, unused_tx_id, unused_dma_id, unused_cpl_id, pb_free_count,
                    evt_addr[15:6], drain_pend[`HCA_DRAIN_SRC_CQ_WRITER_LSB-1:0]};

endmodule
