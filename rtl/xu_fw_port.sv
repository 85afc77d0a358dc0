`default_nettype none
`include "hca_abi.svh"

// xu_fw_port — the firmware port (register block fwp of abi/hca.toml): entry
// staging, table commands, and the request count that makes INVALIDATE and
// FENCE exact.
//
// Every accepted access (fw_ready_o is always 1) answers with fw_rvalid_o one
// cycle later: read data for a read, 0 for a write. Offsets outside the block
// (or not 4-byte aligned) read 0 and ignore writes.
//
// Commands (CMD write in cycle w; the tables are written through port B):
//   NOP, WRITE_MPT, WRITE_MTT  complete at once; the table write happens at
//                              the edge ending w, so a request accepted in w
//                              still saw the old entry.
//   READ_MPT, READ_MTT         read in w, staging loaded at the end of w+1
//                              (busy for one cycle). The alloc/present bit
//                              comes from the table's valid vector.
//   INVALIDATE                 read in w; at the edge ending w+1 write the
//                              entry back with state FREE and load the fence
//                              count with every request accepted up to and
//                              including w+1 (those read the old entry) and
//                              not yet finished; busy until they finish.
//   FENCE                      the same count at the edge ending w.
//   FAST_REG                   the one-shot commit of a one-page FAST_REG_MR
//                              the firmware decided (index = registration
//                              bank slot): read MPT[index(key)] in w; at the
//                              edge ending w+1 write it with the event's
//                              flags, key, iova, length, mtt_count 1 and its
//                              own pd and mtt_base, and MTT[mtt_base] with
//                              the page (busy for one cycle). A request
//                              accepted up to w+1 saw the old (FREE) entry.
// The registration bank: at each evt POP (evt_pop_i, hca_core) the popped
// event's registration fields are kept at the slot POP's value names, so
// FAST_REG takes the MPT and MTT words from the device instead of 12 staging
// writes; the firmware still decides, and commits only what it decided.
// Requests finish in order, so counting down last beats handed over is an
// exact fence. Only external requests count: the pieces of a KLM walk
// (xu_klm) belong to their outer request, which is done with its last beat.
// So an INVALIDATE of a KLM entry's MR waits for every KLM access accepted
// up to its write, and a piece looked up after the write (any entry lookup
// of a later access, or a later entry of one in flight) sees the FREE entry.
//
// CONFIG.max_indirection (max_ind_o): the deepest chain of indirect MRs a
// KLM walk follows, 1..MAX_INDIRECTION, reset to MAX_INDIRECTION. A write
// with a value outside that range is refused whole: the register keeps its
// value (it reads back as it is). A CMD written while busy is dropped with result BUSY; the
// running command goes on and sets its own result when it completes (if both
// happen at one edge, BUSY is what STATUS shows: the later event for the
// firmware).
module xu_fw_port #(
  parameter int MPT_ENTRIES = `HCA_MPT_ENTRIES_DEFAULT,
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,

  // register access
  input  logic                           fw_valid_i,
  output logic                           fw_ready_o,
  input  logic                           fw_write_i,
  input  logic [15:0]                    fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  output logic                           fw_rvalid_o,
  output logic [31:0]                    fw_rdata_o,
  // 1 while a fence (INVALIDATE's or FENCE's) waits for in-flight requests:
  // what the harness counts as fence waits (docs/scenarios.md)
  output logic                           fence_wait_o,

  // evt POP (hca_core): the popped event, kept at slot for FAST_REG
  input  logic                           evt_pop_i,
  input  logic [`HCA_EVT_POP_SLOT_W-1:0] evt_pop_slot_i,
  input  logic [`HCA_FW_EVENT_W-1:0]     evt_pop_evt_i,

  // request accounting
  input  logic                           req_accept_i,  // request handshake this cycle
  input  logic                           req_done_i,    // a last beat handed over this cycle

  // CONFIG
  output logic [2:0]                     max_ind_o,

  // MPT, port B
  output logic                           mpt_re_o,
  output logic                           mpt_we_o,
  output logic                           mpt_vwe_o,
  output logic [$clog2(MPT_ENTRIES > 1 ? MPT_ENTRIES : 2)-1:0] mpt_addr_o,
  output logic [`HCA_MPT_ENTRY_W-1:0]    mpt_wdata_o,
  output logic                           mpt_wvalid_o,
  input  logic [`HCA_MPT_ENTRY_W-1:0]    mpt_rdata_i,
  input  logic                           mpt_rvalid_i,

  // MTT, port B
  output logic                           mtt_re_o,
  output logic                           mtt_we_o,
  output logic                           mtt_vwe_o,
  output logic [$clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2)-1:0] mtt_addr_o,
  output logic [`HCA_MTT_ENTRY_W-1:0]    mtt_wdata_o,
  output logic                           mtt_wvalid_o,
  input  logic [`HCA_MTT_ENTRY_W-1:0]    mtt_rdata_i,
  input  logic                           mtt_rvalid_i,
  output logic                          quiet_o          // no command runs, no answer pending (xlate_unit quiet_o)
);

  localparam int MPT_AW    = $clog2(MPT_ENTRIES > 1 ? MPT_ENTRIES : 2);
  localparam int MTT_AW    = $clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2);
  localparam int IDX_W     = `HCA_FWP_CMD_INDEX_W;
  localparam int MPT_WORDS = `HCA_FWP_MPT_DATA_COUNT;
  localparam int MTT_WORDS = `HCA_FWP_MTT_DATA_COUNT;
  localparam int MPT_SEL_W = $clog2(MPT_WORDS);
  localparam int MTT_SEL_W = (MTT_WORDS > 1) ? $clog2(MTT_WORDS) : 1;
  // At most 1 request in S1, 1 in the walker, 1 in S3 and 4 in the output
  // FIFO are in flight: 8 bits is ample.
  localparam int INFL_W    = 8;
  localparam logic [IDX_W:0] MPT_LIMIT = MPT_ENTRIES[IDX_W:0];
  localparam logic [IDX_W:0] MTT_LIMIT = MTT_ENTRIES[IDX_W:0];
  localparam int SLOT_W    = `HCA_EVT_POP_SLOT_W;
  localparam int SLOTS     = 1 << SLOT_W;

  generate if (SLOTS != `HCA_EVT_QUEUE_DEPTH) begin : g_bad_slots
