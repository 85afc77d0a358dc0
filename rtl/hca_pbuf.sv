`default_nettype none
`include "hca_abi.svh"

// hca_pbuf — packet buffer ids: which of the PKT_BUFS buffers (owned by the
// C harness) hold data in flight. The sender of a SEND/WRITE/READ_RESP
// packet allocates one; the receiver frees it after placing the payload (or
// dropping the packet).
//
// Alloc ports are offers: alloc_valid_o says an id is free for that client,
// alloc_id_o names it, and the client takes it with alloc_ready_i. The two
// clients are offered different ids in the same cycle, so they can both take
// one at once: the responder the highest free id, the requester the lowest.
// The requester is offered an id only while more than RESP_RSV are free:
// the responder's READ_RESPs are generated while it holds the link's receive
// side, so SEND/WRITE chunks must never be able to take the last buffers it
// needs (and RESP_RSV >= 1 is also what keeps the two offers apart). An
// offer may change or vanish before it is taken (a free lowers the lowest,
// the other client takes the last); clients sample the id at the handshake.
//
// Free ports are always ready. Freeing an id that is not allocated is a
// design error; it is ignored.
module hca_pbuf #(
  parameter int PKT_BUFS = `HCA_PKT_BUFS,
  parameter int RESP_RSV = 4   // buffers only the responder can take
) (
  input  logic       clk_i,
  input  logic       rst_ni,

  // requester (client 0) and responder (client 1)
  output logic       req_alloc_valid_o,
  input  logic       req_alloc_ready_i,
  output logic [7:0] req_alloc_id_o,
  input  logic       req_free_valid_i,
  output logic       req_free_ready_o,
  input  logic [7:0] req_free_id_i,

  output logic       rsp_alloc_valid_o,
  input  logic       rsp_alloc_ready_i,
  output logic [7:0] rsp_alloc_id_o,
  input  logic       rsp_free_valid_i,
  output logic       rsp_free_ready_o,
  input  logic [7:0] rsp_free_id_i,

  output logic [8:0] free_count_o      // for waves and benches
);

  generate if (PKT_BUFS < 2 || PKT_BUFS > 256 || RESP_RSV < 1 || RESP_RSV >= PKT_BUFS)
  begin : g_bad_params
`ifdef __ICARUS__
    initial $fatal(1, "hca_pbuf: PKT_BUFS=%0d must be in [2, 256], RESP_RSV=%0d in [1, PKT_BUFS)",
                   PKT_BUFS, RESP_RSV);
`else
    $error("hca_pbuf: PKT_BUFS must be in [2, 256], RESP_RSV in [1, PKT_BUFS)");
`endif
  end endgenerate

  logic [PKT_BUFS-1:0] free_q, free_d;   // bit i: buffer i is free
  logic [8:0]          count;
  logic [7:0]          lo_id, hi_id;
  logic                any_free;

  // The lowest and the highest free id without a loop over the buffers
  // (Verilator evaluates this every cycle): the lowest set bit of the bitmap
  // and of its reverse, isolated as x & -x and encoded by OR-reducing it
  // under one constant mask per id bit (as hca_arb). Its helpers stay out
  // of the waves (which show the ids, as before).
  // verilator tracing_off
  function automatic logic [PKT_BUFS-1:0] id_bit_mask(input int b, input logic rev);
    logic [PKT_BUFS-1:0] m;
    for (int p = 0; p < PKT_BUFS; p++) begin
      m[p] = (((rev ? PKT_BUFS - 1 - p : p) >> b) & 1) != 0;
    end
    id_bit_mask = m;
  endfunction

  logic [PKT_BUFS-1:0] free_rev, lo_bit, hi_bit_rev;
  for (genvar p = 0; p < PKT_BUFS; p++) begin : g_rev
    assign free_rev[p] = free_q[PKT_BUFS-1-p];
  end
  assign lo_bit     = free_q & (~free_q + PKT_BUFS'(1));
  assign hi_bit_rev = free_rev & (~free_rev + PKT_BUFS'(1));
  for (genvar b = 0; b < 8; b++) begin : g_enc
    localparam logic [PKT_BUFS-1:0] LO_MASK = id_bit_mask(b, 1'b0);
    localparam logic [PKT_BUFS-1:0] HI_MASK = id_bit_mask(b, 1'b1);
    assign lo_id[b] = (lo_bit & LO_MASK) != '0;
    assign hi_id[b] = (hi_bit_rev & HI_MASK) != '0;
  end
  // verilator tracing_on
  assign any_free = free_q != '0;
  assign count    = 9'($countones(free_q));

  assign rsp_alloc_valid_o = any_free;
  assign rsp_alloc_id_o    = hi_id;
`ifndef HCA_MUTANT_PBUF_NO_RESERVE
  assign req_alloc_valid_o = count > 9'(RESP_RSV);
`else  // formal mutant (rtl/formal/hca_pbuf_props.sv): no buffers kept for the responder
  assign req_alloc_valid_o = any_free;
`endif
  assign req_alloc_id_o    = lo_id;
  assign req_free_ready_o  = 1'b1;
  assign rsp_free_ready_o  = 1'b1;
  assign free_count_o      = count;

  logic req_take, rsp_take;
  assign req_take = req_alloc_valid_o && req_alloc_ready_i;
  assign rsp_take = rsp_alloc_valid_o && rsp_alloc_ready_i;

  // Taken ids cleared, freed ones set (a free wins); an id out of range
  // shifts out and is ignored.
  assign free_d = (free_q & ~((req_take ? PKT_BUFS'(1) << lo_id : '0) |
                              (rsp_take ? PKT_BUFS'(1) << hi_id : '0))) |
                  (req_free_valid_i ? PKT_BUFS'(1) << req_free_id_i : '0) |
                  (rsp_free_valid_i ? PKT_BUFS'(1) << rsp_free_id_i : '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      free_q <= '1;
    end else begin
      free_q <= free_d;
    end
  end

endmodule
