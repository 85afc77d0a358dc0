`default_nettype none
`include "hca_abi.svh"

// hca_responder — the responder of the WQE engine (docs/engine.md,
// "Responder" 1-5): serves incoming SEND, SEND_INV, WRITE and READ_REQ
// packets, answers with ACK, NAK, RNR_NAK and READ_RESP, writes receive
// completions and flushes the receive queues of QPs in ERROR.
//
// One packet at a time, start to finish (its DMAs answered, its buffer freed,
// its response handed over) before the next one is taken. Between two packets
// the responder spends one step on the RQ flush queue (when a QP is queued),
// so neither starves the other. That includes a SEND_INV's wait for the
// firmware's DONE: the whole responder (every QP, the flush) waits with it. Simple and safe: the
// wait holds no key check, DMA, link or CQ slot (only the last packet's
// buffer), so the firmware's INVALIDATE + DRAIN never waits on it; the cost
// is the other QPs' incoming traffic stalling for the firmware's latency.
//
// Packet flow (states in brackets):
//   [IDLE] take the packet, point the context read port at dst_qpn
//   [PKT_CTX0, PKT_CTX1] wait for, then sample, the context (one cycle of
//     read latency plus one so that an rq_ci_inc of the previous step shows)
//   SEND / SEND_INV
//     first packet, rq_ci == rq_pi: RNR_NAK, drop.
//     [FETCH_REQ, FETCH_RSP] read the RQ WQE at rq_ci (64 bytes, key 0);
//       a middle packet reuses the WQE kept from its first packet when no
//       other QP's SEND replaced it.
//     [SEND_PLAN] validate the WQE and the packet's extent, map the packet's
//       [offset, offset + len) onto the SGEs (one piece per SGE it touches).
//     [GO, PLACE] hca_resp_place: key check (lkey, LOCAL_WRITE, local, pd)
//       of every piece, then BUF_TO_HOST per segment, answers awaited.
//     [RESULT] last packet: recv CQE SUCCESS, rq_ci_inc, ACK; any packet:
//       free the buffer.
//     SEND_INV, last packet placed (all DMAs answered): [EVT] post REMOTE_INV
//       {tag EVT_TAG_RESPONDER | qpn, qpn, the QP's PD, the packet's
//       inv_key}; [EVT_WAIT] until DONE with that tag; then as above, the CQE
//       with WITH_INVALIDATE and invalidate_rkey on SUCCESS, else recv CQE
//       REM_INV_REQ_ERR (WQE consumed), NAK REM_INV_REQ_ERR, QP -> ERROR.
//       Failures before (RNR, length, key, bus) are a SEND's: no event.
//   WRITE
//     first packet: [GO, PLACE] check-only of [raddr, raddr + msg_len)
//       (rkey, REMOTE_WRITE, remote, pd); a failure NAKs REM_ACCESS_ERR.
//     every packet: [GO, PLACE] check and place its own [raddr, len);
//       [RESULT] free the buffer, last packet: ACK. A middle packet's
//       BUF_TO_HOSTs are posted: its buffer waits in the posted-free
//       register (pf_q) until they are answered, and the next packet is
//       taken meanwhile (placements of consecutive packets overlap). A
//       packet's RESULT waits until the posted free before it is released,
//       so the last packet's ACK (or a NAK) follows every DMA of the
//       message; a posted packet answered with a bus error marks its QP
//       (werr_q), and the message's last packet NAKs REM_OP_ERR instead of
//       ACKing (QP -> ERROR): the error is reported once, at the end.
//   READ_REQ
//     first: [GO, PLACE] check-only of [raddr, raddr + msg_len) (rkey,
//       REMOTE_READ, remote, pd); a failure NAKs REM_ACCESS_ERR before any
//       READ_RESP, so no byte of a refused READ reaches the requester.
//     then per MTU chunk: [RD_ALLOC] a packet buffer; [GO, PLACE] check
//       [raddr + off, chunk) again (an invalidation may land meanwhile),
//       HOST_TO_BUF per segment, posted; [RESULT] the READ_RESP goes into
//       the tx register, which holds it until every DMA of its chunk was
//       answered (per-chunk counters by tag, rcnt*_q): the next chunk is
//       checked and gathered meanwhile (double buffering). A pending
//       chunk answered with a bus error is dropped instead ([RD_DROP]:
//       its buffer freed; [RD_NAK]: once every posted DMA is answered,
//       NAK REM_OP_ERR, the current chunk's buffer freed, QP -> ERROR).
//   every ending goes through [FINISH]: the response packet, the CQE and the
//   buffer free are handed over in parallel; rq_ci_inc and qp_err pulse once;
//   after a qp_err the responder waits until the QP reads back as not RTS,
//   so the QP's next packet cannot slip through as if it were still RTS.
// Flush queue: a QP is queued (u_flush_q) when it may have left RTS or got
//   RQ WQEs while in ERROR; no sweep over the table. Between two packets,
//   when one is queued, [SCAN_CTX0, SCAN_CTX1] read the head's context: not
//   RTS clears its per-QP state (busy, werr, the kept WQE); a QP in ERROR
//   with rq_ci != rq_pi: [FL_REQ, FL_RSP] fetch the WQE at rq_ci for its
//   wr_id and complete it WR_FLUSH_ERR with rq_ci_inc, one WQE per step
//   (rq_pi is re-read every step, so WQEs posted later are flushed too);
//   the head is popped once it has nothing left to flush.
//
// Choices made where the contract leaves room (also in the report to the
// core, requester and harness engineers):
//   - A malformed RQ WQE (num_sge > MAX_RECV_SGE, ctrl.rq_rsvd or rsvd not 0)
//     completes recv CQE LOC_QP_OP_ERR and NAKs REM_OP_ERR; QP -> ERROR.
//   - A bus error on the RQ WQE fetch completes recv CQE LOC_ACCESS_ERR with
//     wr_id 0 (unknown), consumes the WQE (rq_ci_inc), NAKs REM_OP_ERR;
//     QP -> ERROR. In the flush, it completes WR_FLUSH_ERR with wr_id 0.
//   - A bus error while placing a SEND: recv CQE LOC_ACCESS_ERR, NAK
//     REM_OP_ERR; while placing a WRITE or gathering a READ chunk: NAK
//     REM_OP_ERR (no completion); QP -> ERROR in every case.
//   - Buffers: every received SEND/SEND_INV/WRITE packet holds one (the
//     requester allocates per packet, len 0 included) and is freed here once
//     placed or dropped. A zero-length READ answers one READ_RESP with pbuf 0
//     and len 0 and allocates nothing: the requester must not free the
//     buffer of an empty READ_RESP. READ_REQ, ACK, NAK, RNR_NAK carry none.
//   - A SEND or WRITE packet longer than PKT_BUF_SIZE is malformed: SEND
//     completes LOC_LEN_ERR and NAKs REM_INV_REQ_ERR, WRITE NAKs
//     REM_INV_REQ_ERR; QP -> ERROR.
//   - A SEND message longer than its WQE's SGEs is caught on the first
//     packet from msg_len (nothing placed) and on any packet whose
//     offset + len passes the end. byte_len of the recv CQE is the last
//     packet's offset + len (= msg_len).
//   - A middle or last SEND packet whose message was not accepted (its first
//     packet got RNR_NAK) is dropped without a response.
//   - MTU: mtu_log2 0 or above 12 -> 4096, below 8 -> 256.
//   - Flush CQEs: opcode RECV, byte_len 0.
module hca_responder #(
  parameter int MAX_QP = `HCA_MAX_QP
) (
  input  wire logic                        clk_i,
  input  wire logic                        rst_ni,
  // link in / out (ACK, NAK, RNR_NAK, READ_RESP)
  input  wire logic                        rx_valid_i,
  output logic                             rx_ready_o,
  input  wire logic [`HCA_PKT_W-1:0]       rx_i,
  output logic                             tx_valid_o,
  input  wire logic                        tx_ready_i,
  output logic [`HCA_PKT_W-1:0]            tx_o,
  // QP context read: qpc_i/qp_state_i/rq_pi_i/rq_ci_i describe QP qpc_idx_o one cycle after it is driven
  output logic [$clog2(MAX_QP)-1:0]        qpc_idx_o,
  input  wire logic [`HCA_QP_CTX_W-1:0]    qpc_i,
  input  wire logic [1:0]                  qp_state_i,
  input  wire logic [15:0]                 rq_pi_i,
  input  wire logic [15:0]                 rq_ci_i,
  output logic                             rq_ci_inc_o,
  output logic                             qp_err_valid_o,
  output logic [$clog2(MAX_QP)-1:0]        qp_err_qpn_o,
  // QPs whose receive queue may need a flush: a WRITE_QPC, the requester's
  // ERROR, an RQ doorbell of a QP in ERROR (numbers below MAX_QP)
  input  wire logic                        fl_qpc_set_i,
  input  wire logic [15:0]                 fl_qpc_qpn_i,
  input  wire logic                        fl_req_err_i,
  input  wire logic [15:0]                 fl_req_err_qpn_i,
  input  wire logic                        fl_rq_db_i,
  input  wire logic [15:0]                 fl_rq_db_qpn_i,
  // translation unit client (in-order answers)
  output logic                             xq_valid_o,
  input  wire logic                        xq_ready_i,
  output logic [7:0]                       xq_tag_o,
  output logic [3:0]                       xq_rights_o,
  output logic                             xq_remote_o,
  output logic [31:0]                      xq_key_o,
  output logic [23:0]                      xq_pd_o,
  output logic [31:0]                      xq_len_o,
  output logic [63:0]                      xq_va_o,
  input  wire logic                        xs_valid_i,
  output logic                             xs_ready_o,
  input  wire logic [7:0]                  xs_tag_i,
  input  wire logic [3:0]                  xs_status_i,
  input  wire logic                        xs_last_i,
  input  wire logic [31:0]                 xs_len_i,
  input  wire logic [63:0]                 xs_pa_i,
  // DMA client: tags 8'b01xx_xxxx
  output logic                             dma_req_valid_o,
  input  wire logic                        dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]        dma_req_o,
  input  wire logic                        dma_rsp_valid_i,
  output logic                             dma_rsp_ready_o,
  input  wire logic [`HCA_DMA_RSP_W-1:0]   dma_rsp_i,
  // packet buffers
  input  wire logic                        pb_alloc_valid_i,
  output logic                             pb_alloc_ready_o,
  input  wire logic [7:0]                  pb_alloc_id_i,
  output logic                             pb_free_valid_o,
  input  wire logic                        pb_free_ready_i,
  output logic [7:0]                       pb_free_id_o,
  // completions (recv CQEs, flushes): cqe without owner, to CQ cqn
  output logic                             cpl_valid_o,
  input  wire logic                        cpl_ready_i,
  output logic [`HCA_CQE_W-1:0]            cpl_o,
  output logic [15:0]                      cpl_cqn_o,
  // the placement engine holds key-checked work not yet answered (ctx DRAIN)
  output logic [2:0]                       place_busy_o,   // {slot 1 posted, slot 0 posted, engine} (ctx DRAIN)
  // memory-management events (REMOTE_INV of a SEND_INV) and their DONE
  output logic                             evt_valid_o,
  input  wire logic                        evt_ready_i,
  output logic [`HCA_FW_EVENT_W-1:0]       evt_o,
  input  wire logic                        evt_done_valid_i,   // broadcast to every producer, one cycle
  input  wire logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag_i,  // take it only when it is your pending event's tag
  input  wire logic [7:0]                  evt_done_status_i,  // a wc_status
  output wire logic                     quiet_o          // nothing changes while the inputs stay idle (hca_core quiet_o)
);

  localparam int          QW        = $clog2(MAX_QP);   // QP number width
  localparam int          PIECES    = `HCA_MAX_RECV_SGE;
  localparam int          BUF_SIZE  = `HCA_PKT_BUF_SIZE;
  localparam logic [5:0]  FETCH_TAG = 6'h3f;    // local DMA tag of a WQE fetch; placement uses 0..7
  localparam logic [31:0] WQE_BYTES = 32'd64;

  // (MAX_QP <= EVT_TAG_RESPONDER: the REMOTE_INV tag is that bit | the QP number.)
  generate if (MAX_QP < 2 || MAX_QP > `HCA_EVT_TAG_RESPONDER || (MAX_QP & (MAX_QP - 1)) != 0) begin : g_bad_max_qp
