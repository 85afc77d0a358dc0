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
//             except a NAK or RNR_NAK for the message the send engine is
//             still sending (QP owned there, psn = sq_ci): it is kept for
//             the send engine (nak_save_o), which stops sending and
//             completes the message with the syndrome, or for an RNR_NAK
//             with retries left (nak_rnr_o) puts the QP into RNR wait (the
//             responder drops the message's later packets); an RNR_NAK past
//             rnr_retry is kept as a NAK of RNR_RETRY_EXC_ERR.
//             ACK -> success; NAK -> its syndrome, ERROR; RNR_NAK -> wait
//             rnr_timer and resend (the send engine refetches the WQE), or
//             RNR_RETRY_EXC_ERR, ERROR once rnr_retry (7: never) resends
//             were made; READ_RESP -> place it. A QP waiting for DONE
//             takes no packet, and a DONE completes only such a QP: its
//             status (ERROR unless SUCCESS)
//   R_MOVE    READ_RESP: scatter [offset, offset + len) into the SGEs (key
//             check LOCAL_WRITE per piece, BUF_TO_HOST per segment, posted:
//             the mover takes each beat as its DMA is accepted, this engine
//             counts the answers per chunk slot by tag)
//   R_FREE    a scattered READ_RESP's buffer goes to the posted-free
//             register (pf_q), freed once its DMAs are answered (waits while
//             the one before is still there); an unscattered one is freed
//             now (an empty READ_RESP carries none: the responder sends it
//             with pbuf 0 and allocates nothing); after the last READ_RESP
//             (or a failed placement) complete, else the message stays in
//             flight; the last byte of an RDMA_READ_WITH_INV placed: R_EVT
//             instead. The next READ_RESP is taken while the DMAs are out.
//   R_EVT and R_FINISH wait until every posted DMA was answered (the event
//   and the CQE follow the placement) and the posted free is released; a
//   posted scatter answered err marks its QP (rerr_q) and the message
//   completes LOC_ACCESS_ERR at its end (its remaining READ_RESPs are still
//   placed: the error is known only after the QP went back in flight).
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
  output logic                          nak_save_o,     // a NAK / RNR_NAK for the message being sent
  output logic [4:0]                    nak_syn_o,      // its syndrome (completion status)
  output logic                          nak_rnr_o,      // an RNR_NAK with retries left: resend after rnr_timer

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
  output logic [2:0]                    mv_busy_o,   // {slot 1 posted, slot 0 posted, mover} (ctx DRAIN)
  output logic                          quiet_o          // waits only for an input (hca_core quiet_o)
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
  localparam logic [3:0] POST_MAX = 4'd8;   // posted DMAs per chunk: tags {0011, slot, seq mod 8}

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
  logic          moved_q, moved_d;     // the packet went through R_MOVE (its buffer is posted-freed)
  // posted scatters (control): per slot, and the posted free
  logic          slot_q, slot_d;
  logic [3:0]    cnt0_q, cnt1_q;
  logic [2:0]    seq0_q, seq1_q;
  logic          berr0_q, berr1_q;
  logic          pf_q, pf_d, pfslot_q, pfslot_d;
  logic [QW-1:0] pf_qpn_q, pf_qpn_d;
  logic [7:0]    pf_buf_q, pf_buf_d;
  localparam int NQ = 1 << QW;
  logic [NQ-1:0] rerr_q;            // per QP: a posted scatter of its READ was answered err
  logic          rerr_set, rerr_clr; // this cycle: pf_qpn_q's bit set, then qpn_w's cleared
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
  logic        rnr_out;   // an RNR_NAK now would be one too many (7: retry forever)
  assign rnr_out   = rnr_retry != 3'd7 && rnr_cnt_i >= rnr_retry;
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

  logic                      mv_dma_valid, room, post, ans0, ans1, cnt_idle, pf_rdy, pf_go, quiet, mv_quiet;
  logic [`HCA_DMA_REQ_W-1:0] mv_dma_req;
  logic                      rtag_slot, mv_rsp_ready_unused;

  hca_sge_mover #(
    .XTAG (XTAG),
    .DTAG (DTAG),
    .POST (1'b1)
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
    .dma_req_valid_o (mv_dma_valid),
    .dma_req_ready_i (dma_req_ready_i && room),
    .dma_req_o       (mv_dma_req),
    .dma_rsp_valid_i (1'b0),
    .dma_rsp_ready_o (mv_rsp_ready_unused),
    .dma_rsp_err_i   (1'b0),
    .quiet_o         (mv_quiet)
  );

  // Posted scatters carry tag {0011, slot, seq}: every answer to this engine
  // is one, counted by its slot.
  assign room     = (slot_q ? cnt1_q : cnt0_q) < POST_MAX;
  assign post     = mv_dma_valid && room && dma_req_ready_i;
  assign rtag_slot = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 3];
  assign ans0     = dma_rsp_valid_i && !rtag_slot;
  assign ans1     = dma_rsp_valid_i && rtag_slot;
  assign cnt_idle = cnt0_q == 4'd0 && cnt1_q == 4'd0;
  assign pf_rdy   = pf_q && ((pfslot_q ? cnt1_q : cnt0_q) == 4'd0);
  assign quiet    = cnt_idle && !pf_q;   // every DMA answered, the last buffer released
  always_comb begin
    dma_req_o = mv_dma_req;
    `HCA_DMA_REQ_TAG(dma_req_o) = {4'b0011, slot_q, slot_q ? seq1_q : seq0_q};
  end
  assign dma_req_valid_o = mv_dma_valid && room;
  assign dma_rsp_ready_o = 1'b1;

  // ---------------------------------------------------------------- state machine
  // (the QP number as a wire: Icarus cannot infer an always_comb's
  // sensitivity through a constant part select)
  logic [QW-1:0] qpn_w;
  assign qpn_w = qpn_q[QW-1:0];
  always_comb begin
    state_d     = state_q;
    claimed_d   = claimed_q;
    moved_d     = moved_q;
    slot_d      = slot_q;
    pf_d        = pf_q && !pf_go;
    pfslot_d    = pfslot_q;
    pf_qpn_d    = pf_qpn_q;
    pf_buf_d    = pf_buf_q;
    rerr_clr    = 1'b0;
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
        moved_d     = 1'b0;
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
          if ((op_q == `HCA_PKT_OP_NAK || op_q == `HCA_PKT_OP_RNR_NAK) && in_range && look_active_i &&
              psn_q == sq_ci_i) begin
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
              if (rnr_out) begin
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
                moved_d  = 1'b1;
                state_d  = R_MOVE;
                if (off_q == 32'd0) rerr_clr = 1'b1;   // a new message
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
        if (moved_q && len_q != 32'd0 && !pf_q) begin
          // the buffer is freed once the chunk's DMAs are answered
          pf_d     = 1'b1;
          pf_buf_d = pbuf_q;
          pf_qpn_d = qpn_w;
          pfslot_d = slot_q;
          slot_d   = !slot_q;
        end
        if (moved_q ? (len_q == 32'd0 || !pf_q) : (free_ready_i || len_q == 32'd0)) begin
          state_d = R_IDLE;
          if (claimed_q) begin
            if (ctx_reset) begin
              rel_valid_o = 1'b1;
              rel_kind_o  = REL_IDLE;
              rerr_clr    = 1'b1;
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
        if ((fin_ready_i && quiet) || ctx_reset) begin
          rel_valid_o = 1'b1;
          rel_kind_o  = REL_IDLE;
          state_d     = R_IDLE;
          rerr_clr    = 1'b1;   // the message ended
        end
      end
      R_EVT: begin
        if (ctx_reset) begin
          rel_valid_o = 1'b1;
          rel_kind_o  = REL_IDLE;
          state_d     = R_IDLE;
          rerr_clr    = 1'b1;
        end else if (evt_ready_i && quiet) begin
          rel_valid_o = 1'b1;
          rel_kind_o  = REL_EVT;
          state_d     = R_IDLE;
        end
      end
      default: state_d = R_IDLE;
    endcase
  end

  assign look_qpn_o   = qpn_q[QW-1:0];
  assign qpn_o        = (state_q != R_IDLE `ifdef HCA_MUTANT_RESP_QPN_MOVES && !rx_valid_i `endif) ? qpn_q :
                        done_valid_i ? 16'(done_qpn_i) : `HCA_PKT_DST_QPN(rx_i);
  assign rnr_timer_o  = rnr_timer;
  // An RNR_NAK kept for the send engine: retried, or RNR_RETRY_EXC_ERR.
  assign nak_rnr_o    = op_q == `HCA_PKT_OP_RNR_NAK && !rnr_out;
  assign nak_syn_o    = (op_q == `HCA_PKT_OP_RNR_NAK) ? 5'(`HCA_WC_STATUS_RNR_RETRY_EXC_ERR) : syn_q;
  // the FSM's free (an unscattered READ_RESP) first, else the posted one
  logic fsm_free;
  assign fsm_free     = state_q == R_FREE && len_q != 32'd0 && !moved_q;
  assign free_valid_o = fsm_free || pf_rdy;
  assign free_id_o    = fsm_free ? pbuf_q : pf_buf_q;
  assign pf_go        = pf_rdy && !fsm_free && free_ready_i;
  assign rerr_set     = pf_go && (pfslot_q ? berr1_q : berr0_q);

  // ---------------------------------------------------------------- READ_INV event
  always_comb begin
    evt_o = '0;
    `HCA_FW_EVENT_KIND(evt_o) = `HCA_EVT_KIND_READ_INV;
    `HCA_FW_EVENT_TAG(evt_o)  = (`HCA_FW_EVENT_TAG_W)'(qpn_q);
    `HCA_FW_EVENT_QPN(evt_o)  = (`HCA_FW_EVENT_QPN_W)'(qpn_q);
    `HCA_FW_EVENT_PD(evt_o)   = 32'(pd);
    `HCA_FW_EVENT_KEY(evt_o)  = pk_inv_key;
  end
  assign evt_valid_o = state_q == R_EVT && !ctx_reset && quiet;

  // ---------------------------------------------------------------- completion

  // A posted scatter of the message answered err: LOC_ACCESS_ERR (unless it
  // failed otherwise first).
  logic       rerr_qp, fin_err;
  logic [4:0] fin_status;
  assign rerr_qp    = rerr_q[qpn_q[QW-1:0]];
  assign fin_err    = err_q || rerr_qp;
  assign fin_status = (rerr_qp && !err_q) ? 5'(`HCA_WC_STATUS_LOC_ACCESS_ERR) : status_q;

  logic [`HCA_CQE_W-1:0] cqe;
  always_comb begin
    cqe = '0;
    `HCA_CQE_WR_ID(cqe)       = pk_wr_id;
    `HCA_CQE_BYTE_LEN(cqe)    = pk_len;
    `HCA_CQE_QPN(cqe)         = {16'd0, qpn_q};
    `HCA_CQE_STATUS(cqe)      = {3'd0, fin_status};
    `HCA_CQE_OPCODE(cqe)      = 8'(pk_wc_op);
    `HCA_CQE_WQE_COUNTER(cqe) = {16'd0, sq_ci_i};
  end
  assign fin_o       = {qpn_q, cqn, pk_sig || fin_err, fin_err, cqe};
  assign fin_valid_o = state_q == R_FINISH && !ctx_reset && quiet;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= R_IDLE;
      claimed_q <= 1'b0;
      status_q  <= '0;
      err_q     <= 1'b0;
      qpn_q     <= '0;
      moved_q   <= 1'b0;
      slot_q    <= 1'b0;
      cnt0_q    <= '0;
      cnt1_q    <= '0;
      seq0_q    <= '0;
      seq1_q    <= '0;
      berr0_q   <= 1'b0;
      berr1_q   <= 1'b0;
      pf_q      <= 1'b0;
      pfslot_q  <= 1'b0;
      pf_qpn_q  <= '0;
      rerr_q    <= '0;
    end else begin
      state_q   <= state_d;
      claimed_q <= claimed_d;
      moved_q   <= moved_d;
      slot_q    <= slot_d;
      cnt0_q    <= cnt0_q + 4'(post && !slot_q) - 4'(ans0);
      cnt1_q    <= cnt1_q + 4'(post && slot_q) - 4'(ans1);
      seq0_q    <= seq0_q + 3'(post && !slot_q);
      seq1_q    <= seq1_q + 3'(post && slot_q);
      // a scatter starting on a slot clears its error (the slot is idle then)
      berr0_q   <= (mv_start && !slot_q) ? 1'b0 : berr0_q || (ans0 && rsp_err);
      berr1_q   <= (mv_start && slot_q) ? 1'b0 : berr1_q || (ans1 && rsp_err);
      pf_q      <= pf_d;
      pfslot_q  <= pfslot_d;
      pf_qpn_q  <= pf_qpn_d;
      // The vector changes only in the cycles that set or clear a bit: a
      // whole-vector update under that condition, not a next value of
      // MAX_QP bits computed every cycle (no variable bit index on the
      // left: Yosys refuses one under an async reset).
      if (rerr_set || rerr_clr) begin
        rerr_q  <= (rerr_q | (NQ'(rerr_set) << pf_qpn_q)) & ~(NQ'(rerr_clr) << qpn_w);
      end
      status_q  <= status_d;
      err_q     <= err_d;
      // (HCA_MUTANT_RESP_QPN_MOVES: formal mutant, rtl/formal/hca_req_resp_props.sv)
      if (`ifndef HCA_MUTANT_RESP_QPN_MOVES state_q == R_IDLE && `endif (rx_valid_i || done_valid_i)) begin
        qpn_q <= qpn_o;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    pf_buf_q <= pf_buf_d;
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
  assign unused = ^{rx_i, qpc_i, dma_rsp_i, qpn_q, mv_rsp_ready_unused};
  // busy from the first key check until every posted DMA was answered
  assign mv_busy_o = {cnt1_q != 4'd0, cnt0_q != 4'd0, mv_busy};

  // The twin of hca_req_resp_quiet_until: IDLE with nothing left of the last
  // packet waits for the link; MOVE waits on its mover. Posted answers come
  // as dma_rsp_valid, so only a posted free whose answers are in (pf_rdy)
  // acts on its own; FREE waits for it (a moved chunk's buffer), FINISH and
  // EVT for the answers (!quiet) unless the QP is reset (the model has it
  // by a firmware write, whose answer steps the next cycle).
  assign quiet_o = !pf_rdy &&
                   ((state_q == R_IDLE && !claimed_q && !err_q && !moved_q &&
                     status_q == `HCA_WC_STATUS_SUCCESS) ||
                    (state_q == R_MOVE && mv_quiet) ||
                    (state_q == R_FREE && moved_q && len_q != 32'd0 && pf_q && mv_quiet) ||
                    ((state_q == R_FINISH || state_q == R_EVT) && !quiet && !ctx_reset && mv_quiet));

endmodule
