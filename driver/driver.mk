# driver/ — the host reference driver.
HCASIM_SRCS += driver/hcadrv.c

GTEST_BINS += $(BIN)/test_dev
$(BIN)/test_dev: $(OBJ)/testbench/test_dev.o $(LIBHCASIM) $(filter %.a,$(HCASIM_LINK)) $(FW_IMAGE) $(FW_TEST_ELFS)
	$(call link_bin,$(GTEST_LIBS))
