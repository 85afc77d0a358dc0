`default_nettype none
`include "hca_abi.svh"

// hca_req_resp — the requester's response engine (docs/engine.md
// "Requester" steps 5-7): the packets the remote responder sends back (ACK,
// NAK, RNR_NAK, READ_RESP) for messages the send engine parked.
//
//   R_IDLE    accept a packet, or take a QP's DONE (kept by the wrapper;
//             DONEs first: they are rare and each ends a WR); the QP's
//             context is read
//   R_CLAIM   the QP must have a message in flight with the packet's psn,
//             else the packet is dropped (a READ_RESP's buffer freed) —
//             except a NAK for the message the send engine is still
//             sending (QP owned there, psn = sq_ci): it is kept for the
//             send engine (nak_save_o), which stops sending and completes
//             the message with the syndrome.
//             ACK -> success; NAK -> its syndrome, ERROR; RNR_NAK -> wait
//             rnr_timer and resend (the send engine refetches the WQE), or
//             RNR_RETRY_EXC_ERR, ERROR once rnr_retry (7: never) resends
//             were made; READ_RESP -> place it. A QP waiting for DONE
//             takes no packet, and a DONE completes only such a QP: its
//             status (ERROR unless SUCCESS)
//   R_MOVE    READ_RESP: scatter [offset, offset + len) into the SGEs (key
//             check LOCAL_WRITE per piece, BUF_TO_HOST per segment, each
//             answered before the next: completions follow placement)
//   R_FREE    give the packet buffer back (an empty READ_RESP carries none:
//             the responder sends it with pbuf 0 and allocates nothing);
//             after the last READ_RESP (or a failed placement) complete,
//             else the message stays in flight; the last byte of an
//             RDMA_READ_WITH_INV placed: R_EVT instead
//   R_EVT     post its READ_INV event (waits while the queue is full: the
//             firmware empties it on its own) and park the QP waiting for
//             DONE, which completes it (opcode RDMA_READ)
//   R_FINISH  completion (written when signaled or failed) + sq_ci++ and
//             release of the QP (ERROR on failure)
// A QP the firmware wrote to RESET (ctx_reset, the live state of the QP
// served) takes no packet or DONE (dropped as unmatched); one it was
// serving is released idle at the next step, without event or completion
// (a scatter already under way finishes: the firmware's DRAIN waits).
//
// This engine never waits for a packet buffer, so packets carrying buffers
// always drain from the link even while the send engine waits for one.
module hca_req_resp #(
  parameter int QW = 6
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  input  logic                          rx_valid_i,
  output logic                          rx_ready_o,
  input  logic [`HCA_PKT_W-1:0]         rx_i,

  // per-QP requester state of look_qpn_o (combinational from the wrapper)
  output logic [QW-1:0]                 look_qpn_o,
  input  logic                          look_inflight_i,
  input  logic [PARK_W-1:0]             park_i,
  input  logic [2:0]                    rnr_cnt_i,
  output logic                          claim_o,        // in flight -> owned here
  output logic                          rel_valid_o,    // owned -> rel_kind_o
  output logic [1:0]                    rel_kind_o,     // REL_IDLE / REL_INFLIGHT / REL_RNR / REL_EVT
  output logic [31:0]                   rnr_timer_o,    // with REL_RNR
  input  logic                          look_active_i,  // owned by the send engine, not released now
  input  logic                          look_evt_wait_i, // in flight waiting for DONE, not a packet
  output logic                          nak_save_o,     // a NAK for the message being sent
  output logic [4:0]                    nak_syn_o,      // its syndrome

  // a DONE kept for QP done_qpn_i (its status read from the wrapper's table)
  input  logic                          done_valid_i,
  input  logic [QW-1:0]                 done_qpn_i,
  input  logic [4:0]                    done_status_i,
  output logic                          done_take_o,

  // READ_INV events (tag = QP number)
  output logic                          evt_valid_o,
  input  logic                          evt_ready_i,
  output logic [`HCA_FW_EVENT_W-1:0]    evt_o,

  // context read port (answers one cycle after qpn_o)
  output logic [15:0]                   qpn_o,
  input  logic [`HCA_QP_CTX_W-1:0]      qpc_i,
  input  logic [15:0]                   sq_ci_i,

  output logic                          free_valid_o,
  input  logic                          free_ready_i,
  output logic [7:0]                    free_id_o,

  output logic                          xq_valid_o,
  input  logic                          xq_ready_i,
  output logic [XREQ_W-1:0]             xq_o,
  input  logic                          xs_valid_i,
  output logic                          xs_ready_o,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                          xs_last_i,
  input  logic [31:0]                   xs_len_i,
  input  logic [63:0]                   xs_pa_i,

  output logic                          dma_req_valid_o,
  input  logic                          dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]     dma_req_o,
  input  logic                          dma_rsp_valid_i,
  output logic                          dma_rsp_ready_o,
  input  logic [`HCA_DMA_RSP_W-1:0]     dma_rsp_i,

  output logic                          fin_valid_o,
  input  logic                          fin_ready_i,
  output logic [FIN_W-1:0]              fin_o,

  // the mover holds key-checked work not yet answered (ctx DRAIN)
  output logic                          mv_busy_o
);

  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam int SGES_W = 4 * `HCA_SGE_W;
  localparam int PARK_W = 16 + 4 + 1 + 1 + 3 + 32 + 32 + 64 + SGES_W;
  localparam int FIN_W  = 16 + 16 + 2 + `HCA_CQE_W;
  localparam logic [7:0] DTAG = 8'b0010_0000;   // requester, response engine
  localparam logic [7:0] XTAG = 8'h01;
  localparam logic [1:0] REL_IDLE = 2'd0, REL_INFLIGHT = 2'd1, REL_RNR = 2'd2, REL_EVT = 2'd3;
  // op_q of a DONE taken in R_IDLE: no packet op (pkt_op is 0..7)
  localparam logic [3:0] OP_DONE = 4'hf;

  typedef enum logic [2:0] {
    R_IDLE, R_CLAIM, R_MOVE, R_FREE, R_FINISH, R_EVT
  } state_e;

  state_e        state_q, state_d;
  // the packet (data)
  logic [3:0]    op_q;
  logic          last_q;
  logic [4:0]    syn_q;
  logic [7:0]    pbuf_q;
  logic [15:0]   qpn_q, psn_q;
  logic [31:0]   len_q, off_q;
  // control
  logic          claimed_q, claimed_d;
  logic [4:0]    status_q, status_d;
  logic          err_q, err_d;

  // park entry fields (hca_req_send): {psn, wc opcode, READ_INV after the
  // last byte, signaled, num_sge, msg_len, key to invalidate, wr_id, sges}
  logic [15:0]       pk_psn;
  logic [3:0]        pk_wc_op;
  logic              pk_read, pk_rinv, pk_sig;
  logic [2:0]        pk_nsge;
  logic [31:0]       pk_len, pk_inv_key;
  logic [63:0]       pk_wr_id;
  logic [SGES_W-1:0] pk_sges;
  assign {pk_psn, pk_wc_op, pk_rinv, pk_sig, pk_nsge, pk_len, pk_inv_key, pk_wr_id, pk_sges} = park_i;
  assign pk_read = pk_wc_op == 4'(`HCA_WC_OPCODE_RDMA_READ);

  // context fields
  logic [2:0]  rnr_retry;
  logic [31:0] rnr_timer;
  logic [15:0] cqn;
  logic [23:0] pd;
  assign rnr_retry = `HCA_QP_CTX_RNR_RETRY(qpc_i);
  assign rnr_timer = `HCA_QP_CTX_RNR_TIMER(qpc_i);
  assign cqn       = `HCA_QP_CTX_SEND_CQN(qpc_i);
  assign pd        = qpc_i[`HCA_QP_CTX_PD_LSB +: `HCA_PD_BITS];

  logic in_range, match, rsp_err, ctx_reset;
  assign ctx_reset = `HCA_QP_CTX_STATE(qpc_i) == `HCA_QP_STATE_RESET;
  assign in_range = qpn_q < 16'(1 << QW);
  assign match    = in_range && look_inflight_i && !ctx_reset &&
                    ((op_q == OP_DONE) ? look_evt_wait_i : !look_evt_wait_i && pk_psn == psn_q);
  assign rsp_err  = `HCA_DMA_RSP_ERR(dma_rsp_i);

  // ---------------------------------------------------------------- mover
  logic       mv_start, mv_done, mv_busy;
  logic [1:0] mv_status;

  hca_sge_mover #(
    .XTAG (XTAG),
    .DTAG (DTAG)
  ) u_mover (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .start_i         (mv_start),
    .check_only_i    (1'b0),
    .to_host_i       (1'b1),
    .rights_i        (`HCA_ACCESS_W'(1 << `HCA_ACCESS_LOCAL_WRITE_BIT)),
    .pd_i            (pd),
    .qpn_i           (qpn_q),
    .off_i           (off_q),
    .len_i           (len_q),
    .buf_i           (pbuf_q),
    .num_sge_i       (pk_nsge),
    .sge_i           (pk_sges),
    .busy_o          (mv_busy),
    .done_o          (mv_done),
    .status_o        (mv_status),
    .xq_valid_o      (xq_valid_o),
    .xq_ready_i      (xq_ready_i),
    .xq_o            (xq_o),
    .xs_valid_i      (xs_valid_i),
    .xs_ready_o      (xs_ready_o),
    .xs_status_i     (xs_status_i),
    .xs_last_i       (xs_last_i),
    .xs_len_i        (xs_len_i),
    .xs_pa_i         (xs_pa_i),
    .dma_req_valid_o (dma_req_valid_o),
    .dma_req_ready_i (dma_req_ready_i),
    .dma_req_o       (dma_req_o),
    .dma_rsp_valid_i (dma_rsp_valid_i),
    .dma_rsp_ready_o (dma_rsp_ready_o),
    .dma_rsp_err_i   (rsp_err)
  );

  // ---------------------------------------------------------------- state machine
  always_comb begin
    state_d     = state_q;
    claimed_d   = claimed_q;
    status_d    = status_q;
    err_d       = err_q;
    rx_ready_o  = 1'b0;
    claim_o     = 1'b0;
    rel_valid_o = 1'b0;
    rel_kind_o  = REL_IDLE;
    mv_start    = 1'b0;
    nak_save_o  = 1'b0;
    done_take_o = 1'b0;
    case (state_q)
      R_IDLE: begin
        rx_ready_o  = !done_valid_i;
        done_take_o = done_valid_i;
        claimed_d   = 1'b0;
        err_d       = 1'b0;
        status_d    = `HCA_WC_STATUS_SUCCESS;
        if (rx_valid_i || done_valid_i) begin
          state_d = R_CLAIM;
        end
      end
      R_CLAIM: begin
        state_d = R_IDLE;
        if (!match) begin
          if (op_q == `HCA_PKT_OP_READ_RESP) begin
            state_d = R_FREE;
          end
          // The responder NAKed the message before its last packet left:
          // the send engine owns the QP and completes it.
          if (op_q == `HCA_PKT_OP_NAK && in_range && look_active_i && psn_q == sq_ci_i) begin
            nak_save_o = 1'b1;
          end
        end else begin
          claim_o   = 1'b1;
          claimed_d = 1'b1;
          case (op_q)
            OP_DONE: begin
              status_d = syn_q;
              err_d    = syn_q != `HCA_WC_STATUS_SUCCESS;
              state_d  = R_FINISH;
            end
            `HCA_PKT_OP_ACK: begin
              if (pk_read) begin
                rel_valid_o = 1'b1;
                rel_kind_o  = REL_INFLIGHT;
              end else begin
                state_d = R_FINISH;
              end
            end
            `HCA_PKT_OP_NAK: begin
              status_d = syn_q;
              err_d    = 1'b1;
              state_d  = R_FINISH;
            end
            `HCA_PKT_OP_RNR_NAK: begin
              if (rnr_retry != 3'd7 && rnr_cnt_i >= rnr_retry) begin
                status_d = `HCA_WC_STATUS_RNR_RETRY_EXC_ERR;
                err_d    = 1'b1;
                state_d  = R_FINISH;
              end else begin
                rel_valid_o = 1'b1;
                rel_kind_o  = REL_RNR;
              end
            end
            `HCA_PKT_OP_READ_RESP: begin
              if (pk_read) begin
                mv_start = 1'b1;
                state_d  = R_MOVE;
              end else begin
                // Not a READ: drop it, the message stays in flight.
                err_d   = 1'b0;
                state_d = R_FREE;
              end
            end
            default: begin
              rel_valid_o = 1'b1;
              rel_kind_o  = REL_INFLIGHT;
            end
          endcase
        end
      end
      R_MOVE: begin
        if (mv_done) begin
          if (mv_status != 2'd0) begin
            status_d = (mv_status == 2'd1) ? `HCA_WC_STATUS_LOC_PROT_ERR
                                           : `HCA_WC_STATUS_LOC_ACCESS_ERR;
            err_d    = 1'b1;
          end
          state_d = R_FREE;
        end
      end
      R_FREE: begin
        if (free_ready_i || len_q == 32'd0) begin
          state_d = R_IDLE;
          if (claimed_q) begin
            if (ctx_reset) begin
              rel_valid_o = 1'b1;
              rel_kind_o  = REL_IDLE;
            end else if (err_q) begin
              state_d = R_FINISH;
            end else if (last_q && pk_read && op_q == `HCA_PKT_OP_READ_RESP) begin
              state_d = R_FINISH;
              if (pk_rinv) begin
                state_d = R_EVT;
              end
            end else begin
              rel_valid_o = 1'b1;
              rel_kind_o  = REL_INFLIGHT;
            end
          end
        end
      end
      R_FINISH: begin
        if (fin_ready_i || ctx_reset) begin
          rel_valid_o = 1'b1;
          rel_kind_o  = REL_IDLE;
          state_d     = R_IDLE;
        end
      end
      R_EVT: begin
        if (ctx_reset) begin
          rel_valid_o = 1'b1;
          rel_kind_o  = REL_IDLE;
          state_d     = R_IDLE;
        end else if (evt_ready_i) begin
          rel_valid_o = 1'b1;
          rel_kind_o  = REL_EVT;
          state_d     = R_IDLE;
        end
      end
      default: state_d = R_IDLE;
    endcase
  end

  assign look_qpn_o   = qpn_q[QW-1:0];
  assign qpn_o        = (state_q != R_IDLE) ? qpn_q :
                        done_valid_i ? 16'(done_qpn_i) : `HCA_PKT_DST_QPN(rx_i);
  assign rnr_timer_o  = rnr_timer;
  assign nak_syn_o    = syn_q;
  assign free_valid_o = state_q == R_FREE && len_q != 32'd0;
  assign free_id_o    = pbuf_q;

  // ---------------------------------------------------------------- READ_INV event
  always_comb begin
    evt_o = '0;
    `HCA_FW_EVENT_KIND(evt_o) = `HCA_EVT_KIND_READ_INV;
    `HCA_FW_EVENT_TAG(evt_o)  = 8'(qpn_q);
    `HCA_FW_EVENT_QPN(evt_o)  = qpn_q;
    `HCA_FW_EVENT_PD(evt_o)   = 32'(pd);
    `HCA_FW_EVENT_KEY(evt_o)  = pk_inv_key;
  end
  assign evt_valid_o = state_q == R_EVT && !ctx_reset;

  // ---------------------------------------------------------------- completion

  logic [`HCA_CQE_W-1:0] cqe;
  always_comb begin
    cqe = '0;
    `HCA_CQE_WR_ID(cqe)       = pk_wr_id;
    `HCA_CQE_BYTE_LEN(cqe)    = pk_len;
    `HCA_CQE_QPN(cqe)         = {16'd0, qpn_q};
    `HCA_CQE_STATUS(cqe)      = {3'd0, status_q};
    `HCA_CQE_OPCODE(cqe)      = 8'(pk_wc_op);
    `HCA_CQE_WQE_COUNTER(cqe) = {16'd0, sq_ci_i};
  end
  assign fin_o       = {qpn_q, cqn, pk_sig || err_q, err_q, cqe};
  assign fin_valid_o = state_q == R_FINISH && !ctx_reset;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= R_IDLE;
      claimed_q <= 1'b0;
      status_q  <= '0;
      err_q     <= 1'b0;
      qpn_q     <= '0;
    end else begin
      state_q   <= state_d;
      claimed_q <= claimed_d;
      status_q  <= status_d;
      err_q     <= err_d;
      if (state_q == R_IDLE && (rx_valid_i || done_valid_i)) begin
        qpn_q <= qpn_o;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (state_q == R_IDLE && done_valid_i) begin
      op_q  <= OP_DONE;
      syn_q <= done_status_i;
    end else if (state_q == R_IDLE && rx_valid_i) begin
      op_q   <= `HCA_PKT_OP(rx_i);
      last_q <= `HCA_PKT_LAST(rx_i);
      syn_q  <= rx_i[`HCA_PKT_SYNDROME_LSB +: 5];
      pbuf_q <= `HCA_PKT_PBUF(rx_i);
      psn_q  <= rx_i[`HCA_PKT_PSN_LSB +: 16];
      len_q  <= `HCA_PKT_LEN(rx_i);
      off_q  <= `HCA_PKT_OFFSET(rx_i);
    end
  end

  // Packet and context fields this engine has no use for.
  logic unused;
  assign unused = ^{rx_i, qpc_i, dma_rsp_i, qpn_q};
  assign mv_busy_o = mv_busy;

endmodule
