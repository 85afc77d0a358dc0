`default_nettype none
`include "hca_abi.svh"

// xu_klm — the KLM walker: serves an access to an indirect (KLM-mode) MR by
// SEMANTICS.md rule 7, entry by entry, through the unit's own pipeline.
//
// An access that passed rules 1-6 on a KLM-mode MR is pushed here from S1
// (push_*): {the MR's mtt_base and mtt_count, off = va - iova, len, the level
// of the MR it came from}. The KLM list lives in the MR's MTT space as
// firmware/mm.c reg_indir writes it: entry i is MTT[mtt_base + 2i] = addr and
// MTT[mtt_base + 2i + 1] = length | lkey << 32, entries = mtt_count / 2 (the
// words are read whatever their present bit says). The walker reads whole
// entries through the MTT's list port (xu_table port C: both words of an
// entry in one read, its own port, so the page walker's reads of port A never
// hold it up), one entry per cycle, and sends a piece {lkey, addr + off',
// min(rest of entry, rest of range), rights, remote 0, pd} into S1 (sub_*) in
// the cycle after the entry's read, where the key check judges it like any
// request (rules 1-6 with the entry's own key). A piece that is a page walk
// or a single beat goes to xu_walker; a piece whose MR is itself in KLM mode
// is pushed back here one level deeper (S1 refuses a level beyond
// max_indirection with ERR_DEPTH).
//
// Reads, one per cycle, each the entry the walk needs next:
//   push   the new level's entry 0, in the push cycle itself (so a level costs
//          one list read and the piece's MPT lookup before its first beat);
//   skip   the entry does not hold byte off: the next one (the scan);
//   fire   a piece is sent: the level's next entry, so that its piece is
//          ready when S1 can take the next one (the pieces of single-page
//          entries follow each other at one per cycle);
//   pop    the piece sent was the level's last and does not end the walk:
//          the parent level's next entry, at once (the level is left as the
//          piece is sent, not when it leaves S1). If that piece turns out to
//          be a KLM MR itself (push, the cycle after), what was read for the
//          parent is dropped and read again when the deeper level is done;
//          the push names its own level (push_lvl_i), so the new level is
//          the child of the piece's, wherever the walker had moved on to;
//   NEXT   a level popped to has no bytes left either: pop again (one level
//          per cycle), else read its next entry.
// idx (the next entry to read at a level) moves on when a piece is sent, so
// nothing is skipped twice. A piece is sent only when S1 takes it
// (s1_free_i: S1 empty, or its piece leaving for the page walker in that
// cycle; never in a push cycle nor when the walk ends), so a piece in S1 that
// starts a level is always seen before anything behind it is sent.
//
// Per-level context (base, count, entry index, bytes left, tail) is a small
// array indexed by the level; the offset into the entry being read is one
// register.
//
// Ending: a piece's last beat ends the outer request when the piece is the
// range's tail at every level (sub_final_o); any error beat ends it too
// (xu_walker, S3: a failing key check, ERR_DEPTH, an absent page).
// walk_end_i (S3: a beat of this walk with last = 1) brings the walker back
// to IDLE from any state; in that cycle xlate_unit drops whatever pieces
// were sent behind that beat (in S1, in the page walker: none of their
// beats is issued). Running off the list (the entry index reaches
// mtt_count / 2, or the MTT's end, with bytes left) ends the walk with one
// ERR_MTT beat (sub_err_o). External requests are held off while a walk runs
// (xlate_unit: req_ready_o = 0 while busy_o).
module xu_klm #(
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT,
  parameter int MAX_LEVELS  = `HCA_MAX_INDIRECTION
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,

  // push: S1 holds an access to a KLM-mode MR that passed rules 1-6; taken in
  // the same cycle
  input  logic                                  push_valid_i,
  input  logic [$clog2(MAX_LEVELS + 1)-1:0]     push_lvl_i,     // its MR's level: 0 external, else a piece's
  input  logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0]  push_mtt_base_i,
  input  logic [`HCA_MPT_ENTRY_MTT_COUNT_W-1:0] push_mtt_count_i,
  input  logic [63:0]                           push_off_i,     // va - iova
  input  logic [`HCA_XU_LEN_BITS-1:0]           push_len_i,
  input  logic                                  push_final_i,   // its range ends the outer request
  input  logic [`HCA_XU_TAG_BITS-1:0]           push_tag_i,
  input  logic [`HCA_ACCESS_W-1:0]              push_rights_i,  // what every entry check needs
  input  logic [`HCA_PD_BITS-1:0]               push_pd_i,

  // the pipeline
  input  logic                                  s1_free_i,   // S1 takes a piece this cycle (empty, or
                                                             // its piece leaves for the page walker)
  input  logic                                  walk_end_i,  // S3: the walk's last beat

  // the MTT's list port: {MTT[a + 1], MTT[a]} a cycle after the read, held
  // until the next read
  output logic                                  lst_re_o,
  output logic [$clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2)-1:0] lst_addr_o,
  input  logic [2*`HCA_MTT_ENTRY_W-1:0]         lst_rdata_i,

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

  typedef enum logic [2:0] {
    ST_IDLE,   // no walk
    ST_ENT,    // entry idx of the current level is on lst_rdata_i: skip it, or send its piece
    ST_WAIT,   // the walk's final piece (or the ERR_MTT beat) is under way
    ST_NEXT,   // a level popped to: pop again, or read its next entry
    ST_ERR     // send the ERR_MTT beat (ran off the list)
  } state_e;

  state_e              state_q, state_d;
  logic [LVL_W-1:0]    lvl_q, lvl_d;       // current level, 1..MAX_LEVELS
  logic [63:0]         off_q, off_d;       // offset into entry idx of the current level
  logic [`HCA_XU_TAG_BITS-1:0] tag_q;
  logic [`HCA_ACCESS_W-1:0]    rights_q;
  logic [`HCA_PD_BITS-1:0]     pd_q;

  // Per-level context, written by index (data: not reset). idx is the entry
  // to read next: the one holding the level's next byte, or before it only
  // zero-length entries.
  logic [BASE_W-1:0]   base_q [CTX_N];
  logic [CNT_W-1:0]    cnt_q  [CTX_N];
  logic [IDX_W-1:0]    idx_q  [CTX_N];
  logic [LEN_W-1:0]    rem_q  [CTX_N];     // bytes of the level's range not yet sent as pieces
  logic                tail_q [CTX_N];     // the level's range ends the outer request

  logic [LVL_W-1:0]    lvl_m1;
  logic [CI_W-1:0]     cur, par;           // the current level's context, its parent's
  assign lvl_m1 = lvl_q - LVL_W'(1);
  assign cur    = lvl_m1[CI_W-1:0];
  assign par    = cur - CI_W'(1);

  logic [LEN_W-1:0]    cur_rem;
  logic                cur_tail;
  assign cur_rem  = rem_q[cur];
  assign cur_tail = tail_q[cur];

  // The entry read last cycle (ENT).
  localparam int EW = `HCA_MTT_ENTRY_W;    // 64: addr; length | lkey << 32
  logic [63:0] e_addr;
  logic [31:0] e_len, e_key;
  assign e_addr = lst_rdata_i[EW-1:0];
  assign e_len  = lst_rdata_i[EW +: 32];
  assign e_key  = lst_rdata_i[EW + 32 +: 32];

  // What this cycle does. The walk's end and a push (the piece sent last is
  // itself a KLM MR: one level deeper) come first; a piece is sent only when
  // S1 takes it (s1_free_i: never in either of those cycles).
  logic ctl, skip, piece, fire, err_fire, lvl_done, pop;
  logic [LEN_W-1:0] in_entry, slen;
  assign ctl      = !walk_end_i && !push_valid_i;
  assign skip     = off_q >= {32'd0, e_len};
  assign in_entry = e_len - off_q[LEN_W-1:0];           // off_q < e_len when a piece
  assign slen     = (in_entry < cur_rem) ? in_entry : cur_rem;
  assign piece    = state_q == ST_ENT && !skip;
`ifndef HCA_MUTANT_KLM_NO_READY
  assign fire     = ctl && piece && s1_free_i;
