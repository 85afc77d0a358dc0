`default_nettype none

// xu_fifo_props — valid/ready properties of the translation unit's response
// port (`make formal`, bounded): xu_fifo is the unit's output buffer, its
// head drives rsp_* (xlate_unit), so these are the unit's response-side
// handshake. Every input free each cycle; the one assumption is the unit's
// credit rule (S3 writes a beat only into free room, xlate_unit
// wk_iss_ready).
//
//   out_held            a beat shown (out_valid_o) and not taken (out_ready_i
//                       low) is shown again in the next cycle, unchanged
//   out_only_if_in      a beat is shown exactly while beats written are more
//                       than beats taken: no response without a request
//   out_in_order        the beat shown is the oldest written and not taken
//                       (a shadow queue of what was written)
//
// HCA_MUTANT_FIFO_HEAD_NEWEST (the head read at the write side) breaks
// out_held.
module xu_fifo_props #(
  parameter int WIDTH = 4,
  parameter int DEPTH = 4
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  input  logic [WIDTH-1:0] in_data_i,
  input  logic             out_ready_i
);

  localparam int LW = $clog2(DEPTH + 1);
  localparam int PW = $clog2(DEPTH);

  logic             out_valid;
  logic [WIDTH-1:0] out_data;
  logic [LW-1:0]    level;

  xu_fifo #(.WIDTH(WIDTH), .DEPTH(DEPTH)) dut (
    .clk_i, .rst_ni, .in_valid_i, .in_data_i,
    .out_valid_o(out_valid), .out_ready_i, .out_data_o(out_data), .level_o(level)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end
  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    // the writer's credit rule
    assume (!in_valid_i || level != LW'(DEPTH));
  end

  // A shadow queue: what was written and not yet taken, oldest at sh_rd.
  logic [WIDTH-1:0] sh_q [DEPTH];
  logic [PW-1:0]    sh_wr, sh_rd;
  logic [LW-1:0]    sh_n;
  logic             take;
  assign take = out_valid && out_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      sh_wr <= '0;
      sh_rd <= '0;
      sh_n  <= '0;
    end else begin
      if (in_valid_i) begin
        sh_q[sh_wr] <= in_data_i;
        sh_wr       <= sh_wr + PW'(1);
      end
      if (take) begin
        sh_rd <= sh_rd + PW'(1);
      end
      sh_n <= sh_n + LW'(in_valid_i) - LW'(take);
    end
  end

  logic             held_q;
  logic [WIDTH-1:0] data_q;
  always_ff @(posedge clk_i) begin
    held_q <= rst_ni && out_valid && !out_ready_i;
    data_q <= out_data;
  end

  always_comb begin
    if (!init_q) begin
      out_held:       assert (!held_q || (out_valid && out_data == data_q));
      out_only_if_in: assert (out_valid == (sh_n != '0));
      out_in_order:   assert (!out_valid || out_data == sh_q[sh_rd]);
    end
  end

endmodule
