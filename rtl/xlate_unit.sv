`default_nettype none
`include "hca_abi.svh"

// xlate_unit — the translation unit: key check (SEMANTICS.md "The key
// check"), MPT and MTT, page-split translation, and the firmware port that
// writes the tables. Ports map one to one onto xu_pins_t (sim/xu_engine.h).
//
// Pipeline of one request whose handshake is in cycle c (uncontended):
//   c    handshake; the MPT entry at the key's index and its alloc bit are
//        read (synchronous RAM, registered at the edge ending c).
//   c+1  S1: xu_key_check runs the rules on the registered entry; the outcome
//        loads the walker at the edge ending c+1. If the walker is still busy
//        S1 holds, req_ready_o is 0 and the RAM output holds with it (its read
//        enable is the handshake), so the request keeps the entry it was
//        accepted with.
//   c+2  S2: xu_walker issues the first beat, only when the output buffer has
//        room for it (credits: FIFO level + S3 < FIFO depth). A page walk
//        checks the page against the MR's page count and the MTT size and
//        reads MTT[mtt_base + page]; later pages issue one per cycle.
//   c+3  S3: the beat is completed from the MTT entry (pa = pfn << 12 +
//        offset; an absent entry makes it the request's last beat, ERR_MTT,
//        and aborts the walk) and written into the output FIFO.
//   c+4  the beat is at the FIFO head: rsp_valid_o. Beats leave straight
//        from registers and hold until rsp_ready_i.
// Single-beat requests flow at one per cycle with rsp_ready_i high: the
// walker loads a request in the cycle it issues the previous one's last beat,
// and the 4-deep FIFO covers the two-cycle credit loop. No output depends
// combinationally on an input.
//
// KLM (indirect) MRs, SEMANTICS.md rule 7 (xu_klm): an access that passes
// rules 1-6 on a KLM-mode MR leaves S1 for the KLM walker instead of the page
// walker, and req_ready_o stays low from then until the walk's last beat has
// passed S3 (the unit answers in order; other traffic is untouched: with no
// KLM access the timing above holds exactly). The KLM walker reads the list
// through the MTT's list port (u_mtt port C: a whole entry, both words, per
// read; the page walker keeps port A) and sends each piece (an entry's part
// of the range) back into S1 through the MPT read port, where the key check
// judges it with the entry's lkey as a local access in the same PD,
// LOCAL_WRITE when the access writes; the piece then walks like any request
// (one beat per page of the entry's MR, or one untranslated beat), or is a
// KLM MR itself and starts the next level (max_indirection levels, fwp
// CONFIG; deeper is one ERR_DEPTH beat). Beats carry the request's tag,
// last = 1 only on the final beat, and a failing piece ends the request with
// its error beat after the OK beats already issued (pieces already sent
// behind it are dropped when that beat leaves S3).
// Cost, uncontended, in cycles (XuKlm.LatencyAndCost checks it):
//   first beat      c + 4 + 2 x L + S   (L: levels of indirect MRs walked to
//                   reach the first entry, S: entries skipped by the scan to
//                   find the one holding the first byte, one per cycle)
//                   per level: the level's first entry is read in the cycle
//                   its MR passes the check in S1, the piece's MPT lookup;
//   then            one segment per cycle, within and across entries: as a
//                   piece is sent the level's next entry is read, and its
//                   piece follows in the next cycle S1 can take one (S1 empty
//                   or its piece leaving for the page walker);
//   level entered   2 cycles mid-walk (the outer entry's piece in S1, the
//                   inner list's first read); a level left costs none (the
//                   parent's next entry is read as the level's last piece is
//                   sent);
//   next request    accepted in the cycle after the walk's last beat leaves S3.
//
// Table writes from the firmware port use the RAMs' second port; a request
// accepted in the cycle of a write reads the old entry (see xu_fw_port for
// INVALIDATE and FENCE, which count such requests).
module xlate_unit #(
  parameter int MPT_ENTRIES = `HCA_MPT_ENTRIES_DEFAULT,
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,

  // request: one key-checked access
  input  logic                           req_valid_i,
  output logic                           req_ready_o,
  input  logic [`HCA_XU_TAG_BITS-1:0]    req_tag_i,
  input  logic [`HCA_ACCESS_W-1:0]       req_rights_i,
  input  logic                           req_remote_i,
  input  logic [`HCA_KEY_BITS-1:0]       req_key_i,
  input  logic [`HCA_PD_BITS-1:0]        req_pd_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]    req_len_i,
  input  logic [63:0]                    req_va_i,

  // response: one beat per physical segment
  output logic                           rsp_valid_o,
  input  logic                           rsp_ready_i,
  output logic [`HCA_XU_TAG_BITS-1:0]    rsp_tag_o,
  output logic [`HCA_XLATE_STATUS_W-1:0] rsp_status_o,
  output logic                           rsp_last_o,
  output logic [`HCA_XU_LEN_BITS-1:0]    rsp_len_o,
  output logic [63:0]                    rsp_pa_o,

  // firmware port: register block fwp
  input  logic                           fw_valid_i,
  output logic                           fw_ready_o,
  input  logic                           fw_write_i,
  input  logic [15:0]                    fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  output logic                           fw_rvalid_o,
  output logic [31:0]                    fw_rdata_o,
  output logic                           fence_wait_o,  // a fence waits for in-flight requests (xu_fw_port)
  // evt POP: the popped event for fwp FAST_REG's registration bank (xu_fw_port)
  input  logic                           evt_pop_i,
  input  logic [`HCA_EVT_POP_SLOT_W-1:0] evt_pop_slot_i,
  input  logic [`HCA_FW_EVENT_W-1:0]     evt_pop_evt_i,  // the queue's head, POP or not
  // the head's invalidation verdict (hca_evt hdr.inv_ok), for the head of the cycle before
  output logic                           inv_ok_o,
  output logic                           quiet_o        // nothing changes while the inputs stay idle (hca_core)
);

  // Address widths of at least one bit, so that a bad size still elaborates
  // as far as the check below that names it.
  localparam int MPT_AW     = $clog2(MPT_ENTRIES > 1 ? MPT_ENTRIES : 2);
  localparam int MTT_AW     = $clog2(MTT_ENTRIES > 1 ? MTT_ENTRIES : 2);
  localparam int TAG_W      = `HCA_XU_TAG_BITS;
  localparam int ST_W       = `HCA_XLATE_STATUS_W;
  localparam int LEN_W      = `HCA_XU_LEN_BITS;
  localparam int FIFO_DEPTH = 4;
  localparam int LVL_W      = $clog2(FIFO_DEPTH + 1);
  localparam int BEAT_W     = TAG_W + ST_W + 1 + LEN_W + 64;

  // ---------------------------------------------------------------- parameters
  localparam int MAX_ENTRIES = 1 << `HCA_TABLE_INDEX_BITS;
  localparam bit MPT_BAD = MPT_ENTRIES < 2 || MPT_ENTRIES > MAX_ENTRIES ||
                           (MPT_ENTRIES & (MPT_ENTRIES - 1)) != 0;
  localparam bit MTT_BAD = MTT_ENTRIES < 2 || MTT_ENTRIES > MAX_ENTRIES ||
                           (MTT_ENTRIES & (MTT_ENTRIES - 1)) != 0;

  generate if (MPT_BAD) begin : g_bad_mpt
