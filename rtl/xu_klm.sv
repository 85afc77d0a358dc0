`default_nettype none
`include "hca_abi.svh"

// xu_klm — the KLM walker: serves an access to an indirect (KLM-mode) MR by
// SEMANTICS.md rule 7, entry by entry, through the unit's own pipeline.
//
// An access that passed rules 1-6 on a KLM-mode MR is pushed here from S1
// (push_*): {the MR's mtt_base and mtt_count, off = va - iova, len}. The KLM
// list lives in the MR's MTT space as firmware/mm.c reg_indir writes it:
// entry i is MTT[mtt_base + 2i] = addr and MTT[mtt_base + 2i + 1] =
// length | lkey << 32, entries = mtt_count / 2 (the words are read whatever
// their present bit says). The walker finds the entry holding byte off by
// reading length words, one entry per cycle (SCAN/LEN), reads the entry's
// address (AREAD/ADDR) and sends a piece {lkey, addr + off', min(rest of
// entry, rest of range), rights, remote 0, pd} into S1 (sub_*), where the key
// check judges it like any request (rules 1-6 with the entry's own key). A
// piece that is a page walk or a single beat goes to xu_walker; a piece whose
// MR is itself in KLM mode is pushed back here one level deeper (S1 refuses a
// level beyond max_indirection with ERR_DEPTH).
//
// Prefetch: as soon as a piece is sent, the next entry of its level is read
// (its length word, then its address word) and its piece is sent into S1 in
// the cycle S1 can take it: S1 empty, or S1's piece leaving for the page
// walker in that cycle (s1_free_i), so it streams right behind the current
// one. A piece therefore waits in S1 only behind the page walker. If the
// piece sent last turns out to be a KLM MR (push, while S1 still holds it),
// what was fetched for the next entry is dropped and fetched again once the
// deeper level is done (idx, the next entry to scan, moves on when a piece is
// sent, so nothing is skipped twice). A level's last piece waits in WAIT
// until it has left S1 (not a push), then the level is popped (NEXT, one per
// cycle) and its parent goes on.
//
// Per-level context (base, count, entry index, bytes left, tail) is a small
// array indexed by the level; only the current level scans, so the offset
// into the current entry is one register.
//
// Ending: a piece's last beat ends the outer request when the piece is the
// range's tail at every level (sub_final_o); any error beat ends it too
// (xu_walker, S3: a failing key check, ERR_DEPTH, an absent page).
// walk_end_i (S3: a beat of this walk with last = 1) brings the walker back
// to IDLE from any state; in that cycle xlate_unit drops whatever pieces
// were sent behind that beat (in S1, in the page walker: none of their
// beats is issued). Running off the
// list (the entry index reaches mtt_count / 2, or the MTT's end, with bytes
// left) ends the walk with one ERR_MTT beat (sub_err_o).
//
// The MTT is read through port A, shared with the page walker, which has it
// whenever it issues a page (mtt_busy_i); the KLM walker reads in the other
// cycles, one word per cycle, and uses each word in the cycle after its read
// (or keeps what it needs: key, length, the piece's address), so a page read
// in between disturbs nothing. External requests are held off while a walk
// runs (xlate_unit: req_ready_o = 0 while busy_o).
module xu_klm #(
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT,
  parameter int MAX_LEVELS  = `HCA_MAX_INDIRECTION
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,

  // push: S1 holds an access to a KLM-mode MR that passed rules 1-6; taken in
  // the same cycle (only possible while IDLE or WAIT)
  input  logic                                  push_valid_i,
  input  logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0]  push_mtt_base_i,
  input  logic [`HCA_MPT_ENTRY_MTT_COUNT_W-1:0] push_mtt_count_i,
  input  logic [63:0]                           push_off_i,     // va - iova
  input  logic [`HCA_XU_LEN_BITS-1:0]           push_len_i,
  input  logic                                  push_final_i,   // its range ends the outer request
  input  logic [`HCA_XU_TAG_BITS-1:0]           push_tag_i,     // the rest: taken when IDLE
  input  logic [`HCA_ACCESS_W-1:0]              push_rights_i,  // what every entry check needs
  input  logic [`HCA_PD_BITS-1:0]               push_pd_i,

  // the pipeline
  input  logic                                  mtt_busy_i,  // xu_walker reads the MTT this cycle
  input  logic                                  s1_free_i,   // S1 takes a piece this cycle (empty, or
                                                             // its piece leaves for the page walker)
  input  logic                                  walk_end_i,  // S3: the walk's last beat

  // MTT, port A (in a cycle the page walker does not read it)
  output logic                                  mtt_re_o,
  output logic [$clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2)-1:0] mtt_addr_o,
  input  logic [`HCA_MTT_ENTRY_W-1:0]           mtt_rdata_i,

  // piece into S1
  output logic                                  sub_valid_o,
  output logic                                  sub_err_o,   // an ERR_MTT beat, no lookup
  output logic [`HCA_KEY_BITS-1:0]              sub_key_o,
  output logic [63:0]                           sub_va_o,
  output logic [`HCA_XU_LEN_BITS-1:0]           sub_len_o,
  output logic                                  sub_final_o,
  output logic [$clog2(MAX_LEVELS + 1)-1:0]     sub_lvl_o,   // level of the MR the entry belongs to
  output logic [`HCA_XU_TAG_BITS-1:0]           sub_tag_o,
  output logic [`HCA_ACCESS_W-1:0]              sub_rights_o,
  output logic [`HCA_PD_BITS-1:0]               sub_pd_o,

  output logic                                  busy_o
);

  localparam int MTT_AW  = $clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2);
  localparam int LEN_W   = `HCA_XU_LEN_BITS;
  localparam int BASE_W  = `HCA_MPT_ENTRY_MTT_BASE_W;
  localparam int CNT_W   = `HCA_MPT_ENTRY_MTT_COUNT_W;
  localparam int LVL_W   = $clog2(MAX_LEVELS + 1);
  localparam int CI_W    = (MAX_LEVELS > 1) ? $clog2(MAX_LEVELS) : 1;  // context index
  localparam int CTX_N   = 1 << CI_W;
  localparam int IDX_W   = CNT_W;          // entry index (< mtt_count / 2)
  localparam int W_W     = IDX_W + 2;      // 2i + 1, base + 2i + 1: no overflow
  localparam logic [W_W-1:0] MTT_LIMIT = W_W'(MTT_ENTRIES);

  generate if (MAX_LEVELS < 1 || BASE_W + 2 > W_W) begin : g_bad_levels
`ifdef __ICARUS__
    initial $fatal(1, "xu_klm: MAX_LEVELS=%0d must be at least 1", MAX_LEVELS);
