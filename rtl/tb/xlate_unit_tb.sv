`default_nettype none
`include "hca_abi.svh"

// xlate_unit_tb — replays one golden vector file (docs/xlate-vectors.md)
// through xlate_unit's ports, in Icarus.
//
//   vvp xlate_unit_tb.vvp +vec=FILE [+seed=N] [+stall=PCT] [+gap=PCT]
//
// Requests are queued and presented back to back (a request stays valid
// until accepted; +gap idles the port between requests); rsp_ready is
// withheld at random (+stall percent of cycles). Every beat handed over is
// matched, in order, against the file's `exp` records; before a table record
// (mpt, mtt, inv) every earlier request has finished. Any mismatch, a beat
// that changes while stalled, a missing or extra beat stops the run with
// $fatal naming the file line, the expected and the actual beat.
module xlate_unit_tb;

  localparam int QD    = 1 << 16;   // queue depth (requests, beats)
  localparam int WAIT  = 200000;    // cycles before a wait counts as hung

  // ---------------------------------------------------------------- DUT
  logic        clk = 1'b0;
  logic        rst_n = 1'b0;
  logic        unused_inv_ok;  // no event queue here: no verdict read
  logic        req_valid = 1'b0, req_ready;
  logic [7:0]  req_tag = '0;
  logic [3:0]  req_rights = '0;
  logic        req_remote = 1'b0;
  logic [31:0] req_key = '0;
  logic [23:0] req_pd = '0;
  logic [31:0] req_len = '0;
  logic [63:0] req_va = '0;
  logic        rsp_valid, rsp_ready = 1'b0;
  logic [7:0]  rsp_tag;
  logic [3:0]  rsp_status;
  logic        rsp_last;
  logic [31:0] rsp_len;
  logic [63:0] rsp_pa;
  logic        fw_valid = 1'b0, fw_ready, fw_write = 1'b0, fw_rvalid;
  logic [15:0] fw_addr = '0;
  logic [31:0] fw_wdata = '0, fw_rdata;

  always #5 clk = !clk;

  xlate_unit dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .req_valid_i  (req_valid),
    .req_ready_o  (req_ready),
    .req_tag_i    (req_tag),
    .req_rights_i (req_rights),
    .req_remote_i (req_remote),
    .req_key_i    (req_key),
    .req_pd_i     (req_pd),
    .req_len_i    (req_len),
    .req_va_i     (req_va),
    .rsp_valid_o  (rsp_valid),
    .rsp_ready_i  (rsp_ready),
    .rsp_tag_o    (rsp_tag),
    .rsp_status_o (rsp_status),
    .rsp_last_o   (rsp_last),
    .rsp_len_o    (rsp_len),
    .rsp_pa_o     (rsp_pa),
    .fw_valid_i   (fw_valid),
    .fw_ready_o   (fw_ready),
    .fw_write_i   (fw_write),
    .fw_addr_i    (fw_addr),
    .fw_wdata_i   (fw_wdata),
    .fw_rvalid_o  (fw_rvalid),
    .fw_rdata_o   (fw_rdata),
    .fence_wait_o (),
    .evt_pop_i    (1'b0),  // no event queue here: fwp FAST_REG's bank stays empty
    .evt_pop_slot_i (`HCA_EVT_POP_SLOT_W'(0)),
    .evt_pop_evt_i  (`HCA_FW_EVENT_W'(0)),
    .inv_ok_o       (unused_inv_ok)
  );

  // ---------------------------------------------------------------- options
  reg [8*1024-1:0] vec;
  integer seed = 1;
  integer seed0;
  integer stall_pct = 30;
  integer gap_pct = 0;
  integer cycle = 0;

  always @(posedge clk) cycle <= cycle + 1;

  function automatic integer rnd100();
    integer r;
    r = $random(seed);
    rnd100 = (r < 0 ? -r : r) % 100;
  endfunction

  function automatic [8*12-1:0] status_name(input [3:0] s);
    case (s)
      `HCA_XLATE_STATUS_OK:         status_name = "OK";
      `HCA_XLATE_STATUS_ERR_SLOT:   status_name = "ERR_SLOT";
      `HCA_XLATE_STATUS_ERR_KEY:    status_name = "ERR_KEY";
      `HCA_XLATE_STATUS_ERR_STATE:  status_name = "ERR_STATE";
      `HCA_XLATE_STATUS_ERR_PD:     status_name = "ERR_PD";
      `HCA_XLATE_STATUS_ERR_RIGHTS: status_name = "ERR_RIGHTS";
      `HCA_XLATE_STATUS_ERR_BOUNDS: status_name = "ERR_BOUNDS";
      `HCA_XLATE_STATUS_ERR_MTT:    status_name = "ERR_MTT";
      `HCA_XLATE_STATUS_ERR_MODE:   status_name = "ERR_MODE";
      `HCA_XLATE_STATUS_ERR_DEPTH:  status_name = "ERR_DEPTH";
      default:                      status_name = "?";
    endcase
  endfunction

  // ---------------------------------------------------------------- request queue
  reg [7:0]  rq_tag    [QD];
  reg [3:0]  rq_rights [QD];
  reg        rq_remote [QD];
  reg [31:0] rq_key    [QD];
  reg [23:0] rq_pd     [QD];
  reg [31:0] rq_len    [QD];
  reg [63:0] rq_va     [QD];
  integer    rq_head = 0, rq_tail = 0;   // counts; slot = count % QD
  integer    accepted = 0;
  reg        req_fired = 1'b0;

  // Sample the handshake on the rising edge...
  always @(posedge clk) begin
    req_fired <= req_valid && req_ready;
    if (req_valid && req_ready) begin
      rq_head  <= rq_head + 1;
      accepted <= accepted + 1;
    end
  end

  // ... and change the inputs on the falling edge. A presented request stays
  // until accepted.
  always @(negedge clk) begin
    if (!rst_n) begin
      req_valid <= 1'b0;
    end else if (!(req_valid && !req_fired)) begin
      if (rq_head != rq_tail && rnd100() >= gap_pct) begin
        req_valid  <= 1'b1;
        req_tag    <= rq_tag[rq_head % QD];
        req_rights <= rq_rights[rq_head % QD];
        req_remote <= rq_remote[rq_head % QD];
        req_key    <= rq_key[rq_head % QD];
        req_pd     <= rq_pd[rq_head % QD];
        req_len    <= rq_len[rq_head % QD];
        req_va     <= rq_va[rq_head % QD];
      end else begin
        req_valid  <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- beats
  reg [7:0]  eq_tag    [QD];
  reg [3:0]  eq_status [QD];
  reg [63:0] eq_pa     [QD];
  reg [31:0] eq_len    [QD];
  reg        eq_last   [QD];
  integer    eq_line   [QD];
  integer    eq_head = 0, eq_tail = 0;   // expected beats: matched, read

  reg [7:0]  ab_tag    [QD];
  reg [3:0]  ab_status [QD];
  reg [63:0] ab_pa     [QD];
  reg [31:0] ab_len    [QD];
  reg        ab_last   [QD];
  integer    ab_cycle  [QD];
  integer    ab_head = 0, ab_tail = 0;   // actual beats: matched, received
  integer    lasts = 0;                  // requests whose last beat came

  // A beat offered and not taken must be offered again, unchanged.
  reg        held = 1'b0;
  reg [7:0]  held_tag;
  reg [3:0]  held_status;
  reg [63:0] held_pa;
  reg [31:0] held_len;
  reg        held_last;

  always @(negedge clk) begin
    rsp_ready <= rst_n && rnd100() >= stall_pct;
  end

  always @(posedge clk) begin
    if (held && (!rsp_valid || rsp_tag != held_tag || rsp_status != held_status ||
                 rsp_pa != held_pa || rsp_len != held_len || rsp_last != held_last)) begin
      $fatal(1, "%0s: cycle %0d: beat changed while stalled: was tag=%h %0s pa=%h len=%h last=%0d, now valid=%0d tag=%h %0s pa=%h len=%h last=%0d",
             vec, cycle, held_tag, status_name(held_status), held_pa, held_len, held_last,
             rsp_valid, rsp_tag, status_name(rsp_status), rsp_pa, rsp_len, rsp_last);
    end
    held        <= rsp_valid && !rsp_ready;
    held_tag    <= rsp_tag;
    held_status <= rsp_status;
    held_pa     <= rsp_pa;
    held_len    <= rsp_len;
    held_last   <= rsp_last;
    if (rsp_valid && rsp_ready) begin
      if (ab_tail - ab_head >= QD) $fatal(1, "%0s: beat queue overflow", vec);
      ab_tag[ab_tail % QD]    <= rsp_tag;
      ab_status[ab_tail % QD] <= rsp_status;
      ab_pa[ab_tail % QD]     <= rsp_pa;
      ab_len[ab_tail % QD]    <= rsp_len;
      ab_last[ab_tail % QD]   <= rsp_last;
      ab_cycle[ab_tail % QD]  <= cycle;
      ab_tail <= ab_tail + 1;
      if (rsp_last) lasts <= lasts + 1;
    end
  end

  // Match beats against expectations once both are there.
  integer beats_ok = 0;
  always @(posedge clk) begin
    #1;
    while (ab_head != ab_tail && eq_head != eq_tail) begin
      if (ab_tag[ab_head % QD] !== eq_tag[eq_head % QD] ||
          ab_status[ab_head % QD] !== eq_status[eq_head % QD] ||
          ab_pa[ab_head % QD] !== eq_pa[eq_head % QD] ||
          ab_len[ab_head % QD] !== eq_len[eq_head % QD] ||
          ab_last[ab_head % QD] !== eq_last[eq_head % QD]) begin
        $fatal(1, "%0s:%0d: expected beat tag=%h %0s pa=%h len=%h last=%0d, got tag=%h %0s pa=%h len=%h last=%0d (cycle %0d)",
               vec, eq_line[eq_head % QD],
               eq_tag[eq_head % QD], status_name(eq_status[eq_head % QD]), eq_pa[eq_head % QD],
               eq_len[eq_head % QD], eq_last[eq_head % QD],
               ab_tag[ab_head % QD], status_name(ab_status[ab_head % QD]), ab_pa[ab_head % QD],
               ab_len[ab_head % QD], ab_last[ab_head % QD], ab_cycle[ab_head % QD]);
      end
      ab_head  = ab_head + 1;
      eq_head  = eq_head + 1;
      beats_ok = beats_ok + 1;
    end
  end

  // ---------------------------------------------------------------- firmware port
  task automatic fw_access(input bit write, input [15:0] addr, input [31:0] wdata,
                           output [31:0] rdata);
    @(negedge clk);
    fw_valid = 1'b1;
    fw_write = write;
    fw_addr  = addr;
    fw_wdata = wdata;
    @(posedge clk);
    while (!fw_ready) @(posedge clk);
    @(negedge clk);
    fw_valid = 1'b0;
    if (!fw_rvalid) $fatal(1, "%0s: fw_rvalid missing one cycle after the access to %h", vec, addr);
    rdata = fw_rdata;
    if (write && rdata !== 32'd0) $fatal(1, "%0s: fw_rdata %h for a write", vec, rdata);
  endtask

  task automatic fw_write32(input [15:0] addr, input [31:0] wdata);
    reg [31:0] unused;
    fw_access(1'b1, addr, wdata, unused);
  endtask

  // Run a command and wait for it; the result must be OK.
  task automatic command(input [3:0] op, input [23:0] idx, input integer line);
    reg [31:0] st;
    integer n;
    fw_write32(`HCA_FWP_CMD, (32'(op) << `HCA_FWP_CMD_OP_LSB) | (32'(idx) << `HCA_FWP_CMD_INDEX_LSB));
    n = 0;
    fw_access(1'b0, `HCA_FWP_STATUS, 32'd0, st);
    while (st[`HCA_FWP_STATUS_BUSY_LSB]) begin
      n = n + 1;
      if (n > WAIT) $fatal(1, "%0s:%0d: command %0d on %h still busy", vec, line, op, idx);
      fw_access(1'b0, `HCA_FWP_STATUS, 32'd0, st);
    end
    if (st[`HCA_FWP_STATUS_RESULT_LSB +: `HCA_FWP_STATUS_RESULT_W] != `HCA_FWP_RESULT_OK)
      $fatal(1, "%0s:%0d: command %0d on %h: result %0d", vec, line, op, idx,
             st[`HCA_FWP_STATUS_RESULT_LSB +: `HCA_FWP_STATUS_RESULT_W]);
  endtask

  // Every request queued so far accepted and finished, every beat matched.
  task automatic drain(input integer line);
    integer n;
    n = 0;
    while (rq_head != rq_tail || lasts != accepted || ab_head != ab_tail || eq_head != eq_tail) begin
      @(posedge clk);
      #2;
      if (ab_head != ab_tail && eq_head == eq_tail)
        $fatal(1, "%0s:%0d: unexpected beat tag=%h %0s pa=%h len=%h last=%0d (cycle %0d)",
               vec, line, ab_tag[ab_head % QD], status_name(ab_status[ab_head % QD]),
               ab_pa[ab_head % QD], ab_len[ab_head % QD], ab_last[ab_head % QD],
               ab_cycle[ab_head % QD]);
      n = n + 1;
      if (n > WAIT) begin
        if (eq_head != eq_tail)
          $fatal(1, "%0s:%0d: timeout: beat expected at line %0d never came (tag=%h %0s pa=%h len=%h last=%0d)",
                 vec, line, eq_line[eq_head % QD], eq_tag[eq_head % QD],
                 status_name(eq_status[eq_head % QD]), eq_pa[eq_head % QD],
                 eq_len[eq_head % QD], eq_last[eq_head % QD]);
        $fatal(1, "%0s:%0d: timeout: %0d requests queued, %0d accepted, %0d finished",
               vec, line, rq_tail, accepted, lasts);
      end
    end
  endtask

  // ---------------------------------------------------------------- replay
  integer fd, code, n, lineno, reqs, tables, i;
  reg [8*1024-1:0] text;
  reg [8*8-1:0]    tok;
  reg [7:0]        first;
  reg [63:0]       f [0:11];
  reg [31:0]       rd;
  reg              eof;

  initial begin
    if (!$value$plusargs("vec=%s", vec)) $fatal(1, "xlate_unit_tb: +vec=FILE is required");
    if ($value$plusargs("seed=%d", seed)) ;
    seed0 = seed;
    if ($value$plusargs("stall=%d", stall_pct)) ;
    if ($value$plusargs("gap=%d", gap_pct)) ;
    fd = $fopen(vec, "r");
    if (fd == 0) $fatal(1, "%0s: cannot open", vec);

    repeat (4) @(posedge clk);
    @(negedge clk);
    rst_n = 1'b1;

    lineno = 0;
    reqs   = 0;
    tables = 0;
    eof    = 1'b0;
    while (!eof) begin
      code = $fgets(text, fd);
      if (code == 0) begin
        eof = 1'b1;
      end else begin
        lineno = lineno + 1;
        tok = '0;
        first = '0;
        n = $sscanf(text, "%s", tok);
        code = $sscanf(text, "%c", first);
        if (n <= 0 || first == "#") begin
          // blank line or comment
        end else if (tok == "req") begin
          n = $sscanf(text, "req %h %h %h %h %h %h %h", f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
          if (n != 7) $fatal(1, "%0s:%0d: malformed req record", vec, lineno);
          while (rq_tail - rq_head >= QD) @(posedge clk);
          rq_tag[rq_tail % QD]    = f[0][7:0];
          rq_key[rq_tail % QD]    = f[1][31:0];
          rq_pd[rq_tail % QD]     = f[2][23:0];
          rq_va[rq_tail % QD]     = f[3];
          rq_len[rq_tail % QD]    = f[4][31:0];
          rq_rights[rq_tail % QD] = f[5][3:0];
          rq_remote[rq_tail % QD] = f[6][0];
          rq_tail = rq_tail + 1;
          reqs = reqs + 1;
        end else if (tok == "exp") begin
          n = $sscanf(text, "exp %h %h %h %h %h", f[0], f[1], f[2], f[3], f[4]);
          if (n != 5) $fatal(1, "%0s:%0d: malformed exp record", vec, lineno);
          if (eq_tail - eq_head >= QD) $fatal(1, "%0s:%0d: too many beats expected at once", vec, lineno);
          eq_tag[eq_tail % QD]    = f[0][7:0];
          eq_status[eq_tail % QD] = f[1][3:0];
          eq_pa[eq_tail % QD]     = f[2];
          eq_len[eq_tail % QD]    = f[3][31:0];
          eq_last[eq_tail % QD]   = f[4][0];
          eq_line[eq_tail % QD]   = lineno;
          eq_tail = eq_tail + 1;
        end else if (tok == "mpt") begin
          n = $sscanf(text, "mpt %h %h %h %h %h %h %h %h %h %h %h",
                      f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10]);
          if (n != 11) $fatal(1, "%0s:%0d: malformed mpt record", vec, lineno);
          drain(lineno);
          for (i = 0; i < `HCA_FWP_MPT_DATA_COUNT; i = i + 1)
            fw_write32(16'(`HCA_FWP_MPT_DATA + 4 * i), f[i + 1][31:0]);
          command(`HCA_FWP_OP_WRITE_MPT, f[0][23:0], lineno);
          tables = tables + 1;
        end else if (tok == "mtt") begin
          n = $sscanf(text, "mtt %h %h %h", f[0], f[1], f[2]);
          if (n != 3) $fatal(1, "%0s:%0d: malformed mtt record", vec, lineno);
          drain(lineno);
          fw_write32(16'(`HCA_FWP_MTT_DATA), f[1][31:0]);
          fw_write32(16'(`HCA_FWP_MTT_DATA + 4), f[2][31:0]);
          command(`HCA_FWP_OP_WRITE_MTT, f[0][23:0], lineno);
          tables = tables + 1;
        end else if (tok == "inv") begin
          n = $sscanf(text, "inv %h", f[0]);
          if (n != 1) $fatal(1, "%0s:%0d: malformed inv record", vec, lineno);
          drain(lineno);
          command(`HCA_FWP_OP_INVALIDATE, f[0][23:0], lineno);
          tables = tables + 1;
        end else begin
          $fatal(1, "%0s:%0d: unknown record '%0s'", vec, lineno, tok);
        end
      end
    end
    $fclose(fd);

    drain(lineno);
    // Nothing more may come out, and the unit must agree it is idle.
    repeat (20) @(posedge clk);
    #2;
    if (ab_head != ab_tail)
      $fatal(1, "%0s: unexpected beat after the last record: tag=%h %0s pa=%h len=%h last=%0d",
             vec, ab_tag[ab_head % QD], status_name(ab_status[ab_head % QD]),
             ab_pa[ab_head % QD], ab_len[ab_head % QD], ab_last[ab_head % QD]);
    fw_access(1'b0, `HCA_FWP_INFLIGHT, 32'd0, rd);
    if (rd != 32'd0) $fatal(1, "%0s: INFLIGHT = %0d when idle", vec, rd);

    $display("xlate_unit_tb: PASS %0s: %0d requests, %0d beats, %0d table records, %0d cycles (seed %0d, stall %0d%%, gap %0d%%)",
             vec, reqs, beats_ok, tables, cycle, seed0, stall_pct, gap_pct);
    $finish;
  end

endmodule
