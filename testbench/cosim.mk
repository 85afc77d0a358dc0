# testbench/cosim.mk — the device in another process (docs/cosim.md).
#
#   test_cosim   fork/execs `hcasim serve --socket`: the reference driver
#                through the socket client sees what it sees in process (to the
#                cycle); malformed and truncated messages; disconnects.
#   bench-cosim  the cost of each boundary (in process, TLM, socket) against
#                the in-process C API: per MMIO access, per DMA byte, per
#                session, as ratios from one run.
GTEST_BINS += $(BIN)/test_cosim
$(BIN)/test_cosim: $(OBJ)/testbench/test_cosim.o $(HCASIM_LIBS) $(HCASIM_BIN) $(BUILD)/firmware/hcafw.elf
	$(call link_bin,$(GTEST_LIBS))

BENCH_COSIM_FILES := vectors/directed/write_pages.jsonl vectors/directed/mm_send_inv_success.jsonl
ALL_TARGETS += $(BIN)/bench_cosim
BENCHES += bench-cosim
$(BIN)/bench_cosim: $(OBJ)/testbench/bench_cosim.o $(SYSTEMC_OBJS) $(HCASIM_LIBS)
	$(call link_bin,$(SYSTEMC_LIBS))
.PHONY: bench-cosim
bench-cosim: $(BIN)/bench_cosim $(HCASIM_BIN) $(VP_BIN) $(BUILD)/firmware/hcafw.elf
	$(BIN)/bench_cosim $(BENCH_COSIM_FILES)
