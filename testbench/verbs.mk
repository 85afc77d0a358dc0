# testbench/verbs.mk — the queue commands and verbs.
#
#   test_fwqp   firmware/qp.c and pd.c compiled for the host against a mock
#               ctx port, firmware DMA and console (testbench/test_fwqp.cc)
#   test_memmgt the memory-management WRs end to end (testbench/test_memmgt.cc)
#   test_verbs  the verbs end to end (testbench/test_verbs.cc): driver,
#               firmware queue commands and the WQE engine (RTL); the model
#               engine's refusal.

FWQP_HOST_OBJS := $(OBJ)/fwhost/firmware/qp.o $(OBJ)/fwhost/firmware/pd.o

$(OBJ)/fwhost/firmware/%.o: firmware/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ifirmware -c $< -o $@

$(OBJ)/testbench/test_fwqp.o: ALL_CXXFLAGS += -Ifirmware

GTEST_BINS += $(BIN)/test_fwqp
$(BIN)/test_fwqp: $(OBJ)/testbench/test_fwqp.o $(FWQP_HOST_OBJS)
	@mkdir -p $(@D)
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(GTEST_LIBS) -lpthread

GTEST_BINS += $(BIN)/test_verbs
$(BIN)/test_verbs: $(OBJ)/testbench/test_verbs.o $(HCASIM_LIBS) $(FW_IMAGE)
	$(call link_bin,$(GTEST_LIBS))

GTEST_BINS += $(BIN)/test_memmgt
$(OBJ)/testbench/test_memmgt.o: ALL_CXXFLAGS += -DFW_MUTANT_NO_DRAIN='"$(FW_MUTANT_NO_DRAIN)"'
$(BIN)/test_memmgt: $(OBJ)/testbench/test_memmgt.o $(HCASIM_LIBS) $(FW_IMAGE) $(FW_MUTANT_NO_DRAIN)
	$(call link_bin,$(GTEST_LIBS))

# Peer memory: the driver's peer clients, the invalidate callback against
# every race it has, and the peer firmware mutant proven caught (testbench/test_peer.cc).
GTEST_BINS += $(BIN)/test_peer
$(OBJ)/testbench/test_peer.o: ALL_CXXFLAGS += -DFW_MUTANT_PEER_NO_DRAIN='"$(FW_MUTANT_PEER_NO_DRAIN)"'
$(BIN)/test_peer: $(OBJ)/testbench/test_peer.o $(HCASIM_LIBS) $(FW_IMAGE) $(FW_MUTANT_PEER_NO_DRAIN)
	$(call link_bin,$(GTEST_LIBS))
