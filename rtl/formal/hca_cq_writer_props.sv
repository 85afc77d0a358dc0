`default_nettype none
`include "hca_abi.svh"

// hca_cq_writer_props — the CQ writer's three boundaries (`make formal`, by
// induction): hca_cq_writer as it is; assumed of its inputs, the protocol
// of each: a completion offered and not taken is offered again unchanged;
// the DMA block answers only a write it accepted and not yet answered, in
// any order (named by the answer's tag); the CQ context port answers
// anything (any context, indices, range flag). The property module follows
// the writer's front (phase: a completion taken, its CQ looked at, its write
// offered) and the set of writes out by tag.
//
//   cpl_one       a completion is taken only while the writer's front holds
//                 none (no completion overwritten), a write slot is free and
//                 no DRAIN waits for the writer (hold_i: any input)
//   look_once     the CQ's producer index advances (cq_pi_inc_o) or its
//                 overflow flag is set only in the cycle the taken
//                 completion's CQ is looked at, never both
//   dma_req_held  a DMA write offered and not accepted is offered again,
//                 unchanged
//   dma_only_cqe  a DMA write is offered only for a taken completion whose
//                 CQ's producer index advanced, and it is a 32-byte
//                 WRITE_DATA carrying that CQE (all but the owner bit, which
//                 the writer sets) with a writer's tag (8'b1000_00ii) not out
//                 (no tag reused while its write is unanswered)
//   dma_out       an answer is taken only while a write is out
//   drain_busy    busy_o (the ctx DRAIN source) exactly while a completion
//                 is in the front or a write is out: DRAIN waits for every
//                 CQE write, and the writer idles when it holds nothing
//   tracks        the invariant the induction rests on: the writer's state,
//                 held CQE and slots out (taps) are the phase, CQE and set
//                 followed here, and the next slot is free while the front
//                 holds a completion
//
// HCA_MUTANT_CQW_NO_READY (the write counted as accepted without the DMA
// block's ready) breaks dma_req_held; HCA_MUTANT_DRAIN_NO_CQE_WRITE (busy_o
// tied low) breaks drain_busy.
module hca_cq_writer_props (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic                      cpl_valid_i,
  input  logic [`HCA_CQE_W-1:0]     cpl_i,
  input  logic [15:0]               cpl_cqn_i,
  input  logic                      hold_i,
  input  logic [`HCA_CQ_CTX_W-1:0]  cq_cqc_i,
  input  logic                      cq_inrange_i,
  input  logic [15:0]               cq_pi_i,
  input  logic [15:0]               cq_ci_i,
  input  logic                      dma_req_ready_i,
  input  logic                      dma_rsp_valid_i,
  input  logic [`HCA_DMA_RSP_W-1:0] dma_rsp_i
);

  logic                      cpl_ready, pi_inc, ovf_set, req_valid, rsp_ready, busy, quiet;
  logic [15:0]               cqn;
  logic [`HCA_DMA_REQ_W-1:0] req;

  hca_cq_writer dut (
    .clk_i, .rst_ni, .cpl_valid_i, .cpl_ready_o(cpl_ready), .cpl_i, .cpl_cqn_i, .hold_i,
    .cq_cqn_o(cqn), .cq_cqc_i, .cq_inrange_i, .cq_pi_i, .cq_ci_i,
    .cq_pi_inc_o(pi_inc), .cq_ovf_set_o(ovf_set),
    .dma_req_valid_o(req_valid), .dma_req_ready_i, .dma_req_o(req),
    .dma_rsp_valid_i, .dma_rsp_ready_o(rsp_ready), .dma_rsp_i,
    .busy_o(busy), .quiet_o(quiet)
  );

  // taps (formal.mk connects them): the writer's state, held CQE, slots out
  // and next slot
  logic [1:0]            t_state;
  logic [`HCA_CQE_W-1:0] t_cqe;
  logic [3:0]            t_out;
  logic [1:0]            t_nxt;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  localparam logic [1:0] P_IDLE = 2'd0, P_LOOK = 2'd1, P_WRITE = 2'd2;
  logic [1:0]            ph_q;
  logic [`HCA_CQE_W-1:0] cqe_q;
  logic [3:0]            out_q, out_d;      // the writer's tags (slot = tag[1:0]) out
  logic                  cpl_take, req_take, rsp_take;
  logic [1:0]            req_slot, rsp_slot;
  assign cpl_take = cpl_valid_i && cpl_ready;
  assign req_take = req_valid && dma_req_ready_i;
  assign rsp_take = dma_rsp_valid_i && rsp_ready;
  assign req_slot = req[`HCA_DMA_REQ_TAG_LSB +: 2];
  assign rsp_slot = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB +: 2];
  always_comb begin
    out_d = out_q;
    if (rsp_take) begin
      out_d[rsp_slot] = 1'b0;
    end
    if (req_take) begin
      out_d[req_slot] = 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ph_q  <= P_IDLE;
      out_q <= '0;
    end else begin
      case (ph_q)
        P_IDLE:  ph_q <= cpl_take ? P_LOOK : P_IDLE;
        P_LOOK:  ph_q <= pi_inc ? P_WRITE : P_IDLE;
        default: ph_q <= req_take ? P_IDLE : P_WRITE;
      endcase
      out_q <= out_d;
    end
    if (cpl_take) begin
      cqe_q <= cpl_i;
    end
  end

  logic                      cpl_held_q, req_held_q;
  logic [`HCA_CQE_W-1:0]     cpl_q;
  logic [15:0]               cpl_cqn_q;
  logic [`HCA_DMA_REQ_W-1:0] req_q;
  always_ff @(posedge clk_i) begin
    cpl_held_q <= rst_ni && cpl_valid_i && !cpl_ready;
    cpl_q      <= cpl_i;
    cpl_cqn_q  <= cpl_cqn_i;
    req_held_q <= rst_ni && req_valid && !dma_req_ready_i;
    req_q      <= req;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    if (cpl_held_q) begin
      assume (cpl_valid_i && cpl_i == cpl_q && cpl_cqn_i == cpl_cqn_q);
    end
    // answers: one per write out, any order, its tag the write's
    assume (!dma_rsp_valid_i || (out_q[rsp_slot] && dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 2 +: 6] == 6'b1000_00));
  end

  // The CQE the write carries, owner bit aside.
  logic [`HCA_CQE_W-1:0] sent, mask;
  assign sent = req[`HCA_DMA_REQ_DATA_LSB +: `HCA_CQE_W];
  assign mask = ~(`HCA_CQE_W'(1) << `HCA_CQE_OWNER_LSB);

  always_comb begin
    if (!init_q) begin
      cpl_one:      assert (!cpl_ready || (ph_q == P_IDLE && out_q != 4'hf && !hold_i));
      look_once:    assert (!(pi_inc && ovf_set) && (!(pi_inc || ovf_set) || ph_q == P_LOOK));
      dma_req_held: assert (!req_held_q || (req_valid && req == req_q));
      dma_only_cqe: assert (!req_valid || (ph_q == P_WRITE &&
                            `HCA_DMA_REQ_OP(req) == `HCA_DMA_OP_WRITE_DATA &&
                            `HCA_DMA_REQ_LEN(req) == 32'(`HCA_CQE_W / 8) &&
                            req[`HCA_DMA_REQ_TAG_LSB + 2 +: 6] == 6'b1000_00 && !out_q[req_slot] &&
                            (sent & mask) == (cqe_q & mask)));
      dma_out:      assert (!rsp_ready || out_q != 4'h0);
      drain_busy:   assert (busy == (ph_q != P_IDLE || out_q != 4'h0));
      tracks:       assert (t_state == ph_q && (ph_q == P_IDLE || (t_cqe == cqe_q && !t_out[t_nxt])) &&
                            t_out == out_q && (ph_q != P_WRITE || req_slot == t_nxt));
    end
  end

  logic unused;
  assign unused = ^{cqn, quiet};

endmodule
