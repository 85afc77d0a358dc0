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
//                  that came back OK with a length
//   rsp_only_out   every DMA the engine issued and did not post is
//                  answered before the job ends (done_o), so the packet
//                  buffer may be freed
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
  logic [4:0] segs_q, dmas_q;
  logic [4:0] dout_q;
  assign xq_fire  = xq_valid && xq_ready_i;
  assign xs_fire  = xs_valid_i && xs_ready;
  assign dma_fire = dma_valid && dma_req_ready_i;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      tn_q    <= '0;
      lasts_q <= '0;
      bad_q   <= 1'b0;
      segs_q  <= '0;
      dmas_q  <= '0;
      dout_q  <= '0;
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
        lasts_q <= '0;
        bad_q   <= 1'b0;
        segs_q  <= '0;
        dmas_q  <= '0;
      end else begin
        if (xs_fire && lasts_q < npieces) begin
          if (xs_status_i != `HCA_XLATE_STATUS_OK) begin
            bad_q <= 1'b1;
          end
          if (xs_last_i) begin
            lasts_q <= lasts_q + 3'd1;
          end
        end
        if (xs_fire && xs_status_i == `HCA_XLATE_STATUS_OK && xs_len_i != '0 && segs_q != 5'h1f) begin
          segs_q <= segs_q + 5'd1;
        end
        if (dma_fire && dmas_q != 5'h1f) begin
          dmas_q <= dmas_q + 5'd1;
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
      dma_per_seg:  assert (!dma_valid || dmas_q < segs_q);
      rsp_only_out: assert (!done || dout_q == '0 || post_i);
    end
  end

  logic unused;
  assign unused = ^{key_fail, bus_err};

endmodule
