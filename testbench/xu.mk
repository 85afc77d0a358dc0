# testbench/xu.mk — GoogleTest suite of the translation unit (testbench/test_xu.cc), both engines.
GTEST_BINS += $(BIN)/test_xu

$(BIN)/test_xu: $(OBJ)/testbench/test_xu.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
