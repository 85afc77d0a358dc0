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
// The scheduler serves QPs in the order they became schedulable (a FIFO of
// QP numbers, below). A packet the response engine claims in the cycle the
// scheduler would offer the same QP wins.
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
  // verilator tracing_off
  input  logic [31:0]                   now_i,    // the cycle (hca_core now_i): RNR deadlines
  // verilator tracing_on

  // hca_ctx
  output logic [15:0]                   ra_qpn_o,
  input  logic [`HCA_QP_CTX_W-1:0]      ra_qpc_i,
  input  logic [15:0]                   ra_sq_ci_i,
  input  logic [15:0]                   ra_sq_pi_i,
  output logic [15:0]                   rb_qpn_o,
  input  logic [`HCA_QP_CTX_W-1:0]      rb_qpc_i,
  input  logic [15:0]                   rb_sq_ci_i,
  output logic                          sq_ci_inc_o,
  output logic [15:0]                   sq_ci_qpn_o,
  output logic                          qp_err_valid_o,
  output logic [15:0]                   qp_err_qpn_o,
  // the scheduler's view of hca_ctx: the head QP's {sq_pi != sq_ci and
  // not RESET, ERROR} looked up by index; the entries written since reset
  // (qp_live_i, read by index only); the events that may make a QP
  // schedulable (an SQ doorbell, any WRITE_QPC, the responder's ERROR)
  output logic [$clog2(MAX_QP)-1:0]     pe_qpn_o,
  input  logic                          pe_pend_i,
  input  logic                          pe_err_i,
  input  logic [MAX_QP-1:0]             qp_live_i,
  input  logic                          sq_db_i,
  input  logic [15:0]                   sq_db_qpn_i,
  input  logic                          qpc_set_i,       // a WRITE_QPC of qpc_wr_qpn_i
  input  logic                          qpc_wr_i,        // ... to RESET or RTS, or its first
  input  logic [15:0]                   qpc_wr_qpn_i,
  input  logic                          rs_err_i,
  input  logic [$clog2(MAX_QP)-1:0]     rs_err_qpn_i,

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

  // ctx DRAIN sources: {send WQE reads [6+SQ_PREFETCH_READS:6], response movers [5:3], send movers [2:0]}
  output logic [`HCA_DRAIN_SRC_RESPONDER_LSB-1:0] drain_busy_o, // abi DRAIN_SRC SEND, RESPONSE, WQE_READS

  // memory-management events (hca_evt producer 0) and their DONE broadcast
  output logic                          evt_valid_o,
  input  logic                          evt_ready_i,
  output logic [`HCA_FW_EVENT_W-1:0]    evt_o,
  input  logic                          evt_done_valid_i,
  input  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag_i,
  input  logic [7:0]                    evt_done_status_i,
  output logic                          quiet_o,         // nothing changes while the inputs stay idle ...
  output logic                          wake_valid_o,    // ... until now_i passes wake_o (an RNR wait's deadline)
  output logic [31:0]                   wake_o
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

  // Per-QP state: memories without reset, written by index. A QP's entries
  // count once hca_ctx has its context (qp_live_i): the firmware's first
  // WRITE_QPC of a QP raises qpc_wr_i, which sets them all as at reset
  // (IDLE, rnr_cnt 0, no NAK, event or DONE), and no engine touches a QP
  // before (ctx serves none). Before, a QP reads as IDLE with nothing kept.
  qst_e         qst_q [MAX_QP];
  logic [2:0]   rnr_cnt_q [MAX_QP];
  logic [31:0]  deadline_q [MAX_QP];
  logic [PARK_W-1:0] park_q [MAX_QP];
  logic         nak_m [MAX_QP];
  logic         nak_rnr_m [MAX_QP];
  logic [4:0]   nak_syn_q [MAX_QP];
  logic         evt_wait_m [MAX_QP];   // parked, waiting for DONE
  logic         done_m [MAX_QP];       // DONE came, not yet taken by the response engine
  logic [4:0]   done_st_q [MAX_QP];

  // ---------------------------------------------------------------- engines
  logic              sched_valid, sched_ready, sched_fresh;
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
  logic              fin_valid, fin_ready, fin_write, fin_err;   // the completion handed over
  logic [FIN_W-1:0]  fin;
  logic [15:0]       fin_qpn, fin_cqn;
  logic              r_nak_save, r_nak_rnr;
  logic [4:0]        r_nak_syn;
  logic              s_nak, s_nak_rnr;
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
  assign done_mine    = evt_done_valid_i && evt_done_tag_i[`HCA_EVT_DONE_TAG_W-1:QW] == '0 &&
                        qp_live_i[done_tag_qpn] && evt_wait_m[done_tag_qpn];

  // The looked-up QP's entries, read here and not in the port list: Yosys
  // 0.23 re-elaborates a module whose parameterized instance has a port
  // bound to an unpacked-array element, and with the module's parameters
  // overridden (hierarchy -chparam) that second pass asserts
  // (modules_.count(module->name) == 0, kernel/rtlil.cc).
  logic              look_live;
  qst_e              look_qst;
  logic [PARK_W-1:0] look_park;
  logic [2:0]        look_rnr_cnt;
  logic              look_evt_wait;
  logic [4:0]        done_st;
  assign look_live     = qp_live_i[look_qpn];
  assign look_qst      = look_live ? qst_q[look_qpn] : Q_IDLE;
  assign look_park     = look_parking ? s_park : park_q[look_qpn];
  assign look_rnr_cnt  = look_live ? rnr_cnt_q[look_qpn] : 3'd0;
  assign look_evt_wait = look_live && evt_wait_m[look_qpn];
  assign done_st       = done_st_q[done_qpn];

  hca_req_send #(
    .QW (QW)
  ) u_send (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .sched_valid_i   (sched_valid),
    .sched_ready_o   (sched_ready),
    .sched_qpn_i     (sched_qpn),
    .sched_fresh_i   (sched_fresh),
    .qpn_o           (ra_qpn_o),
    .qpc_i           (ra_qpc_i),
    .sq_ci_i         (ra_sq_ci_i),
    .sq_pi_i         (ra_sq_pi_i),
    .pf_kill_i       (qpc_set_i),
    .pf_kill_qpn_i   (qpc_wr_qpn_i),
    .nak_i           (s_nak),
    .nak_syn_i       (s_nak_syn),
    .nak_rnr_i       (s_nak_rnr),
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
    .mv_busy_o       (drain_busy_o[`HCA_DRAIN_SRC_SEND_LSB +: `HCA_DRAIN_SRC_SEND_WIDTH]),
    .rd_busy_o       (drain_busy_o[`HCA_DRAIN_SRC_WQE_READS_LSB +: `HCA_DRAIN_SRC_WQE_READS_WIDTH]),
    .quiet_o         (s_quiet)
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
    .look_evt_wait_i (look_evt_wait || (look_parking && s_rel_evt)),
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
    .mv_busy_o       (drain_busy_o[`HCA_DRAIN_SRC_RESPONSE_LSB +: `HCA_DRAIN_SRC_RESPONSE_WIDTH]),
    .quiet_o         (r_quiet)
  );

  logic s_quiet, r_quiet, x_quiet, dma_hold, free_hold, evt_hold, fin_hold;

  // ---------------------------------------------------------------- scheduler
  // A QP is schedulable (a candidate) when
  //   IDLE with sq_pi != sq_ci (not RESET), or
  //   RNR_WAIT and its deadline passed or the QP is in ERROR, or
  //   INFLIGHT in ERROR and not waiting for DONE (to flush it).
  // Candidates wait in a FIFO of QP numbers (hca_qfifo: each QP at most
  // once), so no cycle looks at more than a few QPs whatever MAX_QP is. A QP
  // is pushed whenever something happens that may make it a candidate: the
  // send or response engine releases it, an SQ doorbell, a WRITE_QPC, an
  // ERROR from either side, a completion of its WQE, its RNR deadline
  // passing (the RNR queue below). The head is checked against the rule
  // above (its state read by index, its indices and state looked up in
  // hca_ctx by index): a candidate is offered to the send engine and popped
  // when taken; anything else is popped and dropped (whatever makes it a
  // candidate later pushes it again). FIFO order: every candidate is served
  // after at most the QPs queued before it, so none starves. A packet the
  // response engine claims in the cycle the head would be offered wins.
  localparam int NPUSH = 7;
  logic [NPUSH-1:0]    sq_push;
  logic [NPUSH*QW-1:0] sq_push_qpn;
  logic                sq_head_valid, sq_pop;
  logic [QW-1:0]       sq_head;

  // RNR waits: a FIFO of the QPs entering RNR_WAIT; only its head's
  // deadline is compared, and it moves to the scheduler's FIFO when that
  // passed (a QP queued behind a later deadline waits for it: retries come
  // in the order of the RNR_NAKs, each at least rnr_timer cycles after its
  // own). A head no longer in RNR_WAIT (flushed, reset) is dropped.
  logic          rn_head_valid, rn_pop, rn_ripe;
  logic [QW-1:0] rn_head;
  qst_e          rn_qst;
  assign rn_qst  = qp_live_i[rn_head] ? qst_q[rn_head] : Q_IDLE;
  assign rn_ripe = rn_head_valid && rn_qst == Q_RNR_WAIT && !(now_i - deadline_q[rn_head] >= 32'h8000_0000);
  assign rn_pop  = rn_head_valid && (rn_qst != Q_RNR_WAIT || rn_ripe);

  hca_qfifo #(
    .N (MAX_QP),
    .P (2)
  ) u_rnr_q (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .push_i       ({r_rel_valid && r_rel_kind == REL_RNR, s_rel_valid && s_rel_rnr}),
    .push_val_i   ({look_qpn, s_qpn}),
    .head_valid_o (rn_head_valid),
    .head_o       (rn_head),
    .pop_i        (rn_pop)
  );

  assign sq_push     = {fin_valid && fin_ready, rs_err_i, qpc_set_i && qpc_wr_qpn_i < 16'(MAX_QP),
                        sq_db_i && sq_db_qpn_i < 16'(MAX_QP), rn_ripe, r_rel_valid, s_rel_valid};
  assign sq_push_qpn = {fin_qpn[QW-1:0], rs_err_qpn_i, qpc_wr_qpn_i[QW-1:0], sq_db_qpn_i[QW-1:0],
                        rn_head, look_qpn, s_qpn};

  hca_qfifo #(
    .N (MAX_QP),
    .P (NPUSH)
  ) u_sched_q (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .push_i       (sq_push),
    .push_val_i   (sq_push_qpn),
    .head_valid_o (sq_head_valid),
    .head_o       (sq_head),
    .pop_i        (sq_pop)
  );

  // The head against the rule (pe_*: hca_ctx's answer for pe_qpn_o).
  qst_e sq_qst;
  logic sq_cand, sq_expired;
  assign pe_qpn_o   = sq_head;
  assign sq_qst     = qp_live_i[sq_head] ? qst_q[sq_head] : Q_IDLE;
  assign sq_expired = !(now_i - deadline_q[sq_head] >= 32'h8000_0000);
  // (HCA_MUTANT_REQ_CLAIM_RACE: formal mutant, rtl/formal/hca_requester_props.sv)
  assign sq_cand    = sq_head_valid && `ifndef HCA_MUTANT_REQ_CLAIM_RACE !(r_claim && look_qpn == sq_head) && `endif
                      ((sq_qst == Q_IDLE && pe_pend_i) ||
                       (sq_qst == Q_RNR_WAIT && (sq_expired || pe_err_i)) ||
                       (sq_qst == Q_INFLIGHT && pe_err_i && !evt_wait_m[sq_head]));
  assign sched_valid = sq_cand;
  assign sched_qpn   = sq_head;
  assign sched_fresh = sq_qst == Q_IDLE;   // the send engine may release it idle again (its yield)
  assign sq_pop      = sq_head_valid && (!sq_cand || sched_ready);

  // ---------------------------------------------------------------- per-QP state
  logic [QW-1:0] wr_qpn;
  assign wr_qpn = qpc_wr_qpn_i[QW-1:0];

  // The events that move a QP, each naming one QP: applied by index, in
  // the order of precedence (a later one for the same QP wins).
  logic ev_sched, wr_ok;
  assign ev_sched = sched_valid && sched_ready;
  // A QP an engine owns, or takes in this very cycle (the scheduler's hand-
  // over, a claim the response engine keeps), is left to that engine: it
  // reads the new context and releases the QP itself. (Overwriting a claim
  // taken in the same cycle would leave the response engine's QP IDLE, free
  // to be handed to the send engine and parked again under it.)
  // HCA_MUTANT_REQ_WR_TAKEN: formal mutant, rtl/formal/hca_requester_props.sv.
  logic wr_taken;
  assign wr_taken = (ev_sched && sched_qpn == wr_qpn) || (r_claim && !r_rel_valid && look_qpn == wr_qpn);
  assign wr_ok    = qpc_wr_i && qpc_wr_qpn_i < 16'(MAX_QP) &&
                    (!qp_live_i[wr_qpn] || (qst_q[wr_qpn] != Q_ACTIVE && qst_q[wr_qpn] != Q_RESP
                                            `ifndef HCA_MUTANT_REQ_WR_TAKEN && !wr_taken `endif));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_qpn <= '0;
    end else begin
      if (ev_sched) begin
        s_qpn <= sched_qpn;
      end
    end
  end

  // The per-QP memories (no reset: see above), written by index in the
  // order of precedence. rnr_cnt is 0 in every IDLE QP (every way into IDLE
  // writes it).
  always_ff @(posedge clk_i) begin
    if (ev_sched) begin
      qst_q[sched_qpn] <= Q_ACTIVE;
      nak_m[sched_qpn] <= 1'b0;
    end
    if (r_nak_save) begin
      nak_m[look_qpn] <= 1'b1;
    end
    if (s_rel_valid) begin
      if (s_rel_inflight) begin
        qst_q[s_qpn]      <= Q_INFLIGHT;
        evt_wait_m[s_qpn] <= s_rel_evt;
      end else if (s_rel_rnr) begin
        qst_q[s_qpn]     <= Q_RNR_WAIT;
        rnr_cnt_q[s_qpn] <= rnr_cnt_q[s_qpn] + 3'd1;
      end else begin
        qst_q[s_qpn]     <= Q_IDLE;
        rnr_cnt_q[s_qpn] <= '0;
      end
    end
    if (r_claim) begin
      qst_q[look_qpn]      <= Q_RESP;
      evt_wait_m[look_qpn] <= 1'b0;
    end
    if (done_mine) begin
      done_m[done_tag_qpn] <= 1'b1;
    end
    if (r_done_take) begin
      done_m[done_qpn] <= 1'b0;
    end
    if (r_rel_valid) begin
      case (r_rel_kind)
        REL_INFLIGHT: qst_q[look_qpn] <= Q_INFLIGHT;
        REL_EVT: begin
          qst_q[look_qpn]      <= Q_INFLIGHT;
          evt_wait_m[look_qpn] <= 1'b1;
        end
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
    // The firmware reset, reconnected or first wrote the QP: forget what
    // was in flight (an engine that owns it finishes first and releases it).
    if (wr_ok) begin
      qst_q[wr_qpn]      <= Q_IDLE;
      rnr_cnt_q[wr_qpn]  <= '0;
      nak_m[wr_qpn]      <= 1'b0;
      evt_wait_m[wr_qpn] <= 1'b0;
      done_m[wr_qpn]     <= 1'b0;
    end
  end

  // Parked messages and RNR deadlines: data.
  always_ff @(posedge clk_i) begin
    if (s_rel_valid && s_rel_inflight) begin
      park_q[s_qpn] <= s_park;
    end
    if (r_rel_valid && r_rel_kind == REL_RNR) begin
      deadline_q[look_qpn] <= now_i + r_rnr_timer;
    end
    if (r_nak_save) begin
      nak_syn_q[look_qpn] <= r_nak_syn;
      nak_rnr_m[look_qpn] <= r_nak_rnr;
    end
    if (s_rel_rnr) begin
      deadline_q[s_qpn] <= now_i + s_rnr_timer;
    end
    if (done_mine) begin
      done_st_q[done_tag_qpn] <= evt_done_status_i[4:0];
    end
  end

  // DONEs waiting for the response engine, in arrival order (DONEs are
  // rare: no fairness needed); a head whose DONE was dropped meanwhile (the
  // firmware reset the QP) is popped without being offered.
  logic          dn_head_valid, dn_pop;
  logic [QW-1:0] dn_head;
  hca_qfifo #(
    .N (MAX_QP),
    .P (1)
  ) u_done_q (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .push_i       (done_mine),
    .push_val_i   (done_tag_qpn),
    .head_valid_o (dn_head_valid),
    .head_o       (dn_head),
    .pop_i        (dn_pop)
  );
  assign done_qpn = dn_head;
  assign done_any = dn_head_valid && qp_live_i[dn_head] && done_m[dn_head];
  assign dn_pop   = dn_head_valid && (!done_any || r_done_take);

  // The send engine's QP is live (scheduled): its NAK entries are its own.
  assign s_nak     = qp_live_i[s_qpn] && nak_m[s_qpn];
  assign s_nak_syn = nak_syn_q[s_qpn];
  assign s_nak_rnr = nak_rnr_m[s_qpn];

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
    .xu_rsp_last_i  (xs_last_i),
    .quiet_o        (x_quiet)
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
    .out_id_o    (unused_dma_id),
    .hold_o      (dma_hold)
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
    .out_id_o    (unused_free_id),
    .hold_o      (free_hold)
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
    .out_id_o    (unused_evt_id),
    .hold_o      (evt_hold)
  );

  // Completions: {qpn, cqn, write, err, cqe}.
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
    .out_id_o    (unused_fin_id),
    .hold_o      (fin_hold)
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
  assign unused = ^{unused_dma_id, unused_free_id, unused_fin_id,
                    unused_evt_id, qpc_wr_qpn_i, evt_done_status_i[7:5]};

  // The twin of hca_requester_quiet_until_in (hca_core quiet_o): both engines
  // and every arbiter waiting for an input, no DONE queued, the scheduler's
  // head a candidate the busy send engine does not take, the RNR head waiting
  // for its deadline (wake_o; ripe when now_i - wake_o < 2^31).
  assign quiet_o      = s_quiet && r_quiet && x_quiet && !dma_hold && !free_hold && !evt_hold && !fin_hold &&
                        !dn_head_valid && (!sq_head_valid || (sq_cand && !sched_ready)) && !rn_pop;
  assign wake_valid_o = rn_head_valid;
  assign wake_o       = deadline_q[rn_head];

endmodule