`else
    $error("xu_klm: MAX_LEVELS must be at least 1");
`endif
  end endgenerate

  typedef enum logic [3:0] {
    ST_IDLE,   // no walk
    ST_SCAN,   // read the length word of entry idx when port A is free
    ST_LEN,    // length word here: skip the entry, or read its address
    ST_AREAD,  // read the address word of entry idx when port A is free
    ST_ADDR,   // address word here: send the piece, or keep it (READY)
    ST_READY,  // the piece is ready: send it when S1 can take it
    ST_WAIT,   // the level's last piece (or the ERR_MTT beat) is under way
    ST_NEXT,   // pop a finished level, or go on at this one
    ST_ERR     // send the ERR_MTT beat (ran off the list)
  } state_e;

  state_e              state_q, state_d;
  logic [LVL_W-1:0]    lvl_q, lvl_d;       // current level, 1..MAX_LEVELS
  logic [63:0]         off_q, off_d;       // offset into entry idx of the current level
  logic [31:0]         key_q, key_d;       // the entry found: its lkey ...
  logic [LEN_W-1:0]    slen_q, slen_d;     // ... the piece's length ...
  logic [63:0]         va_q, va_d;         // ... and its address (READY)
  logic [`HCA_XU_TAG_BITS-1:0] tag_q, tag_d;
  logic [`HCA_ACCESS_W-1:0]    rights_q, rights_d;
  logic [`HCA_PD_BITS-1:0]     pd_q, pd_d;

  // Per-level context, written by index (data: not reset). idx is the entry
  // to scan next: the one holding the level's next byte, or before it only
  // zero-length entries.
  logic [BASE_W-1:0]   base_q [CTX_N];
  logic [CNT_W-1:0]    cnt_q  [CTX_N];
  logic [IDX_W-1:0]    idx_q  [CTX_N];
  logic [LEN_W-1:0]    rem_q  [CTX_N];     // bytes of the level's range not yet sent as pieces
  logic                tail_q [CTX_N];     // the level's range ends the outer request

  logic [CI_W-1:0]     cur;
  logic [BASE_W-1:0]   cur_base;
  logic [CNT_W-1:0]    cur_cnt;
  logic [IDX_W-1:0]    cur_idx;
  logic [LEN_W-1:0]    cur_rem;
  logic                cur_tail;
  logic [LVL_W-1:0]    lvl_m1;
  assign lvl_m1   = lvl_q - LVL_W'(1);
  assign cur      = lvl_m1[CI_W-1:0];
  assign cur_base = base_q[cur];
  assign cur_cnt  = cnt_q[cur];
  assign cur_idx  = idx_q[cur];
  assign cur_rem  = rem_q[cur];
  assign cur_tail = tail_q[cur];

  // The MTT word read last cycle (LEN, ADDR: the KLM walker read it; the
  // page walker may read in this cycle, so it is used now or kept).
  logic [31:0] e_len, e_key;
  assign e_len = mtt_rdata_i[31:0];
  assign e_key = mtt_rdata_i[63:32];

  // Context writes.
  logic              ctx_we, idx_we, rem_we;
  logic [CI_W-1:0]   ctx_widx;
  logic [IDX_W-1:0]  idx_wval;
  logic [LEN_W-1:0]  rem_wval;

  // What this cycle does, decided apart from the next-state logic below so
  // that no variable of that block feeds back into it (Icarus re-runs an
  // always_comb on its own intermediate variables). The walk's end and a
  // push (the piece sent last is itself a KLM MR: one level deeper) come
  // first; a piece is sent only when S1 takes it (s1_free_i: never in
  // either of those cycles).
  logic port_free, ctl, skip, fire, err_fire, rem_more, pop;
  assign port_free = !mtt_busy_i;
  assign ctl       = !walk_end_i && !push_valid_i;
  assign skip      = off_q >= {32'd0, e_len};
  assign fire      = (state_q == ST_ADDR || state_q == ST_READY) && s1_free_i;
  assign err_fire  = (state_q == ST_ERR) && s1_free_i;
  assign rem_more  = cur_rem != slen_q;     // the level goes on after this piece
  // WAIT: the level's last piece left S1 for the page walker (not a push)
  // and does not end the walk: pop.
  assign pop       = ctl && state_q == ST_WAIT && s1_free_i && cur_rem == '0 && !cur_tail;

  // Scan of entry scan_i of the current level (a length word): in SCAN and
  // NEXT entry idx itself; after a skip or a piece sent, idx + 1.
  logic              scan_want;
  logic [IDX_W-1:0]  scan_i;
  assign scan_want = ctl && ((state_q == ST_SCAN) || (state_q == ST_LEN && skip) ||
                             (fire && rem_more) || (state_q == ST_NEXT && cur_rem != '0));
  assign scan_i    = (state_q == ST_SCAN || state_q == ST_NEXT) ? cur_idx : cur_idx + IDX_W'(1);
  logic [W_W-1:0]    scan_w1, scan_mi;
  logic              scan_ok;
  assign scan_w1 = {1'b0, scan_i, 1'b1};                          // 2i + 1
  assign scan_mi = W_W'(cur_base) + scan_w1;                       // base + 2i + 1
  assign scan_ok = (scan_w1 < W_W'(cur_cnt)) && (scan_mi < MTT_LIMIT);

  // The entry found in LEN: the piece is the rest of the entry or the rest
  // of the level's range, whichever is shorter (off_q < e_len here).
  logic [LEN_W-1:0]  in_entry;
  logic [W_W-1:0]    addr_mi;
  assign in_entry = e_len - off_q[LEN_W-1:0];
  assign addr_mi  = W_W'(cur_base) + {1'b0, cur_idx, 1'b0};      // base + 2i

  // Part selects the next-state block uses (Icarus wants them outside it).
  logic [CI_W-1:0]   lvl_ci;
  logic [MTT_AW-1:0] scan_addr, entry_addr;
  logic [63:0]       rd_va;
  assign lvl_ci     = lvl_q[CI_W-1:0];
  assign scan_addr  = scan_mi[MTT_AW-1:0];
  assign entry_addr = addr_mi[MTT_AW-1:0];
  assign rd_va      = mtt_rdata_i + off_q;

  always_comb begin
    state_d  = state_q;
    lvl_d    = lvl_q;
    off_d    = off_q;
    key_d    = key_q;
    slen_d   = slen_q;
    va_d     = va_q;
    tag_d    = tag_q;
    rights_d = rights_q;
    pd_d     = pd_q;

    ctx_we   = 1'b0;
    ctx_widx = cur;
    idx_we   = 1'b0;
    idx_wval = cur_idx + IDX_W'(1);
    rem_we   = 1'b0;
    rem_wval = cur_rem - slen_q;

    mtt_re_o = 1'b0;
    mtt_addr_o = entry_addr;

    if (state_q == ST_IDLE) begin
      if (push_valid_i) begin
        ctx_we   = 1'b1;
        ctx_widx = '0;
        lvl_d    = LVL_W'(1);
        off_d    = push_off_i;
        tag_d    = push_tag_i;
        rights_d = push_rights_i;
        pd_d     = push_pd_i;
        state_d  = ST_SCAN;
      end
    end else if (walk_end_i) begin
      state_d = ST_IDLE;
    end else if (push_valid_i) begin
      // the piece sent last is itself a KLM MR: one level deeper (whatever
      // was fetched for this level is fetched again after it)
      ctx_we   = 1'b1;
      ctx_widx = lvl_ci;
      lvl_d    = lvl_q + LVL_W'(1);
      off_d    = push_off_i;
      state_d  = ST_SCAN;
    end else begin
      case (state_q)
        ST_LEN: begin
          if (skip) begin
            // byte off lies past this entry: the next one (scan_want)
            off_d  = off_q - {32'd0, e_len};
            idx_we = 1'b1;
          end else begin
            key_d  = e_key;
            slen_d = (in_entry < cur_rem) ? in_entry : cur_rem;
            if (port_free) begin
              mtt_re_o = 1'b1;
              state_d  = ST_ADDR;
            end else begin
              state_d  = ST_AREAD;
            end
          end
        end

        ST_AREAD: begin
          if (port_free) begin
            mtt_re_o = 1'b1;
            state_d  = ST_ADDR;
          end
        end

        ST_ADDR, ST_READY: begin
          if (fire) begin
            // sent: this level's next entry follows from its first byte
            // (scan_want), or the level is done (WAIT)
            rem_we  = 1'b1;
            idx_we  = 1'b1;
            off_d   = '0;
            state_d = ST_WAIT;
          end else if (state_q == ST_ADDR) begin
            va_d    = rd_va;
            state_d = ST_READY;
          end
        end

        ST_WAIT: begin
          if (pop) begin
            lvl_d   = lvl_m1;
            state_d = ST_NEXT;
          end
        end

        ST_NEXT: begin
          if (cur_rem == '0) begin
            // this level is done too (it does not end the walk: its last
            // piece did not)
            lvl_d = lvl_m1;
          end
          // else scan_want
        end

        ST_ERR: begin
          if (err_fire) begin
            state_d = ST_WAIT;
          end
        end

        default: begin
          // SCAN: scan_want
        end
      endcase

      if (scan_want) begin
        if (!scan_ok) begin
          state_d = ST_ERR;
        end else if (port_free) begin
          mtt_re_o   = 1'b1;
          mtt_addr_o = scan_addr;
          state_d    = ST_LEN;
        end else begin
          state_d    = ST_SCAN;
        end
      end
    end
  end

  // The piece: in ADDR from the address word read last cycle, in READY as
  // kept.
  assign sub_valid_o  = state_q == ST_ADDR || state_q == ST_READY || state_q == ST_ERR;
  assign sub_err_o    = state_q == ST_ERR;
  assign sub_key_o    = key_q;
  assign sub_va_o     = (state_q == ST_ADDR) ? rd_va : va_q;
  assign sub_len_o    = slen_q;
  assign sub_final_o  = cur_tail && cur_rem == slen_q;
  assign sub_lvl_o    = lvl_q;
  assign sub_tag_o    = tag_q;
  assign sub_rights_o = rights_q;
  assign sub_pd_o     = pd_q;
  assign busy_o       = state_q != ST_IDLE;

  // Bits of the wide index sums beyond the MTT address.
  logic unused_klm;
  assign unused_klm = ^{scan_mi[W_W-1:MTT_AW], addr_mi[W_W-1:MTT_AW]};

  always_ff @(posedge clk_i) begin
    if (ctx_we) begin
      base_q[ctx_widx] <= push_mtt_base_i;
      cnt_q[ctx_widx]  <= push_mtt_count_i;
      idx_q[ctx_widx]  <= '0;
      rem_q[ctx_widx]  <= push_len_i;
      tail_q[ctx_widx] <= push_final_i;
    end
    if (idx_we) begin
      idx_q[cur] <= idx_wval;
    end
    if (rem_we) begin
      rem_q[cur] <= rem_wval;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= ST_IDLE;
      lvl_q   <= '0;
    end else begin
      state_q <= state_d;
      lvl_q   <= lvl_d;
    end
  end

  always_ff @(posedge clk_i) begin
    off_q    <= off_d;
    key_q    <= key_d;
    slen_q   <= slen_d;
    va_q     <= va_d;
    tag_q    <= tag_d;
    rights_q <= rights_d;
    pd_q     <= pd_d;
  end

endmodule
