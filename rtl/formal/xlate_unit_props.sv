`default_nettype none
`include "hca_abi.svh"

// xlate_unit_props — the translation unit's fence and handshake properties,
// checked bounded from reset (`make formal`) on small tables, every input
// free except for the assumptions below.
//
//   fence           once the firmware has seen an INVALIDATE of MPT index I
//                   answered (a STATUS read after the command returns busy =
//                   0), no response beat of a request through a key of index
//                   I is granted (status OK) — the requests accepted before
//                   were all finished by then (the fence count), and the
//                   later ones read the FREE entry. The firmware writes no
//                   MPT entry I after its INVALIDATE (that would be a new
//                   registration, a new grant).
//   rsp_stable      a response beat, once valid, holds and stays valid until
//                   taken (valid/ready).
//   rsp_in_order    a beat belongs to the oldest unfinished request (its tag).
//   fw_answer       every firmware access is answered exactly one cycle later.
//
// Assumed of the environment: reset in the first cycle; requests hold
// (valid and payload) until accepted; at most one INVALIDATE watched.
// Requests are followed in a FIFO of their key indices (the unit answers in
// order; rsp_in_order checks that this bookkeeping matches the unit).
module xlate_unit_props #(
  parameter int MPT_ENTRIES = 2,
  parameter int MTT_ENTRIES = 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           req_valid_i,
  input  logic [`HCA_XU_TAG_BITS-1:0]    req_tag_i,
  input  logic [`HCA_ACCESS_W-1:0]       req_rights_i,
  input  logic                           req_remote_i,
  input  logic [`HCA_KEY_BITS-1:0]       req_key_i,
  input  logic [`HCA_PD_BITS-1:0]        req_pd_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]    req_len_i,
  input  logic [63:0]                    req_va_i,
  input  logic                           rsp_ready_i,
  input  logic                           fw_valid_i,
  input  logic                           fw_write_i,
  input  logic [15:0]                    fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  input  logic                           watch_i      // the solver picks the INVALIDATE to watch
);

  logic                           req_ready_o, rsp_valid_o, rsp_last_o, fw_ready_o, fw_rvalid_o;
  logic [`HCA_XU_TAG_BITS-1:0]    rsp_tag_o;
  logic [`HCA_XLATE_STATUS_W-1:0] rsp_status_o;
  logic [`HCA_XU_LEN_BITS-1:0]    rsp_len_o;
  logic [63:0]                    rsp_pa_o;
  logic [31:0]                    fw_rdata_o;
  logic                           fence_wait_o;  // the race counters' pin: not a property here

  xlate_unit #(.MPT_ENTRIES(MPT_ENTRIES), .MTT_ENTRIES(MTT_ENTRIES)) dut (.*);

  localparam int IW = `HCA_KEY_BITS - `HCA_KEY_INDEX_SHIFT;
  localparam int DEPTH = 8;  // more than the unit holds in flight (xu_fw_port: 7)

  logic init = 1'b1;
  always_ff @(posedge clk_i) init <= 1'b0;

  // ---------------------------------------------------------------- environment
  always_comb if (init) assume (!rst_ni); else assume (rst_ni);

  logic               req_hold;
  logic [`HCA_XU_TAG_BITS-1:0] p_tag;
  logic [`HCA_KEY_BITS-1:0]    p_key;
  logic [`HCA_XU_LEN_BITS-1:0] p_len;
  logic [63:0]                 p_va;
  logic [`HCA_ACCESS_W-1:0]    p_rights;
  logic [`HCA_PD_BITS-1:0]     p_pd;
  logic                        p_remote;
  always_ff @(posedge clk_i) begin
    req_hold <= rst_ni && req_valid_i && !req_ready_o;
    {p_tag, p_key, p_len, p_va, p_rights, p_pd, p_remote} <=
        {req_tag_i, req_key_i, req_len_i, req_va_i, req_rights_i, req_pd_i, req_remote_i};
  end
  always_comb if (req_hold)
    assume (req_valid_i && {req_tag_i, req_key_i, req_len_i, req_va_i, req_rights_i, req_pd_i, req_remote_i} ==
                           {p_tag, p_key, p_len, p_va, p_rights, p_pd, p_remote});

  // ---------------------------------------------------------------- requests in flight
  logic [IW-1:0]               q_idx [DEPTH];
  logic [`HCA_XU_TAG_BITS-1:0] q_tag [DEPTH];
  logic                        q_rsv [DEPTH];  // through the reserved L_Key: no MPT entry, never invalidated
  logic [3:0]                  q_head, q_tail, q_level;
  wire accept = rst_ni && req_valid_i && req_ready_o;
  wire beat   = rst_ni && rsp_valid_o && rsp_ready_i;
  wire finish = beat && rsp_last_o;
  assign q_level = q_tail - q_head;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      q_head <= '0;
      q_tail <= '0;
    end else begin
      if (accept) begin
        q_idx[q_tail[2:0]] <= req_key_i[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT];
        q_tag[q_tail[2:0]] <= req_tag_i;
        q_rsv[q_tail[2:0]] <= req_key_i == `HCA_KEY_BITS'(`HCA_RESERVED_LKEY);
        q_tail <= q_tail + 4'd1;
      end
      if (finish)
        q_head <= q_head + 4'd1;
    end
  end

  // ---------------------------------------------------------------- the watched INVALIDATE
  wire cmd_write   = rst_ni && fw_valid_i && fw_write_i && fw_addr_i == 16'(`HCA_FWP_CMD);
  wire [3:0] cmd_op = fw_wdata_i[`HCA_FWP_CMD_OP_LSB +: 4];
  wire [IW-1:0] cmd_idx = IW'(fw_wdata_i[`HCA_FWP_CMD_INDEX_LSB +: `HCA_FWP_CMD_INDEX_W]);
  logic          watching, answered, status_read;
  logic [IW-1:0] w_idx;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      watching <= 1'b0;
      answered <= 1'b0;
      status_read <= 1'b0;
    end else begin
      if (!watching && cmd_write && cmd_op == `HCA_FWP_OP_INVALIDATE && watch_i) begin
        watching <= 1'b1;
        w_idx    <= cmd_idx;
      end
      // The firmware's STATUS read, issued after the command, answered not busy.
      status_read <= fw_valid_i && !fw_write_i && fw_addr_i == 16'(`HCA_FWP_STATUS) && watching;
      if (status_read && fw_rvalid_o && !fw_rdata_o[`HCA_FWP_STATUS_BUSY_LSB] &&
          fw_rdata_o[`HCA_FWP_STATUS_RESULT_LSB +: `HCA_FWP_STATUS_RESULT_W] == `HCA_FWP_RESULT_OK)
        answered <= 1'b1;
    end
  end
  // The firmware's command protocol (what firmware/mm.c does): a CMD is
  // written only while the port is idle — after reset, after a command that
  // completes at once (NOP, WRITE_MPT, WRITE_MTT), or once a STATUS read
  // answered not busy. (A CMD written while busy is dropped with result BUSY,
  // which the running command's own result may then overwrite.)
  logic idle_known, st_rd_q;
  always_ff @(posedge clk_i) begin
    st_rd_q <= rst_ni && fw_valid_i && !fw_write_i && fw_addr_i == 16'(`HCA_FWP_STATUS);
    if (!rst_ni)
      idle_known <= 1'b1;
    else if (cmd_write)
      idle_known <= cmd_op == `HCA_FWP_OP_NOP || cmd_op == `HCA_FWP_OP_WRITE_MPT || cmd_op == `HCA_FWP_OP_WRITE_MTT;
    else if (st_rd_q && fw_rvalid_o && !fw_rdata_o[`HCA_FWP_STATUS_BUSY_LSB])
      idle_known <= 1'b1;
  end
  always_comb if (cmd_write) assume (idle_known);

  // No new registration of the watched entry (nor a second INVALIDATE of it
  // that would restart the story).
  always_comb if (watching && cmd_write && cmd_idx == w_idx)
    assume (cmd_op != `HCA_FWP_OP_WRITE_MPT && cmd_op != `HCA_FWP_OP_INVALIDATE);

  // ---------------------------------------------------------------- properties
  always_comb if (answered && beat && q_idx[q_head[2:0]] == w_idx && !q_rsv[q_head[2:0]])
    fence: assert (rsp_status_o != `HCA_XLATE_STATUS_OK);

  always_comb if (beat)
    rsp_in_order: assert (q_level != 0 && rsp_tag_o == q_tag[q_head[2:0]]);
  always_comb if (rst_ni)
    no_overflow: assert (q_level <= 4'(DEPTH - 1));

  logic                 rsp_hold, fw_pending;
  logic [`HCA_XU_TAG_BITS + `HCA_XLATE_STATUS_W + 1 + `HCA_XU_LEN_BITS + 64 - 1:0] rsp_prev;
  always_ff @(posedge clk_i) begin
    rsp_hold   <= rst_ni && rsp_valid_o && !rsp_ready_i;
    rsp_prev   <= {rsp_tag_o, rsp_status_o, rsp_last_o, rsp_len_o, rsp_pa_o};
    fw_pending <= rst_ni && fw_valid_i && fw_ready_o;
  end
  always_comb if (rst_ni && rsp_hold)
    rsp_stable: assert (rsp_valid_o && {rsp_tag_o, rsp_status_o, rsp_last_o, rsp_len_o, rsp_pa_o} == rsp_prev);
  always_comb if (rst_ni)
    fw_answer: assert (fw_rvalid_o == fw_pending);

endmodule
