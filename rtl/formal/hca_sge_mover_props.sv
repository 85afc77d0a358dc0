`default_nettype none
`include "hca_abi.svh"

// hca_sge_mover_props — the SGE mover's boundaries to the translation
// arbiter and the host bus (`make formal`, by induction; POST 0 and 1):
// hca_sge_mover as it is. Assumed, each port's protocol: a start only while
// idle, the owner holding its SGE list and count while the mover is busy;
// translation beats only for a request accepted and not finished (its last
// beat not taken), a beat offered and not taken offered again unchanged;
// DMA answers (POST = 0) only for a request accepted and not answered.
//
//   xq_held          a translation request offered and not accepted is
//                    offered again, unchanged
//   xq_one           a request is offered only while none is unfinished
//   xs_only_beat     the mover takes (xs_ready_o) only a beat offered to it
//   dma_req_held     a DMA request offered and not accepted is offered
//                    again, unchanged
//   dma_only_ok_beat a DMA request is offered only for a beat in hand that
//                    passed the key check, of a move (not a check), before
//                    any failure of the run: at the beat's address and
//                    length, with the SGE's key
//   beat_after_dma   the invalidation fence's half here (protcheck I2): a
//                    passing beat of a move is taken only with its DMA —
//                    POST = 0 in the cycle the DMA is answered, POST = 1 in
//                    the cycle it is accepted (the owner's drain-busy covers
//                    the rest)
//   dma_one          POST = 0: one DMA at a time, an answer taken only while
//                    one is outstanding; POST = 1: no answer taken at all
//   tracks           the invariant the induction rests on: the mover's state,
//                    check flag and result (taps) agree with what the
//                    property module follows
//
// HCA_MUTANT_SGE_TAKE_EARLY (POST = 0 takes a beat when its DMA is accepted,
// not answered) breaks beat_after_dma.
module hca_sge_mover_props #(
  parameter bit POST = 1'b0
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           start_i,
  input  logic                           check_only_i,
  input  logic                           to_host_i,
  input  logic [`HCA_ACCESS_W-1:0]       rights_i,
  input  logic [`HCA_PD_BITS-1:0]        pd_i,
  input  logic [15:0]                    qpn_i,
  input  logic [31:0]                    off_i,
  input  logic [31:0]                    len_i,
  input  logic [7:0]                     buf_i,
  input  logic [2:0]                     num_sge_i,
  input  logic [4*`HCA_SGE_W-1:0]        sge_i,
  input  logic                           xq_ready_i,
  input  logic                           xs_valid_i,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                           xs_last_i,
  input  logic [31:0]                    xs_len_i,
  input  logic [63:0]                    xs_pa_i,
  input  logic                           dma_req_ready_i,
  input  logic                           dma_rsp_valid_i,
  input  logic                           dma_rsp_err_i
);

  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;

  logic                      busy, done, xq_valid, xs_ready, dma_valid, rsp_ready;
  logic [1:0]                status;
  logic [XREQ_W-1:0]         xq;
  logic [`HCA_DMA_REQ_W-1:0] dma;

  hca_sge_mover #(.XTAG(8'h5a), .DTAG(8'ha5), .POST(POST)) dut (
    .clk_i, .rst_ni, .start_i, .check_only_i, .to_host_i, .rights_i, .pd_i, .qpn_i, .off_i,
    .len_i, .buf_i, .num_sge_i, .sge_i, .busy_o(busy), .done_o(done), .status_o(status),
    .xq_valid_o(xq_valid), .xq_ready_i, .xq_o(xq), .xs_valid_i, .xs_ready_o(xs_ready),
    .xs_status_i, .xs_last_i, .xs_len_i, .xs_pa_i,
    .dma_req_valid_o(dma_valid), .dma_req_ready_i, .dma_req_o(dma),
    .dma_rsp_valid_i, .dma_rsp_ready_o(rsp_ready), .dma_rsp_err_i
  );

  // taps (formal.mk connects them): state, check flag, result so far
  logic [2:0] t_state;
  logic       t_chk;
  logic [1:0] t_st;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // What the module follows: a run (start to idle), its check flag, a
  // failure in it, a translation request unfinished, a DMA unanswered.
  logic xs_take, beat_ok, run_q, chk_q, fail_q, xo_q, dout_q;
  assign xs_take = xs_valid_i && xs_ready;
  assign beat_ok = xs_status_i == `HCA_XLATE_STATUS_OK;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      run_q  <= 1'b0;
      chk_q  <= 1'b0;
      fail_q <= 1'b0;
      xo_q   <= 1'b0;
      dout_q <= 1'b0;
    end else begin
      if (start_i) begin
        run_q  <= 1'b1;
        chk_q  <= check_only_i;
        fail_q <= 1'b0;
      end else if (done) begin
        run_q  <= 1'b0;
      end
      if ((xs_take && !beat_ok) || (dma_rsp_valid_i && rsp_ready && dma_rsp_err_i)) begin
        fail_q <= 1'b1;
      end
      if (xq_valid && xq_ready_i) begin
        xo_q <= 1'b1;
      end else if (xs_take && xs_last_i) begin
        xo_q <= 1'b0;
      end
      if (!POST && dma_valid && dma_req_ready_i) begin
        dout_q <= 1'b1;
      end else if (dma_rsp_valid_i && rsp_ready) begin
        dout_q <= 1'b0;
      end
    end
  end

  // Last cycle's offers (each side's), and the owner's inputs.
  logic                           xq_held_q, dma_held_q, xs_held_q;
  logic [XREQ_W-1:0]              xq_q;
  logic [`HCA_DMA_REQ_W-1:0]      dma_q;
  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_q;
  logic                           xs_last_q;
  logic [31:0]                    xs_len_q;
  logic [63:0]                    xs_pa_q;
  logic [2:0]                     num_sge_q;
  logic [4*`HCA_SGE_W-1:0]        sge_q;
  always_ff @(posedge clk_i) begin
    xq_held_q   <= rst_ni && xq_valid && !xq_ready_i;
    dma_held_q  <= rst_ni && dma_valid && !dma_req_ready_i;
    xs_held_q   <= rst_ni && xs_valid_i && !xs_ready;
    xq_q        <= xq;
    dma_q       <= dma;
    xs_status_q <= xs_status_i;
    xs_last_q   <= xs_last_i;
    xs_len_q    <= xs_len_i;
    xs_pa_q     <= xs_pa_i;
    num_sge_q   <= num_sge_i;
    sge_q       <= sge_i;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    assume (!start_i || !busy);
    if (busy && !start_i && run_q) begin
      assume (num_sge_i == num_sge_q && sge_i == sge_q);
    end
    assume (!xs_valid_i || xo_q);
    if (xs_held_q) begin
      assume (xs_valid_i && xs_status_i == xs_status_q && xs_last_i == xs_last_q &&
              xs_len_i == xs_len_q && xs_pa_i == xs_pa_q);
    end
    assume (!dma_rsp_valid_i || dout_q || POST);
  end

  // The SGE the mover is on (its key goes into the DMA request).
  logic [31:0] key_of_dma;
  assign key_of_dma = `HCA_DMA_REQ_KEY(dma);

  localparam logic [2:0] M_IDLE = 3'd0, M_XREQ = 3'd2, M_BEAT = 3'd3, M_DMA = 3'd4, M_DWAIT = 3'd5;

  always_comb begin
    if (!init_q) begin
      xq_held:          assert (!xq_held_q || (xq_valid && xq == xq_q));
      xq_one:           assert (!xq_valid || !xo_q);
      xs_only_beat:     assert (!xs_ready || xs_valid_i);
      dma_req_held:     assert (!dma_held_q || (dma_valid && dma == dma_q));
      dma_only_ok_beat: assert (!dma_valid || (xs_valid_i && beat_ok && !chk_q && !fail_q && xo_q &&
                                `HCA_DMA_REQ_ADDR(dma) == xs_pa_i && `HCA_DMA_REQ_LEN(dma) == xs_len_i &&
                                key_of_dma == xq[`HCA_PD_BITS + 64 + 32 +: 32]));
      beat_after_dma:   assert (!(xs_take && beat_ok && !chk_q && !fail_q) ||
                                (POST ? (dma_valid && dma_req_ready_i) : (dma_rsp_valid_i && rsp_ready)));
      dma_one:          assert (POST ? !rsp_ready : ((!dma_valid || !dout_q) && (!rsp_ready || dout_q)));
      tracks:           assert (busy == (t_state != M_IDLE) && (run_q || !busy) && (!run_q || t_chk == chk_q) &&
                                fail_q == (t_st != 2'd0) &&
                                xo_q == (t_state == M_BEAT || t_state == M_DMA || t_state == M_DWAIT) &&
                                dout_q == (t_state == M_DWAIT) && (busy || !xo_q) &&
                                (!(t_state == M_DMA || t_state == M_DWAIT) ||
                                 (xs_held_q && xs_status_q == `HCA_XLATE_STATUS_OK && !chk_q && !fail_q)));
    end
  end

  logic unused;
  assign unused = ^{status, xq[XREQ_W-1:`HCA_PD_BITS + 64 + 32 + 32]};

endmodule
