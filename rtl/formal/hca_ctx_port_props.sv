`default_nettype none
`include "hca_abi.svh"

// hca_ctx_port_props — the ctx's doorbell and firmware command ports
// (`make formal`, by induction): hca_ctx as it is (2 QPs, 2 CQs), every
// input free each cycle. The staging words and the last result are read
// through taps.
//
//   fw_answer       every firmware access is answered exactly one cycle
//                   later; a write answers 0
//   data_readback   a DATA word the firmware wrote, with no READ_QPC /
//                   READ_CQC since, reads back as written
//   status_result   a STATUS read answers the last command's result as the
//                   ABI gives it (OK for NOP and DRAIN, BAD_INDEX for index
//                   0 or beyond the table, BAD_OP for any other op) and busy
//                   exactly while a DRAIN waits
//   db_ready        the doorbell port is always ready (a doorbell's effect
//                   on the index tables is not stated here: Yosys renames
//                   the words of the 16-bit index memories when it maps
//                   them, so a tap cannot name them)
//
// HCA_MUTANT_CTX_WRITE_NO_ANSWER (a register write not answered) breaks
// fw_answer.
module hca_ctx_port_props #(
  parameter int N_DRAIN = 2,
  parameter int MAX_QP  = 2,
  parameter int MAX_CQ  = 2
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic                       db_valid_i,
  input  logic [3:0]                 db_addr_i,
  input  logic [31:0]                db_data_i,
  input  logic                       fw_valid_i,
  input  logic                       fw_write_i,
  input  logic [15:0]                fw_addr_i,
  input  logic [31:0]                fw_wdata_i,
  input  logic [N_DRAIN-1:0]         drain_busy_i,
  input  logic [15:0]                ra_qpn_i,
  input  logic [15:0]                rb_qpn_i,
  input  logic                       req_sq_ci_inc_i,
  input  logic [15:0]                req_sq_ci_qpn_i,
  input  logic                       req_err_valid_i,
  input  logic [15:0]                req_err_qpn_i,
  input  logic [$clog2(MAX_QP)-1:0]  rs_qpn_i,
  input  logic                       rs_rq_ci_inc_i,
  input  logic                       rs_err_valid_i,
  input  logic [$clog2(MAX_QP)-1:0]  rs_err_qpn_i,
  input  logic [$clog2(MAX_QP)-1:0]  pe_qpn_i,
  input  logic [15:0]                cq_cqn_i,
  input  logic                       cq_pi_inc_i,
  input  logic                       cq_ovf_set_i
);

  logic                     db_ready_o, fw_rvalid_o, drain_wait_o, qpc_wr_o, cq_inrange_o, quiet_o;  // quiet_o: hca_core's skip, not checked here
  logic [N_DRAIN-1:0]       drain_pend_o;  // the CQ writer's intake hold in hca_core, not checked here
  logic [31:0]              fw_rdata_o;
  logic [`HCA_QP_CTX_W-1:0] ra_qpc_o, rb_qpc_o, rs_qpc_o;
  logic [`HCA_CQ_CTX_W-1:0] cq_cqc_o;
  logic [15:0]              ra_sq_ci_o, ra_sq_pi_o, rb_sq_ci_o, qpc_wr_qpn_o, rs_rq_pi_o, rs_rq_ci_o, cq_pi_o, cq_ci_o;
  logic                     pe_pend_o, pe_err_o, sq_db_o, rq_db_err_o, qpc_set_o;
  logic [MAX_QP-1:0]        qp_live_o;
  logic [15:0]              sq_db_qpn_o;
  logic [1:0]               rs_state_o;

  hca_ctx #(.MAX_QP(MAX_QP), .MAX_CQ(MAX_CQ), .N_DRAIN(N_DRAIN)) dut (.*);

  // taps (formal.mk connects them): the staging words, the last result
  logic [32*`HCA_CTX_DATA_COUNT-1:0] t_stage;
  logic [`HCA_FWP_RESULT_W-1:0]      t_result;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end
  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
  end

  // The firmware's side: words written since the last READ_*, the result
  // the ABI gives the last command.
  logic                          wr, rd, cmd;
  logic [`HCA_CTX_OP_W-1:0]      op;
  logic [15:0]                   idx;
  logic [`HCA_CTX_DATA_COUNT-1:0] wrote_q;
  logic [32*`HCA_CTX_DATA_COUNT-1:0] words_q;
  logic [`HCA_FWP_RESULT_W-1:0]  res_q, res;
  logic                          in_data;
  assign wr      = fw_valid_i && fw_write_i;
  assign rd      = fw_valid_i && !fw_write_i;
  assign cmd     = wr && fw_addr_i == 16'(`HCA_CTX_CMD);
  assign op      = fw_wdata_i[`HCA_CTX_CMD_OP_LSB +: `HCA_CTX_OP_W];
  assign idx     = fw_wdata_i[`HCA_CTX_CMD_INDEX_LSB +: 16];
  assign in_data = fw_addr_i[1:0] == 2'b00 && fw_addr_i < 16'(`HCA_CTX_DATA + 4 * `HCA_CTX_DATA_COUNT);
  always_comb begin
    case (op)
      `HCA_CTX_OP_NOP, `HCA_CTX_OP_DRAIN:
        res = `HCA_FWP_RESULT_OK;
      `HCA_CTX_OP_WRITE_QPC, `HCA_CTX_OP_READ_QPC:
        res = (idx != 16'd0 && idx < 16'(MAX_QP)) ? `HCA_FWP_RESULT_OK : `HCA_FWP_RESULT_BAD_INDEX;
      `HCA_CTX_OP_WRITE_CQC, `HCA_CTX_OP_READ_CQC:
        res = (idx != 16'd0 && idx < 16'(MAX_CQ)) ? `HCA_FWP_RESULT_OK : `HCA_FWP_RESULT_BAD_INDEX;
      default:
        res = `HCA_FWP_RESULT_BAD_OP;
    endcase
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      wrote_q <= '0;
      res_q   <= `HCA_FWP_RESULT_OK;
    end else begin
      if (cmd) begin
        res_q <= res;
      end
      if (cmd && (op == `HCA_CTX_OP_READ_QPC || op == `HCA_CTX_OP_READ_CQC)) begin
        wrote_q <= '0;
      end
      if (wr && in_data) begin
        wrote_q[fw_addr_i[5:2]]             <= 1'b1;
        words_q[32 * fw_addr_i[5:2] +: 32] <= fw_wdata_i;
      end
    end
  end

  // Last cycle's access and what it must be answered.
  logic        acc_q, check_q;
  logic [31:0] want_q;
  always_ff @(posedge clk_i) begin
    acc_q   <= rst_ni && fw_valid_i;
    check_q <= 1'b0;
    want_q  <= 32'd0;
    if (wr) begin
      check_q <= 1'b1;
    end else if (rd && in_data && wrote_q[fw_addr_i[5:2]]) begin
      check_q <= 1'b1;
      want_q  <= words_q[32 * fw_addr_i[5:2] +: 32];
    end else if (rd && fw_addr_i == 16'(`HCA_CTX_STATUS)) begin
      check_q <= 1'b1;
      want_q  <= (32'(res_q) << `HCA_CTX_STATUS_RESULT_LSB) |
                 (32'(drain_wait_o) << `HCA_CTX_STATUS_BUSY_LSB);
    end
  end

  logic data_ok;
  always_comb begin
    data_ok = 1'b1;
    for (int w = 0; w < `HCA_CTX_DATA_COUNT; w++) begin
      if (wrote_q[w] && t_stage[32 * w +: 32] != words_q[32 * w +: 32]) begin
        data_ok = 1'b0;
      end
    end
  end

  always_comb begin
    if (!init_q) begin
      fw_answer:     assert (fw_rvalid_o == acc_q && (!acc_q || !check_q || fw_rdata_o == want_q));
      data_readback: assert (data_ok);
      status_result: assert (t_result == res_q);
      db_ready:      assert (db_ready_o);
    end
  end

  logic unused;
  assign unused = ^{qpc_wr_o, cq_inrange_o, ra_qpc_o, rb_qpc_o, rs_qpc_o, cq_cqc_o, ra_sq_ci_o,
                    rb_sq_ci_o, ra_sq_pi_o, qpc_wr_qpn_o, rs_rq_pi_o, rs_rq_ci_o, cq_pi_o, cq_ci_o, rs_state_o,
                    pe_pend_o, pe_err_o, sq_db_o, rq_db_err_o, qpc_set_o, qp_live_o, sq_db_qpn_o};

endmodule
