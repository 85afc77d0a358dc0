# rtl/formal/formal.mk — formal property checks with Yosys and yosys-smtbmc
# (z3), `make formal`:
#
#   formal-keycheck      xu_key_check_props: the key-check grant property
#                        (SEMANTICS.md rules 1-6 written again in the spec's
#                        own terms) for every input: the checker is
#                        combinational, so one step is a proof.
#   formal-klm-handshake xu_klm_props: the KLM walker's piece handshake into
#                        S1 and its walk tracking (valid/ready, no piece
#                        without a request), by induction (k = 2).
#   formal-rsp-handshake xu_fifo_props: the unit's response port (xu_fifo's
#                        head): a beat held until taken, shown only while one
#                        was written and not taken, in order; bounded.
#   formal-*-mutant-*    the same properties on a mutant RTL (HCA_MUTANT_*
#                        defined) that breaks one of them: must FAIL, on that
#                        property, with a counterexample trace (trace.vcd).
#
#   formal-ctx-drain     hca_ctx_props: the DRAIN half — once STATUS reads not
#                        busy after a DRAIN, every client busy at the command
#                        was seen idle since; done at once when none is
#                        busy; by induction (k = 3).
#   formal-xu-*          xlate_unit_props on the whole translation unit: once
#                        the firmware saw an INVALIDATE of index I complete,
#                        no OK beat of a request through a key of index I
#                        (fence; fence_klm: nor through a KLM entry's key of
#                        index I, at any depth); with the bookkeeping it
#                        rests on (responses in order, bounded in flight) and
#                        the handshakes (a response beat holds until taken,
#                        every firmware access answered one cycle later).
#                        Bounded from reset: FORMAL_BMC_FRAMES cycles, by
#                        ABC's bmc3 on the AIGER netlist (z3 does not get
#                        that deep).
#   formal-xu-fence-ind  fence unbounded, on the unit without KLM walks
#                        (KLM = 0, 4 MPT entries): with the invariants inv_*
#                        (xlate_unit_props.sv), by 3-induction (ABC's ind);
#                        with it ld_held, S1's hand-off to the page walker
#                        (in the KLM job too; mutant HCA_MUTANT_S1_NO_STALL).
#   formal-xu-fence-klm-ind  fence, fence_klm, rsp_in_order, no_overflow,
#                        rsp_stable, fw_answer and ld_held unbounded with KLM walks
#                        (KLM = 1, 4 MPT entries), with inv_* and the walk's
#                        invariants (inv_walk, inv_lvl, inv_ctx[_all],
#                        inv_tail, inv_klm, inv_ext, inv_rd, inv_fw2, inv_sh,
#                        inv_thru), by 3-induction. Its mutants
#                        (HCA_MUTANT_NO_FENCE on fence_klm,
#                        HCA_MUTANT_KLM_STALE_CTX on inv_ctx,
#                        HCA_MUTANT_FIFO_HEAD_NEWEST on rsp_stable and
#                        rsp_in_order, HCA_MUTANT_FWP_WRITE_NO_ANSWER on
#                        fw_answer) must fail.
#   formal-xu-rule7-ind  rule7 and rule7_depth unbounded: the same unit and
#                        invariants plus inv7_piece, by 3-induction; its
#                        mutant (HCA_MUTANT_KLM_NO_ENTRY_CHECK) fails rule7.
#                        (rtl/formal/cti.py reads a counterexample to
#                        induction when one of these stops closing.)
#
# Valid/ready on the block boundaries, one property module per block
# (assumptions on its inputs per the protocol, assertions on its outputs;
# each has a mutant job that must fail):
#   formal-arb-handshake   hca_arb: output held while stalled, no output
#                          without its input, one grant with the output's
#                          handshake (2-induction)
#   formal-xarb-ports      hca_xarb: request held, one client taken per
#                          accept, responses routed to the oldest
#                          unfinished request's client (2-induction)
#   formal-sge-ports[-post] hca_sge_mover (POST 0 / 1): translation request
#                          and DMA held, DMA only for a passing beat, a beat
#                          taken only with its DMA (I2) (2-induction)
#   formal-send-ports      hca_req_send: the mover's owner side and the
#                          engine's tx / fin / evt / DMA offers held, the
#                          WQE prefetch's READ_DATA included (2-induction,
#                          ABC, with inv_* over the engine's, its mover's
#                          and its prefetch entries' state)
#   formal-rspeng-ports    hca_req_resp: the same for the response engine
#                          (its mover's QP held; fin / evt / DMA / free
#                          offers held) (2-induction, ABC)
#   formal-requester-park  hca_requester's wrapper with both engines cut
#                          out (their outputs free but for what the two
#                          jobs above prove of them): the park entry the
#                          response engine reads held while it owns the QP
#                          (2-induction, ABC)
#   formal-responder-ports hca_responder: the placement engine's owner
#                          side (job held while it runs) and the tx / cpl /
#                          evt / DMA offers held (2-induction, ABC, with
#                          inv_* over its and its placement engine's state)
#   formal-place-ports     hca_resp_place: requests and DMAs held, no DMA
#                          before the whole check came back OK (I4), no DMA
#                          without a segment, every DMA answered before done
#                          (2-induction, ABC, with inv_* over its counters)
#   formal-pbuf-offers     hca_pbuf: ids offered free and apart, the
#                          responder's reserve (2-induction)
#   formal-cqw-ports       hca_cq_writer: completion, CQ look, DMA write
#                          held, carrying the CQE, up to 4 out by tag, the
#                          DRAIN source while any is out (2-induction)
#   formal-evt-queue       hca_evt: no event lost, irq, register answers,
#                          DONE, events read in order (2-induction)
#   formal-ctx-ports       hca_ctx: command port answers, staging read-back,
#                          result, doorbells always ready (2-induction, ABC)
#   formal-fwp-fast-reg    xu_fw_port: fwp FAST_REG writes the MPT entry and
#                          MTT word of the event last popped into its slot,
#                          or nothing when that is not a wqe_ok FAST_REG_MR;
#                          STATUS then says which (2-induction)
# The mutant jobs of the inductive ones run the same assertions and
# invariants (formal_ind_job's EXPECT): the base case must fail on the
# property the mutant breaks.
# `make formal-quick` (in `make test`) runs the ones that take seconds.
#
# Sequential jobs (SEQ = bmc or induct) map the small memories to flops, make
# the asynchronous resets synchronous and are solved with cvc5
# (FORMAL_SEQ_SOLVER): z3 4.8 does not get past step 0 of these models here,
# cvc5 proves the KLM properties in seconds. induct: after the bounded check
# of STEPS steps, k-induction with k = STEPS (a proof); bmc: the bounded check
# only (the FIFO's pointer invariants are internal, so induction fails).
#
# Each SMT job leaves build/formal/JOB/{model.smt2,log,trace.vcd}; each
# bounded job build/formal/JOB/{design.il,model.aig,model.aim,abc.log} and,
# when it fails, cex.aiw and trace.vcd (the counterexample replayed by
# Yosys' sim over the design).
FORMAL_DIR    := $(BUILD)/formal
FORMAL_DEPTH  ?= 30
FORMAL_SOLVER ?= z3
FORMAL_SEQ_SOLVER ?= cvc5
# Bounded jobs: cycles from reset. Each cycle costs ~2.5x the one before past
# 12 (14 takes about a minute here); go deeper by hand when there is time.
FORMAL_BMC_FRAMES ?= 14
# fence_klm goes two cycles deeper (16: 70 s of CPU, ~3 min wall on the
# loaded machine; 18 had not finished after 43 min at low priority there).
FORMAL_KLM_FRAMES ?= 16
XU_RTL := rtl/xu_fifo.sv rtl/xu_table.sv rtl/xu_key_check.sv rtl/xu_walker.sv rtl/xu_klm.sv rtl/xu_fw_port.sv \
          rtl/xlate_unit.sv

