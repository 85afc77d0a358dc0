`default_nettype none

// hca_pbuf_props — the packet-buffer id allocator's two offer ports
// (`make formal`, by induction): hca_pbuf as it is (PKT_BUFS buffers,
// RESP_RSV of them the responder's), both clients' takes and frees free
// each cycle except that a client frees only a buffer it holds (freeing one
// that is not allocated is the design error the block ignores) and the two
// never free the same one in one cycle. The property module keeps who holds
// which buffer (held_q: taken at an offer's handshake, back at its free).
//
//   offer_free      an offered id names a buffer no client holds (no
//                   buffer given out twice)
//   offers_apart    the two clients are never offered the same id in one
//                   cycle (both may take at once)
//   req_reserve     the requester is offered a buffer only while more than
//                   RESP_RSV are free (the responder's READ_RESPs always
//                   find one); the responder whenever any is free
//   count_free      free_count_o is the number of buffers no client holds
//   tracks          the invariant the induction rests on: the block's free
//                   bitmap (a tap) is the complement of held_q
//
// HCA_MUTANT_PBUF_NO_RESERVE (the requester offered a buffer whenever any
// is free) breaks offers_apart.
module hca_pbuf_props #(
  parameter int PKT_BUFS = 4,
  parameter int RESP_RSV = 1
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       req_alloc_ready_i,
  input  logic       req_free_valid_i,
  input  logic [7:0] req_free_id_i,
  input  logic       rsp_alloc_ready_i,
  input  logic       rsp_free_valid_i,
  input  logic [7:0] rsp_free_id_i
);

  logic       req_valid, rsp_valid, req_free_ready, rsp_free_ready;
  logic [7:0] req_id, rsp_id;
  logic [8:0] free_count;

  hca_pbuf #(.PKT_BUFS(PKT_BUFS), .RESP_RSV(RESP_RSV)) dut (
    .clk_i, .rst_ni,
    .req_alloc_valid_o(req_valid), .req_alloc_ready_i, .req_alloc_id_o(req_id),
    .req_free_valid_i, .req_free_ready_o(req_free_ready), .req_free_id_i,
    .rsp_alloc_valid_o(rsp_valid), .rsp_alloc_ready_i, .rsp_alloc_id_o(rsp_id),
    .rsp_free_valid_i, .rsp_free_ready_o(rsp_free_ready), .rsp_free_id_i,
    .free_count_o(free_count)
  );

  // tap: the block's free bitmap (formal.mk connects it)
  logic [PKT_BUFS-1:0] t_free;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  logic [PKT_BUFS-1:0] held_q;
  logic                req_take, rsp_take;
  assign req_take = req_valid && req_alloc_ready_i;
  assign rsp_take = rsp_valid && rsp_alloc_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      held_q <= '0;
    end else begin
      for (int i = 0; i < PKT_BUFS; i++) begin
        if ((req_take && req_id == 8'(i)) || (rsp_take && rsp_id == 8'(i))) begin
          held_q[i] <= 1'b1;
        end
        if ((req_free_valid_i && req_free_id_i == 8'(i)) ||
            (rsp_free_valid_i && rsp_free_id_i == 8'(i))) begin
          held_q[i] <= 1'b0;
        end
      end
    end
  end

  logic [8:0] n_free;
  always_comb begin
    n_free = '0;
    for (int i = 0; i < PKT_BUFS; i++) begin
      n_free = n_free + 9'(!held_q[i]);
    end
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    // a client frees only a buffer it holds, the two never the same one
    assume (!req_free_valid_i || (req_free_id_i < 8'(PKT_BUFS) && held_q[req_free_id_i]));
    assume (!rsp_free_valid_i || (rsp_free_id_i < 8'(PKT_BUFS) && held_q[rsp_free_id_i]));
    assume (!(req_free_valid_i && rsp_free_valid_i && req_free_id_i == rsp_free_id_i));
  end

  always_comb begin
    if (!init_q) begin
      offer_free:   assert ((!req_valid || (req_id < 8'(PKT_BUFS) && !held_q[req_id])) &&
                            (!rsp_valid || (rsp_id < 8'(PKT_BUFS) && !held_q[rsp_id])));
      offers_apart: assert (!(req_valid && rsp_valid && req_id == rsp_id));
      req_reserve:  assert (req_valid == (n_free > 9'(RESP_RSV)) && rsp_valid == (n_free != '0) &&
                            req_free_ready && rsp_free_ready);
      count_free:   assert (free_count == n_free);
      tracks:       assert (t_free == ~held_q);
    end
  end

endmodule
