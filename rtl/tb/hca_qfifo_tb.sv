`default_nettype none

// hca_qfifo_tb — Icarus bench of hca_qfifo (the requester's scheduler FIFO)
// against a reference queue, under random pushes on all ports and pops.
//
//   vvp hca_qfifo_tb.vvp [+seed=N] [+pop=PCT]
//
// N = 16 numbers, P = 7 push ports (as the scheduler), values drawn from the
// whole range so that a push often names a queued number, another port's
// number of the same cycle, or the head being popped. The memories start
// with random content (the RTL never resets them: membership must hold
// whatever they held). Checked every cycle: head_valid_o and head_o against
// the reference; at the end, the number of takes and pops.
module hca_qfifo_tb;

  localparam int N      = 16;
  localparam int P      = 7;
  localparam int W      = 4;
  localparam int CYCLES = 20000;

  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = !clk;

  int seed = 1, seed0, pop_pct = 40;
  int errors = 0, takes = 0, pops = 0;
  int dummy;

  logic [P-1:0]   push = '0;
  logic [P*W-1:0] push_val = '0;
  logic           pop = 1'b0;
  logic           head_valid;
  logic [W-1:0]   head;

  hca_qfifo #(
    .N (N),
    .P (P)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .push_i       (push),
    .push_val_i   (push_val),
    .head_valid_o (head_valid),
    .head_o       (head),
    .pop_i        (pop)
  );

  // The reference: the queued numbers in order.
  int ref_q [N];
  int ref_n = 0;

  function automatic int queued(input int v);
    queued = 0;
    for (int i = 0; i < ref_n; i++) begin
      if (ref_q[i] == v) queued = 1;
    end
  endfunction

  initial begin
    if ($value$plusargs("seed=%d", seed)) begin end
    if ($value$plusargs("pop=%d", pop_pct)) begin end
    seed0 = seed;
    dummy = $urandom(seed);
    for (int i = 0; i < N; i++) begin
      dut.slot_m[i] = W'($urandom);
      dut.pos_m[i]  = (W + 1)'($urandom);
    end
    repeat (3) @(posedge clk);
    rst_n = 1'b1;

    for (int c = 0; c < CYCLES && errors <= 10; c++) begin
      // drive this cycle's inputs
      @(negedge clk);
      for (int k = 0; k < P; k++) begin
        push[k]                = ($urandom % 100) < 30;
        push_val[k * W +: W]   = W'($urandom % N);
      end
      pop = ($urandom % 100) < pop_pct;
      #1;
      // the outputs against the reference
      if (head_valid !== (ref_n != 0)) begin
        $display("hca_qfifo_tb: cycle %0d: head_valid expected %0d, got %b", c, ref_n != 0, head_valid);
        errors++;
      end else if (ref_n != 0 && head !== W'(ref_q[0])) begin
        $display("hca_qfifo_tb: cycle %0d: head expected %0d, got %0d", c, ref_q[0], head);
        errors++;
      end
      // the reference's edge: pop, then the takes in port order
      begin
        int popped, h, t;
        int taken [P];
        popped = pop && ref_n != 0;
        h      = ref_n != 0 ? ref_q[0] : -1;
        for (int k = 0; k < P; k++) begin
          int v;
          v = push_val[k * W +: W];
          t = push[k] && !(queued(v) && !(popped && h == v));
          for (int j = 0; j < k; j++) begin
            if (push[j] && push_val[j * W +: W] == v) t = 0;
          end
          taken[k] = t;
        end
        if (popped) begin
          for (int i = 1; i < ref_n; i++) ref_q[i - 1] = ref_q[i];
          ref_n--;
          pops++;
        end
        for (int k = 0; k < P; k++) begin
          if (taken[k]) begin
            if (ref_n == N) begin
              $display("hca_qfifo_tb: cycle %0d: reference overflow (a push of a queued number taken)", c);
              errors++;
            end else begin
              ref_q[ref_n] = push_val[k * W +: W];
              ref_n++;
              takes++;
            end
          end
        end
      end
    end

    @(negedge clk);
    push = '0;
    pop  = 1'b0;
    if (errors != 0 || takes < CYCLES / 20 || pops < CYCLES / 20) begin   // it did exercise the queue
      $fatal(1, "hca_qfifo_tb: FAIL (%0d errors, %0d takes, %0d pops)", errors, takes, pops);
    end
    $display("hca_qfifo_tb: PASS (%0d cycles, %0d takes, %0d pops, seed %0d, pop %0d%%)", CYCLES, takes, pops,
             seed0, pop_pct);
    $finish;
  end

endmodule
