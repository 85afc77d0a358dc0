`default_nettype none
`include "hca_abi.svh"

// hca_resp_place — the responder's placement engine: key-check every piece of
// one packet through the translation unit first, then move the packet's bytes
// with one DMA per translated segment.
//
// A job is up to PIECES pieces {va, len, key} (a zero len means "no piece"),
// one set of rights/remote/pd, a DMA op (BUF_TO_HOST to place a received
// payload, HOST_TO_BUF to gather a READ response) and the packet buffer. The
// pieces tile the packet in order, so the buffer offset of a segment is the
// sum of the lengths of the segments before it.
//
// Check first, move second: no DMA is issued before every piece's last beat
// has come back OK. An error beat may follow OK beats of the same request
// (the walker aborts on an absent MTT entry); moving the OK segments at once
// would place bytes of a packet whose check failed, which a WRITE must never
// do (SEMANTICS.md: "A failed RDMA WRITE places no byte"; protcheck I4).
// check_only_i runs the key check alone and discards the segments (the
// first WRITE packet's whole-message check: only the status matters).
//
// A packet whose pieces translate to more than SEGS segments (a KLM key over
// many small entries) does not fit the list: once the check has passed over
// every beat, the pieces are translated again and each segment is moved as
// its beat comes (P_STREAM): a beat is taken into a holding register, its DMA
// issued, the next beat taken once the register is free, at most SEGS DMAs
// outstanding. The check still came first; only an invalidation completing
// between the two passes can fail a beat of the second, and then no DMA is
// issued from that beat on (the invalidation raced the packet: SEMANTICS.md
// "Invalidation during a long operation").
//
// post_i (a READ chunk's gather): the list's DMAs are only issued, not
// awaited: done_o comes once the last one was accepted, and their answers
// are the owner's (it routes them by tag and counts them; posted_o marks the
// requests it must tag so). The next chunk's check and DMAs then overlap this
// chunk's host reads. P_STREAM is never posted. The check still came first.
//
// The job inputs are the owner's registers, held stable from start_i until
// done_o; the engine keeps only counters and the segment list. done_o is a
// one-cycle pulse with the outcome: key_fail_o (a check failed, a tag came
// back wrong, or more segments than the list holds — none of these moves a
// byte) or bus_err_o (some DMA was answered err; every DMA issued has been
// answered by then, so the packet buffer may be freed).
module hca_resp_place #(
  parameter int PIECES = `HCA_MAX_RECV_SGE,
  parameter int SEGS   = 8            // one packet <= 4 KiB over <= 3 pieces: <= 6 segments of >= 4 KiB pages
) (
  input  wire logic                           clk_i,
  input  wire logic                           rst_ni,

  // job
  input  wire logic                           start_i,
  input  wire logic                           check_only_i,
  input  wire logic                           post_i,    // see above: DMAs issued, answers the owner's
  input  wire logic [`HCA_DMA_OP_W-1:0]       dma_op_i,
  input  wire logic [7:0]                     buf_i,
  input  wire logic [`HCA_PD_BITS-1:0]        pd_i,
  input  wire logic [15:0]                    qpn_i,     // the QP whose work this is (dma_req qpn)
  input  wire logic [`HCA_ACCESS_W-1:0]       rights_i,
  input  wire logic                           remote_i,
  input  wire logic [PIECES*64-1:0]           va_i,
  input  wire logic [PIECES*32-1:0]           len_i,
  input  wire logic [PIECES*32-1:0]           key_i,
  output logic                                busy_o,
  output logic                                done_o,
  output logic                                key_fail_o,
  output logic                                bus_err_o,

  // translation unit client (answers in order)
  output logic                                xq_valid_o,
  input  wire logic                           xq_ready_i,
  output logic [`HCA_XU_TAG_BITS-1:0]         xq_tag_o,
  output logic [`HCA_ACCESS_W-1:0]            xq_rights_o,
  output logic                                xq_remote_o,
  output logic [`HCA_KEY_BITS-1:0]            xq_key_o,
  output logic [`HCA_PD_BITS-1:0]             xq_pd_o,
  output logic [`HCA_XU_LEN_BITS-1:0]         xq_len_o,
  output logic [63:0]                         xq_va_o,
  input  wire logic                           xs_valid_i,
  output logic                                xs_ready_o,
  input  wire logic [`HCA_XU_TAG_BITS-1:0]    xs_tag_i,
  input  wire logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  wire logic                           xs_last_i,
  input  wire logic [`HCA_XU_LEN_BITS-1:0]    xs_len_i,
  input  wire logic [63:0]                    xs_pa_i,

  // DMA: requests tagged {01, local}; the owner routes this engine's answers here
  output logic                                dma_req_valid_o,
  input  wire logic                           dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]           dma_req_o,
  input  wire logic                           dma_rsp_valid_i,
  input  wire logic                           dma_rsp_err_i,
  output logic                                posted_o,  // the DMA request offered is a posted one
  output logic                                waits_o    // (the owner's quiet_o) see below
);

  localparam int PI_W  = $clog2(PIECES + 1);     // piece index 0..PIECES
  localparam int SG_W  = $clog2(SEGS + 1);       // segment count 0..SEGS
  localparam int SI_W  = $clog2(SEGS);           // segment index
  localparam int LEN_W = `HCA_XU_LEN_BITS;

  generate if (PIECES < 1 || PIECES > 3 || SEGS < 2 || SEGS > 64 || (SEGS & (SEGS - 1)) != 0) begin : g_bad_param
`ifdef __ICARUS__
    initial $fatal(1, "hca_resp_place: PIECES=%0d must be 1..3 and SEGS=%0d a power of two in [2, 64]", PIECES, SEGS);
`else
    $error("hca_resp_place: PIECES must be 1..3 and SEGS a power of two in [2, 64]");
`endif
  end endgenerate

  typedef enum logic [1:0] {
    P_IDLE,    // no job
    P_CHECK,   // key checks issued and their beats collected
    P_DMA,     // segments moved, answers counted
    P_STREAM   // too many segments for the list: translated again, moved beat by beat
  } pstate_e;

  pstate_e          state_q, state_d;
  logic [PI_W-1:0]  iss_q, iss_d;         // next piece to ask about
  logic [PI_W-1:0]  lasts_q, lasts_d;     // pieces whose last beat came
  logic [SG_W-1:0]  nseg_q, nseg_d;       // segments collected
  logic             fail_q, fail_d;       // some check failed
  logic [SG_W-1:0]  dma_q, dma_d;         // segments issued
  logic [SG_W-1:0]  ans_q, ans_d;         // DMA answers counted
  logic             berr_q, berr_d;       // some answer was err
  logic [LEN_W-1:0] boff_q, boff_d;       // buffer offset of segment dma_q
  logic             ovf_q, ovf_d;         // the check found more segments than the list holds
  logic             hold_q, hold_d;       // P_STREAM: a segment waits in the holding register

  // Holding register (data: never reset).
  logic [63:0]      hold_pa_q;
  logic [LEN_W-1:0] hold_len_q;
  logic [1:0]       hold_pc_q;

  // Segment list (data: never reset).
  logic [63:0]      seg_pa_q  [SEGS];
  logic [LEN_W-1:0] seg_len_q [SEGS];
  logic [1:0]       seg_pc_q  [SEGS];     // piece: which key

  // ---------------------------------------------------------------- pieces
  logic [PI_W-1:0] npieces;               // pieces with len != 0
  logic [3:0]      present;               // indexed by a 2-bit piece number
  always_comb begin
    npieces = '0;
    present = '0;
    for (int i = 0; i < PIECES; i++) begin
      present[i] = len_i[i*32 +: 32] != 32'd0;
      npieces    = npieces + PI_W'(present[i]);
    end
  end

  // ---------------------------------------------------------------- issue key checks
  logic [1:0] iss_pc;
  assign iss_pc = 2'(iss_q);   // meaningful only while iss_q < PIECES

  logic iss_more;
  assign iss_more = (state_q == P_CHECK || state_q == P_STREAM) && iss_q < PI_W'(PIECES);

  always_comb begin
    xq_valid_o  = iss_more && present[iss_pc];
    xq_tag_o    = `HCA_XU_TAG_BITS'(iss_pc);
    xq_rights_o = rights_i;
    xq_remote_o = remote_i;
    xq_key_o    = key_i[iss_pc*32 +: 32];
    xq_pd_o     = pd_i;
    xq_len_o    = len_i[iss_pc*32 +: 32];
    xq_va_o     = va_i[iss_pc*64 +: 64];
  end

  // Beats are always taken (a beat this engine did not ask for would
  // otherwise block the translation unit's in-order answer stream), except
  // while a streamed segment waits for its DMA.
  assign xs_ready_o = !(state_q == P_STREAM && hold_q);

  logic beat;
  logic beat_tag_ok;
  assign beat        = xs_valid_i && state_q == P_CHECK;
  // A beat must answer a piece this job asked about.
  assign beat_tag_ok = xs_tag_i < `HCA_XU_TAG_BITS'(iss_q) && present[xs_tag_i[1:0]];
  logic store;
  assign store = beat && beat_tag_ok && xs_status_i == `HCA_XLATE_STATUS_OK && !check_only_i &&
                 xs_len_i != '0 && nseg_q < SG_W'(SEGS);

  // P_STREAM: a beat taken (the holding register is free), and one held.
  logic sbeat, sbeat_ok, take;
  assign sbeat    = xs_valid_i && state_q == P_STREAM && !hold_q;
  assign sbeat_ok = sbeat && beat_tag_ok && xs_status_i == `HCA_XLATE_STATUS_OK;
  assign take     = sbeat_ok && xs_len_i != '0 && !fail_q;

  // ---------------------------------------------------------------- DMA
  logic [SI_W-1:0] dma_idx;
  assign dma_idx = dma_q[SI_W-1:0];

  // Streamed DMAs outstanding (dma_q - ans_q, wrapping): at most SEGS, so
  // their tags {01, dma_q mod SEGS} are unique.
  logic [SG_W-1:0] outstanding;
  assign outstanding = dma_q - ans_q;

  logic             stream;
  logic [63:0]      out_pa;
  logic [LEN_W-1:0] out_len;
  logic [1:0]       out_pc;
  assign stream  = state_q == P_STREAM;
  assign out_pa  = stream ? hold_pa_q  : seg_pa_q[dma_idx];
  assign out_len = stream ? hold_len_q : seg_len_q[dma_idx];
  assign out_pc  = stream ? hold_pc_q  : seg_pc_q[dma_idx];

  always_comb begin
    dma_req_valid_o = (state_q == P_DMA && dma_q < nseg_q) || (stream && hold_q && outstanding < SG_W'(SEGS));
    // Zero while not offered: its QPN follows the responder's flush scan,
    // and in the waves every change is 512 bits written (most of a traced
    // run's bytes before); nothing reads it without its valid.
    dma_req_o       = '0;
    if (dma_req_valid_o) begin
      `HCA_DMA_REQ_OP(dma_req_o)      = dma_op_i;
      `HCA_DMA_REQ_TAG(dma_req_o)     = {2'b01, 6'(dma_idx)};
      `HCA_DMA_REQ_BUF(dma_req_o)     = buf_i;
      `HCA_DMA_REQ_LEN(dma_req_o)     = out_len;
      `HCA_DMA_REQ_ADDR(dma_req_o)    = out_pa;
      `HCA_DMA_REQ_BUF_OFF(dma_req_o) = boff_q;
      `HCA_DMA_REQ_KEY(dma_req_o)     = key_i[out_pc*32 +: 32];
      `HCA_DMA_REQ_QPN(dma_req_o)     = 32'(qpn_i);
    end
  end

  // ---------------------------------------------------------------- control
  logic check_done, dma_done, stream_done;
`ifndef HCA_MUTANT_PLACE_NO_CHECK_WAIT
  assign check_done  = state_q == P_CHECK && iss_q == PI_W'(PIECES) && lasts_q == npieces;
`else  // formal mutant (rtl/formal/hca_resp_place_props.sv): DMAs before the check's beats are back
  assign check_done  = state_q == P_CHECK && iss_q == PI_W'(PIECES);
`endif
  assign dma_done    = state_q == P_DMA && dma_q == nseg_q && (post_i || ans_q == nseg_q);
  assign posted_o    = post_i && state_q == P_DMA;
  // The twin of hca_resp_place_waits: every DMA issued, a job not posted
  // waiting for their answers (only dma_rsp_valid_i moves it).
  assign waits_o     = state_q == P_DMA && dma_q == nseg_q && !post_i && ans_q != nseg_q;
  assign stream_done = stream && iss_q == PI_W'(PIECES) && lasts_q == npieces && !hold_q && dma_q == ans_q;

  // The check ends the job when it failed or there is nothing to move.
  // Outcome outputs are continuous assigns: the owner's state machine reads
  // them and drives start_i, so a default-then-override here would make an
  // event-driven simulator re-run both blocks forever on the glitches.
  logic check_end;
  assign check_end  = check_done && (fail_q || check_only_i || nseg_q == '0);
  assign done_o     = check_end || dma_done || stream_done;
  assign key_fail_o = (check_end || stream_done) && fail_q;
  assign bus_err_o  = (dma_done || stream_done) && berr_q;

  always_comb begin
    state_d    = state_q;
    iss_d      = iss_q;
    lasts_d    = lasts_q;
    nseg_d     = nseg_q;
    fail_d     = fail_q;
    dma_d      = dma_q;
    ans_d      = ans_q;
    berr_d     = berr_q;
    boff_d     = boff_q;
    ovf_d      = ovf_q;
    hold_d     = hold_q;

    case (state_q)
      P_IDLE: begin
        if (start_i) begin
          state_d = P_CHECK;
          iss_d   = '0;
          lasts_d = '0;
          nseg_d  = '0;
          fail_d  = 1'b0;
          ovf_d   = 1'b0;
        end
      end

      P_CHECK: begin
        // A piece of length 0 is skipped without a request.
        if (iss_more && (!present[iss_pc] || xq_ready_i)) iss_d = iss_q + PI_W'(1);
        if (beat) begin
          if (!beat_tag_ok || xs_status_i != `HCA_XLATE_STATUS_OK) fail_d = 1'b1;
          if (beat_tag_ok && xs_status_i == `HCA_XLATE_STATUS_OK && !check_only_i &&
              xs_len_i != '0 && nseg_q == SG_W'(SEGS)) ovf_d = 1'b1;    // list full: stream
          if (store) nseg_d = nseg_q + SG_W'(1);
          if (xs_last_i && beat_tag_ok) lasts_d = lasts_q + PI_W'(1);
        end
        if (check_done) begin
          if (check_end) begin
            state_d = P_IDLE;
          end else begin
            if (ovf_q) state_d = P_STREAM;
            else       state_d = P_DMA;
            dma_d   = '0;
            ans_d   = '0;
            berr_d  = 1'b0;
            boff_d  = '0;
            iss_d   = '0;   // P_STREAM asks again
            lasts_d = '0;
            hold_d  = 1'b0;
          end
        end
      end

      P_DMA: begin
        if (dma_req_valid_o && dma_req_ready_i) begin
          dma_d  = dma_q + SG_W'(1);
          boff_d = boff_q + seg_len_q[dma_idx];
        end
        if (dma_rsp_valid_i) begin
          ans_d  = ans_q + SG_W'(1);
          berr_d = berr_q || dma_rsp_err_i;
        end
        if (dma_done) state_d = P_IDLE;
      end

      P_STREAM: begin
        if (iss_more && (!present[iss_pc] || xq_ready_i)) iss_d = iss_q + PI_W'(1);
        if (sbeat) begin
          if (!beat_tag_ok || xs_status_i != `HCA_XLATE_STATUS_OK) fail_d = 1'b1;
          if (xs_last_i && beat_tag_ok) lasts_d = lasts_q + PI_W'(1);
        end
        if (dma_req_valid_o && dma_req_ready_i) begin
          dma_d  = dma_q + SG_W'(1);
          boff_d = boff_q + hold_len_q;
          hold_d = 1'b0;
        end
        if (take) hold_d = 1'b1;   // only when the register was free: no fire this cycle
        if (dma_rsp_valid_i) begin
          ans_d  = ans_q + SG_W'(1);
          berr_d = berr_q || dma_rsp_err_i;
        end
        if (stream_done) state_d = P_IDLE;
      end

      default: state_d = P_IDLE;
    endcase
  end

  assign busy_o = state_q != P_IDLE;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= P_IDLE;
      iss_q   <= '0;
      lasts_q <= '0;
      nseg_q  <= '0;
      fail_q  <= 1'b0;
      dma_q   <= '0;
      ans_q   <= '0;
      berr_q  <= 1'b0;
      boff_q  <= '0;
      ovf_q   <= 1'b0;
      hold_q  <= 1'b0;
    end else begin
      state_q <= state_d;
      iss_q   <= iss_d;
      lasts_q <= lasts_d;
      nseg_q  <= nseg_d;
      fail_q  <= fail_d;
      dma_q   <= dma_d;
      ans_q   <= ans_d;
      berr_q  <= berr_d;
      boff_q  <= boff_d;
      ovf_q   <= ovf_d;
      hold_q  <= hold_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (store) begin
      seg_pa_q[nseg_q[SI_W-1:0]]  <= xs_pa_i;
      seg_len_q[nseg_q[SI_W-1:0]] <= xs_len_i;
      seg_pc_q[nseg_q[SI_W-1:0]]  <= xs_tag_i[1:0];
    end
    if (take) begin
      hold_pa_q  <= xs_pa_i;
      hold_len_q <= xs_len_i;
      hold_pc_q  <= xs_tag_i[1:0];
    end
  end

endmodule
