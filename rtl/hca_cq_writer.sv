`default_nettype none
`include "hca_abi.svh"

// hca_cq_writer — writes completions into CQ rings in host memory
// (docs/engine.md "CQ writer").
//
// One CQE at a time through the front (accept a completion, read its CQ's
// context one cycle, then drop it — CQ number beyond the table or CQ not
// valid; or the ring is full: the overflow flag is set — or offer one
// WRITE_DATA of 32 bytes to base + (cq_pi mod 2^log_depth) * 32 with
// owner = ((cq_pi >> log_depth) & 1) ^ 1), and up to NOUT writes out behind
// it, their answers awaited by tag: the next CQE is taken and written while
// earlier writes' answers are out, so a completion waits for the writer's
// front (3 cycles a CQE), not for a host write's round trip. Writes leave
// in production order and the DMA block serves a direction's requests in
// arrival order (docs/engine.md "The C side"), so CQEs reach host memory in
// the order they were produced. cq_pi advances when the write is built.
// Full: cq_pi - cq_ci == 2^log_depth (free-running 16-bit indices).
module hca_cq_writer (
  input  logic                       clk_i,
  input  logic                       rst_ni,

  // completions: a CQE (owner bit ignored) for CQ cpl_cqn_i
  input  logic                       cpl_valid_i,
  output logic                       cpl_ready_o,
  input  logic [`HCA_CQE_W-1:0]      cpl_i,
  input  logic [15:0]                cpl_cqn_i,
  input  logic                       hold_i,          // a ctx DRAIN waits for this writer: take no completion

  // CQ context read port of hca_ctx (answers one cycle after cq_cqn_o)
  output logic [15:0]                cq_cqn_o,
  input  logic [`HCA_CQ_CTX_W-1:0]   cq_cqc_i,
  input  logic                       cq_inrange_i,
  input  logic [15:0]                cq_pi_i,
  input  logic [15:0]                cq_ci_i,
  output logic                       cq_pi_inc_o,
  output logic                       cq_ovf_set_o,

  // DMA client (tags 8'b1000_00ii: i = the write's slot)
  output logic                       dma_req_valid_o,
  input  logic                       dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]  dma_req_o,
  input  logic                       dma_rsp_valid_i,
  output logic                       dma_rsp_ready_o,
  input  logic [`HCA_DMA_RSP_W-1:0]  dma_rsp_i,
  output logic                       busy_o,          // a completion taken or a CQE write not answered (ctx DRAIN)
  output logic                          quiet_o          // nothing changes while the inputs stay idle (hca_core quiet_o)
);

  localparam logic [7:0] TAG  = 8'b1000_0000;
  localparam int         NOUT = 4;   // CQE writes out at once: one a slot, the slot in the tag

  typedef enum logic [1:0] {
    ST_IDLE,   // waiting for a completion (and a free slot)
    ST_LOOK,   // the CQ context is on the read port: drop or write
    ST_WRITE   // WRITE_DATA offered to the DMA arbiter
  } state_e;

  state_e                  state_q, state_d;
  logic [`HCA_CQE_W-1:0]   cqe_q;
  logic [15:0]             cqn_q;
  logic [`HCA_DMA_REQ_W-1:0] req_q, req_d;
  // Slots: out_q[i] while the write tagged TAG | i is unanswered; the next
  // write takes slot nxt_q (in turn: with answers in order it is the oldest
  // freed), so a tag is never reused while out.
  logic [NOUT-1:0]         out_q, out_d;
  logic [1:0]              nxt_q;
  logic [1:0]              rsp_slot;
  logic                    issue;
  // A completion is taken only with a slot for its write, and not while a
  // DRAIN waits for the writer: it then idles once its writes out are
  // answered, so a DRAIN ends with the CQE writes pending at its command
  // however long the completions behind them go on.
  logic                    take_ok;
  assign take_ok = !out_q[nxt_q] && !hold_i;

  logic [4:0]  log_depth;
  logic [63:0] base;
  logic [16:0] used, depth;
  logic [15:0] mask, slot;
  logic        owner, full, cq_ok;

  assign log_depth = `HCA_CQ_CTX_LOG_DEPTH(cq_cqc_i);
  assign base      = `HCA_CQ_CTX_BASE(cq_cqc_i);
  assign cq_ok     = cq_inrange_i && `HCA_CQ_CTX_CQ_VALID(cq_cqc_i);
  assign used      = {1'b0, cq_pi_i - cq_ci_i};
  assign depth     = (log_depth > 5'd16) ? 17'h10000 : (17'd1 << log_depth);
  assign full      = used >= depth;
  assign mask      = 16'(depth - 17'd1);
  assign slot      = cq_pi_i & mask;
  assign owner     = (log_depth > 5'd15) ? 1'b1 : !cq_pi_i[log_depth[3:0]];

  // the CQE's QP: protcheck's I6 fences CQE writes with the QP's destroy
  // (a wire: Icarus takes no constant select of cqe_q inside always_comb)
  logic [31:0] cqe_qpn;
  assign cqe_qpn = `HCA_CQE_QPN(cqe_q);

  // The rest of the CQ context (rsvd word, other cfg bits) plays no part;
  // of an answer only its slot (a bus error on a CQE write has no one to
  // tell: the answer only frees the slot).
  logic unused_cqc;
  assign unused_cqc = ^{cq_cqc_i[`HCA_CQ_CTX_W-1:`HCA_CQ_CTX_CQ_VALID_LSB + 1],
                        cq_cqc_i[`HCA_CQ_CTX_CQ_VALID_LSB-1:`HCA_CQ_CTX_LOG_DEPTH_LSB + 5],
                        dma_rsp_i[`HCA_DMA_RSP_W-1:`HCA_DMA_RSP_RTAG_LSB + 2]};
  assign rsp_slot = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB +: 2];

  always_comb begin
    state_d      = state_q;
    req_d        = req_q;
    cpl_ready_o  = 1'b0;
    cq_pi_inc_o  = 1'b0;
    cq_ovf_set_o = 1'b0;
    cq_cqn_o     = cqn_q;
    issue        = 1'b0;
    case (state_q)
      ST_IDLE: begin
        cpl_ready_o = take_ok;
        cq_cqn_o    = cpl_cqn_i;
        if (cpl_valid_i && take_ok) begin
          state_d = ST_LOOK;
        end
      end
      ST_LOOK: begin
        state_d = ST_IDLE;
        if (cq_ok && full) begin
          cq_ovf_set_o = 1'b1;
        end else if (cq_ok) begin
          cq_pi_inc_o = 1'b1;
          req_d = '0;
          `HCA_DMA_REQ_OP(req_d)   = `HCA_DMA_OP_WRITE_DATA;
          `HCA_DMA_REQ_TAG(req_d)  = TAG | {6'd0, nxt_q};
          `HCA_DMA_REQ_LEN(req_d)  = 32'(`HCA_CQE_W / 8);
          `HCA_DMA_REQ_ADDR(req_d) = base + {43'd0, slot, 5'd0};
          `HCA_DMA_REQ_QPN(req_d)  = cqe_qpn;
          req_d[`HCA_DMA_REQ_DATA_LSB +: `HCA_CQE_W] = cqe_q;
          req_d[`HCA_DMA_REQ_DATA_LSB + `HCA_CQE_OWNER_LSB] = owner;
          state_d = ST_WRITE;
        end
      end
      ST_WRITE: begin
`ifndef HCA_MUTANT_CQW_NO_READY
        if (dma_req_ready_i) begin
`else   // formal mutant (rtl/formal/hca_cq_writer_props.sv): the write taken as accepted at once
        if (1'b1) begin
`endif
          issue   = 1'b1;
          state_d = ST_IDLE;
        end
      end
      default: state_d = ST_IDLE;
    endcase
  end

  // The issued write's slot is out from the cycle after its acceptance
  // until its answer; an answer frees the slot its tag names.
  always_comb begin
    out_d = out_q;
    if (dma_rsp_valid_i) begin
      out_d[rsp_slot] = 1'b0;
    end
    if (issue) begin
      out_d[nxt_q] = 1'b1;
    end
  end

  assign dma_req_valid_o = state_q == ST_WRITE;
  assign dma_req_o       = req_q;
  assign dma_rsp_ready_o = |out_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= ST_IDLE;
      cqn_q   <= '0;
      out_q   <= '0;
      nxt_q   <= '0;
    end else begin
      state_q <= state_d;
      out_q   <= out_d;
      if (issue) begin
        nxt_q <= nxt_q + 2'd1;
      end
      if (state_q == ST_IDLE && cpl_valid_i && take_ok) begin
        cqn_q <= cpl_cqn_i;
      end
    end
  end

  // Data: the completion and the request built from it.
  always_ff @(posedge clk_i) begin
    if (state_q == ST_IDLE && cpl_valid_i && take_ok) begin
      cqe_q <= cpl_i;
    end
    req_q <= req_d;
  end

  // ctx DRAIN source: from the cycle after a completion is taken until every
  // CQE write issued is answered (or the completion is dropped), so no CQE
  // write is out once a DESTROY_QP / DESTROY_CQ returned.
  // (HCA_MUTANT_DRAIN_NO_CQE_WRITE: DRAIN does not wait for it)
  assign busy_o = `ifndef HCA_MUTANT_DRAIN_NO_CQE_WRITE state_q != ST_IDLE || |out_q `else 1'b0 `endif;

  // The twin of hca_cq_writer_quiet_until: LOOK decides and WRITE offers on
  // their own; IDLE waits for an input (a completion or an answer).
  assign quiet_o = state_q == ST_IDLE;

endmodule
