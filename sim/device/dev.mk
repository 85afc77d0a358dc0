# sim/device/ — the whole device (device engine + firmware core + mailbox +
# firmware DMA) and the hcasim command line.
HCASIM_SRCS += sim/device/hca_dev.c sim/device/hca_fseq.c

# The device boots the image beside its executable (hca_dev_default_firmware:
# <exe dir>/../firmware/, an install's <exe dir>/../share/hcasim/); this
# tree's image only when neither exists.
$(OBJ)/sim/device/hca_dev.o: ALL_CFLAGS += -DHCASIM_FIRMWARE_DEFAULT='"$(abspath $(BUILD))/firmware/hcafw.elf"'

# hcasim.c holds main(): linked into the command, never into libhcasim.
HCASIM_BIN := $(BIN)/hcasim
ALL_TARGETS += $(HCASIM_BIN)
$(HCASIM_BIN): $(OBJ)/sim/runner/hcasim.o $(HCASIM_LIBS)
	$(call link_bin,$(EXE_STATIC))

# make run: the demo scenario, end to end on the RTL engine with firmware.
DEMO_SCENARIO := vectors/demo.jsonl
RUN_CMD := $(HCASIM_BIN) run $(DEMO_SCENARIO)

# The demo must keep passing: it is what a newcomer runs first.
.PHONY: run-demo
run-demo: $(HCASIM_BIN)
	$(HCASIM_BIN) run $(DEMO_SCENARIO)
CHECKS += run-demo