# formal_job NAME TOP SOURCES DEFINES STEPS EXPECT(PASS | the property that must fail) [SEQ(bmc | induct)] [ONLY] [TAPS] [PARAMS]
# ONLY: keep just these assertions (names or patterns; a mutant job aimed at
# one property). TAPS: WIRE=PATH ...: the property module's undriven WIRE
# connected to the flattened design's PATH (an internal signal an invariant
# names; after memory_map, so PATH may name a RAM word: \\dut.u.mem_q[0]).
# PARAMS: NAME=VALUE ... of TOP.
define formal_job
$(FORMAL_DIR)/$(1)/model.smt2: $(3) $(RTL_INC) rtl/formal/formal.mk
	@mkdir -p $$(@D)
	$$(call say,YOSYS,$$@)
	$$(Q)yosys -q -l $$(@D)/yosys.log -p 'read_verilog -formal -sv $(addprefix -D,$(4)) -Iabi/gen $(3); \
	    $(foreach p,$(10),chparam -set $(subst =, ,$(p)) $(2); )prep -top $(2); flatten; $(if $(7),memory_map; opt -fast; )\
	    $(if $(9),cd $(2); $(foreach t,$(9),connect -set $(firstword $(subst =, ,$(t))) $(lastword $(subst =, ,$(t))); )cd ..; )\
	    $(if $(8),chformal -assert -remove t:$$$$assert $(addprefix n:,$(8)) $(foreach x,$(wordlist 2,99,$(8)),%u) %d; )\
	    $(if $(7),async2sync; dffunmap; )write_smt2 -wires $$@'

.PHONY: formal-$(1)
formal-$(1): $(FORMAL_DIR)/$(1)/model.smt2
	@s=$$$$(date +%s); yosys-smtbmc -s $(if $(7),$(FORMAL_SEQ_SOLVER),$(FORMAL_SOLVER)) -t $(5) \
	    --dump-vcd $(FORMAL_DIR)/$(1)/trace.vcd $$< \
	    2>&1 | grep -ao '##.*' | grep -v 'Checking assumptions' >$(FORMAL_DIR)/$(1)/log; \
	 st=$$$$(sed -n 's/.*Status: //p' $(FORMAL_DIR)/$(1)/log); how="$(5) step(s)"; \
	 if [ "$(6)$(7)" = PASSinduct ] && [ "$$$$st" = PASSED ]; then \
	    yosys-smtbmc -s $(FORMAL_SEQ_SOLVER) -i -t $(5) $$< 2>&1 | grep -ao '##.*' >>$(FORMAL_DIR)/$(1)/log; \
	    grep -q 'Temporal induction successful' $(FORMAL_DIR)/$(1)/log || st=INDUCTION-FAILED; \
	    how="proven by $(5)-induction (base case $(5) step(s))"; fi; \
	 t=$$$$(( $$$$(date +%s) - s )); \
	 failed=$$$$(sed -n 's/.*Assert failed in [^:]*: *//p' $(FORMAL_DIR)/$(1)/log | head -1); \
	 if [ "$(6)" = PASS ]; then \
	    if [ "$$$$st" = PASSED ]; then echo "formal $(1): PASSED, $$$$how, $$$${t} s"; \
	    else tail -5 $(FORMAL_DIR)/$(1)/log; echo "formal $(1): $$$${st:-no result}: $$$$failed fails (trace $(FORMAL_DIR)/$(1)/trace.vcd)"; exit 1; fi; \
	 else \
	    if [ "$$$$st" = FAILED ] && [ "$$$$failed" = "$(6)" ]; then \
	        echo "formal $(1): FAILED as it must, on $(6) (counterexample $(FORMAL_DIR)/$(1)/trace.vcd), $$$${t} s"; \
	    else tail -5 $(FORMAL_DIR)/$(1)/log; echo "formal $(1): expected $(6) to fail on this mutant, got $$$${st:-no result} $$$$failed"; exit 1; fi; \
	 fi
FORMAL_JOBS += formal-$(1)
endef

# ABC's witness starts with the initial state of the network it folded,
# which can have fewer latches than model.aig: Yosys' sim wants one value
# for every latch the map names (all 0 under -zinit), so the line is padded.
formal_cex_pad = l=$$$$(head -1 $$$$d/model.aig | cut -d' ' -f4); \
    awk -v L=$$$$l 'NR == 1 { while (length($$$$0) < L) $$$$0 = $$$$0 "0" } { print }' $$$$d/cex.aiw >$$$$d/cex.pad && \
    mv $$$$d/cex.pad $$$$d/cex.aiw;

