# rtl/ — the translation unit in SystemVerilog: Verilated into archives the
# simulator links, and checked by a second simulator (Icarus), a linter
# (Verilator -Wall) and a synthesizer (Yosys).
#
# The Verilated model is rebuilt only when rtl/*.sv, the ABI include or the
# flags below change; its objects live in their own folder (build/verilated/).

RTL_SRCS   := $(sort $(wildcard rtl/*.sv))
RTL_TOP    := xlate_unit
RTL_INC    := abi/gen/hca_abi.svh
VERILATOR  ?= verilator
IVERILOG   ?= iverilog
VVP        ?= vvp
YOSYS      ?= yosys
VERILATOR_ROOT ?= $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null || echo /usr/share/verilator)

# ---------------------------------------------------------------- Verilated model
VL_DIR     := $(BUILD)/verilated/$(RTL_TOP)
VL_PREFIX  := V$(RTL_TOP)
VL_MK      := $(VL_DIR)/$(VL_PREFIX).mk
VL_HDR     := $(VL_DIR)/$(VL_PREFIX).h
VL_MODEL_A := $(VL_DIR)/$(VL_PREFIX)__ALL.a
VL_RT_A    := $(VL_DIR)/libverilated.a
VL_FLAGS   := --cc -Wall -O3 --x-assign fast --x-initial fast --trace-fst \
              -Iabi/gen --top-module $(RTL_TOP) --prefix $(VL_PREFIX)
# C++ optimization of the Verilated code (the RTL speed benchmark runs it).
VL_OPT     := OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2

# The Verilator and C++ flags live in a file rewritten only when they
# change, so editing this makefile rebuilds the model only if it changed how.
VL_FLAGS_TXT := $(VL_DIR)/flags.txt
ifneq ($(file < $(VL_FLAGS_TXT)),$(VL_FLAGS) $(VL_OPT))
$(shell mkdir -p $(VL_DIR))
$(file > $(VL_FLAGS_TXT),$(VL_FLAGS) $(VL_OPT))
endif

# --no-skip-identical: when make asks, Verilator rewrites its output (so the
# timestamps move and the archives follow) even if it thinks nothing changed.
$(VL_MK) $(VL_HDR) &: $(RTL_SRCS) $(RTL_INC) $(VL_FLAGS_TXT)
	@mkdir -p $(VL_DIR)
	$(VERILATOR) $(VL_FLAGS) --no-skip-identical --Mdir $(VL_DIR) $(RTL_SRCS)

# The model archive, and the Verilator runtime (VM_GLOBAL_* objects of the
# generated makefile, which Verilator itself links only into executables) as a
# library of its own: a small wrapper makefile names it.
$(VL_MODEL_A) $(VL_RT_A) &: $(VL_MK)
	@printf 'include %s.mk\nlibverilated.a: $$(VK_GLOBAL_OBJS)\n\trm -f $$@ && $$(AR) rcs $$@ $$^\n' \
	    $(VL_PREFIX) > $(VL_DIR)/hcasim.mk
	+$(MAKE) --no-print-directory -C $(VL_DIR) -f hcasim.mk $(VL_OPT) \
	    $(notdir $(VL_MODEL_A)) $(notdir $(VL_RT_A))

HCASIM_SRCS += sim/xu_rtl.cpp
HCASIM_LINK += $(VL_MODEL_A) $(VL_RT_A)
ALL_TARGETS += $(VL_MODEL_A) $(VL_RT_A) $(OBJ)/sim/xu_rtl.o

# The shim sees the Verilated header and the runtime's (as system headers:
# they are not ours to keep -Wextra clean), with the same configuration the
# model was compiled with.
$(OBJ)/sim/xu_rtl.o: ALL_CXXFLAGS += -I$(VL_DIR) -isystem $(VERILATOR_ROOT)/include \
    -isystem $(VERILATOR_ROOT)/include/vltstd -DVM_TRACE=1 -DVM_TRACE_FST=1 \
    -DVM_TRACE_VCD=0 -DVM_COVERAGE=0 -DVM_SC=0
$(OBJ)/sim/xu_rtl.o: $(VL_HDR)

# ---------------------------------------------------------------- checks
RTL_CHK := $(BUILD)/rtl-checks

.PHONY: lint-rtl iverilog-rtl synth-rtl icarus-rtl param-check-rtl

# Verilator -Wall, no waivers, over the whole hierarchy from the top.
lint-rtl:
	$(VERILATOR) --lint-only -Wall -Iabi/gen --top-module $(RTL_TOP) $(RTL_SRCS)
	@echo "lint-rtl: $(words $(RTL_SRCS)) files clean"

# Icarus (-g2012) compiles every file, warnings are failures.
iverilog-rtl:
	@mkdir -p $(RTL_CHK)
	@set -o pipefail; $(IVERILOG) -g2012 -Wall -Iabi/gen -s $(RTL_TOP) -o $(RTL_CHK)/$(RTL_TOP).vvp \
	    $(RTL_SRCS) 2>&1 | tee $(RTL_CHK)/iverilog.log
	@! grep -q . $(RTL_CHK)/iverilog.log || { echo "iverilog-rtl: warnings above"; exit 1; }
	@echo "iverilog-rtl: $(words $(RTL_SRCS)) files compile"

# Yosys with small tables (no RAM library here: tables become flops); fails
# on any latch; prints the cell count.
synth-rtl:
	@mkdir -p $(RTL_CHK)
	$(YOSYS) -q -l $(RTL_CHK)/synth.log -s rtl/synth.ys
	@grep -A1 -m1 'Number of cells' $(RTL_CHK)/synth.log | head -1 | sed 's/^ */synth-rtl: xlate_unit (MPT 16, MTT 64): /'

lint: lint-rtl
synth: synth-rtl

# A bad table size must stop elaboration, in Verilator and in Icarus.
RTL_BAD_PARAMS := MPT_ENTRIES=3 MPT_ENTRIES=1 MTT_ENTRIES=33554432 MTT_ENTRIES=48
param-check-rtl:
	@mkdir -p $(RTL_CHK)
	@for p in $(RTL_BAD_PARAMS); do \
	    if $(VERILATOR) --lint-only -Wall -Iabi/gen --top-module $(RTL_TOP) -G$$p $(RTL_SRCS) \
	        > $(RTL_CHK)/param.log 2>&1; then \
	        echo "param-check-rtl: verilator accepted $$p"; exit 1; fi; \
	    grep -q "xlate_unit: $${p%%=*}" $(RTL_CHK)/param.log || { \
	        cat $(RTL_CHK)/param.log; echo "param-check-rtl: verilator failed $$p without the check"; exit 1; }; \
	    $(IVERILOG) -g2012 -Iabi/gen -s $(RTL_TOP) -P$(RTL_TOP).$$p -o $(RTL_CHK)/param.vvp \
	        $(RTL_SRCS) > $(RTL_CHK)/param.log 2>&1 && \
	    $(VVP) -n $(RTL_CHK)/param.vvp >> $(RTL_CHK)/param.log 2>&1; \
	    grep -q "xlate_unit: $${p%%=*}=" $(RTL_CHK)/param.log || { \
	        cat $(RTL_CHK)/param.log; echo "param-check-rtl: icarus did not refuse $$p"; exit 1; }; \
	    echo "param-check-rtl: $$p refused by verilator and icarus"; \
	done

# The Icarus bench replays golden vectors through the ports with random
# rsp_ready back-pressure: every vectors/xlate/*.vec plus the directed smoke
# vector kept with the bench.
RTL_TB      := rtl/tb/xlate_unit_tb.sv
RTL_TB_VVP  := $(RTL_CHK)/xlate_unit_tb.vvp
RTL_VECS     = $(sort $(wildcard vectors/xlate/*.vec)) $(sort $(wildcard rtl/tb/*.vec))

$(RTL_TB_VVP): $(RTL_TB) $(RTL_SRCS) $(RTL_INC)
	@mkdir -p $(@D)
	$(IVERILOG) -g2012 -Iabi/gen -s xlate_unit_tb -o $@ $(RTL_TB) $(RTL_SRCS)

# Two back-pressure mixes per vector: moderate stalls; heavy stalls plus idle
# request cycles.
RTL_TB_RUNS := "+seed=1 +stall=30 +gap=0" "+seed=2 +stall=75 +gap=25"
icarus-rtl: $(RTL_TB_VVP)
	@for v in $(RTL_VECS); do for r in $(RTL_TB_RUNS); do \
	    out=$$($(VVP) -n $(RTL_TB_VVP) +vec=$$v $$r 2>&1); rc=$$?; \
	    echo "$$out" | tail -n 3; \
	    [ $$rc = 0 ] && echo "$$out" | grep -q '^xlate_unit_tb: PASS' || exit 1; \
	done; done

CHECKS += lint-rtl iverilog-rtl synth-rtl icarus-rtl param-check-rtl
