`default_nettype none
`include "hca_abi.svh"

// hca_ctx_props — the DRAIN half of the invalidation guarantee (`make
// formal`, by induction): hca_ctx as it is (2 QPs, 2 CQs, N_DRAIN clients),
// every input free each cycle.
//
//   drain_waits     once a STATUS read issued after a watched DRAIN answers
//                   not busy, every client whose drain_busy_i bit was high
//                   in the DRAIN's cycle has been seen low in at least one
//                   cycle between the DRAIN and the read (the cycle the read
//                   is issued excluded: STATUS is sampled then).
//   drain_at_once   a DRAIN written while no client is busy and none is
//                   waited for is done at once: a STATUS read in the next
//                   cycle answers not busy.
//   drain_finishes  the converse: with no other DRAIN written since, once
//                   every client the watched DRAIN snapshotted has been seen
//                   low, STATUS reads not busy (it does not wait for a job
//                   started after it).
//   drain_tracks    the bookkeeping the induction rests on: a snapshotted
//                   client not yet seen low is still waited for.
// The clients a DRAIN snapshots are those its index selects: every one for
// DRAIN_ALL (a destroy's), DRAIN_KEYED_MASK for an invalidation's.
//
// Assumed: reset in the first cycle, not after. Each property fails on the
// mutant HCA_MUTANT_NO_DRAIN (a ctx that answers DRAIN without waiting).
module hca_ctx_props #(
  parameter int N_DRAIN = `HCA_DRAIN_SOURCES, // as hca_core has it; the properties hold for any width
  parameter int MAX_QP  = 2,                   // small tables: the DRAIN does not look at them
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
  input  logic                       cq_ovf_set_i,
  input  logic                       watch_i     // the solver picks the DRAIN to watch
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

  // The ctx's waited-for set (dut.drain_q), for the induction's invariant:
  // left undriven here and connected to it after flattening (formal.mk:
  // `connect -set`; Yosys 0.23 reads no hierarchical names).
  logic [N_DRAIN-1:0] drain_q;

  logic init = 1'b1;
  always_ff @(posedge clk_i) init <= 1'b0;
  always_comb if (init) assume (!rst_ni); else assume (rst_ni);

  wire cmd_write = fw_valid_i && fw_write_i && fw_addr_i == 16'(`HCA_CTX_CMD);
  wire drain     = cmd_write && fw_wdata_i[`HCA_CTX_CMD_OP_LSB +: `HCA_CTX_OP_W] == `HCA_CTX_OP_DRAIN;
  wire st_read   = fw_valid_i && !fw_write_i && fw_addr_i == 16'(`HCA_CTX_STATUS);
  wire not_busy  = !fw_rdata_o[`HCA_CTX_STATUS_BUSY_LSB];
  // The sources the DRAIN written waits for, as SEMANTICS' contract reads:
  // every one for a destroy's (index DRAIN_ALL), the key-checked ones for an
  // invalidation's.
  wire [N_DRAIN-1:0] sel = (fw_wdata_i[`HCA_CTX_CMD_INDEX_LSB +: 16] == 16'(`HCA_DRAIN_ALL)) ? '1 :
                           N_DRAIN'(`HCA_DRAIN_KEYED_MASK);

  // The watched DRAIN: its snapshot, the clients seen low since (from the
  // next cycle on), whether another DRAIN came after it.
  logic               watching, other, idle;  // idle: none waited for at the DRAIN
  logic [N_DRAIN-1:0] snap, seen;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      watching <= 1'b0;
      other    <= 1'b0;
      idle     <= 1'b0;
      snap     <= '0;
      seen     <= '0;
    end else if (!watching) begin
      if (drain && watch_i) begin
        watching <= 1'b1;
        idle     <= !drain_wait_o;
        snap     <= drain_busy_i & sel;
        seen     <= '0;
      end
    end else begin
      seen  <= seen | ~drain_busy_i;
      other <= other || drain;
    end
  end
  wire covered = (snap & ~seen) == '0;

  // A STATUS read and what held in its cycle; its answer comes a cycle later.
  logic rd_q, rd_watch_q, rd_covered_q, rd_alone_q, rd_at_once_q, at_once_q;
  always_ff @(posedge clk_i) begin
    rd_q         <= rst_ni && st_read;
    rd_watch_q   <= watching;
    rd_covered_q <= covered;
    rd_alone_q   <= idle && !other;
    rd_at_once_q <= at_once_q;
    // A DRAIN with no client busy and none waited for, last cycle.
    at_once_q    <= rst_ni && drain && (drain_busy_i & sel) == '0 && !drain_wait_o;
  end
  wire answer = rd_q && fw_rvalid_o;

  always_comb if (!init) begin
    if (answer && rd_watch_q && not_busy)
      drain_waits: assert (rd_covered_q);
    if (answer && rd_at_once_q)
      drain_at_once: assert (not_busy);
    if (answer && rd_watch_q && rd_covered_q && rd_alone_q)
      drain_finishes: assert (not_busy);
    // At least the snapshot's clients not yet seen low are waited for; with
    // none waited for before and no other DRAIN since, exactly those.
    if (watching)
      drain_tracks: assert ((snap & ~seen & ~drain_q) == '0 &&
                            (!idle || other || drain_q == (snap & ~seen)));
  end

endmodule