# formal_bmc_job NAME TOP SOURCES DEFINES ASSERTS EXPECT(PASS | FAIL) [TAPS] [PARAMS] [FROM] [FRAMES]
# Only the assertions labelled ASSERTS are kept; the assumptions all stay.
# Uninitialised state (RAM, fifos) starts arbitrary (write_aiger -zinit).
# TAPS as for formal_job; PARAMS: NAME=VALUE ... of TOP; FROM: a mutant job
# looks for its counterexample from that cycle on only (bmc3 -S: the cycles
# before it are unrolled, not solved); FRAMES: the bound, else FORMAL_BMC_FRAMES.
define formal_bmc_job
$(FORMAL_DIR)/$(1)/design.il: $(3) $(RTL_INC) rtl/formal/formal.mk
	@mkdir -p $$(@D)
	$$(call say,YOSYS,$$@)
	$$(Q)yosys -q -l $$(@D)/yosys.log -p 'read_verilog -formal -sv $(addprefix -D,$(4)) -Iabi/gen $(3); \
	    $(foreach p,$(8),chparam -set $(subst =, ,$(p)) $(2); )prep -top $(2); flatten; \
	    $(if $(7),cd $(2); $(foreach t,$(7),connect -set $(firstword $(subst =, ,$(t))) $(lastword $(subst =, ,$(t))); )cd ..; )chformal -assert -remove t:$$$$assert $(addprefix n:,$(5)) $(foreach x,$(wordlist 2,99,$(5)),%u) %d; memory_map; opt -fast; \
	    async2sync; chformal -assume -early; setundef -undriven -anyseq; opt_clean; write_rtlil $$@'

$(FORMAL_DIR)/$(1)/model.aig: $(FORMAL_DIR)/$(1)/design.il
	$$(call say,AIGER,$$@)
	$$(Q)yosys -q -p 'read_rtlil $$<; opt -full; techmap; opt -fast; dffunmap; abc -g AND -fast; opt_clean; \
	    write_aiger -I -B -zinit -no-startoffset -map $(FORMAL_DIR)/$(1)/model.aim $$@'

.PHONY: formal-$(1)
formal-$(1): $(FORMAL_DIR)/$(1)/model.aig
	@d=$(FORMAL_DIR)/$(1); rm -f $$$$d/cex.aiw $$$$d/trace.vcd; s=$$$$(date +%s); \
	 yosys-abc -c "read_aiger $$<; fold; bmc3 $(if $(9),-S $(9) )-F $(or $(10),$(FORMAL_BMC_FRAMES)) -v; write_cex -a $$$$d/cex.aiw" >$$$$d/abc.log 2>&1; \
	 t=$$$$(( $$$$(date +%s) - s )); \
	 frame=$$$$(sed -n 's/.*was asserted in frame *\([0-9]*\).*/\1/p' $$$$d/abc.log | head -1); \
	 if [ -n "$$$$frame" ]; then \
	    $(formal_cex_pad) \
	    yosys -q -p "read_rtlil $$$$d/design.il; sim -clock clk_i -r $$$$d/cex.aiw -map $$$$d/model.aim -vcd $$$$d/trace.vcd -scope $(2)" \
	        >$$$$d/replay.log 2>&1; \
	    grep -qE "Assert $(2).($(subst $(formal_space),|,$(strip $(5)))) " $$$$d/replay.log || { cat $$$$d/replay.log; echo "formal $(1): ABC's counterexample does not replay to $(5) failing"; exit 1; }; \
	 fi; \
	 if [ "$(6)" = PASS ]; then \
	    if [ -z "$$$$frame" ] && grep -q "No output asserted in $(or $(10),$(FORMAL_BMC_FRAMES)) frames" $$$$d/abc.log; then \
	        echo "formal $(1): $(5) holds in every run of $(or $(10),$(FORMAL_BMC_FRAMES)) cycles from reset (bounded), $$$${t} s"; \
	    else tail -5 $$$$d/abc.log; echo "formal $(1): $(5) FAILS at cycle $$$${frame:-?} (trace $$$$d/trace.vcd)"; exit 1; fi; \
	 else \
	    if [ -n "$$$$frame" ]; then echo "formal $(1): FAILED as it must, on $(5) at cycle $$$$frame (counterexample $$$$d/trace.vcd), $$$${t} s"; \
	    else tail -5 $$$$d/abc.log; echo "formal $(1): expected $(5) to fail on this mutant within $(or $(10),$(FORMAL_BMC_FRAMES)) cycles"; exit 1; fi; \
	 fi
FORMAL_JOBS += formal-$(1)
endef

# formal_ind_job NAME TOP SOURCES DEFINES ASSERTS TAPS PARAMS K BASE [EXPECT] [EARLY] [PRE]
# An unbounded proof on the AIGER netlist: ASSERTS (the property and the
# invariants that make it inductive) hold in every run of BASE >= K cycles
# from reset (ABC's bmc3; a counterexample is replayed as above), and
# K-induction (ABC's `ind` on the OR of them all) proves they hold forever.
# EXPECT (a mutant's job: the same assertions and invariants on the mutant
# RTL): the base case must find a counterexample within BASE cycles that
# replays to the assertion EXPECT failing. EARLY: taps as TAPS, connected
# before memory_map and opt (a wire opt merges away, e.g. a port's
# combinational job input, can be named there; a RAM word cannot). PRE:
# Yosys commands run before prep (after a `hierarchy -top`: a cutpoint that
# frees a block's outputs, a keep that stops opt narrowing a wire).
define formal_ind_job
$(FORMAL_DIR)/$(1)/design.il: $(3) $(RTL_INC) rtl/formal/formal.mk
	@mkdir -p $$(@D)
	$$(call say,YOSYS,$$@)
	$$(Q)yosys -q -l $$(@D)/yosys.log -p 'read_verilog -formal -sv $(addprefix -D,$(4)) -Iabi/gen $(3); \
	    $(foreach p,$(7),chparam -set $(subst =, ,$(p)) $(2); )$(12) prep -top $(2); flatten; \
	    $(if $(11),cd $(2); $(foreach t,$(11),connect -set $(firstword $(subst =, ,$(t))) $(lastword $(subst =, ,$(t))); )cd ..; )\
	    memory_map; opt -fast; \
	    cd $(2); $(foreach t,$(6),connect -set $(firstword $(subst =, ,$(t))) $(lastword $(subst =, ,$(t))); )cd ..; \
	    chformal -assert -remove t:$$$$assert $(addprefix n:,$(5)) $(foreach x,$(wordlist 2,99,$(5)),%u) %d; \
	    async2sync; chformal -assume -early; setundef -undriven -anyseq; opt_clean; write_rtlil $$@'

$(FORMAL_DIR)/$(1)/model.aig: $(FORMAL_DIR)/$(1)/design.il
	$$(call say,AIGER,$$@)
	$$(Q)yosys -q -p 'read_rtlil $$<; opt -full; techmap; opt -fast; dffunmap; abc -g AND -fast; opt_clean; \
	    write_aiger -I -B -zinit -no-startoffset -map $(FORMAL_DIR)/$(1)/model.aim $$@'

