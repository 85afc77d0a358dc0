`default_nettype none
`include "hca_abi.svh"

// hca_requester — the send queues (docs/engine.md "Requester").
//
// Two engines, so that packets coming back always drain while a send waits
// for a packet buffer (the buffers they carry are what it waits for):
//   hca_req_send  fetch, decode, pre-check, gather, send; local failures
//                 and flushes complete there;
//   hca_req_resp  ACK / NAK / RNR_NAK / READ_RESP of the parked messages.
// They share this block's translation port (hca_xarb, in-order), DMA port
// (round-robin; tag bit 5 routes answers: 0 send, 1 response engine),
// packet-buffer free port and completion stream.
//
// Per QP (one message in flight per QP, docs/engine.md step 1):
//   IDLE      nothing in flight: scheduled when sq_ci != sq_pi
//   ACTIVE    owned by the send engine
//   INFLIGHT  sent (parked: the decoded WQE is kept here), waiting for the
//             answer; scheduled again (to flush it) if the QP is in ERROR
//   RESP      owned by the response engine
//   RNR_WAIT  an RNR_NAK came: scheduled again (resend from the WQE) once
//             rnr_timer cycles passed, or at once to flush it in ERROR
// The scheduler is round-robin over the QPs. A packet the response engine
// claims in the cycle the scheduler would pick the same QP wins.
//
// A NAK can come back while its message is still ACTIVE (the responder
// failed an early packet; the send engine is gathering or sending a later
// one). The response engine cannot complete it (the send engine owns the
// QP), so the NAK is kept per QP (nak_q, nak_syn_q) and the send engine
// stops at its next step and completes with the syndrome (hca_req_send).
// An RNR_NAK of a message still being sent (a multi-packet SEND whose first
// packet met no receive) is kept the same way (nak_rnr_q: retries left):
// the send engine stops and releases the QP into RNR_WAIT itself.
// In the cycle the send engine parks the message (ACTIVE -> INFLIGHT), the
// response engine sees it as in flight already (park_i and look_inflight_i
// are bypassed from the send engine), so no NAK falls between the two.
// nak_q is cleared when the scheduler hands the QP to the send engine.
//
// Completions ("fin" beats of both engines): written to the CQ writer when
// signaled or failed; sq_ci++ (and ERROR for a failure) when handed over,
// so a QP's next WQE starts only after its previous one completed.
//
// Memory-management events (docs/engine.md): the firmware's answer DONE is
// to an event what an ACK is to a message. The send engine posts the event
// of a FAST_REG_MR / REG_INDIR_MR / LOCAL_INV and parks the QP in flight
// waiting for DONE (evt_wait_q); the response engine posts the READ_INV of
// an RDMA_READ_WITH_INV after its last byte was placed and parks it the same
// way. Tag = QP number. DONE lasts one cycle and the response engine may be
// busy then, so it is kept per QP (done_q, done_st_q) until the response
// engine takes it and completes the WR with its status. A QP waiting for
// DONE is not flushed when it enters ERROR (the firmware is doing the work
// and will answer): it completes on DONE, and the flush goes on from there.
// Waiting for DONE holds no key-checked DMA, so it never shows in
// drain_busy_o (the firmware's invalidation DRAINs while we wait).
module hca_requester #(
  parameter int MAX_QP = `HCA_MAX_QP
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  // hca_ctx
  output logic [15:0]                   ra_qpn_o,
  input  logic [`HCA_QP_CTX_W-1:0]      ra_qpc_i,
  input  logic [15:0]                   ra_sq_ci_i,
  output logic [15:0]                   rb_qpn_o,
  input  logic [`HCA_QP_CTX_W-1:0]      rb_qpc_i,
  input  logic [15:0]                   rb_sq_ci_i,
  output logic                          sq_ci_inc_o,
  output logic [15:0]                   sq_ci_qpn_o,
  output logic                          qp_err_valid_o,
  output logic [15:0]                   qp_err_qpn_o,
  input  logic [MAX_QP-1:0]             sq_pending_i,
  input  logic [MAX_QP-1:0]             qp_error_i,
  input  logic                          qpc_wr_i,
  input  logic [15:0]                   qpc_wr_qpn_i,

  // link
  output logic                          tx_valid_o,
  input  logic                          tx_ready_i,
  output logic [`HCA_PKT_W-1:0]         tx_o,
  input  logic                          rx_valid_i,
  output logic                          rx_ready_o,
  input  logic [`HCA_PKT_W-1:0]         rx_i,

  // translation client: {tag, rights, remote, key, pd, len, va}
  output logic                          xq_valid_o,
  input  logic                          xq_ready_i,
  output logic [XREQ_W-1:0]             xq_o,
  input  logic                          xs_valid_i,
  output logic                          xs_ready_o,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                          xs_last_i,
  input  logic [31:0]                   xs_len_i,
  input  logic [63:0]                   xs_pa_i,

  // DMA client (tags 8'b00xx_xxxx)
  output logic                          dma_req_valid_o,
  input  logic                          dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]     dma_req_o,
  input  logic                          dma_rsp_valid_i,
  output logic                          dma_rsp_ready_o,
  input  logic [`HCA_DMA_RSP_W-1:0]     dma_rsp_i,

  // packet buffers
  input  logic                          pb_alloc_valid_i,
  output logic                          pb_alloc_ready_o,
  input  logic [7:0]                    pb_alloc_id_i,
  output logic                          pb_free_valid_o,
  input  logic                          pb_free_ready_i,
  output logic [7:0]                    pb_free_id_o,

  // completions to the CQ writer
  output logic                          cpl_valid_o,
  input  logic                          cpl_ready_i,
  output logic [`HCA_CQE_W-1:0]         cpl_o,
  output logic [15:0]                   cpl_cqn_o,

  // movers holding key-checked work not yet answered: {response, send} (ctx DRAIN)
  output logic [5:0]                    drain_busy_o,

  // memory-management events (hca_evt producer 0) and their DONE broadcast
  output logic                          evt_valid_o,
  input  logic                          evt_ready_i,
  output logic [`HCA_FW_EVENT_W-1:0]    evt_o,
  input  logic                          evt_done_valid_i,
  input  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag_i,
  input  logic [7:0]                    evt_done_status_i
);

  localparam int QW     = $clog2(MAX_QP);
  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam int SGES_W = 4 * `HCA_SGE_W;
  localparam int PARK_W = 16 + 4 + 1 + 1 + 3 + 32 + 32 + 64 + SGES_W;
  localparam int FIN_W  = 16 + 16 + 2 + `HCA_CQE_W;
  localparam int EW     = `HCA_FW_EVENT_W;
  // REL_EVT: in flight, waiting for DONE; else: to IDLE
  localparam logic [1:0] REL_INFLIGHT = 2'd1, REL_RNR = 2'd2, REL_EVT = 2'd3;

  // (MAX_QP <= EVT_TAG_RESPONDER: an event's tag is the QP number.)
  generate if (MAX_QP < 2 || MAX_QP > `HCA_EVT_TAG_RESPONDER || (MAX_QP & (MAX_QP - 1)) != 0) begin : g_bad_params
