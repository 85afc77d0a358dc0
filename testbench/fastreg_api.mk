# testbench/fastreg_api.mk — the driver's fast-registration consumer API
# (testbench/test_fastreg_api.cc): page lists and their ownership,
# update_fast_reg_key, get_dma_mr (reserved L_Key) on both engines, and the
# FAST_REG_MR WQE as posted.
GTEST_BINS += $(BIN)/test_fastreg_api
$(BIN)/test_fastreg_api: $(OBJ)/testbench/test_fastreg_api.o $(HCASIM_LIBS) $(FW_IMAGE)
	$(call link_bin,$(GTEST_LIBS))