.PHONY: formal-$(1)
formal-$(1): $(FORMAL_DIR)/$(1)/model.aig
	@d=$(FORMAL_DIR)/$(1); rm -f $$$$d/cex.aiw $$$$d/trace.vcd; s=$$$$(date +%s); \
	 yosys-abc -c "read_aiger $$<; fold; bmc3 -F $(9) -v; write_cex -a $$$$d/cex.aiw" >$$$$d/abc.log 2>&1; \
	 frame=$$$$(sed -n 's/.*was asserted in frame *\([0-9]*\).*/\1/p' $$$$d/abc.log | head -1); \
	 if [ -n "$$$$frame" ]; then \
	    $(formal_cex_pad) \
	    yosys -q -p "read_rtlil $$$$d/design.il; sim -clock clk_i -r $$$$d/cex.aiw -map $$$$d/model.aim -vcd $$$$d/trace.vcd -scope $(2)" \
	        >$$$$d/replay.log 2>&1; \
	    if [ -n "$(10)" ] && grep -q "Assert $(2).$(10) " $$$$d/replay.log; then \
	        echo "formal $(1): FAILED as it must, on $(10) at cycle $$$$frame (counterexample $$$$d/trace.vcd), $$$$(( $$$$(date +%s) - s )) s"; exit 0; fi; \
	    tail -5 $$$$d/replay.log; echo "formal $(1): FAILS at cycle $$$$frame from reset (trace $$$$d/trace.vcd)"; exit 1; \
	 fi; \
	 if [ -n "$(10)" ]; then tail -3 $$$$d/abc.log; echo "formal $(1): expected $(10) to fail on this mutant within $(9) cycles"; exit 1; fi; \
	 grep -q "No output asserted in $(9) frames" $$$$d/abc.log || { tail -5 $$$$d/abc.log; echo "formal $(1): base case undecided"; exit 1; }; \
	 yosys-abc -c "read_aiger $$<; fold; orpos; ind -F $(8) -v" >$$$$d/ind.log 2>&1; t=$$$$(( $$$$(date +%s) - s )); \
	 if grep -q "Networks are equivalent" $$$$d/ind.log; then \
	    echo "formal $(1): PASSED, proven by $(8)-induction (base case $(9) cycles from reset), $$$${t} s"; \
	 else tail -3 $$$$d/ind.log; echo "formal $(1): $(8)-induction does not close (an invariant is missing)"; exit 1; fi
FORMAL_JOBS += formal-$(1)
endef

FORMAL_JOBS :=
formal_space := $(subst ,, )
$(eval $(call formal_job,keycheck,xu_key_check_props,rtl/xu_key_check.sv rtl/formal/xu_key_check_props.sv,,1,PASS))
$(eval $(call formal_job,keycheck-mutant-no-pd,xu_key_check_props,rtl/xu_key_check.sv rtl/formal/xu_key_check_props.sv,HCA_MUTANT_KEYCHECK_NO_PD,1,grant_only_if_rules))
KLM_PROPS  := rtl/xu_klm.sv rtl/formal/xu_klm_props.sv
FIFO_PROPS := rtl/xu_fifo.sv rtl/formal/xu_fifo_props.sv
$(eval $(call formal_job,klm-handshake,xu_klm_props,$(KLM_PROPS),,2,PASS,induct))
$(eval $(call formal_job,klm-mutant-no-ready,xu_klm_props,$(KLM_PROPS),HCA_MUTANT_KLM_NO_READY,4,piece_held,bmc))
$(eval $(call formal_job,klm-mutant-no-end,xu_klm_props,$(KLM_PROPS),HCA_MUTANT_KLM_NO_END,4,no_piece_without_walk,bmc))
$(eval $(call formal_job,rsp-handshake,xu_fifo_props,$(FIFO_PROPS),,8,PASS,bmc))
$(eval $(call formal_job,rsp-mutant-head-newest,xu_fifo_props,$(FIFO_PROPS),HCA_MUTANT_FIFO_HEAD_NEWEST,8,out_held,bmc))

CTX_PROPS := rtl/hca_ctx.sv rtl/formal/hca_ctx_props.sv
CTX_TAPS  := drain_q=dut.drain_q
$(eval $(call formal_job,ctx-drain,hca_ctx_props,$(CTX_PROPS),,3,PASS,induct,,$(CTX_TAPS)))
$(eval $(call formal_job,ctx-mutant-no-drain,hca_ctx_props,$(CTX_PROPS),HCA_MUTANT_NO_DRAIN,6,drain_waits,bmc,drain_waits,$(CTX_TAPS)))

XU_PROPS := $(XU_RTL) rtl/formal/xlate_unit_props.sv
XU_TAPS  := t_s1_valid=dut.s1_valid_q t_s1_push=dut.s1_push t_s1_lvl=dut.s1_lvl_q t_s1_key=dut.s1_key_q \
            t_wk_ld_ready=dut.wk_ld_ready t_walk_end=dut.klm_walk_end t_iss_fire=dut.wk_iss_fire \
            t_fifo_push=dut.u_rsp_fifo.push
$(foreach p,fence rsp_in_order no_overflow rsp_stable fw_answer,$(eval $(call formal_bmc_job,xu-$(p),xlate_unit_props,$(XU_PROPS),,$(p),PASS,$(XU_TAPS))))
$(eval $(call formal_bmc_job,xu-fence-mutant-no-fence,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_NO_FENCE,fence,FAIL,$(XU_TAPS)))
$(eval $(call formal_bmc_job,xu-fence-mutant-resp-no-recheck,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_RESP_NO_RECHECK,fence,FAIL,$(XU_TAPS)))
# The fence, unbounded: on the unit without KLM walks (KLM=0: no MPT entry
# is written in KLM mode), every width whole, 4 MPT entries, fence and the
# strengthening invariants inv_* proven together by 3-induction.
XU_IND_TAPS := $(XU_TAPS) \
    t_inflight=dut.u_fw_port.inflight_q t_fence=dut.u_fw_port.fence_q t_fwst=dut.u_fw_port.state_q \
    t_fwidx=dut.u_fw_port.idx_q t_stage=dut.u_fw_port.mpt_stage_q t_wk_busy=dut.u_walker.busy_q \
    t_wk_status=dut.u_walker.status_q t_wk_final=dut.u_walker.final_q t_wk_klm=dut.u_walker.klm_q \
    t_s1_sub=dut.s1_sub_q t_s1_final=dut.s1_final_q t_kc_status=dut.kc_status t_s3_valid=dut.s3_valid_q \
    t_s3_status=dut.s3_status_q t_s3_last=dut.s3_last_q t_s3_end=dut.s3_end_q t_s3_klm=dut.s3_klm_q \
    t_f_rptr=dut.u_rsp_fifo.rptr_q t_f_wptr=dut.u_rsp_fifo.wptr_q t_f_level=dut.u_rsp_fifo.level_q \
    t_f0=\dut.u_rsp_fifo.mem_q[0] t_f1=\dut.u_rsp_fifo.mem_q[1] t_f2=\dut.u_rsp_fifo.mem_q[2] \
    t_f3=\dut.u_rsp_fifo.mem_q[3] $(foreach k,0 1 2 3,t_m$(k)=\dut.u_mpt.mem_q[$(k)]) \
    t_mpt_valid=dut.u_mpt.valid_q t_a_rdata=dut.u_mpt.a_rdata_q t_b_rdata=dut.u_mpt.b_rdata_q \
    t_a_rvalid=dut.u_mpt.a_rvalid_q t_b_rvalid=dut.u_mpt.b_rvalid_q t_klm_st=dut.u_klm.state_q \
    t_s1_tag=dut.s1_tag_q t_wk_tag=dut.u_walker.tag_q t_s3_tag=dut.s3_tag_q t_klm_tag=dut.u_klm.tag_q
