# testbench/xu.mk — GoogleTest suite of the translation unit (testbench/test_xu.cc), both engines.
GTEST_BINS += $(BIN)/test_xu

$(BIN)/test_xu: $(OBJ)/testbench/test_xu.o $(LIBHCASIM) $(filter %.a,$(HCASIM_LINK))
	$(call link_bin,$(GTEST_LIBS))