`else  // formal mutant (rtl/formal/xu_klm_props.sv): a piece counted as sent whether S1 took it or not
  assign fire     = ctl && piece;
`endif
  assign err_fire = ctl && state_q == ST_ERR && s1_free_i;
  assign lvl_done = cur_rem == slen;                    // the piece is the level's last
  // the level's last piece, not ending the walk: go on with the parent at once
  assign pop      = fire && lvl_done && !cur_tail;

  // The read of this cycle: which level's context, which entry.
  logic              rd_want, rd_push, rd_next;
  logic [CI_W-1:0]   rd_ci;
  assign rd_push = push_valid_i && !walk_end_i;
  assign rd_next = ctl && state_q == ST_NEXT && cur_rem != '0;
  assign rd_ci   = pop ? par : cur;
  assign rd_want = rd_push || rd_next ||
                   (ctl && state_q == ST_ENT && skip) ||
                   (fire && !lvl_done) ||
                   (pop && rem_q[par] != '0);
  logic [BASE_W-1:0] rd_base;
  logic [CNT_W-1:0]  rd_cnt;
  logic [IDX_W-1:0]  rd_i;
  assign rd_base = rd_push ? push_mtt_base_i : base_q[rd_ci];
  assign rd_cnt  = rd_push ? push_mtt_count_i : cnt_q[rd_ci];
  assign rd_i    = rd_push ? '0 :
                   (rd_next || pop) ? idx_q[rd_ci] : idx_q[cur] + IDX_W'(1);
  logic [W_W-1:0] rd_w1, rd_mi;
  logic           rd_ok;
  assign rd_w1 = {1'b0, rd_i, 1'b1};                    // 2i + 1
  assign rd_mi = W_W'(rd_base) + rd_w1;                 // base + 2i + 1
  assign rd_ok = (rd_w1 < W_W'(rd_cnt)) && (rd_mi < MTT_LIMIT);
  logic [W_W-1:0] rd_ma;
  assign rd_ma = rd_mi - W_W'(1);                       // base + 2i: the address word

  assign lst_re_o   = rd_want && rd_ok;
  assign lst_addr_o = rd_ma[MTT_AW-1:0];

  // Context writes: a push writes its level's context; a skip or a piece
  // sent moves the current level's index, a piece its bytes left.
  logic              ctx_we, idx_we, rem_we;
  logic [CI_W-1:0]   ctx_widx;
  logic [LVL_W-1:0]  push_lvl_p1;
  assign push_lvl_p1 = push_lvl_i + LVL_W'(1);
`ifndef HCA_MUTANT_KLM_STALE_CTX
  assign ctx_we      = rd_push;
`else  // formal mutant (xlate_unit_props.sv inv_ctx): a deeper level walks the list its context held before
  assign ctx_we      = rd_push && push_lvl_i == '0;
`endif
  assign ctx_widx    = push_lvl_i[CI_W-1:0];
  assign idx_we      = (ctl && state_q == ST_ENT && skip) || fire;
  assign rem_we      = fire;

  // Where a read leads: the entry, or the ERR_MTT beat if it lies off the
  // list (an if, not a ?: of enum values, for Icarus).
  state_e st_rd;
  always_comb begin
    if (rd_ok) begin
      st_rd = ST_ENT;
    end else begin
      st_rd = ST_ERR;
    end
  end

  always_comb begin
    state_d = state_q;
    lvl_d   = lvl_q;
    off_d   = off_q;
`ifndef HCA_MUTANT_KLM_NO_END
    if (walk_end_i) begin
      state_d = ST_IDLE;
    end else
`endif  // else formal mutant (rtl/formal/xu_klm_props.sv): the walk's end missed
    if (push_valid_i) begin
      lvl_d   = push_lvl_p1;
      off_d   = push_off_i;
      state_d = st_rd;
    end else begin
      case (state_q)
        ST_ENT: begin
          if (skip) begin
            off_d   = off_q - {32'd0, e_len};
            state_d = st_rd;
          end else if (fire) begin
            off_d = '0;
            if (!lvl_done) begin
              state_d = st_rd;
            end else if (cur_tail) begin
              state_d = ST_WAIT;
            end else begin
              lvl_d   = lvl_m1;
              if (rem_q[par] == '0) begin
                state_d = ST_NEXT;
              end else begin
                state_d = st_rd;
              end
            end
          end
        end
        ST_NEXT: begin
          if (cur_rem == '0) begin
            lvl_d = lvl_m1;          // this level is done too
          end else begin
            state_d = st_rd;
          end
        end
        ST_ERR: begin
          if (err_fire) begin
            state_d = ST_WAIT;
          end
        end
        default: begin
          // IDLE, WAIT: a push or the walk's end
        end
      endcase
    end
  end

  // The piece, from the entry on the list port.
  assign sub_valid_o  = piece || state_q == ST_ERR;
  assign sub_err_o    = state_q == ST_ERR;
  assign sub_key_o    = e_key;
  assign sub_va_o     = e_addr + off_q;
  assign sub_len_o    = slen;
  assign sub_final_o  = (state_q == ST_ERR) || (cur_tail && lvl_done);
  assign sub_lvl_o    = lvl_q;
  assign sub_tag_o    = tag_q;
  assign sub_rights_o = rights_q;
  assign sub_pd_o     = pd_q;
  assign busy_o       = state_q != ST_IDLE;

  // Bits of the wide index sums beyond the MTT address.
  logic unused_klm;
  assign unused_klm = ^rd_ma[W_W-1:MTT_AW];

  always_ff @(posedge clk_i) begin
    if (ctx_we) begin
      base_q[ctx_widx] <= push_mtt_base_i;
      cnt_q[ctx_widx]  <= push_mtt_count_i;
      idx_q[ctx_widx]  <= '0;
      rem_q[ctx_widx]  <= push_len_i;
      tail_q[ctx_widx] <= push_final_i;
    end
    if (idx_we) begin
      idx_q[cur] <= idx_q[cur] + IDX_W'(1);
    end
    if (rem_we) begin
      rem_q[cur] <= cur_rem - slen;
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

  // The walk's tag, rights and PD: every push of a walk carries the same.
  always_ff @(posedge clk_i) begin
    off_q <= off_d;
    if (push_valid_i) begin
      tag_q    <= push_tag_i;
      rights_q <= push_rights_i;
      pd_q     <= push_pd_i;
    end
  end

endmodule
