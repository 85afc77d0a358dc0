`default_nettype none
`include "hca_abi.svh"

// xu_walker — pipeline stage S2: holds one checked request and issues its
// response beats, one per cycle, toward the MTT read stage (S3).
//
// A request decided by the key check (error, zero length, untranslated) is
// one beat. A page walk issues one beat per page touched: it checks the page
// against the MR's page count and the MTT size, and reads
// MTT[mtt_base + page] in the cycle it issues (the entry arrives in S3).
//
// A request may be a piece of a KLM walk (xu_klm): ld_klm_i marks it, and
// ld_final_i says whether its range ends the walk. iss_end_o marks the
// request's own final beat; iss_last_o (the outer request's last beat) is
// iss_end_o of a final piece, or any error beat (an error ends the walk).
// For a request of its own, ld_final_i = 1 and iss_last_o = iss_end_o.
//
// iss_ready_i is a credit: the output buffer has room for one more beat, so
// nothing after this stage ever stalls and the synchronous MTT read needs no
// skid buffer. abort_i comes from S3: the page issued last cycle found its MTT
// entry absent, S3 turns that beat into the request's last (ERR_MTT), and the
// walk ends here without issuing the next page; or S3 holds a KLM walk's last
// beat and the request held here is a piece sent behind it, dropped unissued.
module xu_walker #(
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,

  // load: one checked request (pipeline cycle c+1 -> c+2)
  input  logic                           ld_valid_i,
  output logic                           ld_ready_o,
  input  logic [`HCA_XU_TAG_BITS-1:0]    ld_tag_i,
  input  logic [`HCA_XLATE_STATUS_W-1:0] ld_status_i,
  input  logic                           ld_walk_i,
  input  logic [63:0]                    ld_pa_i,     // the single beat when !ld_walk_i
  input  logic [`HCA_XU_LEN_BITS-1:0]    ld_len_i,    // its length, or the request length to walk
  input  logic [63:0]                    ld_va_i,
  input  logic [63:0]                    ld_iova_i,
  input  logic [`HCA_MPT_ENTRY_PAGE_SHIFT_W-1:0] ld_page_shift_i,
  input  logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0]   ld_mtt_base_i,
  input  logic [`HCA_MPT_ENTRY_MTT_COUNT_W-1:0]  ld_mtt_count_i,
  input  logic                           ld_final_i,  // its last beat ends the outer request
  input  logic                           ld_klm_i,    // a piece of a KLM walk

  // issue: one beat per cycle; iss_pa_o is the in-page offset when iss_mtt_o
  output logic                           iss_valid_o,
  input  logic                           iss_ready_i,
  output logic [`HCA_XU_TAG_BITS-1:0]    iss_tag_o,
  output logic [`HCA_XLATE_STATUS_W-1:0] iss_status_o,
  output logic                           iss_mtt_o,   // pa = MTT entry's page + iss_pa_o
  output logic [63:0]                    iss_pa_o,
  output logic [`HCA_XU_LEN_BITS-1:0]    iss_len_o,
  output logic                           iss_last_o,  // the outer request's last beat
  output logic                           iss_end_o,   // this request's last beat
  output logic                           iss_klm_o,
  input  logic                           abort_i,
  output logic                           busy_o,      // holds a request (it may read the MTT)

  // MTT read, port A (the entry is registered by the table for S3)
  output logic                           mtt_re_o,
  output logic [$clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2)-1:0] mtt_addr_o
);

  localparam int MTT_AW    = $clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2);
  localparam int PS_W      = `HCA_MPT_ENTRY_PAGE_SHIFT_W;
  localparam int LEN_W     = `HCA_XU_LEN_BITS;
  localparam int CNT_W     = `HCA_MPT_ENTRY_MTT_COUNT_W;
  localparam int BASE_W    = `HCA_MPT_ENTRY_MTT_BASE_W;
  // A page number fits in 64 - PAGE_SHIFT_MIN bits; an in-page offset in
  // PAGE_SHIFT_MAX bits.
  localparam int PAGE_W    = 64 - `HCA_PAGE_SHIFT_MIN;
  localparam int OFF_W     = `HCA_PAGE_SHIFT_MAX;
  localparam logic [BASE_W:0] MTT_LIMIT = (BASE_W + 1)'(MTT_ENTRIES);

  // Control.
  logic busy_q, busy_d;
  // The request being issued (data: never reset).
  logic [`HCA_XU_TAG_BITS-1:0]    tag_q, tag_d;
  logic [`HCA_XLATE_STATUS_W-1:0] status_q, status_d;
  logic                           walk_q, walk_d;
  logic [63:0]                    pa_q, pa_d;
  logic [LEN_W-1:0]               rem_q, rem_d;       // bytes not yet issued
  logic [PAGE_W-1:0]              page_q, page_d;     // page of the MR, from its first
  logic [OFF_W-1:0]               off_q, off_d;       // offset in that page
  logic [PS_W-1:0]                ps_q, ps_d;
  logic [BASE_W-1:0]              mtt_base_q, mtt_base_d;
  logic [CNT_W-1:0]               mtt_count_q, mtt_count_d;
  logic                           final_q, final_d;
  logic                           klm_q, klm_d;

  // ---------------------------------------------------------------- load
  // rel = (iova mod page) + (va - iova) = va - (iova rounded down to a page):
  // one subtraction, no overflow since the key check guaranteed va >= iova.
  // The offset in the first page is then simply va mod page.
  logic [63:0]       page_mask, rel, rel_page;
  logic [PAGE_W-1:0] ld_page;
  logic [OFF_W-1:0]  ld_off;
  assign page_mask = (64'd1 << ld_page_shift_i) - 64'd1;
  assign rel       = ld_va_i - (ld_iova_i & ~page_mask);
  assign rel_page  = rel >> ld_page_shift_i;
  assign ld_page   = rel_page[PAGE_W-1:0];
  assign ld_off    = ld_va_i[OFF_W-1:0] & page_mask[OFF_W-1:0];

  // rel_page keeps PAGE_W bits for any page shift this unit walks (>= 12).
  logic unused_rel_page;
  assign unused_rel_page = ^rel_page[63:PAGE_W];

  // ---------------------------------------------------------------- issue
  logic [LEN_W-1:0] page_room;    // bytes from off_q to the end of the page
  logic             seg_last;
  logic [LEN_W-1:0] seg_len;
  logic             page_ok, idx_ok;
  logic [BASE_W:0]  mtt_idx;
  logic             iss_fire, done;

  assign page_room = (LEN_W'(1) << ps_q) - LEN_W'(off_q);
  assign seg_last  = rem_q <= page_room;
  assign seg_len   = seg_last ? rem_q : page_room;
  assign page_ok   = page_q < PAGE_W'(mtt_count_q);
  // Only meaningful when page_ok (then page_q < 2^32): base + page <= 2^33 - 2.
  assign mtt_idx   = {1'b0, mtt_base_q} + {1'b0, page_q[BASE_W-1:0]};
  assign idx_ok    = mtt_idx < MTT_LIMIT;

  always_comb begin
    iss_valid_o  = busy_q && !abort_i;
    iss_tag_o    = tag_q;
    iss_status_o = status_q;
    iss_mtt_o    = 1'b0;
    iss_pa_o     = pa_q;
    iss_len_o    = rem_q;
    iss_end_o    = 1'b1;
    if (walk_q) begin
      if (page_ok && idx_ok) begin
        iss_mtt_o  = 1'b1;
        iss_pa_o   = 64'(off_q);
        iss_len_o  = seg_len;
        iss_end_o  = seg_last;
      end else begin
        // The page lies beyond the MR's page list or the MTT: the request
        // ends with ERR_MTT and no table read.
        iss_status_o = `HCA_XLATE_STATUS_ERR_MTT;
        iss_pa_o     = 64'd0;
        iss_len_o    = '0;
      end
    end
  end

  assign iss_last_o = iss_end_o && (final_q || iss_status_o != `HCA_XLATE_STATUS_OK);
  assign iss_klm_o  = klm_q;
  assign iss_fire   = iss_valid_o && iss_ready_i;
  assign mtt_re_o   = iss_fire && iss_mtt_o;
  assign mtt_addr_o = mtt_idx[MTT_AW-1:0];
  assign done       = busy_q && ((iss_fire && iss_end_o) || abort_i);
  // A request loads in the cycle the previous one issues its last beat, so
  // single-beat requests go through at one per cycle.
  assign ld_ready_o = !busy_q || done;
  assign busy_o     = busy_q;

  always_comb begin
    busy_d      = busy_q;
    tag_d       = tag_q;
    status_d    = status_q;
    walk_d      = walk_q;
    pa_d        = pa_q;
    rem_d       = rem_q;
    page_d      = page_q;
    off_d       = off_q;
    ps_d        = ps_q;
    mtt_base_d  = mtt_base_q;
    mtt_count_d = mtt_count_q;
    final_d     = final_q;
    klm_d       = klm_q;

    if (done) begin
      busy_d = 1'b0;
    end else if (iss_fire) begin
      // Next page of a walk: from its first byte.
      rem_d  = rem_q - seg_len;
      page_d = page_q + PAGE_W'(1);
      off_d  = '0;
    end

    if (ld_valid_i && ld_ready_o) begin
      busy_d      = 1'b1;
      tag_d       = ld_tag_i;
      status_d    = ld_status_i;
      walk_d      = ld_walk_i;
      pa_d        = ld_pa_i;
      rem_d       = ld_len_i;
      page_d      = ld_page;
      off_d       = ld_off;
      ps_d        = ld_page_shift_i;
      mtt_base_d  = ld_mtt_base_i;
      mtt_count_d = ld_mtt_count_i;
      final_d     = ld_final_i;
      klm_d       = ld_klm_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
    end else begin
      busy_q <= busy_d;
    end
  end

  always_ff @(posedge clk_i) begin
    tag_q       <= tag_d;
    status_q    <= status_d;
    walk_q      <= walk_d;
    pa_q        <= pa_d;
    rem_q       <= rem_d;
    page_q      <= page_d;
    off_q       <= off_d;
    ps_q        <= ps_d;
    mtt_base_q  <= mtt_base_d;
    mtt_count_q <= mtt_count_d;
    final_q     <= final_d;
    klm_q       <= klm_d;
  end

endmodule
