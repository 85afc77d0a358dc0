`default_nettype none
`include "hca_abi.svh"

// hca_resp_place_props — the responder's placement engine between the
// responder, the translation arbiter and the host bus (`make formal`):
// hca_resp_place as it is (PIECES pieces, a SEGS-entry segment list small
// enough that the streaming pass is reached). Assumed, each port's protocol:
// a job started only while the engine is idle, its inputs held until done;
// the translation unit answers only requests it accepted and has not
// finished, in order, each beat with its request's tag, a beat offered and
// not taken offered again unchanged; the host bus answers only DMAs it
// accepted, not posted, and not yet answered. The property module follows
// the job: the requests outstanding (a shadow queue of their tags), the
// beats of its first pass (one last beat per piece), the segments
// translated OK and the DMAs issued.
//
//   xq_held        a translation request offered and not accepted is
//                  offered again, unchanged; only while a job runs
//   dma_req_held   a DMA request offered and not accepted is offered again,
//                  unchanged
//   check_first    protcheck I4: a DMA request is offered only once the
//                  job's first pass has come back whole (a last beat for
//                  every piece) with every beat OK, and never in a
//                  check-only job
//   dma_per_seg    no DMA without a translated segment: the DMAs of a job,
//                  the one offered included, are no more than its beats
//                  that came back OK with a length (credit_q: those beats
//                  less the DMAs, saturating high; a count of each, as
//                  first written, saturates and then fails a long stream
//                  spuriously)
//   rsp_only_out   every DMA the engine issued and did not post is
//                  answered before the job ends (done_o), so the packet
//                  buffer may be freed
//
// Proven by 2-induction with the invariants inv_* over the engine's
// counters (taps): the requests outstanding are the present pieces issued
// and not yet answered, in order; the first pass's beats and failure as the
// engine counted them; the DMA answers outstanding, the list's fill, the
// credit of segments per pass; the holding register only while streaming.
//
// HCA_MUTANT_PLACE_NO_CHECK_WAIT (the DMA pass starts once the requests
// are issued, not once their beats are back) breaks check_first.
module hca_resp_place_props #(
  parameter int PIECES = `HCA_MAX_RECV_SGE,
  parameter int SEGS   = 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           start_i,
  input  logic                           check_only_i,
  input  logic                           post_i,
  input  logic [`HCA_DMA_OP_W-1:0]       dma_op_i,
  input  logic [7:0]                     buf_i,
  input  logic [`HCA_PD_BITS-1:0]        pd_i,
  input  logic [15:0]                    qpn_i,
  input  logic [`HCA_ACCESS_W-1:0]       rights_i,
  input  logic                           remote_i,
  input  logic [PIECES*64-1:0]           va_i,
  input  logic [PIECES*32-1:0]           len_i,
  input  logic [PIECES*32-1:0]           key_i,
  input  logic                           xq_ready_i,
  input  logic                           xs_valid_i,
  input  logic [`HCA_XU_TAG_BITS-1:0]    xs_tag_i,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                           xs_last_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]    xs_len_i,
  input  logic [63:0]                    xs_pa_i,
  input  logic                           dma_req_ready_i,
  input  logic                           dma_rsp_valid_i,
  input  logic                           dma_rsp_err_i
);

  localparam int XQ_W = `HCA_XU_TAG_BITS + `HCA_ACCESS_W + 1 + `HCA_KEY_BITS + `HCA_PD_BITS +
                        `HCA_XU_LEN_BITS + 64;
  localparam int JOB_W = 3 + `HCA_DMA_OP_W + 8 + `HCA_PD_BITS + 16 + `HCA_ACCESS_W +
                         PIECES * (64 + 32 + 32);

  logic                           busy, done, key_fail, bus_err, xq_valid, xs_ready, dma_valid, posted;
  logic [`HCA_XU_TAG_BITS-1:0]    xq_tag;
  logic [`HCA_ACCESS_W-1:0]       xq_rights;
  logic                           xq_remote;
  logic [`HCA_KEY_BITS-1:0]       xq_key;
  logic [`HCA_PD_BITS-1:0]        xq_pd;
  logic [`HCA_XU_LEN_BITS-1:0]    xq_len;
  logic [63:0]                    xq_va;
  logic [`HCA_DMA_REQ_W-1:0]      dma;

  hca_resp_place #(.PIECES(PIECES), .SEGS(SEGS)) dut (
    .clk_i, .rst_ni, .start_i, .check_only_i, .post_i, .dma_op_i, .buf_i, .pd_i, .qpn_i, .rights_i,
    .remote_i, .va_i, .len_i, .key_i, .busy_o(busy), .done_o(done), .key_fail_o(key_fail),
    .bus_err_o(bus_err), .xq_valid_o(xq_valid), .xq_ready_i, .xq_tag_o(xq_tag),
    .xq_rights_o(xq_rights), .xq_remote_o(xq_remote), .xq_key_o(xq_key), .xq_pd_o(xq_pd),
    .xq_len_o(xq_len), .xq_va_o(xq_va), .xs_valid_i, .xs_ready_o(xs_ready), .xs_tag_i,
    .xs_status_i, .xs_last_i, .xs_len_i, .xs_pa_i, .dma_req_valid_o(dma_valid), .dma_req_ready_i,
    .dma_req_o(dma), .dma_rsp_valid_i, .dma_rsp_err_i, .posted_o(posted)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  logic [XQ_W-1:0]  xq;
  logic [JOB_W-1:0] job;
  assign xq  = {xq_tag, xq_rights, xq_remote, xq_key, xq_pd, xq_len, xq_va};
  assign job = {check_only_i, post_i, remote_i, dma_op_i, buf_i, pd_i, qpn_i, rights_i, va_i, len_i, key_i};

  logic [2:0] npieces;
  always_comb begin
    npieces = '0;
    for (int i = 0; i < PIECES; i++) begin
      npieces = npieces + 3'(len_i[i*32 +: 32] != 32'd0);
    end
  end

  // Requests the unit holds (their tags, oldest first), the job's first
  // pass, its OK segments, its DMAs and the unanswered ones.
  logic [1:0] tq_q [4];
  logic [2:0] tn_q;
  logic       xq_fire, xs_fire, dma_fire;
  logic [2:0] lasts_q;
  logic       bad_q;
  logic [3:0] credit_q;
  logic [4:0] dout_q;
  assign xq_fire  = xq_valid && xq_ready_i;
  assign xs_fire  = xs_valid_i && xs_ready;
  assign dma_fire = dma_valid && dma_req_ready_i;
  logic seg_beat;
  assign seg_beat = xs_fire && xs_status_i == `HCA_XLATE_STATUS_OK && xs_len_i != '0;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      tn_q     <= '0;
      lasts_q  <= '0;
      bad_q    <= 1'b0;
      credit_q <= '0;
      dout_q   <= '0;
    end else begin
      if (xs_fire && xs_last_i) begin
        tq_q[0] <= tq_q[1];
        tq_q[1] <= tq_q[2];
        tq_q[2] <= tq_q[3];
      end
      if (xq_fire) begin
        tq_q[3'(tn_q - 3'(xs_fire && xs_last_i))] <= xq_tag[1:0];
      end
      tn_q   <= tn_q + 3'(xq_fire) - 3'(xs_fire && xs_last_i);
      dout_q <= dout_q + 5'(dma_fire && !posted) - 5'(dma_rsp_valid_i);
      if (start_i) begin
        lasts_q  <= '0;
        bad_q    <= 1'b0;
        credit_q <= '0;
      end else begin
        if (xs_fire && lasts_q < npieces) begin
          if (xs_status_i != `HCA_XLATE_STATUS_OK) begin
            bad_q <= 1'b1;
          end
          if (xs_last_i) begin
            lasts_q <= lasts_q + 3'd1;
          end
        end
        if (seg_beat && !dma_fire && credit_q != 4'hf) begin
          credit_q <= credit_q + 4'd1;
        end else if (dma_fire && !seg_beat) begin
          credit_q <= credit_q - 4'd1;
        end
      end
    end
  end

  // Last cycle's offers and job.
  logic                           xq_held_q, dma_held_q, xs_held_q, busy_q;
  logic [XQ_W-1:0]                xq_q;
  logic [`HCA_DMA_REQ_W-1:0]      dma_q;
  logic [JOB_W-1:0]               job_q;
  logic [`HCA_XU_TAG_BITS-1:0]    xs_tag_q;
  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_q;
  logic                           xs_last_q;
  logic [`HCA_XU_LEN_BITS-1:0]    xs_len_q;
  logic [63:0]                    xs_pa_q;
  always_ff @(posedge clk_i) begin
    xq_held_q   <= rst_ni && xq_valid && !xq_ready_i;
    dma_held_q  <= rst_ni && dma_valid && !dma_req_ready_i;
    xs_held_q   <= rst_ni && xs_valid_i && !xs_ready;
    busy_q      <= rst_ni && (busy || start_i);
    xq_q        <= xq;
    dma_q       <= dma;
    job_q       <= job;
    xs_tag_q    <= xs_tag_i;
    xs_status_q <= xs_status_i;
    xs_last_q   <= xs_last_i;
    xs_len_q    <= xs_len_i;
    xs_pa_q     <= xs_pa_i;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    assume (!start_i || !busy);
    if (busy_q && busy) begin
      assume (job == job_q);
    end
    assume (!xs_valid_i || (tn_q != '0 && xs_tag_i == `HCA_XU_TAG_BITS'(tq_q[0])));
    if (xs_held_q) begin
      assume (xs_valid_i && xs_tag_i == xs_tag_q && xs_status_i == xs_status_q &&
              xs_last_i == xs_last_q && xs_len_i == xs_len_q && xs_pa_i == xs_pa_q);
    end
    assume (!dma_rsp_valid_i || dout_q != '0);
    assume (tn_q < 3'd4);
  end

  always_comb begin
    if (!init_q) begin
      xq_held:      assert ((!xq_held_q || (xq_valid && xq == xq_q)) && (!xq_valid || busy));
      dma_req_held: assert (!dma_held_q || (dma_valid && dma == dma_q));
      check_first:  assert (!dma_valid || (lasts_q == npieces && !bad_q && !check_only_i));
      dma_per_seg:  assert (!dma_valid || credit_q != '0);
      rsp_only_out: assert (!done || dout_q == '0 || post_i);
    end
  end

  // Invariants (induction), over the engine's counters (taps).
  localparam logic [1:0] P_IDLE = 2'd0, P_CHECK = 2'd1, P_DMA = 2'd2, P_STREAM = 2'd3;  // pstate_e
  localparam int SG_W = $clog2(SEGS + 1);
  logic [1:0]      t_state, t_iss, t_lasts;
  logic [SG_W-1:0] t_nseg, t_dma, t_ans;
  logic            t_fail, t_ovf, t_hold;

  // the pieces present, how many of them are below the next to issue, and
  // which piece is the n-th present one
  logic [2:0] present, issued;
  logic [1:0] nth [4];
  logic [1:0] c;
  always_comb begin
    issued  = '0;
    present = '0;
    c       = '0;
    for (int i = 0; i < 4; i++) nth[i] = 2'd3;
    for (int i = 0; i < PIECES; i++) begin
      present[i] = len_i[i*32 +: 32] != 32'd0;
      if (present[i] && 2'(i) < t_iss) issued = issued + 3'd1;
      if (present[i]) begin
        nth[c] = 2'(i);
        c      = c + 2'd1;
      end
    end
  end

  logic asking;
  assign asking = t_state == P_CHECK || t_state == P_STREAM;
  always_comb begin
    if (!init_q) begin
      inv_job:   assert (t_state == P_IDLE || busy_q);
      inv_tags:  assert (asking ? (3'(t_lasts) <= issued && tn_q == issued - 3'(t_lasts)) : tn_q == '0);
      inv_tag0:  assert (!asking || tn_q == 3'd0 || tq_q[0] == nth[t_lasts]);
      inv_tag1:  assert (!asking || tn_q <= 3'd1 || tq_q[1] == nth[t_lasts + 2'd1]);
      inv_tag2:  assert (!asking || tn_q <= 3'd2 || tq_q[2] == nth[t_lasts + 2'd2]);
      inv_pass1: assert (t_state == P_CHECK ? (lasts_q == 3'(t_lasts) && bad_q == t_fail) :
                         (t_state == P_IDLE || (lasts_q == npieces && !bad_q && !check_only_i)));
      inv_list:  assert (t_nseg <= SG_W'(SEGS) && (t_state != P_DMA || (t_dma <= t_nseg && !t_ovf)));
      inv_credit: assert ((t_state == P_CHECK && (check_only_i ? t_nseg == '0 && !t_ovf :
                                                  t_ovf ? credit_q > 4'(SEGS) : credit_q == 4'(t_nseg))) ||
                          (t_state == P_DMA && credit_q == 4'(t_nseg - t_dma)) ||
                          (t_state == P_STREAM && credit_q > 4'(SEGS) + 4'(t_hold)) || t_state == P_IDLE);
      inv_dout:  assert ((t_state == P_IDLE || t_state == P_CHECK || (t_state == P_DMA && post_i)) ?
                         dout_q == '0 : dout_q <= 5'(SEGS));
      inv_out:   assert (t_state == P_IDLE || t_state == P_CHECK || (t_state == P_DMA && post_i) ||
                         (SG_W'(dout_q) == SG_W'(t_dma - t_ans) && (t_state == P_STREAM || t_ans <= t_dma)));
      inv_hold:  assert (!t_hold || t_state == P_STREAM);
    end
  end

  logic unused;
  assign unused = ^{key_fail, bus_err};

endmodule