# S1's hand-off to the page walker (ld_held), the walker's load port as
# flattened, named before opt.
XU_LD_TAPS := $(foreach p,valid walk final klm tag status pa va iova len page_shift mtt_base mtt_count,\
                t_ld_$(p)=dut.u_walker.ld_$(p)_i)
$(eval $(call formal_ind_job,xu-fence-ind,xlate_unit_props,$(XU_PROPS),,fence ld_held inv_*,$(XU_IND_TAPS) t_max_ind=dut.max_ind,KLM=0 MPT_ENTRIES=4,3,10,,$(XU_LD_TAPS)))
$(eval $(call formal_bmc_job,xu-ld-mutant-s1-no-stall,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_S1_NO_STALL,ld_held,FAIL,$(XU_TAPS) $(XU_LD_TAPS) t_max_ind=dut.max_ind,KLM=0 MPT_ENTRIES=4))
$(eval $(call formal_bmc_job,xu-fence-ind-mutant-no-fence,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_NO_FENCE,fence,FAIL,$(XU_TAPS),KLM=0 MPT_ENTRIES=4))
# The fence with KLM walks, unbounded: fence and fence_klm with the same
# invariants and the walk's own (inv_walk, inv_lvl, inv_ctx[_all],
# inv_tail, inv_klm, inv_ext, inv_rd, inv_fw2, inv_sh, inv_thru), KLM = 1,
# 4 MPT and 2 MTT entries (a walk nests through an entry naming its own MR
# or another one), by 3-induction.
XU_KLM_IND_PARAMS := KLM=1 MPT_ENTRIES=4
XU_KLM_TAPS       := t_klm_lvl=dut.u_klm.lvl_q t_max_ind=dut.max_ind t_s1_err=dut.s1_err_q \
    t_klm_rd_want=dut.u_klm.rd_want t_klm_rd_push=dut.u_klm.rd_push t_klm_rd_ci=dut.u_klm.rd_ci \
    t_klm_rd_base=dut.u_klm.rd_base
XU_KLM_IND_TAPS   := $(XU_IND_TAPS) $(XU_KLM_TAPS) $(foreach k,0 1 2 3,t_kb$(k)=\dut.u_klm.base_q[$(k)]) \
    $(foreach k,0 1 2 3,t_kt$(k)=\dut.u_klm.tail_q[$(k)] t_kr$(k)=\dut.u_klm.rem_q[$(k)])
# The bookkeeping and the handshakes close with them (inv_tag: each
# stage's tag is its slot's): rsp_in_order, no_overflow, rsp_stable,
# fw_answer unbounded too.
XU_KLM_IND_ASSERTS := fence fence_klm rsp_in_order no_overflow rsp_stable fw_answer ld_held inv_*
$(eval $(call formal_ind_job,xu-fence-klm-ind,xlate_unit_props,$(XU_PROPS),,$(XU_KLM_IND_ASSERTS),$(XU_KLM_IND_TAPS),$(XU_KLM_IND_PARAMS),3,10,,$(XU_LD_TAPS)))
# The output FIFO's head read at the write side (HCA_MUTANT_FIFO_HEAD_NEWEST):
# rsp_stable and rsp_in_order fail (alone: the mutant's FIFO has no read
# pointer left to tap).
$(foreach p,rsp_stable rsp_in_order,$(eval $(call formal_bmc_job,xu-$(p)-mutant-head-newest,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_FIFO_HEAD_NEWEST,$(p),FAIL,$(XU_TAPS),$(XU_KLM_IND_PARAMS))))
# A firmware write left unanswered (HCA_MUTANT_FWP_WRITE_NO_ANSWER in
# xu_fw_port.sv): fw_answer fails, under every invariant.
$(eval $(call formal_ind_job,xu-fence-klm-ind-mutant-write-no-answer,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_FWP_WRITE_NO_ANSWER,$(XU_KLM_IND_ASSERTS),$(XU_KLM_IND_TAPS),$(XU_KLM_IND_PARAMS),3,4,fw_answer,$(XU_LD_TAPS)))
# A KLM-specific step broken: a level's context written only by the walk's
# first push (HCA_MUTANT_KLM_STALE_CTX), so a deeper level walks a stale list.
$(eval $(call formal_bmc_job,xu-fence-klm-ind-mutant-stale-ctx,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_KLM_STALE_CTX,inv_ctx,FAIL,\
    $(XU_TAPS) t_a_rdata=dut.u_mpt.a_rdata_q t_klm_st=dut.u_klm.state_q $(XU_KLM_TAPS),$(XU_KLM_IND_PARAMS)))
$(eval $(call formal_bmc_job,xu-fence-klm-ind-mutant-no-fence,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_NO_FENCE,fence_klm,FAIL,$(XU_TAPS),$(XU_KLM_IND_PARAMS)))

