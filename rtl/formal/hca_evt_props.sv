`default_nettype none
`include "hca_abi.svh"

// hca_evt_props — the engine -> firmware event queue (`make formal`):
// hca_evt as it is (a DEPTH-event queue), its two producers keeping the
// valid/ready protocol (an event offered and not taken is offered again,
// unchanged), the firmware's register accesses free each cycle. The
// property module counts the events taken from the producers and not yet
// popped (n_q) and keeps a shadow queue of them.
//
//   no_loss        every event taken from a producer is in the queue until
//                  the firmware pops it: the queue's level (a tap) is n_q,
//                  at most DEPTH (a full queue refuses, it never drops)
//   irq_pending    the interrupt is up exactly while an event is queued
//   fw_answer      every firmware access is answered the next cycle; a
//                  STATUS read answers {count n_q, pending}, a DATA read of
//                  an empty queue 0
//   done_once      DONE is broadcast for exactly the cycle after the
//                  firmware's DONE write, with its tag and status
//   data_in_order  a DATA read answers the word of the oldest event not yet
//                  popped; words_match: the invariant it rests on (the
//                  FIFO's words, taps, are the shadow queue's), DEPTH = 2
//
// HCA_MUTANT_EVT_FULL_TAKES (the queue takes an event while full) breaks
// no_loss; HCA_MUTANT_FIFO_HEAD_NEWEST (xu_fifo's head read at the write
// side) data_in_order. (Pointer sums are cut with a part select, not a size
// cast: Yosys 0.23 got `PW'(n_q)` of a wider n_q wrong in a 1-bit compare.)
module hca_evt_props #(
  parameter int DEPTH = 2   // words_match is written for 2
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic [1:0]                   evt_valid_i,
  input  logic [2*`HCA_FW_EVENT_W-1:0] evt_i,
  input  logic                         fw_valid_i,
  input  logic                         fw_write_i,
  input  logic [5:0]                   fw_addr_i,
  input  logic [31:0]                  fw_wdata_i,
  input  logic                         inv_ok_i     // any verdict: it shows in an invalidation's word 0 only
);

  localparam int EW = `HCA_FW_EVENT_W;
  localparam int LW = $clog2(DEPTH + 1);
  localparam int PW = $clog2(DEPTH);

  logic [1:0]                      evt_ready;
  logic                            fw_rvalid, done_valid, irq;
  logic [31:0]                     fw_rdata;
  logic [`HCA_EVT_DONE_TAG_W-1:0]  done_tag;
  logic [7:0]                      done_status;

  hca_evt #(.DEPTH(DEPTH)) dut (
    .clk_i, .rst_ni, .evt_valid_i, .evt_ready_o(evt_ready), .evt_i,
    .fw_valid_i, .fw_write_i, .fw_addr_i, .fw_wdata_i,
    .fw_rvalid_o(fw_rvalid), .fw_rdata_o(fw_rdata),
    .done_valid_o(done_valid), .done_tag_o(done_tag), .done_status_o(done_status), .irq_o(irq),
    .inv_ok_i
  );

  // taps (formal.mk connects them): the queue's level, pointers and
  // words (DEPTH = 2)
  logic [LW-1:0] t_level;
  logic [PW-1:0] t_rptr, t_wptr;
  logic [EW-1:0] t_m0, t_m1;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  logic [1:0]      held_q;
  logic [2*EW-1:0] evt_q;
  always_ff @(posedge clk_i) begin
    held_q <= rst_ni ? (evt_valid_i & ~evt_ready) : 2'b00;
    evt_q  <= evt_i;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    for (int i = 0; i < 2; i++) begin
      if (held_q[i]) begin
        assume (evt_valid_i[i] && evt_i[i*EW +: EW] == evt_q[i*EW +: EW]);
      end
    end
  end

  // Events taken and not popped: a count and a shadow queue (a producer's
  // handshake and a POP of a non-empty queue; at most one taken a cycle).
  logic          take, pop;
  logic [EW-1:0] taken;
  logic [LW:0]   n_q;
  logic [EW-1:0] sh_q [DEPTH];
  logic [PW-1:0] sh_wr, sh_rd;
  assign take  = (evt_valid_i & evt_ready) != '0;
  assign taken = evt_ready[1] ? evt_i[EW +: EW] : evt_i[0 +: EW];
  assign pop   = fw_valid_i && fw_write_i && fw_addr_i == 6'(`HCA_EVT_POP) && n_q != '0;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      n_q   <= '0;
      sh_wr <= '0;
      sh_rd <= '0;
    end else begin
      n_q <= n_q + (LW+1)'(take) - (LW+1)'(pop);
      if (take) begin
        sh_q[sh_wr] <= taken;
        sh_wr       <= sh_wr + PW'(1);
      end
      if (pop) begin
        sh_rd <= sh_rd + PW'(1);
      end
    end
  end

  // Last cycle's firmware access and what it should be answered.
  logic        acc_q, done_wr_q;
  logic [31:0] want_q, wdata_q;
  logic [31:0] want;
  always_comb begin
    want = '0;
    if (fw_valid_i && !fw_write_i) begin
      if (fw_addr_i < 6'(`HCA_EVT_DATA + 4 * `HCA_EVT_DATA_COUNT)) begin
        want = n_q != '0 ? sh_q[sh_rd][32 * fw_addr_i[5:2] +: 32] : 32'd0;
      end else if (fw_addr_i == 6'(`HCA_EVT_STATUS)) begin
        want[`HCA_EVT_STATUS_PENDING_LSB] = n_q != '0;
        want[`HCA_EVT_STATUS_COUNT_LSB +: `HCA_EVT_STATUS_COUNT_W] = 8'(n_q);
      end
    end
  end
  // an invalidation's word 0: answered with hdr.inv_ok = inv_ok_i of the answer's cycle
  logic [3:0] sh_kind;
  logic       inv_rd_q;
  assign sh_kind = sh_q[sh_rd][`HCA_FW_EVENT_KIND_LSB +: `HCA_FW_EVENT_KIND_W];
  logic data_rd_q, empty_rd_q;
  always_ff @(posedge clk_i) begin
    inv_rd_q   <= fw_valid_i && !fw_write_i && fw_addr_i == 6'(`HCA_EVT_DATA) && n_q != '0 &&
                  (sh_kind == 4'(`HCA_EVT_KIND_LOCAL_INV) || sh_kind == 4'(`HCA_EVT_KIND_REMOTE_INV) ||
                   sh_kind == 4'(`HCA_EVT_KIND_READ_INV));
    acc_q      <= rst_ni && fw_valid_i;
    done_wr_q  <= rst_ni && fw_valid_i && fw_write_i && fw_addr_i == 6'(`HCA_EVT_DONE);
    wdata_q    <= fw_wdata_i;
    want_q     <= want;
    data_rd_q  <= fw_valid_i && !fw_write_i && fw_addr_i < 6'(`HCA_EVT_DATA + 4 * `HCA_EVT_DATA_COUNT);
    empty_rd_q <= n_q == '0;
  end

  logic [31:0] want_q_inv;
  assign want_q_inv = want_q | 32'(inv_rd_q && inv_ok_i) << `HCA_FW_EVENT_INV_OK_LSB;
  always_comb begin
    if (!init_q) begin
      no_loss:       assert (t_level == LW'(n_q) && n_q <= (LW+1)'(DEPTH));
      irq_pending:   assert (irq == (n_q != '0));
      fw_answer:     assert (fw_rvalid == acc_q &&
                             (!acc_q || (data_rd_q && !empty_rd_q) || fw_rdata == want_q_inv));
      done_once:     assert (done_valid == done_wr_q &&
                             (!done_wr_q || (done_tag == wdata_q[`HCA_EVT_DONE_TAG_LSB +: `HCA_EVT_DONE_TAG_W] &&
                                             done_status == wdata_q[`HCA_EVT_DONE_STATUS_LSB +: `HCA_EVT_DONE_STATUS_W])));
      data_in_order: assert (!acc_q || fw_rdata == want_q_inv);
      // what data_in_order's induction rests on: the queued words are the
      // shadow queue's, oldest at the read pointer
      words_ptrs:    assert (sh_wr == PW'(sh_rd + n_q[PW-1:0]));
      words_fptrs:   assert (t_wptr == PW'(t_rptr + n_q[PW-1:0]));
      words_head:    assert (n_q < 1 || (t_rptr == 1'b0 ? t_m0 : t_m1) == sh_q[sh_rd]);
      words_next:    assert (n_q < 2 || (t_rptr == 1'b0 ? t_m1 : t_m0) == sh_q[sh_rd + PW'(1)]);
    end
  end

endmodule
