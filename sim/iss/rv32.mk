# sim/iss/rv32.mk — the firmware core's RV32IM instruction-set simulator, its tests and its bench.
HCASIM_SRCS += sim/iss/rv32.c

GTEST_BINS += $(BIN)/test_rv32
$(BIN)/test_rv32: $(OBJ)/testbench/test_rv32.o $(HCASIM_LIBS) ; $(call link_bin,$(GTEST_LIBS))

# bench-rv32: MIPS of tight loops, free-running and in small cycle quanta.
ALL_TARGETS += $(BIN)/bench_rv32
BENCHES += bench-rv32
$(BIN)/bench_rv32: $(OBJ)/testbench/rv32_bench.o $(HCASIM_LIBS) ; $(call link_bin,)
.PHONY: bench-rv32
bench-rv32: $(BIN)/bench_rv32
	$(BIN)/bench_rv32
