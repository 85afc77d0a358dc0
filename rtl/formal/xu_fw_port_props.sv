`default_nettype none
`include "hca_abi.svh"

// xu_fw_port_props — fwp FAST_REG, the one-shot commit of a one-page
// FAST_REG_MR (`make formal`): xu_fw_port as it is, every input free (the
// firmware's accesses, evt POPs with any event, the tables' read data),
// one bank slot watched (the solver's choice, held: so every slot). The
// property module keeps what the last POP into the watched slot carried.
//
//   fr_refuse  a FAST_REG of a slot out of range, or of the watched slot
//              when no event was popped into it since reset or the last one
//              was not a FAST_REG_MR with wqe_ok, or whose key's index is
//              past the MPT, writes no table (fr_refuse_after: nor at the
//              next edge, but for a WRITE_* then written)
//   fr_read    a FAST_REG of the watched slot holding a wqe_ok FAST_REG_MR
//              whose key's index is in the MPT reads MPT[index(key)] and
//              writes nothing in that cycle
//   fr_write   ...and in the next cycle, given the entry read R: when
//              R.mtt_base is in the MTT, MPT[index(key)] gets the popped
//              event's flags word, key, iova and length, mtt_count 1,
//              reserved 0 and R's own pd and mtt_base (alloc = the flags'),
//              and MTT[R.mtt_base] the event's page | present, both at that
//              edge; else neither table is written (fr_write_none)
//   fr_result  a STATUS read after it, until the next command, answers
//              not busy and OK for a write, BAD_OP for a slot without such
//              an event, BAD_INDEX for a slot or an index out of range
//   inv_*      what 2-induction rests on: the bank's watched word (taps)
//              is the shadow; the port is in its FAST_REG write-back state
//              exactly the cycle after a passing FAST_REG, on its slot; the
//              result register (a tap) holds the result awaited
//
// Assumed: reset in the first cycle; a POP is a firmware access, so none
// comes in a cycle with a port access (hca_core: one access a cycle).
// HCA_MUTANT_FR_BANK_SLOT (the popped event kept one slot on) breaks
// fr_write: FAST_REG then commits another slot's event.
module xu_fw_port_props #(
  parameter int MPT_ENTRIES = 4,
  parameter int MTT_ENTRIES = 4
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           fw_valid_i,
  input  logic                           fw_write_i,
  input  logic [15:0]                    fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  input  logic                           evt_pop_i,
  input  logic [`HCA_EVT_POP_SLOT_W-1:0] evt_pop_slot_i,
  input  logic [`HCA_FW_EVENT_W-1:0]     evt_pop_evt_i,
  input  logic                           req_accept_i,
  input  logic                           req_done_i,
  input  logic [`HCA_MPT_ENTRY_W-1:0]    mpt_rdata_i,
  input  logic                           mpt_rvalid_i,
  input  logic [`HCA_MTT_ENTRY_W-1:0]    mtt_rdata_i,
  input  logic                           mtt_rvalid_i,
  input  logic [`HCA_EVT_POP_SLOT_W-1:0] watch_i      // the slot watched (held)
);

  localparam int MPT_AW = $clog2(MPT_ENTRIES > 1 ? MPT_ENTRIES : 2);
  localparam int MTT_AW = $clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2);
  localparam int SW     = `HCA_EVT_POP_SLOT_W;
  localparam int IDX_W  = `HCA_FWP_CMD_INDEX_W;

  logic                        fw_ready, fw_rvalid, fence_wait, quiet;
  logic [31:0]                 fw_rdata;
  logic [2:0]                  max_ind;
  logic                        mpt_re, mpt_we, mpt_vwe, mpt_wvalid, mtt_re, mtt_we, mtt_vwe, mtt_wvalid;
  logic [MPT_AW-1:0]           mpt_addr;
  logic [MTT_AW-1:0]           mtt_addr;
  logic [`HCA_MPT_ENTRY_W-1:0] mpt_wdata;
  logic [`HCA_MTT_ENTRY_W-1:0] mtt_wdata;

  xu_fw_port #(.MPT_ENTRIES(MPT_ENTRIES), .MTT_ENTRIES(MTT_ENTRIES)) dut (
    .clk_i, .rst_ni, .fw_valid_i, .fw_ready_o(fw_ready), .fw_write_i, .fw_addr_i, .fw_wdata_i,
    .fw_rvalid_o(fw_rvalid), .fw_rdata_o(fw_rdata), .fence_wait_o(fence_wait),
    .evt_pop_i, .evt_pop_slot_i, .evt_pop_evt_i, .req_accept_i, .req_done_i, .max_ind_o(max_ind),
    .mpt_re_o(mpt_re), .mpt_we_o(mpt_we), .mpt_vwe_o(mpt_vwe), .mpt_addr_o(mpt_addr),
    .mpt_wdata_o(mpt_wdata), .mpt_wvalid_o(mpt_wvalid), .mpt_rdata_i, .mpt_rvalid_i,
    .mtt_re_o(mtt_re), .mtt_we_o(mtt_we), .mtt_vwe_o(mtt_vwe), .mtt_addr_o(mtt_addr),
    .mtt_wdata_o(mtt_wdata), .mtt_wvalid_o(mtt_wvalid), .mtt_rdata_i, .mtt_rvalid_i, .quiet_o(quiet)
  );

  // taps (formal.mk connects them): the port's command state and result,
  // its slot register, the bank's words and ok bits
  logic                           t_busy, t_fr_wb;
  logic [2:0]                     t_state;  // xu_fw_port's state_e: ST_IDLE 0, ST_FR_WB 5 (renumbered: inv_wb fails)
  logic [`HCA_FWP_RESULT_W-1:0]   t_result;
  logic [IDX_W-1:0]               t_idx;
  logic [255:0]                   t_b0, t_b1, t_b2, t_b3, t_b4, t_b5, t_b6, t_b7;
  logic [(1 << SW)-1:0]           t_ok;

  assign t_busy  = t_state != 3'd0;
  assign t_fr_wb = t_state == 3'd5;

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end
  logic [SW-1:0] watch_q;
  always_ff @(posedge clk_i) begin
    watch_q <= watch_i;
  end
  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
      assume (watch_i == watch_q);
    end
    assume (!(evt_pop_i && fw_valid_i));
  end

  // The last event popped into the watched slot, in the spec's terms.
  logic        sh_ok_q;
  logic [31:0] sh_key_q, sh_flags_q;
  logic [63:0] sh_iova_q, sh_len_q, sh_page_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      sh_ok_q <= 1'b0;
    end else if (evt_pop_i && evt_pop_slot_i == watch_i) begin
      sh_ok_q    <= `HCA_FW_EVENT_KIND(evt_pop_evt_i) == `HCA_EVT_KIND_FAST_REG_MR &&
                    `HCA_FW_EVENT_WQE_OK(evt_pop_evt_i) == 1'b1;
      sh_key_q   <= `HCA_FW_EVENT_KEY(evt_pop_evt_i);
      sh_flags_q <= `HCA_FW_EVENT_MPT_FLAGS(evt_pop_evt_i);
      sh_iova_q  <= `HCA_FW_EVENT_IOVA(evt_pop_evt_i);
      sh_len_q   <= `HCA_FW_EVENT_LENGTH(evt_pop_evt_i);
      sh_page_q  <= `HCA_FW_EVENT_LIST(evt_pop_evt_i);
    end
  end

  // A FAST_REG command the port takes (written while it is idle).
  logic [IDX_W-1:0] cmd_idx;
  logic [31:0]      sh_idx;
  logic             fr_cmd, cmd_write, on_watch, passes, off_bank, fr_pass, fr_refused;
  assign cmd_write = rst_ni && fw_valid_i && fw_write_i && fw_addr_i == 16'(`HCA_FWP_CMD);
  assign cmd_idx   = fw_wdata_i[`HCA_FWP_CMD_INDEX_LSB +: IDX_W];
  assign fr_cmd    = cmd_write && !t_busy &&
                     fw_wdata_i[`HCA_FWP_CMD_OP_LSB +: `HCA_FWP_CMD_OP_W] == `HCA_FWP_OP_FAST_REG;
  assign on_watch  = {1'b0, cmd_idx} == (IDX_W + 1)'(watch_i);
  assign sh_idx    = sh_key_q >> `HCA_KEY_INDEX_SHIFT;
  assign passes    = sh_ok_q && sh_idx < 32'(MPT_ENTRIES);
  assign off_bank  = {1'b0, cmd_idx} >= (IDX_W + 1)'(1 << SW);
  assign fr_pass   = fr_cmd && on_watch && passes;
  assign fr_refused = fr_cmd && (off_bank || (on_watch && !passes));

  // Last cycle's FAST_REG: passing (on the watched slot), or refused.
  logic fr_pass_q, fr_refused_q;
  logic [`HCA_FWP_RESULT_W-1:0] want_result_q;
  logic                         want_result_valid_q;
  always_ff @(posedge clk_i) begin
    fr_pass_q    <= fr_pass;
    fr_refused_q <= fr_refused;
  end

  // What the command's result must be once it is over, set the cycle it
  // ends (refused: at once; passing: the write-back cycle, unless a CMD
  // written then makes it BUSY), and what STATUS must read from the cycle
  // after until the next command is written.
  logic [`HCA_FWP_RESULT_W-1:0] want_result;
  logic                         want_now;
  always_comb begin
    want_now    = 1'b0;
    want_result = `HCA_FWP_RESULT_OK;
    if (fr_cmd && off_bank) begin
      want_now    = 1'b1;
      want_result = `HCA_FWP_RESULT_BAD_INDEX;
    end else if (fr_cmd && on_watch && !sh_ok_q) begin
      want_now    = 1'b1;
      want_result = `HCA_FWP_RESULT_BAD_OP;
    end else if (fr_refused) begin  // (on the watched slot, its index past the MPT)
      want_now    = 1'b1;
      want_result = `HCA_FWP_RESULT_BAD_INDEX;
    end else if (fr_pass_q && !cmd_write) begin  // a CMD written meanwhile: BUSY is the later event
      want_now    = 1'b1;
      want_result = `HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i) < 32'(MTT_ENTRIES) ? `HCA_FWP_RESULT_OK
                                                                             : `HCA_FWP_RESULT_BAD_INDEX;
    end
  end
  logic stat_rd, stat_rd_q;
  logic [`HCA_FWP_RESULT_W-1:0] stat_want_q;
  assign stat_rd = rst_ni && fw_valid_i && !fw_write_i && fw_addr_i == 16'(`HCA_FWP_STATUS);
  always_ff @(posedge clk_i) begin
    if (!rst_ni || cmd_write) begin
      want_result_valid_q <= rst_ni && want_now;
    end else if (want_now) begin
      want_result_valid_q <= 1'b1;
    end
    if (want_now) begin
      want_result_q <= want_result;
    end
    stat_rd_q   <= stat_rd && want_result_valid_q;
    stat_want_q <= want_result_q;
  end

  generate if (SW != 3) begin : g_bad_slots
    $error("xu_fw_port_props: the bank taps t_b0..t_b7 name 8 slots");
  end endgenerate
  logic [255:0] t_bank;
  always_comb begin
    case (watch_i)
      3'd0: t_bank = t_b0;
      3'd1: t_bank = t_b1;
      3'd2: t_bank = t_b2;
      3'd3: t_bank = t_b3;
      3'd4: t_bank = t_b4;
      3'd5: t_bank = t_b5;
      3'd6: t_bank = t_b6;
      default: t_bank = t_b7;
    endcase
  end

  logic [63:0] page_present;
  assign page_present = sh_page_q | (64'(1) << `HCA_MTT_ENTRY_PRESENT_LSB);

  always_comb begin
    if (!init_q && rst_ni) begin
      if (fr_refused) begin
        fr_refuse: assert (!mpt_we && !mtt_we);
      end
      if (fr_refused_q) begin
        // the cycle after: only a WRITE_* written now may write
        fr_refuse_after: assert ((!mpt_we || (cmd_write && !t_busy)) && (!mtt_we || (cmd_write && !t_busy)));
      end
      if (fr_cmd && on_watch && passes) begin
        fr_read: assert (mpt_re && 32'(mpt_addr) == sh_idx && !mpt_we && !mtt_we);
      end
      if (fr_pass_q) begin
        if (`HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i) < 32'(MTT_ENTRIES)) begin
          fr_write: assert (mpt_we && mpt_vwe && 32'(mpt_addr) == sh_idx &&
                            mpt_wdata[31:0] == sh_flags_q &&  // the flags word: the entry's first
                            `HCA_MPT_ENTRY_KEY(mpt_wdata) == sh_key_q &&
                            `HCA_MPT_ENTRY_IOVA(mpt_wdata) == sh_iova_q &&
                            `HCA_MPT_ENTRY_LENGTH(mpt_wdata) == sh_len_q &&
                            `HCA_MPT_ENTRY_MTT_COUNT(mpt_wdata) == 32'd1 &&
                            `HCA_MPT_ENTRY_RESERVED(mpt_wdata) == 32'd0 &&
                            `HCA_MPT_ENTRY_PD(mpt_wdata) == `HCA_MPT_ENTRY_PD(mpt_rdata_i) &&
                            `HCA_MPT_ENTRY_MTT_BASE(mpt_wdata) == `HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i) &&
                            mpt_wvalid == sh_flags_q[`HCA_MPT_ENTRY_ALLOC_LSB] &&
                            mtt_we && mtt_vwe && mtt_wvalid &&
                            32'(mtt_addr) == `HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i) &&
                            mtt_wdata == page_present);
        end else begin
          fr_write_none: assert (!mpt_we && !mtt_we);
        end
      end
      if (stat_rd_q) begin
        fr_result: assert (fw_rvalid && !fw_rdata[`HCA_FWP_STATUS_BUSY_LSB] &&
                           fw_rdata[`HCA_FWP_STATUS_RESULT_LSB +: `HCA_FWP_RESULT_W] == stat_want_q);
      end
      inv_result: assert (!want_result_valid_q || (t_result == want_result_q && !t_busy));
      inv_bank: assert (t_ok[watch_i] == sh_ok_q &&
                        (!sh_ok_q || (t_bank[31:0] == sh_flags_q && t_bank[63:32] == sh_key_q &&
                                      t_bank[127:64] == sh_iova_q && t_bank[191:128] == sh_len_q &&
                                      t_bank[255:192] == sh_page_q)));
      inv_wb: assert ((!fr_pass_q || (t_fr_wb && t_idx == IDX_W'(watch_i))) &&
                      (!(t_fr_wb && t_idx == IDX_W'(watch_i)) || fr_pass_q));
    end
  end

  logic unused;
  assign unused = ^{fw_ready, fence_wait, quiet, max_ind, mtt_re, mpt_rvalid_i,
                    mtt_rdata_i, mtt_rvalid_i};
endmodule
