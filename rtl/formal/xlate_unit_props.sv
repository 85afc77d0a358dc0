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
  parameter int MTT_ENTRIES = 2,
  // 0: every input at full width. DW > 0: the small configuration the
  // unbounded proof runs on (see "narrowing" below).
  parameter int DW          = 0,
  parameter bit KLM         = 1'b1  // 0 (with DW > 0): no MPT entry in KLM mode, no KLM walk
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

  // What the unit sees of the free inputs.
  logic [`HCA_KEY_BITS-1:0]    u_key;
  logic [`HCA_PD_BITS-1:0]     u_pd;
  logic [`HCA_XU_LEN_BITS-1:0] u_len;
  logic [63:0]                 u_va;
  logic [31:0]                 u_wdata;

  logic unused_inv_ok;  // no event queue here: no verdict read
  xlate_unit #(.MPT_ENTRIES(MPT_ENTRIES), .MTT_ENTRIES(MTT_ENTRIES)) dut (
    .clk_i, .rst_ni, .req_valid_i, .req_ready_o, .req_tag_i, .req_rights_i, .req_remote_i,
    .req_key_i(u_key), .req_pd_i(u_pd), .req_len_i(u_len), .req_va_i(u_va),
    .rsp_valid_o, .rsp_ready_i, .rsp_tag_o, .rsp_status_o, .rsp_last_o, .rsp_len_o, .rsp_pa_o,
    .fw_valid_i, .fw_ready_o, .fw_write_i, .fw_addr_i, .fw_wdata_i(u_wdata), .fw_rvalid_o, .fw_rdata_o,
    .fence_wait_o,
    // no evt POP: fwp FAST_REG's bank stays empty, so FAST_REG is refused
    // whole (BAD_OP, BAD_INDEX) and every table write below is WRITE_*'s
    .evt_pop_i(1'b0), .evt_pop_slot_i(`HCA_EVT_POP_SLOT_W'(0)), .evt_pop_evt_i(`HCA_FW_EVENT_W'(0)), .inv_ok_o(unused_inv_ok)
  );

  // Narrowing (DW > 0): the unit is unchanged, but what reaches it is cut
  // down so that the datapath the fence depends on is a few bits wide —
  // addresses and lengths below 2^DW (requests, MPT iova and length, KLM
  // entry addresses and lengths, page frames), key index and key byte of 2
  // bits each (indices 0..3 against 2 MPT entries: out-of-range keys stay
  // possible), PD 2 bits, mtt_base 2 bits, mtt_count 3 bits. Flags, rights,
  // page shift, command words and CONFIG are whole. Every bit cut is 0 in
  // every table entry the firmware writes, and (with RAM initialised to 0,
  // the job's `setundef -zero -init`) in every one it did not.
  // KLM = 0 (any DW): the mode bit of every MPT entry written is MTT.
  localparam logic [31:0] KEY_MASK = DW > 0 ? 32'h0000_0303 : 32'hffff_ffff;
  localparam logic [31:0] DW_MASK  = (DW > 0 && DW < 32) ? (32'd1 << DW) - 32'd1 : 32'hffff_ffff;
  localparam logic [31:0] ZERO     = DW > 0 ? 32'h0 : 32'hffff_ffff;
  localparam logic [31:0] FLAGS    = (DW > 0 ? 32'h001f_0f3f : 32'hffff_ffff) &
                                     ~(KLM ? 32'h0 : 32'(1) << `HCA_MPT_ENTRY_MODE_LSB);
  assign u_key = req_key_i & KEY_MASK;
  assign u_pd  = DW > 0 ? req_pd_i & `HCA_PD_BITS'(3) : req_pd_i;
  assign u_len = req_len_i & DW_MASK;
  assign u_va  = DW > 0 ? 64'(req_va_i[31:0] & DW_MASK) : req_va_i;
  // Staging words by offset: MPT_DATA 0..9, MTT_DATA 0..1 (an MTT entry is
  // a page frame, or half of a KLM entry: {addr} or {lkey, length}).
  logic [31:0] mask;
  always_comb begin
    case (fw_addr_i)
      16'(`HCA_FWP_MPT_DATA + 0):  mask = FLAGS;    // alloc, state, kind, mode, peer, access, page shift
      16'(`HCA_FWP_MPT_DATA + 4):  mask = KEY_MASK;
      16'(`HCA_FWP_MPT_DATA + 8):  mask = DW > 0 ? 32'h3 : 32'hffff_ffff;  // PD
      16'(`HCA_FWP_MPT_DATA + 12): mask = DW > 0 ? 32'h3 : 32'hffff_ffff;  // mtt_base
      16'(`HCA_FWP_MPT_DATA + 16): mask = DW_MASK;  // iova
      16'(`HCA_FWP_MPT_DATA + 20): mask = ZERO;
      16'(`HCA_FWP_MPT_DATA + 24): mask = DW_MASK;  // length
      16'(`HCA_FWP_MPT_DATA + 28): mask = ZERO;
      16'(`HCA_FWP_MPT_DATA + 32): mask = DW > 0 ? 32'h7 : 32'hffff_ffff;  // mtt_count
      16'(`HCA_FWP_MPT_DATA + 36): mask = ZERO;
      16'(`HCA_FWP_MTT_DATA + 0):  mask = DW_MASK;  // present, frame / KLM addr / KLM length
      16'(`HCA_FWP_MTT_DATA + 4):  mask = KEY_MASK; // KLM lkey
      16'(`HCA_FWP_CMD):           mask = DW > 0 ? 32'hff00_0003 : 32'hffff_ffff;  // op, index 0..3
      default:                     mask = 32'hffff_ffff;
    endcase
  end
  assign u_wdata = fw_wdata_i & mask;

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
        {req_tag_i, u_key, u_len, u_va, req_rights_i, u_pd, req_remote_i};
  end
  always_comb if (req_hold)
    assume (req_valid_i && {req_tag_i, u_key, u_len, u_va, req_rights_i, u_pd, req_remote_i} ==
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
        q_idx[q_tail[2:0]] <= u_key[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT];
        q_tag[q_tail[2:0]] <= req_tag_i;
        q_rsv[q_tail[2:0]] <= u_key == `HCA_KEY_BITS'(`HCA_RESERVED_LKEY);
        q_tail <= q_tail + 4'd1;
      end
      if (finish)
        q_head <= q_head + 4'd1;
    end
  end

  // ---------------------------------------------------------------- the watched INVALIDATE
  wire cmd_write   = rst_ni && fw_valid_i && fw_write_i && fw_addr_i == 16'(`HCA_FWP_CMD);
  wire [3:0] cmd_op = u_wdata[`HCA_FWP_CMD_OP_LSB +: 4];
  wire [IW-1:0] cmd_idx = IW'(u_wdata[`HCA_FWP_CMD_INDEX_LSB +: `HCA_FWP_CMD_INDEX_W]);
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

  // ---------------------------------------------------------------- through a KLM entry
  // Which beats went through MPT index w_idx: a lookup of that index by the
  // request itself or by a KLM piece at any depth. Followed with taps of the
  // unit's pipeline (undriven here, connected after flattening: formal.mk
  // XU_TAPS): S1's access and its level, a push (S1's access starts a
  // level), the walker's load, its issue, the output FIFO's write.
  localparam int LVLS = `HCA_MAX_INDIRECTION;
  localparam int KLV_W = $clog2(LVLS + 1);
  (* keep *) logic                     t_s1_valid, t_s1_push, t_wk_ld_ready, t_walk_end, t_iss_fire, t_fifo_push;
  (* keep *) logic [KLV_W-1:0]         t_s1_lvl;
  (* keep *) logic [`HCA_KEY_BITS-1:0] t_s1_key;
  // thru[l]: the MR walked at level l was reached through index w_idx.
  logic       thru [LVLS + 1];
  logic       wk_thru, s3_thru;
  logic       sh_thru [4];  // beside the unit's 4-deep output FIFO
  logic [1:0] sh_wp, sh_rp;
  wire s1_thru = (t_s1_lvl != '0 && thru[t_s1_lvl]) ||
                 (watching && t_s1_key[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT] == w_idx &&
                  t_s1_key != `HCA_KEY_BITS'(`HCA_RESERVED_LKEY));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      sh_wp <= '0;
      sh_rp <= '0;
    end else begin
      // A push writes its level's thru and clears the levels below it
      // (deeper): they are pushed again before any piece uses them, so a
      // level holds what this walk's push wrote or 0 (an invariant below).
      if (t_s1_valid && t_s1_push)
        for (int l = 1; l <= LVLS; l++)
          if (32'(l) == 32'(t_s1_lvl) + 1)
            thru[l] <= s1_thru;
          else if (32'(l) > 32'(t_s1_lvl) + 1)
            thru[l] <= 1'b0;
      if (t_s1_valid && !t_s1_push && !t_walk_end && t_wk_ld_ready)
        wk_thru <= s1_thru;
      if (t_iss_fire)
        s3_thru <= wk_thru;
      if (t_fifo_push) begin
        sh_thru[sh_wp] <= s3_thru;
        sh_wp <= sh_wp + 2'd1;
      end
      if (beat)
        sh_rp <= sh_rp + 2'd1;
    end
  end

  // ---------------------------------------------------------------- strengthening invariants
  // What makes `fence` inductive (formal-xu-fence-ind proves fence and every
  // inv_* together by k-induction, on the unit without KLM walks: KLM = 0).
  // Each pipeline stage's request is followed by a ghost: the slot of the
  // in-flight queue above it belongs to (g_s1, g_wk, g_s3, and g_f beside
  // each output FIFO entry), and each slot by whether it was accepted after
  // the watched INVALIDATE's write-back (q_post). The unit's state is read
  // through taps (formal.mk XU_IND_TAPS).
  localparam int ST_W   = `HCA_XLATE_STATUS_W;
  localparam int BEAT_W = `HCA_XU_TAG_BITS + ST_W + 1 + `HCA_XU_LEN_BITS + 64;
  localparam int LAST_B = `HCA_XU_LEN_BITS + 64;   // a FIFO entry's last bit; status above it
  localparam logic [2:0] FW_IDLE = 3'd0, FW_INV_WB = 3'd3, FW_FENCE = 3'd4;  // xu_fw_port state_e
  // (keep: Yosys would trim the undriven taps' unused bits before they are connected)
  (* keep *) logic [7:0]                  t_inflight, t_fence;
  (* keep *) logic [2:0]                  t_fwst, t_klm_st;
  (* keep *) logic [`HCA_FWP_CMD_INDEX_W-1:0] t_fwidx;
  (* keep *) logic                        t_wk_busy, t_wk_final, t_wk_klm, t_s1_sub, t_s1_final;
  (* keep *) logic [ST_W-1:0]             t_wk_status, t_kc_status, t_s3_status;
  (* keep *) logic                        t_s3_valid, t_s3_last, t_s3_end, t_s3_klm;
  (* keep *) logic [1:0]                  t_f_rptr, t_f_wptr;
  (* keep *) logic [2:0]                  t_f_level;
  (* keep *) logic [BEAT_W-1:0]           t_f0, t_f1, t_f2, t_f3;
  (* keep *) logic [`HCA_MPT_ENTRY_W-1:0] t_m0, t_m1, t_m2, t_m3, t_a_rdata, t_b_rdata, t_stage;
  (* keep *) logic [MPT_ENTRIES-1:0]      t_mpt_valid;  // (t_m2, t_m3: 4 entries only)
  (* keep *) logic                        t_a_rvalid, t_b_rvalid;

  logic [2:0] g_s1, g_wk, g_s3;
  logic [2:0] g_f [4];
  logic       q_post [DEPTH];
  logic       wb_q, wdone_q;   // the watched write-back happened; its fence was over since
  wire wk_load = t_s1_valid && !t_s1_push && !t_walk_end && t_wk_ld_ready;
  wire w_in    = {1'b0, w_idx} < (IW + 1)'(MPT_ENTRIES);
  always_ff @(posedge clk_i) begin
    if (accept) begin
      g_s1 <= q_tail[2:0];
      q_post[q_tail[2:0]] <= wb_q;
    end
    if (wk_load)
      g_wk <= g_s1;
    if (t_iss_fire)
      g_s3 <= g_wk;
    if (t_fifo_push)
      g_f[t_f_wptr] <= g_s3;
    if (!rst_ni) begin
      wb_q    <= 1'b0;
      wdone_q <= 1'b0;
    end else begin
      if (watching && t_fwst == FW_INV_WB && t_fwidx == w_idx)
        wb_q <= 1'b1;
      if (wb_q && t_fwst == FW_IDLE)
        wdone_q <= 1'b1;
    end
  end
  wire wfence = wb_q && !wdone_q && t_fwst == FW_FENCE;   // the watched fence runs
  (* keep *) logic [KLV_W-1:0] t_klm_lvl;
  wire klm_busy = t_klm_st != 3'd0;
  // The list each level walks: the MTT base of the MR its push looked up
  // (S1's MPT read register), by the level's context index (xu_klm's
  // push_lvl); compared with the base of every list read from a context.
  localparam int CI_W = LVLS > 1 ? $clog2(LVLS) : 1;
  (* keep *) logic                                 t_klm_rd_want, t_klm_rd_push;
  (* keep *) logic [CI_W-1:0]                      t_klm_rd_ci;
  (* keep *) logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0] t_klm_rd_base;
  logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0] sh_base [1 << CI_W];
  (* keep *) logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0] t_kb0, t_kb1, t_kb2, t_kb3;
  // Each level's tail and bytes left (xu_klm tail_q, rem_q, by context index).
  (* keep *) logic                                 t_kt0, t_kt1, t_kt2, t_kt3;
  (* keep *) logic [`HCA_XU_LEN_BITS-1:0]          t_kr0, t_kr1, t_kr2, t_kr3;
  // (read through functions: a wire assigned from a tap would take its place)
  function automatic logic kt(input logic [1:0] i);
    case (i)
      2'd0: kt = t_kt0;
      2'd1: kt = t_kt1;
      2'd2: kt = t_kt2;
      default: kt = t_kt3;
    endcase
  endfunction
  function automatic logic kr0(input logic [1:0] i);  // rem_q[i] == 0
    case (i)
      2'd0: kr0 = t_kr0 == '0;
      2'd1: kr0 = t_kr1 == '0;
      2'd2: kr0 = t_kr2 == '0;
      default: kr0 = t_kr3 == '0;
    endcase
  endfunction
  // A level's range ends the request when its parent's did and the piece
  // that pushed it was the parent's last (rem 0 from then on): for every
  // live level below the top; S1's piece ends the request when it is its
  // level's last and the level's range ends it.
  logic tail_ok;
  always_comb begin
    tail_ok = t_kt0;
    for (int l = 1; l < 4; l++)
      if (32'(l) < 32'(live_lvl))
        tail_ok = tail_ok && kt(2'(l)) == (kt(2'(l - 1)) && kr0(2'(l - 1)));
    if (t_s1_valid && t_s1_sub && !t_s1_err && t_s1_lvl != '0)
      tail_ok = tail_ok && t_s1_final == (kt(2'(t_s1_lvl - 1'b1)) && kr0(2'(t_s1_lvl - 1'b1)));
  end
  // Where the walk stands against S1's piece (the last one sent, level L):
  // its ERR_MTT beat, or the level's final piece, leaves the walk waiting
  // at L; a piece that is not its level's last leaves it at L reading the
  // level's next entry (ENT, or ERR off the list); a level's last piece
  // that is not final popped the walk below L. A level popped to in NEXT
  // is not a tail level with no bytes left (that one ends in WAIT).
  localparam logic [2:0] K_ENT = 3'd1, K_WAIT = 3'd2, K_NEXT = 3'd3, K_ERR = 3'd4;  // xu_klm state_e
  logic klm_ok;
  always_comb begin
    klm_ok = !(t_klm_st == K_NEXT && kt(2'(t_klm_lvl - 1'b1)) && kr0(2'(t_klm_lvl - 1'b1)));
    if (t_s1_valid && t_s1_sub) begin
      if (t_s1_err)
        klm_ok = klm_ok && t_klm_lvl == t_s1_lvl && t_klm_st == K_WAIT;
      else if (!kr0(2'(t_s1_lvl - 1'b1)))
        klm_ok = klm_ok && t_klm_lvl == t_s1_lvl && (t_klm_st == K_ENT || t_klm_st == K_ERR);
      else if (kt(2'(t_s1_lvl - 1'b1)))
        klm_ok = klm_ok && t_klm_lvl == t_s1_lvl && t_klm_st == K_WAIT;
      else
        klm_ok = klm_ok && t_klm_lvl < t_s1_lvl;
    end
  end
  wire [KLV_W-1:0] live_lvl = (t_s1_valid && t_s1_sub && t_s1_lvl > t_klm_lvl) ? t_s1_lvl : t_klm_lvl;
  always_ff @(posedge clk_i)
    if (rst_ni && t_s1_valid && t_s1_push)
      sh_base[t_s1_lvl[CI_W-1:0]] <= `HCA_MPT_ENTRY_MTT_BASE(t_a_rdata);                        // xu_klm: a walk runs (ST_IDLE = 0)

  // The output FIFO's entries, oldest first, and the order of everything in
  // flight: FIFO beats, S3, the walker, S1 belong to slots head, head + 1, ...
  // in order, moving on after each last beat.
  logic [BEAT_W-1:0] f_ent [4];
  logic [2:0]        f_slot [4];
  always_comb begin
    for (int j = 0; j < 4; j++) begin
      case (2'(t_f_rptr + 2'(j)))
        2'd0: f_ent[j] = t_f0;
        2'd1: f_ent[j] = t_f1;
        2'd2: f_ent[j] = t_f2;
        default: f_ent[j] = t_f3;
      endcase
      f_slot[j] = g_f[2'(t_f_rptr + 2'(j))];
    end
  end
  // Each stage's tag is its slot's (rsp_in_order unbounded): S1's, the
  // walker's, S3's, each FIFO word's, the KLM walker's piece register.
  localparam int TAG_W = `HCA_XU_TAG_BITS;
  (* keep *) logic [TAG_W-1:0] t_s1_tag, t_wk_tag, t_s3_tag, t_klm_tag;
  logic tag_ok;
  always_comb begin
    tag_ok = (!t_s1_valid || t_s1_tag == q_tag[g_s1]) && (!t_wk_busy || t_wk_tag == q_tag[g_wk]) &&
             (!t_s3_valid || t_s3_tag == q_tag[g_s3]) && (!klm_busy || t_klm_tag == q_tag[g_s1]);
    for (int j = 0; j < 4; j++)
      if (3'(j) < t_f_level)
        tag_ok = tag_ok && f_ent[j][BEAT_W-1 -: TAG_W] == q_tag[f_slot[j]];
  end
  logic       ord_ok, stage_ok, open_q;
  logic [3:0] nxt;
  // A request that must be refused: through the watched index and accepted
  // after the write-back, or through an index beyond the table.
  function automatic logic bad(input logic [2:0] slot);
    bad = !q_rsv[slot] && ((q_idx[slot] == w_idx && q_post[slot]) ||
                           {1'b0, q_idx[slot]} >= (IW + 1)'(MPT_ENTRIES));
  endfunction
  always_comb begin
    ord_ok   = 1'b1;
    stage_ok = 1'b1;
    nxt      = 4'd0;
    for (int j = 0; j < 4; j++) begin
      if (3'(j) < t_f_level) begin
        ord_ok = ord_ok && 4'(3'(f_slot[j] - q_head[2:0])) == nxt;
        nxt    = nxt + 4'(f_ent[j][LAST_B]);
        stage_ok = stage_ok && !(bad(f_slot[j]) && f_ent[j][LAST_B + 1 +: ST_W] == `HCA_XLATE_STATUS_OK);
      end
    end
    if (t_s3_valid) begin
      ord_ok = ord_ok && 4'(3'(g_s3 - q_head[2:0])) == nxt;
      nxt    = nxt + 4'(t_s3_last || t_walk_end);   // (an absent page ends a walk too)
      stage_ok = stage_ok && !(bad(g_s3) && t_s3_status == `HCA_XLATE_STATUS_OK);
    end
    // A beat that is not its request's last is followed by the rest of it:
    // the walker still holds the request, or its KLM walk goes on.
    open_q = (t_s3_valid && !t_s3_last) ||
             (!t_s3_valid && t_f_level != '0 && !f_ent[2'(t_f_level - 3'd1)][LAST_B]);
    ord_ok = ord_ok && (!open_q || t_wk_busy || klm_busy);
    // A piece of a KLM walk (walker, S1) does not end its request: the walk
    // (xu_klm busy) counts it once, after them. In the cycle of the walk's
    // last beat (in S3, counted above) the pieces behind it are dropped.
    if (t_wk_busy) begin
      ord_ok = ord_ok && (4'(3'(g_wk - q_head[2:0])) == nxt || (t_walk_end && t_wk_klm));
      nxt    = nxt + 4'(!t_wk_klm);
      stage_ok = stage_ok && !(bad(g_wk) && t_wk_status == `HCA_XLATE_STATUS_OK);
    end
    if (t_s1_valid) begin
      ord_ok = ord_ok && (4'(3'(g_s1 - q_head[2:0])) == nxt || (t_walk_end && t_s1_sub));
      nxt    = nxt + 4'(!t_s1_sub);
      stage_ok = stage_ok && !(bad(g_s1) && t_kc_status == `HCA_XLATE_STATUS_OK);
    end
    // The walk's request (S1's slot) is the next one.
    if (klm_busy && !t_walk_end) begin
      ord_ok = ord_ok && 4'(3'(g_s1 - q_head[2:0])) == nxt;
      nxt    = nxt + 4'd1;
    end
  end

  // fence_klm's shadow at each stage (thru): refused when the request was
  // accepted after the write-back.
  localparam logic [ST_W-1:0] OK = `HCA_XLATE_STATUS_OK;
  // (The shadow marks nothing while no INVALIDATE is watched, and nothing
  // it marks through an index beyond the table passes: claimed for every
  // request then.)
  logic thru_ok, thru_none;
  function automatic logic pf(input logic [2:0] slot);
    pf = q_post[slot] || !w_in || !watching;
  endfunction
  always_comb begin
    thru_ok = !(t_s1_valid && pf(g_s1) && s1_thru && t_kc_status == OK) &&
              !(t_wk_busy && pf(g_wk) && wk_thru && t_wk_status == OK) &&
              !(t_s3_valid && pf(g_s3) && s3_thru && t_s3_status == OK);
    for (int j = 0; j < 4; j++)
      if (3'(j) < t_f_level)
        thru_ok = thru_ok && !(pf(f_slot[j]) && sh_thru[2'(t_f_rptr + 2'(j))] &&
                               f_ent[j][LAST_B + 1 +: ST_W] == OK);
    thru_none = 1'b1;
    for (int l = 1; l <= LVLS; l++)
      thru_none = thru_none && !thru[l];
  end

  // Which in-flight slots were accepted after the write-back: none before
  // it; while the watched fence runs, all but the oldest fence_q; after it,
  // all.
  logic post_ok;
  always_comb begin
    post_ok = 1'b1;
    for (int p = 0; p < DEPTH - 1; p++) begin
      if (4'(p) < q_level)
        post_ok = post_ok && q_post[3'(q_head[2:0] + 3'(p))] ==
                  (wb_q && (!wfence || 8'(p) >= t_fence));
    end
  end

  // The watched entry: FREE (or never allocated) from the write-back on.
  logic [`HCA_MPT_ENTRY_W-1:0] w_ent;
  always_comb
    case (2'(w_idx))
      2'd0: w_ent = t_m0;
      2'd1: w_ent = t_m1;
      2'd2: w_ent = t_m2;
      default: w_ent = t_m3;
    endcase

  always_comb if (rst_ni && !init) begin
    inv_count:  assert (t_inflight == 8'(q_level) && q_level <= 4'd7);
    inv_fifo:   assert (t_f_level <= 3'd4 && 2'(t_f_wptr - t_f_rptr) == t_f_level[1:0] &&
                        4'(t_f_level) + 4'(t_s3_valid) <= 4'd4);
    inv_order:  assert (ord_ok && nxt == q_level);
    inv_s3:     assert (!t_s3_valid || t_s3_end || (t_wk_busy && g_wk == g_s3));
    inv_tag:    assert (tag_ok);
    inv_post:   assert (post_ok && (!wfence || (t_fence != '0 && t_fence <= 8'(q_level))));
    inv_stage:  assert (stage_ok);
    // The command protocol: a known-idle port is idle; the watched command
    // runs (write-back next cycle, then its fence or idle).
    inv_fw:     assert ((!idle_known || t_fwst == FW_IDLE) &&
                        (watching || (!wb_q && !answered && !status_read)) && (!wdone_q || wb_q) &&
                        (!watching || !w_in || wb_q || (t_fwst == FW_INV_WB && t_fwidx == w_idx)) &&
                        (!wb_q || wdone_q || t_fwst == FW_FENCE || t_fwst == FW_IDLE) &&
                        (!answered || !w_in || (wb_q && !wfence)));
    inv_free:   assert (!wb_q || !w_in || !t_mpt_valid[$clog2(MPT_ENTRIES)'(w_idx)] ||
                        w_ent[`HCA_MPT_ENTRY_STATE_LSB] == `HCA_MKEY_STATE_FREE);
    // KLM walks (KLM = 1): what fence_klm needs beyond the above.
    if (KLM) begin
      // The shadow's FIFO pointers are the FIFO's.
      inv_sh:    assert (sh_rp == t_f_rptr && sh_wp == t_f_wptr);
      // A piece (S1, walker, S3) belongs to a running walk; while a walk
      // runs S1 holds no request of its own, and the walk's request (S1's
      // slot: none is accepted during a walk) is not refused by bad().
      inv_walk:  assert ((!(t_s1_valid && t_s1_sub) || klm_busy) && (!(t_wk_busy && t_wk_klm) || klm_busy) &&
                         (!(t_s3_valid && t_s3_klm) || klm_busy) &&
                         (!klm_busy || ((!t_s1_valid || t_s1_sub) && !bad(g_s1))) &&
                         (!(t_wk_busy && t_wk_klm) || g_wk == g_s1) &&
                         (!(t_s3_valid && t_s3_klm) || g_s3 == g_s1));
      // Through index w_idx, accepted after the write-back: refused at every
      // stage that holds it; a walk of such a request has no level reached
      // through w_idx (each push passed the check of the key it came through).
      // Levels: S1's own request is level 0 (its whole range), a piece
      // names a level 1..LVLS, as does the walker while it walks;
      // max_indirection is 1..LVLS (CONFIG refuses other values).
      inv_lvl:   assert (32'(t_max_ind) >= 1 && 32'(t_max_ind) <= LVLS &&
                         (!(t_s1_valid && !t_s1_sub) || (t_s1_lvl == '0 && t_s1_final && !t_s1_err)) &&
                         (!(t_s1_valid && t_s1_sub) || (t_s1_lvl != '0 && 32'(t_s1_lvl) <= LVLS)) &&
                         (!klm_busy || (t_klm_lvl != '0 && 32'(t_klm_lvl) <= LVLS)));
      // Each level walks the list of the MR pushed to it.
      inv_ctx:   assert (!(klm_busy && t_klm_rd_want && !t_klm_rd_push) ||
                         t_klm_rd_base == sh_base[t_klm_rd_ci]);
      // S1's MPT read register, for a lookup of the watched index by a
      // request accepted after the write-back (its own or a piece's): the
      // FREE entry, or none allocated (a piece can sit in S1 longer than the
      // induction's window).
      inv_rd:    assert (!(t_s1_valid && watching && w_in && q_post[g_s1] &&
                           t_s1_key[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT] == w_idx) ||
                         !t_a_rvalid || t_a_rdata[`HCA_MPT_ENTRY_STATE_LSB] == `HCA_MKEY_STATE_FREE);
      // ... as every live level's context holds it (xu_klm's base words,
      // taps: the induction's only): the walk's levels, and S1's piece's
      // (its level may lie above the walk's after pops, and pushes again).
      inv_ctx_all: assert (!klm_busy || ((32'(live_lvl) <= 0 || t_kb0 == sh_base[0]) &&
                                         (32'(live_lvl) <= 1 || t_kb1 == sh_base[1]) &&
                                         (32'(live_lvl) <= 2 || t_kb2 == sh_base[2]) &&
                                         (32'(live_lvl) <= 3 || t_kb3 == sh_base[3])));
      // Level 1 is pushed by a request of its own (final): its range ends
      // the request, so the walk never pops past it; deeper, tail_ok above.
      inv_tail:  assert (!klm_busy || tail_ok);
      inv_klm:   assert (!klm_busy || klm_ok);
      // A request of its own (not a piece) is its own final piece: its
      // walker load is final, its S3 beat ends it exactly when it ends the
      // request; a beat that ends the request ends its piece.
      inv_ext:   assert ((!(t_wk_busy && !t_wk_klm) || t_wk_final) &&
                         (!(t_s3_valid && !t_s3_klm) || t_s3_last == t_s3_end) &&
                         (!t_s3_valid || !t_s3_last || t_s3_end));
      // The firmware port: a command that reads the MPT runs only for an
      // index in the table; the watched one is not written back twice; a
      // STATUS answer of not busy means the port was idle, and nothing was
      // written in that cycle (one access a cycle).
      inv_fw2:   assert ((!(t_fwst == FW_INV_WB || t_fwst == 3'd1) || 32'(t_fwidx) < MPT_ENTRIES) &&
                         (!wdone_q || !(t_fwst == FW_INV_WB && t_fwidx == w_idx)) &&
                         (!(st_rd_q && fw_rvalid_o && !fw_rdata_o[`HCA_FWP_STATUS_BUSY_LSB]) ||
                          t_fwst == FW_IDLE) && (!status_read || st_rd_q));
      inv_thru:  assert (thru_ok && (!(klm_busy && pf(g_s1)) || thru_none));
    end
    // No KLM (KLM = 0): no allocated entry in KLM mode (in the staging, the
    // table, either read port while its data is used; RAM starts arbitrary, but an entry becomes
    // allocated only by a WRITE_MPT of the staging), no walk, every request
    // its own final piece.
    if (!KLM)
      inv_no_klm: assert (!(t_stage[`HCA_MPT_ENTRY_ALLOC_LSB] && t_stage[`HCA_MPT_ENTRY_MODE_LSB]) &&
                          !(t_mpt_valid[0] && t_m0[`HCA_MPT_ENTRY_MODE_LSB]) &&
                          !(t_mpt_valid[1] && t_m1[`HCA_MPT_ENTRY_MODE_LSB]) &&
                          !(MPT_ENTRIES > 2 && t_mpt_valid[2 % MPT_ENTRIES] && t_m2[`HCA_MPT_ENTRY_MODE_LSB]) &&
                          !(MPT_ENTRIES > 2 && t_mpt_valid[3 % MPT_ENTRIES] && t_m3[`HCA_MPT_ENTRY_MODE_LSB]) &&
                          !(t_s1_valid && t_a_rvalid && t_a_rdata[`HCA_MPT_ENTRY_MODE_LSB]) &&
                          !((t_fwst == FW_INV_WB || t_fwst == 3'd1) &&   // (1: READ_MPT)
                            t_b_rvalid && t_b_rdata[`HCA_MPT_ENTRY_MODE_LSB]) && t_klm_st == 3'd0 &&
                          (!t_s1_valid || (!t_s1_sub && t_s1_final)) &&
                          (!t_wk_busy || (t_wk_final && !t_wk_klm)) &&
                          (!t_s3_valid || (t_s3_last == t_s3_end && !t_s3_klm)));
  end

  // ---------------------------------------------------------------- rule 7
  // Each KLM piece is judged by S1's key check as SEMANTICS.md rule 7 says:
  // a local access (no R_Key) with the entry's own key in the request's PD,
  // LOCAL_WRITE when the request writes memory and no right when it only
  // reads; it passes only if rules 1-6 hold on the entry it read (written
  // here again over the MPT read register); and no level is pushed past
  // max_indirection. The walk's PD and rights are those of the external
  // access that pushed level 1 (taps: formal.mk XU_R7_TAPS).
  localparam logic [`HCA_ACCESS_W-1:0] WRITES7 =
      `HCA_ACCESS_W'((1 << `HCA_ACCESS_LOCAL_WRITE_BIT) | (1 << `HCA_ACCESS_REMOTE_WRITE_BIT) |
                     (1 << `HCA_ACCESS_REMOTE_ATOMIC_BIT));
  (* keep *) logic                        t_s1_err, t_s1_remote, t_a_rvalid7;
  (* keep *) logic [`HCA_PD_BITS-1:0]     t_s1_pd;
  (* keep *) logic [`HCA_ACCESS_W-1:0]    t_s1_rights;
  (* keep *) logic [63:0]                 t_s1_va;
  (* keep *) logic [`HCA_XU_LEN_BITS-1:0] t_s1_len;
  (* keep *) logic [2:0]                  t_max_ind;
  (* keep *) logic                        t_s1_sub7;
  (* keep *) logic [`HCA_XLATE_STATUS_W-1:0] t_kc_status7;
  (* keep *) logic [`HCA_MPT_ENTRY_W-1:0] t_a_rdata7;
  logic [`HCA_PD_BITS-1:0]  w7_pd;
  logic                     w7_writes;
  always_ff @(posedge clk_i)
    if (t_s1_valid && t_s1_push && t_s1_lvl == '0) begin
      w7_pd     <= t_s1_pd;
      w7_writes <= (t_s1_rights & WRITES7) != '0;
    end
  wire [`HCA_ACCESS_W-1:0] r7_rights = w7_writes ? `HCA_ACCESS_W'(1 << `HCA_ACCESS_LOCAL_WRITE_BIT) : '0;
  wire [63:0] e7_iova   = `HCA_MPT_ENTRY_IOVA(t_a_rdata7);
  wire [63:0] e7_length = `HCA_MPT_ENTRY_LENGTH(t_a_rdata7);
  wire [64:0] r7_end    = {1'b0, t_s1_va} + 65'(t_s1_len);
  wire        e7_dma    = `HCA_MPT_ENTRY_KIND(t_a_rdata7) == `HCA_MKEY_KIND_DMA;
  wire        r7_rules  = t_s1_key == `HCA_KEY_BITS'(`HCA_RESERVED_LKEY) ||      // no MPT entry
                          (t_s1_key[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT] != '0 &&  // 1
                           {1'b0, t_s1_key[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT]} < (IW + 1)'(MPT_ENTRIES) &&
                           t_a_rvalid7 &&
                           `HCA_MPT_ENTRY_KEY(t_a_rdata7) == t_s1_key &&             // 2
                           `HCA_MPT_ENTRY_STATE(t_a_rdata7) == `HCA_MKEY_STATE_VALID && // 3
                           t_a_rdata7[`HCA_MPT_ENTRY_PD_LSB +: `HCA_PD_BITS] == w7_pd &&  // 4
                           (r7_rights & ~`HCA_MPT_ENTRY_ACCESS(t_a_rdata7)) == '0 && // 5
                           (e7_dma || ({1'b0, t_s1_va} >= {1'b0, e7_iova} &&         // 6
                                       r7_end <= {1'b0, e7_iova} + {1'b0, e7_length})));
  always_comb if (rst_ni && !init && t_s1_valid && t_s1_sub7 && !t_s1_err) begin
    rule7: assert (!t_s1_remote && t_s1_pd == w7_pd && t_s1_rights == r7_rights &&
                   (t_kc_status7 != `HCA_XLATE_STATUS_OK || r7_rules));
  end
  always_comb if (rst_ni && !init && t_s1_valid && t_s1_push)
    rule7_depth: assert (32'(t_s1_lvl) < 32'(t_max_ind));
  // What makes rule7 inductive (formal-xu-rule7-ind, with every inv_*):
  // while a walk runs, the KLM walker's piece register holds the PD of the
  // access that started it and the rights the rule gives its entries
  // (every push of a walk carries the same), and S1's piece was sent with
  // them (taps: formal.mk XU_R7_IND_TAPS).
  (* keep *) logic [`HCA_PD_BITS-1:0]  t_klm_pd;
  (* keep *) logic [`HCA_ACCESS_W-1:0] t_klm_rights;
  always_comb if (rst_ni && !init && KLM && klm_busy)
    inv7_piece: assert (t_klm_pd == w7_pd && t_klm_rights == r7_rights &&
                        (!(t_s1_valid && t_s1_sub) ||
                         (!t_s1_remote && t_s1_pd == w7_pd && t_s1_rights == r7_rights)));

  // ---------------------------------------------------------------- properties
  // fence_klm: once the INVALIDATE of index I was answered, no OK beat that
  // went through index I — as the request's own key or a KLM entry's, at
  // any depth.
  always_comb if (answered && beat && sh_thru[sh_rp])
    fence_klm: assert (rsp_status_o != `HCA_XLATE_STATUS_OK);

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

  // S1's hand-off to the page walker (xu_walker's load port, taps connected
  // before opt: formal.mk XU_LD_TAPS): a load offered and not taken is
  // offered again, unchanged — unless a KLM walk's last beat leaves S3 in
  // that cycle (klm_walk_end): the walk's pieces behind it are dropped, S1's
  // with them, by design (the request has ended); or unless the firmware
  // changed CONFIG.max_indirection meanwhile: S1's KLM piece is decided
  // again (an ERR_DEPTH beat becomes a push). Both found by this property.
  (* keep *) logic                                  t_ld_valid, t_ld_walk, t_ld_final, t_ld_klm;
  (* keep *) logic [`HCA_XU_TAG_BITS-1:0]            t_ld_tag;
  (* keep *) logic [`HCA_XLATE_STATUS_W-1:0]         t_ld_status;
  (* keep *) logic [63:0]                           t_ld_pa, t_ld_va, t_ld_iova;
  (* keep *) logic [`HCA_XU_LEN_BITS-1:0]            t_ld_len;
  (* keep *) logic [`HCA_MPT_ENTRY_PAGE_SHIFT_W-1:0] t_ld_page_shift;
  (* keep *) logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0]   t_ld_mtt_base;
  (* keep *) logic [`HCA_MPT_ENTRY_MTT_COUNT_W-1:0]  t_ld_mtt_count;
  localparam int LD_W = 4 + `HCA_XU_TAG_BITS + `HCA_XLATE_STATUS_W + 3 * 64 + `HCA_XU_LEN_BITS +
                        `HCA_MPT_ENTRY_PAGE_SHIFT_W + `HCA_MPT_ENTRY_MTT_BASE_W + `HCA_MPT_ENTRY_MTT_COUNT_W;
  logic [LD_W-1:0] ld, ld_prev;
  logic            ld_hold;
  logic [2:0]      ld_max_ind;
  assign ld = {t_ld_walk, t_ld_final, t_ld_klm, t_ld_tag, t_ld_status, t_ld_pa, t_ld_va, t_ld_iova, t_ld_len,
               t_ld_page_shift, t_ld_mtt_base, t_ld_mtt_count, 1'b0};
  always_ff @(posedge clk_i) begin
    ld_hold <= rst_ni && t_ld_valid && !t_wk_ld_ready;
    ld_prev <= ld;
    ld_max_ind <= t_max_ind;
  end
  always_comb if (rst_ni && ld_hold)
    ld_held: assert (t_walk_end || t_max_ind != ld_max_ind || (t_ld_valid && ld == ld_prev));

endmodule