# The fence through a KLM entry: 4 MPT entries (an indirect MR and the MR
# its entry names, neither at index 0).
$(eval $(call formal_bmc_job,xu-fence-klm,xlate_unit_props,$(XU_PROPS),,fence_klm,PASS,$(XU_TAPS),MPT_ENTRIES=4,,$(FORMAL_KLM_FRAMES)))
# Rule 7: every KLM piece judged as a local access in the request's PD with
# the rule's rights, passing only if rules 1-6 hold on its entry; no level
# past max_indirection (4 MPT entries, bounded).
XU_R7_TAPS := $(XU_TAPS) t_s1_err=dut.s1_err_q t_s1_remote=dut.s1_remote_q t_s1_pd=dut.s1_pd_q \
    t_s1_rights=dut.s1_rights_q t_s1_va=dut.s1_va_q t_s1_len=dut.s1_len_q t_max_ind=dut.max_ind \
    t_s1_sub7=dut.s1_sub_q t_kc_status7=dut.kc_status t_a_rdata7=dut.u_mpt.a_rdata_q t_a_rvalid7=dut.u_mpt.a_rvalid_q
$(foreach p,rule7 rule7_depth,$(eval $(call formal_bmc_job,xu-$(p),xlate_unit_props,$(XU_PROPS),,$(p),PASS,$(XU_R7_TAPS),MPT_ENTRIES=4)))
# Rule 7 unbounded: rule7 and rule7_depth with every inv_* and inv7_piece
# (the walk's PD and rights), on the fence induction's unit (KLM = 1, 2 MPT
# entries), by 3-induction.
XU_R7_IND_TAPS := $(sort $(XU_KLM_IND_TAPS) $(XU_R7_TAPS)) t_klm_pd=dut.u_klm.pd_q t_klm_rights=dut.u_klm.rights_q
$(eval $(call formal_ind_job,xu-rule7-ind,xlate_unit_props,$(XU_PROPS),,rule7 rule7_depth inv_* inv7_*,$(XU_R7_IND_TAPS),$(XU_KLM_IND_PARAMS),3,10))
$(eval $(call formal_ind_job,xu-rule7-ind-mutant-no-entry-check,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_KLM_NO_ENTRY_CHECK,rule7 rule7_depth inv_* inv7_*,$(XU_R7_IND_TAPS),$(XU_KLM_IND_PARAMS),3,10,rule7))
$(eval $(call formal_bmc_job,xu-rule7-mutant-no-entry-check,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_KLM_NO_ENTRY_CHECK,rule7,FAIL,$(XU_R7_TAPS),MPT_ENTRIES=4))
$(eval $(call formal_bmc_job,xu-fence-klm-mutant-no-entry-check,xlate_unit_props,$(XU_PROPS),HCA_MUTANT_KLM_NO_ENTRY_CHECK,fence_klm,FAIL,$(XU_TAPS),MPT_ENTRIES=4,16,22))

# Valid/ready on the block boundaries (rtl/formal/*_props.sv, one module
# per block: assumptions on its inputs per the protocol, assertions on its
# outputs), each with a mutant that breaks one property.
ARB_PROPS := rtl/hca_arb.sv rtl/formal/hca_arb_props.sv
$(eval $(call formal_job,arb-handshake,hca_arb_props,$(ARB_PROPS),,2,PASS,induct))
$(eval $(call formal_job,arb-mutant-no-hold,hca_arb_props,$(ARB_PROPS),HCA_MUTANT_ARB_NO_HOLD,4,out_held,bmc))
PBUF_PROPS := rtl/hca_pbuf.sv rtl/formal/hca_pbuf_props.sv
$(eval $(call formal_job,pbuf-offers,hca_pbuf_props,$(PBUF_PROPS),,2,PASS,induct,,t_free=dut.free_q))
$(eval $(call formal_job,pbuf-mutant-no-reserve,hca_pbuf_props,$(PBUF_PROPS),HCA_MUTANT_PBUF_NO_RESERVE,6,offers_apart,bmc,offers_apart,t_free=dut.free_q))
FWP_PROPS := rtl/xu_fw_port.sv rtl/formal/xu_fw_port_props.sv
FWP_TAPS  := t_state=dut.state_q t_result=dut.result_q t_idx=dut.idx_q t_ok=dut.bank_ok_q \
             $(foreach i,0 1 2 3 4 5 6 7,t_b$(i)=\dut.bank_q[$(i)])
$(eval $(call formal_job,fwp-fast-reg,xu_fw_port_props,$(FWP_PROPS),,2,PASS,induct,,$(FWP_TAPS)))
$(eval $(call formal_job,fwp-mutant-fr-bank-slot,xu_fw_port_props,$(FWP_PROPS),HCA_MUTANT_FR_BANK_SLOT,4,fr_write,bmc,fr_write,$(FWP_TAPS)))
EVT_PROPS := rtl/hca_arb.sv rtl/xu_fifo.sv rtl/hca_evt.sv rtl/formal/hca_evt_props.sv
EVT_TAPS  := t_level=dut.level t_rptr=dut.u_fifo.rptr_q t_wptr=dut.u_fifo.wptr_q t_m0=\dut.u_fifo.mem_q[0] t_m1=\dut.u_fifo.mem_q[1]
$(eval $(call formal_job,evt-queue,hca_evt_props,$(EVT_PROPS),,2,PASS,induct,,$(EVT_TAPS)))
$(eval $(call formal_job,evt-mutant-full-takes,hca_evt_props,$(EVT_PROPS),HCA_MUTANT_EVT_FULL_TAKES,6,no_loss,bmc,no_loss,$(EVT_TAPS)))
$(eval $(call formal_job,evt-mutant-head-newest,hca_evt_props,$(EVT_PROPS),HCA_MUTANT_FIFO_HEAD_NEWEST,6,data_in_order,bmc,data_in_order))
CQW_PROPS := rtl/hca_cq_writer.sv rtl/formal/hca_cq_writer_props.sv
CQW_TAPS  := t_state=dut.state_q t_cqe=dut.cqe_q t_out=dut.out_q t_nxt=dut.nxt_q
$(eval $(call formal_job,cqw-ports,hca_cq_writer_props,$(CQW_PROPS),,2,PASS,induct,,$(CQW_TAPS)))
$(eval $(call formal_job,cqw-mutant-no-ready,hca_cq_writer_props,$(CQW_PROPS),HCA_MUTANT_CQW_NO_READY,6,dma_req_held,bmc,dma_req_held))
$(eval $(call formal_job,cqw-mutant-drain-no-cqe-write,hca_cq_writer_props,$(CQW_PROPS),HCA_MUTANT_DRAIN_NO_CQE_WRITE,6,drain_busy,bmc,drain_busy))
SGE_PROPS := rtl/hca_sge_mover.sv rtl/formal/hca_sge_mover_props.sv
SGE_TAPS  := t_state=dut.state_q t_chk=dut.chk_q t_st=dut.st_q
$(eval $(call formal_job,sge-ports,hca_sge_mover_props,$(SGE_PROPS),,2,PASS,induct,,$(SGE_TAPS)))
$(eval $(call formal_job,sge-ports-post,hca_sge_mover_props,$(SGE_PROPS),,2,PASS,induct,,$(SGE_TAPS),POST=1))
$(eval $(call formal_job,sge-mutant-take-early,hca_sge_mover_props,$(SGE_PROPS),HCA_MUTANT_SGE_TAKE_EARLY,8,beat_after_dma,bmc,beat_after_dma))
XARB_PROPS := rtl/hca_arb.sv rtl/xu_fifo.sv rtl/hca_xarb.sv rtl/formal/hca_xarb_props.sv
XARB_TAPS  := t_level=dut.level t_rptr=dut.u_ids.rptr_q t_wptr=dut.u_ids.wptr_q \
              $(foreach k,0 1 2 3 4 5 6 7,t_m$(k)=\dut.u_ids.mem_q[$(k)])
