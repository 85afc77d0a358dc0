# sim/elf.mk — the firmware ELF loader and the firmware core harness.
HCASIM_SRCS += sim/iss/elf_load.c sim/iss/elf_syms.c sim/iss/fwcore.c

GTEST_BINS += $(BIN)/test_elf

$(BIN)/test_elf: $(OBJ)/testbench/test_elf.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
