# testbench/xu.mk — GoogleTest suite of the translation unit (testbench/test_xu.cc), both engines.
#
# test_xu links both engines; until the RTL engine's shim (sim/xu_rtl.cpp,
# defining xu_rtl_ops) is in the tree the binary cannot link, so it is only
# added once that file exists.
ifneq ($(wildcard sim/xu_rtl.cpp),)
GTEST_BINS += $(BIN)/test_xu
endif

$(BIN)/test_xu: $(OBJ)/testbench/test_xu.o $(LIBHCASIM) $(filter %.a,$(HCASIM_LINK))
	$(call link_bin,$(GTEST_LIBS))
