`default_nettype none
`include "hca_abi.svh"

// hca_req_send_props — the requester's send engine at its boundaries
// (`make formal`): hca_req_send as it is, every input free each
// cycle except for the protocols of its input ports — reset in the first
// cycle; a translation beat only for a request the engine issued and whose
// last beat it has not taken, offered until taken, unchanged; a DMA answer
// only for a DMA it issued and that is not answered. Its translation port
// is its SGE mover's (hca_sge_mover_props proves that port given the mover's
// owner keeps its side); here the owner's side, and the engine's own
// output streams:
//
//   mover_owner    the engine starts its mover only while the mover is
//                  idle, and holds the SGE list and count the mover reads
//                  while it is busy (the assumptions hca_sge_mover_props
//                  makes, discharged)
//   tx_held, fin_held, evt_held, dma_held
//                  a packet, a completion, a memory-management event, a DMA
//                  request offered and not taken is offered again, unchanged
//                  — unless the QP's context now reads RESET (a WRITE_QPC to
//                  RESET raced the engine, ctx_reset, a tap): then the engine
//                  withdraws its offer by design (every output valid of
//                  hca_req_send is gated by !ctx_reset). That is a deviation
//                  from the valid/ready rule, found by this job; the
//                  arbiters it feeds (hca_arb) tolerate it: a held grant is
//                  released when its input drops, nothing is taken. The
//                  pending packet is withdrawn the same way when the
//                  message stops (a NAK kept for it, nak_i, or a bus error
//                  of the chunk after it: the engine goes to S_ABORT),
//                  found by the induction below.
//
// Proven by induction with the invariants inv_* over the engine's own
// state (taps): its mover busy only in S_CHECK / S_GATHER; a beat held in
// the mover's M_DMA; a pending packet only in the states that keep it, on
// the other slot than the chunk being gathered; the per-slot answer
// counters equal the posted-and-unanswered shadows; the WQE fetch
// outstanding exactly in S_FWAIT; a prefetch read slot busy exactly when
// its read is out or it waits to issue, an offer not taken the prefetch's.
// The DMA answers carry their request's tag (the DMA block echoes it): the
// fetch's, a prefetch read slot's whose read is out, or a posted slot's.
// (PFN = 2 entries here, so that QPs 2 apart share one; the read slots as
// in hca_core.)
//
//   sched_idle, rel_owned, rel_kind
//                  the QP the scheduler hands over is owned (own_q) until
//                  the engine releases it: a hand-over only while nothing is
//                  owned, a release only of the QP owned, "in flight" only
//                  with a release (the guarantees hca_requester_props
//                  assumes of this engine)
//
// HCA_MUTANT_SEND_SGE_UNHELD (the SGE list reloaded while the mover runs)
// breaks mover_owner; HCA_MUTANT_SEND_PF_UNHELD (the fetch takes the port
// from a prefetch offered, not taken) breaks dma_held.
module hca_req_send_props #(
  parameter int QW = 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           sched_valid_i,
  input  logic [QW-1:0]                  sched_qpn_i,
  input  logic                           sched_fresh_i,
  input  logic [`HCA_QP_CTX_W-1:0]       qpc_i,
  input  logic [15:0]                    sq_ci_i,
  input  logic [15:0]                    sq_pi_i,
  input  logic                           pf_kill_i,
  input  logic [15:0]                    pf_kill_qpn_i,
  input  logic                           nak_i,
  input  logic [4:0]                     nak_syn_i,
  input  logic                           nak_rnr_i,
  input  logic                           evt_ready_i,
  input  logic                           alloc_valid_i,
  input  logic [7:0]                     alloc_id_i,
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
  input  logic                           tx_ready_i,
  input  logic                           fin_ready_i
);

  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam int SGES_W = 4 * `HCA_SGE_W;
  localparam int PARK_W = 16 + 4 + 1 + 1 + 3 + 32 + 32 + 64 + SGES_W;
  localparam int FIN_W  = 16 + 16 + 2 + `HCA_CQE_W;

  logic                          sched_ready_o, rel_valid_o, rel_inflight_o, rel_evt_o, rel_rnr_o, quiet_o;  // quiet_o: hca_core's skip, not checked here
  logic [15:0]                   qpn_o;
  logic [31:0]                   rnr_timer_o;
  logic [PARK_W-1:0]             park_o;
  logic                          evt_valid_o;
  logic [`HCA_FW_EVENT_W-1:0]    evt_o;
  logic                          alloc_ready_o, free_valid_o;
  logic [7:0]                    free_id_o;
  logic                          xq_valid_o, xs_ready_o;
  logic [XREQ_W-1:0]             xq_o;
  logic                          dma_req_valid_o, dma_rsp_ready_o;
  logic [`HCA_DMA_REQ_W-1:0]     dma_req_o;
  logic                          tx_valid_o;
  logic [`HCA_PKT_W-1:0]         tx_o;
  logic                          fin_valid_o;
  logic [FIN_W-1:0]              fin_o;
  logic [2:0]                    mv_busy_o;
  logic [`HCA_SQ_PREFETCH_READS:0] rd_busy_o;

  hca_req_send #(.QW(QW), .PFN(2)) dut (.*);

  // taps (formal.mk connects them): the mover's start and busy, and the
  // SGE list and count it reads
  logic              t_mv_start, t_ctx_reset;
  logic [SGES_W-1:0] t_sges;
  logic [2:0]        t_nsge;
  // ...and the state the invariants name: the engine's and its mover's
  // state, the pending packet's flag and slot, the gathering slot, the
  // per-slot answer counters
  logic [3:0]        t_state;
  logic [2:0]        t_mvst;
  logic              t_pv, t_pslot, t_slot, t_mvchk;
  logic [3:0]        t_cnt0, t_cnt1;
  logic              t_berr0, t_berr1;
  // ...and the WQE prefetch's: its read slots' busy bits, the prefetch
  // waiting to issue, its offer not taken, its slot
  logic [7:0]        t_rdout;
  logic              t_pfreq, t_pfheld;
  logic [2:0]        t_pfslot;

  // hca_req_send's and hca_sge_mover's state encodings
  localparam logic [3:0] S_IDLE = 4'd0, S_FWAIT = 4'd3, S_CHECK = 4'd5, S_ALLOC = 4'd6, S_GATHER = 4'd7,
                         S_FREE = 4'd9, S_HOLD = 4'd12, S_TXWAIT = 4'd13, S_ABORT = 4'd14;
  localparam logic [2:0] M_IDLE = 3'd0, M_DMA = 3'd4;
  // the mover's busy_o (merged away by Yosys' opt before the taps connect)
  logic t_mv_busy;
  assign t_mv_busy = t_mvst != M_IDLE;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // Translation requests unfinished; DMAs unanswered: the WQE fetch (tag
  // 0), the prefetch per read slot (tag {0000_1, slot}) and the posted
  // gathers per slot (tag {0001, slot, seq}).
  logic [3:0] xo_q, pout_q [2];
  logic [7:0] pfo_q;
  logic       fout_q;
  logic       xs_fire, req_post, req_slot, rsp_post, rsp_slot, req_fire, req_pf, rsp_pf;
  logic [2:0] req_ent, rsp_ent;
  assign xs_fire  = xs_valid_i && xs_ready_o;
  assign req_post = dma_req_o[`HCA_DMA_REQ_TAG_LSB + 4];
  assign req_slot = dma_req_o[`HCA_DMA_REQ_TAG_LSB + 3];
  assign req_pf   = !req_post && dma_req_o[`HCA_DMA_REQ_TAG_LSB + 3];
  assign req_ent  = dma_req_o[`HCA_DMA_REQ_TAG_LSB +: 3];
  assign rsp_post = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 4];
  assign rsp_slot = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 3];
  assign rsp_pf   = !rsp_post && dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 3];
  assign rsp_ent  = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB +: 3];
  assign req_fire = dma_req_valid_o && dma_req_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      xo_q      <= '0;
      fout_q    <= 1'b0;
      pfo_q     <= '0;
      pout_q[0] <= '0;
      pout_q[1] <= '0;
    end else begin
      xo_q   <= xo_q + 4'(xq_valid_o && xq_ready_i) - 4'(xs_fire && xs_last_i);
      fout_q <= (fout_q || (req_fire && !req_post && !req_pf)) &&
                !(dma_rsp_valid_i && !rsp_post && !rsp_pf);
      // (a second read of a slot while one is out would be lost here:
      // inv_pfout shows there is none)
      pfo_q  <= (pfo_q | ((req_fire && req_pf) ? 8'(1) << req_ent : 8'(0))) &
                ~((dma_rsp_valid_i && rsp_pf) ? 8'(1) << rsp_ent : 8'(0));
      for (int i = 0; i < 2; i++) begin
        pout_q[i] <= pout_q[i] + 4'(req_fire && req_post && req_slot == 1'(i)) -
                     4'(dma_rsp_valid_i && rsp_post && rsp_slot == 1'(i));
      end
    end
  end

  // Last cycle's offers and taps.
  logic                           xs_held_q, tx_held_q, fin_held_q, evt_held_q, dma_held_q, mv_busy_q;
  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_q;
  logic                           xs_last_q;
  logic [31:0]                    xs_len_q;
  logic [63:0]                    xs_pa_q;
  logic [`HCA_PKT_W-1:0]          tx_q;
  logic [FIN_W-1:0]               fin_q;
  logic [`HCA_FW_EVENT_W-1:0]     evt_q;
  logic [`HCA_DMA_REQ_W-1:0]      dma_q;
  logic [SGES_W-1:0]              sges_q;
  logic [2:0]                     nsge_q;
  always_ff @(posedge clk_i) begin
    xs_held_q   <= rst_ni && xs_valid_i && !xs_ready_o;
    tx_held_q   <= rst_ni && tx_valid_o && !tx_ready_i;
    fin_held_q  <= rst_ni && fin_valid_o && !fin_ready_i;
    evt_held_q  <= rst_ni && evt_valid_o && !evt_ready_i;
    dma_held_q  <= rst_ni && dma_req_valid_o && !dma_req_ready_i;
    mv_busy_q   <= rst_ni && (t_mv_busy || t_mv_start);
    xs_status_q <= xs_status_i;
    xs_last_q   <= xs_last_i;
    xs_len_q    <= xs_len_i;
    xs_pa_q     <= xs_pa_i;
    tx_q        <= tx_o;
    fin_q       <= fin_o;
    evt_q       <= evt_o;
    dma_q       <= dma_req_o;
    sges_q      <= t_sges;
    nsge_q      <= t_nsge;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    assume (!xs_valid_i || xo_q != '0);
    if (xs_held_q) begin
      assume (xs_valid_i && xs_status_i == xs_status_q && xs_last_i == xs_last_q &&
              xs_len_i == xs_len_q && xs_pa_i == xs_pa_q);
    end
    assume (!dma_rsp_valid_i || (rsp_post ? pout_q[rsp_slot] != '0 : rsp_pf ? pfo_q[rsp_ent] : fout_q));
  end

  // The QP handed over by the scheduler, owned until released.
  logic own_q;
  always_ff @(posedge clk_i) begin
    own_q <= rst_ni && (own_q || (sched_valid_i && sched_ready_o)) && !rel_valid_o;
  end

  // S_ALLOC, S_GATHER, S_HOLD: a chunk is being allocated or gathered
  logic gathering;
  assign gathering = t_state == S_ALLOC || t_state == S_GATHER || t_state == S_HOLD;

  always_comb begin
    if (!init_q) begin
      mover_owner: assert ((!t_mv_start || !t_mv_busy) &&
                           (!(mv_busy_q && t_mv_busy) || (t_sges == sges_q && t_nsge == nsge_q)));
      tx_held:     assert (!tx_held_q || t_ctx_reset || nak_i || t_state == S_ABORT ||
                           (tx_valid_o && tx_o == tx_q));
      fin_held:    assert (!fin_held_q || t_ctx_reset || (fin_valid_o && fin_o == fin_q));
      evt_held:    assert (!evt_held_q || t_ctx_reset || (evt_valid_o && evt_o == evt_q));
      dma_held:    assert (!dma_held_q || t_ctx_reset || (dma_req_valid_o && dma_req_o == dma_q));
      sched_idle:  assert (!sched_ready_o || !own_q);
      rel_owned:   assert (!rel_valid_o || own_q);
      rel_kind:    assert (!rel_inflight_o || rel_valid_o);
      // invariants (induction)
      inv_own:     assert (own_q == (t_state != S_IDLE));
      // the packet waiting in S_TXWAIT is the message's last: the chunk
      // before it left with every DMA of its slot answered, none err
      inv_berr:    assert (t_state != S_TXWAIT || !(t_pslot ? t_berr0 : t_berr1));
      inv_mover:   assert (t_mvst == M_IDLE || t_state == S_CHECK || t_state == S_GATHER);
      inv_beat:    assert (t_mvst != M_DMA || xs_held_q);
      inv_pend:    assert (!t_pv || gathering || t_state == S_TXWAIT || t_state == S_ABORT || t_state == S_FREE);
      inv_pslot:   assert (!t_pv || !gathering || t_slot != t_pslot);
      inv_count:   assert (t_cnt0 == pout_q[0] && t_cnt1 == pout_q[1]);
      inv_check:   assert ((t_mvst == M_IDLE || (t_state == S_CHECK) == t_mvchk) && (t_mvst != M_DMA || !t_mvchk));
      inv_quiet:   assert (gathering || t_state == S_TXWAIT || t_state == S_ABORT ||
                           (t_cnt0 == '0 && t_cnt1 == '0));
      inv_other:   assert (!((gathering && !t_pv) || t_state == S_TXWAIT) ||
                           (t_slot ? t_cnt0 : t_cnt1) == '0);
      inv_txwait:  assert (t_state != S_TXWAIT || (t_pv && t_slot == t_pslot));
      inv_fetch:   assert (fout_q == (t_state == S_FWAIT));
      // a read slot busy: its read is out, or it is the prefetch to issue
      // (never both); an offer not taken is the prefetch's
      inv_pfpend:  assert (t_rdout == (pfo_q | (t_pfreq ? 8'(1) << t_pfslot : 8'(0))));
      inv_pfout:   assert (!t_pfreq || !pfo_q[t_pfslot]);
      inv_pfheld:  assert (!t_pfheld || (t_pfreq && dma_held_q && dma_q[`HCA_DMA_REQ_TAG_LSB +: 8] == {5'b00001, t_pfslot}));
    end
  end

  logic unused;
  assign unused = ^{rel_evt_o, rel_rnr_o, qpn_o, rnr_timer_o,
                    park_o, alloc_ready_o, free_valid_o, free_id_o, xq_o, mv_busy_o, rd_busy_o};

endmodule
