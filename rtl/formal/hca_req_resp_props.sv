`default_nettype none
`include "hca_abi.svh"

// hca_req_resp_props — the requester's response engine at its boundaries
// (`make formal`, bounded): hca_req_resp as it is, every input free each
// cycle except for the protocols of its input ports — reset in the first
// cycle; a received packet offered until taken, unchanged; a translation
// beat only for a request the engine issued and whose last beat it has not
// taken, offered until taken, unchanged; a DMA answer only for a DMA it
// issued and that is not answered; the wrapper's per-QP park entry
// (park_i, read at look_qpn_o) unchanged while the engine owns the QP it
// names (claimed and not released: hca_requester_props proves this of the
// wrapper); the context read port (qpc_i, sq_ci_i) unchanged while qpn_o names
// the same QP, but for the context's state, which may change at any time
// (the firmware or an engine moving the QP to ERROR or RESET). Its translation port is its SGE mover's (hca_sge_mover_props, POST
// 1); here the owner's side of it, and the engine's own output streams:
//
//   mover_owner    the mover started only while idle; while it runs the
//                  engine keeps naming the same QP (look_qpn_o), so the SGE
//                  list and count it reads from that QP's park entry hold
//   fin_held, evt_held, dma_held, free_held
//                  a completion, an event, a DMA request, a buffer free
//                  offered and not taken is offered again, unchanged —
//                  except, for the completion and the event, when the QP's
//                  context now reads RESET (ctx_reset, a tap): withdrawn by
//                  design, as in hca_req_send; and for the free, when the
//                  state machine's own free (fsm_free, a tap) preempts a
//                  posted one offered and not taken: the id changes, by
//                  design ("the FSM's free first"); the posted one stays
//                  pending and is offered again after. Both are deviations
//                  from the valid/ready rule, found by this job, that the
//                  hca_arb instances downstream tolerate (the packet-buffer
//                  free ports are always ready).
//   claim_free, claim_inflight, rel_owned, own_qpn_held
//                  the QP claimed is owned (own_q) until released: a claim
//                  only while nothing is owned and of a QP the wrapper says
//                  in flight, a release only of the QP owned (or in the
//                  claim's cycle), the QP named held while owned (the
//                  guarantees hca_requester_props assumes of this engine)
//
// HCA_MUTANT_RESP_QPN_MOVES (the engine's QP number reloaded while its
// mover runs) breaks mover_owner.
module hca_req_resp_props #(
  parameter int QW = 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           rx_valid_i,
  input  logic [`HCA_PKT_W-1:0]          rx_i,
  input  logic                           look_inflight_i,
  input  logic [PARK_W-1:0]              park_any_i,
  input  logic [2:0]                     rnr_cnt_i,
  input  logic                           look_active_i,
  input  logic                           look_evt_wait_i,
  input  logic                           done_valid_i,
  input  logic [QW-1:0]                  done_qpn_i,
  input  logic [4:0]                     done_status_i,
  input  logic                           evt_ready_i,
  input  logic [`HCA_QP_CTX_W-1:0]       qpc_i,
  input  logic [15:0]                    sq_ci_i,
  input  logic                           free_ready_i,
  input  logic                           xq_ready_i,
  input  logic                           xs_valid_i,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                           xs_last_i,
  input  logic [31:0]                    xs_len_i,
  input  logic [63:0]                    xs_pa_i,
  input  logic                           dma_req_ready_i,
  input  logic                           dma_rsp_valid_i,
  input  logic [`HCA_DMA_RSP_W-1:0]      dma_rsp_i,
  input  logic                           fin_ready_i
);

  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam int SGES_W = 4 * `HCA_SGE_W;
  localparam int PARK_W = 16 + 4 + 1 + 1 + 3 + 32 + 32 + 64 + SGES_W;
  localparam int FIN_W  = 16 + 16 + 2 + `HCA_CQE_W;

  logic                          rx_ready_o, claim_o, rel_valid_o, nak_save_o, nak_rnr_o, done_take_o, quiet_o;  // quiet_o: hca_core's skip, not checked here
  logic [QW-1:0]                 look_qpn_o;
  logic [1:0]                    rel_kind_o;
  logic [31:0]                   rnr_timer_o;
  logic [4:0]                    nak_syn_o;
  logic                          evt_valid_o;
  logic [`HCA_FW_EVENT_W-1:0]    evt_o;
  logic [15:0]                   qpn_o;
  logic                          free_valid_o;
  logic [7:0]                    free_id_o;
  logic                          xq_valid_o, xs_ready_o;
  logic [XREQ_W-1:0]             xq_o;
  logic                          dma_req_valid_o, dma_rsp_ready_o;
  logic [`HCA_DMA_REQ_W-1:0]     dma_req_o;
  logic                          fin_valid_o;
  logic [FIN_W-1:0]              fin_o;
  logic [2:0]                    mv_busy_o;
  logic [PARK_W-1:0]             park_i;

  hca_req_resp #(.QW(QW)) dut (.*);

  // taps (formal.mk connects them): the mover's start and busy, ctx_reset,
  // the state machine's free
  logic t_mv_start, t_ctx_reset, t_fsm_free;
  // ...and the state the invariants name: the engine's and its mover's
  // state, the mover's check-only flag, the scatter slot, the posted free
  // and its slot, the per-slot answer counters
  logic [2:0] t_state, t_mvst;
  logic       t_mvchk, t_slot, t_pf, t_pfslot, t_claimed;
  logic [3:0] t_cnt0, t_cnt1;

  // hca_req_resp's and hca_sge_mover's state encodings
  localparam logic [2:0] R_IDLE = 3'd0, R_MOVE = 3'd2, R_FINISH = 3'd4, R_EVT = 3'd5;
  localparam logic [2:0] M_IDLE = 3'd0, M_DMA = 3'd4;
  // the mover's busy_o (merged away by Yosys' opt before the taps connect)
  logic t_mv_busy;
  assign t_mv_busy = t_mvst != M_IDLE;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // The QP claimed, owned until released; the wrapper's park entry of the
  // QP named: held while the engine owns it.
  logic              own_q;
  logic [QW-1:0]     look_q;
  logic [PARK_W-1:0] park_q;
  always_ff @(posedge clk_i) begin
    own_q  <= rst_ni && (own_q || claim_o) && !rel_valid_o;
    look_q <= look_qpn_o;
    park_q <= park_i;
  end
  assign park_i = (!init_q && own_q && look_qpn_o == look_q) ? park_q : park_any_i;

  // The context read port: held while qpn_o is, the state field aside.
  logic [15:0]              qpn_q;
  logic [`HCA_QP_CTX_W-1:0] qpc_q, qpc_mask;
  logic [15:0]              sq_ci_q;
  always_ff @(posedge clk_i) begin
    qpn_q   <= qpn_o;
    qpc_q   <= qpc_i;
    sq_ci_q <= sq_ci_i;
  end
  always_comb begin
    qpc_mask = '1;
    `HCA_QP_CTX_STATE(qpc_mask) = '0;
  end

  // Translation requests unfinished; DMAs unanswered, per tag slot bit
  // (an answer carries its request's tag, as the DMA block echoes it).
  logic [3:0] xo_q;
  logic [4:0] dout_q [2];
  logic       req_slot, rsp_slot;
  assign req_slot = dma_req_o[`HCA_DMA_REQ_TAG_LSB + 3];
  assign rsp_slot = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 3];
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      xo_q      <= '0;
      dout_q[0] <= '0;
      dout_q[1] <= '0;
    end else begin
      xo_q <= xo_q + 4'(xq_valid_o && xq_ready_i) - 4'(xs_valid_i && xs_ready_o && xs_last_i);
      for (int i = 0; i < 2; i++) begin
        dout_q[i] <= dout_q[i] + 5'(dma_req_valid_o && dma_req_ready_i && req_slot == 1'(i)) -
                     5'(dma_rsp_valid_i && rsp_slot == 1'(i));
      end
    end
  end

  // Last cycle's offers.
  logic                           rx_held_q, xs_held_q, fin_held_q, evt_held_q, dma_held_q, free_held_q;
  logic                           mv_busy_q;
  logic [`HCA_PKT_W-1:0]          rx_q;
  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_q;
  logic                           xs_last_q;
  logic [31:0]                    xs_len_q;
  logic [63:0]                    xs_pa_q;
  logic [FIN_W-1:0]               fin_q;
  logic [`HCA_FW_EVENT_W-1:0]     evt_q;
  logic [`HCA_DMA_REQ_W-1:0]      dma_q;
  logic [7:0]                     free_q;
  always_ff @(posedge clk_i) begin
    rx_held_q   <= rst_ni && rx_valid_i && !rx_ready_o;
    xs_held_q   <= rst_ni && xs_valid_i && !xs_ready_o;
    fin_held_q  <= rst_ni && fin_valid_o && !fin_ready_i;
    evt_held_q  <= rst_ni && evt_valid_o && !evt_ready_i;
    dma_held_q  <= rst_ni && dma_req_valid_o && !dma_req_ready_i;
    free_held_q <= rst_ni && free_valid_o && !free_ready_i;
    mv_busy_q   <= rst_ni && (t_mv_busy || t_mv_start);
    rx_q        <= rx_i;
    xs_status_q <= xs_status_i;
    xs_last_q   <= xs_last_i;
    xs_len_q    <= xs_len_i;
    xs_pa_q     <= xs_pa_i;
    fin_q       <= fin_o;
    evt_q       <= evt_o;
    dma_q       <= dma_req_o;
    free_q      <= free_id_o;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    if (rx_held_q) begin
      assume (rx_valid_i && rx_i == rx_q);
    end
    assume (!xs_valid_i || xo_q != '0);
    if (xs_held_q) begin
      assume (xs_valid_i && xs_status_i == xs_status_q && xs_last_i == xs_last_q &&
              xs_len_i == xs_len_q && xs_pa_i == xs_pa_q);
    end
    assume (!dma_rsp_valid_i || dout_q[rsp_slot] != '0);
    if (!init_q && qpn_o == qpn_q) begin
      assume ((qpc_i & qpc_mask) == (qpc_q & qpc_mask) && sq_ci_i == sq_ci_q);
    end
  end

  always_comb begin
    if (!init_q) begin
      mover_owner: assert ((!t_mv_start || !t_mv_busy) && (!(mv_busy_q && t_mv_busy) || look_qpn_o == look_q));
      fin_held:    assert (!fin_held_q || t_ctx_reset || (fin_valid_o && fin_o == fin_q));
      evt_held:    assert (!evt_held_q || t_ctx_reset || (evt_valid_o && evt_o == evt_q));
      dma_held:    assert (!dma_held_q || (dma_req_valid_o && dma_req_o == dma_q));
      free_held:   assert (!free_held_q || (free_valid_o && (free_id_o == free_q || t_fsm_free)));
      claim_free:     assert (!claim_o || !own_q);
      claim_inflight: assert (!claim_o || look_inflight_i);
      rel_owned:      assert (!rel_valid_o || own_q || claim_o);
      own_qpn_held:   assert (!own_q || look_qpn_o == look_q);
      // invariants (induction): the mover runs only in R_MOVE, never
      // check-only here, with its beat held in M_DMA; the answer counters
      // are the shadows; a posted free waits on the other slot than the
      // scatters that follow it
      inv_mover:   assert ((t_mvst == M_IDLE || t_state == R_MOVE) && !t_mvchk);
      inv_beat:    assert (t_mvst != M_DMA || xs_held_q);
      inv_count:   assert (5'(t_cnt0) == dout_q[0] && 5'(t_cnt1) == dout_q[1]);
      inv_pfslot:  assert (!t_pf || t_slot != t_pfslot);
      inv_own:     assert (own_q == (t_claimed && t_state != R_IDLE));
      inv_claimed: assert (!(t_state == R_MOVE || t_state == R_FINISH || t_state == R_EVT) || t_claimed);
    end
  end

  logic unused;
  assign unused = ^{rel_kind_o, rnr_timer_o, nak_save_o, nak_syn_o, nak_rnr_o,
                    done_take_o, qpn_o, xq_o, mv_busy_o, dma_rsp_ready_o};

endmodule
