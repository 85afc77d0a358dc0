# driver/ — the host reference driver.
HCASIM_SRCS += driver/hcadrv.c

GTEST_BINS += $(BIN)/test_dev
$(BIN)/test_dev: $(OBJ)/testbench/test_dev.o $(HCASIM_LIBS) $(FW_IMAGE) $(FW_TEST_ELFS)
	$(call link_bin,$(GTEST_LIBS))
