`default_nettype none
`include "hca_abi.svh"

// xu_klm_props — valid/ready properties of the KLM walker's boundaries
// (`make formal`, by induction): xu_klm as it is, every input free each
// cycle, its list port a register loaded with any value on a read and held
// otherwise (xu_table port C: any MTT contents).
//
//   piece_held        a piece offered to S1 and not taken (s1_free_i low) is
//                     offered again in the next cycle, unchanged (valid,
//                     error flag, key, va, len, final, level, tag, rights,
//                     PD) — except in the cycle the walk ends (walk_end_i:
//                     pieces behind its last beat are dropped) or S1's piece
//                     starts a level (push_valid_i: the one fetched for the
//                     level left is fetched again after it), both by design
//   walk_tracks       the walker is busy exactly while a walk pushed to it
//                     has not ended (no piece, no list read without a
//                     request; back to IDLE at the walk's end)
//   no_piece_without_walk, no_read_without_walk   the same, for the outputs
//
// Each is shown to fail on a mutant of xu_klm.sv: HCA_MUTANT_KLM_NO_READY
// (a piece counted as sent without S1 taking it) breaks piece_held,
// HCA_MUTANT_KLM_NO_END (the walker missing the walk's end) no_piece_without_walk
// (and walk_tracks).
module xu_klm_props #(
  parameter int MTT_ENTRIES = 16,
  parameter int MAX_LEVELS  = `HCA_MAX_INDIRECTION
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,
  input  logic                                  push_valid_i,
  input  logic [$clog2(MAX_LEVELS + 1)-1:0]     push_lvl_i,
  input  logic [`HCA_MPT_ENTRY_MTT_BASE_W-1:0]  push_mtt_base_i,
  input  logic [`HCA_MPT_ENTRY_MTT_COUNT_W-1:0] push_mtt_count_i,
  input  logic [63:0]                           push_off_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]           push_len_i,
  input  logic                                  push_final_i,
  input  logic [`HCA_XU_TAG_BITS-1:0]           push_tag_i,
  input  logic [`HCA_ACCESS_W-1:0]              push_rights_i,
  input  logic [`HCA_PD_BITS-1:0]               push_pd_i,
  input  logic                                  s1_free_i,
  input  logic                                  walk_end_i,
  input  logic [2*`HCA_MTT_ENTRY_W-1:0]         lst_any_i
);

  localparam int LVL_W = $clog2(MAX_LEVELS + 1);
  localparam int MTT_AW = $clog2(MTT_ENTRIES);

  logic                          lst_re;
  logic [MTT_AW-1:0]             lst_addr;
  logic [2*`HCA_MTT_ENTRY_W-1:0] lst_q;
  logic                          sub_valid, sub_err, sub_final, busy;
  logic [`HCA_KEY_BITS-1:0]      sub_key;
  logic [63:0]                   sub_va;
  logic [`HCA_XU_LEN_BITS-1:0]   sub_len;
  logic [LVL_W-1:0]              sub_lvl;
  logic [`HCA_XU_TAG_BITS-1:0]   sub_tag;
  logic [`HCA_ACCESS_W-1:0]      sub_rights;
  logic [`HCA_PD_BITS-1:0]       sub_pd;

  always_ff @(posedge clk_i) begin
    if (lst_re) begin
      lst_q <= lst_any_i;
    end
  end

  xu_klm #(.MTT_ENTRIES(MTT_ENTRIES), .MAX_LEVELS(MAX_LEVELS)) dut (
    .clk_i, .rst_ni, .push_valid_i, .push_lvl_i, .push_mtt_base_i, .push_mtt_count_i, .push_off_i,
    .push_len_i, .push_final_i, .push_tag_i, .push_rights_i, .push_pd_i, .s1_free_i, .walk_end_i,
    .lst_re_o(lst_re), .lst_addr_o(lst_addr), .lst_rdata_i(lst_q),
    .sub_valid_o(sub_valid), .sub_err_o(sub_err), .sub_key_o(sub_key), .sub_va_o(sub_va),
    .sub_len_o(sub_len), .sub_final_o(sub_final), .sub_lvl_o(sub_lvl), .sub_tag_o(sub_tag),
    .sub_rights_o(sub_rights), .sub_pd_o(sub_pd), .busy_o(busy)
  );

  // Reset in the first cycle, not after.
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

  // A walk pushed and not ended (the request the walker serves).
  logic walk_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni || walk_end_i) begin
      walk_q <= 1'b0;
    end else if (push_valid_i) begin
      walk_q <= 1'b1;
    end
  end

  // Last cycle's piece, offered and neither taken nor cancelled.
  localparam int PAY_W = 1 + `HCA_KEY_BITS + 64 + `HCA_XU_LEN_BITS + 1 + LVL_W + `HCA_XU_TAG_BITS +
                         `HCA_ACCESS_W + `HCA_PD_BITS;
  logic [PAY_W-1:0] pay, pay_q;
  logic             held_q;
  assign pay = {sub_err, sub_key, sub_va, sub_len, sub_final, sub_lvl, sub_tag, sub_rights, sub_pd};
  always_ff @(posedge clk_i) begin
    held_q <= rst_ni && sub_valid && !s1_free_i && !walk_end_i && !push_valid_i;
    pay_q  <= pay;
  end

  logic unused_addr;
  assign unused_addr = ^lst_addr;

  always_comb begin
    if (!init_q) begin
      piece_held:            assert (!held_q || (sub_valid && pay == pay_q));
      walk_tracks:           assert (busy == walk_q);
      no_piece_without_walk: assert (!sub_valid || walk_q);
      no_read_without_walk:  assert (!lst_re || walk_q || push_valid_i);
    end
  end

endmodule
