`default_nettype none
`include "hca_abi.svh"

// hca_core_sim — simulation only (the Verilated top of the RTL engine, not
// part of rtl/: lint, synthesis and Icarus see hca_core alone). hca_core with
// its inputs registered, so that every net of the core is computed from
// registers and one evaluation per cycle settles it: with the inputs as top
// ports, Verilator evaluates the logic they reach (its "ico" region) at the
// clock-low evaluation with the new inputs, and again after the edge with
// the old ones. The shim (core_rtl.cpp) drives cycle N's inputs and takes
// cycle N-1's edge in one evaluation; the core then sees cycle N's inputs
// and the registers after edge N-1, which is what the clock-low evaluation
// of a top-level hca_core showed. ld_i loads the input registers alone (the
// core's registers hold): the first cycle after reset, and the cycle after
// a wave's last edge was taken early (the dump paused or ended). Ports and parameters
// are hca_core's (the same names, so -G and the waves' port scope are the
// same), plus ld_i.
module hca_core_sim #(
  parameter int MPT_ENTRIES = `HCA_MPT_ENTRIES_DEFAULT,
  parameter int MTT_ENTRIES = `HCA_MTT_ENTRIES_DEFAULT,
  parameter int MAX_QP      = `HCA_MAX_QP,
  parameter int MAX_CQ      = `HCA_MAX_CQ,
  parameter int PKT_BUFS    = `HCA_PKT_BUFS
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // verilator tracing_off
  input  logic                           ld_i,
  input  logic [31:0]                    now_i,
  // verilator tracing_on
  input  logic                           db_valid_i,
  output logic                           db_ready_o,
  input  logic [3:0]                     db_addr_i,
  input  logic [31:0]                    db_data_i,
  input  logic                           fw_valid_i,
  output logic                           fw_ready_o,
  input  logic                           fw_write_i,
  input  logic [15:0]                    fw_addr_i,
  input  logic [31:0]                    fw_wdata_i,
  output logic                           fw_rvalid_o,
  output logic [31:0]                    fw_rdata_o,
  output logic                           fw_irq_o,
  output logic                           fence_wait_o,
  output logic                           drain_wait_o,
  output logic                           dma_req_valid_o,
  input  logic                           dma_req_ready_i,
  output logic [`HCA_DMA_REQ_W-1:0]      dma_req_o,
  input  logic                           dma_rsp_valid_i,
  output logic                           dma_rsp_ready_o,
  input  logic [`HCA_DMA_RSP_W-1:0]      dma_rsp_i,
  output logic                           tx_valid_o,
  input  logic                           tx_ready_i,
  output logic [`HCA_PKT_W-1:0]          tx_o,
  input  logic                           rx_valid_i,
  output logic                           rx_ready_o,
  input  logic [`HCA_PKT_W-1:0]          rx_i,
  input  logic                           xq_valid_i,
  output logic                           xq_ready_o,
  input  logic [`HCA_XU_TAG_BITS-1:0]    xq_tag_i,
  input  logic [`HCA_ACCESS_W-1:0]       xq_rights_i,
  input  logic                           xq_remote_i,
  input  logic [`HCA_KEY_BITS-1:0]       xq_key_i,
  input  logic [`HCA_PD_BITS-1:0]        xq_pd_i,
  input  logic [`HCA_XU_LEN_BITS-1:0]    xq_len_i,
  input  logic [63:0]                    xq_va_i,
  output logic                           xs_valid_o,
  input  logic                           xs_ready_i,
  output logic [`HCA_XU_TAG_BITS-1:0]    xs_tag_o,
  output logic [`HCA_XLATE_STATUS_W-1:0] xs_status_o,
  output logic                           xs_last_o,
  output logic [`HCA_XU_LEN_BITS-1:0]    xs_len_o,
  output logic [63:0]                    xs_pa_o,
  output logic                           quiet_o,
  output logic                           wake_valid_o,
  output logic [31:0]                    wake_o
);

  // verilator tracing_off
  // The inputs as registers (no reset: the reset sequence clocks idle
  // inputs in; the core's registers reset as they do without this wrapper).
  logic [31:0]                    now_q;
  logic                           db_valid_q, fw_valid_q, fw_write_q, dma_req_ready_q, dma_rsp_valid_q;
  logic                           tx_ready_q, rx_valid_q, xq_valid_q, xq_remote_q, xs_ready_q;
  logic [3:0]                     db_addr_q;
  logic [31:0]                    db_data_q, fw_wdata_q;
  logic [15:0]                    fw_addr_q;
  logic [`HCA_DMA_RSP_W-1:0]      dma_rsp_q;
  logic [`HCA_PKT_W-1:0]          rx_q;
  logic [`HCA_XU_TAG_BITS-1:0]    xq_tag_q;
  logic [`HCA_ACCESS_W-1:0]       xq_rights_q;
  logic [`HCA_KEY_BITS-1:0]       xq_key_q;
  logic [`HCA_PD_BITS-1:0]        xq_pd_q;
  logic [`HCA_XU_LEN_BITS-1:0]    xq_len_q;
  logic [63:0]                    xq_va_q;

  always_ff @(posedge clk_i or posedge ld_i) begin
    now_q           <= now_i;
    db_valid_q      <= db_valid_i;
    db_addr_q       <= db_addr_i;
    db_data_q       <= db_data_i;
    fw_valid_q      <= fw_valid_i;
    fw_write_q      <= fw_write_i;
    fw_addr_q       <= fw_addr_i;
    fw_wdata_q      <= fw_wdata_i;
    dma_req_ready_q <= dma_req_ready_i;
    dma_rsp_valid_q <= dma_rsp_valid_i;
    tx_ready_q      <= tx_ready_i;
    rx_valid_q      <= rx_valid_i;
    xq_valid_q      <= xq_valid_i;
    xq_tag_q        <= xq_tag_i;
    xq_rights_q     <= xq_rights_i;
    xq_remote_q     <= xq_remote_i;
    xq_key_q        <= xq_key_i;
    xq_pd_q         <= xq_pd_i;
    xq_len_q        <= xq_len_i;
    xq_va_q         <= xq_va_i;
    xs_ready_q      <= xs_ready_i;
  end
  // The two wide data inputs (1088 and PKT_W bits, the bulk of the copy)
  // load only with their valid, in reset and at ld_i: the harness changes
  // them only as it raises valid (sim/harness/core_dma.c, core_link.c) and
  // drives zeros in reset (core_rtl.cpp), so the registers, the core's
  // pins, hold the same values as when loaded every cycle. (rst_ni: the
  // core's asynchronous reset, sampled here only to load the zeros.)
  /* verilator lint_off SYNCASYNCNET */
  always_ff @(posedge clk_i or posedge ld_i) begin
    if (ld_i || !rst_ni || dma_rsp_valid_i) dma_rsp_q <= dma_rsp_i;
    if (ld_i || !rst_ni || rx_valid_i)      rx_q      <= rx_i;
  end
  /* verilator lint_on SYNCASYNCNET */
  // verilator tracing_on

  hca_core #(
    .MPT_ENTRIES (MPT_ENTRIES),
    .MTT_ENTRIES (MTT_ENTRIES),
    .MAX_QP      (MAX_QP),
    .MAX_CQ      (MAX_CQ),
    .PKT_BUFS    (PKT_BUFS)
  ) hca_core (
    .clk_i,
    .rst_ni,
    .now_i           (now_q),
    .db_valid_i      (db_valid_q),
    .db_ready_o,
    .db_addr_i       (db_addr_q),
    .db_data_i       (db_data_q),
    .fw_valid_i      (fw_valid_q),
    .fw_ready_o,
    .fw_write_i      (fw_write_q),
    .fw_addr_i       (fw_addr_q),
    .fw_wdata_i      (fw_wdata_q),
    .fw_rvalid_o,
    .fw_rdata_o,
    .fw_irq_o,
    .fence_wait_o,
    .drain_wait_o,
    .dma_req_valid_o,
    .dma_req_ready_i (dma_req_ready_q),
    .dma_req_o,
    .dma_rsp_valid_i (dma_rsp_valid_q),
    .dma_rsp_ready_o,
    .dma_rsp_i       (dma_rsp_q),
    .tx_valid_o,
    .tx_ready_i      (tx_ready_q),
    .tx_o,
    .rx_valid_i      (rx_valid_q),
    .rx_ready_o,
    .rx_i            (rx_q),
    .xq_valid_i      (xq_valid_q),
    .xq_ready_o,
    .xq_tag_i        (xq_tag_q),
    .xq_rights_i     (xq_rights_q),
    .xq_remote_i     (xq_remote_q),
    .xq_key_i        (xq_key_q),
    .xq_pd_i         (xq_pd_q),
    .xq_len_i        (xq_len_q),
    .xq_va_i         (xq_va_q),
    .xs_valid_o,
    .xs_ready_i      (xs_ready_q),
    .xs_tag_o,
    .xs_status_o,
    .xs_last_o,
    .xs_len_o,
    .xs_pa_o,
    .quiet_o,
    .wake_valid_o,
    .wake_o
  );

endmodule

`default_nettype wire
