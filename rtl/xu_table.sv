`default_nettype none

// xu_table — one translation table (the MPT or the MTT): a synchronous-read
// RAM of WIDTH-bit entries plus one reset-cleared valid bit per entry.
//
// The RAM keeps its contents over reset (data, not control). The valid
// vector is what makes every entry read "unallocated"/"absent" right after
// reset without a clearing sweep over DEPTH entries.
//
// Port A only reads (the request pipeline); port B reads or writes (the
// firmware port): a true dual-port RAM in FPGA terms. Read data is registered
// and holds while its port's read enable is low, so a stalled pipeline stage
// keeps the entry it read without reading again (and without seeing a later
// write). A read and a write of the same entry in one cycle return the old
// entry: a request accepted in the cycle of a table write saw the old entry.
//
// PAIR_PORT = 1 adds port C, a second read-only port that returns two
// adjacent entries {mem[a + 1], mem[a]} (the MTT's list port: a KLM entry is
// two words, and the KLM walker reads one entry per cycle while the page
// walker has port A). In a RAM library that is the table split into even and
// odd banks, each read once per cycle on this port (any a reads one row of
// each), a read port more per bank, as a replicated copy written alongside
// port B would give. Like port A it holds its data while c_re_i is low.
//
// D_PORT = 1 adds port D, one more read-only port like port A (the MPT's
// verdict port: the event queue's head's entry, hca_evt hdr.inv_ok).
module xu_table #(
  parameter int DEPTH = 16,
  parameter int WIDTH = 64,
  parameter bit PAIR_PORT = 1'b0,
  parameter bit D_PORT = 1'b0
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,

  // port A: read
  input  logic                     a_re_i,
  input  logic [$clog2(DEPTH > 1 ? DEPTH : 2)-1:0] a_addr_i,
  output logic [WIDTH-1:0]         a_rdata_o,
  output logic                     a_rvalid_o,   // the entry's valid bit

  // port B: read, or write the entry and/or its valid bit
  input  logic                     b_re_i,
  input  logic                     b_we_i,       // write the RAM entry
  input  logic                     b_vwe_i,      // write the valid bit
  input  logic [$clog2(DEPTH > 1 ? DEPTH : 2)-1:0] b_addr_i,
  input  logic [WIDTH-1:0]         b_wdata_i,
  input  logic                     b_wvalid_i,
  output logic [WIDTH-1:0]         b_rdata_o,
  output logic                     b_rvalid_o,

  // port C (PAIR_PORT only): read two adjacent entries
  input  logic                     c_re_i,
  input  logic [$clog2(DEPTH > 1 ? DEPTH : 2)-1:0] c_addr_i,
  output logic [2*WIDTH-1:0]       c_rdata_o,    // {entry c_addr_i + 1, entry c_addr_i}

  // port D (D_PORT only): read
  input  logic                     d_re_i,
  input  logic [$clog2(DEPTH > 1 ? DEPTH : 2)-1:0] d_addr_i,
  output logic [WIDTH-1:0]         d_rdata_o,
  output logic                     d_rvalid_o
);

  // The reset value of the valid vector is built from chunks of at most 4096
  // bits: one flat replication of up to 2^24 bits trips Verilator's
  // WIDTHCONCAT sanity check.
  localparam int ZERO_CHUNK = (DEPTH > 4096) ? 4096 : DEPTH;

  logic [WIDTH-1:0] mem_q [DEPTH];
  // Not in the waves: a bit per entry (65536 in the MTT) would make every
  // traced cycle compare the whole vector and every change write all of it
  // (most of a traced run's time); a_rvalid_q/b_rvalid_q show what was read.
  /* verilator tracing_off */
  logic [DEPTH-1:0] valid_q;
  /* verilator tracing_on */
  logic [WIDTH-1:0] a_rdata_q, b_rdata_q;
  logic             a_rvalid_q, b_rvalid_q;

  // Valid bits: control state, cleared by reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= {(DEPTH / ZERO_CHUNK){{ZERO_CHUNK{1'b0}}}};
    end else if (b_vwe_i) begin
      valid_q[b_addr_i] <= b_wvalid_i;
    end
  end

  // RAM and read registers: data, never reset. The valid-bit read registers
  // are sampled together with the entry they describe.
  always_ff @(posedge clk_i) begin
    if (b_we_i) begin
      mem_q[b_addr_i] <= b_wdata_i;
    end
    if (a_re_i) begin
      a_rdata_q  <= mem_q[a_addr_i];
      a_rvalid_q <= valid_q[a_addr_i];
    end
    if (b_re_i) begin
      b_rdata_q  <= mem_q[b_addr_i];
      b_rvalid_q <= valid_q[b_addr_i];
    end
  end

  generate if (PAIR_PORT) begin : g_pair
    logic [$clog2(DEPTH > 1 ? DEPTH : 2)-1:0] c_addr1;
    logic [2*WIDTH-1:0] c_rdata_q;
    assign c_addr1 = c_addr_i + 1'b1;
    always_ff @(posedge clk_i) begin
      if (c_re_i) begin
        c_rdata_q <= {mem_q[c_addr1], mem_q[c_addr_i]};
      end
    end
    assign c_rdata_o = c_rdata_q;
  end else begin : g_no_pair
    logic unused_c;
    assign unused_c  = ^{c_re_i, c_addr_i};
    assign c_rdata_o = '0;
  end endgenerate

  generate if (D_PORT) begin : g_d
    logic [WIDTH-1:0] d_rdata_q;
    logic             d_rvalid_q;
    always_ff @(posedge clk_i) begin
      if (d_re_i) begin
        d_rdata_q  <= mem_q[d_addr_i];
        d_rvalid_q <= valid_q[d_addr_i];
      end
    end
    assign d_rdata_o  = d_rdata_q;
    assign d_rvalid_o = d_rvalid_q;
  end else begin : g_no_d
    logic unused_d;
    assign unused_d   = ^{d_re_i, d_addr_i};
    assign d_rdata_o  = '0;
    assign d_rvalid_o = 1'b0;
  end endgenerate

  assign a_rdata_o  = a_rdata_q;
  assign a_rvalid_o = a_rvalid_q;
  assign b_rdata_o  = b_rdata_q;
  assign b_rvalid_o = b_rvalid_q;

endmodule