$(eval $(call formal_job,xarb-ports,hca_xarb_props,$(XARB_PROPS),,2,PASS,induct,,$(XARB_TAPS)))
$(eval $(call formal_job,xarb-mutant-pop-every-beat,hca_xarb_props,$(XARB_PROPS),HCA_MUTANT_XARB_POP_EVERY_BEAT,6,rsp_routed,bmc,rsp_routed))
CTXP_PROPS := rtl/hca_ctx.sv rtl/formal/hca_ctx_port_props.sv
CTXP_TAPS  := t_stage=dut.stage_q t_result=dut.result_q
$(eval $(call formal_ind_job,ctx-ports,hca_ctx_port_props,$(CTXP_PROPS),,fw_answer data_readback status_result db_ready,$(CTXP_TAPS),,2,4))
$(eval $(call formal_job,ctx-mutant-write-no-answer,hca_ctx_port_props,$(CTXP_PROPS),HCA_MUTANT_CTX_WRITE_NO_ANSWER,4,fw_answer,bmc,fw_answer))
PLACE_PROPS := rtl/hca_resp_place.sv rtl/formal/hca_resp_place_props.sv
# By 2-induction with the invariants inv_* over the engine's counters (a
# 2-entry segment list, so the streaming pass is reached).
PLACE_ASSERTS := xq_held dma_req_held check_first dma_per_seg rsp_only_out
PLACE_TAPS := t_state=dut.state_q t_iss=dut.iss_q t_lasts=dut.lasts_q t_nseg=dut.nseg_q t_dma=dut.dma_q \
              t_ans=dut.ans_q t_fail=dut.fail_q t_ovf=dut.ovf_q t_hold=dut.hold_q
$(eval $(call formal_ind_job,place-ports,hca_resp_place_props,$(PLACE_PROPS),,$(PLACE_ASSERTS) inv_*,$(PLACE_TAPS),,2,4))
$(eval $(call formal_ind_job,place-mutant-no-check-wait,hca_resp_place_props,$(PLACE_PROPS),HCA_MUTANT_PLACE_NO_CHECK_WAIT,$(PLACE_ASSERTS) inv_*,$(PLACE_TAPS),,2,8,check_first))
SEND_PROPS := rtl/hca_sge_mover.sv rtl/hca_req_send.sv rtl/formal/hca_req_send_props.sv
SEND_TAPS  := t_mv_start=dut.mv_start t_sges=dut.sges_q t_nsge=dut.nsge3 t_ctx_reset=dut.ctx_reset \
              t_state=dut.state_q t_mvst=dut.u_mover.state_q t_pv=dut.pv_q t_pslot=dut.pslot_q \
              t_slot=dut.slot_q t_mvchk=dut.u_mover.chk_q t_cnt0=dut.cnt0_q t_cnt1=dut.cnt1_q \
              t_rdout=dut.rd_out_q t_pfreq=dut.pf_req_q t_pfheld=dut.pf_held_q t_pfslot=dut.pf_slot_q \
              t_berr0=dut.berr0_q t_berr1=dut.berr1_q
SEND_ASSERTS := mover_owner tx_held fin_held evt_held dma_held sched_idle rel_owned rel_kind
$(eval $(call formal_ind_job,send-ports,hca_req_send_props,$(SEND_PROPS),,$(SEND_ASSERTS) inv_*,$(SEND_TAPS),,2,4))
$(eval $(call formal_bmc_job,send-mutant-sge-unheld,hca_req_send_props,$(SEND_PROPS),HCA_MUTANT_SEND_SGE_UNHELD,mover_owner,FAIL,$(SEND_TAPS),,17,19))
# The same mutant under the induction job's assertions and invariants: from
# reset it fails first on evt_held at cycle 7 (the WQE fields reloaded by a
# prefetch's answer while a memory-management event is offered, not taken).
$(eval $(call formal_ind_job,send-ind-mutant-sge-unheld,hca_req_send_props,$(SEND_PROPS),HCA_MUTANT_SEND_SGE_UNHELD,$(SEND_ASSERTS) inv_*,$(SEND_TAPS),,2,10,evt_held))
# The prefetch's offer dropped while not taken (the WQE fetch of the next
# claim takes the port): dma_held, under every assertion and invariant.
$(eval $(call formal_ind_job,send-mutant-pf-unheld,hca_req_send_props,$(SEND_PROPS),HCA_MUTANT_SEND_PF_UNHELD,$(SEND_ASSERTS) inv_*,$(SEND_TAPS),,2,12,dma_held))

RESP_PROPS := rtl/hca_sge_mover.sv rtl/hca_req_resp.sv rtl/formal/hca_req_resp_props.sv
RESP_TAPS  := t_mv_start=dut.mv_start t_ctx_reset=dut.ctx_reset t_fsm_free=dut.fsm_free \
              t_state=dut.state_q t_mvst=dut.u_mover.state_q t_mvchk=dut.u_mover.chk_q t_slot=dut.slot_q \
              t_pf=dut.pf_q t_pfslot=dut.pfslot_q t_cnt0=dut.cnt0_q t_cnt1=dut.cnt1_q t_claimed=dut.claimed_q
RESP_ASSERTS := mover_owner fin_held evt_held dma_held free_held claim_free claim_inflight rel_owned own_qpn_held
$(eval $(call formal_ind_job,rspeng-ports,hca_req_resp_props,$(RESP_PROPS),,$(RESP_ASSERTS) inv_*,$(RESP_TAPS),,3,4))
$(eval $(call formal_ind_job,rspeng-mutant-qpn-moves,hca_req_resp_props,$(RESP_PROPS),HCA_MUTANT_RESP_QPN_MOVES,$(RESP_ASSERTS) inv_*,$(RESP_TAPS),,2,8,mover_owner))

