# sim/systemc — the HCA as a SystemC TLM-2.0 module (hca_sc.h). Kept out of
# libhcasim: only what links it needs SystemC (-lsystemc, whose library holds
# main() and calls sc_main).
SYSTEMC_OBJS := $(OBJ)/sim/systemc/hca_sc.o
SYSTEMC_LIBS := -lsystemc

# test_systemc: a tiny TLM platform on both engines, one simulation
# (testbench/test_systemc.cc). Its firmware is named by path: this fragment is
# read before firmware/ defines FW_IMAGE.
GTEST_BINS += $(BIN)/test_systemc
$(BIN)/test_systemc: $(OBJ)/testbench/test_systemc.o $(SYSTEMC_OBJS) $(HCASIM_LIBS) $(BUILD)/firmware/hcafw.elf
	$(call link_bin,$(SYSTEMC_LIBS) -lgtest)
