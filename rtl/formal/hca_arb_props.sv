`default_nettype none

// hca_arb_props — valid/ready properties of the round-robin arbiter every
// stream merge of the device is built from (hca_xarb's translation
// requests, hca_core's DMA, TX, completion and packet-buffer-free arbiters,
// hca_evt's producers), `make formal`, by induction. hca_arb as it is (N
// inputs, W-bit beats); assumed of the inputs, the protocol every stream of
// the device keeps: a beat offered and not taken is offered again,
// unchanged. The output's ready is free.
//
//   out_held        a beat offered at the output and not taken is offered
//                   again the next cycle, same payload, same input id,
//                   whatever the other inputs do
//   out_only_if_in  the output offers a beat only while the input it names
//                   offers it: same payload (no beat without a request)
//   grant_one       at most one input handshakes per cycle, and only
//                   together with the output's handshake of its beat
//                   (nothing taken from an input is lost or duplicated)
//
// HCA_MUTANT_ARB_NO_HOLD (the grant re-searched each cycle, not held while
// the output is stalled) breaks out_held.
module hca_arb_props #(
  parameter int N = 3,
  parameter int W = 4
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic [N-1:0]   in_valid_i,
  input  logic [N*W-1:0] in_data_i,
  input  logic           out_ready_i
);

  localparam int IDW = (N > 1) ? $clog2(N) : 1;

  logic [N-1:0]   in_ready;
  logic           out_valid;
  logic [W-1:0]   out_data;
  logic [IDW-1:0] out_id;

  hca_arb #(.N(N), .W(W)) dut (
    .clk_i, .rst_ni, .in_valid_i, .in_ready_o(in_ready), .in_data_i,
    .out_valid_o(out_valid), .out_ready_i, .out_data_o(out_data), .out_id_o(out_id)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // Last cycle's offers: the inputs' and the output's.
  logic [N-1:0]   in_held_q;
  logic [N*W-1:0] in_data_q;
  logic           out_held_q;
  logic [W-1:0]   out_data_q;
  logic [IDW-1:0] out_id_q;
  always_ff @(posedge clk_i) begin
    in_held_q  <= rst_ni ? (in_valid_i & ~in_ready) : '0;
    in_data_q  <= in_data_i;
    out_held_q <= rst_ni && out_valid && !out_ready_i;
    out_data_q <= out_data;
    out_id_q   <= out_id;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    for (int i = 0; i < N; i++) begin
      if (in_held_q[i]) begin
        assume (in_valid_i[i] && in_data_i[i*W +: W] == in_data_q[i*W +: W]);
      end
    end
  end

  logic [N-1:0] in_take;
  assign in_take = in_valid_i & in_ready;

  always_comb begin
    if (!init_q) begin
      out_held:       assert (!out_held_q || (out_valid && out_data == out_data_q && out_id == out_id_q));
      out_only_if_in: assert (!out_valid || (in_valid_i[out_id] && out_data == in_data_i[out_id*W +: W]));
      grant_one:      assert ((in_take & (in_take - N'(1))) == '0 &&
                              (in_take != '0) == (out_valid && out_ready_i) &&
                              (in_take == '0 || in_take[out_id]));
    end
  end

endmodule