`ifdef __ICARUS__
    initial $fatal(1, "hca_responder: MAX_QP=%0d must be a power of two in [2, EVT_TAG_RESPONDER]", MAX_QP);
`else
    $error("hca_responder: MAX_QP must be a power of two in [2, EVT_TAG_RESPONDER]");
`endif
  end endgenerate

  typedef enum logic [4:0] {
    S_IDLE,       // take a packet, or one flush-scan step
    S_PKT_CTX0,   // context read of dst_qpn in flight
    S_PKT_CTX1,   // context sampled: dispatch on the opcode
    S_FETCH_REQ,  // RQ WQE READ_DATA
    S_FETCH_RSP,
    S_SEND_PLAN,  // WQE and length checks, SGE pieces
    S_GO,         // start the placement engine
    S_PLACE,      // placement engine busy
    S_RESULT,     // act on its outcome (the tx register is free here)
    S_RD_ALLOC,   // READ: buffer for the next chunk
    S_SCAN_CTX0,  // flush step: context read of the flush queue's head in flight
    S_SCAN_CTX1,
    S_FL_REQ,     // flush: RQ WQE READ_DATA for its wr_id
    S_FL_RSP,
    S_EVT,        // SEND_INV placed: post its REMOTE_INV event
    S_EVT_WAIT,   // wait for the event's DONE
    S_FINISH,     // hand over response, CQE, free; pulse rq_ci_inc, qp_err
    S_RD_DROP,    // READ: the pending chunk's gather failed: drop its READ_RESP, free its buffer
    S_RD_NAK      // ... every posted DMA answered: NAK, free the current chunk's buffer
  } state_e;

  state_e state_q, state_d;

  // ---------------------------------------------------------------- the packet (data)
  logic [`HCA_PKT_OP_W-1:0] p_op_q;
  logic                     p_first_q, p_last_q;
  logic [7:0]               p_pbuf_q;
  logic [15:0]              p_dqpn_q, p_sqpn_q;
  logic [31:0]              p_psn_q, p_rkey_q, p_len_q, p_msglen_q, p_off_q, p_invkey_q;
  logic [63:0]              p_raddr_q;

  logic rx_fire;
  always_ff @(posedge clk_i) begin
    if (rx_fire) begin
      p_op_q     <= `HCA_PKT_OP(rx_i);
      p_first_q  <= `HCA_PKT_FIRST(rx_i);
      p_last_q   <= `HCA_PKT_LAST(rx_i);
      p_pbuf_q   <= `HCA_PKT_PBUF(rx_i);
      p_dqpn_q   <= `HCA_PKT_DST_QPN(rx_i);
      p_sqpn_q   <= `HCA_PKT_SRC_QPN(rx_i);
      p_psn_q    <= `HCA_PKT_PSN(rx_i);
      p_rkey_q   <= `HCA_PKT_RKEY(rx_i);
      p_raddr_q  <= `HCA_PKT_RADDR(rx_i);
      p_len_q    <= `HCA_PKT_LEN(rx_i);
      p_msglen_q <= `HCA_PKT_MSG_LEN(rx_i);
      p_off_q    <= `HCA_PKT_OFFSET(rx_i);
      p_invkey_q <= `HCA_PKT_INV_KEY(rx_i);
    end
  end

  // The syndrome and reserved bits of an incoming packet play no part.
  logic unused_rx;
  assign unused_rx = ^{rx_i[`HCA_PKT_HDR_LSB +: `HCA_PKT_HDR_W] & ~32'h00ff_003f,
                       `HCA_PKT_RSVD(rx_i)};

  // The packet holds a payload buffer this side must free: every SEND,
  // SEND_INV and WRITE packet (the requester allocates one per packet, even
  // of len 0); a READ_RESP (not ours: dropped) unless empty.
  logic pkt_has_buf;
  assign pkt_has_buf = p_op_q == `HCA_PKT_OP_SEND || p_op_q == `HCA_PKT_OP_SEND_INV ||
                       p_op_q == `HCA_PKT_OP_WRITE ||
                       (p_op_q == `HCA_PKT_OP_READ_RESP && p_len_q != 32'd0);
  logic p_send;
  assign p_send = p_op_q == `HCA_PKT_OP_SEND || p_op_q == `HCA_PKT_OP_SEND_INV;

  // ---------------------------------------------------------------- context (data)
  logic                     ctx_latch;
  logic [`HCA_PD_BITS-1:0]  c_pd_q;
  logic [63:0]              c_rqbase_q;
  logic [3:0]               c_rqlog_q;
  logic [12:0]              c_mtu_q;
  logic [15:0]              c_cqn_q;
  logic [15:0]              c_rqci_q;

  logic [3:0]  ctx_mtu_log2;
  logic [12:0] ctx_mtu;
  assign ctx_mtu_log2 = `HCA_QP_CTX_MTU_LOG2(qpc_i);
  always_comb begin
    if (ctx_mtu_log2 == 4'd0 || ctx_mtu_log2 > 4'd12) ctx_mtu = 13'd4096;
    else if (ctx_mtu_log2 < 4'd8)                     ctx_mtu = 13'd256;
    else                                              ctx_mtu = 13'd1 << ctx_mtu_log2;
  end

  always_ff @(posedge clk_i) begin
    if (ctx_latch) begin
      c_pd_q     <= qpc_i[`HCA_QP_CTX_PD_LSB +: `HCA_PD_BITS];
      c_rqbase_q <= `HCA_QP_CTX_RQ_BASE(qpc_i);
      c_rqlog_q  <= `HCA_QP_CTX_RQ_LOG(qpc_i);
      c_mtu_q    <= ctx_mtu;
      c_cqn_q    <= `HCA_QP_CTX_RECV_CQN(qpc_i);
      c_rqci_q   <= rq_ci_i;
    end
  end

  // The state word's state (qp_state_i is the live one), the send-side
  // fields and the reserved words are not the responder's.
  logic unused_qpc;
  assign unused_qpc = ^{`HCA_QP_CTX_STATE_WORD(qpc_i) & ~32'h0f00_0f00,
                        qpc_i[`HCA_QP_CTX_PD_LSB + `HCA_PD_BITS +: 32 - `HCA_PD_BITS],
                        `HCA_QP_CTX_SQ_BASE(qpc_i), `HCA_QP_CTX_SEND_CQN(qpc_i),
                        `HCA_QP_CTX_REMOTE_QPN(qpc_i), `HCA_QP_CTX_RNR_TIMER(qpc_i),
                        `HCA_QP_CTX_RSVD0(qpc_i), `HCA_QP_CTX_RSVD1(qpc_i),
                        `HCA_QP_CTX_RSVD2(qpc_i), `HCA_QP_CTX_RSVD3(qpc_i)};

  // ---------------------------------------------------------------- control registers
  logic [QW-1:0]           qpn_q, qpn_d;             // the QP served: qpc_idx_o
  logic [MAX_QP-1:0]       busy_q;                   // per QP: a SEND message accepted, not ended
  logic                    busy_wr, busy_val;        // busy_q[qpn_q] <= busy_val this cycle
  logic                    wqe_valid_q, wqe_valid_d; // wqe_q holds QP wqe_qpn_q's WQE at rq_ci
  logic [QW-1:0]           wqe_qpn_q, wqe_qpn_d;
  logic                    scan_pref_q, scan_pref_d; // a flush step is due before the next packet
  logic                    whole_q, whole_d;         // PLACE runs a WRITE's or READ's whole-range check
  logic [31:0]             rd_off_q, rd_off_d;       // READ: offset of the current chunk
  logic [7:0]              rd_buf_q, rd_buf_d;       // READ: its buffer
  logic                    res_key_q, res_key_d;     // outcome of the placement engine
  logic                    res_bus_q, res_bus_d;
  logic                    tx_pend_q, tx_pend_d;
  logic                    cpl_pend_q, cpl_pend_d;
  logic                    free_pend_q, free_pend_d;
  logic                    inc_pend_q, inc_pend_d;   // one-cycle pulses
  logic                    err_pend_q, err_pend_d;
  logic                    err_wait_q, err_wait_d;   // until the QP reads back not RTS
  // Output data registers (data: never reset).
  logic [`HCA_PKT_W-1:0]   tx_q, tx_d;
  // READ double buffering (control): posted gathers per slot, which slot the
  // tx register's READ_RESP waits for
  logic                    rslot_q, rslot_d;         // slot of the chunk being gathered
  logic [3:0]              rcnt0_q, rcnt1_q;         // posted, not yet answered
  logic                    rberr0_q, rberr1_q;       // an answer of the slot's chunk was err
  logic                    txp_q, txp_d;             // tx_q is a READ_RESP of posted chunk txslot_q
  logic                    txslot_q, txslot_d;
  logic                    rd_cur_q, rd_cur_d;       // RD_NAK: the current chunk holds rd_buf_q
  // WRITE overlap (control): the posted free of a middle packet's buffer
  logic                    pf_q, pf_d;               // pf_buf_q waits for slot pfslot_q's answers
  logic                    pfslot_q, pfslot_d;
  logic [QW-1:0]           pf_qpn_q, pf_qpn_d;
  logic [7:0]              pf_buf_q, pf_buf_d;
  logic [MAX_QP-1:0]       werr_q;                   // per QP: a posted placement was answered err
  logic                    wclr;                     // the message of QP qpn_q ended: clear its werr
  logic [`HCA_CQE_W-1:0]   cqe_q, cqe_d;
  logic [15:0]             cqn_q, cqn_d;
  logic [7:0]              free_id_q, free_id_d;

  // The flush queue: every way a QP leaves RTS (WRITE_QPC, either engine's
  // ERROR) and every RQ doorbell of a QP in ERROR pushes its number; a
  // number is queued once however often pushed. The head is popped at the
  // SCAN_CTX1 that finds nothing to flush: a push in that cycle is taken
  // again, and its update shows at the next read, so no WQE is left behind.
  logic          fq_valid, fq_pop;
  logic [QW-1:0] fq_head;
  logic [3:0]    fq_push;
  assign fq_push = {fl_rq_db_i && fl_rq_db_qpn_i < 16'(MAX_QP),
                    fl_req_err_i && fl_req_err_qpn_i < 16'(MAX_QP),
                    fl_qpc_set_i && fl_qpc_qpn_i < 16'(MAX_QP),
                    err_pend_q};
  hca_qfifo #(
    .N (MAX_QP),
    .P (4)
  ) u_flush_q (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .push_i       (fq_push),
    .push_val_i   ({fl_rq_db_qpn_i[QW-1:0], fl_req_err_qpn_i[QW-1:0], fl_qpc_qpn_i[QW-1:0], qpn_q}),
    .head_valid_o (fq_valid),
    .head_o       (fq_head),
    .pop_i        (fq_pop)
  );

  // Between two packets, one flush step when a QP is queued (scan_pref_q).
  assign rx_ready_o = state_q == S_IDLE && !(scan_pref_q && fq_valid);
  assign rx_fire    = rx_valid_i && rx_ready_o;

  // ---------------------------------------------------------------- RQ WQE
  logic [`HCA_RQ_WQE_W-1:0] wqe_q;
  logic                     wqe_load;
  logic                     fetch_rsp, fetch_err;
  logic [`HCA_RQ_WQE_W-1:0] fetch_wqe;

  always_ff @(posedge clk_i) begin
    if (wqe_load) wqe_q <= fetch_wqe;
  end

  logic [3:0] num_sge;
  logic       wqe_bad;
  assign num_sge = `HCA_RQ_WQE_NUM_SGE(wqe_q);
  assign wqe_bad = num_sge > 4'(PIECES) || `HCA_RQ_WQE_RQ_RSVD(wqe_q) != '0 ||
                   `HCA_RQ_WQE_RSVD(wqe_q) != '0;

  // The packet [offset, offset + len) of the message against the SGEs laid
  // end to end: one piece per SGE it touches. 34 bits: three 32-bit lengths.
  logic [33:0]          pkt_lo, pkt_hi, sg_total;
  logic [PIECES*64-1:0] sp_va;
  logic [PIECES*32-1:0] sp_len, sp_key;
  // (Field selects as variable offsets into wqe_q: Icarus does not take
  // constant part-selects inside always_comb.)
  localparam int SGE0 = `HCA_RQ_WQE_SGE_LSB;
  localparam int SGEW = `HCA_RQ_WQE_SGE_W;
  always_comb begin
    logic [33:0] sg_len, sg_end, lo, hi, skip;
    pkt_lo   = {2'b0, p_off_q};
    pkt_hi   = pkt_lo + {2'b0, p_len_q};
    sg_total = '0;
    sp_va    = '0;
    sp_len   = '0;
    sp_key   = '0;
    for (int i = 0; i < PIECES; i++) begin
      sg_len = 4'(i) < num_sge ? {2'b0, wqe_q[SGE0 + i*SGEW + `HCA_SGE_LENGTH_LSB +: `HCA_SGE_LENGTH_W]} : 34'd0;
      sg_end = sg_total + sg_len;
      lo     = pkt_lo > sg_total ? pkt_lo : sg_total;
      hi     = pkt_hi < sg_end ? pkt_hi : sg_end;
      skip   = lo - sg_total;                    // bytes of this SGE before the piece
      if (hi > lo) begin
        sp_len[i*32 +: 32] = 32'(hi - lo);
        sp_va[i*64 +: 64]  = wqe_q[SGE0 + i*SGEW + `HCA_SGE_ADDR_LSB +: `HCA_SGE_ADDR_W] + {30'd0, skip};
      end
      sp_key[i*32 +: 32] = wqe_q[SGE0 + i*SGEW + `HCA_SGE_LKEY_LSB +: `HCA_SGE_LKEY_W];
      sg_total = sg_end;
    end
  end

  logic len_bad;
  assign len_bad = p_len_q > 32'(BUF_SIZE) || pkt_hi > sg_total ||
                   (p_first_q && {2'b0, p_msglen_q} > sg_total);

  // ---------------------------------------------------------------- READ chunk
  logic [31:0] rd_rem, rd_chunk;
  logic        rd_end;
  assign rd_rem   = p_msglen_q - rd_off_q;
  assign rd_chunk = rd_rem < 32'(c_mtu_q) ? rd_rem : 32'(c_mtu_q);
  assign rd_end   = rd_chunk == rd_rem;

  // ---------------------------------------------------------------- placement engine
  logic                       eng_start, eng_busy, eng_done, eng_key_fail, eng_bus_err, eng_waits;
  logic                       job_check_only, job_remote;
  logic [`HCA_DMA_OP_W-1:0]   job_op;
  logic [7:0]                 job_buf;
  logic [`HCA_ACCESS_W-1:0]   job_rights;
  logic [PIECES*64-1:0]       job_va;
  logic [PIECES*32-1:0]       job_len, job_key;
  logic                       eng_dma_valid, eng_rsp_valid, eng_posted, job_post;
  logic [`HCA_DMA_REQ_W-1:0]  eng_dma_req;

  localparam logic [3:0] RIGHTS_LW = 4'(1) << `HCA_ACCESS_LOCAL_WRITE_BIT;
  localparam logic [3:0] RIGHTS_RR = 4'(1) << `HCA_ACCESS_REMOTE_READ_BIT;
  localparam logic [3:0] RIGHTS_RW = 4'(1) << `HCA_ACCESS_REMOTE_WRITE_BIT;

  // A continuous assign, not a default-then-override in the state machine's
  // always_comb: the engine's done_o feeds that block, and an event-driven
  // simulator (Icarus) would re-run the two blocks forever on the glitches.
  // A posted job: a READ chunk's gather, a WRITE middle packet's placement
  // (a continuous assign the state machine reads: Icarus never settles an
  // always_comb reading the job block's default-then-override outputs).
  // It starts only on a free slot (its counter idle, no held READ_RESP or
  // posted free waiting for it).
  logic post_job, go_wait;
  assign post_job = !p_send && !whole_q && (p_op_q != `HCA_PKT_OP_WRITE || !p_last_q);
  assign eng_start = state_q == S_GO && !go_wait;

  // The job is a function of registers that hold still while PLACE runs.
  always_comb begin
    job_check_only = 1'b0;
    job_post       = 1'b0;
    job_op         = `HCA_DMA_OP_BUF_TO_HOST;
    job_buf        = p_pbuf_q;
    job_rights     = RIGHTS_RW;
    job_remote     = 1'b1;
    job_va         = '0;
    job_len        = '0;
    job_key        = '0;
    if (p_send) begin
      job_rights = RIGHTS_LW;
      job_remote = 1'b0;
      job_va     = sp_va;
      job_len    = sp_len;
      job_key    = sp_key;
    end else if (p_op_q == `HCA_PKT_OP_WRITE) begin
      job_check_only  = whole_q;
      job_post        = post_job;               // a middle packet: posted
      job_va[63:0]    = `ifndef HCA_MUTANT_RESPONDER_JOB_MOVES p_raddr_q; `else `HCA_PKT_RADDR(rx_i); `endif  // (formal mutant: rtl/formal/hca_responder_props.sv)
      job_len[31:0]   = whole_q ? p_msglen_q : p_len_q;
      job_key[31:0]   = p_rkey_q;
    end else begin
      job_check_only  = whole_q;
      job_post        = post_job;
      job_op          = `HCA_DMA_OP_HOST_TO_BUF;
      job_buf         = rd_buf_q;
      job_rights      = RIGHTS_RR;
      job_va[63:0]    = p_raddr_q + 64'(rd_off_q);
      job_len[31:0]   = whole_q ? p_msglen_q : rd_chunk;
      job_key[31:0]   = p_rkey_q;
    end
  end

  hca_resp_place #(
    .PIECES (PIECES),
    .SEGS   (8)
  ) u_place (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .start_i         (eng_start),
    .check_only_i    (job_check_only),
    .post_i          (job_post),
    .dma_op_i        (job_op),
    .buf_i           (job_buf),
    .pd_i            (c_pd_q),
    .qpn_i           (16'(qpn_q)),
    .rights_i        (job_rights),
    .remote_i        (job_remote),
    .va_i            (job_va),
    .len_i           (job_len),
    .key_i           (job_key),
    .busy_o          (eng_busy),
    .done_o          (eng_done),
    .key_fail_o      (eng_key_fail),
    .bus_err_o       (eng_bus_err),
    .xq_valid_o      (xq_valid_o),
    .xq_ready_i      (xq_ready_i),
    .xq_tag_o        (xq_tag_o),
    .xq_rights_o     (xq_rights_o),
    .xq_remote_o     (xq_remote_o),
    .xq_key_o        (xq_key_o),
    .xq_pd_o         (xq_pd_o),
    .xq_len_o        (xq_len_o),
    .xq_va_o         (xq_va_o),
    .xs_valid_i      (xs_valid_i),
    .xs_ready_o      (xs_ready_o),
    .xs_tag_i        (xs_tag_i),
    .xs_status_i     (xs_status_i),
    .xs_last_i       (xs_last_i),
    .xs_len_i        (xs_len_i),
    .xs_pa_i         (xs_pa_i),
    .dma_req_valid_o (eng_dma_valid),
    .dma_req_ready_i (dma_req_ready_i),
    .dma_req_o       (eng_dma_req),
    .dma_rsp_valid_i (eng_rsp_valid),
    .dma_rsp_err_i   (`HCA_DMA_RSP_ERR(dma_rsp_i)),
    .posted_o        (eng_posted),
    .waits_o         (eng_waits)
  );

  // ---------------------------------------------------------------- DMA port
  // Answers are always taken; a WQE fetch's answer is told apart by its tag.
  logic [15:0] rq_slot;
  logic        fetch_valid;
  logic [`HCA_DMA_REQ_W-1:0] fetch_req;
  assign rq_slot     = c_rqci_q & ((16'd1 << c_rqlog_q) - 16'd1);
  assign fetch_valid = state_q == S_FETCH_REQ || state_q == S_FL_REQ;
  always_comb begin
    fetch_req = '0;
    `HCA_DMA_REQ_OP(fetch_req)   = `HCA_DMA_OP_READ_DATA;
    `HCA_DMA_REQ_TAG(fetch_req)  = {2'b01, FETCH_TAG};
    `HCA_DMA_REQ_LEN(fetch_req)  = WQE_BYTES;
    `HCA_DMA_REQ_ADDR(fetch_req) = c_rqbase_q + {42'd0, rq_slot, 6'd0};
    `HCA_DMA_REQ_KEY(fetch_req)  = 32'd0;
    `HCA_DMA_REQ_QPN(fetch_req)  = 32'(qpn_q);
  end

  // A posted gather is tagged {01, 1, slot, 0, idx}: bit 3 clear tells it
  // from FETCH_TAG; the engine's own tags are {01, 000, idx}.
  // (A continuous OR, the engine's tag bits 5:4 being 0: an always_comb
  // that overwrites bits of what it just assigned never settles in Icarus.)
  // The two bits as a concatenation, not a request-wide value shifted into
  // place: Verilator shifts a 512-bit word array every evaluation for that
  // (5% of a simulated cycle).
  logic [`HCA_DMA_REQ_W-1:0] eng_req_tagged;
  assign eng_req_tagged = eng_dma_req |
      {{(`HCA_DMA_REQ_W - `HCA_DMA_REQ_TAG_LSB - 6){1'b0}}, eng_posted, eng_posted && rslot_q,
       {(`HCA_DMA_REQ_TAG_LSB + 4){1'b0}}};
  logic [7:0] rsp_tag;
  logic       posted_rsp, post_fire, prsp0, prsp1;
  assign rsp_tag    = `HCA_DMA_RSP_RTAG(dma_rsp_i);
  assign posted_rsp = dma_rsp_valid_i && rsp_tag[5] && !rsp_tag[3];
  assign prsp0      = posted_rsp && !rsp_tag[4];
  assign prsp1      = posted_rsp && rsp_tag[4];
  assign post_fire  = eng_posted && eng_dma_valid && dma_req_ready_i;

  assign dma_req_valid_o = fetch_valid || eng_dma_valid;
  assign dma_req_o       = fetch_valid ? fetch_req : eng_req_tagged;
  assign dma_rsp_ready_o = 1'b1;
  assign fetch_rsp       = dma_rsp_valid_i && rsp_tag == {2'b01, FETCH_TAG};
  assign eng_rsp_valid   = dma_rsp_valid_i && !fetch_rsp && !posted_rsp;
  assign fetch_err       = `HCA_DMA_RSP_ERR(dma_rsp_i);
  assign fetch_wqe       = dma_rsp_i[`HCA_DMA_RSP_RDATA_LSB +: `HCA_RQ_WQE_W];

  logic unused_dma_rsp;
  assign unused_dma_rsp = ^{`HCA_DMA_RSP_HDR(dma_rsp_i) & ~32'h0000_01ff, `HCA_DMA_RSP_RSVD(dma_rsp_i),
                            dma_rsp_i[`HCA_DMA_RSP_RDATA_LSB + `HCA_RQ_WQE_W +: `HCA_DMA_RSP_W - `HCA_DMA_RSP_RDATA_LSB - `HCA_RQ_WQE_W]};
  // Only key-checked DMA not yet answered counts: a SEND_INV waiting for
  // its DONE has all its placement answered, so the firmware's DRAIN (part
  // of that very invalidation) does not wait for it.
  // Posted DMAs count until answered. An RQ WQE read counts from its offer
  // to its answer: no read of a QP's RQ is out once its DESTROY_QP / RESET
  // returned (the fetch is followed by SEND_PLAN or FINISH: idle a cycle).
  // (HCA_MUTANT_DRAIN_NO_WQE_READ: DRAIN does not wait for it)
  assign place_busy_o = {rcnt1_q != 4'd0, rcnt0_q != 4'd0, eng_busy `ifndef HCA_MUTANT_DRAIN_NO_WQE_READ ||
                         state_q == S_FETCH_REQ || state_q == S_FETCH_RSP || state_q == S_FL_REQ ||
                         state_q == S_FL_RSP `endif};

  assign go_wait = post_job && (((rslot_q ? rcnt1_q : rcnt0_q) != 4'd0) || (pf_q && pfslot_q == rslot_q) ||
                                (tx_pend_q && txp_q && txslot_q == rslot_q));

  // The posted free goes out once its packet's DMAs are answered, when the
  // state machine's own free is not using the port.
  // An offer not taken stays as it is (fsel_q: the posted free was offered).
  logic pf_rdy, pf_go, pf_berr, pf_sel, fsel_q;
  // (outside the state machine's always_comb: Icarus re-runs a block that
  // reads what it writes)
  assign pf_rdy  = pf_q && ((pfslot_q ? rcnt1_q : rcnt0_q) == 4'd0);
  assign pf_sel  = pf_rdy && (fsel_q || !free_pend_q);
  assign pf_go   = pf_sel && pb_free_ready_i;
  assign pf_berr = pfslot_q ? rberr1_q : rberr0_q;

  // The tx register's READ_RESP of a posted chunk: held until its answers
  // are in; answered err, it is dropped (RD_DROP) instead of sent.
  logic       tx_wait, tx_bad;
  logic [7:0] tx_pbuf;    // (a continuous select: Icarus and always_comb)
  assign tx_pbuf = `HCA_PKT_PBUF(tx_q);
  assign tx_wait = txp_q && ((txslot_q ? rcnt1_q : rcnt0_q) != 4'd0);
  assign tx_bad  = tx_pend_q && txp_q && !tx_wait && (txslot_q ? rberr1_q : rberr0_q);

  // ---------------------------------------------------------------- REMOTE_INV event
  // One event at a time (the responder waits for its DONE), so the tag alone
  // names it; p_* hold the SEND_INV's last packet, c_pd_q its QP's PD.
  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_tag;
  assign evt_tag = (`HCA_EVT_DONE_TAG_W)'(`HCA_EVT_TAG_RESPONDER) | (`HCA_EVT_DONE_TAG_W)'(qpn_q);
  // Zero while not offered (qpn_q follows the flush scan: 384 bits in the
  // waves at each step, as hca_resp_place's dma_req_o).
  always_comb begin
    evt_o = '0;
    if (state_q == S_EVT) begin
      `HCA_FW_EVENT_KIND(evt_o) = `HCA_EVT_KIND_REMOTE_INV;
      `HCA_FW_EVENT_TAG(evt_o)  = evt_tag;
      `HCA_FW_EVENT_QPN(evt_o)  = (`HCA_FW_EVENT_QPN_W)'(qpn_q);
      `HCA_FW_EVENT_PD(evt_o)   = 32'(c_pd_q);
      `HCA_FW_EVENT_KEY(evt_o)  = p_invkey_q;
    end
  end
  assign evt_valid_o = state_q == S_EVT;

  logic evt_done, evt_ok;
  assign evt_done = state_q == S_EVT_WAIT && evt_done_valid_i && evt_done_tag_i == evt_tag;
  assign evt_ok   = evt_done_status_i == 8'(`HCA_WC_STATUS_SUCCESS);

  // ---------------------------------------------------------------- response builders
  // An ACK / NAK / RNR_NAK to the requester: its QP is the packet's source.
  function automatic logic [`HCA_PKT_W-1:0] resp_pkt(input logic [3:0] op, input logic [4:0] syndrome,
                                                      input logic [15:0] dqpn, input logic [15:0] sqpn,
                                                      input logic [31:0] psn);
    logic [`HCA_PKT_W-1:0] r;
    r = '0;
    `HCA_PKT_OP(r)       = op;
    `HCA_PKT_SYNDROME(r) = 8'(syndrome);
    `HCA_PKT_DST_QPN(r)  = sqpn;
    `HCA_PKT_SRC_QPN(r)  = dqpn;
    `HCA_PKT_PSN(r)      = psn;
    resp_pkt = r;
  endfunction

  // A recv CQE of the QP being served, for the WQE at c_rqci_q.
  // inv: the message invalidated inv_rkey (WITH_INVALIDATE).
  function automatic logic [`HCA_CQE_W-1:0] recv_cqe(input logic [63:0] wr_id, input logic [4:0] status,
                                                      input logic [31:0] byte_len, input logic [QW-1:0] qpn,
                                                      input logic [15:0] wqe_counter,
                                                      input logic inv, input logic [31:0] inv_rkey);
    logic [`HCA_CQE_W-1:0] c;
    c = '0;
    `HCA_CQE_WR_ID(c)       = wr_id;
    `HCA_CQE_BYTE_LEN(c)    = byte_len;
    `HCA_CQE_QPN(c)         = 32'(qpn);
    `HCA_CQE_STATUS(c)      = 8'(status);
    `HCA_CQE_OPCODE(c)      = `HCA_WC_OPCODE_RECV;
    `HCA_CQE_WQE_COUNTER(c) = 32'(wqe_counter);
    if (inv) begin
      c[`HCA_CQE_WC_FLAGS_LSB + `HCA_WC_FLAGS_WITH_INVALIDATE_BIT] = 1'b1;
      `HCA_CQE_INVALIDATE_RKEY(c) = inv_rkey;
    end
    recv_cqe = c;
  endfunction

  logic [`HCA_PKT_W-1:0] read_resp;
  always_comb begin
    read_resp = resp_pkt(`HCA_PKT_OP_READ_RESP, `HCA_WC_STATUS_SUCCESS, p_dqpn_q, p_sqpn_q, p_psn_q);
    `HCA_PKT_FIRST(read_resp)   = rd_off_q == 32'd0;
    `HCA_PKT_LAST(read_resp)    = rd_end;
    `HCA_PKT_LEN(read_resp)     = rd_chunk;
    `HCA_PKT_OFFSET(read_resp)  = rd_off_q;
    `HCA_PKT_MSG_LEN(read_resp) = p_msglen_q;
    `HCA_PKT_PBUF(read_resp)    = rd_buf_q;
    `HCA_PKT_RADDR(read_resp)   = p_raddr_q + 64'(rd_off_q);
    if (p_msglen_q == 32'd0) begin
      // Zero length: one empty response, no buffer (pbuf 0, len 0).
      `HCA_PKT_FIRST(read_resp) = 1'b1;
      `HCA_PKT_LAST(read_resp)  = 1'b1;
      `HCA_PKT_LEN(read_resp)   = 32'd0;
      `HCA_PKT_PBUF(read_resp)  = 8'd0;
    end
  end

  // ---------------------------------------------------------------- the state machine
  // The endings: `fin` moves to FINISH with the actions a_*.
  logic                  fin;
  logic                  a_tx, a_cpl, a_free, a_inc, a_err, a_unbusy;
  logic [`HCA_PKT_W-1:0] a_tx_pkt;
  logic [4:0]            a_status;
  logic [63:0]           a_wr_id;
  logic [31:0]           a_byte_len;
  logic [7:0]            a_free_id;
  logic                  a_inv;        // the recv CQE reports the invalidation
  logic                  ev_send_ok;   // a SEND packet fully placed
  logic                  ev_send_end;  // ... and, for a SEND_INV's last, its DONE came
  logic                  ev_drop;      // drop the packet: free its buffer, no answer

  logic [63:0]           wqe_wr_id, fetch_wr_id;
  logic [15:0]           rx_dqpn;
  logic [QW-1:0]         rx_qpn;      // the QP the packet names, 0 when out of range
  assign wqe_wr_id   = `HCA_RQ_WQE_WR_ID(wqe_q);
  assign fetch_wr_id = `HCA_RQ_WQE_WR_ID(fetch_wqe);
  assign rx_dqpn     = `HCA_PKT_DST_QPN(rx_i);
  assign rx_qpn      = rx_dqpn < 16'(MAX_QP) ? rx_dqpn[QW-1:0] : '0;

  logic                  st_rts, st_reset;
  assign st_rts = qp_state_i == `HCA_QP_STATE_RTS;
  // The firmware wrote the QP to RESET (MODIFY_QP RESET, DESTROY_QP) while
  // a packet of it was being served: no placement starts after (the two
  // ways into S_GO after a wait check it; the others follow an RTS check
  // by a cycle), and no receive completion or rq_ci++ is written. A
  // placement already started finishes: the firmware's DRAIN waits for it.
  assign st_reset = qp_state_i == `HCA_QP_STATE_RESET;

  always_comb begin
    state_d     = state_q;
    qpn_d       = qpn_q;
    busy_wr     = 1'b0;
    busy_val    = 1'b0;
    wqe_valid_d = wqe_valid_q;
    wqe_qpn_d   = wqe_qpn_q;
    scan_pref_d = scan_pref_q;
    whole_d     = whole_q;
    rd_off_d    = rd_off_q;
    rd_buf_d    = rd_buf_q;
    res_key_d   = res_key_q;
    res_bus_d   = res_bus_q;
    tx_pend_d   = tx_pend_q && !(tx_valid_o && tx_ready_i);
    // a completion not taken yet is dropped once its QP is in RESET: after
    // the WRITE_QPC none of the QP's is left upstream of the CQ writer, whose
    // busy_o the DESTROY_QP / RESET DRAIN then waits for
    // (HCA_MUTANT_RESP_CPL_AFTER_RESET: it is still handed over)
    cpl_pend_d  = cpl_pend_q && !cpl_ready_i `ifndef HCA_MUTANT_RESP_CPL_AFTER_RESET && !st_reset `endif;
    free_pend_d = free_pend_q && !(pb_free_ready_i && !pf_sel);
    inc_pend_d  = 1'b0;
    err_pend_d  = 1'b0;
    err_wait_d  = err_wait_q;
    tx_d        = tx_q;
    rslot_d     = rslot_q;
    txp_d       = txp_q;
    txslot_d    = txslot_q;
    rd_cur_d    = rd_cur_q;
    pf_d        = pf_q && !pf_go;
    pfslot_d    = pfslot_q;
    pf_qpn_d    = pf_qpn_q;
    pf_buf_d    = pf_buf_q;
    wclr        = 1'b0;
    fq_pop      = 1'b0;
    cqe_d       = cqe_q;
    cqn_d       = cqn_q;
    free_id_d   = free_id_q;
    ctx_latch   = 1'b0;
    wqe_load    = 1'b0;
    pb_alloc_ready_o = 1'b0;

    fin        = 1'b0;
    a_tx       = 1'b0;
    a_cpl      = 1'b0;
    a_free     = 1'b0;
    a_inc      = 1'b0;
    a_err      = 1'b0;
    a_unbusy   = 1'b0;
    a_tx_pkt   = resp_pkt(`HCA_PKT_OP_ACK, `HCA_WC_STATUS_SUCCESS, p_dqpn_q, p_sqpn_q, p_psn_q);
    a_status   = `HCA_WC_STATUS_SUCCESS;
    a_wr_id    = wqe_wr_id;
    a_byte_len = 32'd0;
    a_free_id  = p_pbuf_q;
    a_inv       = 1'b0;
    ev_send_ok  = 1'b0;
    ev_send_end = 1'b0;
    ev_drop     = 1'b0;

    case (state_q)
      S_IDLE: begin
        if (rx_fire) begin
          state_d     = S_PKT_CTX0;
          qpn_d       = rx_qpn;
          scan_pref_d = 1'b1;
        end else if (fq_valid) begin
          state_d     = S_SCAN_CTX0;
          qpn_d       = fq_head;
          scan_pref_d = 1'b0;
        end else begin
          scan_pref_d = 1'b0;
        end
      end

      S_PKT_CTX0: begin
        if (p_dqpn_q == 16'd0 || p_dqpn_q >= 16'(MAX_QP)) begin
          fin    = 1'b1;              // no such QP
          a_free = pkt_has_buf;
        end else begin
          state_d = S_PKT_CTX1;
        end
      end

      S_PKT_CTX1: begin
        ctx_latch = 1'b1;
        if (!st_rts) begin
          ev_drop = 1'b1;             // RESET or ERROR: dropped, the scan flushes
        end else if (p_send) begin
          if (p_first_q) begin
            if (rq_ci_i == rq_pi_i) begin
              fin      = 1'b1;        // receiver not ready
              a_tx     = 1'b1;
              a_tx_pkt = resp_pkt(`HCA_PKT_OP_RNR_NAK, `HCA_WC_STATUS_SUCCESS, p_dqpn_q, p_sqpn_q, p_psn_q);
              a_free   = pkt_has_buf;
              a_unbusy = 1'b1;
            end else begin
              state_d = S_FETCH_REQ;
            end
          end else if (!busy_q[qpn_q]) begin
            fin    = 1'b1;            // its message was refused (RNR): drop quietly
            a_free = pkt_has_buf;
          end else if (wqe_valid_q && wqe_qpn_q == qpn_q) begin
            state_d = S_SEND_PLAN;
          end else begin
            state_d = S_FETCH_REQ;
          end
        end else if (p_op_q == `HCA_PKT_OP_WRITE) begin
          if (p_len_q > 32'(BUF_SIZE)) begin
            fin      = 1'b1;
            a_tx     = 1'b1;
            a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
            a_err    = 1'b1;
            a_free   = pkt_has_buf;
          end else if (p_first_q && p_msglen_q != 32'd0) begin
            state_d = S_GO;
            whole_d = 1'b1;
          end else if (p_len_q != 32'd0) begin
            state_d = S_GO;
            whole_d = 1'b0;
          end else begin
            fin    = 1'b1;            // zero length: no key check (IBA C9-88)
            a_tx   = p_last_q;
            a_free = pkt_has_buf;
          end
        end else if (p_op_q == `HCA_PKT_OP_READ_REQ) begin
          rd_off_d = 32'd0;
          if (p_msglen_q == 32'd0) begin
            fin      = 1'b1;          // zero length: no key check, one empty READ_RESP
            a_tx     = 1'b1;
            a_tx_pkt = read_resp;
          end else begin
            state_d = S_GO;           // the whole range first, as a WRITE's first packet
            whole_d = 1'b1;
          end
        end else begin
          ev_drop = 1'b1;             // not a request: not the responder's
        end
      end

      S_FETCH_REQ: begin
        if (dma_req_ready_i) state_d = S_FETCH_RSP;
      end

      S_FETCH_RSP: begin
        if (fetch_rsp) begin
          if (fetch_err) begin
            fin      = 1'b1;
            a_cpl    = 1'b1;
            a_status = `HCA_WC_STATUS_LOC_ACCESS_ERR;
            a_wr_id  = 64'd0;
            a_inc    = 1'b1;
            a_tx     = 1'b1;
            a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_OP_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
            a_err    = 1'b1;
            a_free   = pkt_has_buf;
            a_unbusy = 1'b1;
          end else begin
            wqe_load    = 1'b1;
            wqe_valid_d = 1'b1;
            wqe_qpn_d   = qpn_q;
            state_d     = S_SEND_PLAN;
          end
        end
      end

      S_SEND_PLAN: begin
        if (st_reset) begin
          ev_drop = 1'b1;             // reset while its WQE was fetched
        end else if (wqe_bad) begin
          fin      = 1'b1;
          a_cpl    = 1'b1;
          a_status = `HCA_WC_STATUS_LOC_QP_OP_ERR;
          a_inc    = 1'b1;
          a_tx     = 1'b1;
          a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_OP_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
          a_err    = 1'b1;
          a_free   = pkt_has_buf;
          a_unbusy = 1'b1;
        end else if (len_bad) begin
          fin      = 1'b1;
          a_cpl    = 1'b1;
          a_status = `HCA_WC_STATUS_LOC_LEN_ERR;
          a_inc    = 1'b1;
          a_tx     = 1'b1;
          a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
          a_err    = 1'b1;
          a_free   = pkt_has_buf;
          a_unbusy = 1'b1;
        end else begin
          busy_wr  = 1'b1;
          busy_val = 1'b1;
          if (p_len_q != 32'd0) begin
            state_d = S_GO;
            whole_d = 1'b0;
          end else begin
            ev_send_ok = 1'b1;
          end
        end
      end

      S_GO: begin
        if (!go_wait) state_d = S_PLACE;
      end

      S_PLACE: begin
        if (eng_done) begin
          res_key_d = eng_key_fail;
          res_bus_d = eng_bus_err;
          state_d   = S_RESULT;
        end
      end

      S_RESULT: begin
        // A READ_RESP of the previous chunk may still wait for the link
        // (or for its answers: a bad one is dropped first).
        if (tx_bad) begin
          state_d  = S_RD_DROP;
          rd_cur_d = 1'b1;
        end else if (!tx_pend_q) begin
          if (p_send) begin
            if (res_key_q || res_bus_q) begin
              fin      = 1'b1;
              a_cpl    = 1'b1;
              a_status = res_key_q ? `HCA_WC_STATUS_LOC_PROT_ERR : `HCA_WC_STATUS_LOC_ACCESS_ERR;
              a_inc    = 1'b1;
              a_tx     = 1'b1;
              a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_OP_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
              a_err    = 1'b1;
              a_free   = pkt_has_buf;
              a_unbusy = 1'b1;
            end else begin
              ev_send_ok = 1'b1;
            end
          end else if (p_op_q == `HCA_PKT_OP_WRITE) begin
            if (pf_q) begin
              // the posted packet before: its DMAs first (ACK/NAK follow them)
            end else if (res_key_q || res_bus_q) begin
              fin      = 1'b1;
              a_tx     = 1'b1;
              a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK,
                                  res_key_q ? `HCA_WC_STATUS_REM_ACCESS_ERR : `HCA_WC_STATUS_REM_OP_ERR,
                                  p_dqpn_q, p_sqpn_q, p_psn_q);
              a_err    = 1'b1;
              a_free   = pkt_has_buf;
              wclr = 1'b1;
            end else if (whole_q && p_len_q != 32'd0 && st_reset) begin
              fin    = 1'b1;          // reset after the whole-range check: place nothing
              a_free = pkt_has_buf;
            end else if (whole_q && p_len_q != 32'd0) begin
              state_d = S_GO;         // the whole message may be written: now this packet
              whole_d = 1'b0;
            end else if (post_job) begin
              fin       = 1'b1;       // posted: its buffer is freed once its DMAs are answered
              pf_d      = 1'b1;
              pf_buf_d  = p_pbuf_q;
              pf_qpn_d  = qpn_q;
              pfslot_d  = rslot_q;
              rslot_d   = !rslot_q;
            end else begin
              fin    = 1'b1;
              a_tx   = p_last_q;      // ACK once the last packet's DMAs are answered
              a_free = pkt_has_buf;
              if (p_last_q) begin
                wclr = 1'b1;
                if (werr_q[qpn_q]) begin   // a posted packet of the message failed
                  a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_OP_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
                  a_err    = 1'b1;
                end
              end
            end
          end else begin
            if (res_key_q || res_bus_q) begin
              fin       = 1'b1;
              a_tx      = 1'b1;
              a_tx_pkt  = resp_pkt(`HCA_PKT_OP_NAK,
                                   res_key_q ? `HCA_WC_STATUS_REM_ACCESS_ERR : `HCA_WC_STATUS_REM_OP_ERR,
                                   p_dqpn_q, p_sqpn_q, p_psn_q);
              a_err     = 1'b1;
              a_free    = !whole_q;   // the chunk's own buffer, never sent (none yet on the whole check)
              a_free_id = rd_buf_q;
            end else if (whole_q) begin
              state_d = S_RD_ALLOC;   // the whole range may be read: now chunk by chunk
              whole_d = 1'b0;
            end else begin
              tx_pend_d = 1'b1;
              tx_d      = read_resp;
              txp_d     = 1'b1;       // sent once the chunk's posted gathers are answered
              txslot_d  = rslot_q;
              rslot_d   = !rslot_q;
              rd_off_d  = rd_off_q + rd_chunk;
              if (rd_end) state_d = S_FINISH;
              else        state_d = S_RD_ALLOC;
            end
          end
        end
      end

      S_RD_ALLOC: begin
        pb_alloc_ready_o = 1'b1;
        if (pb_alloc_valid_i) begin
          rd_buf_d = pb_alloc_id_i;
          if (st_rts) begin
            state_d = S_GO;
          end else begin
            fin       = 1'b1;         // the QP left RTS meanwhile: stop, give it back
            a_free    = 1'b1;
            a_free_id = pb_alloc_id_i;
          end
        end else if (!st_rts) begin
          fin = 1'b1;
        end
      end

      S_SCAN_CTX0: begin
        state_d = S_SCAN_CTX1;
      end

      S_SCAN_CTX1: begin
        ctx_latch = 1'b1;
        if (!st_rts) begin
          busy_wr  = 1'b1;
          busy_val = 1'b0;
          wclr = 1'b1;
          if (wqe_qpn_q == qpn_q) wqe_valid_d = 1'b0;
        end
        if (qp_state_i == `HCA_QP_STATE_ERROR && rq_ci_i != rq_pi_i) begin
          state_d = S_FL_REQ;         // stay on this QP until its RQ is empty
        end else begin
          state_d = S_IDLE;
          fq_pop  = 1'b1;
        end
      end

      S_FL_REQ: begin
        if (dma_req_ready_i) state_d = S_FL_RSP;
      end

      S_FL_RSP: begin
        if (fetch_rsp) begin
          fin      = 1'b1;
          a_cpl    = 1'b1;
          a_status = `HCA_WC_STATUS_WR_FLUSH_ERR;
          a_wr_id  = fetch_err ? 64'd0 : fetch_wr_id;
          a_inc    = 1'b1;
        end
      end

      S_EVT: begin
        if (evt_ready_i) state_d = S_EVT_WAIT;
      end

      S_EVT_WAIT: begin
        ev_send_end = evt_done;
      end

      S_FINISH: begin
        if (!err_pend_q && !st_rts) err_wait_d = 1'b0;
        if (tx_bad) begin
          state_d  = S_RD_DROP;       // the last chunk's gather failed
          rd_cur_d = 1'b0;
        end else if (!tx_pend_q && !cpl_pend_q && !free_pend_q && !inc_pend_q && !err_pend_q && !err_wait_q)
          state_d = S_IDLE;
      end

      S_RD_DROP: begin
        if (!free_pend_q) begin
          tx_pend_d   = 1'b0;         // the READ_RESP is not sent: its buffer goes back
          txp_d       = 1'b0;
          free_pend_d = 1'b1;
          free_id_d   = tx_pbuf;
          state_d     = S_RD_NAK;
        end
      end

      S_RD_NAK: begin
        if (!free_pend_q && rcnt0_q == 4'd0 && rcnt1_q == 4'd0) begin
          fin       = 1'b1;
          a_tx      = 1'b1;
          a_tx_pkt  = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_OP_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
          a_err     = 1'b1;
          a_free    = rd_cur_q;
          a_free_id = rd_buf_q;
        end
      end

      default: state_d = S_IDLE;
    endcase

    // A SEND packet placed. The last packet of a SEND_INV first has the
    // firmware invalidate its key: CQE and ACK must follow the fence.
    if (ev_send_ok) begin
      if (p_last_q && p_op_q == `HCA_PKT_OP_SEND_INV) state_d     = S_EVT;
      else                                            ev_send_end = 1'b1;
    end

    // The packet is done with; the last one completes the message.
    if (ev_send_end) begin
      fin    = 1'b1;
      a_free = pkt_has_buf;
      if (p_last_q) begin
        a_cpl      = 1'b1;
        a_inc      = 1'b1;
        a_tx       = 1'b1;
        a_unbusy   = 1'b1;
        a_byte_len = p_off_q + p_len_q;
        if (p_op_q == `HCA_PKT_OP_SEND_INV) begin
          if (evt_ok) begin
            a_inv    = 1'b1;
          end else begin
            a_status = `HCA_WC_STATUS_REM_INV_REQ_ERR;
            a_tx_pkt = resp_pkt(`HCA_PKT_OP_NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, p_dqpn_q, p_sqpn_q, p_psn_q);
            a_err    = 1'b1;
          end
        end
      end
    end

    if (ev_drop) begin
      fin      = 1'b1;
      a_free   = pkt_has_buf;
      a_unbusy = 1'b1;
    end

    if (fin) begin
      state_d    = S_FINISH;
      inc_pend_d = a_inc && !st_reset;
      err_pend_d = a_err;
      err_wait_d = a_err;
      if (a_tx) begin
        tx_pend_d = 1'b1;
        tx_d      = a_tx_pkt;
        txp_d     = 1'b0;
      end
      if (a_cpl && !st_reset) begin
        cpl_pend_d = 1'b1;
        cqe_d      = recv_cqe(a_wr_id, a_status, a_byte_len, qpn_q, c_rqci_q, a_inv, p_invkey_q);
        cqn_d      = c_cqn_q;
      end
      if (a_free) begin
        free_pend_d = 1'b1;
        free_id_d   = a_free_id;
      end
      if (a_unbusy || a_inc) begin
        // The message ended (or the WQE was consumed): forget its WQE.
        busy_wr  = 1'b1;
        busy_val = 1'b0;
        if (wqe_qpn_q == qpn_q) wqe_valid_d = 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= S_IDLE;
      qpn_q       <= '0;
      busy_q      <= '0;
      wqe_valid_q <= 1'b0;
      wqe_qpn_q   <= '0;
      scan_pref_q <= 1'b0;
      whole_q     <= 1'b0;
      rd_off_q    <= '0;
      rd_buf_q    <= '0;
      res_key_q   <= 1'b0;
      res_bus_q   <= 1'b0;
      tx_pend_q   <= 1'b0;
      cpl_pend_q  <= 1'b0;
      free_pend_q <= 1'b0;
      inc_pend_q  <= 1'b0;
      err_pend_q  <= 1'b0;
      err_wait_q  <= 1'b0;
      rslot_q     <= 1'b0;
      rcnt0_q     <= '0;
      rcnt1_q     <= '0;
      rberr0_q    <= 1'b0;
      rberr1_q    <= 1'b0;
      txp_q       <= 1'b0;
      txslot_q    <= 1'b0;
      rd_cur_q    <= 1'b0;
      pf_q        <= 1'b0;
      fsel_q      <= 1'b0;
      pfslot_q    <= 1'b0;
      pf_qpn_q    <= '0;
      werr_q      <= '0;
    end else begin
      state_q     <= state_d;
      qpn_q       <= qpn_d;
      // busy_q and werr_q (MAX_QP bits) are written only in the cycles
      // that change one of their bits, not given a table-wide next value
      // every cycle.
      if (busy_wr) begin
        busy_q <= (busy_q & ~(MAX_QP'(1) << qpn_q)) | (MAX_QP'(busy_val) << qpn_q);
      end
      wqe_valid_q <= wqe_valid_d;
      wqe_qpn_q   <= wqe_qpn_d;
      scan_pref_q <= scan_pref_d;
      whole_q     <= whole_d;
      rd_off_q    <= rd_off_d;
      rd_buf_q    <= rd_buf_d;
      res_key_q   <= res_key_d;
      res_bus_q   <= res_bus_d;
      tx_pend_q   <= tx_pend_d;
      cpl_pend_q  <= cpl_pend_d;
      free_pend_q <= free_pend_d;
      inc_pend_q  <= inc_pend_d;
      err_pend_q  <= err_pend_d;
      err_wait_q  <= err_wait_d;
      rslot_q     <= rslot_d;
      rcnt0_q     <= rcnt0_q + 4'(post_fire && !rslot_q) - 4'(prsp0);
      rcnt1_q     <= rcnt1_q + 4'(post_fire && rslot_q) - 4'(prsp1);
      // a chunk starting on a slot clears its error (its last chunk was sent or dropped)
      rberr0_q    <= (eng_start && job_post && !rslot_q) ? 1'b0 : rberr0_q || (prsp0 && `HCA_DMA_RSP_ERR(dma_rsp_i));
      rberr1_q    <= (eng_start && job_post && rslot_q) ? 1'b0 : rberr1_q || (prsp1 && `HCA_DMA_RSP_ERR(dma_rsp_i));
      txp_q       <= txp_d;
      txslot_q    <= txslot_d;
      rd_cur_q    <= rd_cur_d;
      pf_q        <= pf_d;
      fsel_q      <= pf_sel && !pb_free_ready_i;
      pfslot_q    <= pfslot_d;
      pf_qpn_q    <= pf_qpn_d;
      if ((pf_go && pf_berr) || wclr) begin
        werr_q <= (werr_q | ((pf_go && pf_berr) ? MAX_QP'(1) << pf_qpn_q : '0)) & ~(wclr ? MAX_QP'(1) << qpn_q : '0);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    tx_q      <= tx_d;
    cqe_q     <= cqe_d;
    cqn_q     <= cqn_d;
    free_id_q <= free_id_d;
    pf_buf_q  <= pf_buf_d;
  end

  // ---------------------------------------------------------------- outputs
  assign qpc_idx_o       = qpn_q;
  assign rq_ci_inc_o     = inc_pend_q;
  assign qp_err_valid_o  = err_pend_q;
  assign qp_err_qpn_o    = qpn_q;
  assign tx_valid_o      = tx_pend_q && !tx_wait && !tx_bad;
  assign tx_o            = tx_q;
  assign cpl_valid_o     = cpl_pend_q;
  assign cpl_o           = cqe_q;
  assign cpl_cqn_o       = cqn_q;
  assign pb_free_valid_o = free_pend_q || pf_rdy;
  assign pb_free_id_o    = pf_sel ? pf_buf_q : free_id_q;

  // The twin of hca_responder_quiet_until: IDLE with no flush step due or
  // queued, nothing pending and the placement engine idle; only an input (a
  // packet, a push) wakes it. Or (rs_waits) waiting only for DMA answers (the
  // RQ WQE, the engine's writes: eng_waits, a READ_RESP's gathers) or for
  // the link, nothing else pending, no posted free offered (fsel_q) or ready
  // and no translation request out.
  logic idle, waits, tx_waits;
  assign idle     = state_q == S_IDLE && !scan_pref_q && !fq_valid && !tx_pend_q && !cpl_pend_q && !free_pend_q &&
                    !inc_pend_q && rcnt0_q == 4'd0 && rcnt1_q == 4'd0 && !pf_q && !err_pend_q && !err_wait_q &&
                    !eng_busy;
  assign tx_waits = tx_pend_q && (tx_wait || (tx_valid_o && !tx_ready_i));
  always_comb begin
    waits = 1'b0;
    if (!fsel_q && !xq_valid_o && !eng_dma_valid && !cpl_pend_q && !free_pend_q && !inc_pend_q && !err_pend_q &&
        !err_wait_q && !pf_rdy) begin
      case (state_q)
        S_IDLE:                waits = !eng_busy && !scan_pref_q && !fq_valid && (!tx_pend_q || tx_waits);
        S_FETCH_RSP, S_FL_RSP: waits = !eng_busy && (!tx_pend_q || tx_waits);
        S_PLACE:               waits = eng_waits && (!tx_pend_q || tx_waits);
        // also a WRITE packet behind the posted one's free (its DMAs first)
        S_RESULT:              waits = !eng_busy && (tx_waits || (!tx_pend_q && !p_send &&
                                                                  p_op_q == `HCA_PKT_OP_WRITE && pf_q));
        S_FINISH:              waits = !eng_busy && tx_waits;
        default:               waits = 1'b0;
      endcase
    end
  end
  assign quiet_o = idle || waits;

endmodule
