`default_nettype none
`include "hca_abi.svh"

// hca_requester_props — the requester wrapper's side of its two engines'
// hand-over (`make formal`, by induction): hca_requester as it is (2 QPs)
// with its engines cut out (formal.mk's cutpoint: every output of
// hca_req_send and hca_req_resp free each cycle), constrained only by what
// their own jobs prove of them (hca_req_send_props: sched_idle, rel_owned,
// rel_kind; hca_req_resp_props: claim_free, claim_inflight, rel_owned,
// own_qpn_held), and every input of the wrapper free but for hca_ctx's
// guarantees: reset in the first cycle, no QP live then; a QP, once live, stays live
// (qp_live_i only rises: hca_ctx's qlive_q), and becomes live only the
// cycle after a WRITE_QPC of it raised qpc_wr_i (its first); the scheduler's head is
// pending or in ERROR only if live (hca_ctx reads a QP not written as RESET
// with indices 0).
//
//   park_held  while the response engine owns a QP (claimed, not yet
//              released) the park entry it reads (park_i, the message the
//              send engine parked) does not change: the assumption
//              hca_req_resp_props makes of the wrapper, discharged here.
//
// Proven with the invariants: the QP the send engine owns is live and
// ACTIVE, the one the response engine owns live and RESP (so never the
// same QP, and no park write reaches the QP the response engine owns).
// HCA_MUTANT_REQ_CLAIM_RACE (the scheduler no longer yields a QP to the
// response engine's claim in the same cycle: both engines own it) breaks
// park_held.
module hca_requester_props #(
  parameter int MAX_QP = 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic [31:0]                    now_i,
  input  logic [`HCA_QP_CTX_W-1:0]       ra_qpc_i,
  input  logic [15:0]                    ra_sq_ci_i,
  input  logic [15:0]                    ra_sq_pi_i,
  input  logic [`HCA_QP_CTX_W-1:0]       rb_qpc_i,
  input  logic [15:0]                    rb_sq_ci_i,
  input  logic                           pe_pend_i,
  input  logic                           pe_err_i,
  input  logic [MAX_QP-1:0]              qp_live_i,
  input  logic                           sq_db_i,
  input  logic [15:0]                    sq_db_qpn_i,
  input  logic                           qpc_set_i,
  input  logic                           qpc_wr_i,
  input  logic [15:0]                    qpc_wr_qpn_i,
  input  logic                           rs_err_i,
  input  logic [$clog2(MAX_QP)-1:0]      rs_err_qpn_i,
  input  logic                           tx_ready_i,
  input  logic                           rx_valid_i,
  input  logic [`HCA_PKT_W-1:0]          rx_i,
  input  logic                           xq_ready_i,
  input  logic                           xs_valid_i,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                           xs_last_i,
  input  logic [31:0]                    xs_len_i,
  input  logic [63:0]                    xs_pa_i,
  input  logic                           dma_req_ready_i,
  input  logic                           dma_rsp_valid_i,
  input  logic [`HCA_DMA_RSP_W-1:0]      dma_rsp_i,
  input  logic                           pb_alloc_valid_i,
  input  logic [7:0]                     pb_alloc_id_i,
  input  logic                           pb_free_ready_i,
  input  logic                           cpl_ready_i,
  input  logic                           evt_ready_i,
  input  logic                           evt_done_valid_i,
  input  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag_i,
  input  logic [7:0]                     evt_done_status_i
);

  localparam int QW     = $clog2(MAX_QP);
  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam int SGES_W = 4 * `HCA_SGE_W;
  localparam int PARK_W = 16 + 4 + 1 + 1 + 3 + 32 + 32 + 64 + SGES_W;

  logic [15:0]                ra_qpn_o, rb_qpn_o, sq_ci_qpn_o, qp_err_qpn_o, cpl_cqn_o;
  logic                       sq_ci_inc_o, qp_err_valid_o;
  logic [QW-1:0]              pe_qpn_o;
  logic                       tx_valid_o, rx_ready_o, xq_valid_o, xs_ready_o;
  logic [`HCA_PKT_W-1:0]      tx_o;
  logic [XREQ_W-1:0]          xq_o;
  logic                       dma_req_valid_o, dma_rsp_ready_o;
  logic [`HCA_DMA_REQ_W-1:0]  dma_req_o;
  logic                       pb_alloc_ready_o, pb_free_valid_o;
  logic [7:0]                 pb_free_id_o;
  logic                       cpl_valid_o;
  logic [`HCA_CQE_W-1:0]      cpl_o;
  logic [6+`HCA_SQ_PREFETCH_READS:0] drain_busy_o;
  logic                       evt_valid_o;
  logic [`HCA_FW_EVENT_W-1:0] evt_o;
  logic                       quiet_o, wake_valid_o;
  logic [31:0]                wake_o;

  hca_requester #(.MAX_QP(MAX_QP)) dut (.*);

  // taps (formal.mk connects them): the engines' hand-over wires (their
  // cut outputs and what the wrapper makes of them) and the per-QP state
  logic              t_sched_valid, t_sched_ready, t_s_rel_valid, t_s_rel_inflight;
  logic              t_r_claim, t_r_rel_valid, t_look_parking;
  logic [QW-1:0]     t_s_qpn, t_look_qpn;
  logic [2:0]        t_look_qst, t_qst0, t_qst1;
  logic [PARK_W-1:0] t_look_park;

  // hca_requester's qst_e
  localparam logic [2:0] Q_ACTIVE = 3'd1, Q_INFLIGHT = 3'd2, Q_RESP = 3'd3;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // The QP each engine owns: handed over until released, claimed until
  // released (as the engines' own jobs define them).
  logic              own_s = 1'b0, own_r = 1'b0;
  logic [QW-1:0]     look_q;
  logic [PARK_W-1:0] park_q;
  logic [MAX_QP-1:0] live_q, wr_q;
  always_ff @(posedge clk_i) begin
    wr_q   <= (qpc_wr_i && qpc_wr_qpn_i < 16'(MAX_QP)) ? MAX_QP'(1) << qpc_wr_qpn_i[QW-1:0] : '0;
    own_s  <= rst_ni && (own_s || (t_sched_valid && t_sched_ready)) && !t_s_rel_valid;
    own_r  <= rst_ni && (own_r || t_r_claim) && !t_r_rel_valid;
    look_q <= t_look_qpn;
    park_q <= t_look_park;
    live_q <= qp_live_i;
  end

  logic look_inflight;
  assign look_inflight = t_look_qst == Q_INFLIGHT || t_look_parking;

  logic [2:0] qst_s, qst_r;
  assign qst_s = t_s_qpn[0] ? t_qst1 : t_qst0;
  assign qst_r = t_look_qpn[0] ? t_qst1 : t_qst0;

  always_comb begin
    if (init_q) begin
      assume (!rst_ni && qp_live_i == '0);
    end else begin
      assume (rst_ni);
      assume ((qp_live_i & live_q) == live_q && (qp_live_i & ~live_q & ~wr_q) == '0);
    end
    assume (!(pe_pend_i || pe_err_i) || qp_live_i[pe_qpn_o]);
    // hca_req_send's guarantees
    assume (!t_sched_ready || !own_s);
    assume (!t_s_rel_valid || own_s);
    assume (!t_s_rel_inflight || t_s_rel_valid);
    // hca_req_resp's
    assume (!t_r_claim || (!own_r && look_inflight));
    assume (!t_r_rel_valid || own_r || t_r_claim);
    assume (!own_r || t_look_qpn == look_q);
  end

  always_comb begin
    if (!init_q) begin
      park_held: assert (!(own_r && t_look_qpn == look_q) || t_look_park == park_q);
      // invariants (induction)
      inv_own_s: assert (!own_s || (qp_live_i[t_s_qpn] && qst_s == Q_ACTIVE));
      inv_own_r: assert (!own_r || (qp_live_i[t_look_qpn] && qst_r == Q_RESP));
    end
  end

  logic unused;
  assign unused = ^{ra_qpn_o, rb_qpn_o, sq_ci_qpn_o, qp_err_qpn_o, cpl_cqn_o, sq_ci_inc_o, qp_err_valid_o,
                    tx_valid_o, rx_ready_o, xq_valid_o, xs_ready_o, tx_o, xq_o, dma_req_valid_o,
                    dma_rsp_ready_o, dma_req_o, pb_alloc_ready_o, pb_free_valid_o, pb_free_id_o, cpl_valid_o,
                    cpl_o, drain_busy_o, evt_valid_o, evt_o, quiet_o, wake_valid_o, wake_o};

endmodule
