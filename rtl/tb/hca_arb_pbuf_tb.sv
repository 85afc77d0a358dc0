`default_nettype none
`include "hca_abi.svh"

// hca_arb_pbuf_tb — Icarus bench of the core's arbiter (hca_arb) and packet
// buffer ids (hca_pbuf) under random traffic and back-pressure.
//
//   vvp hca_arb_pbuf_tb.vvp [+seed=N] [+stall=PCT]
//
// hca_arb, 3 inputs: each input offers a numbered sequence of beats (with
// random idle gaps, never dropping valid before ready); the output is
// stalled +stall percent of cycles. Checked: every beat arrives once, in
// order per input, with out_id naming its input; the output beat holds
// still while stalled; round robin: an input that keeps valid waits at most
// N-1 other handshakes.
// hca_pbuf: both clients take offered ids at random and free them some
// cycles later. Checked: an id is never held twice; the requester is never
// offered one unless more than RESP_RSV are free; free_count_o matches.
module hca_arb_pbuf_tb;

  localparam int N     = 3;
  localparam int W     = 16;
  localparam int BEATS = 2000;
  localparam int BUFS  = 16;
  localparam int RSV   = 4;

  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = !clk;

  int seed = 1, stall = 30;
  int errors = 0;
  int dummy, seed0;

  // ---------------------------------------------------------------- hca_arb
  logic [N-1:0]   in_valid = '0, in_ready;
  logic [N*W-1:0] in_data = '0;
  logic           out_valid, out_ready = 1'b0;
  logic [W-1:0]   out_data;
  logic [1:0]     out_id;

  hca_arb #(
    .N (N),
    .W (W)
  ) u_arb (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .in_valid_i  (in_valid),
    .in_ready_o  (in_ready),
    .in_data_i   (in_data),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready),
    .out_data_o  (out_data),
    .out_id_o    (out_id)
  );

  int sent [N];
  int got [N];
  int waited [N];   // handshakes of others while input i was valid
  logic          stalled_q = 1'b0;
  logic [W-1:0]  stalled_data_q;
  logic [1:0]    stalled_id_q;

  // ---------------------------------------------------------------- hca_pbuf
  logic       ra_valid, ra_ready = 1'b0, sa_valid, sa_ready = 1'b0;
  logic [7:0] ra_id, sa_id;
  logic       rf_valid = 1'b0, sf_valid = 1'b0, rf_ready, sf_ready;
  logic [7:0] rf_id = '0, sf_id = '0;
  logic [8:0] free_count;

  hca_pbuf #(
    .PKT_BUFS (BUFS),
    .RESP_RSV (RSV)
  ) u_pbuf (
    .clk_i             (clk),
    .rst_ni            (rst_n),
    .req_alloc_valid_o (ra_valid),
    .req_alloc_ready_i (ra_ready),
    .req_alloc_id_o    (ra_id),
    .req_free_valid_i  (rf_valid),
    .req_free_ready_o  (rf_ready),
    .req_free_id_i     (rf_id),
    .rsp_alloc_valid_o (sa_valid),
    .rsp_alloc_ready_i (sa_ready),
    .rsp_alloc_id_o    (sa_id),
    .rsp_free_valid_i  (sf_valid),
    .rsp_free_ready_o  (sf_ready),
    .rsp_free_id_i     (sf_id),
    .free_count_o      (free_count)
  );

  int held [BUFS];      // 0 free, 1 requester, 2 responder
  int release_at [BUFS];
  int nheld = 0, allocs = 0;

  initial begin
    if ($value$plusargs("seed=%d", seed)) begin end
    if ($value$plusargs("stall=%d", stall)) begin end
    seed0 = seed;
    dummy = $urandom(seed);
    for (int i = 0; i < N; i++) begin
      sent[i] = 0; got[i] = 0; waited[i] = 0;
    end
    for (int b = 0; b < BUFS; b++) begin
      held[b] = 0; release_at[b] = 0;
    end
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
  end

  int cycle = 0;

  // Drive on the falling edge (the rising edge samples), judge the
  // handshakes of the cycle just before the rising edge.
  always @(negedge clk) begin
    if (rst_n) begin
      cycle++;
      // hca_arb inputs: a new beat once the previous was taken
      for (int i = 0; i < N; i++) begin
        if (!in_valid[i] && sent[i] < BEATS && ($urandom % 100) < 60) begin
          in_valid[i] = 1'b1;
          in_data[i * W +: W] = W'((i << 12) | sent[i]);
        end
      end
      out_ready = ($urandom % 100) >= stall;
      // hca_pbuf clients
      ra_ready = ($urandom % 100) < 40;
      sa_ready = ($urandom % 100) < 40;
      rf_valid = 1'b0;
      sf_valid = 1'b0;
      for (int b = 0; b < BUFS; b++) begin
        if (held[b] == 1 && !rf_valid && cycle >= release_at[b]) begin
          rf_valid = 1'b1; rf_id = 8'(b);
        end
        if (held[b] == 2 && !sf_valid && cycle >= release_at[b]) begin
          sf_valid = 1'b1; sf_id = 8'(b);
        end
      end
      #1;
      // --- judge this cycle (inputs settled) ---
      if (stalled_q && (!out_valid || out_data != stalled_data_q || out_id != stalled_id_q)) begin
        $display("hca_arb_pbuf_tb: cycle %0d: stalled beat changed (%h/%0d -> %0d %h/%0d)", cycle,
                 stalled_data_q, stalled_id_q, out_valid, out_data, out_id);
        errors++;
      end
      if (out_valid && out_ready) begin
        int i;
        i = int'(out_data[W-1:12]);
        if (i != int'(out_id) || int'(out_data[11:0]) != got[i] || !in_ready[i]) begin
          $display("hca_arb_pbuf_tb: cycle %0d: beat %h id %0d, expected input %0d beat %0d", cycle,
                   out_data, out_id, i, got[i]);
          errors++;
        end
        got[i]++;
        for (int k = 0; k < N; k++) begin
          if (k != i && in_valid[k]) begin
            waited[k]++;
            if (waited[k] > N - 1) begin
              $display("hca_arb_pbuf_tb: cycle %0d: input %0d waited %0d handshakes", cycle, k, waited[k]);
              errors++;
            end
          end
        end
        waited[i] = 0;
      end
      // pbuf
      if (ra_valid && free_count <= 9'(RSV)) begin
        $display("hca_arb_pbuf_tb: cycle %0d: requester offered an id with %0d free", cycle, free_count);
        errors++;
      end
      if (int'(free_count) != BUFS - nheld) begin
        $display("hca_arb_pbuf_tb: cycle %0d: free_count %0d, expected %0d", cycle, free_count, BUFS - nheld);
        errors++;
      end
      if (ra_valid && ra_ready && sa_valid && sa_ready && ra_id == sa_id) begin
        $display("hca_arb_pbuf_tb: cycle %0d: id %0d given to both clients", cycle, ra_id);
        errors++;
      end
    end
  end

  always @(posedge clk) begin
    if (rst_n) begin
      stalled_q      <= out_valid && !out_ready;
      stalled_data_q <= out_data;
      stalled_id_q   <= out_id;
      for (int i = 0; i < N; i++) begin
        if (in_valid[i] && in_ready[i]) begin
          in_valid[i] <= 1'b0;
          sent[i]     <= sent[i] + 1;
        end
      end
      if (rf_valid) begin
        held[rf_id] <= 0;
      end
      if (sf_valid) begin
        held[sf_id] <= 0;
      end
      nheld <= nheld + ((ra_valid && ra_ready) ? 1 : 0) + ((sa_valid && sa_ready) ? 1 : 0)
                     - (rf_valid ? 1 : 0) - (sf_valid ? 1 : 0);
      if (ra_valid && ra_ready) begin
        if (held[ra_id] != 0) begin
          $display("hca_arb_pbuf_tb: cycle %0d: id %0d allocated twice", cycle, ra_id);
          errors++;
        end
        held[ra_id]       <= 1;
        release_at[ra_id] <= cycle + 1 + ($urandom % 40);
        allocs++;
      end
      if (sa_valid && sa_ready) begin
        if (held[sa_id] != 0) begin
          $display("hca_arb_pbuf_tb: cycle %0d: id %0d allocated twice", cycle, sa_id);
          errors++;
        end
        held[sa_id]       <= 2;
        release_at[sa_id] <= cycle + 1 + ($urandom % 40);
        allocs++;
      end
    end
  end

  initial begin
    @(posedge rst_n);
    while (!(got[0] == BEATS && got[1] == BEATS && got[2] == BEATS) && cycle <= 100 * BEATS) begin
      @(posedge clk);
    end
    if (got[0] != BEATS || got[1] != BEATS || got[2] != BEATS) begin
      $display("hca_arb_pbuf_tb: hung: got %0d %0d %0d of %0d beats", got[0], got[1], got[2], BEATS);
      errors++;
    end
    if (allocs < 1000) begin
      $display("hca_arb_pbuf_tb: only %0d buffer allocations", allocs);
      errors++;
    end
    if (errors != 0) begin
      $fatal(1, "hca_arb_pbuf_tb: FAIL (%0d errors)", errors);
    end
    $display("hca_arb_pbuf_tb: PASS (%0d beats, %0d buffer allocations, seed %0d, stall %0d%%)", 3 * BEATS,
             allocs, seed0, stall);
    $finish;
  end

endmodule
