`default_nettype none
`include "hca_abi.svh"

// hca_xarb_props — the translation arbiter between the requester's and
// responder's clients (send engine, response engine, responder) and the
// translation unit (`make formal`, by induction): hca_xarb as it is (N
// clients). Assumed: each client keeps the valid/ready protocol (a request
// offered and not taken is offered again, unchanged); the unit answers in
// the order it accepted, only requests it accepted and not finished, a beat
// offered and not taken offered again with the same last flag. The property
// module keeps a shadow queue of the clients whose requests the unit holds.
//
//   xu_req_held   a request offered to the unit and not accepted is offered
//                 again, unchanged
//   req_one       a client's request is taken only when the unit accepts
//                 it, one a cycle, and it is the request the unit got
//   rsp_routed    a response beat goes to the client that issued the
//                 oldest unfinished request, and only to it (no response
//                 to a client without a request); the unit's ready is that
//                 client's
//   ids_match     the invariant the induction rests on: the arbiter's id
//                 FIFO (taps) holds the shadow queue
//
// HCA_MUTANT_XARB_POP_EVERY_BEAT (the head id leaves at every beat, not at
// the request's last) breaks rsp_routed.
module hca_xarb_props #(
  parameter int N = 3
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [N-1:0]         c_req_valid_i,
  input  logic [N*REQ_W-1:0]   c_req_i,
  input  logic [N-1:0]         c_rsp_ready_i,
  input  logic                 xu_req_ready_i,
  input  logic                 xu_rsp_valid_i,
  input  logic                 xu_rsp_last_i
);

  localparam int REQ_W = `HCA_XU_TAG_BITS + `HCA_ACCESS_W + 1 + `HCA_KEY_BITS + `HCA_PD_BITS +
                         `HCA_XU_LEN_BITS + 64;
  localparam int IDW   = (N > 1) ? $clog2(N) : 1;
  localparam int DEPTH = 8;   // hca_xarb's id FIFO

  logic [N-1:0]     c_req_ready, c_rsp_valid;
  logic             xu_req_valid, xu_rsp_ready;
  logic [REQ_W-1:0] xu_req;

  hca_xarb #(.N(N)) dut (
    .clk_i, .rst_ni, .c_req_valid_i, .c_req_ready_o(c_req_ready), .c_req_i,
    .c_rsp_valid_o(c_rsp_valid), .c_rsp_ready_i,
    .xu_req_valid_o(xu_req_valid), .xu_req_ready_i, .xu_req_o(xu_req),
    .xu_rsp_valid_i, .xu_rsp_ready_o(xu_rsp_ready), .xu_rsp_last_i
  );

  // taps (formal.mk connects them): the id FIFO's level, read pointer, words
  logic [3:0]     t_level;
  logic [2:0]     t_rptr, t_wptr;
  logic [IDW-1:0] t_m0, t_m1, t_m2, t_m3, t_m4, t_m5, t_m6, t_m7;
  logic [DEPTH*IDW-1:0] t_m;
  assign t_m = {t_m7, t_m6, t_m5, t_m4, t_m3, t_m2, t_m1, t_m0};

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // The shadow queue: the client of each request the unit accepted and has
  // not finished, oldest at sh_rd.
  logic [IDW-1:0] sh_q [DEPTH];
  logic [2:0]     sh_rd;
  logic [3:0]     n_q;
  logic [IDW-1:0] who;
  logic           acc, fin;
  always_comb begin
    who = '0;
    for (int i = 0; i < N; i++) begin
      if (c_req_valid_i[i] && c_req_ready[i]) begin
        who = IDW'(i);
      end
    end
  end
  assign acc = xu_req_valid && xu_req_ready_i;
  assign fin = xu_rsp_valid_i && xu_rsp_ready && xu_rsp_last_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      sh_rd <= '0;
      n_q   <= '0;
    end else begin
      if (acc) begin
        sh_q[3'(sh_rd + n_q[2:0])] <= who;
      end
      if (fin) begin
        sh_rd <= sh_rd + 3'd1;
      end
      n_q <= n_q + 4'(acc) - 4'(fin);
    end
  end

  logic [N-1:0]     c_held_q;
  logic [N*REQ_W-1:0] c_req_q;
  logic             xu_held_q, rsp_held_q, rsp_last_q;
  logic [REQ_W-1:0] xu_req_q;
  always_ff @(posedge clk_i) begin
    c_held_q   <= rst_ni ? (c_req_valid_i & ~c_req_ready) : '0;
    c_req_q    <= c_req_i;
    xu_held_q  <= rst_ni && xu_req_valid && !xu_req_ready_i;
    xu_req_q   <= xu_req;
    rsp_held_q <= rst_ni && xu_rsp_valid_i && !xu_rsp_ready;
    rsp_last_q <= xu_rsp_last_i;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    for (int i = 0; i < N; i++) begin
      if (c_held_q[i]) begin
        assume (c_req_valid_i[i] && c_req_i[i*REQ_W +: REQ_W] == c_req_q[i*REQ_W +: REQ_W]);
      end
    end
    assume (!xu_rsp_valid_i || n_q != '0);
    if (rsp_held_q) begin
      assume (xu_rsp_valid_i && xu_rsp_last_i == rsp_last_q);
    end
  end

  logic [N-1:0]   c_take, want_valid;
  logic [IDW-1:0] head;
  assign c_take = c_req_valid_i & c_req_ready;
  assign head   = sh_q[sh_rd];
  always_comb begin
    want_valid = '0;
    want_valid[head] = xu_rsp_valid_i && n_q != '0;
  end

  always_comb begin
    if (!init_q) begin
      xu_req_held: assert (!xu_held_q || (xu_req_valid && xu_req == xu_req_q));
      req_one:     assert ((c_take & (c_take - N'(1))) == '0 && (c_take != '0) == acc &&
                           (!acc || xu_req == c_req_i[who*REQ_W +: REQ_W]));
      rsp_routed:  assert (c_rsp_valid == want_valid &&
                           xu_rsp_ready == (n_q != '0 && c_rsp_ready_i[head]));
    end
  end

  logic words_ok;
  always_comb begin
    words_ok = 1'b1;
    for (int k = 0; k < DEPTH; k++) begin
      if (4'(k) < n_q && t_m[IDW * 3'(sh_rd + 3'(k)) +: IDW] != sh_q[3'(sh_rd + 3'(k))]) begin
        words_ok = 1'b0;
      end
    end
  end

  always_comb begin
    if (!init_q) begin
      ids_match: assert (t_level == n_q && n_q <= 4'(DEPTH) && t_rptr == sh_rd &&
                         t_wptr == 3'(sh_rd + n_q[2:0]));
      ids_words: assert (words_ok);
    end
  end

endmodule
