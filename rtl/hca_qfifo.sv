`default_nettype none

// hca_qfifo — a FIFO of distinct numbers in [0, N) (QP numbers): the
// requester's scheduler, RNR and DONE queues. Each number is in the queue
// at most once, so N slots always
// suffice and a push never meets a full queue.
//
// Up to P pushes per cycle, taken in port order; a push is dropped when its
// number is in the queue already (and not the head popped in this cycle) or
// an earlier port pushes it in the same cycle. pop_i removes the head
// (ignored while empty); head_o is valid from the cycle after its push.
//
// Membership without a per-entry bit that would need a reset (a table-wide
// clear or a vector copy every cycle): slot_m holds the numbers in queue
// order, pos_m[v] the position v was pushed at (pointers one bit wider than
// a slot index); v is queued iff pos_m[v] lies in [rd, wr) and the slot
// there holds v. Neither memory is reset: a stale or random pos_m[v] fails
// one of the two tests (its slot was rewritten when the pointers moved past
// it), so the answer holds whatever they held. Per cycle: P membership
// tests and P writes by index, nothing over N.
module hca_qfifo #(
  parameter int N = 64,   // numbers [0, N): a power of two >= 2
  parameter int P = 1     // push ports
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic [P-1:0]               push_i,
  input  logic [P*$clog2(N)-1:0]     push_val_i,   // port k at [k*W +: W]
  output logic                       head_valid_o,
  output logic [$clog2(N)-1:0]       head_o,
  input  logic                       pop_i
);

  localparam int W = $clog2(N);

  generate if (N < 2 || (N & (N - 1)) != 0 || P < 1) begin : g_bad_params
`ifdef __ICARUS__
    initial $fatal(1, "hca_qfifo: N=%0d must be a power of two >= 2, P=%0d >= 1", N, P);
`else
    $error("hca_qfifo: N must be a power of two >= 2, P >= 1");
`endif
  end endgenerate

  logic [W-1:0] slot_m [N];   // the queued numbers, at pointer % N
  logic [W:0]   pos_m  [N];   // where each number was last pushed
  logic [W:0]   rd_q, wr_q;

  logic pop;
  assign head_valid_o = rd_q != wr_q;
  assign head_o       = slot_m[rd_q[W-1:0]];
  assign pop          = pop_i && head_valid_o;

  // Push k takes position at[k] (the pushes before it taken this cycle).
  function automatic logic [W:0] ones_below(input logic [P-1:0] t, input int k);
    ones_below = '0;
    for (int j = 0; j < P; j++) begin
      ones_below = ones_below + (W + 1)'(j < k && t[j]);
    end
  endfunction

  logic [P-1:0] take;
  logic [W-1:0] val [P];
  logic [W:0]   at  [P];
  for (genvar k = 0; k < P; k++) begin : g_push
    logic [W:0]   p;
    logic         inq;
    logic [P-1:0] same;   // an earlier port pushes the same number
    assign val[k] = push_val_i[k * W +: W];
    assign p      = pos_m[val[k]];
    assign inq    = (p - rd_q) < (wr_q - rd_q) && slot_m[p[W-1:0]] == val[k] &&
                    !(pop && head_o == val[k]);
    for (genvar j = 0; j < P; j++) begin : g_same
      if (j < k) begin : g_before
        assign same[j] = push_i[j] && val[j] == val[k];
      end else begin : g_after
        assign same[j] = 1'b0;
      end
    end
    assign take[k]  = push_i[k] && !inq && same == '0;
    assign at[k]    = wr_q + ones_below(take, k);
  end

  always_ff @(posedge clk_i) begin
    for (int k = 0; k < P; k++) begin
      if (take[k]) begin
        slot_m[at[k][W-1:0]] <= val[k];
        pos_m[val[k]]        <= at[k];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q <= '0;
      wr_q <= '0;
    end else begin
      rd_q <= rd_q + (W + 1)'(pop);
      wr_q <= wr_q + ones_below(take, P);
    end
  end

endmodule
