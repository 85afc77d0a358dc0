`default_nettype none
`include "hca_abi.svh"

// hca_xarb — shares the translation unit between N clients.
//
// Requests: round-robin (hca_arb). xlate_unit answers requests in the order
// it accepted them, so the id of every granted client goes into a FIFO and
// the head names the client the current response beat belongs to; the head
// leaves with the request's last beat. Tags pass through untouched.
//
// A request is granted only while the FIFO has room; DEPTH 8 covers every
// request xlate_unit can hold (S1, walker, S3 and its 4-beat output FIFO),
// so the FIFO never throttles in practice.
module hca_xarb #(
  parameter int N = 3
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,

  // clients: request bundles {tag, rights, remote, key, pd, len, va}
  input  logic [N-1:0]                      c_req_valid_i,
  output logic [N-1:0]                      c_req_ready_o,
  input  logic [N*REQ_W-1:0]                c_req_i,
  // clients: response beats (shared data, per-client valid/ready)
  output logic [N-1:0]                      c_rsp_valid_o,
  input  logic [N-1:0]                      c_rsp_ready_i,

  // translation unit
  output logic                              xu_req_valid_o,
  input  logic                              xu_req_ready_i,
  output logic [REQ_W-1:0]                  xu_req_o,
  input  logic                              xu_rsp_valid_i,
  output logic                              xu_rsp_ready_o,
  input  logic                              xu_rsp_last_i,
  output logic                          quiet_o          // the twin of hca_xarb_quiet_until (hca_core quiet_o)
);

  localparam int REQ_W = `HCA_XU_TAG_BITS + `HCA_ACCESS_W + 1 + `HCA_KEY_BITS + `HCA_PD_BITS +
                         `HCA_XU_LEN_BITS + 64;
  localparam int IDW   = (N > 1) ? $clog2(N) : 1;
  localparam int DEPTH = 8;

  logic           arb_valid, arb_ready, hold;
  logic [IDW-1:0] arb_id;
  logic [3:0]     level;
  logic           room;
  logic           head_valid;
  logic [IDW-1:0] head_id;

  assign room = level < 4'(DEPTH);

  hca_arb #(
    .N (N),
    .W (REQ_W)
  ) u_arb (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (c_req_valid_i),
    .in_ready_o  (c_req_ready_o),
    .in_data_i   (c_req_i),
    .out_valid_o (arb_valid),
    .out_ready_i (arb_ready),
    .out_data_o  (xu_req_o),
    .out_id_o    (arb_id),
    .hold_o      (hold)
  );

  assign xu_req_valid_o = arb_valid && room;
  assign arb_ready      = xu_req_ready_i && room;

  xu_fifo #(
    .WIDTH (IDW),
    .DEPTH (DEPTH)
  ) u_ids (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (xu_req_valid_o && xu_req_ready_i),
    .in_data_i   (arb_id),
    .out_valid_o (head_valid),
`ifndef HCA_MUTANT_XARB_POP_EVERY_BEAT
    .out_ready_i (xu_rsp_valid_i && xu_rsp_ready_o && xu_rsp_last_i),
`else  // formal mutant (rtl/formal/hca_xarb_props.sv): the head leaves at every beat
    .out_ready_i (xu_rsp_valid_i && xu_rsp_ready_o),
`endif
    .out_data_o  (head_id),
    .level_o     (level)
  );

  always_comb begin
    c_rsp_valid_o = '0;
    c_rsp_valid_o[head_id] = xu_rsp_valid_i && head_valid;
  end
  assign xu_rsp_ready_o = head_valid && c_rsp_ready_i[head_id];

  // Ids in the FIFO wait for xu_rsp_valid_i; only a held grant drops on its own.
  assign quiet_o = !hold;

endmodule
