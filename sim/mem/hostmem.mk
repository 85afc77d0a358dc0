# sim/mem/ — sparse host memory and the bus map (address windows).
HCASIM_SRCS += sim/mem/hostmem.c sim/mem/busmap.c
GTEST_BINS += $(BIN)/test_hostmem
$(BIN)/test_hostmem: $(OBJ)/testbench/test_hostmem.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