`ifdef __ICARUS__
    initial $fatal(1, "xu_fw_port: evt POP.slot must name EVT_QUEUE_DEPTH slots");
`else
    $error("xu_fw_port: evt POP.slot must name EVT_QUEUE_DEPTH slots");
`endif
  end endgenerate

  // The staging registers are the entries' bytes in address order.
  generate if (32 * MPT_WORDS != `HCA_MPT_ENTRY_W || 32 * MTT_WORDS != `HCA_MTT_ENTRY_W)
  begin : g_bad_staging
`ifdef __ICARUS__
    initial $fatal(1, "xu_fw_port: MPT_DATA/MTT_DATA staging does not match the entry sizes");
`else
    $error("xu_fw_port: MPT_DATA/MTT_DATA staging does not match the entry sizes");
`endif
  end endgenerate

  typedef enum logic [2:0] {
    ST_IDLE,      // no command running
    ST_READ_MPT,  // port B read data arrives: load the MPT staging
    ST_READ_MTT,  // ... the MTT staging
    ST_INV_WB,    // write the entry back as FREE, start the fence
    ST_FENCE,     // wait for fence_q more requests to finish
    ST_FR_WB      // FAST_REG: write the MPT entry and the MTT word
  } state_e;

  state_e                         state_q, state_d;
  logic [IDX_W-1:0]               idx_q, idx_d;
  logic [`HCA_FWP_RESULT_W-1:0]   result_q, result_d;
  logic [INFL_W-1:0]              inflight_q, inflight_d;
  logic [INFL_W-1:0]              fence_q, fence_d;
  // Staging: the entries' bytes in address order (word i = bytes 4i..4i+3).
  logic [`HCA_MPT_ENTRY_W-1:0]    mpt_stage_q;
  logic [`HCA_MTT_ENTRY_W-1:0]    mtt_stage_q;
  logic                           rvalid_q;
  logic [31:0]                    rdata_q, rdata_d;

  // ---------------------------------------------------------------- registration bank
  // Per slot: what FAST_REG writes that the MR's own entry does not hold.
  // A memory written by index at POP and read by index; ok (reset) says the
  // slot's event is a FAST_REG_MR with wqe_ok.
  // Slot word: {page, length, iova, key, flags} (BK_* below).
  localparam int BK_FLAGS = 0, BK_KEY = 32, BK_IOVA = 64, BK_LEN = 128, BK_PAGE = 192, BK_W = 256;
  logic [BK_W-1:0]                bank_q [SLOTS];
  logic [SLOTS-1:0]               bank_ok_q;
  logic [BK_W-1:0]                pop_slot, wb_slot;
  logic [BK_W-1:0]                cmd_slot;
  logic [31:0]                    cmd_key;
  logic                           pop_ok;
  assign pop_slot = {`HCA_FW_EVENT_LIST(evt_pop_evt_i), `HCA_FW_EVENT_LENGTH(evt_pop_evt_i),
                     `HCA_FW_EVENT_IOVA(evt_pop_evt_i), `HCA_FW_EVENT_KEY(evt_pop_evt_i),
                     `HCA_FW_EVENT_MPT_FLAGS(evt_pop_evt_i)};
  assign pop_ok   = `HCA_FW_EVENT_KIND(evt_pop_evt_i) == `HCA_EVT_KIND_FAST_REG_MR &&
                    `HCA_FW_EVENT_WQE_OK(evt_pop_evt_i) == 1'b1;

  // ---------------------------------------------------------------- decode
  logic                   aligned, hit_mpt, hit_mtt, hit_cmd, hit_status, hit_inflight, hit_sizes;
  logic                   hit_config, config_ok;
  logic [2:0]             max_ind_q, config_val;
  logic [15:0]            mpt_off, mtt_off;
  logic [MPT_SEL_W-1:0]   mpt_sel;
  logic [MTT_SEL_W-1:0]   mtt_sel;
  logic                   wr, rd, cmd_write, busy;
  logic [`HCA_FWP_OP_W-1:0] cmd_op;
  logic [IDX_W-1:0]       cmd_idx;
  logic                   cmd_mpt_ok, cmd_mtt_ok;
  logic [MPT_AW-1:0]      cmd_mpt_addr, idx_mpt_addr;
  logic [MTT_AW-1:0]      cmd_mtt_addr;
  logic                   cmd_slot_ok, cmd_fr_ok, wb_mtt_ok;
  logic [IDX_W-1:0]       cmd_fr_idx, wb_fr_idx, wb_mtt_base;
  logic [MPT_AW-1:0]      cmd_fr_addr, wb_fr_addr;
  logic [MTT_AW-1:0]      wb_mtt_addr;
  logic [`HCA_MPT_ENTRY_W-1:0] fr_mpt;

  assign aligned      = fw_addr_i[1:0] == 2'b00;
  assign mpt_off      = fw_addr_i - 16'(`HCA_FWP_MPT_DATA);
  assign mtt_off      = fw_addr_i - 16'(`HCA_FWP_MTT_DATA);
  assign hit_mpt      = aligned && (mpt_off < 16'(4 * MPT_WORDS));
  assign hit_mtt      = aligned && (mtt_off < 16'(4 * MTT_WORDS));
  assign mpt_sel      = mpt_off[2 +: MPT_SEL_W];
  assign mtt_sel      = mtt_off[2 +: MTT_SEL_W];
  assign hit_cmd      = fw_addr_i == 16'(`HCA_FWP_CMD);
  assign hit_status   = fw_addr_i == 16'(`HCA_FWP_STATUS);
  assign hit_inflight = fw_addr_i == 16'(`HCA_FWP_INFLIGHT);
  assign hit_sizes    = fw_addr_i == 16'(`HCA_FWP_SIZES);
  assign hit_config   = fw_addr_i == 16'(`HCA_FWP_CONFIG);
  assign config_val   = fw_wdata_i[`HCA_FWP_CONFIG_MAX_INDIRECTION_LSB +: 3];
  assign config_ok    = config_val != 3'd0 && 32'(config_val) <= 32'(`HCA_MAX_INDIRECTION);
  assign max_ind_o    = max_ind_q;

  assign wr           = fw_valid_i && fw_write_i;
  assign rd           = fw_valid_i && !fw_write_i;
  assign cmd_write    = wr && hit_cmd;
  assign cmd_op       = fw_wdata_i[`HCA_FWP_CMD_OP_LSB +: `HCA_FWP_CMD_OP_W];
  assign cmd_idx      = fw_wdata_i[`HCA_FWP_CMD_INDEX_LSB +: IDX_W];
  assign cmd_mpt_ok   = {1'b0, cmd_idx} < MPT_LIMIT;
  assign cmd_mtt_ok   = {1'b0, cmd_idx} < MTT_LIMIT;
  assign cmd_mpt_addr = cmd_idx[MPT_AW-1:0];
  assign cmd_mtt_addr = cmd_idx[MTT_AW-1:0];
  assign idx_mpt_addr = idx_q[MPT_AW-1:0];

  // FAST_REG: the slot named in w (cmd_slot) and, in ST_FR_WB, the slot
  // idx_q kept (wb_slot: no POP can write it in w, the port's access then
  // being the CMD).
  assign cmd_slot_ok  = {1'b0, cmd_idx} < (IDX_W + 1)'(SLOTS);
  assign cmd_slot     = bank_q[cmd_idx[SLOT_W-1:0]];
  assign cmd_key      = cmd_slot[BK_KEY +: 32];
  assign cmd_fr_ok    = bank_ok_q[cmd_idx[SLOT_W-1:0]];
  assign cmd_fr_idx   = IDX_W'(cmd_key >> `HCA_KEY_INDEX_SHIFT);
  assign cmd_fr_addr  = cmd_fr_idx[MPT_AW-1:0];
  assign wb_slot      = bank_q[idx_q[SLOT_W-1:0]];
  assign wb_fr_idx    = IDX_W'(wb_slot[BK_KEY +: 32] >> `HCA_KEY_INDEX_SHIFT);
  assign wb_fr_addr   = wb_fr_idx[MPT_AW-1:0];
  assign wb_mtt_base  = IDX_W'(`HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i));
  assign wb_mtt_ok    = `HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i) < 32'(MTT_ENTRIES);
  assign wb_mtt_addr  = wb_mtt_base[MTT_AW-1:0];
  assign busy         = state_q != ST_IDLE;
  assign fence_wait_o = state_q == ST_FENCE;

  // CMD bits above op are reserved; idx_q keeps the full index for waves.
  logic unused_fw;
  assign unused_fw = ^{fw_wdata_i[31:`HCA_FWP_CMD_OP_LSB + `HCA_FWP_CMD_OP_W], idx_q, wb_fr_idx, wb_mtt_base,
                       cmd_key[`HCA_KEY_INDEX_SHIFT-1:0], cmd_slot, evt_pop_evt_i};

  generate if (`HCA_FWP_CONFIG_MAX_INDIRECTION_W != 3 || `HCA_MAX_INDIRECTION > 7) begin : g_bad_config
