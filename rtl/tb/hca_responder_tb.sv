`default_nettype none
`include "hca_abi.svh"

// hca_responder_tb — directed cases for hca_responder (docs/engine.md
// "Responder" 1-5), in Icarus:
//
//   vvp hca_responder_tb.vvp [+seed=N] [+stall=PCT] [+err_lat=CYCLES] [+verbose=1|2]
//
// Behavioural models around the DUT:
//   - translation unit: identity mapping (pa = va) split at every 4 KiB, in
//     order, first beat XU_LATENCY cycles after the request. The key's low
//     nibble is the rights its MR grants, bit 4 says it has an R_Key; the PD
//     must be PD; fail_key (an "invalidated" key) answers ERR_STATE; a page
//     touching [bad_lo, bad_hi) ends the request with ERR_MTT after the OK
//     beats of the pages before it (as the walker does); from the case's
//     key check fail_from on (-1: never), every check answers ERR_STATE (a
//     key invalidated between two chunks of a message).
//   - DMA block: several requests in flight, each answered 6..14 cycles
//     later (so out of order), copying bytes between the host memory and
//     the packet buffers at the answer; [berr_lo, berr_hi) answers err and
//     moves nothing. Checks tags (01xx_xxxx, unique in flight), lengths,
//     buffer ownership and offsets, and that no DMA goes through fail_key.
//   - QP contexts: the read port answers one cycle after the index; rq_ci
//     follows rq_ci_inc; qp_err lands +err_lat cycles (default 3) after its
//     pulse.
//   - packet buffers: rx packets use ids 0..11, the DUT's allocations
//     12..15 (like hca_pbuf's responder reserve); frees must name a buffer
//     the DUT holds; READ_RESP payloads are compared with host memory.
//   - CQ sink, link sink, link source.
//   - firmware stand-in for the memory-management events: takes an event
//     (evt_ready withheld at random and, per case, until a cycle), answers
//     DONE fw_lat cycles later with fw_status, optionally preceded by a DONE
//     with another tag (fw_decoy). While an event waits it checks that the
//     responder handed over no packet or CQE and that place_busy stays low
//     (the firmware's DRAIN inside the invalidation waits for it); at the
//     event, that no placement DMA is still unanswered.
// Every ready/valid the bench drives is withheld at random (+stall percent,
// default 30), and every DUT output stream must hold still until taken.
// A failed check stops the run with $fatal naming the case, the expected and
// the actual value.
module hca_responder_tb;

  localparam int MEM_SIZE = 1 << 20;
  localparam int NBUF     = `HCA_PKT_BUFS;
  localparam int BSZ      = `HCA_PKT_BUF_SIZE;
  localparam int RXBUFS   = NBUF - 4;      // ids the bench uses for rx packets
  localparam int LOGN     = 4096;
  localparam int WAIT     = 100000;
  localparam int ERR_MAX  = 16;             // longest qp_err latency (+err_lat)
  localparam logic [23:0] PD = 24'h000abc;

  // Keys: low nibble = granted rights, bit 4 = has an R_Key.
  localparam logic [31:0] LKEY    = 32'h0000_0101;   // LOCAL_WRITE
  localparam logic [31:0] LKEY2   = 32'h0000_0201;
  localparam logic [31:0] LKEY_RO = 32'h0000_0300;   // local read only
  localparam logic [31:0] RKEY_W  = 32'h0000_0415;   // LW | REMOTE_WRITE, remote
  localparam logic [31:0] RKEY_R  = 32'h0000_0513;   // LW | REMOTE_READ, remote
  localparam logic [31:0] RKEY_NR = 32'h0000_0605;   // LW | REMOTE_WRITE, no R_Key

  // ---------------------------------------------------------------- DUT
  logic         clk = 1'b0;
  logic         rst_n = 1'b0;
  logic         rx_valid = 1'b0, rx_ready;
  logic [383:0] rx = '0;
  logic         tx_valid, tx_ready = 1'b0;
  logic [383:0] tx;
  logic [5:0]   qpc_idx;
  logic [511:0] qpc;
  logic [1:0]   qp_state;
  logic [15:0]  rq_pi, rq_ci;
  logic         rq_ci_inc, qp_err_valid;
  logic [5:0]   qp_err_qpn;
  logic         xq_valid, xq_ready = 1'b0;
  logic [7:0]   xq_tag;
  logic [3:0]   xq_rights;
  logic         xq_remote;
  logic [31:0]  xq_key;
  logic [23:0]  xq_pd;
  logic [31:0]  xq_len;
  logic [63:0]  xq_va;
  logic         xs_valid = 1'b0, xs_ready;
  logic [7:0]   xs_tag = '0;
  logic [3:0]   xs_status = '0;
  logic         xs_last = 1'b0;
  logic [31:0]  xs_len = '0;
  logic [63:0]  xs_pa = '0;
  logic         dma_req_valid, dma_req_ready = 1'b0;
  logic [511:0] dma_req;
  logic         dma_rsp_valid = 1'b0, dma_rsp_ready;
  logic [1087:0] dma_rsp = '0;
  logic         pb_alloc_valid = 1'b0, pb_alloc_ready;
  logic [7:0]   pb_alloc_id = '0;
  logic         pb_free_valid, pb_free_ready = 1'b0;
  logic [7:0]   pb_free_id;
  logic         cpl_valid, cpl_ready = 1'b0;
  logic [255:0] cpl;
  logic [15:0]  cpl_cqn;
  logic         place_busy;   // observed only (ctx DRAIN input in hca_core)
  logic         evt_valid, evt_ready = 1'b0;
  logic [`HCA_FW_EVENT_W-1:0] evt;
  logic         evt_done_valid = 1'b0;
  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag = '0;
  logic [7:0]   evt_done_status = '0;

  always #5 clk = !clk;

  reg  [63:0] tbq = '0;         // flush-queue pushes, see "QP contexts"
  reg         tb_push;
  reg  [5:0]  tb_push_q;
  wire        tb_errv;
  wire [5:0]  tb_errq;

  hca_responder #(
    .MAX_QP (64)
  ) dut (
    .clk_i            (clk),
    .rst_ni           (rst_n),
    .rx_valid_i       (rx_valid),
    .rx_ready_o       (rx_ready),
    .rx_i             (rx),
    .tx_valid_o       (tx_valid),
    .tx_ready_i       (tx_ready),
    .tx_o             (tx),
    .qpc_idx_o        (qpc_idx),
    .qpc_i            (qpc),
    .qp_state_i       (qp_state),
    .rq_pi_i          (rq_pi),
    .rq_ci_i          (rq_ci),
    .rq_ci_inc_o      (rq_ci_inc),
    .qp_err_valid_o   (qp_err_valid),
    .qp_err_qpn_o     (qp_err_qpn),
    .fl_qpc_set_i     (tb_push),
    .fl_qpc_qpn_i     (16'(tb_push_q)),
    .fl_req_err_i     (tb_errv),
    .fl_req_err_qpn_i (16'(tb_errq)),
    .fl_rq_db_i       (1'b0),
    .fl_rq_db_qpn_i   (16'd0),
    .xq_valid_o       (xq_valid),
    .xq_ready_i       (xq_ready),
    .xq_tag_o         (xq_tag),
    .xq_rights_o      (xq_rights),
    .xq_remote_o      (xq_remote),
    .xq_key_o         (xq_key),
    .xq_pd_o          (xq_pd),
    .xq_len_o         (xq_len),
    .xq_va_o          (xq_va),
    .xs_valid_i       (xs_valid),
    .xs_ready_o       (xs_ready),
    .xs_tag_i         (xs_tag),
    .xs_status_i      (xs_status),
    .xs_last_i        (xs_last),
    .xs_len_i         (xs_len),
    .xs_pa_i          (xs_pa),
    .dma_req_valid_o  (dma_req_valid),
    .dma_req_ready_i  (dma_req_ready),
    .dma_req_o        (dma_req),
    .dma_rsp_valid_i  (dma_rsp_valid),
    .dma_rsp_ready_o  (dma_rsp_ready),
    .dma_rsp_i        (dma_rsp),
    .pb_alloc_valid_i (pb_alloc_valid),
    .pb_alloc_ready_o (pb_alloc_ready),
    .pb_alloc_id_i    (pb_alloc_id),
    .pb_free_valid_o  (pb_free_valid),
    .pb_free_ready_i  (pb_free_ready),
    .pb_free_id_o     (pb_free_id),
    .cpl_valid_o      (cpl_valid),
    .cpl_ready_i      (cpl_ready),
    .cpl_o            (cpl),
    .cpl_cqn_o        (cpl_cqn),
    .place_busy_o     (place_busy),
    .evt_valid_o      (evt_valid),
    .evt_ready_i      (evt_ready),
    .evt_o            (evt),
    .evt_done_valid_i (evt_done_valid),
    .evt_done_tag_i   (evt_done_tag),
    .evt_done_status_i(evt_done_status)
  );

  // ---------------------------------------------------------------- run state
  integer seed = 1;
  integer seed0;
  integer stall = 30;
  integer verbose = 0;
  integer err_lat = 3;            // cycles from a qp_err pulse to the QP reading ERROR
  integer cycle = 0;
  integer last_act = 0;           // cycle of the last handshake anywhere
  reg [8*40-1:0] tcase = "reset";

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (verbose > 1 && cycle % 1000 == 0) $display("hca_responder_tb: cycle %0d state %0d flush head %0d/%0d qpn %0d", cycle, dut.state_q, dut.fq_valid, dut.fq_head, dut.qpn_q);
  end

  function automatic integer rnd(input integer n);
    integer r;
    r = $random(seed);
    rnd = (r < 0 ? -r : r) % n;
  endfunction

  function automatic bit go;
    go = rnd(100) >= stall;
  endfunction

  // ---------------------------------------------------------------- host memory, packet buffers
  reg [7:0] mem    [0:MEM_SIZE-1];
  reg [7:0] bufmem [0:NBUF*BSZ-1];
  integer   owner  [0:NBUF-1];    // 0 free, 1 DUT (rx packet), 2 DUT (allocated)

  function automatic [7:0] bg(input integer a);        // untouched host memory
    bg = 8'(a ^ (a >> 8) ^ 8'h5a);
  endfunction

  function automatic [7:0] pat(input integer msg, input integer pos);  // payload byte
    pat = 8'(msg * 29 + pos + (pos >> 8) * 3 + 8'h11);
  endfunction

  // ---------------------------------------------------------------- QP contexts
  reg [511:0] qctx [0:63];
  reg [1:0]   qst  [0:63];
  reg [15:0]  qpi  [0:63];
  reg [15:0]  qci  [0:63];
  reg [5:0]   idx_r = '0;
  integer     ninc = 0;

  always @(posedge clk) idx_r <= qpc_idx;

  // The DUT's flush queue is pushed as hca_ctx would: a QP the bench set up
  // or posted to (tbq, one a cycle, lowest first) and a QP its error pipe
  // moves to ERROR, in the cycle the write lands.
  integer     tbi;
  always @* begin
    tb_push   = 1'b0;
    tb_push_q = '0;
    for (tbi = 63; tbi >= 0; tbi = tbi - 1) begin
      if (tbq[tbi]) begin
        tb_push   = 1'b1;
        tb_push_q = tbi[5:0];
      end
    end
  end
  always @(posedge clk) if (tb_push) tbq[tb_push_q] <= 1'b0;
  assign qpc      = qctx[idx_r];
  assign qp_state = qst[idx_r];
  assign rq_pi    = qpi[idx_r];
  assign rq_ci    = qci[idx_r];

  reg [5:0] errq_pipe [0:ERR_MAX-1];
  reg       errv_pipe [0:ERR_MAX-1];
  integer   nerr = 0;
  reg [5:0] err_log [0:LOGN-1];
  integer   pi;

  assign tb_errv = errv_pipe[err_lat - 1];
  assign tb_errq = errq_pipe[err_lat - 1];

  always @(posedge clk) begin
    if (rst_n && rq_ci_inc) begin
      qci[qpc_idx] <= qci[qpc_idx] + 16'd1;
      ninc = ninc + 1;
      last_act = cycle;
    end
    errv_pipe[0] <= rst_n && qp_err_valid;
    errq_pipe[0] <= qp_err_qpn;
    for (pi = 1; pi < ERR_MAX; pi = pi + 1) begin
      errv_pipe[pi] <= errv_pipe[pi - 1];
      errq_pipe[pi] <= errq_pipe[pi - 1];
    end
    if (errv_pipe[err_lat - 1]) qst[errq_pipe[err_lat - 1]] <= `HCA_QP_STATE_ERROR;
    if (rst_n && qp_err_valid) begin
      err_log[nerr % LOGN] = qp_err_qpn;
      nerr = nerr + 1;
      last_act = cycle;
    end
  end

  // ---------------------------------------------------------------- translation unit model
  reg [31:0] fail_key = '0;
  reg [63:0] bad_lo = '0, bad_hi = '0;
  integer    fail_from = -1;

  reg [31:0] xl_key    [0:LOGN-1];
  reg [3:0]  xl_rights [0:LOGN-1];
  reg        xl_remote [0:LOGN-1];
  reg [23:0] xl_pd     [0:LOGN-1];
  reg [31:0] xl_len    [0:LOGN-1];
  reg [63:0] xl_va     [0:LOGN-1];
  integer    nxl = 0;

  localparam int BQ = 1 << 14;
  reg [7:0]  bq_tag  [0:BQ-1];
  reg [3:0]  bq_st   [0:BQ-1];
  reg        bq_last [0:BQ-1];
  reg [31:0] bq_len  [0:BQ-1];
  reg [63:0] bq_pa   [0:BQ-1];
  integer    bq_time [0:BQ-1];
  integer    bq_head = 0, bq_tail = 0;

  task automatic bq_push(input [7:0] tag, input [3:0] st, input bit last, input [31:0] len,
                         input [63:0] pa);
    if (bq_tail - bq_head >= BQ) $fatal(1, "%0s: bench beat queue overflow", tcase);
    bq_tag[bq_tail % BQ]  = tag;
    bq_st[bq_tail % BQ]   = st;
    bq_last[bq_tail % BQ] = last;
    bq_len[bq_tail % BQ]  = len;
    bq_pa[bq_tail % BQ]   = pa;
    bq_time[bq_tail % BQ] = cycle + `HCA_XU_LATENCY;
    bq_tail = bq_tail + 1;
  endtask

  reg [63:0] xv, xend, xseg;
  reg        xdone;
  reg        xs_hs = 1'b0;

  always @(posedge clk) begin
    if (rst_n && xq_valid && xq_ready) begin
      last_act = cycle;
      xl_key[nxl % LOGN]    = xq_key;
      xl_rights[nxl % LOGN] = xq_rights;
      xl_remote[nxl % LOGN] = xq_remote;
      xl_pd[nxl % LOGN]     = xq_pd;
      xl_len[nxl % LOGN]    = xq_len;
      xl_va[nxl % LOGN]     = xq_va;
      nxl = nxl + 1;
      if (xq_pd != PD)
        bq_push(xq_tag, `HCA_XLATE_STATUS_ERR_PD, 1'b1, 32'd0, 64'd0);
      else if ((fail_key != 32'd0 && xq_key == fail_key) || (fail_from >= 0 && nxl - 1 - b_xl >= fail_from))
        bq_push(xq_tag, `HCA_XLATE_STATUS_ERR_STATE, 1'b1, 32'd0, 64'd0);
      else if (xq_remote && !xq_key[4])
        bq_push(xq_tag, `HCA_XLATE_STATUS_ERR_KEY, 1'b1, 32'd0, 64'd0);
      else if ((xq_rights & ~xq_key[3:0]) != 4'd0)
        bq_push(xq_tag, `HCA_XLATE_STATUS_ERR_RIGHTS, 1'b1, 32'd0, 64'd0);
      else if (xq_len == 32'd0)
        bq_push(xq_tag, `HCA_XLATE_STATUS_OK, 1'b1, 32'd0, xq_va);
      else begin
        xv    = xq_va;
        xend  = xq_va + 64'(xq_len);
        xdone = 1'b0;
        while (!xdone) begin
          xseg = ((xv >> 12) + 64'd1) << 12;      // end of this 4 KiB page
          if (xseg > xend) xseg = xend;
          if (xv < bad_hi && xseg > bad_lo) begin
            bq_push(xq_tag, `HCA_XLATE_STATUS_ERR_MTT, 1'b1, 32'd0, 64'd0);
            xdone = 1'b1;
          end else begin
            bq_push(xq_tag, `HCA_XLATE_STATUS_OK, xseg == xend, 32'(xseg - xv), xv);
            xdone = xseg == xend;
          end
          xv = xseg;
        end
      end
    end
    xs_hs = xs_valid && xs_ready;
    if (rst_n && xs_hs) begin
      bq_head = bq_head + 1;
      last_act = cycle;
    end
  end

  always @(negedge clk) begin
    xq_ready <= rst_n && go();
    if (!(xs_valid && !xs_hs)) begin
      if (rst_n && bq_head != bq_tail && bq_time[bq_head % BQ] <= cycle && go()) begin
        xs_valid  <= 1'b1;
        xs_tag    <= bq_tag[bq_head % BQ];
        xs_status <= bq_st[bq_head % BQ];
        xs_last   <= bq_last[bq_head % BQ];
        xs_len    <= bq_len[bq_head % BQ];
        xs_pa     <= bq_pa[bq_head % BQ];
      end else begin
        xs_valid <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- DMA model
  reg [63:0] berr_lo = '0, berr_hi = '0;
  localparam int OT = 64;
  reg         ot_v    [0:OT-1];
  reg [511:0] ot_req  [0:OT-1];
  integer     ot_time [0:OT-1];
  integer     ot_n = 0;
  reg [511:0] dl_req [0:LOGN-1];
  integer     ndma = 0;
  integer     rs_slot = 0;
  reg         rsp_hs = 1'b0;
  integer     di, dj, dk;
  reg [63:0]  d_addr;
  reg [31:0]  d_len, d_off;
  reg [7:0]   d_buf;
  reg [3:0]   d_op;

  function automatic bit bus_err(input [63:0] addr, input [31:0] len);
    bus_err = addr < berr_hi && addr + 64'(len) > berr_lo;
  endfunction

  always @(posedge clk) begin
    // an answer taken: move the bytes
    rsp_hs = dma_rsp_valid && dma_rsp_ready;
    if (rst_n && rsp_hs) begin
      last_act = cycle;
      d_op   = `HCA_DMA_REQ_OP(ot_req[rs_slot]);
      d_addr = `HCA_DMA_REQ_ADDR(ot_req[rs_slot]);
      d_len  = `HCA_DMA_REQ_LEN(ot_req[rs_slot]);
      d_off  = `HCA_DMA_REQ_BUF_OFF(ot_req[rs_slot]);
      d_buf  = `HCA_DMA_REQ_BUF(ot_req[rs_slot]);
      if (!bus_err(d_addr, d_len)) begin
        if (d_op == `HCA_DMA_OP_BUF_TO_HOST)
          for (dk = 0; dk < d_len; dk = dk + 1)
            mem[d_addr + dk] = bufmem[d_buf * BSZ + d_off + dk];
        else if (d_op == `HCA_DMA_OP_HOST_TO_BUF)
          for (dk = 0; dk < d_len; dk = dk + 1)
            bufmem[d_buf * BSZ + d_off + dk] = mem[d_addr + dk];
      end
      ot_v[rs_slot] = 1'b0;
      ot_n = ot_n - 1;
    end
    // a request taken: check it, keep it in flight
    if (rst_n && dma_req_valid && dma_req_ready) begin
      last_act = cycle;
      d_op   = `HCA_DMA_REQ_OP(dma_req);
      d_addr = `HCA_DMA_REQ_ADDR(dma_req);
      d_len  = `HCA_DMA_REQ_LEN(dma_req);
      d_off  = `HCA_DMA_REQ_BUF_OFF(dma_req);
      d_buf  = `HCA_DMA_REQ_BUF(dma_req);
      if (`HCA_DMA_REQ_TAG(dma_req) >> 6 != 2'b01)
        $fatal(1, "%0s: cycle %0d: DMA tag %h is not a responder tag (01xx_xxxx)", tcase, cycle,
               `HCA_DMA_REQ_TAG(dma_req));
      for (di = 0; di < OT; di = di + 1)
        if (ot_v[di] && `HCA_DMA_REQ_TAG(ot_req[di]) == `HCA_DMA_REQ_TAG(dma_req))
          $fatal(1, "%0s: cycle %0d: DMA tag %h reused while in flight", tcase, cycle, `HCA_DMA_REQ_TAG(dma_req));
      if (d_addr + 64'(d_len) > MEM_SIZE)
        $fatal(1, "%0s: cycle %0d: DMA addr %h len %0d outside the bench memory", tcase, cycle, d_addr, d_len);
      case (d_op)
        `HCA_DMA_OP_READ_DATA: begin
          if (d_len != 32'd64 || `HCA_DMA_REQ_KEY(dma_req) != 32'd0 || d_addr[5:0] != 6'd0)
            $fatal(1, "%0s: cycle %0d: WQE fetch expected len 64 key 0 aligned, got len %0d key %h addr %h",
                   tcase, cycle, d_len, `HCA_DMA_REQ_KEY(dma_req), d_addr);
        end
        `HCA_DMA_OP_BUF_TO_HOST, `HCA_DMA_OP_HOST_TO_BUF: begin
          if (d_len == 32'd0 || d_buf >= NBUF || owner[d_buf] == 0 || d_off + d_len > BSZ)
            $fatal(1, "%0s: cycle %0d: DMA op %0d buf %0d (owner %0d) off %0d len %0d: bad buffer access",
                   tcase, cycle, d_op, d_buf, d_buf < NBUF ? owner[d_buf] : -1, d_off, d_len);
          if (`HCA_DMA_REQ_KEY(dma_req) == 32'd0)
            $fatal(1, "%0s: cycle %0d: data DMA without its key", tcase, cycle);
          if (fail_key != 32'd0 && `HCA_DMA_REQ_KEY(dma_req) == fail_key)
            $fatal(1, "%0s: cycle %0d: DMA op %0d addr %h through invalidated key %h", tcase, cycle,
                   d_op, d_addr, fail_key);
        end
        default: $fatal(1, "%0s: cycle %0d: DMA op %0d is not the responder's", tcase, cycle, d_op);
      endcase
      dj = -1;
      for (di = 0; di < OT; di = di + 1) if (!ot_v[di] && dj < 0) dj = di;
      if (dj < 0) $fatal(1, "%0s: bench DMA table full", tcase);
      ot_v[dj]    = 1'b1;
      ot_req[dj]  = dma_req;
      ot_time[dj] = cycle + 6 + rnd(9);
      ot_n = ot_n + 1;
      dl_req[ndma % LOGN] = dma_req;
      ndma = ndma + 1;
    end
  end

  always @(negedge clk) begin
    dma_req_ready <= rst_n && go();
    if (!(dma_rsp_valid && !rsp_hs)) begin
      dma_rsp_valid <= 1'b0;
      if (rst_n && go()) begin
        // Start the search at a random slot: answers leave out of order.
        dj = -1;
        dk = rnd(OT);
        for (di = 0; di < OT; di = di + 1)
          if (dj < 0 && ot_v[(dk + di) % OT] && ot_time[(dk + di) % OT] <= cycle) dj = (dk + di) % OT;
        if (dj >= 0) begin
          rs_slot = dj;
          dma_rsp_valid <= 1'b1;
          dma_rsp = '0;
          `HCA_DMA_RSP_RTAG(dma_rsp) = `HCA_DMA_REQ_TAG(ot_req[dj]);
          `HCA_DMA_RSP_ERR(dma_rsp)  = bus_err(`HCA_DMA_REQ_ADDR(ot_req[dj]), `HCA_DMA_REQ_LEN(ot_req[dj]));
          if (`HCA_DMA_REQ_OP(ot_req[dj]) == `HCA_DMA_OP_READ_DATA && !`HCA_DMA_RSP_ERR(dma_rsp))
            for (dk = 0; dk < 64; dk = dk + 1)
              dma_rsp[`HCA_DMA_RSP_RDATA_LSB + dk * 8 +: 8] = mem[`HCA_DMA_REQ_ADDR(ot_req[dj]) + dk];
        end
      end
    end
  end

  // ---------------------------------------------------------------- packet buffer pool
  integer nalloc = 0, nfree = 0;
  reg     alloc_hs = 1'b0;
  integer bi, bj;

  always @(posedge clk) begin
    alloc_hs = pb_alloc_valid && pb_alloc_ready;
    if (rst_n && alloc_hs) begin
      if (owner[pb_alloc_id] != 0) $fatal(1, "%0s: bench offered a busy buffer", tcase);
      owner[pb_alloc_id] = 2;
      nalloc = nalloc + 1;
      last_act = cycle;
    end
    if (rst_n && pb_free_valid && pb_free_ready) begin
      if (pb_free_id >= NBUF || owner[pb_free_id] == 0)
        $fatal(1, "%0s: cycle %0d: free of buffer %0d, which the responder does not hold", tcase, cycle,
               pb_free_id);
      owner[pb_free_id] = 0;
      nfree = nfree + 1;
      last_act = cycle;
    end
  end

  always @(negedge clk) begin
    pb_free_ready <= rst_n && go();
    if (!(pb_alloc_valid && !alloc_hs)) begin
      bj = -1;
      for (bi = RXBUFS; bi < NBUF; bi = bi + 1) if (owner[bi] == 0) bj = bi;
      if (rst_n && bj >= 0 && go()) begin
        pb_alloc_valid <= 1'b1;
        pb_alloc_id    <= 8'(bj);
      end else begin
        pb_alloc_valid <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- link source
  reg [383:0] rxq [0:255];
  integer     rxq_head = 0, rxq_tail = 0;
  reg         rx_hs = 1'b0;

  always @(posedge clk) begin
    rx_hs = rx_valid && rx_ready;
    if (rst_n && rx_hs) begin
      rxq_head = rxq_head + 1;
      last_act = cycle;
    end
  end

  always @(negedge clk) begin
    if (!(rx_valid && !rx_hs)) begin
      if (rst_n && rxq_head != rxq_tail && go()) begin
        rx_valid <= 1'b1;
        rx       <= rxq[rxq_head % 256];
      end else begin
        rx_valid <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- link and CQ sinks
  reg [383:0] tx_log [0:LOGN-1];
  integer     ntx = 0;
  reg [255:0] cqe_log [0:LOGN-1];
  reg [15:0]  cqn_log [0:LOGN-1];
  integer     ncqe = 0;
  integer     ti;
  reg [7:0]   t_buf;
  reg [31:0]  t_len, t_off;
  reg [63:0]  t_raddr;

  // Held streams: what was offered and not taken must come again unchanged.
  reg         tx_held = 1'b0, cpl_held = 1'b0, xq_held = 1'b0, dq_held = 1'b0, fr_held = 1'b0;
  reg [383:0] tx_prev;
  reg [271:0] cpl_prev;
  reg [164:0] xq_prev;
  reg [511:0] dq_prev;
  reg [7:0]   fr_prev;

  always @(posedge clk) begin
    if (rst_n) begin
      if (tx_held && (!tx_valid || tx !== tx_prev))
        $fatal(1, "%0s: cycle %0d: tx changed while stalled", tcase, cycle);
      if (cpl_held && (!cpl_valid || {cpl_cqn, cpl} !== cpl_prev))
        $fatal(1, "%0s: cycle %0d: cpl changed while stalled", tcase, cycle);
      if (xq_held && (!xq_valid || {xq_tag, xq_rights, xq_remote, xq_key, xq_pd, xq_len, xq_va} !== xq_prev))
        $fatal(1, "%0s: cycle %0d: xq changed while stalled", tcase, cycle);
      if (dq_held && (!dma_req_valid || dma_req !== dq_prev))
        $fatal(1, "%0s: cycle %0d: dma_req changed while stalled", tcase, cycle);
      if (fr_held && (!pb_free_valid || pb_free_id !== fr_prev))
        $fatal(1, "%0s: cycle %0d: pb_free changed while stalled", tcase, cycle);
    end
    tx_held  = rst_n && tx_valid && !tx_ready;
    tx_prev  = tx;
    cpl_held = rst_n && cpl_valid && !cpl_ready;
    cpl_prev = {cpl_cqn, cpl};
    xq_held  = rst_n && xq_valid && !xq_ready;
    xq_prev  = {xq_tag, xq_rights, xq_remote, xq_key, xq_pd, xq_len, xq_va};
    dq_held  = rst_n && dma_req_valid && !dma_req_ready;
    dq_prev  = dma_req;
    fr_held  = rst_n && pb_free_valid && !pb_free_ready;
    fr_prev  = pb_free_id;

    if (rst_n && tx_valid && tx_ready) begin
      last_act = cycle;
      tx_log[ntx % LOGN] = tx;
      ntx = ntx + 1;
      if (`HCA_PKT_OP(tx) == `HCA_PKT_OP_READ_RESP) begin
        t_buf   = `HCA_PKT_PBUF(tx);
        t_len   = `HCA_PKT_LEN(tx);
        t_off   = `HCA_PKT_OFFSET(tx);
        t_raddr = `HCA_PKT_RADDR(tx);
        if (t_len != 32'd0) begin
          if (t_buf >= NBUF || owner[t_buf] != 2)
            $fatal(1, "%0s: READ_RESP in buffer %0d, which the responder did not allocate", tcase, t_buf);
          for (ti = 0; ti < t_len; ti = ti + 1)
            if (bufmem[t_buf * BSZ + ti] !== mem[t_raddr + ti])
              $fatal(1, "%0s: READ_RESP offset %0d byte %0d: expected %h (host %h), got %h", tcase, t_off,
                     ti, mem[t_raddr + ti], t_raddr + ti, bufmem[t_buf * BSZ + ti]);
          owner[t_buf] = 0;   // the requester placed it and freed the buffer
        end else if (t_buf != 8'd0) begin
          $fatal(1, "%0s: empty READ_RESP names buffer %0d, expected 0", tcase, t_buf);
        end
      end
    end
    if (rst_n && cpl_valid && cpl_ready) begin
      last_act = cycle;
      cqe_log[ncqe % LOGN] = cpl;
      cqn_log[ncqe % LOGN] = cpl_cqn;
      ncqe = ncqe + 1;
    end
  end

  always @(negedge clk) begin
    tx_ready  <= rst_n && go();
    cpl_ready <= rst_n && go();
  end

  // ---------------------------------------------------------------- firmware stand-in (events)
  integer     fw_lat = 5;            // cycles from taking an event to its DONE
  reg [7:0]   fw_status = '0;        // the DONE's status
  integer     fw_decoy = 0;          // first a DONE for: 1 the requester's QP of that number, 2 the next responder QP
  integer     evt_hold = 0;          // evt_ready low until this cycle
  reg [`HCA_FW_EVENT_W-1:0] evt_log [0:LOGN-1];
  integer     evt_dma_log [0:LOGN-1];   // DMAs the DUT had issued when the event was taken
  integer     nevt = 0;
  bit         fw_pend = 1'b0, fw_decoy_sent = 1'b0;
  integer     fw_done_at = 0, fw_ntx = 0, fw_ncqe = 0;
  reg [`HCA_EVT_DONE_TAG_W-1:0] fw_tag = '0;
  reg         evt_hs = 1'b0, ev_held = 1'b0;
  reg [`HCA_FW_EVENT_W-1:0] ev_prev;

  always @(posedge clk) begin
    if (rst_n && ev_held && (!evt_valid || evt !== ev_prev))
      $fatal(1, "%0s: cycle %0d: evt changed while stalled", tcase, cycle);
    ev_held = rst_n && evt_valid && !evt_ready;
    ev_prev = evt;
    evt_hs  = evt_valid && evt_ready;
    if (rst_n && evt_hs) begin
      last_act = cycle;
      if (fw_pend)
        $fatal(1, "%0s: cycle %0d: expected no event while tag %h waits for DONE, got another", tcase, cycle,
               fw_tag);
      if (ot_n != 0 || place_busy)
        $fatal(1, "%0s: cycle %0d: event: expected every placement DMA answered, got %0d in flight, place_busy %0d",
               tcase, cycle, ot_n, place_busy);
      evt_log[nevt % LOGN]     = evt;
      evt_dma_log[nevt % LOGN] = ndma;
      nevt = nevt + 1;
      fw_pend       = 1'b1;
      fw_decoy_sent = 1'b0;
      fw_tag        = `HCA_FW_EVENT_TAG(evt);
      fw_done_at    = cycle + fw_lat;
      fw_ntx        = ntx;
      fw_ncqe       = ncqe;
    end else if (rst_n && fw_pend) begin
      if (place_busy)
        $fatal(1, "%0s: cycle %0d: while waiting for DONE expected place_busy low (DRAIN), got high", tcase, cycle);
      if (evt_done_valid && evt_done_tag == fw_tag) begin
        last_act = cycle;
        fw_pend  = 1'b0;
      end
      if (ntx != fw_ntx || ncqe != fw_ncqe)
        $fatal(1, "%0s: cycle %0d: before the DONE of tag %h expected no packet and no CQE, got %0d packets, %0d CQEs",
               tcase, cycle, fw_tag, ntx - fw_ntx, ncqe - fw_ncqe);
    end
  end

  always @(negedge clk) begin
    evt_ready      <= rst_n && cycle >= evt_hold && go();
    evt_done_valid <= 1'b0;
    if (rst_n && fw_pend && fw_decoy != 0 && !fw_decoy_sent) begin
      // Another waiter's DONE, with the opposite outcome: must change nothing.
      fw_decoy_sent = 1'b1;
      evt_done_valid  <= 1'b1;
      evt_done_tag    <= fw_decoy == 1 ? fw_tag ^ (`HCA_EVT_DONE_TAG_W)'(`HCA_EVT_TAG_RESPONDER) : fw_tag + 1'b1;
      evt_done_status <= fw_status == 8'(`HCA_WC_STATUS_SUCCESS) ? 8'(`HCA_WC_STATUS_REM_INV_REQ_ERR)
                                                               : 8'(`HCA_WC_STATUS_SUCCESS);
    end else if (rst_n && fw_pend && cycle >= fw_done_at) begin
      evt_done_valid  <= 1'b1;
      evt_done_tag    <= fw_tag;
      evt_done_status <= fw_status;
    end
  end

  // ---------------------------------------------------------------- bench helpers
  integer b_tx, b_cqe, b_err, b_xl, b_dma, b_inc, b_alloc, b_evt;
  reg [31:0] pkt_inv_key = 32'hdead_0001;   // inv_key of the packets send_pkt queues
  integer k;

  function automatic [63:0] rq_base(input integer q);
    rq_base = 64'h8_0000 + 64'(q) * 64'h1000;
  endfunction

  task automatic wr8(input [63:0] a, input [7:0] v);
    mem[a] = v;
  endtask

  task automatic wr_le(input [63:0] a, input integer n, input [63:0] v);
    integer i;
    for (i = 0; i < n; i = i + 1) mem[a + i] = v[i * 8 +: 8];
  endtask

  // QP q: state, MTU, RQ of 16 entries, PD, recv CQ 0x100 + q.
  task automatic qp_setup(input integer q, input [1:0] st, input [3:0] mtu_log2);
    reg [511:0] c;
    c = '0;
    `HCA_QP_CTX_STATE(c)     = st;
    `HCA_QP_CTX_MTU_LOG2(c)  = mtu_log2;
    `HCA_QP_CTX_RQ_LOG(c)    = 4'd4;
    `HCA_QP_CTX_SQ_LOG(c)    = 4'd4;
    `HCA_QP_CTX_PD(c)        = 32'(PD);
    `HCA_QP_CTX_RQ_BASE(c)   = rq_base(q);
    `HCA_QP_CTX_SQ_BASE(c)   = 64'hc_0000;
    `HCA_QP_CTX_SEND_CQN(c)  = 16'h200 + 16'(q);
    `HCA_QP_CTX_RECV_CQN(c)  = 16'h100 + 16'(q);
    `HCA_QP_CTX_REMOTE_QPN(c) = 32'd99;
    qctx[q] = c;
    qst[q]  = st;
    qpi[q]  = 16'd0;
    tbq[q]  = 1'b1;
    qci[q]  = 16'd0;
  endtask

  // Post a receive WQE (ctrl: num_sge and any reserved bits to test).
  task automatic post_recv(input integer q, input [63:0] wr_id, input [31:0] ctrl,
                           input [63:0] a0, input [31:0] l0, input [31:0] k0,
                           input [63:0] a1, input [31:0] l1, input [31:0] k1,
                           input [63:0] a2, input [31:0] l2, input [31:0] k2);
    reg [63:0] a;
    a = rq_base(q) + 64'(qpi[q] & 16'hf) * 64;
    wr_le(a, 8, wr_id);
    wr_le(a + 8, 4, 64'(ctrl));
    wr_le(a + 12, 4, 64'd0);
    wr_le(a + 16, 8, a0); wr_le(a + 24, 4, 64'(l0)); wr_le(a + 28, 4, 64'(k0));
    wr_le(a + 32, 8, a1); wr_le(a + 40, 4, 64'(l1)); wr_le(a + 44, 4, 64'(k1));
    wr_le(a + 48, 8, a2); wr_le(a + 56, 4, 64'(l2)); wr_le(a + 60, 4, 64'(k2));
    qpi[q] = qpi[q] + 16'd1;
    tbq[q] = 1'b1;
  endtask

  // Queue one packet from requester QP sq to our QP dq; its payload (len
  // bytes of message msg from offset off) goes into a free rx buffer.
  task automatic send_pkt(input [3:0] op, input bit first, input bit last, input [15:0] dq,
                          input [15:0] sq, input [31:0] psn, input [31:0] rkey, input [63:0] raddr,
                          input [31:0] len, input [31:0] msg_len, input [31:0] off, input integer msg);
    reg [383:0] p;
    integer b, i, n;
    b = -1;
    n = 0;
    while (b < 0) begin
      for (i = RXBUFS - 1; i >= 0; i = i - 1) if (owner[i] == 0) b = i;
      if (b < 0) begin
        @(negedge clk);
        n = n + 1;
        if (n > WAIT) $fatal(1, "%0s: no packet buffer comes back", tcase);
      end
    end
    owner[b] = 1;
    for (i = 0; i < len && i < BSZ; i = i + 1) bufmem[b * BSZ + i] = pat(msg, off + i);
    p = '0;
    `HCA_PKT_OP(p)      = op;
    `HCA_PKT_FIRST(p)   = first;
    `HCA_PKT_LAST(p)    = last;
    `HCA_PKT_PBUF(p)    = 8'(b);
    `HCA_PKT_DST_QPN(p) = dq;
    `HCA_PKT_SRC_QPN(p) = sq;
    `HCA_PKT_PSN(p)     = psn;
    `HCA_PKT_RKEY(p)    = rkey;
    `HCA_PKT_RADDR(p)   = raddr;
    `HCA_PKT_LEN(p)     = len;
    `HCA_PKT_MSG_LEN(p) = msg_len;
    `HCA_PKT_OFFSET(p)  = off;
    `HCA_PKT_INV_KEY(p) = pkt_inv_key;
    if (op == `HCA_PKT_OP_READ_REQ) begin
      owner[b] = 0;            // READ_REQ carries no buffer
      `HCA_PKT_PBUF(p) = 8'd0;
    end
    while (rxq_tail - rxq_head >= 256) @(negedge clk);
    rxq[rxq_tail % 256] = p;
    rxq_tail = rxq_tail + 1;
  endtask

  // A whole SEND/WRITE message in MTU-sized packets starting at raddr.
  task automatic send_msg(input [3:0] op, input [15:0] dq, input [15:0] sq, input [31:0] psn,
                          input [31:0] rkey, input [63:0] raddr, input [31:0] msg_len,
                          input [31:0] mtu, input integer msg);
    reg [31:0] off, n;
    off = 0;
    do begin
      n = msg_len - off > mtu ? mtu : msg_len - off;
      send_pkt(op, off == 0, off + n == msg_len, dq, sq, psn, rkey, raddr + 64'(off), n, msg_len, off, msg);
      off = off + n;
    end while (off < msg_len);
  endtask

  // Wait until everything handed to the DUT is finished and nothing moved
  // for 300 cycles (a flush step is 3 cycles per WQE).
  task automatic settle;
    integer n;
    n = 0;
    @(negedge clk);
    last_act = cycle;     // what was just posted may take a few steps to be seen
    while (rxq_head != rxq_tail || ot_n != 0 || bq_head != bq_tail || tx_valid || cpl_valid ||
           pb_free_valid || evt_valid || fw_pend || cycle - last_act < 300) begin
      @(negedge clk);
      n = n + 1;
      if (n > WAIT) $fatal(1, "%0s: timeout: rx %0d/%0d taken, %0d DMAs in flight, %0d beats pending, event offered %0d, waiting for DONE %0d",
                           tcase, rxq_head, rxq_tail, ot_n, bq_tail - bq_head, evt_valid, fw_pend);
    end
  endtask

  task automatic begin_case(input [8*40-1:0] name);
    integer i;
    settle();
    tcase = name;
    if (verbose) $display("hca_responder_tb: cycle %0d: case %0s", cycle, name);
    // reset the DUT and the bench's QPs and buffers
    rst_n = 1'b0;
    tbq = '0;
    for (i = 0; i < 64; i = i + 1) begin
      // hca_qfifo never resets its memories (any content must do): random
      dut.u_flush_q.slot_m[i] = 6'($random(seed));
      dut.u_flush_q.pos_m[i]  = 7'($random(seed));
      qst[i] = `HCA_QP_STATE_RESET;
      qpi[i] = 16'd0;
      qci[i] = 16'd0;
      qctx[i] = '0;
    end
    for (i = 0; i < NBUF; i = i + 1) owner[i] = 0;
    fail_key = '0;
    fail_from = -1;
    bad_lo = '0; bad_hi = '0;
    berr_lo = '0; berr_hi = '0;
    pkt_inv_key = 32'hdead_0001;
    fw_lat = 5;
    fw_status = 8'(`HCA_WC_STATUS_SUCCESS);
    fw_decoy = 0;
    evt_hold = 0;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    b_evt = nevt;
    b_tx = ntx; b_cqe = ncqe; b_err = nerr; b_xl = nxl; b_dma = ndma; b_inc = ninc; b_alloc = nalloc;
  endtask

  function automatic integer count_dma(input [3:0] op);
    integer i;
    count_dma = 0;
    for (i = b_dma; i < ndma; i = i + 1)
      if (`HCA_DMA_REQ_OP(dl_req[i % LOGN]) == op) count_dma = count_dma + 1;
  endfunction

  task automatic check_counts(input integer e_tx, input integer e_cqe, input integer e_err);
    if (ntx - b_tx != e_tx || ncqe - b_cqe != e_cqe || nerr - b_err != e_err)
      $fatal(1, "%0s: expected %0d packets, %0d CQEs, %0d qp_err; got %0d, %0d, %0d", tcase,
             e_tx, e_cqe, e_err, ntx - b_tx, ncqe - b_cqe, nerr - b_err);
  endtask

  task automatic check_dmas(input integer e_rd, input integer e_b2h, input integer e_h2b);
    if (count_dma(`HCA_DMA_OP_READ_DATA) != e_rd || count_dma(`HCA_DMA_OP_BUF_TO_HOST) != e_b2h ||
        count_dma(`HCA_DMA_OP_HOST_TO_BUF) != e_h2b)
      $fatal(1, "%0s: expected %0d WQE fetches, %0d BUF_TO_HOST, %0d HOST_TO_BUF; got %0d, %0d, %0d", tcase,
             e_rd, e_b2h, e_h2b, count_dma(`HCA_DMA_OP_READ_DATA), count_dma(`HCA_DMA_OP_BUF_TO_HOST),
             count_dma(`HCA_DMA_OP_HOST_TO_BUF));
  endtask

  task automatic check_xlates(input integer e);
    if (nxl - b_xl != e)
      $fatal(1, "%0s: expected %0d key checks, got %0d", tcase, e, nxl - b_xl);
  endtask

  // Key check i of this case.
  task automatic check_xl(input integer i, input [31:0] key, input [3:0] rights, input bit remote,
                          input [63:0] va, input [31:0] len);
    integer j;
    j = (b_xl + i) % LOGN;
    if (xl_key[j] != key || xl_rights[j] != rights || xl_remote[j] != remote || xl_va[j] != va ||
        xl_len[j] != len || xl_pd[j] != PD)
      $fatal(1, "%0s: key check %0d: expected key %h rights %h remote %0d va %h len %0d pd %h; got key %h rights %h remote %0d va %h len %0d pd %h",
             tcase, i, key, rights, remote, va, len, PD, xl_key[j], xl_rights[j], xl_remote[j], xl_va[j],
             xl_len[j], xl_pd[j]);
  endtask

  // Packet i sent in this case.
  task automatic check_tx(input integer i, input [3:0] op, input [4:0] syndrome, input [15:0] dq,
                          input [15:0] sq, input [31:0] psn);
    reg [383:0] p;
    p = tx_log[(b_tx + i) % LOGN];
    if (`HCA_PKT_OP(p) != op || (op == `HCA_PKT_OP_NAK && `HCA_PKT_SYNDROME(p) != 8'(syndrome)) ||
        `HCA_PKT_DST_QPN(p) != dq || `HCA_PKT_SRC_QPN(p) != sq || `HCA_PKT_PSN(p) != psn)
      $fatal(1, "%0s: packet %0d: expected op %0d syndrome %0d dst %0d src %0d psn %0d; got op %0d syndrome %0d dst %0d src %0d psn %0d",
             tcase, i, op, syndrome, dq, sq, psn, `HCA_PKT_OP(p), `HCA_PKT_SYNDROME(p), `HCA_PKT_DST_QPN(p),
             `HCA_PKT_SRC_QPN(p), `HCA_PKT_PSN(p));
  endtask

  task automatic check_rresp(input integer i, input bit first, input bit last, input [31:0] len,
                             input [31:0] off, input [31:0] msg_len);
    reg [383:0] p;
    p = tx_log[(b_tx + i) % LOGN];
    if (`HCA_PKT_OP(p) != `HCA_PKT_OP_READ_RESP || `HCA_PKT_FIRST(p) != first || `HCA_PKT_LAST(p) != last ||
        `HCA_PKT_LEN(p) != len || `HCA_PKT_OFFSET(p) != off || `HCA_PKT_MSG_LEN(p) != msg_len)
      $fatal(1, "%0s: packet %0d: expected READ_RESP first %0d last %0d len %0d offset %0d msg_len %0d; got op %0d first %0d last %0d len %0d offset %0d msg_len %0d",
             tcase, i, first, last, len, off, msg_len, `HCA_PKT_OP(p), `HCA_PKT_FIRST(p), `HCA_PKT_LAST(p),
             `HCA_PKT_LEN(p), `HCA_PKT_OFFSET(p), `HCA_PKT_MSG_LEN(p));
  endtask

  task automatic check_cqe(input integer i, input [63:0] wr_id, input [4:0] status, input [31:0] byte_len,
                           input integer q, input [15:0] wqe_counter);
    reg [255:0] c;
    reg [15:0]  n;
    c = cqe_log[(b_cqe + i) % LOGN];
    n = cqn_log[(b_cqe + i) % LOGN];
    if (`HCA_CQE_WR_ID(c) != wr_id || `HCA_CQE_STATUS(c) != 8'(status) ||
        `HCA_CQE_OPCODE(c) != `HCA_WC_OPCODE_RECV || `HCA_CQE_BYTE_LEN(c) != byte_len ||
        `HCA_CQE_QPN(c) != 32'(q) || `HCA_CQE_WQE_COUNTER(c) != 32'(wqe_counter) ||
        n != 16'h100 + 16'(q) || `HCA_CQE_OWNER(c) != 1'b0)
      $fatal(1, "%0s: CQE %0d: expected wr_id %h status %0d RECV byte_len %0d qpn %0d wqe_counter %0d cqn %h; got wr_id %h status %0d opcode %0d byte_len %0d qpn %0d wqe_counter %0d cqn %h owner %0d",
             tcase, i, wr_id, status, byte_len, q, wqe_counter, 16'h100 + 16'(q), `HCA_CQE_WR_ID(c),
             `HCA_CQE_STATUS(c), `HCA_CQE_OPCODE(c), `HCA_CQE_BYTE_LEN(c), `HCA_CQE_QPN(c),
             `HCA_CQE_WQE_COUNTER(c), n, `HCA_CQE_OWNER(c));
  endtask

  // CQE i's invalidation report: WITH_INVALIDATE and invalidate_rkey when
  // inv, neither otherwise.
  task automatic check_cqe_inv(input integer i, input bit inv, input [31:0] rkey);
    reg [255:0] c;
    reg [7:0]   e_flags;
    c = cqe_log[(b_cqe + i) % LOGN];
    e_flags = inv ? 8'(1) << `HCA_WC_FLAGS_WITH_INVALIDATE_BIT : 8'd0;
    if (`HCA_CQE_WC_FLAGS(c) != e_flags || `HCA_CQE_INVALIDATE_RKEY(c) != (inv ? rkey : 32'd0))
      $fatal(1, "%0s: CQE %0d: expected wc_flags %h invalidate_rkey %h; got wc_flags %h invalidate_rkey %h",
             tcase, i, e_flags, inv ? rkey : 32'd0, `HCA_CQE_WC_FLAGS(c), `HCA_CQE_INVALIDATE_RKEY(c));
  endtask

  task automatic check_evts(input integer e);
    if (nevt - b_evt != e) $fatal(1, "%0s: expected %0d events, got %0d", tcase, e, nevt - b_evt);
  endtask

  // Event i of this case: REMOTE_INV of responder QP q for key, every other
  // field 0, taken when e_dmas DMAs of the case had been issued (all
  // answered: checked when it was taken).
  task automatic check_evt(input integer i, input integer q, input [31:0] key, input integer e_dmas);
    reg [`HCA_FW_EVENT_W-1:0] e, x;
    e = evt_log[(b_evt + i) % LOGN];
    x = '0;
    `HCA_FW_EVENT_KIND(x) = `HCA_EVT_KIND_REMOTE_INV;
    `HCA_FW_EVENT_TAG(x)  = (`HCA_FW_EVENT_TAG_W)'(`HCA_EVT_TAG_RESPONDER) | (`HCA_FW_EVENT_TAG_W)'(q);
    `HCA_FW_EVENT_QPN(x)  = (`HCA_FW_EVENT_QPN_W)'(q);
    `HCA_FW_EVENT_PD(x)   = 32'(PD);
    `HCA_FW_EVENT_KEY(x)  = key;
    if (e !== x)
      $fatal(1, "%0s: event %0d: expected hdr %h (kind %0d tag %h qpn %0d) pd %h key %h, rest 0; got hdr %h pd %h key %h params %h iova %h length %h list %h rsvd %h",
             tcase, i, `HCA_FW_EVENT_HDR(x), `HCA_EVT_KIND_REMOTE_INV, `HCA_FW_EVENT_TAG(x), q, PD, key,
             `HCA_FW_EVENT_HDR(e), `HCA_FW_EVENT_PD(e), `HCA_FW_EVENT_KEY(e), `HCA_FW_EVENT_PARAMS(e),
             `HCA_FW_EVENT_IOVA(e), `HCA_FW_EVENT_LENGTH(e), `HCA_FW_EVENT_LIST(e), `HCA_FW_EVENT_RSVD(e));
    if (evt_dma_log[(b_evt + i) % LOGN] - b_dma != e_dmas)
      $fatal(1, "%0s: event %0d: expected after the message's %0d DMAs, came after %0d", tcase, i, e_dmas,
             evt_dma_log[(b_evt + i) % LOGN] - b_dma);
  endtask

  task automatic check_err(input integer i, input integer q);
    if (err_log[(b_err + i) % LOGN] != 6'(q))
      $fatal(1, "%0s: qp_err %0d: expected QP %0d, got %0d", tcase, i, q, err_log[(b_err + i) % LOGN]);
  endtask

  task automatic check_state(input integer q, input [1:0] st, input [15:0] ci);
    if (qst[q] != st || qci[q] != ci)
      $fatal(1, "%0s: QP %0d: expected state %0d rq_ci %0d, got state %0d rq_ci %0d", tcase, q, st, ci,
             qst[q], qci[q]);
  endtask

  // Host bytes [a, a+n) hold message msg's bytes from offset off.
  task automatic check_placed(input [63:0] a, input integer n, input integer msg, input integer off);
    integer i;
    for (i = 0; i < n; i = i + 1)
      if (mem[a + i] !== pat(msg, off + i))
        $fatal(1, "%0s: host %h (message byte %0d): expected %h, got %h", tcase, a + i, off + i,
               pat(msg, off + i), mem[a + i]);
  endtask

  task automatic check_untouched(input [63:0] a, input integer n);
    integer i;
    for (i = 0; i < n; i = i + 1)
      if (mem[a + i] !== bg(a + i))
        $fatal(1, "%0s: host %h: expected untouched %h, got %h", tcase, a + i, bg(a + i), mem[a + i]);
  endtask

  task automatic check_buffers;
    integer i;
    for (i = 0; i < NBUF; i = i + 1)
      if (owner[i] != 0) $fatal(1, "%0s: buffer %0d still held (owner %0d)", tcase, i, owner[i]);
  endtask

  task automatic fill_bg(input [63:0] a, input integer n);
    integer i;
    for (i = 0; i < n; i = i + 1) mem[a + i] = bg(a + i);
  endtask

  // ---------------------------------------------------------------- cases
  localparam logic [3:0] RW_LW = 4'b0001;
  localparam logic [3:0] RW_RR = 4'b0010;
  localparam logic [3:0] RW_RW = 4'b0100;
  localparam logic [3:0] S  = `HCA_PKT_OP_SEND;
  localparam logic [3:0] SI = `HCA_PKT_OP_SEND_INV;
  localparam logic [3:0] W  = `HCA_PKT_OP_WRITE;
  localparam logic [3:0] R  = `HCA_PKT_OP_READ_REQ;
  localparam logic [3:0] ACK = `HCA_PKT_OP_ACK;
  localparam logic [3:0] NAK = `HCA_PKT_OP_NAK;
  localparam logic [3:0] RNR = `HCA_PKT_OP_RNR_NAK;
  localparam logic [1:0] RTS = `HCA_QP_STATE_RTS;
  localparam logic [1:0] ERR = `HCA_QP_STATE_ERROR;
  localparam logic [1:0] RST = `HCA_QP_STATE_RESET;

  integer ncases = 0;

  task automatic pass_case;
    check_buffers();
    ncases = ncases + 1;
  endtask

  // SEND, one packet, one SGE.
  task automatic case_send_single;
    begin_case("send_single");
    qp_setup(1, RTS, 4'd12);
    fill_bg(64'h1_0000, 2000);
    post_recv(1, 64'hAAAA_0001, 32'd1, 64'h1_0010, 32'd1000, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 1, 16'd1, 16'd7, 32'd5, 32'd0, 64'd0, 32'd600, 32'd600, 32'd0, 1);
    settle();
    check_counts(1, 1, 0);
    check_tx(0, ACK, 0, 16'd7, 16'd1, 32'd5);
    check_cqe(0, 64'hAAAA_0001, `HCA_WC_STATUS_SUCCESS, 32'd600, 1, 16'd0);
    check_xlates(1);
    check_xl(0, LKEY, RW_LW, 1'b0, 64'h1_0010, 32'd600);
    check_dmas(1, 1, 0);
    check_placed(64'h1_0010, 600, 1, 0);
    check_untouched(64'h1_0010 + 600, 400);
    check_untouched(64'h1_0000, 16);
    check_state(1, RTS, 16'd1);
    pass_case();
  endtask

  // SEND over three SGEs in three packets, the SGEs crossing 4 KiB pages;
  // QP 3's single SEND arrives between QP 2's packets.
  task automatic case_send_multi;
    begin_case("send_multi_sge_multi_packet");
    qp_setup(2, RTS, 4'd12);
    qp_setup(3, RTS, 4'd12);
    fill_bg(64'h2_0000, 32'h8000);
    // SGEs: 1000 at 0x20f00 (crosses 0x21000), 5000 at 0x23800, 3000 at 0x26000
    post_recv(2, 64'hB2, 32'd3, 64'h2_0f00, 32'd1000, LKEY, 64'h2_3800, 32'd5000, LKEY2,
              64'h2_6000, 32'd3000, LKEY);
    post_recv(3, 64'hB3, 32'd1, 64'h2_7000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 0, 16'd2, 16'd9, 32'd40, 32'd0, 64'd0, 32'd4096, 32'd8800, 32'd0, 2);
    send_pkt(S, 0, 0, 16'd2, 16'd9, 32'd40, 32'd0, 64'd0, 32'd4096, 32'd8800, 32'd4096, 2);
    send_pkt(S, 1, 1, 16'd3, 16'd10, 32'd77, 32'd0, 64'd0, 32'd100, 32'd100, 32'd0, 3);
    send_pkt(S, 0, 1, 16'd2, 16'd9, 32'd40, 32'd0, 64'd0, 32'd608, 32'd8800, 32'd8192, 2);
    settle();
    check_counts(2, 2, 0);
    check_tx(0, ACK, 0, 16'd10, 16'd3, 32'd77);
    check_tx(1, ACK, 0, 16'd9, 16'd2, 32'd40);
    check_cqe(0, 64'hB3, `HCA_WC_STATUS_SUCCESS, 32'd100, 3, 16'd0);
    check_cqe(1, 64'hB2, `HCA_WC_STATUS_SUCCESS, 32'd8800, 2, 16'd0);
    // QP 2's WQE: fetched for its first packet, kept for the second,
    // fetched again after QP 3's SEND took the slot.
    check_dmas(3, 2 + 2 + 1 + 1 + 1 + 1, 0);
    check_placed(64'h2_0f00, 1000, 2, 0);
    check_placed(64'h2_3800, 5000, 2, 1000);
    check_placed(64'h2_6000, 2800, 2, 6000);
    check_untouched(64'h2_6000 + 2800, 200);
    check_untouched(64'h2_0f00 + 1000, 16);
    check_placed(64'h2_7000, 100, 3, 0);
    check_xlates(6);
    check_xl(0, LKEY, RW_LW, 1'b0, 64'h2_0f00, 32'd1000);
    check_xl(1, LKEY2, RW_LW, 1'b0, 64'h2_3800, 32'd3096);
    check_xl(2, LKEY2, RW_LW, 1'b0, 64'h2_3800 + 3096, 32'd1904);
    check_xl(3, LKEY, RW_LW, 1'b0, 64'h2_6000, 32'd2192);
    check_state(2, RTS, 16'd1);
    check_state(3, RTS, 16'd1);
    pass_case();
  endtask

  // No receive posted: RNR_NAK on the first packet, the rest of the message
  // dropped quietly; the retried message lands once a receive is posted.
  task automatic case_rnr;
    begin_case("rnr_nak");
    qp_setup(4, RTS, 4'd10);   // MTU 1024
    fill_bg(64'h3_0000, 4096);
    send_pkt(S, 1, 0, 16'd4, 16'd11, 32'd3, 32'd0, 64'd0, 32'd1024, 32'd1500, 32'd0, 4);
    send_pkt(S, 0, 1, 16'd4, 16'd11, 32'd3, 32'd0, 64'd0, 32'd476, 32'd1500, 32'd1024, 4);
    settle();
    check_counts(1, 0, 0);
    check_tx(0, RNR, 0, 16'd11, 16'd4, 32'd3);
    check_dmas(0, 0, 0);
    check_xlates(0);
    post_recv(4, 64'hC4, 32'd1, 64'h3_0000, 32'd2000, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 0, 16'd4, 16'd11, 32'd3, 32'd0, 64'd0, 32'd1024, 32'd1500, 32'd0, 4);
    send_pkt(S, 0, 1, 16'd4, 16'd11, 32'd3, 32'd0, 64'd0, 32'd476, 32'd1500, 32'd1024, 4);
    settle();
    check_counts(2, 1, 0);
    check_tx(1, ACK, 0, 16'd11, 16'd4, 32'd3);
    check_cqe(0, 64'hC4, `HCA_WC_STATUS_SUCCESS, 32'd1500, 4, 16'd0);
    check_placed(64'h3_0000, 1500, 4, 0);
    check_untouched(64'h3_0000 + 1500, 500);
    check_state(4, RTS, 16'd1);
    pass_case();
  endtask

  // Message longer than the receive buffer: LOC_LEN_ERR, nothing placed,
  // QP -> ERROR, the RQ flushed (also a WQE posted after the error).
  task automatic case_len_err;
    begin_case("loc_len_err_and_flush");
    qp_setup(5, RTS, 4'd12);
    fill_bg(64'h4_0000, 4096);
    post_recv(5, 64'hD0, 32'd2, 64'h4_0000, 32'd100, LKEY, 64'h4_0100, 32'd50, LKEY, 0, 0, 0);
    post_recv(5, 64'hD1, 32'd1, 64'h4_0200, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(5, 64'hD2, 32'd1, 64'h4_0300, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 1, 16'd5, 16'd12, 32'd8, 32'd0, 64'd0, 32'd200, 32'd200, 32'd0, 5);
    settle();
    check_counts(1, 3, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, 16'd12, 16'd5, 32'd8);
    check_err(0, 5);
    check_cqe(0, 64'hD0, `HCA_WC_STATUS_LOC_LEN_ERR, 32'd0, 5, 16'd0);
    check_cqe(1, 64'hD1, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 5, 16'd1);
    check_cqe(2, 64'hD2, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 5, 16'd2);
    check_dmas(3, 0, 0);
    check_xlates(0);
    check_untouched(64'h4_0000, 1024);
    post_recv(5, 64'hD3, 32'd1, 64'h4_0400, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    settle();
    check_counts(1, 4, 1);
    check_cqe(3, 64'hD3, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 5, 16'd3);
    check_state(5, ERR, 16'd4);
    pass_case();
  endtask

  // The second SGE's lkey lacks LOCAL_WRITE: LOC_PROT_ERR, NAK REM_OP_ERR,
  // and not a byte of the packet placed (the first SGE's piece included).
  task automatic case_prot_err;
    begin_case("loc_prot_err");
    qp_setup(6, RTS, 4'd12);
    fill_bg(64'h5_0000, 8192);
    post_recv(6, 64'hE0, 32'd2, 64'h5_0000, 32'd300, LKEY, 64'h5_1000, 32'd300, LKEY_RO, 0, 0, 0);
    send_pkt(S, 1, 1, 16'd6, 16'd13, 32'd21, 32'd0, 64'd0, 32'd500, 32'd500, 32'd0, 6);
    settle();
    check_counts(1, 1, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd13, 16'd6, 32'd21);
    check_cqe(0, 64'hE0, `HCA_WC_STATUS_LOC_PROT_ERR, 32'd0, 6, 16'd0);
    check_err(0, 6);
    check_dmas(1, 0, 0);
    check_xlates(2);
    check_untouched(64'h5_0000, 300);
    check_untouched(64'h5_1000, 300);
    check_state(6, ERR, 16'd1);
    pass_case();
  endtask

  // A piece whose walk aborts after OK pages (ERR_MTT) places nothing either.
  task automatic case_prot_err_partial;
    begin_case("loc_prot_err_after_ok_pages");
    qp_setup(6, RTS, 4'd12);
    fill_bg(64'h5_0000, 16384);
    post_recv(6, 64'hE1, 32'd1, 64'h5_0800, 32'd8000, LKEY, 0, 0, 0, 0, 0, 0);
    bad_lo = 64'h5_1000;
    bad_hi = 64'h5_1001;
    send_pkt(S, 1, 1, 16'd6, 16'd13, 32'd22, 32'd0, 64'd0, 32'd3000, 32'd3000, 32'd0, 6);
    settle();
    check_counts(1, 1, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd13, 16'd6, 32'd22);
    check_cqe(0, 64'hE1, `HCA_WC_STATUS_LOC_PROT_ERR, 32'd0, 6, 16'd0);
    check_dmas(1, 0, 0);
    check_untouched(64'h5_0800, 3000);
    pass_case();
  endtask

  // Malformed RQ WQEs: too many SGEs; a reserved bit.
  task automatic case_bad_wqe;
    begin_case("malformed_rq_wqe");
    qp_setup(7, RTS, 4'd12);
    qp_setup(8, RTS, 4'd12);
    post_recv(7, 64'hF7, 32'd4, 64'h6_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(8, 64'hF8, 32'h0000_0101, 64'h6_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 1, 16'd7, 16'd14, 32'd1, 32'd0, 64'd0, 32'd10, 32'd10, 32'd0, 7);
    send_pkt(S, 1, 1, 16'd8, 16'd15, 32'd2, 32'd0, 64'd0, 32'd10, 32'd10, 32'd0, 8);
    settle();
    check_counts(2, 2, 2);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd14, 16'd7, 32'd1);
    check_tx(1, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd15, 16'd8, 32'd2);
    check_cqe(0, 64'hF7, `HCA_WC_STATUS_LOC_QP_OP_ERR, 32'd0, 7, 16'd0);
    check_cqe(1, 64'hF8, `HCA_WC_STATUS_LOC_QP_OP_ERR, 32'd0, 8, 16'd0);
    check_xlates(0);
    check_state(7, ERR, 16'd1);
    check_state(8, ERR, 16'd1);
    pass_case();
  endtask

  // Bus errors: placing a SEND; fetching the RQ WQE (then flushing).
  task automatic case_bus_err;
    begin_case("dma_bus_error");
    qp_setup(9, RTS, 4'd12);
    fill_bg(64'h7_0000, 8192);
    post_recv(9, 64'h99, 32'd1, 64'h7_0800, 32'd8000, LKEY, 0, 0, 0, 0, 0, 0);
    berr_lo = 64'h7_1000;
    berr_hi = 64'h7_2000;
    send_pkt(S, 1, 1, 16'd9, 16'd16, 32'd4, 32'd0, 64'd0, 32'd4096, 32'd4096, 32'd0, 9);
    settle();
    check_counts(1, 1, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd16, 16'd9, 32'd4);
    check_cqe(0, 64'h99, `HCA_WC_STATUS_LOC_ACCESS_ERR, 32'd0, 9, 16'd0);
    check_dmas(1, 2, 0);
    check_state(9, ERR, 16'd1);
    pass_case();

    begin_case("wqe_fetch_bus_error");
    qp_setup(10, RTS, 4'd12);
    post_recv(10, 64'hA0, 32'd1, 64'h7_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(10, 64'hA1, 32'd1, 64'h7_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    berr_lo = rq_base(10);
    berr_hi = rq_base(10) + 64'h400;
    send_pkt(S, 1, 1, 16'd10, 16'd17, 32'd6, 32'd0, 64'd0, 32'd10, 32'd10, 32'd0, 10);
    settle();
    check_counts(1, 2, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd17, 16'd10, 32'd6);
    check_cqe(0, 64'd0, `HCA_WC_STATUS_LOC_ACCESS_ERR, 32'd0, 10, 16'd0);
    check_cqe(1, 64'd0, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 10, 16'd1);
    check_state(10, ERR, 16'd2);
    pass_case();
  endtask

  // SEND_INV, one packet: placed, then REMOTE_INV (the responder QP's PD,
  // the packet's inv_key); DONE SUCCESS -> ACK and a recv CQE with
  // WITH_INVALIDATE. DONE the cycle after the event, then a slow firmware on
  // a zero-length SEND_INV (no SGE, no DMA before the event).
  task automatic case_send_inv_ok;
    begin_case("send_inv_single");
    qp_setup(11, RTS, 4'd12);
    fill_bg(64'h7_f000, 4096);
    post_recv(11, 64'h1111, 32'd1, 64'h7_f000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    pkt_inv_key = 32'h0000_4a15;
    fw_lat = 0;
    send_pkt(SI, 1, 1, 16'd11, 16'd18, 32'd9, 32'd0, 64'd0, 32'd64, 32'd64, 32'd0, 11);
    settle();
    check_counts(1, 1, 0);
    check_evts(1);
    check_evt(0, 11, 32'h0000_4a15, 2);
    check_tx(0, ACK, 0, 16'd18, 16'd11, 32'd9);
    check_cqe(0, 64'h1111, `HCA_WC_STATUS_SUCCESS, 32'd64, 11, 16'd0);
    check_cqe_inv(0, 1'b1, 32'h0000_4a15);
    check_dmas(1, 1, 0);
    check_placed(64'h7_f000, 64, 11, 0);
    check_untouched(64'h7_f000 + 64, 36);
    check_state(11, RTS, 16'd1);
    pass_case();

    begin_case("send_inv_zero_length_slow_fw");
    qp_setup(12, RTS, 4'd12);
    post_recv(12, 64'h1212, 32'd0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    pkt_inv_key = 32'h0001_2315;
    fw_lat = 400;
    send_pkt(SI, 1, 1, 16'd12, 16'd19, 32'd33, 32'd0, 64'd0, 32'd0, 32'd0, 32'd0, 12);
    settle();
    check_counts(1, 1, 0);
    check_evts(1);
    check_evt(0, 12, 32'h0001_2315, 1);
    check_tx(0, ACK, 0, 16'd19, 16'd12, 32'd33);
    check_cqe(0, 64'h1212, `HCA_WC_STATUS_SUCCESS, 32'd0, 12, 16'd0);
    check_cqe_inv(0, 1'b1, 32'h0001_2315);
    check_xlates(0);
    check_dmas(1, 0, 0);
    check_state(12, RTS, 16'd1);
    pass_case();
  endtask

  // SEND_INV of three packets (MTU 1024) over two SGEs, the event held back
  // by evt_ready for 300 cycles and a requester's DONE of the same QP number
  // (REM_INV_REQ_ERR) before the real one: one event, after the last
  // packet's placement, with the last packet's inv_key; ACK and CQE after the
  // DONE. QP 27's SEND behind it waits (the responder blocks for the DONE)
  // and completes after it.
  task automatic case_send_inv_multi;
    begin_case("send_inv_multi_packet");
    qp_setup(26, RTS, 4'd10);
    qp_setup(27, RTS, 4'd12);
    fill_bg(64'h7_0000, 8192);
    post_recv(26, 64'h2626, 32'd2, 64'h7_0000, 32'd1500, LKEY, 64'h7_1000, 32'd1200, LKEY2, 0, 0, 0);
    post_recv(27, 64'h2727, 32'd1, 64'h7_1800, 32'd200, LKEY, 0, 0, 0, 0, 0, 0);
    evt_hold = cycle + 300;
    fw_lat   = 60;
    fw_decoy = 1;
    pkt_inv_key = 32'h1111_0000;    // the first packets' key is not the one
    send_pkt(SI, 1, 0, 16'd26, 16'd34, 32'd70, 32'd0, 64'd0, 32'd1024, 32'd2500, 32'd0, 26);
    send_pkt(SI, 0, 0, 16'd26, 16'd34, 32'd70, 32'd0, 64'd0, 32'd1024, 32'd2500, 32'd1024, 26);
    pkt_inv_key = 32'h0000_7715;
    send_pkt(SI, 0, 1, 16'd26, 16'd34, 32'd70, 32'd0, 64'd0, 32'd452, 32'd2500, 32'd2048, 26);
    send_pkt(S, 1, 1, 16'd27, 16'd35, 32'd71, 32'd0, 64'd0, 32'd150, 32'd150, 32'd0, 27);
    settle();
    check_counts(2, 2, 0);
    check_evts(1);
    // the WQE fetch and the four pieces: [0,1024) | [1024,1500) [1500,2048) | [2048,2500)
    check_evt(0, 26, 32'h0000_7715, 5);
    check_tx(0, ACK, 0, 16'd34, 16'd26, 32'd70);
    check_tx(1, ACK, 0, 16'd35, 16'd27, 32'd71);
    check_cqe(0, 64'h2626, `HCA_WC_STATUS_SUCCESS, 32'd2500, 26, 16'd0);
    check_cqe_inv(0, 1'b1, 32'h0000_7715);
    check_cqe(1, 64'h2727, `HCA_WC_STATUS_SUCCESS, 32'd150, 27, 16'd0);
    check_cqe_inv(1, 1'b0, 32'd0);
    check_dmas(2, 5, 0);
    check_placed(64'h7_0000, 1500, 26, 0);
    check_placed(64'h7_1000, 1000, 26, 1500);
    check_untouched(64'h7_1000 + 1000, 200);
    check_placed(64'h7_1800, 150, 27, 0);
    check_state(26, RTS, 16'd1);
    check_state(27, RTS, 16'd1);
    pass_case();
  endtask

  // The firmware refuses the invalidation: recv CQE REM_INV_REQ_ERR (the
  // WQE consumed, no WITH_INVALIDATE), NAK REM_INV_REQ_ERR, QP -> ERROR; a
  // DONE SUCCESS for another responder QP comes first and changes nothing.
  // The SEND behind it is dropped and the next WQE flushed. Then a refusal
  // with another status, on a two-packet message.
  task automatic case_send_inv_fail;
    begin_case("send_inv_refused");
    qp_setup(11, RTS, 4'd12);
    fill_bg(64'h7_f000, 4096);
    post_recv(11, 64'h1111, 32'd1, 64'h7_f000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(11, 64'h1112, 32'd1, 64'h7_f800, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    pkt_inv_key = 32'h0000_5515;
    fw_status = 8'(`HCA_WC_STATUS_REM_INV_REQ_ERR);
    fw_decoy  = 2;
    fw_lat    = 20;
    send_pkt(SI, 1, 1, 16'd11, 16'd18, 32'd9, 32'd0, 64'd0, 32'd64, 32'd64, 32'd0, 11);
    send_pkt(S, 1, 1, 16'd11, 16'd18, 32'd10, 32'd0, 64'd0, 32'd64, 32'd64, 32'd0, 11);
    settle();
    check_counts(1, 2, 1);
    check_evts(1);
    check_evt(0, 11, 32'h0000_5515, 2);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, 16'd18, 16'd11, 32'd9);
    check_cqe(0, 64'h1111, `HCA_WC_STATUS_REM_INV_REQ_ERR, 32'd64, 11, 16'd0);
    check_cqe_inv(0, 1'b0, 32'd0);
    check_cqe(1, 64'h1112, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 11, 16'd1);
    check_err(0, 11);
    check_dmas(2, 1, 0);
    check_placed(64'h7_f000, 64, 11, 0);
    check_untouched(64'h7_f800, 100);
    check_state(11, ERR, 16'd2);
    pass_case();

    begin_case("send_inv_refused_other_status");
    qp_setup(28, RTS, 4'd8);        // MTU 256
    fill_bg(64'h7_0000, 4096);
    post_recv(28, 64'h2828, 32'd1, 64'h7_0000, 32'd400, LKEY, 0, 0, 0, 0, 0, 0);
    pkt_inv_key = 32'h0000_6615;
    fw_status = 8'(`HCA_WC_STATUS_MW_BIND_ERR);
    send_msg(SI, 16'd28, 16'd36, 32'd72, 32'd0, 64'd0, 32'd300, 32'd256, 28);
    settle();
    check_counts(1, 1, 1);
    check_evts(1);
    check_evt(0, 28, 32'h0000_6615, 3);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, 16'd36, 16'd28, 32'd72);
    check_cqe(0, 64'h2828, `HCA_WC_STATUS_REM_INV_REQ_ERR, 32'd300, 28, 16'd0);
    check_cqe_inv(0, 1'b0, 32'd0);
    check_err(0, 28);
    check_placed(64'h7_0000, 300, 28, 0);
    check_state(28, ERR, 16'd1);
    pass_case();
  endtask

  // SEND_INVs that fail before the invalidation behave as SENDs and post no
  // event: RNR (the rest of the message dropped quietly), a receive buffer
  // too short, an lkey without LOCAL_WRITE.
  task automatic case_send_inv_no_event;
    begin_case("send_inv_rnr");
    qp_setup(4, RTS, 4'd10);
    send_pkt(SI, 1, 0, 16'd4, 16'd11, 32'd3, 32'd0, 64'd0, 32'd1024, 32'd1500, 32'd0, 4);
    send_pkt(SI, 0, 1, 16'd4, 16'd11, 32'd3, 32'd0, 64'd0, 32'd476, 32'd1500, 32'd1024, 4);
    settle();
    check_counts(1, 0, 0);
    check_evts(0);
    check_tx(0, RNR, 0, 16'd11, 16'd4, 32'd3);
    check_dmas(0, 0, 0);
    check_state(4, RTS, 16'd0);
    pass_case();

    begin_case("send_inv_len_err");
    qp_setup(5, RTS, 4'd12);
    fill_bg(64'h4_0000, 4096);
    post_recv(5, 64'hD0, 32'd1, 64'h4_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(SI, 1, 1, 16'd5, 16'd12, 32'd8, 32'd0, 64'd0, 32'd200, 32'd200, 32'd0, 5);
    settle();
    check_counts(1, 1, 1);
    check_evts(0);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_INV_REQ_ERR, 16'd12, 16'd5, 32'd8);
    check_cqe(0, 64'hD0, `HCA_WC_STATUS_LOC_LEN_ERR, 32'd0, 5, 16'd0);
    check_cqe_inv(0, 1'b0, 32'd0);
    check_untouched(64'h4_0000, 200);
    check_state(5, ERR, 16'd1);
    pass_case();

    begin_case("send_inv_prot_err");
    qp_setup(6, RTS, 4'd12);
    fill_bg(64'h5_0000, 4096);
    post_recv(6, 64'hE0, 32'd1, 64'h5_0000, 32'd300, LKEY_RO, 0, 0, 0, 0, 0, 0);
    send_pkt(SI, 1, 1, 16'd6, 16'd13, 32'd21, 32'd0, 64'd0, 32'd100, 32'd100, 32'd0, 6);
    settle();
    check_counts(1, 1, 1);
    check_evts(0);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_OP_ERR, 16'd13, 16'd6, 32'd21);
    check_cqe(0, 64'hE0, `HCA_WC_STATUS_LOC_PROT_ERR, 32'd0, 6, 16'd0);
    check_untouched(64'h5_0000, 300);
    check_state(6, ERR, 16'd1);
    pass_case();
  endtask

  // Zero-length SEND (no SGE): completes with byte_len 0.
  task automatic case_send_zero;
    begin_case("send_zero_length");
    qp_setup(12, RTS, 4'd12);
    post_recv(12, 64'h1212, 32'd0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 1, 16'd12, 16'd19, 32'd33, 32'd0, 64'd0, 32'd0, 32'd0, 32'd0, 12);
    settle();
    check_counts(1, 1, 0);
    check_tx(0, ACK, 0, 16'd19, 16'd12, 32'd33);
    check_cqe(0, 64'h1212, `HCA_WC_STATUS_SUCCESS, 32'd0, 12, 16'd0);
    check_xlates(0);
    check_dmas(1, 0, 0);
    pass_case();
  endtask

  // WRITE of three packets: whole-range check, then each packet's own.
  task automatic case_write_ok;
    begin_case("write_ok");
    qp_setup(13, RTS, 4'd12);
    fill_bg(64'h9_0000, 16384);
    send_msg(W, 16'd13, 16'd20, 32'd50, RKEY_W, 64'h9_0123, 32'd10000, 32'd4096, 13);
    settle();
    check_counts(1, 0, 0);
    check_tx(0, ACK, 0, 16'd20, 16'd13, 32'd50);
    check_xlates(4);
    check_xl(0, RKEY_W, RW_RW, 1'b1, 64'h9_0123, 32'd10000);
    check_xl(1, RKEY_W, RW_RW, 1'b1, 64'h9_0123, 32'd4096);
    check_xl(2, RKEY_W, RW_RW, 1'b1, 64'h9_1123, 32'd4096);
    check_xl(3, RKEY_W, RW_RW, 1'b1, 64'h9_2123, 32'd1808);
    check_dmas(0, 2 + 2 + 1, 0);
    check_placed(64'h9_0123, 10000, 13, 0);
    check_untouched(64'h9_0000, 32'h123);
    check_untouched(64'h9_0123 + 10000, 100);
    check_state(13, RTS, 16'd0);
    pass_case();
  endtask

  // WRITE whose whole range fails on its first packet (a hole in the third
  // packet's range): NAK REM_ACCESS_ERR, not a byte placed, no completion,
  // the later packets dropped.
  task automatic case_write_first_fail;
    begin_case("write_first_packet_fail");
    qp_setup(14, RTS, 4'd12);
    fill_bg(64'hA_0000, 16384);
    post_recv(14, 64'h1414, 32'd1, 64'hA_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    bad_lo = 64'hA_2500;
    bad_hi = 64'hA_2600;
    send_msg(W, 16'd14, 16'd21, 32'd51, RKEY_W, 64'hA_0000, 32'd12000, 32'd4096, 14);
    settle();
    check_tx(0, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd21, 16'd14, 32'd51);
    check_err(0, 14);
    check_xlates(1);
    check_dmas(1, 0, 0);   // the one WQE fetch of the RQ flush
    check_counts(1, 1, 1);
    check_cqe(0, 64'h1414, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 14, 16'd0);
    check_untouched(64'hA_0000, 12000);
    pass_case();

    // No R_Key / no REMOTE_WRITE: the same.
    begin_case("write_rkey_rights");
    qp_setup(15, RTS, 4'd12);
    qp_setup(16, RTS, 4'd12);
    send_msg(W, 16'd15, 16'd22, 32'd52, RKEY_NR, 64'hA_0000, 32'd5000, 32'd4096, 15);
    send_msg(W, 16'd16, 16'd23, 32'd53, RKEY_R, 64'hA_0000, 32'd100, 32'd4096, 16);
    settle();
    check_counts(2, 0, 2);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd22, 16'd15, 32'd52);
    check_tx(1, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd23, 16'd16, 32'd53);
    check_dmas(0, 0, 0);
    check_untouched(64'hA_0000, 12000);
    pass_case();
  endtask

  // WRITE invalidated between packets: the first packet lands, the second
  // fails its own check (NAK REM_ACCESS_ERR), the third is dropped.
  task automatic case_write_invalidate;
    begin_case("write_invalidated_midway");
    qp_setup(17, RTS, 4'd12);
    fill_bg(64'hB_0000, 16384);
    send_pkt(W, 1, 0, 16'd17, 16'd24, 32'd54, RKEY_W, 64'hB_0000, 32'd4096, 32'd10000, 32'd0, 17);
    settle();
    check_counts(0, 0, 0);
    check_dmas(0, 1, 0);
    check_placed(64'hB_0000, 4096, 17, 0);
    fail_key = RKEY_W;    // "invalidated": no DMA through it from here on
    send_pkt(W, 0, 0, 16'd17, 16'd24, 32'd54, RKEY_W, 64'hB_1000, 32'd4096, 32'd10000, 32'd4096, 17);
    send_pkt(W, 0, 1, 16'd17, 16'd24, 32'd54, RKEY_W, 64'hB_2000, 32'd1808, 32'd10000, 32'd8192, 17);
    settle();
    check_counts(1, 0, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd24, 16'd17, 32'd54);
    check_xlates(3);
    check_untouched(64'hB_1000, 8192);
    check_state(17, ERR, 16'd0);
    pass_case();
  endtask

  // Zero-length WRITE: no key check, ACK.
  task automatic case_write_zero;
    begin_case("write_zero_length");
    qp_setup(18, RTS, 4'd12);
    send_pkt(W, 1, 1, 16'd18, 16'd25, 32'd55, 32'hbad0_0000, 64'hFFFF_FFFF_0000_0000, 32'd0, 32'd0, 32'd0, 18);
    settle();
    check_counts(1, 0, 0);
    check_tx(0, ACK, 0, 16'd25, 16'd18, 32'd55);
    check_xlates(0);
    check_dmas(0, 0, 0);
    pass_case();
  endtask

  // READ of 10000 bytes in MTU 4096 and MTU 1024 chunks.
  task automatic case_read_multi;
    begin_case("read_multi_chunk");
    qp_setup(19, RTS, 4'd0);    // 0: 4096
    qp_setup(20, RTS, 4'd10);   // 1024
    fill_bg(64'hC_0000, 32768);
    send_pkt(R, 1, 1, 16'd19, 16'd26, 32'd56, RKEY_R, 64'hC_0100, 32'd0, 32'd10000, 32'd0, 19);
    send_pkt(R, 1, 1, 16'd20, 16'd27, 32'd57, RKEY_R, 64'hC_4000, 32'd0, 32'd2500, 32'd0, 20);
    settle();
    check_counts(3 + 3, 0, 0);
    check_rresp(0, 1, 0, 32'd4096, 32'd0, 32'd10000);
    check_rresp(1, 0, 0, 32'd4096, 32'd4096, 32'd10000);
    check_rresp(2, 0, 1, 32'd1808, 32'd8192, 32'd10000);
    check_tx(0, `HCA_PKT_OP_READ_RESP, 0, 16'd26, 16'd19, 32'd56);
    check_tx(2, `HCA_PKT_OP_READ_RESP, 0, 16'd26, 16'd19, 32'd56);
    check_rresp(3, 1, 0, 32'd1024, 32'd0, 32'd2500);
    check_rresp(4, 0, 0, 32'd1024, 32'd1024, 32'd2500);
    check_rresp(5, 0, 1, 32'd452, 32'd2048, 32'd2500);
    check_tx(5, `HCA_PKT_OP_READ_RESP, 0, 16'd27, 16'd20, 32'd57);
    check_xlates(2 + 6);        // each READ's whole range first, then its chunks
    check_xl(0, RKEY_R, RW_RR, 1'b1, 64'hC_0100, 32'd10000);
    check_xl(1, RKEY_R, RW_RR, 1'b1, 64'hC_0100, 32'd4096);
    check_xl(3, RKEY_R, RW_RR, 1'b1, 64'hC_2100, 32'd1808);
    check_xl(4, RKEY_R, RW_RR, 1'b1, 64'hC_4000, 32'd2500);
    check_xl(7, RKEY_R, RW_RR, 1'b1, 64'hC_4800, 32'd452);
    check_dmas(0, 0, 2 + 2 + 1 + 1 + 1 + 1);
    if (nalloc - b_alloc != 6) $fatal(1, "%0s: expected 6 buffers allocated, got %0d", tcase, nalloc - b_alloc);
    pass_case();
  endtask

  // READ whose range holds a bad byte past its first chunk: the whole-range
  // check refuses it before any READ_RESP (SEMANTICS.md "What one access
  // covers"): NAK REM_ACCESS_ERR, nothing gathered, no buffer taken.
  task automatic case_read_fail;
    begin_case("read_fail_whole_range");
    qp_setup(21, RTS, 4'd12);
    fill_bg(64'hD_0000, 16384);
    bad_lo = 64'hD_1800;
    bad_hi = 64'hD_1801;
    send_pkt(R, 1, 1, 16'd21, 16'd28, 32'd58, RKEY_R, 64'hD_0000, 32'd0, 32'd9000, 32'd0, 21);
    settle();
    check_counts(1, 0, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd28, 16'd21, 32'd58);
    check_err(0, 21);
    check_xlates(1);
    check_xl(0, RKEY_R, RW_RR, 1'b1, 64'hD_0000, 32'd9000);
    check_dmas(0, 0, 0);
    if (nalloc != b_alloc) $fatal(1, "%0s: a buffer was allocated", tcase);
    check_state(21, ERR, 16'd0);
    pass_case();

    // The key invalidated after the whole check and the first chunk: one
    // READ_RESP, then NAK REM_ACCESS_ERR; the second chunk's buffer comes back.
    begin_case("read_fail_second_chunk");
    qp_setup(24, RTS, 4'd12);
    fill_bg(64'hD_0000, 16384);
    fail_from = 2;              // 0 the whole range, 1 chunk 0, 2 chunk 1
    send_pkt(R, 1, 1, 16'd24, 16'd31, 32'd61, RKEY_R, 64'hD_0000, 32'd0, 32'd9000, 32'd0, 24);
    settle();
    check_counts(2, 0, 1);
    check_rresp(0, 1, 0, 32'd4096, 32'd0, 32'd9000);
    check_tx(1, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd31, 16'd24, 32'd61);
    check_err(0, 24);
    check_xlates(3);
    check_dmas(0, 0, 1);
    if (nalloc - b_alloc != 2) $fatal(1, "%0s: expected 2 buffers allocated, got %0d", tcase, nalloc - b_alloc);
    check_state(24, ERR, 16'd0);
    pass_case();

    begin_case("read_rights");
    qp_setup(22, RTS, 4'd12);
    send_pkt(R, 1, 1, 16'd22, 16'd29, 32'd59, RKEY_W, 64'hD_0000, 32'd0, 32'd100, 32'd0, 22);
    settle();
    check_counts(1, 0, 1);
    check_tx(0, NAK, `HCA_WC_STATUS_REM_ACCESS_ERR, 16'd29, 16'd22, 32'd59);
    check_dmas(0, 0, 0);
    pass_case();
  endtask

  // Zero-length READ: one empty READ_RESP, no key check, no buffer.
  task automatic case_read_zero;
    begin_case("read_zero_length");
    qp_setup(23, RTS, 4'd12);
    send_pkt(R, 1, 1, 16'd23, 16'd30, 32'd60, 32'hbad0_0000, 64'd0, 32'd0, 32'd0, 32'd0, 23);
    settle();
    check_counts(1, 0, 0);
    check_rresp(0, 1, 1, 32'd0, 32'd0, 32'd0);
    check_tx(0, `HCA_PKT_OP_READ_RESP, 0, 16'd30, 16'd23, 32'd60);
    check_xlates(0);
    check_dmas(0, 0, 0);
    if (nalloc != b_alloc) $fatal(1, "%0s: a buffer was allocated", tcase);
    pass_case();
  endtask

  // QPs not in RTS: packets dropped (buffers freed, no answer); a QP in
  // ERROR has its RQ flushed in order; packets to QP 0 / beyond MAX_QP
  // dropped.
  task automatic case_not_rts;
    begin_case("error_drop_and_flush");
    qp_setup(24, ERR, 4'd12);
    qp_setup(25, RST, 4'd12);
    fill_bg(64'hE_0000, 4096);
    post_recv(24, 64'h2400, 32'd1, 64'hE_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(24, 64'h2401, 32'd1, 64'hE_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(24, 64'h2402, 32'd1, 64'hE_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    post_recv(25, 64'h2500, 32'd1, 64'hE_0000, 32'd100, LKEY, 0, 0, 0, 0, 0, 0);
    send_pkt(S, 1, 1, 16'd24, 16'd31, 32'd61, 32'd0, 64'd0, 32'd50, 32'd50, 32'd0, 24);
    send_pkt(W, 1, 1, 16'd24, 16'd31, 32'd62, RKEY_W, 64'hE_0000, 32'd50, 32'd50, 32'd0, 24);
    send_pkt(R, 1, 1, 16'd24, 16'd31, 32'd63, RKEY_R, 64'hE_0000, 32'd0, 32'd50, 32'd0, 24);
    send_pkt(S, 1, 1, 16'd25, 16'd32, 32'd64, 32'd0, 64'd0, 32'd50, 32'd50, 32'd0, 25);
    send_pkt(S, 1, 1, 16'd0, 16'd33, 32'd65, 32'd0, 64'd0, 32'd50, 32'd50, 32'd0, 0);
    send_pkt(W, 1, 1, 16'd64, 16'd33, 32'd66, RKEY_W, 64'hE_0000, 32'd50, 32'd50, 32'd0, 0);
    send_pkt(S, 1, 1, 16'd300, 16'd33, 32'd67, 32'd0, 64'd0, 32'd50, 32'd50, 32'd0, 0);
    settle();
    check_counts(0, 3, 0);
    check_cqe(0, 64'h2400, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 24, 16'd0);
    check_cqe(1, 64'h2401, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 24, 16'd1);
    check_cqe(2, 64'h2402, `HCA_WC_STATUS_WR_FLUSH_ERR, 32'd0, 24, 16'd2);
    check_xlates(0);
    check_dmas(3, 0, 0);
    check_untouched(64'hE_0000, 4096);
    check_state(24, ERR, 16'd3);
    check_state(25, RST, 16'd0);
    pass_case();
  endtask

  // Back-to-back traffic on several QPs at once, checked as a whole.
  task automatic case_mixed;
    integer i;
    begin_case("mixed_traffic");
    for (i = 1; i <= 6; i = i + 1) qp_setup(i, RTS, 4'd11);    // MTU 2048
    fill_bg(64'h1_0000, 32'h6_0000);
    for (i = 0; i < 4; i = i + 1) begin
      post_recv(1, 64'h100 + 64'(i), 32'd2, 64'h1_0000 + 64'(i) * 64'h2000, 32'd3000, LKEY,
                64'h1_0000 + 64'(i) * 64'h2000 + 64'h1000, 32'd3000, LKEY2, 0, 0, 0);
      post_recv(2, 64'h200 + 64'(i), 32'd1, 64'h2_0000 + 64'(i) * 64'h1000, 32'd4000, LKEY, 0, 0, 0,
                0, 0, 0);
    end
    for (i = 0; i < 4; i = i + 1) begin
      send_msg(S, 16'd1, 16'd41, 32'(100 + i), 32'd0, 64'd0, 32'd5000 + 32'(i), 32'd2048, 100 + i);
      send_msg(W, 16'd3, 16'd43, 32'(200 + i), RKEY_W, 64'h3_0000 + 64'(i) * 64'h3000, 32'd7000, 32'd2048, 200 + i);
      send_msg(S, 16'd2, 16'd42, 32'(300 + i), 32'd0, 64'd0, 32'd3999, 32'd2048, 300 + i);
      send_pkt(R, 1, 1, 16'd4, 16'd44, 32'(400 + i), RKEY_R, 64'h5_0000, 32'd0, 32'd4100, 32'd0, 0);
    end
    settle();
    check_counts(4 * 3 + 4 * 3, 8, 0);
    for (i = 0; i < 4; i = i + 1) begin
      check_placed(64'h1_0000 + 64'(i) * 64'h2000, 3000, 100 + i, 0);
      check_placed(64'h1_0000 + 64'(i) * 64'h2000 + 64'h1000, 2000 + i, 100 + i, 3000);
      check_placed(64'h3_0000 + 64'(i) * 64'h3000, 7000, 200 + i, 0);
      check_placed(64'h2_0000 + 64'(i) * 64'h1000, 3999, 300 + i, 0);
    end
    check_state(1, RTS, 16'd4);
    check_state(2, RTS, 16'd4);
    pass_case();
  endtask

  // ---------------------------------------------------------------- main
  integer i0;
  initial begin
    if ($value$plusargs("seed=%d", seed)) ;
    seed0 = seed;
    if ($value$plusargs("stall=%d", stall)) ;
    if ($value$plusargs("err_lat=%d", err_lat)) ;
    if (err_lat < 1 || err_lat > ERR_MAX) $fatal(1, "hca_responder_tb: +err_lat must be 1..%0d", ERR_MAX);
    if ($value$plusargs("verbose=%d", verbose)) ;
    for (i0 = 0; i0 < MEM_SIZE; i0 = i0 + 1) mem[i0] = bg(i0);
    for (i0 = 0; i0 < OT; i0 = i0 + 1) ot_v[i0] = 1'b0;
    for (i0 = 0; i0 < ERR_MAX; i0 = i0 + 1) begin
      errv_pipe[i0] = 1'b0;
      errq_pipe[i0] = '0;
    end
    for (i0 = 0; i0 < 64; i0 = i0 + 1) begin
      qst[i0] = `HCA_QP_STATE_RESET;
      qpi[i0] = '0;
      qci[i0] = '0;
      qctx[i0] = '0;
    end
    for (i0 = 0; i0 < NBUF; i0 = i0 + 1) owner[i0] = 0;
    repeat (4) @(negedge clk);
    rst_n = 1'b1;

    case_send_single();
    case_send_multi();
    case_rnr();
    case_len_err();
    case_prot_err();
    case_prot_err_partial();
    case_bad_wqe();
    case_bus_err();
    case_send_inv_ok();
    case_send_inv_multi();
    case_send_inv_fail();
    case_send_inv_no_event();
    case_send_zero();
    case_write_ok();
    case_write_first_fail();
    case_write_invalidate();
    case_write_zero();
    case_read_multi();
    case_read_fail();
    case_read_zero();
    case_not_rts();
    case_mixed();

    settle();
    $display("hca_responder_tb: PASS %0d cases, %0d cycles (seed %0d, stall %0d%%, err_lat %0d)", ncases, cycle,
             seed0, stall, err_lat);
    $finish;
  end

endmodule
