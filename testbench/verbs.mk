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
	$(call say,CC,$< (host))
	$(Q)$(CC) $(ALL_CFLAGS) -Ifirmware -c $< -o $@

$(OBJ)/testbench/test_fwqp.o: ALL_CXXFLAGS += -Ifirmware

GTEST_BINS += $(BIN)/test_fwqp
$(BIN)/test_fwqp: $(OBJ)/testbench/test_fwqp.o $(FWQP_HOST_OBJS)
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $^ $(GTEST_LIBS) -lpthread

GTEST_BINS += $(BIN)/test_verbs
$(BIN)/test_verbs: $(OBJ)/testbench/test_verbs.o $(HCASIM_LIBS) $(FW_IMAGE)
	$(call link_bin,$(GTEST_LIBS))

# QP, CQ and PD lifecycle, with the QP firmware mutant proven caught (testbench/test_lifecycle.cc).
GTEST_BINS += $(BIN)/test_lifecycle
$(OBJ)/testbench/test_lifecycle.o: ALL_CXXFLAGS += -DFW_MUTANT_QP_NO_DRAIN='"$(FW_MUTANT_QP_NO_DRAIN)"'
$(BIN)/test_lifecycle: $(OBJ)/testbench/test_lifecycle.o $(HCASIM_LIBS) $(FW_IMAGE) $(FW_MUTANT_QP_NO_DRAIN)
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

# The KLM scenarios proven able to fail: the model's KLM walker with the entry
# check skipped (model/xu_model.c with HCA_MUTANT_KLM_NO_ENTRY_CHECK), linked
# ahead of libhcasim's real one (testbench/test_klm_mutant.cc).
GTEST_BINS += $(BIN)/test_klm_mutant
$(OBJ)/mutants/xu_model_klm_no_entry_check.o: model/xu_model.c
	@mkdir -p $(@D)
	$(call say,CC,$< (mutant klm_no_entry_check))
	$(Q)$(CC) $(ALL_CFLAGS) -DHCA_MUTANT_KLM_NO_ENTRY_CHECK -c $< -o $@
$(OBJ)/testbench/test_klm_mutant.o: ALL_CXXFLAGS += -DSCN_VECTORS='"$(abspath vectors)"'
$(BIN)/test_klm_mutant: $(OBJ)/mutants/xu_model_klm_no_entry_check.o $(OBJ)/testbench/test_klm_mutant.o \
                        $(HCASIM_LIBS) $(FW_IMAGE)
	$(call link_bin,$(GTEST_LIBS))