`ifdef __ICARUS__
    initial $fatal(1, "hca_requester: MAX_QP=%0d must be a power of two in [2, EVT_TAG_RESPONDER]", MAX_QP);
`else
    $error("hca_requester: MAX_QP must be a power of two in [2, EVT_TAG_RESPONDER]");
`endif
  end endgenerate

  typedef enum logic [2:0] {
    Q_IDLE, Q_ACTIVE, Q_INFLIGHT, Q_RESP, Q_RNR_WAIT
  } qst_e;

  qst_e         qst_q [MAX_QP];
  // qst_q == Q_IDLE, Q_INFLIGHT, Q_RNR_WAIT as bit vectors (the scheduler's
  // candidates), written wherever qst_q is: {idle, inflight, rnr}.
  logic [MAX_QP-1:0] idle_v_q, infl_v_q, rnr_v_q;
  localparam logic [2:0] V_IDLE = 3'b100, V_INFL = 3'b010, V_RNR = 3'b001, V_OTHER = 3'b000;
  logic [2:0]   rnr_cnt_q [MAX_QP];
  logic [31:0]  deadline_q [MAX_QP];
  logic [PARK_W-1:0] park_q [MAX_QP];
  logic [MAX_QP-1:0] nak_q, nak_rnr_q;
  logic [4:0]   nak_syn_q [MAX_QP];
  logic [MAX_QP-1:0] evt_wait_q;   // parked, waiting for DONE
  logic [MAX_QP-1:0] done_q;       // DONE came, not yet taken by the response engine
  logic [4:0]   done_st_q [MAX_QP];
  logic [31:0]  now_q;

  // ---------------------------------------------------------------- engines
  logic              sched_valid, sched_ready;
  logic [QW-1:0]     sched_qpn;
  logic              s_rel_valid, s_rel_inflight, s_rel_evt, s_rel_rnr;
  logic [31:0]       s_rnr_timer;
  logic              s_evt_valid, s_evt_ready, r_evt_valid, r_evt_ready;
  logic [EW-1:0]     s_evt, r_evt;
  logic              done_any, r_done_take;
  logic [QW-1:0]     done_qpn;
  logic [PARK_W-1:0] s_park;
  logic              s_free_valid, s_free_ready;
  logic [7:0]        s_free_id;
  logic              s_xq_valid, s_xq_ready, s_xs_valid, s_xs_ready;
  logic [XREQ_W-1:0] s_xq;
  logic              s_dma_valid, s_dma_ready, s_rsp_valid, s_rsp_ready;
  logic [`HCA_DMA_REQ_W-1:0] s_dma;
  logic              s_fin_valid, s_fin_ready;
  logic [FIN_W-1:0]  s_fin;

  logic [QW-1:0]     look_qpn;
  logic              r_claim, r_rel_valid;
  logic [1:0]        r_rel_kind;
  logic [31:0]       r_rnr_timer;
  logic              r_free_valid, r_free_ready;
  logic [7:0]        r_free_id;
  logic              r_xq_valid, r_xq_ready, r_xs_valid, r_xs_ready;
  logic [XREQ_W-1:0] r_xq;
  logic              r_dma_valid, r_dma_ready, r_rsp_valid, r_rsp_ready;
  logic [`HCA_DMA_REQ_W-1:0] r_dma;
  logic              r_fin_valid, r_fin_ready;
  logic [FIN_W-1:0]  r_fin;
  logic              r_nak_save, r_nak_rnr;
  logic [4:0]        r_nak_syn;
  logic              s_nak;
  logic [4:0]        s_nak_syn;

  // The QP the send engine releases this cycle, seen by the response engine.
  logic [QW-1:0]     s_qpn;       // the QP the send engine owns
  logic              look_parking, look_releasing;
  assign look_releasing = s_rel_valid && s_qpn == look_qpn;
  assign look_parking   = s_rel_inflight && s_qpn == look_qpn;

  // Only QPs with an event outstanding take a DONE (a late one for a QP the
  // firmware reset is dropped); bits >= MAX_QP name no QP of ours.
  logic          done_mine;
  logic [QW-1:0] done_tag_qpn;
  assign done_tag_qpn = evt_done_tag_i[QW-1:0];
  assign done_mine    = evt_done_valid_i && evt_done_tag_i[`HCA_EVT_DONE_TAG_W-1:QW] == '0 && evt_wait_q[done_tag_qpn];

  // The looked-up QP's entries, read here and not in the port list: Yosys
  // 0.23 re-elaborates a module whose parameterized instance has a port
  // bound to an unpacked-array element, and with the module's parameters
  // overridden (hierarchy -chparam) that second pass asserts
  // (modules_.count(module->name) == 0, kernel/rtlil.cc).
  qst_e              look_qst;
  logic [PARK_W-1:0] look_park;
  logic [2:0]        look_rnr_cnt;
  logic [4:0]        done_st;
  // qst_q and rnr_cnt_q are memories without reset: a QP whose idle_v_q bit
  // is set is IDLE with rnr_cnt 0 whatever they hold (idle_v_q resets to
  // ones and is written wherever qst_q is); a QP leaving IDLE gets rnr_cnt 0.
  assign look_qst     = idle_v_q[look_qpn] ? Q_IDLE : qst_q[look_qpn];
  assign done_st = done_st_q[done_qpn];
  assign look_park    = look_parking ? s_park : park_q[look_qpn];
  assign look_rnr_cnt = idle_v_q[look_qpn] ? 3'd0 : rnr_cnt_q[look_qpn];

  hca_req_send #(
    .QW (QW)
  ) u_send (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .sched_valid_i   (sched_valid),
    .sched_ready_o   (sched_ready),
    .sched_qpn_i     (sched_qpn),
    .qpn_o           (ra_qpn_o),
    .qpc_i           (ra_qpc_i),
    .sq_ci_i         (ra_sq_ci_i),
    .nak_i           (s_nak),
    .nak_syn_i       (s_nak_syn),
    .nak_rnr_i       (nak_rnr_q[s_qpn]),
    .rel_valid_o     (s_rel_valid),
    .rel_inflight_o  (s_rel_inflight),
    .rel_evt_o       (s_rel_evt),
    .rel_rnr_o       (s_rel_rnr),
    .rnr_timer_o     (s_rnr_timer),
    .park_o          (s_park),
    .evt_valid_o     (s_evt_valid),
    .evt_ready_i     (s_evt_ready),
    .evt_o           (s_evt),
    .alloc_valid_i   (pb_alloc_valid_i),
    .alloc_ready_o   (pb_alloc_ready_o),
    .alloc_id_i      (pb_alloc_id_i),
    .free_valid_o    (s_free_valid),
    .free_ready_i    (s_free_ready),
    .free_id_o       (s_free_id),
    .xq_valid_o      (s_xq_valid),
    .xq_ready_i      (s_xq_ready),
    .xq_o            (s_xq),
    .xs_valid_i      (s_xs_valid),
    .xs_ready_o      (s_xs_ready),
    .xs_status_i     (xs_status_i),
    .xs_last_i       (xs_last_i),
    .xs_len_i        (xs_len_i),
    .xs_pa_i         (xs_pa_i),
    .dma_req_valid_o (s_dma_valid),
    .dma_req_ready_i (s_dma_ready),
    .dma_req_o       (s_dma),
    .dma_rsp_valid_i (s_rsp_valid),
    .dma_rsp_ready_o (s_rsp_ready),
    .dma_rsp_i       (dma_rsp_i),
    .tx_valid_o      (tx_valid_o),
    .tx_ready_i      (tx_ready_i),
    .tx_o            (tx_o),
    .fin_valid_o     (s_fin_valid),
    .fin_ready_i     (s_fin_ready),
    .fin_o           (s_fin),
    .mv_busy_o       (drain_busy_o[2:0])
  );

  hca_req_resp #(
    .QW (QW)
  ) u_resp (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .rx_valid_i      (rx_valid_i),
    .rx_ready_o      (rx_ready_o),
    .rx_i            (rx_i),
    .look_qpn_o      (look_qpn),
    .look_inflight_i (look_qst == Q_INFLIGHT || look_parking),
    .look_evt_wait_i (evt_wait_q[look_qpn] || (look_parking && s_rel_evt)),
    .done_valid_i    (done_any),
    .done_qpn_i      (done_qpn),
    .done_status_i   (done_st),
    .done_take_o     (r_done_take),
    .evt_valid_o     (r_evt_valid),
    .evt_ready_i     (r_evt_ready),
    .evt_o           (r_evt),
    .park_i          (look_park),
    .rnr_cnt_i       (look_rnr_cnt),
    .claim_o         (r_claim),
    .rel_valid_o     (r_rel_valid),
    .rel_kind_o      (r_rel_kind),
    .rnr_timer_o     (r_rnr_timer),
    .look_active_i   (look_qst == Q_ACTIVE && !look_releasing),
    .nak_save_o      (r_nak_save),
    .nak_syn_o       (r_nak_syn),
    .nak_rnr_o       (r_nak_rnr),
    .qpn_o           (rb_qpn_o),
    .qpc_i           (rb_qpc_i),
    .sq_ci_i         (rb_sq_ci_i),
    .free_valid_o    (r_free_valid),
    .free_ready_i    (r_free_ready),
    .free_id_o       (r_free_id),
    .xq_valid_o      (r_xq_valid),
    .xq_ready_i      (r_xq_ready),
    .xq_o            (r_xq),
    .xs_valid_i      (r_xs_valid),
    .xs_ready_o      (r_xs_ready),
    .xs_status_i     (xs_status_i),
    .xs_last_i       (xs_last_i),
    .xs_len_i        (xs_len_i),
    .xs_pa_i         (xs_pa_i),
    .dma_req_valid_o (r_dma_valid),
    .dma_req_ready_i (r_dma_ready),
    .dma_req_o       (r_dma),
    .dma_rsp_valid_i (r_rsp_valid),
    .dma_rsp_ready_o (r_rsp_ready),
    .dma_rsp_i       (dma_rsp_i),
    .fin_valid_o     (r_fin_valid),
    .fin_ready_i     (r_fin_ready),
    .fin_o           (r_fin),
    .mv_busy_o       (drain_busy_o[5:3])
  );

  // ---------------------------------------------------------------- scheduler
  // The candidates as vector operations over per-state bit vectors (kept
  // beside qst_q), not a loop over the QPs; only the RNR deadlines are
  // compared per QP, and only while some QP waits on one. cand_base reads
  // registers only, so Verilator evaluates it once per cycle and not again
  // when the inputs (through r_claim) change.
  logic [MAX_QP-1:0] expired, cand_base, cand;
  always_comb begin
    expired = '0;
    if (rnr_v_q != '0) begin
      for (int q = 0; q < MAX_QP; q++) begin
        expired[q] = !(now_q - deadline_q[q] >= 32'h8000_0000);
      end
    end
  end
  assign cand_base = (idle_v_q & sq_pending_i) | (rnr_v_q & (expired | qp_error_i)) |
                     (infl_v_q & qp_error_i & ~evt_wait_q);
  assign cand      = cand_base & ~(MAX_QP'(r_claim) << look_qpn);

  logic              unused_sched;
  logic [MAX_QP-1:0] sched_grant;   // the pick's handshake: the same as sched_ready
  hca_arb #(
    .N (MAX_QP),
    .W (1)
  ) u_sched (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (cand),
    .in_ready_o  (sched_grant),
    .in_data_i   ({MAX_QP{1'b0}}),
    .out_valid_o (sched_valid),
    .out_ready_i (sched_ready),
    .out_data_o  (unused_sched),
    .out_id_o    (sched_qpn)
  );

  // ---------------------------------------------------------------- per-QP state
  logic [QW-1:0] wr_qpn;
  assign wr_qpn = qpc_wr_qpn_i[QW-1:0];

  // The events that move a QP, each naming one QP: applied by index, in
  // the order of precedence (a later one for the same QP wins), with no
  // per-QP loop in the per-cycle logic. The bit vectors' next values are
  // computed here (Yosys refuses a variable bit index under an async reset);
  // qst_q and rnr_cnt_q are written below with the same precedence.
  logic              ev_sched, wr_ok;
  logic [MAX_QP-1:0] nak_d, evt_wait_d, done_d, idle_v_d, infl_v_d, rnr_v_d;
  assign ev_sched = sched_valid && sched_ready;
  assign wr_ok    = qpc_wr_i && {1'b0, qpc_wr_qpn_i} < 17'(MAX_QP) &&
                    (idle_v_q[wr_qpn] || (qst_q[wr_qpn] != Q_ACTIVE && qst_q[wr_qpn] != Q_RESP));

  always_comb begin
    nak_d      = nak_q;
    evt_wait_d = evt_wait_q;
    done_d     = done_q;
    idle_v_d   = idle_v_q;
    infl_v_d   = infl_v_q;
    rnr_v_d    = rnr_v_q;
    if (ev_sched) begin
      {idle_v_d[sched_qpn], infl_v_d[sched_qpn], rnr_v_d[sched_qpn]} = V_OTHER;
      nak_d[sched_qpn] = 1'b0;
    end
    if (r_nak_save) begin
      nak_d[look_qpn] = 1'b1;
    end
    if (s_rel_valid) begin
      if (s_rel_inflight) begin
        {idle_v_d[s_qpn], infl_v_d[s_qpn], rnr_v_d[s_qpn]} = V_INFL;
        evt_wait_d[s_qpn] = s_rel_evt;
      end else if (s_rel_rnr) begin
        {idle_v_d[s_qpn], infl_v_d[s_qpn], rnr_v_d[s_qpn]} = V_RNR;
      end else begin
        {idle_v_d[s_qpn], infl_v_d[s_qpn], rnr_v_d[s_qpn]} = V_IDLE;
      end
    end
    if (r_claim) begin
      {idle_v_d[look_qpn], infl_v_d[look_qpn], rnr_v_d[look_qpn]} = V_OTHER;
      evt_wait_d[look_qpn] = 1'b0;
    end
    if (done_mine) begin
      done_d[done_tag_qpn] = 1'b1;
    end
    if (r_done_take) begin
      done_d[done_qpn] = 1'b0;
    end
    if (r_rel_valid) begin
      case (r_rel_kind)
        REL_INFLIGHT: {idle_v_d[look_qpn], infl_v_d[look_qpn], rnr_v_d[look_qpn]} = V_INFL;
        REL_EVT: begin
          {idle_v_d[look_qpn], infl_v_d[look_qpn], rnr_v_d[look_qpn]} = V_INFL;
          evt_wait_d[look_qpn] = 1'b1;
        end
        REL_RNR: {idle_v_d[look_qpn], infl_v_d[look_qpn], rnr_v_d[look_qpn]} = V_RNR;
        default: {idle_v_d[look_qpn], infl_v_d[look_qpn], rnr_v_d[look_qpn]} = V_IDLE;
      endcase
    end
    // The firmware reset or reconnected the QP: forget what was in flight
    // (an engine that owns it finishes first and releases it).
    if (wr_ok) begin
      {idle_v_d[wr_qpn], infl_v_d[wr_qpn], rnr_v_d[wr_qpn]} = V_IDLE;
      nak_d[wr_qpn]      = 1'b0;
      evt_wait_d[wr_qpn] = 1'b0;
      done_d[wr_qpn]     = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_qpn      <= '0;
      now_q      <= '0;
      nak_q      <= '0;
      evt_wait_q <= '0;
      done_q     <= '0;
      idle_v_q   <= '1;
      infl_v_q   <= '0;
      rnr_v_q    <= '0;
    end else begin
      now_q      <= now_q + 32'd1;
      nak_q      <= nak_d;
      evt_wait_q <= evt_wait_d;
      done_q     <= done_d;
      idle_v_q   <= idle_v_d;
      infl_v_q   <= infl_v_d;
      rnr_v_q    <= rnr_v_d;
      if (ev_sched) begin
        s_qpn <= sched_qpn;
      end
    end
  end

  // The per-QP state memories (no reset: see look_qst), written by index in
  // the order of precedence.
  always_ff @(posedge clk_i) begin
    // a QP leaving IDLE starts from rnr_cnt 0 (later writes win)
    if (ev_sched && idle_v_q[sched_qpn]) begin
      rnr_cnt_q[sched_qpn] <= '0;
    end
    if (s_rel_valid && idle_v_q[s_qpn]) begin
      rnr_cnt_q[s_qpn] <= '0;
    end
    if ((r_claim || r_rel_valid) && idle_v_q[look_qpn]) begin
      rnr_cnt_q[look_qpn] <= '0;
    end
    if (ev_sched) begin
      qst_q[sched_qpn] <= Q_ACTIVE;
    end
    if (s_rel_valid) begin
      if (s_rel_inflight) begin
        qst_q[s_qpn] <= Q_INFLIGHT;
      end else if (s_rel_rnr) begin
        qst_q[s_qpn]     <= Q_RNR_WAIT;
        rnr_cnt_q[s_qpn] <= (idle_v_q[s_qpn] ? 3'd0 : rnr_cnt_q[s_qpn]) + 3'd1;
      end else begin
        qst_q[s_qpn]     <= Q_IDLE;
        rnr_cnt_q[s_qpn] <= '0;
      end
    end
    if (r_claim) begin
      qst_q[look_qpn] <= Q_RESP;
    end
    if (r_rel_valid) begin
      case (r_rel_kind)
        REL_INFLIGHT, REL_EVT: qst_q[look_qpn] <= Q_INFLIGHT;
        REL_RNR: begin
          qst_q[look_qpn]     <= Q_RNR_WAIT;
          rnr_cnt_q[look_qpn] <= look_rnr_cnt + 3'd1;
        end
        default: begin
          qst_q[look_qpn]     <= Q_IDLE;
          rnr_cnt_q[look_qpn] <= '0;
        end
      endcase
    end
    if (wr_ok) begin
      qst_q[wr_qpn]     <= Q_IDLE;
      rnr_cnt_q[wr_qpn] <= '0;
    end
  end

  // Parked messages and RNR deadlines: data.
  always_ff @(posedge clk_i) begin
    if (s_rel_valid && s_rel_inflight) begin
      park_q[s_qpn] <= s_park;
    end
    if (r_rel_valid && r_rel_kind == REL_RNR) begin
      deadline_q[look_qpn] <= now_q + r_rnr_timer;
    end
    if (r_nak_save) begin
      nak_syn_q[look_qpn] <= r_nak_syn;
      nak_rnr_q[look_qpn] <= r_nak_rnr;
    end
    if (s_rel_rnr) begin
      deadline_q[s_qpn] <= now_q + s_rnr_timer;
    end
    if (done_mine) begin
      done_st_q[done_tag_qpn] <= evt_done_status_i[4:0];
    end
  end

  // The lowest QP with a DONE waiting (DONEs are rare: no fairness needed).
  always_comb begin
    done_any = 1'b0;
    done_qpn = '0;
    if (done_q != '0) begin
      for (int q = MAX_QP - 1; q >= 0; q--) begin
        if (done_q[q]) begin
          done_any = 1'b1;
          done_qpn = QW'(q);
        end
      end
    end
  end

  assign s_nak     = nak_q[s_qpn];
  assign s_nak_syn = nak_syn_q[s_qpn];

  // ---------------------------------------------------------------- shared ports
  hca_xarb #(
    .N (2)
  ) u_xarb (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .c_req_valid_i  ({r_xq_valid, s_xq_valid}),
    .c_req_ready_o  ({r_xq_ready, s_xq_ready}),
    .c_req_i        ({r_xq, s_xq}),
    .c_rsp_valid_o  ({r_xs_valid, s_xs_valid}),
    .c_rsp_ready_i  ({r_xs_ready, s_xs_ready}),
    .xu_req_valid_o (xq_valid_o),
    .xu_req_ready_i (xq_ready_i),
    .xu_req_o       (xq_o),
    .xu_rsp_valid_i (xs_valid_i),
    .xu_rsp_ready_o (xs_ready_o),
    .xu_rsp_last_i  (xs_last_i)
  );

  logic unused_dma_id;
  hca_arb #(
    .N (2),
    .W (`HCA_DMA_REQ_W)
  ) u_dma_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({r_dma_valid, s_dma_valid}),
    .in_ready_o  ({r_dma_ready, s_dma_ready}),
    .in_data_i   ({r_dma, s_dma}),
    .out_valid_o (dma_req_valid_o),
    .out_ready_i (dma_req_ready_i),
    .out_data_o  (dma_req_o),
    .out_id_o    (unused_dma_id)
  );

  logic rsp_to_r;
  assign rsp_to_r        = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 5];
  assign s_rsp_valid     = dma_rsp_valid_i && !rsp_to_r;
  assign r_rsp_valid     = dma_rsp_valid_i && rsp_to_r;
  assign dma_rsp_ready_o = rsp_to_r ? r_rsp_ready : s_rsp_ready;

  logic unused_free_id;
  hca_arb #(
    .N (2),
    .W (8)
  ) u_free_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({r_free_valid, s_free_valid}),
    .in_ready_o  ({r_free_ready, s_free_ready}),
    .in_data_i   ({r_free_id, s_free_id}),
    .out_valid_o (pb_free_valid_o),
    .out_ready_i (pb_free_ready_i),
    .out_data_o  (pb_free_id_o),
    .out_id_o    (unused_free_id)
  );

  // Events of both engines onto hca_evt (each holds its event until taken).
  logic unused_evt_id;
  hca_arb #(
    .N (2),
    .W (EW)
  ) u_evt_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({r_evt_valid, s_evt_valid}),
    .in_ready_o  ({r_evt_ready, s_evt_ready}),
    .in_data_i   ({r_evt, s_evt}),
    .out_valid_o (evt_valid_o),
    .out_ready_i (evt_ready_i),
    .out_data_o  (evt_o),
    .out_id_o    (unused_evt_id)
  );

  // Completions: {qpn, cqn, write, err, cqe}.
  logic             fin_valid, fin_ready, fin_write, fin_err;
  logic [FIN_W-1:0] fin;
  logic [15:0]      fin_qpn, fin_cqn;
  logic             unused_fin_id;
  hca_arb #(
    .N (2),
    .W (FIN_W)
  ) u_fin_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  ({r_fin_valid, s_fin_valid}),
    .in_ready_o  ({r_fin_ready, s_fin_ready}),
    .in_data_i   ({r_fin, s_fin}),
    .out_valid_o (fin_valid),
    .out_ready_i (fin_ready),
    .out_data_o  (fin),
    .out_id_o    (unused_fin_id)
  );

  assign {fin_qpn, fin_cqn, fin_write, fin_err, cpl_o} = fin;
  assign cpl_cqn_o      = fin_cqn;
  assign cpl_valid_o    = fin_valid && fin_write;
  assign fin_ready      = !fin_write || cpl_ready_i;
  assign sq_ci_inc_o    = fin_valid && fin_ready;
  assign sq_ci_qpn_o    = fin_qpn;
  assign qp_err_valid_o = fin_valid && fin_ready && fin_err;
  assign qp_err_qpn_o   = fin_qpn;

  logic unused;
  assign unused = ^{unused_sched, sched_grant, unused_dma_id, unused_free_id, unused_fin_id,
                    unused_evt_id, qpc_wr_qpn_i, evt_done_status_i[7:5]};

endmodule
