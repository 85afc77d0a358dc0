`default_nettype none

// hca_arb — round-robin arbiter of N single-beat valid/ready streams onto
// one (the xlate, DMA, TX, completion and packet-buffer-free arbiters of
// hca_core and hca_requester are all instances of it).
//
// The grant is combinational: a lone requester passes in the cycle it asks,
// with no bubble. Once a beat is offered and not taken (out_valid_o &&
// !out_ready_i) the grant is held until it is taken, so the output beat
// stays still while stalled whatever the other inputs do (inputs must keep
// valid and data while not ready, as every valid/ready stream here does).
// After a handshake the search for the next grant starts after the winner.
module hca_arb #(
  parameter int N = 2,   // inputs
  parameter int W = 8    // beat width
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,

  input  logic [N-1:0]                      in_valid_i,
  output logic [N-1:0]                      in_ready_o,
  input  logic [N*W-1:0]                    in_data_i,   // input i at [i*W +: W]

  output logic                              out_valid_o,
  input  logic                              out_ready_i,
  output logic [W-1:0]                      out_data_o,
  output logic [(N > 1 ? $clog2(N) : 1)-1:0] out_id_o,   // the granted input
  output logic                              hold_o      // the grant is held (hca_core quiet_o)
);

  localparam int IDW = (N > 1) ? $clog2(N) : 1;

  generate if (N < 1 || W < 1) begin : g_bad_params
`ifdef __ICARUS__
    initial $fatal(1, "hca_arb: N=%0d and W=%0d must be at least 1", N, W);
`else
    $error("hca_arb: N and W must be at least 1");
`endif
  end endgenerate

  logic [IDW-1:0] last_q, last_d;   // the input granted last
  logic           hold_q, hold_d;   // a beat was offered and not taken
  logic [IDW-1:0] hold_id_q;
  logic [IDW-1:0] pick;
  logic           found;

  // First valid input after `last`, wrapping around, without a loop over
  // the inputs (Verilator evaluates this every cycle, and an instance may
  // be wide): the lowest valid input above `last` if
  // any, else the lowest valid one; the lowest set bit isolated as x & -x
  // and encoded by OR-reducing it under one constant mask per index bit.
  function automatic logic [N-1:0] index_bit_mask(input int b);
    logic [N-1:0] m;
    for (int i = 0; i < N; i++) begin
      m[i] = ((i >> b) & 1) != 0;
    end
    index_bit_mask = m;
  endfunction

  logic [N-1:0]   above, sel, lowest;
  logic [IDW-1:0] pick_rr;
  logic           found_rr;
  // Inputs above last_q: ones shifted past it (last_q < N, so this fits).
  assign above    = in_valid_i & ~((N'(2) << last_q) - N'(1));
  assign sel      = above != '0 ? above : in_valid_i;
  assign lowest   = sel & (~sel + N'(1));
  assign found_rr = in_valid_i != '0;
  // (The masks as parameters: folded at elaboration, not looped over the
  // inputs at every evaluation when N is too wide for Verilator to unroll.)
  for (genvar b = 0; b < IDW; b++) begin : g_enc
    localparam logic [N-1:0] MASK = index_bit_mask(b);
    assign pick_rr[b] = N > 1 && (lowest & MASK) != '0;
  end
`ifndef HCA_MUTANT_ARB_NO_HOLD
  assign pick  = hold_q ? hold_id_q : pick_rr;
`else  // formal mutant (rtl/formal/hca_arb_props.sv): the grant not held while stalled
  assign pick  = pick_rr;
`endif
  assign found = hold_q || found_rr;

  // Separate assignments (not one always_comb): out_valid_o must not share
  // a process with in_ready_o, or Verilator sees the ready->valid path of
  // nested arbiters as a loop.
  assign out_valid_o = found && in_valid_i[pick];
  assign out_data_o  = in_data_i[pick * W +: W];
  assign out_id_o    = pick;
  assign hold_d      = out_valid_o && !out_ready_i;
  assign last_d      = (out_valid_o && out_ready_i) ? pick : last_q;

  always_comb begin
    in_ready_o = '0;
    in_ready_o[pick] = found && out_ready_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q    <= IDW'(N - 1);
      hold_q    <= 1'b0;
      hold_id_q <= '0;
    end else begin
      last_q    <= last_d;
      hold_q    <= hold_d;
      // read only while hold_q: kept still otherwise, so an idle arbiter's
      // state does not move (hca_core quiet_o)
      if (hold_d) begin
        hold_id_q <= pick;
      end
    end
  end

  assign hold_o = hold_q;

endmodule
