# rtl/ — the translation unit (top xlate_unit) and the device core around it
# (top hca_core) in SystemVerilog: each Verilated into an archive the
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
# Where the Verilated archives live: $(BUILD)/verilated unless told (`make
# sanitize` builds into build/asan but links the plain archives of build/).
VL_BUILD   ?= $(BUILD)
VL_DIR     := $(VL_BUILD)/verilated/$(RTL_TOP)
VL_PREFIX  := V$(RTL_TOP)
VL_MK      := $(VL_DIR)/$(VL_PREFIX).mk
VL_HDR     := $(VL_DIR)/$(VL_PREFIX).h
VL_MODEL_A := $(VL_DIR)/$(VL_PREFIX)__ALL.a
VL_RT_A    := $(VL_DIR)/libverilated.a
# C++ optimization of the Verilated code (the RTL speed benchmark runs it;
# docs/engine.md has what each setting measured). -fno-dfg: Verilator's
# data-flow-graph pass gave the core 3% more instructions per cycle.
VL_OPT_FAST := -O3
VL_OPT     := OPT_FAST=$(VL_OPT_FAST) OPT_SLOW=-O1 OPT_GLOBAL=-O2
# Profile-guided optimization (PGO) of the RTL engine's core (1.2x its
# simulated cycles per CPU second, docs/engine.md "What a simulated cycle
# costs"): its Verilated C++ compiled instrumented, bench_verbs's traffic run
# on it untraced and traced (the trainer, linked in $(VL_BUILD)/pgo so that
# it finds the firmware from its own folder), then compiled again with the
# counts. Only the compiler's choices change, never what the model computes.
# VL_PGO=0: one plain compile.
VL_PGO     ?= 1
VL_PGO_GEN := OPT_FAST='$(VL_OPT_FAST) -fprofile-generate -fprofile-update=single'
VL_PGO_USE := OPT_FAST='$(VL_OPT_FAST) -fprofile-use -fprofile-partial-training -Wno-missing-profile'
vl_flags    = --cc -Wall -O3 --x-assign fast --x-initial fast --trace-fst -fno-dfg \
              -Iabi/gen --top-module $(or $(VL_SIM_TOP_$(1)),$(1)) --prefix V$(1)
# A top Verilated through a simulation-only wrapper (sim/verilated/, never
# in RTL_SRCS: lint, synthesis and Icarus see the RTL alone); the model
# keeps the top's name (prefix). hca_core_sim registers the core's inputs,
# so one evaluation settles a cycle (docs/engine.md "What a simulated
# cycle costs").
VL_SIM_TOP_hca_core  := hca_core_sim
VL_SIM_SRCS_hca_core := sim/verilated/hca_core_sim.sv

# $(call vl_make,ARGS): a sub-make of Verilator's generated makefile. Quiet
# unless V=1 (-s, and without the "Archive ..." notes verilated.mk prints);
# its errors and warnings go to stderr either way.
ifeq ($(V),1)
vl_make = $(MAKE) --no-print-directory $(1)
else
vl_make = set -o pipefail; $(MAKE) --no-print-directory -s $(1) | { grep -v '^Archive ' || true; }
endif

# $(call vl_rules,TOP,DIR,DEFINES,RUNTIME[,FLAGS[,SHIM]]): Verilate TOP into DIR and archive
# it as DIR/VTOP__ALL.a, with -D of each of DEFINES (none for the real tops;
# the mutants of vectors/mutation.mk set one) and the Verilator FLAGS (the
# coverage build of sim/runner/coverage.mk: --coverage-…); RUNTIME non-empty: also the
# Verilator runtime (VM_GLOBAL_* objects of the generated makefile, which
# Verilator itself links only into executables) as DIR/libverilated.a, named
# by a small wrapper makefile. SHIM (hca_core only: its core_rtl.o) and
# VL_PGO=1: the archive is built profile-guided (VL_PGO_GEN, the trainer
# linked with SHIM and run, VL_PGO_USE; what the trainer needs besides is
# order-only, testbench/bench.mk); its objects are removed first, so the
# instrumented compile is a real one even when only the archive was deleted
# (else the old objects were archived, the training wrote no counts and the
# archive came out unprofiled). One rule for every Verilated build.
# The flags live in DIR/flags.txt, rewritten only when they change (both
# sides stripped: unstripped, the coverage build's compared unequal in every
# parse and was rebuilt by every make), so
# editing this makefile rebuilds a model only if it changed how; written
# aside and renamed, so a make parsing beside it (make test's checks run in
# parallel) never reads half a file, takes it for changed flags and
# rebuilds a mutant another check is using.
# --no-skip-identical: when make asks, Verilator rewrites its output (so the
# timestamps move and the archives follow) even if it thinks nothing changed.
define vl_rules
ifneq ($$(strip $$(file < $(2)/flags.txt)),$$(strip $(call vl_flags,$(1)) $(addprefix -D,$(3))$(if $(5), $(5)) $(VL_OPT)$(call vl_pgo,$(6), pgo)))
$$(shell mkdir -p $(2))
$$(shell printf '%s\n' '$(call vl_flags,$(1)) $(addprefix -D,$(3))$(if $(5), $(5)) $(VL_OPT)$(call vl_pgo,$(6), pgo)' \
    >$(2)/flags.txt.$$$$$$$$ && mv -f $(2)/flags.txt.$$$$$$$$ $(2)/flags.txt)
