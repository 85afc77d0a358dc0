# testbench/bench — `make bench` figures, each measured in one run.
BENCH_BINS := $(BIN)/bench_xu $(BIN)/bench_dev $(BIN)/bench_verbs $(BIN)/bench_mm $(BIN)/bench_peer $(BIN)/bench_klm
ALL_TARGETS += $(BENCH_BINS)
BENCHES += bench-xu bench-dev bench-verbs bench-mm bench-peer bench-klm bench-engines

$(BIN)/bench_xu: $(OBJ)/testbench/bench_xu.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_dev: $(OBJ)/testbench/bench_dev.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_verbs: $(OBJ)/testbench/bench_verbs.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_mm: $(OBJ)/testbench/bench_mm.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_peer: $(OBJ)/testbench/bench_peer.o $(HCASIM_LIBS)
	$(call link_bin,)
$(BIN)/bench_klm: $(OBJ)/testbench/bench_klm.o $(HCASIM_LIBS)
	$(call link_bin,)

.PHONY: bench-xu bench-dev bench-verbs bench-mm bench-peer bench-klm bench-engines
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
bench-peer: $(BIN)/bench_peer
	$(BIN)/bench_peer
bench-klm: $(BIN)/bench_klm
	$(BIN)/bench_klm
# The model against the RTL over the scenario corpus: speed per group and the
# latency-error distribution (testbench/bench_engines.py).
bench-engines: $(HCASIM_BIN)
	$(PYTHON) testbench/bench_engines.py $(HCASIM_BIN)