`ifdef __ICARUS__
    initial $fatal(1, "xlate_unit: MPT_ENTRIES=%0d must be a power of two in [2, 2^24]", MPT_ENTRIES);
`else
    $error("xlate_unit: MPT_ENTRIES must be a power of two in [2, 2^24]");
`endif
  end endgenerate

  generate if (MTT_BAD) begin : g_bad_mtt
`ifdef __ICARUS__
    initial $fatal(1, "xlate_unit: MTT_ENTRIES=%0d must be a power of two in [2, 2^24]", MTT_ENTRIES);
`else
    $error("xlate_unit: MTT_ENTRIES must be a power of two in [2, 2^24]");
`endif
  end endgenerate

  // ---------------------------------------------------------------- c: accept, MPT read
  // S1 takes an external request (req_fire) or a piece of a KLM walk
  // (klm_sub_fire, only while S1 is empty and no external request can come).
  localparam int LVLS  = `HCA_MAX_INDIRECTION;
  localparam int KLV_W = $clog2(LVLS + 1);

  logic req_fire;
  logic wk_ld_ready;
  logic s1_valid_q;
  logic s1_klm, s1_deep, s1_push, s1_leave;

  logic                      klm_walk_end;  // S3: the KLM walk's last beat
  logic                      klm_busy, klm_sub_valid, klm_sub_fire, klm_sub_err, klm_sub_final;
  logic [`HCA_KEY_BITS-1:0]  klm_sub_key;
  logic [63:0]               klm_sub_va;
  logic [LEN_W-1:0]          klm_sub_len;
  logic [KLV_W-1:0]          klm_sub_lvl;
  logic [TAG_W-1:0]          klm_sub_tag;
  logic [`HCA_ACCESS_W-1:0]  klm_sub_rights;
  logic [`HCA_PD_BITS-1:0]   klm_sub_pd;

  // While a KLM walk runs, or S1 holds an access that starts one, external
  // requests wait: the walk's pieces use S1 and the unit answers in order.
  // Other traffic is untouched (klm_busy = s1_klm = 0).
  // (HCA_MUTANT_S1_NO_STALL: formal mutant, rtl/formal/xlate_unit_props.sv ld_held)
  assign req_ready_o  = !klm_busy && !s1_klm `ifndef HCA_MUTANT_S1_NO_STALL && (!s1_valid_q || wk_ld_ready) `endif;
  assign req_fire     = req_valid_i && req_ready_o;
  // A piece enters S1 when S1 is empty or its piece leaves for the page
  // walker this cycle (not a push: that starts a level), never in the cycle
  // the walk ends (klm_walk_end: what is behind its last beat is dropped).
  logic klm_s1_free;
  assign klm_s1_free  = (!s1_valid_q || (wk_ld_ready && !s1_push)) && !klm_walk_end;
  assign klm_sub_fire = klm_sub_valid && klm_s1_free;

  logic [`HCA_MPT_ENTRY_W-1:0] mpt_a_rdata;
  logic                        mpt_a_alloc;
  logic [MPT_AW-1:0]           mpt_a_addr;
  assign mpt_a_addr = klm_sub_fire ? klm_sub_key[`HCA_KEY_INDEX_SHIFT +: MPT_AW]
                                   : req_key_i[`HCA_KEY_INDEX_SHIFT +: MPT_AW];

  logic                        fwp_mpt_re, fwp_mpt_we, fwp_mpt_vwe, fwp_mpt_wvalid, fwp_mpt_rvalid;
  logic [MPT_AW-1:0]           fwp_mpt_addr;
  logic [`HCA_MPT_ENTRY_W-1:0] fwp_mpt_wdata, fwp_mpt_rdata;

  // The MPT has no list port (port C).
  logic [2*`HCA_MPT_ENTRY_W-1:0] mpt_c_rdata;

  // Port D: the event queue's head's entry, read every cycle (the verdict below).
  logic [`HCA_MPT_ENTRY_W-1:0] mpt_d_rdata;
  logic                        mpt_d_alloc;

  xu_table #(
    .DEPTH  (MPT_ENTRIES),
    .WIDTH  (`HCA_MPT_ENTRY_W),
    .D_PORT (1'b1)
  ) u_mpt (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .a_re_i     (req_fire || klm_sub_fire),
    .a_addr_i   (mpt_a_addr),
    .a_rdata_o  (mpt_a_rdata),
    .a_rvalid_o (mpt_a_alloc),
    .b_re_i     (fwp_mpt_re),
    .b_we_i     (fwp_mpt_we),
    .b_vwe_i    (fwp_mpt_vwe),
    .b_addr_i   (fwp_mpt_addr),
    .b_wdata_i  (fwp_mpt_wdata),
    .b_wvalid_i (fwp_mpt_wvalid),
    .b_rdata_o  (fwp_mpt_rdata),
    .b_rvalid_o (fwp_mpt_rvalid),
    .c_re_i     (1'b0),
    .c_addr_i   (MPT_AW'(0)),
    .c_rdata_o  (mpt_c_rdata),
    .d_re_i     (1'b1),
    .d_addr_i   (evt_pop_evt_i[`HCA_FW_EVENT_KEY_LSB + `HCA_KEY_INDEX_SHIFT +: MPT_AW]),
    .d_rdata_o  (mpt_d_rdata),
    .d_rvalid_o (mpt_d_alloc)
  );

  // hdr.inv_ok (abi fw_event): the MR-state rules of an invalidation of the
  // head's key against the entry port D read with it, a cycle later — the
  // cycle hca_evt answers a DATA read of that head. The key and pd are
  // registered with the read; the entry is as it was before any table write
  // of that edge (read-old), as the firmware's decision would see it.
  logic [31:0] inv_key_q, inv_pd_q;
  always_ff @(posedge clk_i) begin
    inv_key_q <= evt_pop_evt_i[`HCA_FW_EVENT_KEY_LSB +: 32];
    inv_pd_q  <= evt_pop_evt_i[`HCA_FW_EVENT_PD_LSB +: 32];
  end
  logic [1:0] inv_kind;
  assign inv_kind = mpt_d_rdata[`HCA_MPT_ENTRY_KIND_LSB +: 2];
  assign inv_ok_o = mpt_d_alloc
                 && 32'(inv_key_q >> `HCA_KEY_INDEX_SHIFT) != 32'd0
                 && 32'(inv_key_q >> `HCA_KEY_INDEX_SHIFT) < 32'(MPT_ENTRIES)
                 && (inv_kind == 2'(`HCA_MKEY_KIND_FAST_REG) || inv_kind == 2'(`HCA_MKEY_KIND_INDIRECT))
                 && mpt_d_rdata[`HCA_MPT_ENTRY_KEY_LSB +: 32] == inv_key_q
                 && mpt_d_rdata[`HCA_MPT_ENTRY_PD_LSB +: 32] == inv_pd_q;

  logic unused_mpt_c;
  assign unused_mpt_c = ^{mpt_c_rdata, mpt_d_rdata[`HCA_MPT_ENTRY_W-1:`HCA_MPT_ENTRY_PD_LSB+32],
                          mpt_d_rdata[`HCA_MPT_ENTRY_KEY_LSB-1:`HCA_MPT_ENTRY_KIND_LSB+2],
                          mpt_d_rdata[`HCA_MPT_ENTRY_KIND_LSB-1:0]};

  // ---------------------------------------------------------------- c+1: S1, key check
  logic [TAG_W-1:0]          s1_tag_q;
  logic [`HCA_ACCESS_W-1:0]  s1_rights_q;
  logic                      s1_remote_q;
  logic [`HCA_KEY_BITS-1:0]  s1_key_q;
  logic [`HCA_PD_BITS-1:0]   s1_pd_q;
  logic [LEN_W-1:0]          s1_len_q;
  logic [63:0]               s1_va_q;
  logic                      s1_sub_q;    // a piece of a KLM walk
  logic                      s1_err_q;    // ... that is the walk's ERR_MTT beat, no check
  logic                      s1_final_q;  // its last beat ends the outer request
  logic [KLV_W-1:0]          s1_lvl_q;    // level of the MR it came from (0: external)

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= req_fire || klm_sub_fire || (s1_valid_q && !s1_leave && !klm_walk_end);
    end
  end

  always_ff @(posedge clk_i) begin
    if (req_fire) begin
      s1_tag_q    <= req_tag_i;
      s1_rights_q <= req_rights_i;
      s1_remote_q <= req_remote_i;
      s1_key_q    <= req_key_i;
      s1_pd_q     <= req_pd_i;
      s1_len_q    <= req_len_i;
      s1_va_q     <= req_va_i;
      s1_sub_q    <= 1'b0;
      s1_err_q    <= 1'b0;
      s1_final_q  <= 1'b1;
      s1_lvl_q    <= '0;
    end else if (klm_sub_fire) begin
      s1_tag_q    <= klm_sub_tag;
      s1_rights_q <= klm_sub_rights;
      s1_remote_q <= 1'b0;
      s1_key_q    <= klm_sub_key;
      s1_pd_q     <= klm_sub_pd;
      s1_len_q    <= klm_sub_len;
      s1_va_q     <= klm_sub_va;
      s1_sub_q    <= 1'b1;
      s1_err_q    <= klm_sub_err;
      s1_final_q  <= klm_sub_final;
      s1_lvl_q    <= klm_sub_lvl;
    end
  end

  logic [ST_W-1:0]  kc_status;
  logic             kc_walk, kc_klm;
  logic [63:0]      kc_pa;
  logic [LEN_W-1:0] kc_len;

  // The entry the check sees: the table's, except in the mutants (build/mutants/
  // only, docs/mutation.md). HCA_MUTANT_KLM_NO_ENTRY_CHECK: a KLM piece's
  // entry is made to pass rules 2-5 (key, state, PD, rights), the walker not
  // checking its entries. HCA_MUTANT_RESP_NO_RECHECK / _REQ_NO_RECHECK: the
  // last external remote (the responder's packets) or local (the requester's
  // chunks) key that passed is seen VALID ever after, invalidated or not, as a
  // client that checked a key on its first packet and not again would.
  logic [`HCA_MPT_ENTRY_W-1:0] kc_entry;
