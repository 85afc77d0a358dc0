`default_nettype none

// xu_fifo — the response buffer: a small synchronous FIFO whose head drives
// the response port straight from registers, so rsp data holds still until
// accepted and no output depends on rsp_ready_i combinationally.
//
// There is no in_ready: the writer counts credits (level_o plus beats it
// has in flight toward the FIFO) and writes only into free room. A write
// into a full FIFO is a design error and is dropped.
module xu_fifo #(
  parameter int WIDTH = 8,
  parameter int DEPTH = 4   // a power of two
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,

  input  logic                       in_valid_i,
  input  logic [WIDTH-1:0]           in_data_i,

  output logic                       out_valid_o,
  input  logic                       out_ready_i,
  output logic [WIDTH-1:0]           out_data_o,

  output logic [$clog2(DEPTH+1)-1:0] level_o
);

  localparam int PW = $clog2(DEPTH);
  localparam int LW = $clog2(DEPTH + 1);

  generate if (DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
`ifdef __ICARUS__
    initial $fatal(1, "xu_fifo: DEPTH=%0d must be a power of two >= 2", DEPTH);
`else
    $error("xu_fifo: DEPTH must be a power of two >= 2");
`endif
  end endgenerate

  logic [WIDTH-1:0] mem_q [DEPTH];
  logic [PW-1:0]    wptr_q, rptr_q;
  logic [LW-1:0]    level_q;
  logic             push, pop;

  assign out_valid_o = level_q != '0;
`ifndef HCA_MUTANT_FIFO_HEAD_NEWEST
  assign out_data_o  = mem_q[rptr_q];
`else  // formal mutant (rtl/formal/xu_fifo_props.sv): the head read at the write side
  assign out_data_o  = mem_q[wptr_q - PW'(1)];
`endif
  assign level_o     = level_q;
  assign pop         = out_valid_o && out_ready_i;
  assign push        = in_valid_i && (level_q != LW'(DEPTH) || pop);

  // Pointers and level: control, reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q  <= '0;
      rptr_q  <= '0;
      level_q <= '0;
    end else begin
      if (push) begin
        wptr_q <= wptr_q + PW'(1);
      end
      if (pop) begin
        rptr_q <= rptr_q + PW'(1);
      end
      if (push && !pop) begin
        level_q <= level_q + LW'(1);
      end else if (pop && !push) begin
        level_q <= level_q - LW'(1);
      end
    end
  end

  // Storage: data, not reset.
  always_ff @(posedge clk_i) begin
    if (push) begin
      mem_q[wptr_q] <= in_data_i;
    end
  end

endmodule
