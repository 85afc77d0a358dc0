`default_nettype none
`include "hca_abi.svh"

// hca_ctx — QP and CQ contexts and the engine's queue indices.
//
// Per QP: the context the firmware wrote (qp_ctx words 0..8; the reserved
// words 9..15 are not stored and read 0), the live state (hardware moves
// a QP to ERROR), sq_pi / rq_pi (doorbells), sq_ci (requester), rq_ci
// (responder). Per CQ: cq_ctx (base, log_depth, cq_valid), cq_pi (CQ
// writer), cq_ci (doorbell), the overflow flag.
//
// Firmware register block `ctx` (fw_addr_i is the offset in the block):
// DATA0..15 stage a context; CMD runs a command (all but DRAIN at once);
// STATUS.busy is 1 only while a DRAIN waits; every access answers with
// fw_rvalid_o one cycle later (read data, or 0 for a write).
//   WRITE_QPC  context and state <- DATA; a QP set to RESET or RTS also gets
//              its four indices reset (and qpc_wr_o tells the requester to
//              forget what it held for it); a QP written as ERROR keeps them,
//              so the outstanding WQEs are flushed.
//   READ_QPC   DATA <- the context with the live state.
//   WRITE_CQC  CQ context <- DATA words 0..3; cq_pi, cq_ci, overflow <- 0.
//   READ_CQC   DATA <- the CQ context, overflow flag in cfg bit 9.
//   DRAIN      the device-level DMA fence (docs/engine.md "Invalidation and
//              in-flight DMA"): the engine clients that key-check and then
//              DMA (drain_busy_i, HCA_DRAIN_SOURCES bits: per engine —
//              requester send, requester response, responder — its mover's
//              key checks and non-posted DMAs, and each of its two slots of
//              posted DMAs; and the WQE reads, so that no read of a QP's
//              rings is out after its DESTROY_QP / RESET: the send engine's
//              fetch and read-ahead entries, the responder's RQ fetch, in
//              its mover bit; and the CQ writer's CQE write, so that no
//              CQE is written after DESTROY_QP / DESTROY_CQ) busy in the
//              command's cycle are snapshotted;
//              STATUS.busy stays 1 until each snapshotted source has been
//              seen not busy once. A source is idle for at least a cycle
//              between two uses (a slot is reused only after its count
//              reached 0; the CQ writer, whose writes overlap, takes no
//              completion while its bit is pending: drain_pend_o), so DRAIN
//              ends when the DMAs pending at the command are answered,
//              however long traffic goes on after.
//              A job started after the command is not waited for: its
//              checks came after the INVALIDATE the firmware ran before,
//              so they saw the invalidated entry. Result OK. A DRAIN
//              written while one waits adds its snapshot to the wait; other
//              commands still run at once.
// Index 0 and indices beyond the table answer BAD_INDEX (0 is never a QP
// or CQ number).
//
// Doorbells are always ready: SQ/RQ set sq_pi/rq_pi of a QP that is not in
// RESET (ignored otherwise, and for numbers beyond the table), CQ sets
// cq_ci.
//
// Read ports (requester, responder, CQ writer) register the index; the
// outputs describe that entry one cycle after the index is driven, and
// follow its updates while the index stays.
//
// Same-cycle updates: a WRITE_QPC/WRITE_CQC is the later event for the
// firmware and wins over everything else touching that entry.
module hca_ctx #(
  parameter int MAX_QP   = `HCA_MAX_QP,
  parameter int MAX_CQ   = `HCA_MAX_CQ,
  parameter int N_DRAIN  = 3           // engine clients DRAIN waits for
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,

  // doorbells (regs db)
  input  logic                       db_valid_i,
  output logic                       db_ready_o,
  input  logic [3:0]                 db_addr_i,
  input  logic [31:0]                db_data_i,

  // firmware register block ctx
  input  logic                       fw_valid_i,
  input  logic                       fw_write_i,
  input  logic [15:0]                fw_addr_i,
  input  logic [31:0]                fw_wdata_i,
  output logic                       fw_rvalid_o,
  output logic [31:0]                fw_rdata_o,
  output logic                       drain_wait_o,    // a DRAIN waits (STATUS.busy): the harness counts these
  output logic [N_DRAIN-1:0]         drain_pend_o,    // the clients a DRAIN still waits for (the CQ writer holds its intake)
  input  logic [N_DRAIN-1:0]         drain_busy_i,    // per client: key-checked work not yet answered

  // requester: two read ports (send engine a, response engine b; the live
  // state is in the context's state field), sq_ci increment, ERROR
  // requests, the scheduler's lookup and events
  input  logic [15:0]                ra_qpn_i,
  output logic [`HCA_QP_CTX_W-1:0]   ra_qpc_o,
  output logic [15:0]                ra_sq_ci_o,
  output logic [15:0]                ra_sq_pi_o,      // (the send engine's WQE prefetch)
  input  logic [15:0]                rb_qpn_i,
  output logic [`HCA_QP_CTX_W-1:0]   rb_qpc_o,
  output logic [15:0]                rb_sq_ci_o,
  input  logic                       req_sq_ci_inc_i,
  input  logic [15:0]                req_sq_ci_qpn_i,
  input  logic                       req_err_valid_i,
  input  logic [15:0]                req_err_qpn_i,
  input  logic [$clog2(MAX_QP)-1:0]  pe_qpn_i,        // the requester's scheduler head:
  output logic                       pe_pend_o,       //   sq_pi != sq_ci and not RESET
  output logic                       pe_err_o,        //   state ERROR
  output logic [MAX_QP-1:0]          qp_live_o,       // QPs written since reset (read by index)
  output logic                       sq_db_o,         // an SQ doorbell was taken
  output logic [15:0]                sq_db_qpn_o,
  output logic                       rq_db_err_o,     // an RQ doorbell of a QP in ERROR (db_num: sq_db_qpn_o)
  output logic                       qpc_set_o,       // a WRITE_QPC happened
  output logic                       qpc_wr_o,        // ... to RESET or RTS, or the QP's first
  output logic [15:0]                qpc_wr_qpn_o,

  // responder: read port, rq_ci increment, ERROR requests
  input  logic [$clog2(MAX_QP)-1:0]  rs_qpn_i,
  output logic [`HCA_QP_CTX_W-1:0]   rs_qpc_o,
  output logic [1:0]                 rs_state_o,
  output logic [15:0]                rs_rq_pi_o,
  output logic [15:0]                rs_rq_ci_o,
  input  logic                       rs_rq_ci_inc_i,  // for the QP rs_qpn_i names now
  input  logic                       rs_err_valid_i,
  input  logic [$clog2(MAX_QP)-1:0]  rs_err_qpn_i,

  // CQ writer: read port, cq_pi increment, overflow flag
  input  logic [15:0]                cq_cqn_i,
  output logic [`HCA_CQ_CTX_W-1:0]   cq_cqc_o,        // as written (cfg bit 9: 0)
  output logic                       cq_inrange_o,    // cq_cqn_i names a table entry
  output logic [15:0]                cq_pi_o,
  output logic [15:0]                cq_ci_o,
  input  logic                       cq_pi_inc_i,     // for the CQ cq_cqn_i names
  input  logic                       cq_ovf_set_i,    // ditto
  output logic                          quiet_o          // nothing changes while the inputs stay idle (hca_core quiet_o)
);

  localparam int QW        = $clog2(MAX_QP);
  localparam int CW        = $clog2(MAX_CQ);
  localparam int QPC_STORE = 9 * 32;   // qp_ctx words 0..8
  localparam int CQC_STORE = `HCA_CQ_CTX_W;
  localparam int WORDS     = `HCA_CTX_DATA_COUNT;
  localparam int OVF_BIT   = `HCA_CQ_CTX_OVERFLOW_LSB;

  // (MAX_QP <= EVT_TAG_RESPONDER: an event's tag carries a QP number below that bit.)
  generate if (MAX_QP < 2 || MAX_QP > `HCA_EVT_TAG_RESPONDER || (MAX_QP & (MAX_QP - 1)) != 0 ||
               MAX_CQ < 2 || MAX_CQ > 65536 || (MAX_CQ & (MAX_CQ - 1)) != 0)
  begin : g_bad_params
