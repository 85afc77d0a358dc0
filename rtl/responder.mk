# rtl/responder.mk — checks of the responder (rtl/hca_responder.sv and its
# placement engine rtl/hca_resp_place.sv): Verilator -Wall lint and Yosys
# synthesis with the responder as the top, and the Icarus directed bench
# rtl/tb/hca_responder_tb.sv under three back-pressure mixes.
#
# (Included before rtl/rtl.mk: only variables of its own at parse time.)

RESP_SRCS   := rtl/hca_responder.sv rtl/hca_resp_place.sv rtl/hca_qfifo.sv
RESP_TB     := rtl/tb/hca_responder_tb.sv
RESP_DIR    := $(BUILD)/rtl-checks/responder
RESP_VVP    := $(RESP_DIR)/hca_responder_tb.vvp
RESP_RUNS   := "+seed=1 +stall=0" "+seed=2 +stall=30" "+seed=3 +stall=70 +err_lat=12"

.PHONY: responder-tb responder-lint responder-synth

responder-lint:
	verilator --lint-only -Wall -Iabi/gen --top-module hca_responder $(RESP_SRCS)
	@echo "responder-lint: clean"

# No latch, and the cell count.
RESP_YS := read_verilog -sv -Iabi/gen $(RESP_SRCS); hierarchy -check -top hca_responder; \
           synth -top hca_responder -flatten; check -assert; \
           select -assert-none t:$$dlatch t:$$adlatch t:$$dlatchsr t:$$_DLATCH_* t:$$_DLATCHSR_*; stat
responder-synth:
	@mkdir -p $(RESP_DIR)
	yosys -q -l $(RESP_DIR)/synth.log -p '$(RESP_YS)'
	@grep -m1 'Number of cells' $(RESP_DIR)/synth.log | sed 's/^ */responder-synth: hca_responder: /'

$(RESP_VVP): $(RESP_TB) $(RESP_SRCS) abi/gen/hca_abi.svh
	@mkdir -p $(@D)
	iverilog -g2012 -Wall -Iabi/gen -s hca_responder_tb -o $@ $(RESP_TB) $(RESP_SRCS)

responder-tb: $(RESP_VVP)
	@for r in $(RESP_RUNS); do \
	    out=$$(vvp -n $(RESP_VVP) $$r 2>&1); rc=$$?; \
	    echo "$$out" | tail -n 2; \
	    [ $$rc = 0 ] && echo "$$out" | grep -q '^hca_responder_tb: PASS' || exit 1; \
	done

CHECKS += responder-lint responder-synth responder-tb
