`default_nettype none
`include "hca_abi.svh"

// hca_sge_mover — moves the bytes [off, off + len) of a message between a
// packet buffer and the message's SGE list, or only key-checks them.
//
// For every SGE that the range touches, the piece in it is key-checked
// (translation request: the SGE's lkey, rights_i, local, the QP's PD) and,
// unless check_only_i, every physical segment the translation unit returns
// becomes one DMA request: HOST_TO_BUF (gather) or BUF_TO_HOST (scatter,
// to_host_i), at buf_off = the segment's place in the range, key = the lkey.
//
// POST = 0: one DMA request at a time, and a segment's translation beat is
// taken only when its DMA request has been answered: the translation unit
// counts a request as finished when its last beat is taken, so a firmware
// INVALIDATE (or FENCE) of the key completes only after every DMA through it
// reached memory (protcheck I2). Pre-checks (check_only_i) take beats at once.
// POST = 1 (the send engine's gather): a segment's beat is taken when its DMA
// request is accepted, and the owner counts the answers (dma_rsp_ready_o
// stays low, a bus error is the owner's to report): the DMAs of a packet and
// of the next one overlap. The invalidation fence then rests on the ctx
// DRAIN the firmware runs after INVALIDATE, as for the responder's placement:
// the owner's drain-busy covers the posted DMAs until they are answered.
//
// The first failing beat (its status) ends the walk with PROT; a DMA bus
// error ends it with ACCESS; the request's remaining beats are taken and
// dropped either way. A zero-length range, or one that touches no SGE, is
// done at once with OK.
//
// The SGE list (sge_i, num_sge_i) is read while busy: the owner holds it.
module hca_sge_mover #(
  parameter logic [7:0] XTAG = 8'd0,   // translation tag
  parameter logic [7:0] DTAG = 8'd0,   // DMA tag
  parameter bit         POST = 1'b0    // take a beat when its DMA is accepted (see above)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  input  logic                          start_i,     // only while !busy_o
  input  logic                          check_only_i,
  input  logic                          to_host_i,
  input  logic [`HCA_ACCESS_W-1:0]      rights_i,
  input  logic [`HCA_PD_BITS-1:0]       pd_i,
  input  logic [15:0]                   qpn_i,      // the QP whose work this is (dma_req qpn)
  input  logic [31:0]                   off_i,
  input  logic [31:0]                   len_i,
  input  logic [7:0]                    buf_i,
  input  logic [2:0]                    num_sge_i,
  input  logic [4*`HCA_SGE_W-1:0]       sge_i,
  output logic                          busy_o,
  output logic                          done_o,      // one cycle, with status_o
  output logic [1:0]                    status_o,    // ST_OK / ST_PROT / ST_ACCESS

  // translation client: {tag, rights, remote, key, pd, len, va}
  output logic                          xq_valid_o,
  input  logic                          xq_ready_i,
  output logic [XREQ_W-1:0]             xq_o,
  input  logic                          xs_valid_i,
  output logic                          xs_ready_o,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                          xs_last_i,
  input  logic [31:0]                   xs_len_i,
  input  logic [63:0]                   xs_pa_i,

  // DMA client (one request at a time)
  output logic                          dma_req_valid_o,
  input  logic                          dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]     dma_req_o,
  input  logic                          dma_rsp_valid_i,
  output logic                          dma_rsp_ready_o,
  input  logic                          dma_rsp_err_i,
  output logic                          quiet_o          // idle or waiting only for an input (hca_core quiet_o)
);

  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam logic [1:0] ST_OK = 2'd0, ST_PROT = 2'd1, ST_ACCESS = 2'd2;

  typedef enum logic [2:0] {
    M_IDLE,    // nothing to do
    M_SGE,     // find the piece of SGE i in the range
    M_XREQ,    // translation request for the piece
    M_BEAT,    // a segment beat: check it, or drop it after a failure
    M_DMA,     // its DMA request
    M_DWAIT,   // its DMA answer; then take the beat
    M_NEXT,    // the piece is done: next SGE, or stop after a failure
    M_DONE     // report
  } state_e;

  state_e       state_q, state_d;
  logic         chk_q, host_q;
  logic [3:0]   rights_q;
  logic [23:0]  pd_q;
  logic [15:0]  qpn_q;
  logic [32:0]  lo_q, hi_q;          // the range, 33 bits: off + len cannot wrap
  logic [7:0]   buf_q;
  logic [2:0]   i_q, i_d;            // SGE index
  logic [32:0]  s_q, s_d;            // message offset of SGE i
  logic [1:0]   st_q, st_d;          // result so far
  logic [31:0]  boff_q, boff_d;      // buffer offset of the next segment
  logic [63:0]  va_q, va_d;
  logic [31:0]  plen_q, plen_d;

  // SGE i
  logic [`HCA_SGE_W-1:0] sge;
  logic [63:0] sg_addr;
  logic [31:0] sg_len, sg_key;
  logic [32:0] sg_end, p_lo, p_hi, p_rel;
  assign sge     = sge_i[{i_q[1:0], 7'd0} +: `HCA_SGE_W];
  assign sg_addr = `HCA_SGE_ADDR(sge);
  assign sg_len  = `HCA_SGE_LENGTH(sge);
  assign sg_key  = `HCA_SGE_LKEY(sge);
  assign sg_end  = s_q + {1'b0, sg_len};
  assign p_lo    = (lo_q > s_q) ? lo_q : s_q;
  assign p_hi    = (hi_q < sg_end) ? hi_q : sg_end;
  assign p_rel   = p_lo - s_q;

  always_comb begin
    state_d = state_q;
    i_d     = i_q;
    s_d     = s_q;
    st_d    = st_q;
    boff_d  = boff_q;
    va_d    = va_q;
    plen_d  = plen_q;
    xs_ready_o      = 1'b0;
    dma_rsp_ready_o = 1'b0;
    case (state_q)
      M_IDLE: begin
        if (start_i) begin
          i_d     = '0;
          s_d     = '0;
          st_d    = ST_OK;
          state_d = M_SGE;
        end
      end
      M_SGE: begin
        if (i_q >= num_sge_i || s_q >= hi_q) begin
          state_d = M_DONE;
        end else if (p_lo < p_hi) begin
          va_d    = sg_addr + {31'd0, p_rel};
          plen_d  = 32'(p_hi - p_lo);
          boff_d  = 32'(p_lo - lo_q);
          state_d = M_XREQ;
        end else begin
          state_d = M_NEXT;
        end
      end
      M_XREQ: begin
        if (xq_ready_i) begin
          state_d = M_BEAT;
        end
      end
      M_BEAT: begin
        if (xs_valid_i) begin
          if (xs_status_i != `HCA_XLATE_STATUS_OK && st_q == ST_OK) begin
            st_d = ST_PROT;
          end
          if (chk_q || st_q != ST_OK || xs_status_i != `HCA_XLATE_STATUS_OK) begin
            xs_ready_o = 1'b1;
            if (xs_last_i) begin
              state_d = M_NEXT;
            end
          end else begin
            state_d = M_DMA;
          end
        end
      end
      M_DMA: begin
`ifndef HCA_MUTANT_SGE_TAKE_EARLY
        if (dma_req_ready_i && POST) begin
`else   // formal mutant (rtl/formal/hca_sge_mover_props.sv): the beat taken when its DMA is accepted
        if (dma_req_ready_i) begin
`endif
          xs_ready_o = 1'b1;
          boff_d     = boff_q + xs_len_i;
          if (xs_last_i) begin
            state_d  = M_NEXT;
          end else begin
            state_d  = M_BEAT;
          end
        end else if (dma_req_ready_i) begin
          state_d = M_DWAIT;
        end
      end
      M_DWAIT: begin
        dma_rsp_ready_o = 1'b1;
        if (dma_rsp_valid_i) begin
          // The beat is still held: take it now that its DMA is answered.
          xs_ready_o = 1'b1;
          boff_d     = boff_q + xs_len_i;
          if (dma_rsp_err_i) begin
            st_d = ST_ACCESS;
          end
          if (xs_last_i) begin
            state_d = M_NEXT;
          end else begin
            state_d = M_BEAT;
          end
        end
      end
      M_NEXT: begin
        if (st_q != ST_OK) begin
          state_d = M_DONE;
        end else begin
          s_d     = sg_end;
          i_d     = i_q + 3'd1;
          state_d = M_SGE;
        end
      end
      M_DONE: begin
        state_d = M_IDLE;
      end
      default: state_d = M_IDLE;
    endcase
  end

  assign busy_o   = state_q != M_IDLE;
  assign done_o   = state_q == M_DONE;
  assign status_o = st_q;

  assign xq_valid_o = state_q == M_XREQ;
  assign xq_o       = {XTAG, rights_q, 1'b0, sg_key, pd_q, plen_q, va_q};

  always_comb begin
    dma_req_o = '0;
    `HCA_DMA_REQ_OP(dma_req_o)      = host_q ? `HCA_DMA_OP_BUF_TO_HOST : `HCA_DMA_OP_HOST_TO_BUF;
    `HCA_DMA_REQ_TAG(dma_req_o)     = DTAG;
    `HCA_DMA_REQ_BUF(dma_req_o)     = buf_q;
    `HCA_DMA_REQ_LEN(dma_req_o)     = xs_len_i;
    `HCA_DMA_REQ_ADDR(dma_req_o)    = xs_pa_i;
    `HCA_DMA_REQ_BUF_OFF(dma_req_o) = boff_q;
    `HCA_DMA_REQ_KEY(dma_req_o)     = sg_key;
    `HCA_DMA_REQ_QPN(dma_req_o)     = 32'(qpn_q);
  end
  assign dma_req_valid_o = state_q == M_DMA;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= M_IDLE;
      i_q     <= '0;
      s_q     <= '0;
      st_q    <= ST_OK;
    end else begin
      state_q <= state_d;
      i_q     <= i_d;
      s_q     <= s_d;
      st_q    <= st_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (state_q == M_IDLE && start_i) begin
      chk_q    <= check_only_i;
      host_q   <= to_host_i;
      rights_q <= rights_i;
      pd_q     <= pd_i;
      qpn_q    <= qpn_i;
      lo_q     <= {1'b0, off_i};
      hi_q     <= {1'b0, off_i} + {1'b0, len_i};
      buf_q    <= buf_i;
    end
    boff_q <= boff_d;
    va_q   <= va_d;
    plen_q <= plen_d;
  end

  // The twin of hca_sge_mover_quiet_until: idle, or waiting for a beat or a DMA answer.
  assign quiet_o = state_q == M_IDLE || state_q == M_BEAT || state_q == M_DWAIT;

endmodule