`ifdef HCA_MUTANT_KLM_NO_ENTRY_CHECK
  always_comb begin
    kc_entry = mpt_a_rdata;
    if (s1_sub_q) begin
      kc_entry[`HCA_MPT_ENTRY_KEY_LSB +: `HCA_MPT_ENTRY_KEY_W]       = s1_key_q;
      kc_entry[`HCA_MPT_ENTRY_STATE_LSB +: `HCA_MPT_ENTRY_STATE_W]   = `HCA_MKEY_STATE_VALID;
      kc_entry[`HCA_MPT_ENTRY_PD_LSB +: `HCA_PD_BITS]                = s1_pd_q;
      kc_entry[`HCA_MPT_ENTRY_ACCESS_LSB +: `HCA_MPT_ENTRY_ACCESS_W] = '1;
    end
  end
`elsif HCA_MUTANT_RESP_NO_RECHECK
  `define HCA_MUTANT_TRUST_REMOTE 1'b1
`elsif HCA_MUTANT_REQ_NO_RECHECK
  `define HCA_MUTANT_TRUST_REMOTE 1'b0
`else
  assign kc_entry = mpt_a_rdata;
`endif
`ifdef HCA_MUTANT_TRUST_REMOTE
  logic                     mut_trust_q;
  logic [`HCA_KEY_BITS-1:0] mut_key_q;
  logic                     mut_mine;
  assign mut_mine = s1_valid_q && !s1_sub_q && s1_remote_q == `HCA_MUTANT_TRUST_REMOTE;
  assign kc_entry = (mut_mine && mut_trust_q && s1_key_q == mut_key_q)
                  ? (mpt_a_rdata | (`HCA_MPT_ENTRY_W'(`HCA_MKEY_STATE_VALID) << `HCA_MPT_ENTRY_STATE_LSB))
                  : mpt_a_rdata;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mut_trust_q <= 1'b0;
      mut_key_q   <= '0;
    end else if (mut_mine && kc_status == `HCA_XLATE_STATUS_OK) begin
      mut_trust_q <= 1'b1;
      mut_key_q   <= s1_key_q;
    end
  end
`endif

  xu_key_check #(
    .MPT_ENTRIES (MPT_ENTRIES)
  ) u_key_check (
    .rights_i (s1_rights_q),
    .remote_i (s1_remote_q),
    .key_i    (s1_key_q),
    .pd_i     (s1_pd_q),
    .len_i    (s1_len_q),
    .va_i     (s1_va_q),
    .entry_i  (kc_entry),
    .alloc_i  (mpt_a_alloc),
    .status_o (kc_status),
    .walk_o   (kc_walk),
    .klm_o    (kc_klm),
    .pa_o     (kc_pa),
    .len_o    (kc_len)
  );

  // S1's outcome: an access to a KLM-mode MR starts a level of the KLM walk
  // (s1_push) unless it would be level max_indirection + 1 (ERR_DEPTH);
  // everything else loads the walker as one beat or a page walk.
  logic [2:0]       max_ind;
  logic [ST_W-1:0]  ld_status;
  logic             ld_walk;
  logic [63:0]      ld_pa;
  logic [LEN_W-1:0] ld_len;

  assign s1_klm   = s1_valid_q && !s1_err_q && kc_klm;
  assign s1_deep  = 32'(s1_lvl_q) >= 32'(max_ind);
  assign s1_push  = s1_klm && !s1_deep && !klm_walk_end;
  assign s1_leave = s1_push || wk_ld_ready;

  // (Continuous assignments, not an always_comb with defaults: Icarus
  // re-runs such a block on its glitches here and never settles.)
  logic ld_single;  // an error beat: the KLM walk's ERR_MTT, or ERR_DEPTH
  assign ld_single = s1_err_q || kc_klm;
  assign ld_status = s1_err_q ? ST_W'(`HCA_XLATE_STATUS_ERR_MTT) :
                     kc_klm   ? ST_W'(`HCA_XLATE_STATUS_ERR_DEPTH) : kc_status;
  assign ld_walk   = !ld_single && kc_walk;
  assign ld_pa     = ld_single ? 64'd0 : kc_pa;
  assign ld_len    = ld_single ? '0 : kc_len;

  // Every entry is checked as a local access: LOCAL_WRITE when the original
  // access writes memory, no right when it only reads (rule 7).
  localparam logic [`HCA_ACCESS_W-1:0] WRITES =
      `HCA_ACCESS_W'((1 << `HCA_ACCESS_LOCAL_WRITE_BIT) | (1 << `HCA_ACCESS_REMOTE_WRITE_BIT) |
                     (1 << `HCA_ACCESS_REMOTE_ATOMIC_BIT));
  logic [`HCA_ACCESS_W-1:0] entry_rights;
  assign entry_rights = ((s1_rights_q & WRITES) != '0) ?
                        `HCA_ACCESS_W'(1 << `HCA_ACCESS_LOCAL_WRITE_BIT) : '0;

  // ---------------------------------------------------------------- c+2: S2, walker
  logic              wk_iss_valid, wk_iss_ready, wk_iss_mtt, wk_iss_last, wk_iss_end, wk_iss_klm;
  logic [TAG_W-1:0]  wk_iss_tag;
  logic [ST_W-1:0]   wk_iss_status;
  logic [63:0]       wk_iss_pa;
  logic [LEN_W-1:0]  wk_iss_len;
  logic              wk_abort;
  logic              mtt_a_re, wk_mtt_re, wk_busy;
  logic [MTT_AW-1:0] mtt_a_addr, wk_mtt_addr;

  xu_walker #(
    .MTT_ENTRIES (MTT_ENTRIES)
  ) u_walker (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .ld_valid_i      (s1_valid_q && !s1_push && !klm_walk_end),
    .ld_ready_o      (wk_ld_ready),
    .ld_tag_i        (s1_tag_q),
    .ld_status_i     (ld_status),
    .ld_walk_i       (ld_walk),
    .ld_pa_i         (ld_pa),
    .ld_len_i        (ld_len),
    .ld_va_i         (s1_va_q),
    .ld_iova_i       (`HCA_MPT_ENTRY_IOVA(mpt_a_rdata)),
    .ld_page_shift_i (`HCA_MPT_ENTRY_PAGE_SHIFT(mpt_a_rdata)),
    .ld_mtt_base_i   (`HCA_MPT_ENTRY_MTT_BASE(mpt_a_rdata)),
    .ld_mtt_count_i  (`HCA_MPT_ENTRY_MTT_COUNT(mpt_a_rdata)),
    .ld_final_i      (s1_final_q),
    .ld_klm_i        (s1_sub_q),
    .iss_valid_o     (wk_iss_valid),
    .iss_ready_i     (wk_iss_ready),
    .iss_tag_o       (wk_iss_tag),
    .iss_status_o    (wk_iss_status),
    .iss_mtt_o       (wk_iss_mtt),
    .iss_pa_o        (wk_iss_pa),
    .iss_len_o       (wk_iss_len),
    .iss_last_o      (wk_iss_last),
    .iss_end_o       (wk_iss_end),
    .iss_klm_o       (wk_iss_klm),
    .abort_i         (wk_abort),
    .busy_o          (wk_busy),
    .mtt_re_o        (wk_mtt_re),
    .mtt_addr_o      (wk_mtt_addr)
  );

  // ---------------------------------------------------------------- KLM walker
  logic                          klm_lst_re;
  logic [MTT_AW-1:0]             klm_lst_addr;
  logic [2*`HCA_MTT_ENTRY_W-1:0] mtt_c_rdata;

  xu_klm #(
    .MTT_ENTRIES (MTT_ENTRIES),
    .MAX_LEVELS  (LVLS)
  ) u_klm (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .push_valid_i     (s1_push),
    .push_lvl_i       (s1_lvl_q),
    .push_mtt_base_i  (`HCA_MPT_ENTRY_MTT_BASE(mpt_a_rdata)),
    .push_mtt_count_i (`HCA_MPT_ENTRY_MTT_COUNT(mpt_a_rdata)),
    .push_off_i       (s1_va_q - `HCA_MPT_ENTRY_IOVA(mpt_a_rdata)),
    .push_len_i       (s1_len_q),
    .push_final_i     (s1_final_q),
    .push_tag_i       (s1_tag_q),
    .push_rights_i    (entry_rights),
    .push_pd_i        (s1_pd_q),
    .s1_free_i        (klm_s1_free),
    .walk_end_i       (klm_walk_end),
    .lst_re_o         (klm_lst_re),
    .lst_addr_o       (klm_lst_addr),
    .lst_rdata_i      (mtt_c_rdata),
    .sub_valid_o      (klm_sub_valid),
    .sub_err_o        (klm_sub_err),
    .sub_key_o        (klm_sub_key),
    .sub_va_o         (klm_sub_va),
    .sub_len_o        (klm_sub_len),
    .sub_final_o      (klm_sub_final),
    .sub_lvl_o        (klm_sub_lvl),
    .sub_tag_o        (klm_sub_tag),
    .sub_rights_o     (klm_sub_rights),
    .sub_pd_o         (klm_sub_pd),
    .busy_o           (klm_busy)
  );

  // MTT port A is the page walker's; the KLM walker reads its lists through
  // port C (the list port: a whole entry per read).
  assign mtt_a_re   = wk_mtt_re;
  assign mtt_a_addr = wk_mtt_addr;

  logic [`HCA_MTT_ENTRY_W-1:0] mtt_a_rdata;
  logic                        mtt_a_present;

  logic                        fwp_mtt_re, fwp_mtt_we, fwp_mtt_vwe, fwp_mtt_wvalid, fwp_mtt_rvalid;
  logic [MTT_AW-1:0]           fwp_mtt_addr;
  logic [`HCA_MTT_ENTRY_W-1:0] fwp_mtt_wdata, fwp_mtt_rdata;

  logic [`HCA_MTT_ENTRY_W-1:0] mtt_d_rdata;
  logic                        mtt_d_rvalid;
  xu_table #(
    .DEPTH     (MTT_ENTRIES),
    .WIDTH     (`HCA_MTT_ENTRY_W),
    .PAIR_PORT (1'b1)
  ) u_mtt (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .a_re_i     (mtt_a_re),
    .a_addr_i   (mtt_a_addr),
    .a_rdata_o  (mtt_a_rdata),
    .a_rvalid_o (mtt_a_present),
    .b_re_i     (fwp_mtt_re),
    .b_we_i     (fwp_mtt_we),
    .b_vwe_i    (fwp_mtt_vwe),
    .b_addr_i   (fwp_mtt_addr),
    .b_wdata_i  (fwp_mtt_wdata),
    .b_wvalid_i (fwp_mtt_wvalid),
    .b_rdata_o  (fwp_mtt_rdata),
    .b_rvalid_o (fwp_mtt_rvalid),
    .c_re_i     (klm_lst_re),
    .c_addr_i   (klm_lst_addr),
    .c_rdata_o  (mtt_c_rdata),
    .d_re_i     (1'b0),          // the MTT has no port D (D_PORT 0: zeros)
    .d_addr_i   (MTT_AW'(0)),
    .d_rdata_o  (mtt_d_rdata),
    .d_rvalid_o (mtt_d_rvalid)
  );
  logic unused_mtt_d;
  assign unused_mtt_d = ^{mtt_d_rdata, mtt_d_rvalid};

  // ---------------------------------------------------------------- c+3: S3, beat
  logic             s3_valid_q;
  logic [TAG_W-1:0] s3_tag_q;
  logic [ST_W-1:0]  s3_status_q;
  logic             s3_mtt_q, s3_last_q, s3_end_q, s3_klm_q;
  logic [63:0]      s3_pa_q;
  logic [LEN_W-1:0] s3_len_q;
  logic             wk_iss_fire;

  assign wk_iss_fire = wk_iss_valid && wk_iss_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s3_valid_q <= 1'b0;
    end else begin
      s3_valid_q <= wk_iss_fire;
    end
  end

  always_ff @(posedge clk_i) begin
    if (wk_iss_fire) begin
      s3_tag_q    <= wk_iss_tag;
      s3_status_q <= wk_iss_status;
      s3_mtt_q    <= wk_iss_mtt;
      s3_pa_q     <= wk_iss_pa;
      s3_len_q    <= wk_iss_len;
      s3_last_q   <= wk_iss_last;
      s3_end_q    <= wk_iss_end;
      s3_klm_q    <= wk_iss_klm;
    end
  end

  // The MTT entry's page address; the other bits (present: from the valid
  // vector; peer and reserved bits) play no part in the address.
  logic [63:0] mtt_page_pa;
  logic        unused_mtt;
  assign mtt_page_pa = {`HCA_MTT_ENTRY_PFN(mtt_a_rdata), `HCA_MTT_ENTRY_PFN_LSB'(0)};
  assign unused_mtt  = ^mtt_a_rdata[`HCA_MTT_ENTRY_PFN_LSB-1:0];

  logic             s3_absent;
  logic [ST_W-1:0]  beat_status;
  logic [63:0]      beat_pa;
  logic [LEN_W-1:0] beat_len;
  logic             beat_last;

  assign s3_absent = s3_mtt_q && !mtt_a_present;

  always_comb begin
    beat_status = s3_status_q;
    beat_pa     = s3_pa_q;
    beat_len    = s3_len_q;
    beat_last   = s3_last_q;
    if (s3_mtt_q) begin
      if (s3_absent) begin
        beat_status = `HCA_XLATE_STATUS_ERR_MTT;
        beat_pa     = 64'd0;
        beat_len    = '0;
        beat_last   = 1'b1;
      end else begin
        beat_pa     = mtt_page_pa + s3_pa_q;
      end
    end
  end

  // What the KLM walker learns from S3: the walk's last beat (OK or error).
  // Pieces sent after the one it ends (the walker sends the next entry's
  // piece while the current one streams) are dropped in this cycle: the
  // page walker's, S1's.
  assign klm_walk_end = s3_valid_q && s3_klm_q && beat_last;

  // An absent page ends its request here; the walker must not issue the next
  // page of it, nor, when the walk ends here, a piece behind it.
  assign wk_abort = (s3_valid_q && s3_absent && !s3_end_q) || klm_walk_end;

  // ---------------------------------------------------------------- c+4: output FIFO
  logic [LVL_W-1:0]  fifo_level;
  logic [BEAT_W-1:0] rsp_beat;

  // Credits: a beat may issue only if the FIFO will have room for it when it
  // leaves S3, whatever rsp_ready_i does meanwhile.
  assign wk_iss_ready = (fifo_level + LVL_W'(s3_valid_q)) < LVL_W'(FIFO_DEPTH);

  xu_fifo #(
    .WIDTH (BEAT_W),
    .DEPTH (FIFO_DEPTH)
  ) u_rsp_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (s3_valid_q),
    .in_data_i   ({s3_tag_q, beat_status, beat_last, beat_len, beat_pa}),
    .out_valid_o (rsp_valid_o),
    .out_ready_i (rsp_ready_i),
    .out_data_o  (rsp_beat),
    .level_o     (fifo_level)
  );

  assign {rsp_tag_o, rsp_status_o, rsp_last_o, rsp_len_o, rsp_pa_o} = rsp_beat;

  // ---------------------------------------------------------------- firmware port
  xu_fw_port #(
    .MPT_ENTRIES (MPT_ENTRIES),
    .MTT_ENTRIES (MTT_ENTRIES)
  ) u_fw_port (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .fw_valid_i   (fw_valid_i),
    .fw_ready_o   (fw_ready_o),
    .fw_write_i   (fw_write_i),
    .fw_addr_i    (fw_addr_i),
    .fw_wdata_i   (fw_wdata_i),
    .fw_rvalid_o  (fw_rvalid_o),
    .fw_rdata_o   (fw_rdata_o),
    .fence_wait_o (fence_wait_o),
    .evt_pop_i    (evt_pop_i),
    .evt_pop_slot_i (evt_pop_slot_i),
    .evt_pop_evt_i  (evt_pop_evt_i),
    .req_accept_i (req_fire),
    .req_done_i   (rsp_valid_o && rsp_ready_i && rsp_last_o),
    .max_ind_o    (max_ind),
    .mpt_re_o     (fwp_mpt_re),
    .mpt_we_o     (fwp_mpt_we),
    .mpt_vwe_o    (fwp_mpt_vwe),
    .mpt_addr_o   (fwp_mpt_addr),
    .mpt_wdata_o  (fwp_mpt_wdata),
    .mpt_wvalid_o (fwp_mpt_wvalid),
    .mpt_rdata_i  (fwp_mpt_rdata),
    .mpt_rvalid_i (fwp_mpt_rvalid),
    .mtt_re_o     (fwp_mtt_re),
    .mtt_we_o     (fwp_mtt_we),
    .mtt_vwe_o    (fwp_mtt_vwe),
    .mtt_addr_o   (fwp_mtt_addr),
    .mtt_wdata_o  (fwp_mtt_wdata),
    .mtt_wvalid_o (fwp_mtt_wvalid),
    .mtt_rdata_i  (fwp_mtt_rdata),
    .mtt_rvalid_i (fwp_mtt_rvalid),
    .quiet_o      (fwp_quiet)
  );

  // The twin of xlate_unit_quiet_until: no request in S1, the walkers or S3,
  // no beat queued, the firmware port idle.
  logic fwp_quiet;
  assign quiet_o = !s1_valid_q && !wk_busy && !klm_busy && !s3_valid_q && fifo_level == '0 && fwp_quiet;

endmodule
