# testbench/fwmm.mk — the firmware's memory-management event service.
#
#   test_fwmm   firmware/mm.c, mkey.c, pd.c and dev.c compiled for the host
#               with FW_HOST_REGS: every register access goes to a mock of
#               the device's blocks (fwp, ctx, evt, fdma) that records the
#               exact commands (testbench/test_fwmm.cc). MM_FDMA_CHUNK=1000
#               makes the longest lists take several transfers.

FWMM_HOST_OBJS := $(patsubst %,$(OBJ)/fwhost_regs/firmware/%.o,mm mkey pd dev)

$(OBJ)/fwhost_regs/firmware/%.o: firmware/%.c
	@mkdir -p $(@D)
	$(call say,CC,$< (host))
	$(Q)$(CC) $(ALL_CFLAGS) -DFW_HOST_REGS -DMM_FDMA_CHUNK=1000 -Ifirmware -c $< -o $@

$(OBJ)/testbench/test_fwmm.o: ALL_CXXFLAGS += -Ifirmware -DFW_HOST_REGS

GTEST_BINS += $(BIN)/test_fwmm
$(BIN)/test_fwmm: $(OBJ)/testbench/test_fwmm.o $(FWMM_HOST_OBJS)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $^ $(GTEST_LIBS) -lpthread
