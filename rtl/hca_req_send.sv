`default_nettype none
`include "hca_abi.svh"

// hca_req_send — the requester's send engine (docs/engine.md "Requester"
// steps 1-5 and 8): takes a QP from the scheduler, fetches the WQE at
// sq_ci, decodes it, pre-checks its SGEs, gathers and sends the message,
// then hands the QP to the response engine (park: the message is in
// flight) — or completes it here (flush, malformed WQE, bus error, failed
// key check).
//
//   S_IDLE    claim the scheduled QP; its context is read
//   S_CTX     latch the context fields used below; no WQE of the QP in
//             the prefetch buffer: start its read there (the miss read),
//             or with no read slot free and another QP offered, yield
//   S_FETCH   READ_DATA 128 bytes at sq_base + (sq_ci mod 2^sq_log) * 128
//   S_FWAIT   the WQE (or a bus error: LOC_ACCESS_ERR, wr_id 0)
//   S_PWAIT   the WQE at sq_ci was prefetched (below): take it from the
//             prefetch entry, waiting while its read is on its way — or,
//             another QP schedulable meanwhile, release this one (idle)
//             and serve that one (the yield, below)
//   S_DECODE  ERROR -> WR_FLUSH_ERR; malformed -> LOC_QP_OP_ERR;
//             FAST_REG_MR / REG_INDIR_MR / LOCAL_INV -> S_EVT;
//             SGE lengths summing past 2^32-1 -> LOC_LEN_ERR; else pre-check
//   S_EVT     post the operation's fw_event (waits while the queue is
//             full), then park the QP waiting for the firmware's DONE: the
//             response engine completes it (with DONE's status)
//   S_CHECK   every SGE whole (rights 0, READ: LOCAL_WRITE) -> LOC_PROT_ERR
//   S_ALLOC   SEND/WRITE: a packet buffer for the next chunk
//   S_GATHER  key-check the chunk's pieces and post their HOST_TO_BUFs
//   S_HOLD    the chunk is gathered while the one before still waits for
//             its DMA answers or the link: wait for that one to leave
//   S_TXWAIT  the last chunk is posted: wait until its packet left, then
//             park the message and release the QP as in flight
//   S_TX      READ: the READ_REQ, then park and release as in flight
//   Double buffering: a gathered chunk (its DMAs posted, not necessarily
//   answered) waits in the pending register (pv_q) while the next chunk is
//   allocated and gathered; the pending packet is sent as soon as every DMA
//   of its chunk was answered (per-chunk answer counters cnt*_q, by tag),
//   so chunk k+1's host reads overlap chunk k's and its time on the link.
//   A NAK for the message that comes back while it is still being sent
//   (nak_i: kept by the response engine), a failed key check or a bus error
//   stops it at the next of S_ALLOC / S_GATHER (chunk walked) / S_HOLD /
//   S_TXWAIT: no further packet is sent (the pending one is not either),
//   S_ABORT waits for every posted DMA's answer, S_FREE gives back the
//   buffers held (pending, then current), S_FINISH completes with the NAK's
//   syndrome, LOC_PROT_ERR or LOC_ACCESS_ERR, QP -> ERROR. Packets sent
//   before that are dropped by the responder. An RNR_NAK with retries left
//   (nak_rnr_i) stops it the same way, but S_FREE then releases the QP into
//   RNR wait (rel_rnr_o): no completion, the message is resent from its
//   WQE after rnr_timer cycles.
//   S_FINISH  completion (always written: errors and flushes) + release
//   The firmware writing the QP to RESET (MODIFY_QP RESET, DESTROY_QP)
//   while this engine holds it (ctx_reset: the context read port follows
//   the live state) stops it at its next step, before any further DMA,
//   packet or event: S_FETCH/S_DECODE/S_CHECK/S_EVT/S_TX go to S_FINISH,
//   S_ALLOC/S_GATHER/S_HOLD/S_TXWAIT (buffers and DMAs) through S_ABORT and
//   S_FREE, and S_FINISH releases the QP without a completion. A mover
//   already working finishes first: its DMAs were key-checked before the
//   RESET, the firmware's DRAIN waits for them (mv_busy_o covers every
//   posted DMA until it is answered).
//
// SEND_WITH_INV is a SEND whose packets are SEND_INV carrying inv_key;
// RDMA_READ_WITH_INV a READ whose park entry asks the response engine for a
// READ_INV event of inv_key (0: sge[0]'s lkey) after the last byte. One with
// neither (inv_key 0, no SGE) names no MR to invalidate: LOC_QP_OP_ERR at
// decode, nothing sent (silently skipping the invalidation the consumer
// asked for would be worse).
//
// WQE prefetch: the engine reads each QP's posted WQEs up to two ahead into
// a small direct-mapped buffer (PFN entries, entry = {qpn, index bit 0} mod
// PFN: two per QP, PFN/2 QPs; tag qpn, index). Having taken the WQE at i
// (and for two cycles more, while it holds the QP) it reads i+1 into the
// other entry unless that holds it (read or on its way), then i+2 into the
// entry just taken. Two reads ahead per QP keep a QP's WR period near half
// a read round trip.
// Each is one READ_DATA through one of RDN read slots (tag {0000_1, slot}:
// the DMA tags and the DRAIN's sources are few, the entries many), offered
// when the port is free (it then has the port until taken); one allocated
// a cycle (the cycle the one before issues, at the earliest), none while
// every slot's read is out. The QP's next claim at that index
// takes the WQE from the entry instead of a host read round trip. A posted
// WQE is not rewritten before its completion, so the copy is exact; an
// entry is dropped when its QP is claimed at another index of its parity
// (an RNR retry), by any WRITE_QPC of a QP of its entries (RESET,
// reconnect: a pending read's answer is then discarded), and never
// allocated for a QP already reset.
// A claim that hits its entry reads sq_ci + 1 ahead too when no other QP
// waits for the engine (with others waiting the slot is left to their miss
// reads). A claim that finds no WQE in the buffer reads its WQE at sq_ci
// the same way (the miss read, allocated at S_CTX, when the entry and a
// read slot are free; else it yields as below, another QP offered, or
// with none the blocking fetch, S_FETCH). Waiting in S_PWAIT for a
// read still out, the engine yields to another QP the scheduler offers: it
// releases this one idle (it is queued again behind the others, its read
// going on) — only a QP claimed from idle (sched_fresh_i: no message of it
// in flight or in RNR wait, whose release would lose that) and not in
// ERROR. An answer arriving in S_PWAIT for the entry is taken at once, as
// the fetch's is.
// Like the fetch, a prefetch is a read of the QP's send queue: ctx DRAIN
// waits for both (rd_busy_o), so no read of a QP's SQ is on the bus once
// its DESTROY_QP / MODIFY_QP RESET returned (the driver may free the ring).
//
// psn = the WQE's SQ index (one per WR, what ACK/NAK/READ_RESP echo).
module hca_req_send #(
  parameter int QW  = 6,                          // QP number bits
  parameter int PFN = `HCA_SQ_PREFETCH_ENTRIES    // prefetch entries (a power of two)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  // scheduler: a QP to serve (claimed with sched_ready_o)
  input  logic                          sched_valid_i,
  output logic                          sched_ready_o,
  input  logic [QW-1:0]                 sched_qpn_i,
  input  logic                          sched_fresh_i,    // ...claimed from idle (nothing of it in flight)

  // context read port (answers one cycle after qpn_o)
  output logic [15:0]                   qpn_o,
  input  logic [`HCA_QP_CTX_W-1:0]      qpc_i,
  input  logic [15:0]                   sq_ci_i,
  input  logic [15:0]                   sq_pi_i,          // with sq_ci_i: the WQEs posted
  // a WRITE_QPC of pf_kill_qpn_i: drop the prefetch entry of its number
  input  logic                          pf_kill_i,
  input  logic [15:0]                   pf_kill_qpn_i,

  // a NAK for the message being sent (kept per QP by the wrapper)
  input  logic                          nak_i,
  input  logic [4:0]                    nak_syn_i,
  input  logic                          nak_rnr_i,        // ...an RNR_NAK to retry

  // release of the claimed QP: to in flight (park_o written) or idle
  output logic                          rel_valid_o,
  output logic                          rel_inflight_o,
  output logic                          rel_evt_o,        // ...waiting for DONE (with rel_inflight_o)
  output logic                          rel_rnr_o,        // ...into RNR wait (not in flight)
  output logic [31:0]                   rnr_timer_o,      // with rel_rnr_o
  output logic [PARK_W-1:0]             park_o,

  // memory-management events (tag = QP number)
  output logic                          evt_valid_o,
  input  logic                          evt_ready_i,
  output logic [`HCA_FW_EVENT_W-1:0]    evt_o,

  // packet buffers
  input  logic                          alloc_valid_i,
  output logic                          alloc_ready_o,
  input  logic [7:0]                    alloc_id_i,
  output logic                          free_valid_o,
  input  logic                          free_ready_i,
  output logic [7:0]                    free_id_o,

  // translation client
  output logic                          xq_valid_o,
  input  logic                          xq_ready_i,
  output logic [XREQ_W-1:0]             xq_o,
  input  logic                          xs_valid_i,
  output logic                          xs_ready_o,
  input  logic [`HCA_XLATE_STATUS_W-1:0] xs_status_i,
  input  logic                          xs_last_i,
  input  logic [31:0]                   xs_len_i,
  input  logic [63:0]                   xs_pa_i,

  // DMA client (tag DTAG)
  output logic                          dma_req_valid_o,
  input  logic                          dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]     dma_req_o,
  input  logic                          dma_rsp_valid_i,
  output logic                          dma_rsp_ready_o,
  input  logic [`HCA_DMA_RSP_W-1:0]     dma_rsp_i,

  // link
  output logic                          tx_valid_o,
  input  logic                          tx_ready_i,
  output logic [`HCA_PKT_W-1:0]         tx_o,

  // completion + sq_ci++ (+ ERROR): {qpn, cqn, write, err, cqe}
  output logic                          fin_valid_o,
  input  logic                          fin_ready_i,
  output logic [FIN_W-1:0]              fin_o,

  // the mover holds key-checked work not yet answered (ctx DRAIN)
  output logic [2:0]                    mv_busy_o,   // {slot 1 posted, slot 0 posted, mover} (ctx DRAIN)
  output logic [RDN:0]                  rd_busy_o,   // {prefetch read slot RDN-1..0 out, the fetch} (ctx DRAIN)
  output logic                          quiet_o          // waits only for an input (hca_core quiet_o)
);

  localparam int XREQ_W = 8 + `HCA_ACCESS_W + 1 + 32 + `HCA_PD_BITS + 32 + 64;
  localparam int SGES_W = 4 * `HCA_SGE_W;
  localparam int PARK_W = 16 + 4 + 1 + 1 + 3 + 32 + 32 + 64 + SGES_W;
  localparam int FR_W   = `HCA_SQ_WQE_SGE_LSB - `HCA_SQ_WQE_FR_IOVA_LSB;   // the fr_* fields
  localparam int FIN_W  = 16 + 16 + 2 + `HCA_CQE_W;
  localparam logic [7:0] DTAG = 8'b0000_0000;   // requester, send engine
  localparam logic [7:0] XTAG = 8'h00;

  typedef enum logic [3:0] {
    S_IDLE, S_CTX, S_FETCH, S_FWAIT, S_DECODE, S_CHECK, S_ALLOC, S_GATHER,
    S_TX, S_FREE, S_FINISH, S_EVT, S_HOLD, S_TXWAIT, S_ABORT, S_PWAIT
  } state_e;
  localparam int PFW = (PFN > 1) ? $clog2(PFN) : 1;
  localparam int RDN = `HCA_SQ_PREFETCH_READS;   // prefetch reads out at once (tags, DRAIN sources)
  localparam int RDW = 3;                        // tag {0000_1, slot}: RDN = 8
  localparam int WQE_W = `HCA_SQ_WQE_W;
  localparam logic [3:0] POST_MAX = 4'd8;   // posted DMAs per chunk: tags {0001, slot, seq mod 8}

  // (the read slots are the DRAIN sources hca_requester wires above the fetch's)
  generate if (PFN < 2 || PFN > 256 || (PFN & (PFN - 1)) != 0 || RDN != 8) begin : g_bad_params