`ifdef __ICARUS__
    initial $fatal(1, "hca_ctx: MAX_QP=%0d must be a power of two in [2, EVT_TAG_RESPONDER], MAX_CQ=%0d in [2, 65536]",
                   MAX_QP, MAX_CQ);
`else
    $error("hca_ctx: MAX_QP must be a power of two in [2, EVT_TAG_RESPONDER], MAX_CQ in [2, 65536]");
`endif
  end endgenerate

  generate if (32 * WORDS != `HCA_QP_CTX_W || QPC_STORE > `HCA_QP_CTX_W) begin : g_bad_abi
`ifdef __ICARUS__
    initial $fatal(1, "hca_ctx: ctx DATA staging does not match qp_ctx");
`else
    $error("hca_ctx: ctx DATA staging does not match qp_ctx");
`endif
  end endgenerate

  // ---------------------------------------------------------------- state
  logic [QPC_STORE-1:0] qpc_q [MAX_QP];
  // States and indices are memories without reset, written by index; an
  // entry counts once its live bit is set (QP: WRITE_QPC, CQ: WRITE_CQC,
  // each of which writes it whole) and reads as reset (RESET, indices 0)
  // before: a table of any size is cleared in one cycle. Before that write
  // nothing else touches the entry: doorbells and ERROR requests need a
  // state other than RESET, and the engines serve only QPs (and their CQs)
  // the firmware wrote.
  logic [1:0]           state_m [MAX_QP];
  logic [15:0]          sq_pi_m [MAX_QP];
  logic [15:0]          sq_ci_m [MAX_QP];
  logic [15:0]          rq_pi_m [MAX_QP];
  logic [15:0]          rq_ci_m [MAX_QP];
  logic [MAX_QP-1:0]    qlive_q;
  logic [CQC_STORE-1:0] cqc_q [MAX_CQ];
  logic [15:0]          cq_pi_m [MAX_CQ];
  logic [15:0]          cq_ci_m [MAX_CQ];
  logic                 ovf_m [MAX_CQ];
  logic [MAX_CQ-1:0]    clive_q;
  // cq_valid is kept apart from the stored context so that reset can clear
  // it in every entry (the rest of the context is data).
  logic [MAX_CQ-1:0]    cq_valid_q;

  logic [32*WORDS-1:0]  stage_q;
  logic                 rvalid_q;
  logic [31:0]          rdata_q, rdata_d;
  logic [`HCA_FWP_RESULT_W-1:0] result_q, result_d;

  logic [QW-1:0]        ra_idx_q, rb_idx_q, rs_idx_q;
  logic [CW-1:0]        cq_idx_q;
  logic                 cq_inrange_q;

  // An entry as it reads: reset until its live bit is set.
  function automatic logic [1:0] st_of(input logic [QW-1:0] i);
    st_of = qlive_q[i] ? state_m[i] : `HCA_QP_STATE_RESET;
  endfunction
  function automatic logic [15:0] sqpi_of(input logic [QW-1:0] i);
    sqpi_of = qlive_q[i] ? sq_pi_m[i] : 16'd0;
  endfunction
  function automatic logic [15:0] sqci_of(input logic [QW-1:0] i);
    sqci_of = qlive_q[i] ? sq_ci_m[i] : 16'd0;
  endfunction
  function automatic logic [15:0] rqpi_of(input logic [QW-1:0] i);
    rqpi_of = qlive_q[i] ? rq_pi_m[i] : 16'd0;
  endfunction
  function automatic logic [15:0] rqci_of(input logic [QW-1:0] i);
    rqci_of = qlive_q[i] ? rq_ci_m[i] : 16'd0;
  endfunction
  function automatic logic [15:0] cqpi_of(input logic [CW-1:0] i);
    cqpi_of = clive_q[i] ? cq_pi_m[i] : 16'd0;
  endfunction
  function automatic logic [15:0] cqci_of(input logic [CW-1:0] i);
    cqci_of = clive_q[i] ? cq_ci_m[i] : 16'd0;
  endfunction

  // ---------------------------------------------------------------- firmware decode
  logic                 wr, rd, hit_data, hit_cmd, hit_status;
  logic [3:0]           word;
  logic [`HCA_CTX_OP_W-1:0] op;
  logic [15:0]          cmd_idx;
  logic                 qp_ok, cq_ok;
  logic                 do_wqpc, do_rqpc, do_wcqc, do_rcqc, do_drain;
  logic [N_DRAIN-1:0]   drain_q;     // clients DRAIN still waits for
  logic [QW-1:0]        cmd_q;
  logic [CW-1:0]        cmd_c;
  logic [1:0]           new_state;
  logic                 new_reset;

  assign wr         = fw_valid_i && fw_write_i;
  assign drain_wait_o = drain_q != '0;
  assign drain_pend_o = drain_q;
  assign rd         = fw_valid_i && !fw_write_i;
  assign hit_data   = fw_addr_i[1:0] == 2'b00 && fw_addr_i < 16'(`HCA_CTX_DATA + 4 * WORDS);
  assign hit_cmd    = fw_addr_i == 16'(`HCA_CTX_CMD);
  assign hit_status = fw_addr_i == 16'(`HCA_CTX_STATUS);
  assign word       = fw_addr_i[5:2];
  assign op         = fw_wdata_i[`HCA_CTX_CMD_OP_LSB +: `HCA_CTX_OP_W];
  assign cmd_idx    = fw_wdata_i[`HCA_CTX_CMD_INDEX_LSB +: 16];
  assign qp_ok      = cmd_idx != 16'd0 && cmd_idx < 16'(MAX_QP);
  assign cq_ok      = cmd_idx != 16'd0 && {1'b0, cmd_idx} < 17'(MAX_CQ);
  assign cmd_q      = cmd_idx[QW-1:0];
  assign cmd_c      = cmd_idx[CW-1:0];
  assign do_wqpc    = wr && hit_cmd && op == `HCA_CTX_OP_WRITE_QPC && qp_ok;
  assign do_rqpc    = wr && hit_cmd && op == `HCA_CTX_OP_READ_QPC && qp_ok;
  assign do_wcqc    = wr && hit_cmd && op == `HCA_CTX_OP_WRITE_CQC && cq_ok;
  assign do_rcqc    = wr && hit_cmd && op == `HCA_CTX_OP_READ_CQC && cq_ok;
  assign do_drain   = wr && hit_cmd && op == `HCA_CTX_OP_DRAIN;
  // An invalidation's DRAIN (index 0) waits for the key-checked sources; a
  // destroy's (DRAIN_ALL) for every source: WQE reads and CQE writes too.
  logic [N_DRAIN-1:0] drain_sel;
  assign drain_sel  = (cmd_idx == 16'(`HCA_DRAIN_ALL)) ? '1 : N_DRAIN'(`HCA_DRAIN_KEYED_MASK);
  assign new_state  = `HCA_QP_CTX_STATE(stage_q);
  assign new_reset  = new_state == `HCA_QP_STATE_RESET || new_state == `HCA_QP_STATE_RTS;

  // CMD bits other than op and index are reserved.
  logic unused_fw;
  assign unused_fw = ^{fw_wdata_i[31:`HCA_CTX_CMD_OP_LSB + `HCA_CTX_OP_W],
                       fw_wdata_i[`HCA_CTX_CMD_OP_LSB-1:16]};

  always_comb begin
    result_d = result_q;
    if (wr && hit_cmd) begin
      case (op)
        `HCA_CTX_OP_NOP, `HCA_CTX_OP_DRAIN: result_d = `HCA_FWP_RESULT_OK;
        `HCA_CTX_OP_WRITE_QPC, `HCA_CTX_OP_READ_QPC:
          result_d = qp_ok ? `HCA_FWP_RESULT_OK : `HCA_FWP_RESULT_BAD_INDEX;
        `HCA_CTX_OP_WRITE_CQC, `HCA_CTX_OP_READ_CQC:
          result_d = cq_ok ? `HCA_FWP_RESULT_OK : `HCA_FWP_RESULT_BAD_INDEX;
        default: result_d = `HCA_FWP_RESULT_BAD_OP;
      endcase
    end
  end

  // The contexts as READ_QPC / READ_CQC show them.
  logic [`HCA_QP_CTX_W-1:0] qpc_view;
  logic [`HCA_CQ_CTX_W-1:0] cqc_view;
  always_comb begin
    qpc_view = `HCA_QP_CTX_W'(qpc_q[cmd_q]);
    `HCA_QP_CTX_STATE(qpc_view) = st_of(cmd_q);
    cqc_view = cqc_q[cmd_c];
    `HCA_CQ_CTX_CQ_VALID(cqc_view) = cq_valid_q[cmd_c];
    cqc_view[OVF_BIT] = clive_q[cmd_c] && ovf_m[cmd_c];
  end

  always_comb begin
    rdata_d = 32'd0;
    if (rd && hit_data) begin
      rdata_d = stage_q[32 * word +: 32];
    end
    if (rd && hit_status) begin
      rdata_d = (32'(result_q) << `HCA_CTX_STATUS_RESULT_LSB) |
                (32'(drain_q != '0) << `HCA_CTX_STATUS_BUSY_LSB);
    end
  end

  assign fw_rvalid_o = rvalid_q;
  assign fw_rdata_o  = rdata_q;

  // Staging and status: software-visible, reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_q  <= '0;
      rvalid_q <= 1'b0;
      rdata_q  <= '0;
      result_q <= `HCA_FWP_RESULT_OK;
      drain_q  <= '0;
    end else begin
      rvalid_q <= fw_valid_i `ifdef HCA_MUTANT_CTX_WRITE_NO_ANSWER && !fw_write_i `endif ;  // mutant: rtl/formal/hca_ctx_port_props.sv
      rdata_q  <= rdata_d;
      result_q <= result_d;
      // A waited-for client drops out the first cycle it is seen idle.
