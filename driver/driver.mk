# driver/ — the host reference driver.
# One file a job (driver/hcadrv_int.h lists them).
HCASIM_SRCS += driver/hcadrv_cmd.c driver/hcadrv_dev.c driver/hcadrv_mr.c driver/hcadrv_list.c \
               driver/hcadrv_queue.c driver/hcadrv_post.c driver/hcadrv_poll.c driver/hcadrv_peer.c

GTEST_BINS += $(BIN)/test_dev
$(BIN)/test_dev: $(OBJ)/testbench/test_dev.o $(HCASIM_LIBS) $(FW_IMAGE) $(FW_TEST_ELFS)
	$(call link_bin,$(GTEST_LIBS))

# The device's boundaries above the engine: host interrupt and wait, event
# log, bus windows, engine factory (testbench/test_host.cc).
GTEST_BINS += $(BIN)/test_host
$(BIN)/test_host: $(OBJ)/testbench/test_host.o $(HCASIM_LIBS) $(FW_IMAGE) $(FW_TEST_ELFS)
	$(call link_bin,$(GTEST_LIBS))