`ifdef __ICARUS__
    initial $fatal(1, "hca_req_send: PFN=%0d must be a power of two in [2, 256], SQ_PREFETCH_READS 8", PFN);
`else
    $error("hca_req_send: PFN must be a power of two in [2, 256], SQ_PREFETCH_READS 8");
`endif
  end endgenerate

  state_e        state_q, state_d;
  logic [QW-1:0] qpn_q;

  // context fields (data)
  logic [63:0]   sq_base_q;
  logic [3:0]    sq_log_q, mtu_log_q;
  logic [23:0]   pd_q;
  logic [15:0]   rqpn_q, cqn_q, sq_ci_q;
  logic          err_state_q;
  logic          fresh_q;             // claimed with sched_fresh_i

  // the decoded WQE (data): the only copy of the 1024-bit entry kept
  logic [7:0]    op_q;
  logic [7:0]    flags_q;
  logic [3:0]    nsge_q;
  logic          rsvd_bad_q;
  logic [63:0]   wr_id_q, raddr_q;
  logic [31:0]   rkey_q, inv_key_q;
  logic [FR_W-1:0]   fr_q;     // fr_iova .. fr_params, as in the WQE
  logic [SGES_W-1:0] sges_q;

  // progress (control)
  logic [31:0]   off_q, off_d;
  logic [7:0]    buf_q, buf_d;
  logic [4:0]    status_q, status_d;   // completion status
  logic          err_q, err_d;         // the completion moves the QP to ERROR
  logic          rnr_q, rnr_d;         // stopped by an RNR_NAK: released into RNR wait
  logic          cur_q, cur_d;         // buf_q is held by the chunk being gathered
  logic          slot_q, slot_d;       // the slot (tag bit, answer counter) of that chunk

  // double buffering (control): posted DMAs per slot, the pending packet
  logic [3:0]    cnt0_q, cnt1_q;       // posted, not yet answered
  logic [2:0]    seq0_q, seq1_q;       // tag of the next post
  logic          berr0_q, berr1_q;     // an answer of the slot's chunk was err
  logic          pv_q, pv_d;           // a gathered chunk waits to be sent
  logic          pslot_q;
  // the pending packet (data)
  logic [7:0]    pbuf_q;
  logic [31:0]   poff_q, plen_q;
  logic          plast_q;

  // prefetch entries: valid (the WQE is there), pending (its read is on its
  // way), dead (pending, its answer is discarded); tags and data by index
  logic [PFN-1:0]   pf_val_q, pf_pend_q, pf_dead_q, pf_err_q;
  logic [PFN-1:0]   pf_val_d, pf_pend_d, pf_dead_d;
  logic [QW-1:0]    pf_qpn_m [PFN];
  logic [15:0]      pf_idx_m [PFN];
  logic [WQE_W-1:0] pf_wqe_m [PFN];
  logic             pf_req_q, pf_held_q;  // a prefetch to issue; offered, not taken
  logic [PFW-1:0]   pf_ent_q;
  logic [RDW-1:0]   pf_slot_q;
  logic [63:0]      pf_addr_q;
  // read slots: out (from the allocation to the answer), the entry each fills
  logic [RDN-1:0]   rd_out_q, rd_out_d;
  logic [PFW-1:0]   rd_ent_m [RDN];

  // ---------------------------------------------------------------- decode
  logic          is_send, is_write, is_read, is_mm, is_send_inv, is_read_inv, malformed;
  logic          no_inv_key;
  logic [32:0]   msg_len33;
  logic [31:0]   msg_len;
  logic [2:0]    nsge3;
  logic [7:0]    wc_op;
  assign is_send_inv = op_q == `HCA_WR_OPCODE_SEND_WITH_INV;
  assign is_read_inv = op_q == `HCA_WR_OPCODE_RDMA_READ_WITH_INV;
  assign is_send     = op_q == `HCA_WR_OPCODE_SEND || is_send_inv;
  assign is_write    = op_q == `HCA_WR_OPCODE_RDMA_WRITE;
  assign is_read     = op_q == `HCA_WR_OPCODE_RDMA_READ || is_read_inv;
  assign is_mm       = op_q == `HCA_WR_OPCODE_LOCAL_INV || op_q == `HCA_WR_OPCODE_FAST_REG_MR ||
                       op_q == `HCA_WR_OPCODE_REG_INDIR_MR;
  assign malformed   = op_q > `HCA_WR_OPCODE_REG_INDIR_MR || nsge_q > 4'(`HCA_MAX_SEND_SGE) ||
                       rsvd_bad_q || (flags_q >> 2) != 8'd0 || (is_read_inv && no_inv_key);
  assign nsge3       = (nsge_q > 4'd4) ? 3'd4 : nsge_q[2:0];

  // Field selects are continuous assignments: Icarus cannot infer an
  // always_comb's sensitivity through constant part selects.
  logic [31:0] sg_len [4];
  for (genvar g = 0; g < 4; g++) begin : g_sg_len
    assign sg_len[g] = sges_q[g * `HCA_SGE_W + `HCA_SGE_LENGTH_LSB +: 32];
  end
  // The key a READ_WITH_INV invalidates: inv_key, by default sge[0]'s.
  logic [31:0] read_inv_key;
  assign no_inv_key   = inv_key_q == 32'd0 && nsge_q == 4'd0;
  assign read_inv_key = (inv_key_q != 32'd0) ? inv_key_q : `HCA_SGE_LKEY(sges_q);
  assign msg_len33 = ((nsge3 > 3'd0) ? {1'b0, sg_len[0]} : 33'd0) +
                     ((nsge3 > 3'd1) ? {1'b0, sg_len[1]} : 33'd0) +
                     ((nsge3 > 3'd2) ? {1'b0, sg_len[2]} : 33'd0) +
                     ((nsge3 > 3'd3) ? {1'b0, sg_len[3]} : 33'd0);
  assign msg_len = msg_len33[31:0];
  logic len_ovf;
  assign len_ovf = msg_len33[32];

  // ctx_reset: the QP is in RESET now, or was at some cycle since it was
  // claimed (gone_q, sticky until the release): a QP reset and connected
  // anew while a WQE fetch was outstanding is not served with the old WQE.
  logic       ctx_reset, ctx_reset_now, gone_q, rsp_err;
  assign ctx_reset_now = `HCA_QP_CTX_STATE(qpc_i) == `HCA_QP_STATE_RESET;
  assign ctx_reset     = ctx_reset_now || gone_q;
  assign rsp_err   = `HCA_DMA_RSP_ERR(dma_rsp_i);

  // Completion opcode of a WR opcode (also for the ones not served yet).
  always_comb begin
    case (op_q)
      `HCA_WR_OPCODE_RDMA_WRITE:         wc_op = `HCA_WC_OPCODE_RDMA_WRITE;
      `HCA_WR_OPCODE_RDMA_READ,
      `HCA_WR_OPCODE_RDMA_READ_WITH_INV: wc_op = `HCA_WC_OPCODE_RDMA_READ;
      `HCA_WR_OPCODE_LOCAL_INV:          wc_op = `HCA_WC_OPCODE_LOCAL_INV;
      `HCA_WR_OPCODE_FAST_REG_MR:        wc_op = `HCA_WC_OPCODE_FAST_REG_MR;
      `HCA_WR_OPCODE_REG_INDIR_MR:       wc_op = `HCA_WC_OPCODE_REG_INDIR_MR;
      default:                           wc_op = `HCA_WC_OPCODE_SEND;
    endcase
  end

  // MTU: qp_ctx.mtu_log2 8..12; 0 (and anything out of range) is the default.
  logic [12:0] mtu;
  logic [31:0] rem, chunk;
  logic        last_chunk;
  always_comb begin
    if (mtu_log_q >= 4'd8 && mtu_log_q <= 4'd12) begin
      mtu = 13'd1 << mtu_log_q;
    end else begin
      mtu = 13'(`HCA_MTU_DEFAULT);
    end
  end
  assign rem        = msg_len - off_q;
  assign chunk      = (rem > 32'(mtu)) ? 32'(mtu) : rem;
  assign last_chunk = rem <= 32'(mtu);

  // ---------------------------------------------------------------- mover
  logic       mv_start, mv_busy, mv_done;
  logic [1:0] mv_status;
  logic       mv_dma_valid, mv_dma_rsp_ready, mv_quiet;
  logic [`HCA_DMA_REQ_W-1:0] mv_dma_req;

  // Sized zero, not '0: an unbased literal in a port connection makes Yosys
  // 0.23 elaborate this module twice, which asserts under hierarchy -chparam.
  hca_sge_mover #(
    .XTAG (XTAG),
    .DTAG (DTAG),
    .POST (1'b1)
  ) u_mover (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .start_i         (mv_start),
    .check_only_i    (state_q == S_DECODE),
    .to_host_i       (1'b0),
    .rights_i        (is_read ? `HCA_ACCESS_W'(1 << `HCA_ACCESS_LOCAL_WRITE_BIT) : `HCA_ACCESS_W'(0)),
    .pd_i            (pd_q),
    .qpn_i           (16'(qpn_q)),
    .off_i           ((state_q == S_DECODE) ? 32'd0 : off_q),
    .len_i           ((state_q == S_DECODE) ? msg_len : chunk),
    .buf_i           (alloc_id_i),
    .num_sge_i       (nsge3),
    .sge_i           (sges_q),
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
    .dma_req_ready_i (dma_req_ready_i && room && !pf_offer),
    .dma_req_o       (mv_dma_req),
    .dma_rsp_valid_i (dma_rsp_valid_i),
    .dma_rsp_ready_o (mv_dma_rsp_ready),
    .dma_rsp_err_i   (rsp_err),
    .quiet_o         (mv_quiet)
  );

  // The host address of the WQE at index idx of a ring at base of 2^lg entries.
  // (an assignment to the name, not return: Yosys 0.23)
  function automatic logic [63:0] wqe_addr(input logic [63:0] base, input logic [3:0] lg, input logic [15:0] idx);
    wqe_addr = base + {41'd0, idx & 16'((17'd1 << lg) - 17'd1), 7'd0};
  endfunction

  // The WQE fetch shares the DMA port with the mover (never at once).
  logic [`HCA_DMA_REQ_W-1:0] fetch_req;
  logic [63:0]               fetch_addr;
  assign fetch_addr = wqe_addr(sq_base_q, sq_log_q, sq_ci_q);   // (outside the always_comb: Icarus)
  always_comb begin
    fetch_req = '0;
    `HCA_DMA_REQ_OP(fetch_req)   = `HCA_DMA_OP_READ_DATA;
    `HCA_DMA_REQ_TAG(fetch_req)  = DTAG;
    `HCA_DMA_REQ_LEN(fetch_req)  = 32'(`HCA_SQ_WQE_W / 8);
    `HCA_DMA_REQ_ADDR(fetch_req) = fetch_addr;
    `HCA_DMA_REQ_QPN(fetch_req)  = 32'(qpn_q);
  end

  // Posted gathers carry tag {0001, slot, seq}: the answer names its chunk.
  logic       room, post, ans, ans_slot, ans0, ans1, cnt_idle, berr_any, pend_go, tx_pend;
  logic [2:0] seq;
  logic       rtag_post;
  assign seq      = slot_q ? seq1_q : seq0_q;
  assign room     = (slot_q ? cnt1_q : cnt0_q) < POST_MAX;
  assign post     = mv_dma_valid && room && dma_req_ready_i && !pf_offer;
  assign rtag_post = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 4];
  assign ans      = dma_rsp_valid_i && rtag_post;
  assign ans_slot = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 3];
  assign ans0     = ans && !ans_slot;
  assign ans1     = ans && ans_slot;
  assign cnt_idle = cnt0_q == 4'd0 && cnt1_q == 4'd0;
  assign berr_any = berr0_q || berr1_q;
  logic [`HCA_DMA_REQ_W-1:0] post_req;
  always_comb begin
    post_req = mv_dma_req;
    `HCA_DMA_REQ_TAG(post_req) = {4'b0001, slot_q, seq};
  end

  // ---------------------------------------------------------------- prefetch
  // pe: the claimed QP's entry. A hit at the claim (S_CTX): the entry is the
  // QP's, for sq_ci, valid or pending and live. An answer with tag
  // {0000_01, entry} fills its entry (tag bit 4 clear: not a posted gather).
  logic [PFW-1:0] pe, pn, pa, pk0, pk1, pf_nent;
  logic [RDW-1:0] ps, fs;
  logic           pf_mine, pf_hit, pf_live, pf_drop, pf_take, pf_ans, rtag_pf, rd_free;
  logic           pf_offer, pf_go, pf_alloc, wqe_take, wqe_err, fetch_ans;
  logic           pf_byp, pf_miss, pf_yield, pf_new, pf_hasnx, pf_free, pf_next;
  logic           ci0;
  logic [15:0]    pf_nidx;
  logic [63:0]    pf_naddr;
  logic [WQE_W-1:0] wqe_in;
  // a QP's two entries: {qpn, index bit 0} mod PFN (pe the WQE at sq_ci,
  // pn the one after it); sq_ci is the read port's at the claim, then latched
  assign ci0      = (state_q == S_CTX) ? sq_ci_i[0] : sq_ci_q[0];
  assign pe       = PFW'({qpn_q, ci0});
  assign pn       = PFW'({qpn_q, !ci0});
  assign pk0      = PFW'({pf_kill_qpn_i, 1'b0});
  assign pk1      = PFW'({pf_kill_qpn_i, 1'b1});
  assign rtag_pf  = !dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 4] && dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB + 3];
  assign ps       = dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB +: RDW];
  assign pa       = rd_ent_m[ps];
  // the lowest slot whose read is not out
  assign rd_free  = rd_out_q != '1;
  always_comb begin
    casez (rd_out_q)
      8'b???????0: fs = 3'd0;
      8'b??????01: fs = 3'd1;
      8'b?????011: fs = 3'd2;
      8'b????0111: fs = 3'd3;
      8'b???01111: fs = 3'd4;
      8'b??011111: fs = 3'd5;
      8'b?0111111: fs = 3'd6;
      default:     fs = 3'd7;
    endcase
  end
  assign pf_ans   = dma_rsp_valid_i && rtag_pf;
  assign pf_live  = pf_val_q[pe] || (pf_pend_q[pe] && !pf_dead_q[pe]);
  assign pf_mine  = pf_qpn_m[pe] == qpn_q;
  assign pf_hit   = pf_mine && pf_idx_m[pe] == sq_ci_i && pf_live;
  assign pf_drop  = state_q == S_CTX && !ctx_reset && pf_mine && !pf_hit;
  assign pf_take  = state_q == S_PWAIT && pf_val_q[pe];
  // the entry's answer in S_PWAIT: taken as it comes (the entry is this
  // QP's while the engine waits on it: only a take and what follows it, or
  // a claim, allocates, a kill kills)
  assign pf_byp   = state_q == S_PWAIT && pf_ans && pa == pe && !pf_dead_q[pe];
  assign fetch_ans = state_q == S_FWAIT && dma_rsp_valid_i && !rtag_pf;
  assign wqe_take = fetch_ans || pf_take || pf_byp;
  assign wqe_err  = pf_take ? pf_err_q[pe] : rsp_err;
  assign wqe_in   = pf_take ? pf_wqe_m[pe] : dma_rsp_i[`HCA_DMA_RSP_RDATA_LSB +: WQE_W];
  // The read-ahead keeps two WQEs per QP. From the take of index i (the
  // take's cycle, S_DECODE, S_EVT: the QP held, one read allocated a cycle):
  // i+1 into the other entry unless it holds i+1 (read or on its way), then
  // i+2 into the entry just taken; each only if posted (sq_pi as the read
  // port has it now: a doorbell rung since the claim counts), its entry's
  // read not out, a read slot free and no prefetch
  // waiting to issue (or it issues now); not for a QP reset since its claim.
  assign pf_free  = !pf_req_q || pf_go;
  assign pf_hasnx = pf_qpn_m[pn] == qpn_q && pf_idx_m[pn] == 16'(sq_ci_q + 16'd1) &&
                    (pf_val_q[pn] || (pf_pend_q[pn] && !pf_dead_q[pn]));
  assign pf_alloc = ((wqe_take && !wqe_err) || state_q == S_DECODE || state_q == S_EVT) &&
                    !ctx_reset && pf_free && rd_free &&
                    (pf_hasnx ? (!pf_pend_q[pe] || pf_byp) && 16'(sq_pi_i - sq_ci_q) >= 16'd3
                              : !pf_pend_q[pn] && 16'(sq_pi_i - sq_ci_q) >= 16'd2);
  // the miss read: at the claim, no live entry of this QP at sq_ci (the
  // context's fields straight from the read port: latched only now); not
  // by pf_go: the yield it decides is a release, fed back the same cycle
  assign pf_miss  = state_q == S_CTX && !ctx_reset && !pf_hit && !pf_req_q && !pf_pend_q[pe] && rd_free;
  // the claim's read of sq_ci + 1: a hit, no other QP offered (a read slot
  // taken now could be the one its miss read needs), sq_ci + 1 posted and
  // not in the other entry (read or on its way), no read of that entry out
  assign pf_next  = state_q == S_CTX && !ctx_reset && pf_hit && !sched_valid_i && !pf_req_q && !pf_pend_q[pn] &&
                    rd_free && 16'(sq_pi_i - sq_ci_i) >= 16'd2 &&
                    !(pf_val_q[pn] && pf_qpn_m[pn] == qpn_q && pf_idx_m[pn] == 16'(sq_ci_i + 16'd1));
  assign pf_new   = pf_alloc || pf_miss || pf_next;
  assign pf_nent  = (pf_miss || (!pf_next && pf_hasnx)) ? pe : pn;
  assign pf_nidx  = (state_q == S_CTX) ? 16'(sq_ci_i + (pf_next ? 16'd1 : 16'd0))
                                       : 16'(sq_ci_q + (pf_hasnx ? 16'd2 : 16'd1));
  assign pf_naddr = (state_q == S_CTX) ? wqe_addr(`HCA_QP_CTX_SQ_BASE(qpc_i), `HCA_QP_CTX_SQ_LOG(qpc_i), pf_nidx)
                                       : wqe_addr(sq_base_q, sq_log_q, pf_nidx);
  // the yield, another QP offered: waiting on the entry's read; or at the
  // claim, no hit and no miss read to start (every read slot out: the QP is
  // queued again rather than holding the engine for a blocking fetch)
  assign pf_yield = ((state_q == S_PWAIT && !pf_val_q[pe] && !pf_byp && pf_pend_q[pe] && !pf_dead_q[pe] &&
                      !err_state_q) ||
                     (state_q == S_CTX && !pf_hit && !pf_miss &&
                      `HCA_QP_CTX_STATE(qpc_i) != `HCA_QP_STATE_ERROR)) &&
                    sched_valid_i && fresh_q && !ctx_reset;
  // Offered only when neither the fetch nor the mover offers; once offered
  // it keeps the port until taken (they wait). (HCA_MUTANT_SEND_PF_UNHELD,
  // a formal mutant: the fetch takes the port from it, hca_req_send_props.sv)
  assign pf_offer = pf_req_q && ((pf_held_q `ifdef HCA_MUTANT_SEND_PF_UNHELD && state_q != S_FETCH `endif) ||
                                 (state_q != S_FETCH && !mv_dma_valid));
  assign pf_go    = pf_offer && dma_req_ready_i;
  logic [`HCA_DMA_REQ_W-1:0] pf_req;
  always_comb begin
    pf_req = '0;
    `HCA_DMA_REQ_OP(pf_req)   = `HCA_DMA_OP_READ_DATA;
    `HCA_DMA_REQ_TAG(pf_req)  = {5'b00001, pf_slot_q};
    `HCA_DMA_REQ_LEN(pf_req)  = 32'(WQE_W / 8);
    `HCA_DMA_REQ_ADDR(pf_req) = pf_addr_q;
    `HCA_DMA_REQ_QPN(pf_req)  = 32'(pf_qpn_m[pf_ent_q]);
  end
  // Entry flags: answer, drop at a claim, take, allocation, then a kill (of
  // the two entries of the WRITE_QPC's number, whichever QP holds them) last.
  always_comb begin
    pf_val_d  = pf_val_q;
    pf_pend_d = pf_pend_q;
    pf_dead_d = pf_dead_q;
    rd_out_d  = rd_out_q;
    if (pf_ans) begin
      rd_out_d[ps]  = 1'b0;
      pf_pend_d[pa] = 1'b0;
      pf_dead_d[pa] = 1'b0;
      pf_val_d[pa]  = !pf_dead_q[pa];
    end
    if (pf_drop) begin
      pf_val_d[pe]  = 1'b0;
      pf_dead_d[pe] = pf_pend_d[pe];
    end
    if (pf_take || pf_byp) begin
      pf_val_d[pe] = 1'b0;
    end
    if (pf_new) begin
      rd_out_d[fs]       = 1'b1;
      pf_pend_d[pf_nent] = 1'b1;
      pf_dead_d[pf_nent] = 1'b0;
      pf_val_d[pf_nent]  = 1'b0;
    end
    if (pf_kill_i) begin
      pf_val_d[pk0]  = 1'b0;
      pf_dead_d[pk0] = pf_pend_d[pk0];
      pf_val_d[pk1]  = 1'b0;
      pf_dead_d[pk1] = pf_pend_d[pk1];
    end
  end

  assign dma_req_valid_o = pf_offer || (state_q == S_FETCH && !ctx_reset) || (mv_dma_valid && room);
  // (pf_offer wins the port: the fetch and the mover see it as not ready)
  assign dma_req_o       = pf_offer ? pf_req : (state_q == S_FETCH) ? fetch_req : post_req;
  assign dma_rsp_ready_o = (state_q == S_FWAIT) || rtag_post || rtag_pf || mv_dma_rsp_ready;

  // The pending packet leaves once every DMA of its chunk was answered
  // (none err), unless the message is stopping.
  assign tx_pend = pv_q && ((pslot_q ? cnt1_q : cnt0_q) == 4'd0) && !(pslot_q ? berr1_q : berr0_q) &&
                   !nak_i && !ctx_reset && state_q != S_ABORT && state_q != S_FREE && state_q != S_FINISH;
  assign pend_go = tx_pend && tx_ready_i;

  // A stop at a check point (S_ALLOC, S_GATHER/S_HOLD, S_TXWAIT), in order of
  // precedence: a RESET (nothing recorded), a kept NAK (its syndrome; an
  // RNR_NAK to retry: no error, RNR wait), a bus error of a posted gather.
  logic       stop, stop_err, stop_rnr;
  logic [4:0] stop_status;
  assign stop        = ctx_reset || nak_i || berr_any;
  assign stop_status = ctx_reset ? status_q : nak_i ? nak_syn_i : 5'(`HCA_WC_STATUS_LOC_ACCESS_ERR);
  assign stop_err    = ctx_reset ? err_q : nak_i ? !nak_rnr_i : 1'b1;
  assign stop_rnr    = (nak_i && !ctx_reset) ? nak_rnr_i : rnr_q;

  // ---------------------------------------------------------------- state machine
  always_comb begin
    state_d        = state_q;
    off_d          = off_q;
    buf_d          = buf_q;
    status_d       = status_q;
    err_d          = err_q;
    rnr_d          = rnr_q && state_q != S_IDLE;
    cur_d          = cur_q;
    slot_d         = slot_q;
    pv_d           = pv_q && !pend_go;
    sched_ready_o  = 1'b0;
    alloc_ready_o  = 1'b0;
    mv_start       = 1'b0;
    case (state_q)
      S_IDLE: begin
        sched_ready_o = 1'b1;
        if (sched_valid_i) begin
          state_d = S_CTX;
        end
      end
      S_CTX: begin
        if (ctx_reset) begin
          // Nothing to serve (a WRITE_QPC raced the scheduler).
          state_d = S_IDLE;
        end else if (pf_hit || pf_miss) begin
          state_d = S_PWAIT;
        end else if (pf_yield) begin
          state_d = S_IDLE;                       // released idle, queued again
        end else begin
          state_d = S_FETCH;
        end
      end
      S_FETCH: begin
        if (ctx_reset) begin
          state_d = S_FINISH;
        end else if (dma_req_ready_i && !pf_offer) begin
          state_d = S_FWAIT;
        end
      end
      S_FWAIT, S_PWAIT: begin
        if (wqe_take) begin
          if (wqe_err) begin
            status_d = err_state_q ? `HCA_WC_STATUS_WR_FLUSH_ERR : `HCA_WC_STATUS_LOC_ACCESS_ERR;
            err_d    = 1'b1;
            state_d  = S_FINISH;
          end else begin
            state_d  = S_DECODE;
          end
        end else if (state_q == S_PWAIT && !pf_live) begin
          state_d = S_FETCH;                      // the entry was killed
        end else if (pf_yield) begin
          state_d = S_IDLE;                       // released idle, queued again
        end
      end
      S_DECODE: begin
        err_d = 1'b1;
        if (ctx_reset) begin
          state_d  = S_FINISH;
        end else if (err_state_q) begin
          status_d = `HCA_WC_STATUS_WR_FLUSH_ERR;
          state_d  = S_FINISH;
        end else if (malformed) begin
          status_d = `HCA_WC_STATUS_LOC_QP_OP_ERR;
          state_d  = S_FINISH;
        end else if (is_mm) begin
          err_d   = 1'b0;
          state_d = S_EVT;
        end else if (len_ovf) begin
          status_d = `HCA_WC_STATUS_LOC_LEN_ERR;
          state_d  = S_FINISH;
        end else begin
          err_d    = 1'b0;
          mv_start = 1'b1;
          state_d  = S_CHECK;
        end
      end
      S_CHECK: begin
        if (mv_done) begin
          off_d = '0;
          if (ctx_reset) begin
            state_d  = S_FINISH;
          end else if (mv_status != 2'd0) begin
            status_d = `HCA_WC_STATUS_LOC_PROT_ERR;
            err_d    = 1'b1;
            state_d  = S_FINISH;
          end else if (is_read) begin
            state_d = S_TX;
          end else begin
            state_d = S_ALLOC;
          end
        end
      end
      S_ALLOC: begin
        alloc_ready_o = !stop;
        if (stop) begin
          status_d = stop_status;
          err_d    = stop_err;
          rnr_d    = stop_rnr;
          state_d  = S_ABORT;
        end else if (alloc_valid_i) begin
          buf_d    = alloc_id_i;
          cur_d    = 1'b1;
          mv_start = 1'b1;
          state_d  = S_GATHER;
        end
      end
      S_GATHER, S_HOLD: begin
        // S_GATHER acts once the chunk is walked (its DMAs posted)
        if (state_q == S_HOLD || mv_done) begin
          if (state_q == S_GATHER && mv_status != 2'd0 && !ctx_reset && !nak_i) begin
            status_d = `HCA_WC_STATUS_LOC_PROT_ERR;   // before a bus error: the check came first
            err_d    = 1'b1;
            state_d  = S_ABORT;
          end else if (stop) begin
            status_d = stop_status;
            err_d    = stop_err;
            rnr_d    = stop_rnr;
            state_d  = S_ABORT;
          end else if (pv_q) begin
            state_d  = S_HOLD;                    // the chunk before is still pending
          end else begin
            pv_d     = 1'b1;                      // this chunk becomes the pending packet
            cur_d    = 1'b0;
            if (last_chunk) begin
              state_d = S_TXWAIT;
            end else begin
              off_d   = off_q + chunk;
              slot_d  = !slot_q;
              state_d = S_ALLOC;
            end
          end
        end
      end
      S_TXWAIT: begin
        if (stop) begin
          status_d = stop_status;
          err_d    = stop_err;
          rnr_d    = stop_rnr;
          state_d  = S_ABORT;
        end else if (pend_go) begin
          state_d  = S_IDLE;                      // the last packet left: in flight
        end
      end
      S_TX: begin                                 // READ_REQ (holds no buffer)
        if (ctx_reset) begin
          state_d = S_FINISH;
        end else if (tx_ready_i) begin
          if (nak_i) begin
            status_d = nak_syn_i;
            err_d    = 1'b1;
            state_d  = S_FINISH;
          end else begin
            state_d = S_IDLE;
          end
        end
      end
      S_ABORT: begin
        // every posted DMA answered before the buffers go back
        if (cnt_idle) begin
          state_d = S_FREE;
        end
      end
      S_FREE: begin
        if (!pv_q && !cur_q) begin
          if (rel_rnr_o) begin
            state_d = S_IDLE;                     // into RNR wait: no completion
          end else begin
            state_d = S_FINISH;
          end
        end else if (free_ready_i) begin
          if (pv_q) begin
            pv_d  = 1'b0;
          end else begin
            cur_d = 1'b0;
          end
        end
      end
      S_FINISH: begin
        if (fin_ready_i || ctx_reset) begin
          state_d = S_IDLE;
        end
      end
      S_EVT: begin
        if (ctx_reset) begin
          state_d = S_FINISH;
        end else if (evt_ready_i) begin
          state_d = S_IDLE;
        end
      end
      default: state_d = S_IDLE;
    endcase
  end

  // Releases of the QP (the S_CTX, S_TX and S_FINISH exits to S_IDLE above),
  // continuous assigns of the few inputs they need: the wrapper feeds them
  // back into the response engine's claim in the same cycle.
  assign rel_evt_o      = state_q == S_EVT && evt_ready_i && !ctx_reset;
  assign rel_inflight_o = (state_q == S_TX && tx_ready_i && !nak_i && !ctx_reset) ||
                          (state_q == S_TXWAIT && pend_go) || rel_evt_o;
  assign rel_rnr_o      = state_q == S_FREE && !pv_q && !cur_q && rnr_q && !ctx_reset;
  assign rnr_timer_o    = `HCA_QP_CTX_RNR_TIMER(qpc_i);
  assign rel_valid_o    = rel_inflight_o || rel_rnr_o || (state_q == S_FINISH && (fin_ready_i || ctx_reset)) ||
                          (state_q == S_CTX && ctx_reset) || pf_yield;

  assign qpn_o        = (state_q == S_IDLE) ? 16'(sched_qpn_i) : 16'(qpn_q);
  assign free_valid_o = state_q == S_FREE && (pv_q || cur_q);
  assign free_id_o    = pv_q ? pbuf_q : buf_q;

  // ---------------------------------------------------------------- packet
  always_comb begin
    tx_o = '0;
    if (is_read) begin
      `HCA_PKT_OP(tx_o)   = `HCA_PKT_OP_READ_REQ;
      `HCA_PKT_FIRST(tx_o) = 1'b1;
      `HCA_PKT_LAST(tx_o)  = 1'b1;
      `HCA_PKT_RADDR(tx_o) = raddr_q;
      `HCA_PKT_LEN(tx_o)   = '0;
    end else begin
      `HCA_PKT_OP(tx_o)    = is_write ? `HCA_PKT_OP_WRITE :
                             is_send_inv ? `HCA_PKT_OP_SEND_INV : `HCA_PKT_OP_SEND;
      `HCA_PKT_INV_KEY(tx_o) = is_send_inv ? inv_key_q : 32'd0;
      `HCA_PKT_FIRST(tx_o) = poff_q == 32'd0;
      `HCA_PKT_LAST(tx_o)  = plast_q;
      `HCA_PKT_PBUF(tx_o)  = pbuf_q;
      `HCA_PKT_RADDR(tx_o) = is_write ? raddr_q + {32'd0, poff_q} : 64'd0;
      `HCA_PKT_LEN(tx_o)   = plen_q;
    end
    `HCA_PKT_DST_QPN(tx_o) = rqpn_q;
    `HCA_PKT_SRC_QPN(tx_o) = 16'(qpn_q);
    `HCA_PKT_PSN(tx_o)     = {16'd0, sq_ci_q};
    `HCA_PKT_RKEY(tx_o)    = (is_send) ? 32'd0 : rkey_q;
    `HCA_PKT_MSG_LEN(tx_o) = msg_len;
    `HCA_PKT_OFFSET(tx_o)  = is_read ? 32'd0 : poff_q;
  end
  assign tx_valid_o = (state_q == S_TX && !ctx_reset) || tx_pend;

  // ---------------------------------------------------------------- event
  // The WQE's fr_* fields are fw_event's params, iova, length, list
  // (selected outside the always_comb, for Icarus as above).
  logic [31:0] fr_key, fr_params;
  logic [63:0] fr_iova, fr_length, fr_list;
  assign fr_iova   = fr_q[0 +: 64];
  assign fr_length = fr_q[`HCA_SQ_WQE_FR_LENGTH_LSB - `HCA_SQ_WQE_FR_IOVA_LSB +: 64];
  assign fr_list   = fr_q[`HCA_SQ_WQE_FR_LIST_LSB - `HCA_SQ_WQE_FR_IOVA_LSB +: 64];
  assign fr_key    = fr_q[`HCA_SQ_WQE_FR_KEY_LSB - `HCA_SQ_WQE_FR_IOVA_LSB +: 32];
  assign fr_params = fr_q[`HCA_SQ_WQE_FR_PARAMS_LSB - `HCA_SQ_WQE_FR_IOVA_LSB +: 32];
  // wqe_ok (fw_event.hdr; abi/hca.toml names the rules): a FAST_REG_MR's
  // rules that read only the WQE, worked out at S_DECODE and held for
  // S_EVT, so the firmware's fast path checks only the MR's own state.
  localparam int FRP = `HCA_SQ_WQE_FR_PARAMS_LSB;   // fr_params' sub-fields are WQE bit offsets
  logic [4:0]  fr_ps;
  logic [31:0] fr_mask;
  logic        fr_lw, fr_rwa;
  logic        wqe_ok_q;
  assign fr_ps   = fr_params[`HCA_SQ_WQE_FR_PAGE_SHIFT_LSB - FRP +: 5];
  assign fr_lw   = fr_params[`HCA_SQ_WQE_FR_ACCESS_LSB - FRP + `HCA_ACCESS_LOCAL_WRITE_BIT];
  assign fr_rwa  = fr_params[`HCA_SQ_WQE_FR_ACCESS_LSB - FRP + `HCA_ACCESS_REMOTE_WRITE_BIT] ||
                   fr_params[`HCA_SQ_WQE_FR_ACCESS_LSB - FRP + `HCA_ACCESS_REMOTE_ATOMIC_BIT];
  assign fr_mask = (32'd1 << fr_ps) - 32'd1;     // ps <= 30 where it counts: the offset is in the low word
  logic fr_rules, wqe_ok;
  assign fr_rules = fr_params[`HCA_SQ_WQE_FR_INLINE_LSB - FRP] &&
                    fr_params[`HCA_SQ_WQE_FR_LIST_LEN_LSB - FRP +: 16] == 16'd1 &&
                    (rkey_q == 32'd0 || rkey_q[31:`HCA_KEY_INDEX_SHIFT] == fr_key[31:`HCA_KEY_INDEX_SHIFT]) &&
                    fr_ps >= 5'(`HCA_PAGE_SHIFT_MIN) && fr_ps <= 5'(`HCA_PAGE_SHIFT_MAX) &&
                    fr_length[63:32] == 32'd0 &&
                    fr_length[31:0] - 32'd1 < fr_mask + 32'd1 - (fr_iova[31:0] & fr_mask) &&   // 1..page - fbo
                    fr_iova + fr_length >= fr_iova &&                                          // no wrap
                    (fr_list[31:0] & fr_mask) == 32'd0 && (fr_lw || !fr_rwa);
  assign wqe_ok = op_q == `HCA_WR_OPCODE_FAST_REG_MR && (fr_rules
`ifdef HCA_MUTANT_FR_WQE_OK_ALWAYS  // mutant (vectors/mutation.mk): the fast path trusts rules nobody checked
                  || 1'b1
`endif
                  );
  // mpt_flags: with wqe_ok, the MPT flags word the fast path commits as read
  logic [31:0] fr_flags;
  logic [`HCA_ACCESS_W-1:0] fr_acc;
  assign fr_acc = fr_params[`HCA_SQ_WQE_FR_ACCESS_LSB - FRP +: `HCA_ACCESS_W];   // (outside: Icarus)
  always_comb begin
    fr_flags = '0;
    `HCA_MPT_ENTRY_ALLOC(fr_flags)      = 1'b1;
    `HCA_MPT_ENTRY_STATE(fr_flags)      = `HCA_MKEY_STATE_VALID;
    `HCA_MPT_ENTRY_KIND(fr_flags)       = `HCA_MKEY_KIND_FAST_REG;
    `HCA_MPT_ENTRY_MODE(fr_flags)       = `HCA_MKEY_MODE_MTT;
    `HCA_MPT_ENTRY_ACCESS(fr_flags)     = fr_acc;
    `HCA_MPT_ENTRY_PAGE_SHIFT(fr_flags) = fr_ps;
  end
  always_comb begin
    evt_o = '0;
    `HCA_FW_EVENT_WQE_OK(evt_o)    = wqe_ok_q;
    `HCA_FW_EVENT_MPT_FLAGS(evt_o) = wqe_ok_q ? fr_flags : 32'd0;
    `HCA_FW_EVENT_KIND(evt_o)   = (op_q == `HCA_WR_OPCODE_LOCAL_INV) ? `HCA_EVT_KIND_LOCAL_INV :
                                  (op_q == `HCA_WR_OPCODE_FAST_REG_MR) ? `HCA_EVT_KIND_FAST_REG_MR
                                                                       : `HCA_EVT_KIND_REG_INDIR_MR;
    `HCA_FW_EVENT_TAG(evt_o)    = (`HCA_FW_EVENT_TAG_W)'(qpn_q);
    `HCA_FW_EVENT_QPN(evt_o)    = (`HCA_FW_EVENT_QPN_W)'(qpn_q);
    `HCA_FW_EVENT_PD(evt_o)     = 32'(pd_q);
    `HCA_FW_EVENT_KEY(evt_o)    = (op_q == `HCA_WR_OPCODE_LOCAL_INV) ? inv_key_q : fr_key;
    `HCA_FW_EVENT_PARAMS(evt_o) = fr_params;
    `HCA_FW_EVENT_IOVA(evt_o)   = fr_iova;
    `HCA_FW_EVENT_LENGTH(evt_o) = fr_length;
    `HCA_FW_EVENT_LIST(evt_o)   = fr_list;
    // registrations: the MR the WR names (sq_wqe.rkey); 0 for LOCAL_INV
    `HCA_FW_EVENT_MR_KEY(evt_o) = (op_q == `HCA_WR_OPCODE_LOCAL_INV) ? 32'd0 : rkey_q;
  end
  assign evt_valid_o = state_q == S_EVT && !ctx_reset;

  // ---------------------------------------------------------------- park and finish
  // {psn, wc opcode, READ_INV after the last byte, signaled, num_sge, msg_len,
  //  key to invalidate, wr_id, sges}
  assign park_o = {sq_ci_q, 4'(wc_op), is_read_inv, flags_q[`HCA_SEND_FLAGS_SIGNALED_BIT], nsge3,
                   msg_len, read_inv_key, wr_id_q, sges_q};

  logic [`HCA_CQE_W-1:0] cqe;
  always_comb begin
    cqe = '0;
    `HCA_CQE_WR_ID(cqe)       = wr_id_q;
    `HCA_CQE_BYTE_LEN(cqe)    = msg_len;
    `HCA_CQE_QPN(cqe)         = 32'(qpn_q);
    `HCA_CQE_STATUS(cqe)      = 8'(status_q);
    `HCA_CQE_OPCODE(cqe)      = wc_op;
    `HCA_CQE_WQE_COUNTER(cqe) = {16'd0, sq_ci_q};
  end
  // A flush does not move the QP (it is in ERROR already); the rest do.
  assign fin_o       = {16'(qpn_q), cqn_q, 1'b1, err_q && !err_state_q, cqe};
  assign fin_valid_o = state_q == S_FINISH && !ctx_reset;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= S_IDLE;
      gone_q   <= 1'b0;
      qpn_q    <= '0;
      fresh_q  <= 1'b0;
      off_q    <= '0;
      buf_q    <= '0;
      status_q <= '0;
      err_q    <= 1'b0;
      rnr_q    <= 1'b0;
      cur_q    <= 1'b0;
      slot_q   <= 1'b0;
      cnt0_q   <= '0;
      cnt1_q   <= '0;
      seq0_q   <= '0;
      seq1_q   <= '0;
      berr0_q  <= 1'b0;
      berr1_q  <= 1'b0;
      pv_q     <= 1'b0;
      pslot_q  <= 1'b0;
      pf_val_q  <= '0;
      pf_pend_q <= '0;
      pf_dead_q <= '0;
      rd_out_q  <= '0;
      pf_req_q  <= 1'b0;
      pf_held_q <= 1'b0;
    end else begin
      pf_val_q  <= pf_val_d;
      pf_pend_q <= pf_pend_d;
      pf_dead_q <= pf_dead_d;
      rd_out_q  <= rd_out_d;
      pf_req_q  <= pf_new || (pf_req_q && !pf_go);
      pf_held_q <= pf_offer && !dma_req_ready_i;
      state_q  <= state_d;
      // (qpc_i describes the claimed QP from S_CTX on, not in S_IDLE)
      gone_q   <= state_q != S_IDLE && state_d != S_IDLE && ctx_reset;
      off_q    <= off_d;
      buf_q    <= buf_d;
      status_q <= status_d;
      err_q    <= err_d;
      rnr_q    <= rnr_d;
      cur_q    <= cur_d;
      slot_q   <= slot_d;
      pv_q     <= pv_d;
      cnt0_q   <= cnt0_q + 4'(post && !slot_q) - 4'(ans0);
      cnt1_q   <= cnt1_q + 4'(post && slot_q) - 4'(ans1);
      seq0_q   <= seq0_q + 3'(post && !slot_q);
      seq1_q   <= seq1_q + 3'(post && slot_q);
      // a chunk starting on a slot clears its error (the slot is idle then);
      // a new message clears both (a bus error of the last one's other slot
      // would stop it at its first check: every DMA was answered by then)
      berr0_q  <= (state_q == S_CTX || (mv_start && state_q == S_ALLOC && !slot_q)) ? 1'b0
                                                                                  : berr0_q || (ans0 && rsp_err);
      berr1_q  <= (state_q == S_CTX || (mv_start && state_q == S_ALLOC && slot_q)) ? 1'b0
                                                                                 : berr1_q || (ans1 && rsp_err);
      if (pv_d && !pv_q) begin
        pslot_q <= slot_q;
      end
      if (state_q == S_IDLE && sched_valid_i) begin
        qpn_q   <= sched_qpn_i;
        fresh_q <= sched_fresh_i;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (pv_d && !pv_q) begin
      pbuf_q  <= buf_q;
      poff_q  <= off_q;
      plen_q  <= chunk;
      plast_q <= last_chunk;
    end
    if (state_q == S_DECODE) begin
      wqe_ok_q    <= wqe_ok;
    end
    if (state_q == S_CTX) begin
      sq_base_q   <= `HCA_QP_CTX_SQ_BASE(qpc_i);
      sq_log_q    <= `HCA_QP_CTX_SQ_LOG(qpc_i);
      mtu_log_q   <= `HCA_QP_CTX_MTU_LOG2(qpc_i);
      pd_q        <= qpc_i[`HCA_QP_CTX_PD_LSB +: `HCA_PD_BITS];
      rqpn_q      <= qpc_i[`HCA_QP_CTX_REMOTE_QPN_LSB +: 16];
      cqn_q       <= `HCA_QP_CTX_SEND_CQN(qpc_i);
      sq_ci_q     <= sq_ci_i;
      err_state_q <= `HCA_QP_CTX_STATE(qpc_i) == `HCA_QP_STATE_ERROR;
    end
    if (pf_new) begin
      pf_ent_q          <= pf_nent;
      pf_slot_q         <= fs;
      rd_ent_m[fs]      <= pf_nent;
      pf_addr_q         <= pf_naddr;
      pf_qpn_m[pf_nent] <= qpn_q;
      pf_idx_m[pf_nent] <= pf_nidx;
    end
    if (pf_ans) begin
      pf_wqe_m[pa]   <= dma_rsp_i[`HCA_DMA_RSP_RDATA_LSB +: WQE_W];
      pf_err_q[pa]   <= rsp_err;
    end
    // A failed fetch completes with wr_id 0 and no SGEs.
    // (HCA_MUTANT_SEND_SGE_UNHELD: formal mutant, rtl/formal/hca_req_send_props.sv)
    if (`ifndef HCA_MUTANT_SEND_SGE_UNHELD wqe_take `else dma_rsp_valid_i `endif) begin
      op_q       <= wqe_in[`HCA_SQ_WQE_OPCODE_LSB +: 8];
      flags_q    <= wqe_in[`HCA_SQ_WQE_FLAGS_LSB +: 8];
      nsge_q     <= wqe_in[`HCA_SQ_WQE_NUM_SGE_LSB +: 4];
      rsvd_bad_q <= wqe_in[`HCA_SQ_WQE_CTRL_RSVD_LSB +: 12] != '0 ||
                    wqe_in[`HCA_SQ_WQE_RSVD0_LSB +: 32] != '0;
      wr_id_q    <= wqe_in[`HCA_SQ_WQE_WR_ID_LSB +: 64];
      raddr_q    <= wqe_in[`HCA_SQ_WQE_REMOTE_ADDR_LSB +: 64];
      rkey_q     <= wqe_in[`HCA_SQ_WQE_RKEY_LSB +: 32];
      inv_key_q  <= wqe_in[`HCA_SQ_WQE_INV_KEY_LSB +: 32];
      fr_q       <= wqe_in[`HCA_SQ_WQE_FR_IOVA_LSB +: FR_W];
      sges_q     <= wqe_in[`HCA_SQ_WQE_SGE_LSB +: SGES_W];
      if (wqe_err) begin
        op_q    <= `HCA_WR_OPCODE_SEND;
        flags_q <= '0;
        nsge_q  <= '0;
        wr_id_q <= '0;
      end
    end
  end

  // Fields of the context, WQE and DMA answer this engine has no use for.
  logic unused;
  assign unused = ^{qpc_i, dma_rsp_i, pf_kill_qpn_i};
  // busy from the first key check until every posted DMA was answered
  assign mv_busy_o = {cnt1_q != 4'd0, cnt0_q != 4'd0, mv_busy};
  // WQE reads: the fetch from its offer to its answer, each prefetch read
  // slot from its allocation (the read is still to offer) to its answer,
  // dead or not. Each idles a cycle between uses (a slot is allocated only
  // while its read is not out; the fetch is followed by S_DECODE), as DRAIN
  // needs. (HCA_MUTANT_DRAIN_NO_WQE_READ: DRAIN does not wait for them)
  assign rd_busy_o = `ifndef HCA_MUTANT_DRAIN_NO_WQE_READ {rd_out_q, state_q == S_FETCH || state_q == S_FWAIT} `else '0 `endif;

  // The twin of hca_req_send_quiet_until: never with a prefetch to offer; IDLE
  // waits for the scheduler, FWAIT for the WQE, PWAIT for its entry's live read;
  // CHECK and GATHER wait on their mover once no packet is pending; HOLD and
  // TXWAIT while the pending packet's answers are out (only dma_rsp_valid
  // moves them: no stop, whose nak_i the model tests in its requester).
  assign quiet_o = !pf_req_q &&
                   (state_q == S_IDLE || state_q == S_FWAIT ||
                    (state_q == S_PWAIT && pf_pend_q[pe] && !pf_dead_q[pe] &&
                     !(sched_valid_i && fresh_q && !err_state_q)) ||
                    ((state_q == S_CHECK || state_q == S_GATHER) && !pv_q && cnt_idle && mv_quiet) ||
                    ((state_q == S_HOLD || state_q == S_TXWAIT) && pv_q && (pslot_q ? cnt1_q : cnt0_q) != 4'd0 &&
                     !stop && mv_quiet));

endmodule
