# sim/mem/ — sparse host memory, the bus map (address windows), peer memory.
HCASIM_SRCS += sim/mem/hostmem.c sim/mem/busmap.c sim/mem/peermem.c
GTEST_BINS += $(BIN)/test_hostmem
$(BIN)/test_hostmem: $(OBJ)/testbench/test_hostmem.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
