# testbench/core.mk — the protection checker alone (test_protcheck) and the
# engine core's harness (test_core).
GTEST_BINS += $(BIN)/test_protcheck

$(BIN)/test_protcheck: $(OBJ)/testbench/test_protcheck.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
GTEST_BINS += $(BIN)/test_core

$(BIN)/test_core: $(OBJ)/testbench/test_core.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
