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
# Sequential jobs (SEQ = bmc or induct) map the small memories to flops, make
# the asynchronous resets synchronous and are solved with cvc5
# (FORMAL_SEQ_SOLVER): z3 4.8 does not get past step 0 of these models here,
# cvc5 proves the KLM properties in seconds. induct: after the bounded check
# of STEPS steps, k-induction with k = STEPS (a proof); bmc: the bounded check
# only (the FIFO's pointer invariants are internal, so induction fails).
#
# Each job leaves build/formal/JOB/{model.smt2,log,trace.vcd}.
FORMAL_DIR    := $(BUILD)/formal
FORMAL_DEPTH  ?= 30
FORMAL_SOLVER ?= z3
FORMAL_SEQ_SOLVER ?= cvc5
XU_RTL := rtl/xu_fifo.sv rtl/xu_table.sv rtl/xu_key_check.sv rtl/xu_walker.sv rtl/xu_klm.sv rtl/xu_fw_port.sv \
          rtl/xlate_unit.sv

# formal_job NAME TOP SOURCES DEFINES STEPS EXPECT(PASS | the property that must fail) [SEQ(bmc | induct)]
define formal_job
$(FORMAL_DIR)/$(1)/model.smt2: $(3) $(RTL_INC) rtl/formal/formal.mk
	@mkdir -p $$(@D)
	$$(call say,YOSYS,$$@)
	$$(Q)yosys -q -l $$(@D)/yosys.log -p 'read_verilog -formal -sv $(addprefix -D,$(4)) -Iabi/gen $(3); \
	    prep -top $(2); flatten; $(if $(7),memory_map; opt -fast; async2sync; dffunmap; )write_smt2 -wires $$@'

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

FORMAL_JOBS :=
$(eval $(call formal_job,keycheck,xu_key_check_props,rtl/xu_key_check.sv rtl/formal/xu_key_check_props.sv,,1,PASS))
$(eval $(call formal_job,keycheck-mutant-no-pd,xu_key_check_props,rtl/xu_key_check.sv rtl/formal/xu_key_check_props.sv,HCA_MUTANT_KEYCHECK_NO_PD,1,grant_only_if_rules))
KLM_PROPS  := rtl/xu_klm.sv rtl/formal/xu_klm_props.sv
FIFO_PROPS := rtl/xu_fifo.sv rtl/formal/xu_fifo_props.sv
$(eval $(call formal_job,klm-handshake,xu_klm_props,$(KLM_PROPS),,2,PASS,induct))
$(eval $(call formal_job,klm-mutant-no-ready,xu_klm_props,$(KLM_PROPS),HCA_MUTANT_KLM_NO_READY,4,piece_held,bmc))
$(eval $(call formal_job,klm-mutant-no-end,xu_klm_props,$(KLM_PROPS),HCA_MUTANT_KLM_NO_END,4,no_piece_without_walk,bmc))
$(eval $(call formal_job,rsp-handshake,xu_fifo_props,$(FIFO_PROPS),,8,PASS,bmc))
$(eval $(call formal_job,rsp-mutant-head-newest,xu_fifo_props,$(FIFO_PROPS),HCA_MUTANT_FIFO_HEAD_NEWEST,8,out_held,bmc))

.PHONY: formal
formal: $(FORMAL_JOBS)
