`default_nettype none
`include "hca_abi.svh"

// hca_responder_props — the responder at its boundaries (`make formal`):
// hca_responder as it is (2 QPs), every input free each cycle except for
// the protocols of its input ports — reset in the first cycle;
// a received packet offered until taken, unchanged; a translation beat only
// while a request is unfinished, offered until taken, unchanged; a DMA
// answer only for an outstanding request, with its tag, in the order they
// were accepted (the DMA block may answer out of order: this environment
// is the in-order subset); the context read port held while it names the
// same QP, but for the state. Its translation and DMA ports are its
// placement engine's (hca_resp_place_props proves them given the owner
// keeps its side); here the owner's side, and the responder's own streams:
//
//   place_owner    the placement engine started only while idle, its job
//                  (check-only, posted, remote, buffer, PD, QP, pieces,
//                  DMA op, rights) held from the start until the engine is
//                  idle again — the assumptions hca_resp_place_props makes,
//                  discharged (the op and rights wires are kept whole for
//                  their taps: formal.mk's RSPD_KEEP, since Yosys would
//                  narrow them to their non-constant bits)
//   tx_held, cpl_held, evt_held, dma_held
//                  a packet, a completion, an event, a DMA request offered
//                  and not taken is offered again, unchanged (a completion:
//                  unless its QP read RESET, which drops it)
//
// Proven by 2-induction with the invariants inv_* over taps of the
// responder's and its placement engine's state.
//
// HCA_MUTANT_RESPONDER_JOB_MOVES (the job's first piece read from the
// packet register while the engine runs) breaks place_owner.
module hca_responder_props #(
  parameter int MAX_QP = 2
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           rx_valid_i,
  input  logic [`HCA_PKT_W-1:0]          rx_i,
  input  logic                           tx_ready_i,
  input  logic [`HCA_QP_CTX_W-1:0]       qpc_i,
  input  logic [1:0]                     qp_state_i,
  input  logic [15:0]                    rq_pi_i,
  input  logic [15:0]                    rq_ci_i,
  input  logic                           fl_qpc_set_i,       // flush-queue pushes: free
  input  logic [15:0]                    fl_qpc_qpn_i,
  input  logic                           fl_req_err_i,
  input  logic [15:0]                    fl_req_err_qpn_i,
  input  logic                           fl_rq_db_i,
  input  logic [15:0]                    fl_rq_db_qpn_i,
  input  logic                           xq_ready_i,
  input  logic                           xs_valid_i,
  input  logic [7:0]                     xs_tag_i,
  input  logic [3:0]                     xs_status_i,
  input  logic                           xs_last_i,
  input  logic [31:0]                    xs_len_i,
  input  logic [63:0]                    xs_pa_i,
  input  logic                           dma_req_ready_i,
  input  logic                           dma_rsp_valid_i,
  input  logic [`HCA_DMA_RSP_W-1:0]      dma_rsp_any_i,
  input  logic                           pb_alloc_valid_i,
  input  logic [7:0]                     pb_alloc_id_i,
  input  logic                           pb_free_ready_i,
  input  logic                           cpl_ready_i,
  input  logic                           evt_ready_i,
  input  logic                           evt_done_valid_i,
  input  logic [`HCA_EVT_DONE_TAG_W-1:0] evt_done_tag_i,
  input  logic [7:0]                     evt_done_status_i
);

  localparam int QW = $clog2(MAX_QP);
  localparam int PIECES = `HCA_MAX_RECV_SGE;
  localparam int JOB_W = 3 + 8 + `HCA_PD_BITS + 16 + PIECES * (64 + 32 + 32) + `HCA_DMA_OP_W + `HCA_ACCESS_W;

  logic                      rx_ready_o, tx_valid_o, rq_ci_inc_o, qp_err_valid_o, quiet_o;  // quiet_o: hca_core's skip, not checked here
  logic [`HCA_PKT_W-1:0]     tx_o;
  logic [QW-1:0]             qpc_idx_o, qp_err_qpn_o;
  logic                      xq_valid_o, xq_remote_o, xs_ready_o;
  logic [7:0]                xq_tag_o;
  logic [3:0]                xq_rights_o;
  logic [31:0]               xq_key_o, xq_len_o;
  logic [23:0]               xq_pd_o;
  logic [63:0]               xq_va_o;
  logic                      dma_req_valid_o, dma_rsp_ready_o;
  logic [`HCA_DMA_REQ_W-1:0] dma_req_o;
  logic [`HCA_DMA_RSP_W-1:0] dma_rsp_i;
  logic                      pb_alloc_ready_o, pb_free_valid_o;
  logic [7:0]                pb_free_id_o;
  logic                      cpl_valid_o;
  logic [`HCA_CQE_W-1:0]     cpl_o;
  logic [15:0]               cpl_cqn_o;
  logic [2:0]                place_busy_o;
  logic                      evt_valid_o;
  logic [`HCA_FW_EVENT_W-1:0] evt_o;

  hca_responder #(.MAX_QP(MAX_QP)) dut (.*);

  // taps (formal.mk connects them): the placement engine's start and busy,
  // its job
  logic                       t_start, t_busy, t_check_only, t_post, t_remote;
  logic [7:0]                 t_buf;
  logic [`HCA_PD_BITS-1:0]    t_pd;
  logic [QW-1:0]              t_qpn;
  logic [PIECES*64-1:0]       t_va;
  logic [PIECES*32-1:0]       t_len, t_key;
  logic [`HCA_DMA_OP_W-1:0]   t_op;
  logic [`HCA_ACCESS_W-1:0]   t_rights;
  logic [JOB_W-1:0]           job;
  assign job = {t_check_only, t_post, t_remote, t_buf, t_pd, 16'(t_qpn), t_va, t_len, t_key, t_op, t_rights};

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) begin
    init_q <= 1'b0;
  end

  // DMAs outstanding, their tags in the order accepted; translation
  // requests unfinished; the context port's last index and answer.
  logic [7:0]  dq_q [8];
  logic [3:0]  dn_q;
  logic [3:0]  xo_q;
  logic        dreq, drsp;
  assign dreq = dma_req_valid_o && dma_req_ready_i;
  assign drsp = dma_rsp_valid_i;
  always_comb begin
    dma_rsp_i = dma_rsp_any_i;
    dma_rsp_i[`HCA_DMA_RSP_RTAG_LSB +: 8] = dq_q[0];
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      dn_q <= '0;
      xo_q <= '0;
    end else begin
      if (drsp) begin
        for (int i = 0; i < 7; i++) begin
          dq_q[i] <= dq_q[i + 1];
        end
      end
      if (dreq) begin
        dq_q[3'(dn_q - 4'(drsp))] <= dma_req_o[`HCA_DMA_REQ_TAG_LSB +: 8];
      end
      dn_q <= dn_q + 4'(dreq) - 4'(drsp);
      xo_q <= xo_q + 4'(xq_valid_o && xq_ready_i) - 4'(xs_valid_i && xs_ready_o && xs_last_i);
    end
  end

  logic                      rx_held_q, xs_held_q, tx_held_q, cpl_held_q, evt_held_q, dma_held_q;
  logic                      cpl_rst_q;   // the held QP read RESET: its completion is dropped (as the requester's)
  logic                      busy_q;
  logic [`HCA_PKT_W-1:0]     rx_q, tx_q;
  logic [3:0]                xs_status_q;
  logic [7:0]                xs_tag_q;
  logic                      xs_last_q;
  logic [31:0]               xs_len_q;
  logic [63:0]               xs_pa_q;
  logic [`HCA_CQE_W-1:0]     cpl_q;
  logic [15:0]               cpl_cqn_q;
  logic [`HCA_FW_EVENT_W-1:0] evt_q;
  logic [`HCA_DMA_REQ_W-1:0] dma_q;
  logic [JOB_W-1:0]          job_q;
  logic [QW-1:0]             idx_q;
  logic [`HCA_QP_CTX_W-1:0]  qpc_q, qpc_mask;
  logic [15:0]               rq_pi_q, rq_ci_q;
  always_ff @(posedge clk_i) begin
    rx_held_q   <= rst_ni && rx_valid_i && !rx_ready_o;
    xs_held_q   <= rst_ni && xs_valid_i && !xs_ready_o;
    tx_held_q   <= rst_ni && tx_valid_o && !tx_ready_i;
    cpl_held_q  <= rst_ni && cpl_valid_o && !cpl_ready_i;
    cpl_rst_q   <= qp_state_i == `HCA_QP_STATE_RESET;
    evt_held_q  <= rst_ni && evt_valid_o && !evt_ready_i;
    dma_held_q  <= rst_ni && dma_req_valid_o && !dma_req_ready_i;
    busy_q      <= rst_ni && (t_busy || t_start);
    rx_q        <= rx_i;
    tx_q        <= tx_o;
    xs_status_q <= xs_status_i;
    xs_tag_q    <= xs_tag_i;
    xs_last_q   <= xs_last_i;
    xs_len_q    <= xs_len_i;
    xs_pa_q     <= xs_pa_i;
    cpl_q       <= cpl_o;
    cpl_cqn_q   <= cpl_cqn_o;
    evt_q       <= evt_o;
    dma_q       <= dma_req_o;
    job_q       <= job;
    idx_q       <= qpc_idx_o;
    qpc_q       <= qpc_i;
    rq_pi_q     <= rq_pi_i;
    rq_ci_q     <= rq_ci_i;
  end
  always_comb begin
    qpc_mask = '1;
    `HCA_QP_CTX_STATE(qpc_mask) = '0;
  end

  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
    if (rx_held_q) begin
      assume (rx_valid_i && rx_i == rx_q);
    end
    assume (!xs_valid_i || xo_q != '0);
    if (xs_held_q) begin
      assume (xs_valid_i && xs_status_i == xs_status_q && xs_tag_i == xs_tag_q &&
              xs_last_i == xs_last_q && xs_len_i == xs_len_q && xs_pa_i == xs_pa_q);
    end
    assume (!dma_rsp_valid_i || dn_q != '0);
    assume (dn_q < 4'd8);
    if (!init_q && qpc_idx_o == idx_q) begin
      assume ((qpc_i & qpc_mask) == (qpc_q & qpc_mask));
    end
  end

  always_comb begin
    if (!init_q) begin
      place_owner: assert ((!t_start || !t_busy) && (!(busy_q && t_busy) || job == job_q));
      tx_held:     assert (!tx_held_q || (tx_valid_o && tx_o == tx_q));
      cpl_held:    assert (!cpl_held_q || cpl_rst_q || (cpl_valid_o && cpl_o == cpl_q && cpl_cqn_o == cpl_cqn_q));
      evt_held:    assert (!evt_held_q || (evt_valid_o && evt_o == evt_q));
      dma_held:    assert (!dma_held_q || (dma_req_valid_o && dma_req_o == dma_q));
    end
  end

  // Invariants (induction), over the responder's and its placement
  // engine's state (taps).
  localparam logic [4:0] S_FETCH_RSP = 5'd4, S_GO = 5'd6, S_PLACE = 5'd7, S_RESULT = 5'd8,
                         S_RD_ALLOC = 5'd9, S_FL_RSP = 5'd13, S_FINISH = 5'd16, S_RD_DROP = 5'd17;
  localparam logic [1:0] P_IDLE = 2'd0, P_CHECK = 2'd1, P_DMA = 2'd2, P_STREAM = 2'd3;
  logic [4:0] t_state;
  logic [1:0] t_pst;
  logic       t_hold, t_txp, t_txpend, t_txslot, t_rslot, t_cplpend, t_rberr0, t_rberr1;
  logic [3:0] t_nseg, t_pdma, t_pans, t_rcnt0, t_rcnt1;
  logic [1:0] t_piss, t_plasts;

  // The placement engine's pieces present and asked about (its iss_q: the
  // next piece to ask about).
  logic [2:0] p_issued;
  always_comb begin
    p_issued = '0;
    for (int i = 0; i < PIECES; i++) begin
      if (t_len[i*32 +: 32] != 32'd0 && 2'(i) < t_piss) p_issued = p_issued + 3'd1;
    end
  end

  // DMAs outstanding per kind, from their tags: the WQE fetch ({01, 3f}),
  // a posted gather of slot s ({01, 1, s, 0, idx}), the engine's own
  // ({01, 000, idx}).
  logic [3:0] n_fetch, n_post0, n_post1, n_eng;
  always_comb begin
    n_fetch = '0;
    n_post0 = '0;
    n_post1 = '0;
    n_eng   = '0;
    for (int i = 0; i < 8; i++) begin
      if (4'(i) < dn_q) begin
        if (dq_q[i] == 8'h7f)                        n_fetch = n_fetch + 4'd1;
        else if (dq_q[i][5] && !dq_q[i][3])          begin
          if (dq_q[i][4]) n_post1 = n_post1 + 4'd1;
          else            n_post0 = n_post0 + 4'd1;
        end else if (!dq_q[i][5])                    n_eng = n_eng + 4'd1;
      end
    end
  end

  logic rd_flow;   // the states a held READ_RESP waits through
  assign rd_flow = t_state == S_RD_ALLOC || t_state == S_GO || t_state == S_PLACE || t_state == S_RESULT;
  always_comb begin
    if (!init_q) begin
      inv_eng:   assert ((t_pst == P_IDLE || (t_state == S_PLACE && busy_q)) &&
                         (t_state != S_GO || t_pst == P_IDLE));
      inv_place: assert ((!t_hold || t_pst == P_STREAM) && t_nseg <= 4'd8 &&
                         (t_pst != P_DMA || t_pdma <= t_nseg));
      inv_fetch: assert (n_fetch == ((t_state == S_FETCH_RSP || t_state == S_FL_RSP) ? 4'd1 : 4'd0));
      inv_post:  assert (n_post0 == t_rcnt0 && n_post1 == t_rcnt1);
      inv_kinds: assert (n_fetch + n_post0 + n_post1 + n_eng == dn_q);   // every tag one of the three
      inv_edma:  assert (n_eng == ((t_pst == P_STREAM || (t_pst == P_DMA && !t_post)) ? t_pdma - t_pans : 4'd0) &&
                         (t_pst != P_DMA || t_post || t_pans <= t_pdma));
      inv_tx:    assert (!t_txpend || t_state == S_FINISH || (t_txp && (rd_flow || t_state == S_RD_DROP)));
      inv_txslot: assert (!(t_txpend && t_txp && rd_flow) || t_rslot != t_txslot);
      inv_drop:  assert (t_state != S_RD_DROP || (t_txpend && t_txp && (t_txslot ? t_rcnt1 : t_rcnt0) == '0 &&
                                                   (t_txslot ? t_rberr1 : t_rberr0)));
      // The translation requests unfinished are the engine's: none while it
      // neither checks nor streams, else no more than the pieces it asked
      // about less the last beats it counted (a beat with a tag it did not
      // ask about ends a request without being counted). So no beat comes
      // once every piece's last beat is in: the holding register is never
      // filled as the streaming pass ends.
      inv_xo:    assert ((t_pst == P_CHECK || t_pst == P_STREAM) ?
                         5'(t_plasts) + 5'(xo_q) <= 5'(p_issued) : xo_q == '0);
      inv_cpl:   assert (!t_cplpend || (t_state == S_FINISH && !(t_txpend && t_txp)));
    end
  end

  logic unused;
  assign unused = ^{rq_ci_inc_o, qp_err_valid_o, qp_err_qpn_o, xq_tag_o, xq_rights_o, xq_remote_o,
                    xq_key_o, xq_len_o, xq_pd_o, xq_va_o, dma_rsp_ready_o, pb_alloc_ready_o,
                    pb_free_valid_o, pb_free_id_o, place_busy_o, qp_state_i, rq_pi_q, rq_ci_q};

endmodule
