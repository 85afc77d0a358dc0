`default_nettype none
`include "hca_abi.svh"

// xu_key_check — SEMANTICS.md "The key check", rules 1-6, for one request
// against the MPT entry its key indexes, then this unit's own refusals (a DMA
// MR in KLM mode, an unsupported page shift). The first failing rule names
// the status (enum xlate_status). Purely combinational: it sits between the
// MPT read register and the walker's load register (pipeline cycle c+1).
//
// The outcome is either one response beat decided here (a failed check, a
// zero-length access, an untranslated access through the reserved L_Key or
// a DMA MR), or walk_o = 1: the walker splits [va, va+len) at page
// boundaries and translates each page through the MTT, or klm_o = 1: the
// access passed rules 1-6 on an MR in KLM mode (rule 7's first half) and
// xu_klm walks its entries (status_o is OK, no beat is decided here).
module xu_key_check #(
  parameter int MPT_ENTRIES = `HCA_MPT_ENTRIES_DEFAULT
) (
  // the request
  input  logic [`HCA_ACCESS_W-1:0]      rights_i,
  input  logic                          remote_i,
  input  logic [`HCA_KEY_BITS-1:0]      key_i,
  input  logic [`HCA_PD_BITS-1:0]       pd_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]   len_i,
  input  logic [63:0]                   va_i,
  // the MPT entry at the key's index, and the slot's alloc bit (from the
  // reset-cleared vector: the entry's own alloc bit may be stale RAM data)
  input  logic [`HCA_MPT_ENTRY_W-1:0]   entry_i,
  input  logic                          alloc_i,
  // outcome
  output logic [`HCA_XLATE_STATUS_W-1:0] status_o,
  output logic                          walk_o,  // translate through the MTT
  output logic                          klm_o,   // walk the MR's KLM entries (rule 7)
  output logic [63:0]                   pa_o,    // the single beat when !walk_o
  output logic [`HCA_XU_LEN_BITS-1:0]   len_o    // ... and its length; the request length when walk_o
);

  localparam int IDX_BITS = `HCA_KEY_BITS - `HCA_KEY_INDEX_SHIFT;
  localparam logic [IDX_BITS:0] MPT_LIMIT = (IDX_BITS + 1)'(MPT_ENTRIES);
  localparam logic [`HCA_ACCESS_W-1:0] LOCAL_RIGHTS =
      `HCA_ACCESS_W'(1 << `HCA_ACCESS_LOCAL_WRITE_BIT);
  localparam logic [`HCA_ACCESS_W-1:0] REMOTE_RIGHTS =
      `HCA_ACCESS_W'((1 << `HCA_ACCESS_REMOTE_READ_BIT) |
                     (1 << `HCA_ACCESS_REMOTE_WRITE_BIT) |
                     (1 << `HCA_ACCESS_REMOTE_ATOMIC_BIT));

  // Entry fields.
  logic [`HCA_MPT_ENTRY_KEY_W-1:0]        e_key;
  logic [`HCA_MPT_ENTRY_PD_W-1:0]         e_pd;
  logic [`HCA_MPT_ENTRY_STATE_W-1:0]      e_state;
  logic [`HCA_MPT_ENTRY_KIND_W-1:0]       e_kind;
  logic [`HCA_MPT_ENTRY_MODE_W-1:0]       e_mode;
  logic [`HCA_MPT_ENTRY_ACCESS_W-1:0]     e_access;
  logic [`HCA_MPT_ENTRY_PAGE_SHIFT_W-1:0] e_page_shift;
  logic [`HCA_MPT_ENTRY_IOVA_W-1:0]       e_iova;
  logic [`HCA_MPT_ENTRY_LENGTH_W-1:0]     e_length;
  assign e_key        = `HCA_MPT_ENTRY_KEY(entry_i);
  assign e_pd         = `HCA_MPT_ENTRY_PD(entry_i);
  assign e_state      = `HCA_MPT_ENTRY_STATE(entry_i);
  assign e_kind       = `HCA_MPT_ENTRY_KIND(entry_i);
  assign e_mode       = `HCA_MPT_ENTRY_MODE(entry_i);
  assign e_access     = `HCA_MPT_ENTRY_ACCESS(entry_i);
  assign e_page_shift = `HCA_MPT_ENTRY_PAGE_SHIFT(entry_i);
  assign e_iova       = `HCA_MPT_ENTRY_IOVA(entry_i);
  assign e_length     = `HCA_MPT_ENTRY_LENGTH(entry_i);

  // Entry bits this check does not look at: the walker takes mtt_base and
  // mtt_count; alloc comes from the vector; peer, reserved and the upper PD
  // bits carry no meaning here.
  logic unused_entry;
  assign unused_entry = ^{`HCA_MPT_ENTRY_FLAGS(entry_i), `HCA_MPT_ENTRY_MTT_BASE(entry_i),
                          `HCA_MPT_ENTRY_MTT_COUNT(entry_i), `HCA_MPT_ENTRY_RESERVED(entry_i),
                          e_pd[`HCA_MPT_ENTRY_PD_W-1:`HCA_PD_BITS]};

  logic [IDX_BITS-1:0] index;
  logic                reserved_key, is_dma;
  logic [64:0]         va_end;        // va + len, 65 bits: the range may end exactly at 2^64
  logic                past_2_64;     // va + len > 2^64
  logic [63:0]         len64, va_off, room;
  logic                in_mr;         // rule 6 for MRs with a range
  logic                slot_bad, key_bad, pd_bad, rights_bad, ps_bad;

  assign index        = key_i[`HCA_KEY_BITS-1:`HCA_KEY_INDEX_SHIFT];
  assign reserved_key = key_i == `HCA_KEY_BITS'(`HCA_RESERVED_LKEY);
  assign is_dma       = e_kind == `HCA_MKEY_KIND_DMA;
  assign len64        = {32'd0, len_i};
  assign va_end       = {1'b0, va_i} + {1'b0, len64};
  assign past_2_64    = va_end[64] && (va_end[63:0] != 64'd0);

  // Rule 6 exactly as SEMANTICS.md writes it, so no term can overflow:
  // va >= iova, len <= length, va - iova <= length - len.
  assign va_off = va_i - e_iova;
  assign room   = e_length - len64;
  assign in_mr  = (va_i >= e_iova) && (len64 <= e_length) && (va_off <= room);

  // Rule 1: index 0 is never an MR; beyond the table counts as unallocated.
  assign slot_bad   = (index == '0) || ({1'b0, index} >= MPT_LIMIT) || !alloc_i;
  // Rule 2: a remote access needs an R_Key, which DMA MRs and MRs without a
  // remote right do not have.
  assign key_bad    = (e_key != key_i) ||
                      (remote_i && (is_dma || ((e_access & REMOTE_RIGHTS) == '0)));
`ifndef HCA_MUTANT_KEYCHECK_NO_PD
  assign pd_bad     = e_pd[`HCA_PD_BITS-1:0] != pd_i;
`else
  // Mutant (make formal only): rule 4 forgotten; the grant property must fail.
  assign pd_bad     = 1'b0 && (e_pd[`HCA_PD_BITS-1:0] != pd_i);
`endif
  assign rights_bad = (rights_i & ~e_access) != '0;
  assign ps_bad     = (e_page_shift < 5'(`HCA_PAGE_SHIFT_MIN)) ||
                      (e_page_shift > 5'(`HCA_PAGE_SHIFT_MAX));

  always_comb begin
    status_o = `HCA_XLATE_STATUS_OK;
    walk_o   = 1'b0;
    klm_o    = 1'b0;
    pa_o     = 64'd0;
    len_o    = '0;

    if (reserved_key) begin
      // The reserved L_Key: no MPT access, every PD, local rights only.
      if (remote_i) begin
        status_o = `HCA_XLATE_STATUS_ERR_KEY;
      end else if ((rights_i & ~LOCAL_RIGHTS) != '0) begin
        status_o = `HCA_XLATE_STATUS_ERR_RIGHTS;
      end else if (past_2_64) begin
        status_o = `HCA_XLATE_STATUS_ERR_BOUNDS;
      end
    end else if (slot_bad) begin
      status_o = `HCA_XLATE_STATUS_ERR_SLOT;
    end else if (key_bad) begin
      status_o = `HCA_XLATE_STATUS_ERR_KEY;
    end else if (e_state != `HCA_MKEY_STATE_VALID) begin
      status_o = `HCA_XLATE_STATUS_ERR_STATE;
    end else if (pd_bad) begin
      status_o = `HCA_XLATE_STATUS_ERR_PD;
    end else if (rights_bad) begin
      status_o = `HCA_XLATE_STATUS_ERR_RIGHTS;
    end else if (is_dma ? past_2_64 : !in_mr) begin
      status_o = `HCA_XLATE_STATUS_ERR_BOUNDS;
    end else if (e_mode == `HCA_MKEY_MODE_KLM && is_dma) begin
      // A DMA MR has no range to map onto a KLM list: a pair this unit
      // does not serve.
      status_o = `HCA_XLATE_STATUS_ERR_MODE;
    end else if (len_i != '0 && !is_dma && e_mode != `HCA_MKEY_MODE_KLM && ps_bad) begin
      // Only a translation needs the page size: zero-length and DMA accesses
      // pass whatever it holds.
      status_o = `HCA_XLATE_STATUS_ERR_MTT;
    end

    // A passing access: zero length is one empty beat (pa 0); the reserved
    // L_Key and DMA MRs are untranslated (one beat, pa = va); anything else
    // is walked page by page, or entry by entry in KLM mode.
    if (status_o == `HCA_XLATE_STATUS_OK && len_i != '0) begin
      if (reserved_key || is_dma) begin
        pa_o  = va_i;
        len_o = len_i;
      end else if (e_mode == `HCA_MKEY_MODE_KLM) begin
        klm_o = 1'b1;
        len_o = len_i;
      end else begin
        walk_o = 1'b1;
        len_o  = len_i;
      end
    end
  end

endmodule
