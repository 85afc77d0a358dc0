# testbench/bench — `make bench` figures, each measured in one run.
BENCH_BINS := $(BIN)/bench_xu $(BIN)/bench_dev $(BIN)/bench_verbs $(BIN)/bench_mm $(BIN)/bench_peer $(BIN)/bench_klm
ALL_TARGETS += $(BENCH_BINS)
BENCHES += bench-xu bench-dev bench-verbs bench-tables bench-mm bench-mm-floor bench-peer bench-klm bench-engines \
    bench-sensitivity

$(BIN)/bench_xu: $(OBJ)/testbench/bench_xu.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_dev: $(OBJ)/testbench/bench_dev.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_verbs: $(OBJ)/testbench/bench_verbs.o $(HCASIM_LIBS)
	$(call link_bin,)
# What the trainer of a profile-guided core (rtl/rtl.mk VL_PGO) links and
# loads; order-only: a change of the harness does not rebuild the core (an
# older profile only makes it a little slower, never different).
VL_PGO_NEEDS := $(OBJ)/testbench/bench_verbs.o $(LIBHCASIM) $(VL_MODEL_A) $(VL_RT_A) $(FW_IMAGE)
$(CORE_MODEL_A): | $(VL_PGO_NEEDS) $(OBJ)/sim/verilated/core_rtl.o
# The trainer of the profile-guided model (model/model.mk MODEL_PGO): the
# same traffic on the model, linked with libhcasim's other objects but the RTL's.
ifdef MODEL_TRAINER
$(MODEL_TRAINER): $(OBJ)/testbench/bench_verbs.o \
    $(patsubst %,$(OBJ)/%.o,$(basename $(filter-out model/% sim/verilated/%,$(HCASIM_SRCS))))
endif
$(BIN)/bench_mm: $(OBJ)/testbench/bench_mm.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_peer: $(OBJ)/testbench/bench_peer.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_klm: $(OBJ)/testbench/bench_klm.o $(HCASIM_LIBS)
	$(call link_bin,)

.PHONY: bench-xu bench-dev bench-verbs bench-tables bench-mm bench-mm-floor bench-peer bench-klm bench-engines \
    bench-sensitivity timing-sensitivity timing-sensitivity-selftest
bench-xu: $(BIN)/bench_xu
	@mkdir -p $(BUILD)/bench
	$(BIN)/bench_xu 400000 $(BUILD)/bench/xu_trace.fst
bench-dev: $(BIN)/bench_dev
	$(BIN)/bench_dev
bench-verbs: $(BIN)/bench_verbs
	@mkdir -p $(BUILD)/bench
	$(BIN)/bench_verbs $(BUILD)/bench/verbs_rtl.fst
bench-mm: $(BIN)/bench_mm
	$(BIN)/bench_mm
# Where the engine's cycles per memory-management WR go (docs/device.md "The
# engine floor"): firmware answering DONE at once with 4 and 8 QPs posting,
# then the real firmware with 4 and 8; the model's state logs land in $(BUILD)/bench.
bench-mm-floor: $(BIN)/bench_mm $(FW_DONE_AT_ONCE) $(FW_IMAGE)
	@mkdir -p $(BUILD)/bench
	$(BIN)/bench_mm --floor $(FW_DONE_AT_ONCE) $(BUILD)/bench/mm_floor_q4.log 4
	$(BIN)/bench_mm --floor $(FW_DONE_AT_ONCE) $(BUILD)/bench/mm_floor_q8.log 8
	$(BIN)/bench_mm --floor $(FW_IMAGE) $(BUILD)/bench/mm_floor_fw.log 4
	$(BIN)/bench_mm --floor $(FW_IMAGE) $(BUILD)/bench/mm_floor_fw_q8.log 8
bench-peer: $(BIN)/bench_peer
	$(BIN)/bench_peer
bench-klm: $(BIN)/bench_klm
	$(BIN)/bench_klm
# The model against the RTL over the scenario corpus: speed per group and the
# latency-error distribution (testbench/bench_engines.py).
bench-engines: $(HCASIM_BIN)
	$(PYTHON) testbench/bench_engines.py $(HCASIM_BIN)
# How much of the corpus' outcome hangs on the timing: each file with the host
# read latency, the link latency and the host write cost 1 % longer, what
# moved (testbench/timing_sensitivity.py; docs/model.md "How exact the model
# must be"). Any scenario: make timing-sensitivity SCENARIOS="my.jsonl ...".
bench-sensitivity: $(HCASIM_BIN)
	$(PYTHON) testbench/timing_sensitivity.py $(HCASIM_BIN) --jobs $(NPROC) --quiet vectors/demo.jsonl \
	    $(sort $(wildcard vectors/directed/*.jsonl))
SCENARIOS ?=
timing-sensitivity: $(HCASIM_BIN)
	@[ -n "$(SCENARIOS)" ] || { echo 'timing-sensitivity: name the files: SCENARIOS="a.jsonl b.jsonl"'; exit 2; }
	$(PYTHON) testbench/timing_sensitivity.py $(HCASIM_BIN) --jobs $(NPROC) $(SCENARIOS)
timing-sensitivity-selftest: $(HCASIM_BIN)
	$(Q)HCASIM_BIN=$(HCASIM_BIN) $(PYTHON) testbench/test_timing_sensitivity.py
CHECKS += timing-sensitivity-selftest

# The RTL's speed at the default table size and at 64 QPs / 64 CQs in one
# run (testbench/bench_tables.py): bench_verbs linked once more against a
# second Verilated core, hca_core with -GMAX_QP=64 -GMAX_CQ=64 (vl_rules of
# rtl/rtl.mk; its shim compiled against it, as a mutant's), the same
# firmware and traffic.
QP64_DIR   := $(BUILD)/qp64
QP64_CORE_A := $(QP64_DIR)/verilated/$(CORE_PREFIX)__ALL.a
$(eval $(call vl_rules,$(CORE_TOP),$(QP64_DIR)/verilated,,,-GMAX_QP=64 -GMAX_CQ=64,$(QP64_DIR)/core_rtl.o))
$(QP64_CORE_A): | $(VL_PGO_NEEDS) $(QP64_DIR)/core_rtl.o
$(QP64_DIR)/core_rtl.o: sim/verilated/core_rtl.cpp $(QP64_DIR)/verilated/$(CORE_PREFIX).h
	@mkdir -p $(@D)
	$(call say,CXX,$< (MAX_QP 64))
	$(Q)$(CXX) $(ALL_CXXFLAGS) -I$(QP64_DIR)/verilated $(VL_SHIM_CXXFLAGS) -c $< -o $@
$(QP64_DIR)/bench_verbs: $(OBJ)/testbench/bench_verbs.o $(QP64_DIR)/core_rtl.o $(LIBHCASIM) $(QP64_CORE_A) \
        $(filter-out $(CORE_MODEL_A),$(filter %.a,$(HCASIM_LINK)))
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $(filter %.o,$^) $(LIBHCASIM) \
	    $(patsubst $(CORE_MODEL_A),$(QP64_CORE_A),$(HCASIM_LINK)) $(LDLIBS)
bench-tables: $(BIN)/bench_verbs $(QP64_DIR)/bench_verbs
	$(PYTHON) testbench/bench_tables.py $(BIN)/bench_verbs $(QP64_DIR)/bench_verbs
