`default_nettype none
`include "hca_abi.svh"

// hca_evt — the engine -> firmware memory-management event queue
// (docs/engine.md "Memory-management events"; regs evt of the ABI).
//
// Producers (0 requester, 1 responder) post whole fw_events, valid/ready,
// round-robin (hca_arb); a producer waits while the queue is full. The
// firmware reads the head through EVT_DATA, drops it with POP, and answers
// the operation with DONE {status, tag}: DONE is broadcast for one cycle to
// both producers, each keeps the tags it is waiting for (the requester the
// QP number, the responder EVT_TAG_RESPONDER | QP number). The queue never
// looks at DONE: events leave it on POP, so a slow operation does not hold a
// slot.
//
// Firmware port (fw_addr_i = offset inside the block, always ready): every
// access is answered one cycle later; DATA reads 0 while the queue is empty;
// reads of POP/DONE and beyond the block read 0; writes elsewhere are
// ignored. An invalidation's word 0 is answered with hdr.inv_ok = inv_ok_i,
// the translation unit's verdict on the head of the access's cycle (its MPT
// entry read then, so it arrives with the answer). irq_o: an event is pending (the device ORs it into the firmware
// core's interrupt line).
module hca_evt #(
  parameter int DEPTH = `HCA_EVT_QUEUE_DEPTH
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,

  // producers: input i at [i*HCA_FW_EVENT_W +: HCA_FW_EVENT_W]
  input  logic [1:0]                     evt_valid_i,
  output logic [1:0]                     evt_ready_o,
  input  logic [2*`HCA_FW_EVENT_W-1:0]   evt_i,

  // firmware register block
  input  logic                           fw_valid_i,
  input  logic                           fw_write_i,
  input  logic [5:0]                     fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  output logic                           fw_rvalid_o,
  output logic [31:0]                    fw_rdata_o,

  // DONE, to every producer for one cycle
  output logic                           done_valid_o,
  output logic [`HCA_EVT_DONE_TAG_W-1:0]  done_tag_o,
  output logic [7:0]                     done_status_o,

  output logic                           irq_o,
  // the head event (what DATA reads), for fwp's registration bank at POP
  output logic [`HCA_FW_EVENT_W-1:0]     head_o,
  // xlate_unit's verdict on the head of the cycle before (hdr.inv_ok)
  input  logic                           inv_ok_i,
  output logic                          quiet_o          // nothing changes while the inputs stay idle (hca_core quiet_o)
);

  localparam int EW = `HCA_FW_EVENT_W;
  localparam int LW = $clog2(DEPTH + 1);

  // ---------------------------------------------------------------- queue
  logic          in_valid, in_ready, head_valid, pop;
  logic [EW-1:0] in_evt, head;
  logic [LW-1:0] level;
  logic          unused_id, hold;

  hca_arb #(
    .N (2),
    .W (EW)
  ) u_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (evt_valid_i),
    .in_ready_o  (evt_ready_o),
    .in_data_i   (evt_i),
    .out_valid_o (in_valid),
    .out_ready_i (in_ready),
    .out_data_o  (in_evt),
    .out_id_o    (unused_id),
    .hold_o      (hold)
  );

  // A full queue still takes an event in the cycle the firmware pops one.
`ifndef HCA_MUTANT_EVT_FULL_TAKES
  assign in_ready = level != LW'(DEPTH) || pop;
`else  // formal mutant (rtl/formal/hca_evt_props.sv): a full queue takes (and drops) an event
  assign in_ready = 1'b1;
`endif

  xu_fifo #(
    .WIDTH (EW),
    .DEPTH (DEPTH)
  ) u_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (in_valid),
    .in_data_i   (in_evt),
    .out_valid_o (head_valid),
    .out_ready_i (pop),
    .out_data_o  (head),
    .level_o     (level)
  );

  // ---------------------------------------------------------------- registers
  logic wr, rd;
  assign wr  = fw_valid_i && fw_write_i;
  assign rd  = fw_valid_i && !fw_write_i;
  assign pop = wr && fw_addr_i == 6'(`HCA_EVT_POP) && head_valid;

  // The head word selected outside the always_comb: Icarus cannot infer an
  // always_comb's sensitivity through a part select.
  logic [31:0] rdata, head_word;
  assign head_word = head[32 * fw_addr_i[5:2] +: 32];
  always_comb begin
    rdata = '0;
    if (fw_addr_i < 6'(`HCA_EVT_DATA + 4 * `HCA_EVT_DATA_COUNT)) begin
      rdata = head_valid ? head_word : 32'd0;
    end else if (fw_addr_i == 6'(`HCA_EVT_STATUS)) begin
      rdata[`HCA_EVT_STATUS_PENDING_LSB]                       = head_valid;
      rdata[`HCA_EVT_STATUS_COUNT_LSB +: `HCA_EVT_STATUS_COUNT_W] = 8'(level);
    end
  end

  // A read of an invalidation's word 0: its answer carries inv_ok_i.
  logic [3:0] head_kind;
  logic       inv_rd, inv_rd_q;
  logic [31:0] rdata_q;
  assign head_kind = head[`HCA_FW_EVENT_KIND_LSB +: `HCA_FW_EVENT_KIND_W];
  assign inv_rd = rd && fw_addr_i == 6'(`HCA_EVT_DATA) && head_valid
               && (head_kind == 4'(`HCA_EVT_KIND_LOCAL_INV) || head_kind == 4'(`HCA_EVT_KIND_REMOTE_INV)
                   || head_kind == 4'(`HCA_EVT_KIND_READ_INV));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fw_rvalid_o   <= 1'b0;
      rdata_q       <= '0;
      inv_rd_q      <= 1'b0;
      done_valid_o  <= 1'b0;
      done_tag_o    <= '0;
      done_status_o <= '0;
    end else begin
      fw_rvalid_o  <= fw_valid_i;
      rdata_q      <= rd ? rdata : 32'd0;
      inv_rd_q     <= inv_rd;
      done_valid_o <= wr && fw_addr_i == 6'(`HCA_EVT_DONE);
      if (wr && fw_addr_i == 6'(`HCA_EVT_DONE)) begin
        done_tag_o    <= fw_wdata_i[`HCA_EVT_DONE_TAG_LSB +: `HCA_EVT_DONE_TAG_W];
        done_status_o <= fw_wdata_i[`HCA_EVT_DONE_STATUS_LSB +: `HCA_EVT_DONE_STATUS_W];
      end
    end
  end

  assign fw_rdata_o = rdata_q | (32'(inv_rd_q && inv_ok_i) << `HCA_FW_EVENT_INV_OK_LSB);
  assign irq_o = head_valid;
  assign head_o = head;

  logic unused;
  assign unused = ^{unused_id, fw_wdata_i};

  // The twin of hca_evt_quiet_until: an answer or a DONE lasts one cycle; a
  // held grant drops. (A queued event raises irq_o at once: the core's
  // caller compares it with the pin it saw.)
  assign quiet_o = !fw_rvalid_o && !done_valid_o && !hold;

endmodule
