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

  always_comb begin
    count    = '0;
    lo_id    = '0;
    hi_id    = '0;
    any_free = 1'b0;
    for (int i = PKT_BUFS - 1; i >= 0; i--) begin
      if (free_q[i]) begin
        lo_id = 8'(i);
      end
    end
    for (int i = 0; i < PKT_BUFS; i++) begin
      if (free_q[i]) begin
        hi_id    = 8'(i);
        any_free = 1'b1;
        count    = count + 9'd1;
      end
    end
  end

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

  always_comb begin
    free_d = free_q;
    for (int i = 0; i < PKT_BUFS; i++) begin
      if ((req_take && lo_id == 8'(i)) || (rsp_take && hi_id == 8'(i))) begin
        free_d[i] = 1'b0;
      end
      if ((req_free_valid_i && req_free_id_i == 8'(i)) ||
          (rsp_free_valid_i && rsp_free_id_i == 8'(i))) begin
        free_d[i] = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      free_q <= '1;
    end else begin
      free_q <= free_d;
    end
  end

endmodule
