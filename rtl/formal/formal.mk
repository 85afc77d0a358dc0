# rtl/formal/formal.mk — formal property checks with Yosys and yosys-smtbmc
# (z3), `make formal`:
#
#   formal-keycheck      xu_key_check_props: the key-check grant property
#                        (SEMANTICS.md rules 1-6 written again in the spec's
#                        own terms) for every input: the checker is
#                        combinational, so one step is a proof.
#   formal-*-mutant-*    the same properties on a mutant RTL (HCA_MUTANT_*
#                        defined) that breaks one of them: must FAIL, on that
#                        property, with a counterexample trace (trace.vcd).
#
# Each job leaves build/formal/JOB/{model.smt2,log,trace.vcd}.
FORMAL_DIR    := $(BUILD)/formal
FORMAL_DEPTH  ?= 30
FORMAL_SOLVER ?= z3
XU_RTL := rtl/xu_fifo.sv rtl/xu_table.sv rtl/xu_key_check.sv rtl/xu_walker.sv rtl/xu_klm.sv rtl/xu_fw_port.sv \
          rtl/xlate_unit.sv

# formal_job NAME TOP SOURCES DEFINES STEPS EXPECT(PASS | the property that must fail)
define formal_job
$(FORMAL_DIR)/$(1)/model.smt2: $(3) $(RTL_INC) rtl/formal/formal.mk
	@mkdir -p $$(@D)
	$$(call say,YOSYS,$$@)
	$$(Q)yosys -q -l $$(@D)/yosys.log -p 'read_verilog -formal -sv $(addprefix -D,$(4)) -Iabi/gen $(3); \
	    prep -top $(2); flatten; write_smt2 -wires $$@'

.PHONY: formal-$(1)
formal-$(1): $(FORMAL_DIR)/$(1)/model.smt2
	@s=$$$$(date +%s); yosys-smtbmc -s $(FORMAL_SOLVER) -t $(5) --dump-vcd $(FORMAL_DIR)/$(1)/trace.vcd $$< \
	    2>&1 | grep -ao '##.*' | grep -v 'Checking assumptions' >$(FORMAL_DIR)/$(1)/log; t=$$$$(( $$$$(date +%s) - s )); \
	 st=$$$$(sed -n 's/.*Status: //p' $(FORMAL_DIR)/$(1)/log); \
	 failed=$$$$(sed -n 's/.*Assert failed in [^:]*: *//p' $(FORMAL_DIR)/$(1)/log | head -1); \
	 if [ "$(6)" = PASS ]; then \
	    if [ "$$$$st" = PASSED ]; then echo "formal $(1): PASSED, $(5) step(s), $$$${t} s"; \
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

.PHONY: formal
formal: $(FORMAL_JOBS)