`ifndef HCA_MUTANT_NO_DRAIN
      drain_q  <= (drain_q & drain_busy_i) | (do_drain ? drain_busy_i & drain_sel : '0);
`else  // formal mutant (rtl/formal/hca_ctx_props.sv): DRAIN answers at once, waiting for nobody
      drain_q  <= '0;
`endif
      if (do_rqpc) begin
        stage_q <= qpc_view;
      end
      if (do_rcqc) begin
        stage_q <= `HCA_QP_CTX_W'(cqc_view);
      end
      if (wr && hit_data) begin
        stage_q[32 * word +: 32] <= fw_wdata_i;
      end
    end
  end

  // ---------------------------------------------------------------- doorbells
  logic            db_sq, db_rq, db_cq;
  logic [15:0]     db_num, db_idx;
  logic            db_qp_ok, db_cq_ok;
  logic [QW-1:0]   db_q;
  logic [CW-1:0]   db_c;

  assign db_ready_o = 1'b1;
  assign db_num     = db_data_i[15:0];
  assign db_idx     = db_data_i[31:16];
  assign db_qp_ok   = db_num < 16'(MAX_QP);
  assign db_cq_ok   = {1'b0, db_num} < 17'(MAX_CQ);
  assign db_q       = db_num[QW-1:0];
  assign db_c       = db_num[CW-1:0];
  assign db_sq      = db_valid_i && db_addr_i == 4'(`HCA_DB_SQ) && db_qp_ok &&
                      st_of(db_q) != `HCA_QP_STATE_RESET;
  assign db_rq      = db_valid_i && db_addr_i == 4'(`HCA_DB_RQ) && db_qp_ok &&
                      st_of(db_q) != `HCA_QP_STATE_RESET;
  assign db_cq      = db_valid_i && db_addr_i == 4'(`HCA_DB_CQ) && db_cq_ok;

  // ---------------------------------------------------------------- QP table
  logic          sq_inc_ok, rq_err_ok;
  logic [QW-1:0] sq_inc_q, rq_err_q;
  assign sq_inc_ok = req_sq_ci_inc_i && req_sq_ci_qpn_i < 16'(MAX_QP);
  assign rq_err_ok = req_err_valid_i && req_err_qpn_i < 16'(MAX_QP);
  assign sq_inc_q  = req_sq_ci_qpn_i[QW-1:0];
  assign rq_err_q  = req_err_qpn_i[QW-1:0];

  // Contexts are data (written before use by the firmware); states and
  // indices are control, reset: every QP RESET, every CQ invalid.
  always_ff @(posedge clk_i) begin
    if (do_wqpc) begin
      qpc_q[cmd_q] <= stage_q[QPC_STORE-1:0];
    end
  end

  // Updates by index (no per-entry loop in the per-cycle logic); written in
  // the order of precedence: a later write to the same entry wins.
  logic          rs_inc_ok, rs_err_ok;
  logic [QW-1:0] rs_q, rs_err_q;
  assign rs_inc_ok = rs_rq_ci_inc_i;   // the responder's QP numbers are QW bits: always in range
  assign rs_err_ok = rs_err_valid_i;
  assign rs_q      = rs_qpn_i;
  assign rs_err_q  = rs_err_qpn_i;

  always_ff @(posedge clk_i) begin
    if (db_sq) begin
      sq_pi_m[db_q] <= db_idx;
    end
    if (db_rq) begin
      rq_pi_m[db_q] <= db_idx;
    end
    if (sq_inc_ok) begin
      sq_ci_m[sq_inc_q] <= sqci_of(sq_inc_q) + 16'd1;
    end
    if (rs_inc_ok) begin
      rq_ci_m[rs_q] <= rqci_of(rs_q) + 16'd1;
    end
    if (rq_err_ok && st_of(rq_err_q) == `HCA_QP_STATE_RTS) begin
      state_m[rq_err_q] <= `HCA_QP_STATE_ERROR;
    end
    if (rs_err_ok && st_of(rs_err_q) == `HCA_QP_STATE_RTS) begin
      state_m[rs_err_q] <= `HCA_QP_STATE_ERROR;
    end
    if (do_wqpc) begin
      state_m[cmd_q] <= new_state;
      if (new_reset || !qlive_q[cmd_q]) begin   // the entry's first write: whole
        sq_pi_m[cmd_q] <= '0;
        sq_ci_m[cmd_q] <= '0;
        rq_pi_m[cmd_q] <= '0;
        rq_ci_m[cmd_q] <= '0;
      end
    end
  end

  // The requester forgets what it held for a QP written to RESET or RTS,
  // and sets up its entries at the QP's first write (docs/engine.md).
  assign qpc_set_o    = do_wqpc;
  assign qpc_wr_o     = do_wqpc && (new_reset || !qlive_q[cmd_q]);
  assign qpc_wr_qpn_o = cmd_idx;
  assign sq_db_o      = db_sq;
  assign sq_db_qpn_o  = db_num;
  assign rq_db_err_o  = db_rq && st_of(db_q) == `HCA_QP_STATE_ERROR;   // the responder flushes it

  // The scheduler's head QP, looked up by index (no per-QP summary vectors
  // kept up to date: the requester asks for the one QP it looks at).
  assign pe_pend_o = sqpi_of(pe_qpn_i) != sqci_of(pe_qpn_i) && st_of(pe_qpn_i) != `HCA_QP_STATE_RESET;
  assign pe_err_o  = st_of(pe_qpn_i) == `HCA_QP_STATE_ERROR;
  assign qp_live_o = qlive_q;

  // The live and cq_valid bits change only in the cycle of a WRITE_QPC /
  // WRITE_CQC: a whole-vector update under that condition (a shifted one
  // ORed in), not a next value of the table's width computed every cycle.
  // (No variable bit index on the left: Yosys refuses one under an async
  // reset.)
  logic stage_cq_valid;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      qlive_q    <= '0;
      clive_q    <= '0;
      cq_valid_q <= '0;
    end else begin
      if (do_wqpc) begin
        qlive_q <= qlive_q | (MAX_QP'(1) << cmd_q);
      end
      if (do_wcqc) begin
        clive_q    <= clive_q | (MAX_CQ'(1) << cmd_c);
        cq_valid_q <= (cq_valid_q & ~(MAX_CQ'(1) << cmd_c)) | (MAX_CQ'(stage_cq_valid) << cmd_c);
      end
    end
  end

  // ---------------------------------------------------------------- CQ table
  always_ff @(posedge clk_i) begin
    if (do_wcqc) begin
      cqc_q[cmd_c] <= stage_q[CQC_STORE-1:0];
    end
  end


  always_ff @(posedge clk_i) begin
    if (db_cq) begin
      cq_ci_m[db_c] <= db_idx;
    end
    if (cq_pi_inc_i && cq_inrange_q) begin
      cq_pi_m[cq_idx_q] <= cqpi_of(cq_idx_q) + 16'd1;
    end
    if (cq_ovf_set_i && cq_inrange_q) begin
      ovf_m[cq_idx_q] <= 1'b1;
    end
    if (do_wcqc) begin
      cq_pi_m[cmd_c]    <= '0;
      cq_ci_m[cmd_c]    <= '0;
      ovf_m[cmd_c]      <= 1'b0;
    end
  end

  // (The staged bit as a wire: Icarus cannot take a constant select of
  // stage_q in an always_*.)
  assign stage_cq_valid = `HCA_CQ_CTX_CQ_VALID(stage_q);

  // ---------------------------------------------------------------- read ports
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ra_idx_q     <= '0;
      rb_idx_q     <= '0;
      rs_idx_q     <= '0;
      cq_idx_q     <= '0;
      cq_inrange_q <= 1'b0;
    end else begin
      ra_idx_q     <= ra_qpn_i[QW-1:0];
      rb_idx_q     <= rb_qpn_i[QW-1:0];
      rs_idx_q     <= rs_qpn_i[QW-1:0];
      cq_idx_q     <= cq_cqn_i[CW-1:0];
      cq_inrange_q <= {1'b0, cq_cqn_i} < 17'(MAX_CQ);
    end
  end

  always_comb begin
    ra_qpc_o = `HCA_QP_CTX_W'(qpc_q[ra_idx_q]);
    `HCA_QP_CTX_STATE(ra_qpc_o) = st_of(ra_idx_q);
    rb_qpc_o = `HCA_QP_CTX_W'(qpc_q[rb_idx_q]);
    `HCA_QP_CTX_STATE(rb_qpc_o) = st_of(rb_idx_q);
    rs_qpc_o = `HCA_QP_CTX_W'(qpc_q[rs_idx_q]);
    `HCA_QP_CTX_STATE(rs_qpc_o) = st_of(rs_idx_q);
    cq_cqc_o = cqc_q[cq_idx_q];
    cq_cqc_o[OVF_BIT] = 1'b0;
    `HCA_CQ_CTX_CQ_VALID(cq_cqc_o) = cq_valid_q[cq_idx_q];
  end

  assign ra_sq_ci_o   = sqci_of(ra_idx_q);
  assign ra_sq_pi_o   = sqpi_of(ra_idx_q);
  assign rb_sq_ci_o   = sqci_of(rb_idx_q);
  assign rs_state_o   = st_of(rs_idx_q);
  assign rs_rq_pi_o   = rqpi_of(rs_idx_q);
  assign rs_rq_ci_o   = rqci_of(rs_idx_q);
  assign cq_inrange_o = cq_inrange_q;
  assign cq_pi_o      = cqpi_of(cq_idx_q);
  assign cq_ci_o      = cqci_of(cq_idx_q);

  // The requester and responder indices beyond the table width are 0 for
  // every number they use (they only name existing QPs).
  logic unused_idx;
  assign unused_idx = ^{ra_qpn_i[15:QW], rb_qpn_i[15:QW]};

  // The twin of hca_ctx_quiet_until: an answer lasts one cycle; a DRAIN drops
  // its clients as they go idle.
  // The read ports' index registers follow their inputs every cycle: quiet
  // once they hold them (an index is read the cycle after it is driven, so
  // a stale one has no effect, but then a skip would leave it stale).
  assign quiet_o = !rvalid_q && drain_q == '0 && ra_idx_q == ra_qpn_i[QW-1:0] && rb_idx_q == rb_qpn_i[QW-1:0] &&
                   rs_idx_q == rs_qpn_i[QW-1:0] && cq_idx_q == cq_cqn_i[CW-1:0];

endmodule