# The wrapper's side of the hand-over: hca_requester with both engines cut
# out (their outputs free), constrained by what the two jobs above prove.
REQ_PROPS := rtl/hca_sge_mover.sv rtl/hca_req_send.sv rtl/hca_req_resp.sv rtl/hca_qfifo.sv rtl/xu_fifo.sv rtl/hca_xarb.sv \
             rtl/hca_arb.sv rtl/hca_requester.sv rtl/formal/hca_requester_props.sv
REQ_CUT   := hierarchy -top hca_requester_props; cutpoint t:*hca_req_send* t:*hca_req_resp*; \
             setattr -set keep 1 w:look_parking w:look_park w:look_qst;
# (connected before the netlist is optimized: the park entry and the
# bypass feed only the response engine's inputs, which the cut removed)
REQ_TAPS  := t_sched_valid=dut.sched_valid t_sched_ready=dut.sched_ready t_s_rel_valid=dut.s_rel_valid \
             t_s_rel_inflight=dut.s_rel_inflight t_r_claim=dut.r_claim t_r_rel_valid=dut.r_rel_valid \
             t_look_parking=dut.look_parking t_s_qpn=dut.s_qpn t_look_qpn=dut.look_qpn \
             t_look_qst=dut.look_qst t_look_park=dut.look_park
REQ_MEM_TAPS := t_qst0=\dut.qst_q[0] t_qst1=\dut.qst_q[1]
$(eval $(call formal_ind_job,requester-park,hca_requester_props,$(REQ_PROPS),,park_held inv_*,$(REQ_MEM_TAPS),,2,6,,$(REQ_TAPS),$(REQ_CUT)))
$(eval $(call formal_ind_job,requester-mutant-wr-taken,hca_requester_props,$(REQ_PROPS),HCA_MUTANT_REQ_WR_TAKEN,park_held inv_*,$(REQ_MEM_TAPS),,2,10,park_held,$(REQ_TAPS),$(REQ_CUT)))
$(eval $(call formal_ind_job,requester-mutant-claim-race,hca_requester_props,$(REQ_PROPS),HCA_MUTANT_REQ_CLAIM_RACE,park_held inv_*,$(REQ_MEM_TAPS),,2,10,park_held,$(REQ_TAPS),$(REQ_CUT)))

RSPD_PROPS := rtl/hca_resp_place.sv rtl/hca_qfifo.sv rtl/hca_responder.sv rtl/formal/hca_responder_props.sv
RSPD_TAPS  := t_start=dut.eng_start t_busy=dut.eng_busy t_check_only=dut.job_check_only t_post=dut.job_post \
              t_remote=dut.job_remote t_buf=dut.job_buf t_pd=dut.c_pd_q t_qpn=dut.qpn_q \
              t_va=dut.job_va t_len=dut.job_len t_key=dut.job_key t_op=dut.job_op t_rights=dut.job_rights
# (the job's op and rights are constants per case: kept whole for their taps)
RSPD_KEEP  := hierarchy -top hca_responder_props; setattr -set keep 1 w:job_op w:job_rights;
RSPD_ASSERTS := place_owner tx_held cpl_held evt_held dma_held
# By 2-induction with the invariants inv_* (hca_responder_props.sv) over
# the responder's and its placement engine's state; every tap is EARLY
# (the job's wires are merged away by opt).
RSPD_IND_TAPS := $(RSPD_TAPS) t_state=dut.state_q t_pst=dut.u_place.state_q t_hold=dut.u_place.hold_q \
                 t_nseg=dut.u_place.nseg_q t_pdma=dut.u_place.dma_q t_pans=dut.u_place.ans_q t_rcnt0=dut.rcnt0_q \
                 t_rcnt1=dut.rcnt1_q t_txp=dut.txp_q t_txpend=dut.tx_pend_q t_txslot=dut.txslot_q \
                 t_rslot=dut.rslot_q t_cplpend=dut.cpl_pend_q t_rberr0=dut.rberr0_q t_rberr1=dut.rberr1_q \
                 t_piss=dut.u_place.iss_q t_plasts=dut.u_place.lasts_q
$(eval $(call formal_ind_job,responder-ports,hca_responder_props,$(RSPD_PROPS),,$(RSPD_ASSERTS) inv_*,,,2,4,,$(RSPD_IND_TAPS),$(RSPD_KEEP)))
# The mutant under the proof's assertions and invariants (the base case
# from reset reaches the moved job at cycle 5).
$(eval $(call formal_ind_job,responder-mutant-job-moves,hca_responder_props,$(RSPD_PROPS),HCA_MUTANT_RESPONDER_JOB_MOVES,$(RSPD_ASSERTS) inv_*,,,2,8,place_owner,$(RSPD_IND_TAPS),$(RSPD_KEEP)))

# The short jobs (seconds each): every block-boundary proof and mutant but
# the responder's proof and mutant (1-2 min each) and the send engine's
# other mutants (a minute or more), plus the KLM walker's and the ctx DRAIN's.
FORMAL_QUICK := formal-arb-handshake formal-arb-mutant-no-hold formal-pbuf-offers \
    formal-pbuf-mutant-no-reserve formal-evt-queue formal-evt-mutant-full-takes \
    formal-evt-mutant-head-newest formal-cqw-ports formal-cqw-mutant-no-ready formal-cqw-mutant-drain-no-cqe-write formal-sge-ports \
    formal-sge-ports-post formal-sge-mutant-take-early formal-xarb-ports \
    formal-xarb-mutant-pop-every-beat formal-ctx-ports formal-ctx-mutant-write-no-answer \
    formal-send-ports formal-send-ind-mutant-sge-unheld formal-rspeng-ports formal-place-ports \
    formal-place-mutant-no-check-wait formal-rspeng-mutant-qpn-moves formal-klm-handshake formal-klm-mutant-no-ready \
    formal-klm-mutant-no-end formal-ctx-drain formal-ctx-mutant-no-drain \
    formal-requester-park formal-requester-mutant-wr-taken formal-fwp-fast-reg formal-fwp-mutant-fr-bank-slot

.PHONY: formal formal-quick
formal: $(FORMAL_JOBS)
formal-quick: $(FORMAL_QUICK)
CHECKS += formal-quick