`ifdef __ICARUS__
    initial $fatal(1, "xu_fw_port: CONFIG.max_indirection must be 3 bits wide and hold MAX_INDIRECTION");
`else
    $error("xu_fw_port: CONFIG.max_indirection must be 3 bits wide and hold MAX_INDIRECTION");
`endif
  end endgenerate

  // Requests accepted and not finished, as it will be after this edge: a
  // fence loaded from it counts a request accepted in this very cycle.
  assign inflight_d = inflight_q + INFL_W'(req_accept_i) - INFL_W'(req_done_i);

  // ---------------------------------------------------------------- entries
  // The bit edits the commands make to an entry read through port B.
  localparam logic [`HCA_MPT_ENTRY_W-1:0] MPT_ALLOC_MASK =
      `HCA_MPT_ENTRY_W'(1) << `HCA_MPT_ENTRY_ALLOC_LSB;
  localparam logic [`HCA_MPT_ENTRY_W-1:0] MPT_STATE_MASK =
      `HCA_MPT_ENTRY_W'(1) << `HCA_MPT_ENTRY_STATE_LSB;
  localparam logic [`HCA_MTT_ENTRY_W-1:0] MTT_PRESENT_MASK =
      `HCA_MTT_ENTRY_W'(1) << `HCA_MTT_ENTRY_PRESENT_LSB;

  logic [`HCA_MPT_ENTRY_W-1:0] mpt_loaded, mpt_freed;
  logic [`HCA_MTT_ENTRY_W-1:0] mtt_loaded;

  // READ_*: the alloc/present bit comes from the valid vector, not the RAM.
  assign mpt_loaded = (mpt_rdata_i & ~MPT_ALLOC_MASK) |
                      (`HCA_MPT_ENTRY_W'(mpt_rvalid_i) << `HCA_MPT_ENTRY_ALLOC_LSB);
  assign mtt_loaded = (mtt_rdata_i & ~MTT_PRESENT_MASK) |
                      (`HCA_MTT_ENTRY_W'(mtt_rvalid_i) << `HCA_MTT_ENTRY_PRESENT_LSB);
  // INVALIDATE: only the state changes, to FREE; alloc (the vector) stays.
  assign mpt_freed  = (mpt_rdata_i & ~MPT_STATE_MASK) |
                      (`HCA_MPT_ENTRY_W'(`HCA_MKEY_STATE_FREE) << `HCA_MPT_ENTRY_STATE_LSB);
  // FAST_REG: the registration over the MR's own pd and mtt_base (the slow
  // path's mpt_of for one page), fields in the entry's order (checked below).
  assign fr_mpt = {32'd0, 32'd1, wb_slot[BK_LEN +: 64], wb_slot[BK_IOVA +: 64],
                   `HCA_MPT_ENTRY_MTT_BASE(mpt_rdata_i), `HCA_MPT_ENTRY_PD(mpt_rdata_i),
                   wb_slot[BK_KEY +: 32], wb_slot[BK_FLAGS +: 32]};
  generate if (`HCA_MPT_ENTRY_W != 320 || `HCA_MPT_ENTRY_KEY_LSB != 32 || `HCA_MPT_ENTRY_PD_LSB != 64 ||
               `HCA_MPT_ENTRY_MTT_BASE_LSB != 96 || `HCA_MPT_ENTRY_IOVA_LSB != 128 ||
               `HCA_MPT_ENTRY_LENGTH_LSB != 192 || `HCA_MPT_ENTRY_MTT_COUNT_LSB != 256 ||
               `HCA_MPT_ENTRY_RESERVED_LSB != 288) begin : g_bad_fr_mpt
`ifdef __ICARUS__
    initial $fatal(1, "xu_fw_port: FAST_REG's MPT entry is not in mpt_entry's layout");
`else
    $error("xu_fw_port: FAST_REG's MPT entry is not in mpt_entry's layout");
`endif
  end endgenerate
  // Bits of the staging and the bank the commands drive (outside the
  // always_comb: Icarus takes no constant select inside one).
  logic stage_mpt_alloc, stage_mtt_present, wb_alloc;
  logic [`HCA_MTT_ENTRY_W-1:0] wb_mtt_word;
  assign stage_mpt_alloc   = mpt_stage_q[`HCA_MPT_ENTRY_ALLOC_LSB];
  assign stage_mtt_present = mtt_stage_q[`HCA_MTT_ENTRY_PRESENT_LSB];
  assign wb_alloc          = wb_slot[BK_FLAGS + `HCA_MPT_ENTRY_ALLOC_LSB];
  assign wb_mtt_word       = wb_slot[BK_PAGE +: 64] | `HCA_MTT_ENTRY_W'(1);

  // Staging loads: a READ_* brings the entry back in the cycle after its
  // command.
  logic load_mpt, load_mtt;
  assign load_mpt = state_q == ST_READ_MPT;
  assign load_mtt = state_q == ST_READ_MTT;

  // Read data of the staging words: word sel of the flat entry.
  logic [31:0] mpt_rd_word, mtt_rd_word;
  assign mpt_rd_word = 32'(mpt_stage_q >> {mpt_sel, 5'd0});
  assign mtt_rd_word = 32'(mtt_stage_q >> {mtt_sel, 5'd0});

  // ---------------------------------------------------------------- commands
  always_comb begin
    state_d      = state_q;
    idx_d        = idx_q;
    result_d     = result_q;
    fence_d      = fence_q;

    mpt_re_o     = 1'b0;
    mpt_we_o     = 1'b0;
    mpt_vwe_o    = 1'b0;
    mpt_addr_o   = cmd_mpt_addr;
    mpt_wdata_o  = mpt_stage_q;
    mpt_wvalid_o = stage_mpt_alloc;
    mtt_re_o     = 1'b0;
    mtt_we_o     = 1'b0;
    mtt_vwe_o    = 1'b0;
    mtt_addr_o   = cmd_mtt_addr;
    mtt_wdata_o  = mtt_stage_q;
    mtt_wvalid_o = stage_mtt_present;

    case (state_q)
      ST_IDLE: begin
        if (cmd_write) begin
          idx_d = cmd_idx;
          case (cmd_op)
            `HCA_FWP_OP_NOP: begin
              result_d = `HCA_FWP_RESULT_OK;
            end
            `HCA_FWP_OP_WRITE_MPT: begin
              if (cmd_mpt_ok) begin
                mpt_we_o  = 1'b1;
                mpt_vwe_o = 1'b1;
                result_d  = `HCA_FWP_RESULT_OK;
              end else begin
                result_d  = `HCA_FWP_RESULT_BAD_INDEX;
              end
            end
            `HCA_FWP_OP_WRITE_MTT: begin
              if (cmd_mtt_ok) begin
                mtt_we_o  = 1'b1;
                mtt_vwe_o = 1'b1;
                result_d  = `HCA_FWP_RESULT_OK;
              end else begin
                result_d  = `HCA_FWP_RESULT_BAD_INDEX;
              end
            end
            `HCA_FWP_OP_INVALIDATE: begin
              if (cmd_mpt_ok) begin
                mpt_re_o = 1'b1;
                state_d  = ST_INV_WB;
              end else begin
                result_d = `HCA_FWP_RESULT_BAD_INDEX;
              end
            end
            `HCA_FWP_OP_READ_MPT: begin
              if (cmd_mpt_ok) begin
                mpt_re_o = 1'b1;
                state_d  = ST_READ_MPT;
              end else begin
                result_d = `HCA_FWP_RESULT_BAD_INDEX;
              end
            end
            `HCA_FWP_OP_READ_MTT: begin
              if (cmd_mtt_ok) begin
                mtt_re_o = 1'b1;
                state_d  = ST_READ_MTT;
              end else begin
                result_d = `HCA_FWP_RESULT_BAD_INDEX;
              end
            end
            `HCA_FWP_OP_FAST_REG: begin
              if (!cmd_slot_ok) begin
                result_d = `HCA_FWP_RESULT_BAD_INDEX;
              end else if (!cmd_fr_ok) begin
                result_d = `HCA_FWP_RESULT_BAD_OP;
              end else if ({1'b0, cmd_fr_idx} < MPT_LIMIT) begin
                mpt_re_o   = 1'b1;
                mpt_addr_o = cmd_fr_addr;
                state_d    = ST_FR_WB;
              end else begin
                result_d   = `HCA_FWP_RESULT_BAD_INDEX;
              end
            end
            `HCA_FWP_OP_FENCE: begin
              if (inflight_d == '0) begin
                result_d = `HCA_FWP_RESULT_OK;
              end else begin
                fence_d  = inflight_d;
                state_d  = ST_FENCE;
              end
            end
            default: begin
              result_d = `HCA_FWP_RESULT_BAD_OP;
            end
          endcase
        end
      end

      ST_READ_MPT: begin
        result_d    = `HCA_FWP_RESULT_OK;
        state_d     = ST_IDLE;
      end

      ST_READ_MTT: begin
        result_d    = `HCA_FWP_RESULT_OK;
        state_d     = ST_IDLE;
      end

      ST_INV_WB: begin
        // The state change: requests accepted up to this cycle read the old
        // entry and are counted; later ones read FREE.
        mpt_we_o    = 1'b1;
        mpt_addr_o  = idx_mpt_addr;
        mpt_wdata_o = mpt_freed;
`ifdef HCA_MUTANT_NO_FENCE
        // Mutant (build/mutants/ only, docs/mutation.md): INVALIDATE answers
        // at once, its in-flight requests unfinished.
        if (1'b1) begin
`else
        if (inflight_d == '0) begin
`endif
          result_d = `HCA_FWP_RESULT_OK;
          state_d  = ST_IDLE;
        end else begin
          fence_d  = inflight_d;
          state_d  = ST_FENCE;
        end
      end

      ST_FR_WB: begin
        // MPT and MTT at one edge; an mtt_base out of range writes neither
        if (wb_mtt_ok) begin
          mpt_we_o     = 1'b1;
          mpt_vwe_o    = 1'b1;
          mpt_addr_o   = wb_fr_addr;
          mpt_wdata_o  = fr_mpt;
          mpt_wvalid_o = wb_alloc;
          mtt_we_o     = 1'b1;
          mtt_vwe_o    = 1'b1;
          mtt_addr_o   = wb_mtt_addr;
          mtt_wdata_o  = wb_mtt_word;
          mtt_wvalid_o = 1'b1;
          result_d     = `HCA_FWP_RESULT_OK;
        end else begin
          result_d     = `HCA_FWP_RESULT_BAD_INDEX;
        end
        state_d = ST_IDLE;
      end

      ST_FENCE: begin
        if (req_done_i) begin
          fence_d = fence_q - INFL_W'(1);
          if (fence_q == INFL_W'(1)) begin
            result_d = `HCA_FWP_RESULT_OK;
            state_d  = ST_IDLE;
          end
        end
      end

      default: begin
        state_d = ST_IDLE;
      end
    endcase

    if (cmd_write && busy) begin
      result_d = `HCA_FWP_RESULT_BUSY;
    end
  end


  // ---------------------------------------------------------------- read data
  logic [31:0] status_word, inflight_word;
  localparam logic [31:0] SIZES_WORD =
      (32'(MPT_AW) << `HCA_FWP_SIZES_MPT_LOG2_LSB) | (32'(MTT_AW) << `HCA_FWP_SIZES_MTT_LOG2_LSB);
  assign status_word   = (32'(busy) << `HCA_FWP_STATUS_BUSY_LSB) |
                         (32'(result_q) << `HCA_FWP_STATUS_RESULT_LSB);
  assign inflight_word = 32'(inflight_q);

  always_comb begin
    rdata_d = 32'd0;
    if (rd) begin
      if (hit_mpt) begin
        rdata_d = mpt_rd_word;
      end
      if (hit_mtt) begin
        rdata_d = mtt_rd_word;
      end
      if (hit_status) begin
        rdata_d = status_word;
      end
      if (hit_inflight) begin
        rdata_d = inflight_word;
      end
      if (hit_sizes) begin
        rdata_d = SIZES_WORD;
      end
      if (hit_config) begin
        rdata_d = 32'(max_ind_q) << `HCA_FWP_CONFIG_MAX_INDIRECTION_LSB;
      end
    end
  end

  assign fw_ready_o  = 1'b1;
  assign fw_rvalid_o = rvalid_q;
  assign fw_rdata_o  = rdata_q;

  // Staging registers, written word by word (software-visible: reset). A
  // firmware write in the cycle a READ_* loads is the later event for the
  // firmware and wins for its word (the later nonblocking assignment).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mpt_stage_q <= '0;
      mtt_stage_q <= '0;
    end else begin
      if (load_mpt) begin
        mpt_stage_q <= mpt_loaded;
      end
      if (load_mtt) begin
        mtt_stage_q <= mtt_loaded;
      end
      for (int w = 0; w < MPT_WORDS; w++) begin
        if (wr && hit_mpt && mpt_sel == MPT_SEL_W'(w)) begin
          mpt_stage_q[32 * w +: 32] <= fw_wdata_i;
        end
      end
      for (int w = 0; w < MTT_WORDS; w++) begin
        if (wr && hit_mtt && mtt_sel == MTT_SEL_W'(w)) begin
          mtt_stage_q[32 * w +: 32] <= fw_wdata_i;
        end
      end
    end
  end

  // The registration bank: data by index (not reset), ok by index (reset).
  logic [SLOT_W-1:0] pop_at;
`ifndef HCA_MUTANT_FR_BANK_SLOT
  assign pop_at = evt_pop_slot_i;
`else  // mutant (vectors/mutation.mk): the popped event kept one slot on, so FAST_REG commits another's
  assign pop_at = evt_pop_slot_i + SLOT_W'(1);
`endif
  always_ff @(posedge clk_i) begin
    if (evt_pop_i) begin
      bank_q[pop_at] <= pop_slot;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bank_ok_q <= '0;
    end else if (evt_pop_i) begin
      bank_ok_q[pop_at] <= pop_ok;
    end
  end

  // Everything else here is control or a software-visible register: all reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= ST_IDLE;
      max_ind_q   <= 3'(`HCA_MAX_INDIRECTION);
      idx_q       <= '0;
      result_q    <= `HCA_FWP_RESULT_OK;
      inflight_q  <= '0;
      fence_q     <= '0;
      rvalid_q    <= 1'b0;
      rdata_q     <= '0;
    end else begin
      state_q     <= state_d;
      if (wr && hit_config && config_ok) begin
        max_ind_q <= config_val;
      end
      idx_q       <= idx_d;
      result_q    <= result_d;
      inflight_q  <= inflight_d;
      fence_q     <= fence_d;
`ifndef HCA_MUTANT_FWP_WRITE_NO_ANSWER
      rvalid_q    <= fw_valid_i;
`else  // formal mutant (xlate_unit_props.sv fw_answer): a write left unanswered
      rvalid_q    <= fw_valid_i && !fw_write_i;
`endif
      rdata_q     <= rdata_d;
    end
  end

  assign quiet_o = !busy && !rvalid_q;

endmodule
