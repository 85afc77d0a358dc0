`default_nettype none
`include "hca_abi.svh"

// xu_key_check_props — the key-check grant property, proven for every input
// (the checker is combinational, so one step covers all of them: `make
// formal`). SEMANTICS.md "The key check", rules 1-6, are written here a
// second time, independently of xu_key_check and the way the spec reads:
// in particular rule 6 in 66-bit integers (va >= iova and va + len <=
// iova + length) where the RTL uses the overflow-free subtraction form.
//
//   grant_only_if_rules  status OK  =>  every rule held
//   grant_if_rules       every rule held, and the unit serves the MR (not a
//                        DMA MR in KLM mode; a translated access has a page
//                        shift in [PAGE_SHIFT_MIN, PAGE_SHIFT_MAX])  =>  OK
//   outcome_shape        walk/klm only on OK with len > 0 and never both;
//                        klm only for a KLM-mode MR that is neither the
//                        reserved L_Key nor a DMA MR; an untranslated beat
//                        is pa = va, len = the request's
//
// Rule 7 (KLM) reuses this check per entry piece (xu_klm sends each piece
// back through it as a local access in the same PD); that composition is
// not proven here.
module xu_key_check_props #(
  parameter int MPT_ENTRIES = 4
) (
  input  logic [`HCA_ACCESS_W-1:0]      rights_i,
  input  logic                          remote_i,
  input  logic [`HCA_KEY_BITS-1:0]      key_i,
  input  logic [`HCA_PD_BITS-1:0]       pd_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]   len_i,
  input  logic [63:0]                   va_i,
  input  logic [`HCA_MPT_ENTRY_W-1:0]   entry_i,
  input  logic                          alloc_i
);

  logic [`HCA_XLATE_STATUS_W-1:0] status;
  logic                           walk, klm;
  logic [63:0]                    pa;
  logic [`HCA_XU_LEN_BITS-1:0]    len;

  xu_key_check #(.MPT_ENTRIES(MPT_ENTRIES)) dut (
    .rights_i, .remote_i, .key_i, .pd_i, .len_i, .va_i, .entry_i, .alloc_i,
    .status_o(status), .walk_o(walk), .klm_o(klm), .pa_o(pa), .len_o(len)
  );

  // The entry, field by field (the ABI's accessors).
  wire [31:0] e_key   = 32'(`HCA_MPT_ENTRY_KEY(entry_i));
  wire [31:0] e_pd    = 32'(`HCA_MPT_ENTRY_PD(entry_i));
  wire        e_valid = `HCA_MPT_ENTRY_STATE(entry_i) == `HCA_MKEY_STATE_VALID;
  wire        e_dma   = `HCA_MPT_ENTRY_KIND(entry_i) == `HCA_MKEY_KIND_DMA;
  wire        e_klm   = `HCA_MPT_ENTRY_MODE(entry_i) == `HCA_MKEY_MODE_KLM;
  wire [3:0]  e_acc   = 4'(`HCA_MPT_ENTRY_ACCESS(entry_i));
  wire [65:0] e_iova  = 66'(`HCA_MPT_ENTRY_IOVA(entry_i));
  wire [65:0] e_len   = 66'(`HCA_MPT_ENTRY_LENGTH(entry_i));
  wire [4:0]  e_ps    = 5'(`HCA_MPT_ENTRY_PAGE_SHIFT(entry_i));

  wire [65:0] va   = 66'(va_i);
  wire [65:0] n    = 66'(len_i);
  wire        fits_2_64 = va + n <= 66'h1_0000_0000_0000_0000;
  localparam logic [3:0] LOCAL_WRITE = 1 << `HCA_ACCESS_LOCAL_WRITE_BIT;
  localparam logic [3:0] REMOTE_RIGHTS = (1 << `HCA_ACCESS_REMOTE_READ_BIT) | (1 << `HCA_ACCESS_REMOTE_WRITE_BIT) |
                                         (1 << `HCA_ACCESS_REMOTE_ATOMIC_BIT);
  wire [31:0] index = key_i >> `HCA_KEY_INDEX_SHIFT;

  // Rules 1-6 as SEMANTICS.md states them.
  wire reserved = key_i == 32'(`HCA_RESERVED_LKEY);
  wire r1 = index != 0 && index < MPT_ENTRIES && alloc_i;
  wire r2 = e_key == key_i && (!remote_i || (!e_dma && (e_acc & REMOTE_RIGHTS) != 0));
  wire r3 = e_valid;
  wire r4 = e_pd[`HCA_PD_BITS-1:0] == pd_i;
  wire r5 = (rights_i & ~e_acc) == 0;
  wire r6 = e_dma ? fits_2_64 : (va >= e_iova && va + n <= e_iova + e_len);
  // The reserved L_Key: no R_Key, every PD, LOCAL_WRITE at most.
  wire reserved_ok = !remote_i && (rights_i & ~LOCAL_WRITE) == 0 && fits_2_64;
  wire rules = reserved ? reserved_ok : (r1 && r2 && r3 && r4 && r5 && r6);

  wire translated = !reserved && !e_dma && !e_klm && len_i != 0;
  wire served = reserved || !(e_dma && e_klm) &&
                (!translated || (e_ps >= 5'(`HCA_PAGE_SHIFT_MIN) && e_ps <= 5'(`HCA_PAGE_SHIFT_MAX)));
  wire ok = status == `HCA_XLATE_STATUS_OK;

  always_comb begin
    grant_only_if_rules: assert (!ok || rules);
    grant_if_rules:      assert (!(rules && served) || ok);
    outcome_walk:        assert (!walk || (ok && len_i != 0 && !klm && translated && len == len_i));
    outcome_klm:         assert (!klm || (ok && len_i != 0 && e_klm && !reserved && !e_dma && len == len_i));
    outcome_untranslated: assert (!(ok && len_i != 0 && (reserved || e_dma)) || (!walk && !klm && pa == va_i && len == len_i));
  end

endmodule