endif
$(2)/V$(1).mk $(2)/V$(1).h &: $$(RTL_SRCS) $(VL_SIM_SRCS_$(1)) $$(RTL_INC) $(2)/flags.txt
	@mkdir -p $(2)
	$$(call say,VERILATE,$(1)$(if $(3), ($(3))))
	$$(Q)$$(VERILATOR) $(call vl_flags,$(1)) $(addprefix -D,$(3)) $(5) --no-skip-identical --Mdir $(2) \
	    $$(RTL_SRCS) $(VL_SIM_SRCS_$(1))
$(2)/V$(1)__ALL.a $(if $(4),$(2)/libverilated.a) &: $(2)/V$(1).mk
	@printf 'include %s.mk\nlibverilated.a: $$$$(VK_GLOBAL_OBJS)\n\trm -f $$$$@ && $$$$(AR) rcs $$$$@ $$$$^\n' \
	    V$(1) > $(2)/hcasim.mk
	$$(call say,VLMAKE,$(2)/V$(1)__ALL.a$(if $(4), $(2)/libverilated.a)$(call vl_pgo,$(6), (profile: generate)))
	+$$(Q)$(call vl_pgo,$(6),rm -f $(2)/*.o && )$$(call vl_make,-C $(2) -f hcasim.mk $$(VL_OPT) $(call vl_pgo,$(6),$$(VL_PGO_GEN)) V$(1)__ALL.a $(if $(4),libverilated.a))
ifneq ($(call vl_pgo,$(6),y),)
	$$(call say,TRAIN,$(2)/V$(1)__ALL.a (bench_verbs --rtl-cps))
	$$(Q)mkdir -p $$(VL_BUILD)/pgo && rm -f $(2)/*.gcda
	$$(Q)$$(CXX) -fprofile-generate -o $(call vl_trainer,$(2)) $$(OBJ)/testbench/bench_verbs.o $(6) \
	    $$(LIBHCASIM) $(2)/V$(1)__ALL.a $$(VL_MODEL_A) $$(VL_RT_A) $$(LDLIBS)
	$$(Q)$(call vl_trainer,$(2)) --rtl-cps >/dev/null && $(call vl_trainer,$(2)) --rtl-cps $(call vl_trainer,$(2)).fst >/dev/null
	$$(Q)rm -f $(call vl_trainer,$(2)).fst $(2)/*.o $(2)/V$(1)__ALL.a
	$$(call say,VLMAKE,$(2)/V$(1)__ALL.a (profile: use))
	+$$(Q)$$(call vl_make,-C $(2) -f hcasim.mk $$(VL_OPT) $$(VL_PGO_USE) V$(1)__ALL.a)
endif
endef
# $(call vl_pgo,SHIM,TEXT): TEXT if the build with this SHIM is profile-guided.
vl_pgo = $(if $(and $(1),$(filter 1,$(VL_PGO))),$(2))
# $(call vl_trainer,DIR): the trainer of DIR's archive.
vl_trainer = $$(VL_BUILD)/pgo/train-$(subst /,-,$(1))
$(eval $(call vl_rules,$(RTL_TOP),$(VL_DIR),,runtime))

HCASIM_SRCS += sim/verilated/xu_rtl.cpp
HCASIM_LINK += $(VL_MODEL_A) $(VL_RT_A)
ALL_TARGETS += $(VL_MODEL_A) $(VL_RT_A) $(OBJ)/sim/verilated/xu_rtl.o

# ---------------------------------------------------------------- Verilated core
# The second top, hca_core, in a folder of its own. Its classes carry their
# own prefix (Vhca_core), so both models link into one binary with one copy
# of the Verilator runtime (the one built above, same flags).
CORE_TOP      := hca_core
CORE_DIR      := $(VL_BUILD)/verilated/$(CORE_TOP)
CORE_PREFIX   := V$(CORE_TOP)
CORE_MK       := $(CORE_DIR)/$(CORE_PREFIX).mk
CORE_HDR      := $(CORE_DIR)/$(CORE_PREFIX).h
CORE_MODEL_A  := $(CORE_DIR)/$(CORE_PREFIX)__ALL.a
$(eval $(call vl_rules,$(CORE_TOP),$(CORE_DIR),,,,$(OBJ)/sim/verilated/core_rtl.o))

HCASIM_SRCS += sim/verilated/core_rtl.cpp
# Before the runtime archive: the model's objects refer to it.
HCASIM_LINK := $(CORE_MODEL_A) $(HCASIM_LINK)
ALL_TARGETS += $(CORE_MODEL_A) $(OBJ)/sim/verilated/core_rtl.o

# The shims see the Verilated header and the runtime's (as system headers:
# they are not ours to keep -Wextra clean), with the same configuration the
# model was compiled with (VL_SHIM_CXXFLAGS: a mutant core's shim too).
VL_SHIM_CXXFLAGS := -isystem $(VERILATOR_ROOT)/include -isystem $(VERILATOR_ROOT)/include/vltstd \
    -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 -DVM_COVERAGE=0 -DVM_SC=0
$(OBJ)/sim/verilated/core_rtl.o: ALL_CXXFLAGS += -I$(CORE_DIR) $(VL_SHIM_CXXFLAGS)
$(OBJ)/sim/verilated/core_rtl.o: $(CORE_HDR)
$(OBJ)/sim/verilated/xu_rtl.o: ALL_CXXFLAGS += -I$(VL_DIR) $(VL_SHIM_CXXFLAGS)
$(OBJ)/sim/verilated/xu_rtl.o: $(VL_HDR)

# ---------------------------------------------------------------- checks
RTL_CHK := $(BUILD)/rtl-checks

.PHONY: lint-rtl iverilog-rtl synth-rtl synth-core-rtl icarus-rtl param-check-rtl core-smoke-rtl \
        icarus-core-units-rtl

# Verilator -Wall, no waivers, over the whole hierarchy from each top (the
# core with its default sizes and with small ones).
lint-rtl:
	$(VERILATOR) --lint-only -Wall -Iabi/gen --top-module $(RTL_TOP) $(RTL_SRCS)
	$(VERILATOR) --lint-only -Wall -Iabi/gen --top-module $(CORE_TOP) $(RTL_SRCS)
	$(VERILATOR) --lint-only -Wall -Iabi/gen --top-module $(CORE_TOP) -GMAX_QP=4 -GMAX_CQ=4 \
	    -GMPT_ENTRIES=16 -GMTT_ENTRIES=64 $(RTL_SRCS)
	@for d in $(RTL_MUTANT_DEFINES); do echo "lint-rtl: mutant $$d"; \
	    $(VERILATOR) --lint-only -Wall -Iabi/gen --top-module $(CORE_TOP) -D$$d $(RTL_SRCS) || exit 1; done
	@echo "lint-rtl: $(words $(RTL_SRCS)) files clean (and $(words $(RTL_MUTANT_DEFINES)) mutants: vectors/mutation.mk)"

# Icarus (-g2012) compiles every file, warnings are failures.
iverilog-rtl:
	@mkdir -p $(RTL_CHK)
	@set -o pipefail; $(IVERILOG) -g2012 -Wall -Iabi/gen -s $(RTL_TOP) -o $(RTL_CHK)/$(RTL_TOP).vvp \
	    $(RTL_SRCS) 2>&1 | tee $(RTL_CHK)/iverilog.log
	@set -o pipefail; $(IVERILOG) -g2012 -Wall -Iabi/gen -s $(CORE_TOP) -o $(RTL_CHK)/$(CORE_TOP).vvp \
	    $(RTL_SRCS) 2>&1 | tee -a $(RTL_CHK)/iverilog.log
	@! grep -q . $(RTL_CHK)/iverilog.log || { echo "iverilog-rtl: warnings above"; exit 1; }
	@echo "iverilog-rtl: $(words $(RTL_SRCS)) files compile (tops $(RTL_TOP), $(CORE_TOP))"

# Yosys with small tables (no RAM library here: tables become flops); fails
# on any latch; prints the cell count.
synth-rtl:
	@mkdir -p $(RTL_CHK)
	$(YOSYS) -q -l $(RTL_CHK)/synth.log -s rtl/synth.ys
	@grep -A1 -m1 'Number of cells' $(RTL_CHK)/synth.log | head -1 | sed 's/^ */synth-rtl: xlate_unit (MPT 16, MTT 64): /'

# The whole core flattened with small tables, then its blocks one at a time,
# in one Yosys run (rtl/synth_core.ys): no latch anywhere; the cell count of
# the core (and its flops) and of each block. About 150 s of one core (the
# mem2reg warnings of the per-QP arrays go to the log only).
synth-core-rtl:
	@mkdir -p $(RTL_CHK)
	@t0=$$(date +%s); $(YOSYS) -q -w 'Replacing memory' -l $(RTL_CHK)/synth_core.log \
	    -s rtl/synth_core.ys || exit 1; \
	    f=$(RTL_CHK)/synth_core.txt; \
	    echo "synth-core-rtl: hca_core (MPT 16, MTT 64, MAX_QP 4, MAX_CQ 4), $$(( $$(date +%s) - t0 )) s:" \
	        "$$(sed -n '/design hierarchy/,$$p' $$f | grep -m1 'Number of cells' | sed 's/.*: *//') cells," \
	        "$$(sed -n '/design hierarchy/,$$p' $$f | awk '$$1 ~ /^[$$]_(S|AL)?DFF/ {n += $$2} END {print n + 0}') flops"; \
	    awk '/^=== / {m = ""; n = split($$2, p, "\\"); \
	                  for (i = 1; i <= n; i++) if (p[i] != "" && p[i] !~ /^[$$]/ && p[i] !~ /=/) {m = p[i]; break}} \
	         /Number of cells/ && m != "" && m != "design" {c[m] += $$NF; m = ""} \
	         END {for (k in c) printf "synth-core-rtl:   %-16s %8d cells\n", k, c[k]}' $$f | sort

lint: lint-rtl
synth: synth-rtl synth-core-rtl responder-synth

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

# The Verilated core end to end on the C harness (DMA block, loopback link),
# contexts and MRs written through the firmware port: rtl/tb/core_smoke.c.
CORE_SMOKE := $(RTL_CHK)/core_smoke
$(CORE_SMOKE): $(OBJ)/rtl/tb/core_smoke.o $(HCASIM_LIBS)
	$(call link_bin,)

core-smoke-rtl: $(CORE_SMOKE)
	@out=$$($(CORE_SMOKE) 2>&1); rc=$$?; echo "$$out" | tail -n 4; \
	    [ $$rc = 0 ] && echo "$$out" | grep -q '^core_smoke: PASS'

# Icarus unit bench of the core's arbiter and packet-buffer ids under random
# traffic and three back-pressure mixes.
UNITS_TB   := rtl/tb/hca_arb_pbuf_tb.sv
UNITS_VVP  := $(RTL_CHK)/hca_arb_pbuf_tb.vvp
UNITS_RUNS := "+seed=1 +stall=0" "+seed=2 +stall=50" "+seed=3 +stall=85"

$(UNITS_VVP): $(UNITS_TB) rtl/hca_arb.sv rtl/hca_pbuf.sv $(RTL_INC)
	@mkdir -p $(@D)
	$(IVERILOG) -g2012 -Wall -Iabi/gen -s hca_arb_pbuf_tb -o $@ $(UNITS_TB) rtl/hca_arb.sv rtl/hca_pbuf.sv

icarus-core-units-rtl: $(UNITS_VVP)
	@for r in $(UNITS_RUNS); do \
	    out=$$($(VVP) -n $(UNITS_VVP) $$r 2>&1); rc=$$?; echo "$$out" | tail -n 2; \
	    [ $$rc = 0 ] && echo "$$out" | grep -q '^hca_arb_pbuf_tb: PASS' || exit 1; \
	done

# Icarus bench of the scheduler's FIFO (hca_qfifo) against a reference queue,
# its never-reset memories started with random content, three pop rates.
QFIFO_TB   := rtl/tb/hca_qfifo_tb.sv
QFIFO_VVP  := $(RTL_CHK)/hca_qfifo_tb.vvp
QFIFO_RUNS := "+seed=1 +pop=40" "+seed=2 +pop=10" "+seed=3 +pop=80"

$(QFIFO_VVP): $(QFIFO_TB) rtl/hca_qfifo.sv
	@mkdir -p $(@D)
	$(IVERILOG) -g2012 -Wall -Iabi/gen -s hca_qfifo_tb -o $@ $(QFIFO_TB) rtl/hca_qfifo.sv

.PHONY: icarus-qfifo-rtl
icarus-qfifo-rtl: $(QFIFO_VVP)
	@for r in $(QFIFO_RUNS); do \
	    out=$$($(VVP) -n $(QFIFO_VVP) $$r 2>&1); rc=$$?; echo "$$out" | tail -n 2; \
	    [ $$rc = 0 ] && echo "$$out" | grep -q '^hca_qfifo_tb: PASS' || exit 1; \
	done

CHECKS += lint-rtl iverilog-rtl synth-rtl synth-core-rtl icarus-rtl param-check-rtl \
          icarus-core-units-rtl icarus-qfifo-rtl core-smoke-rtl
