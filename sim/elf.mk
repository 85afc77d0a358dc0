# sim/elf.mk — the firmware ELF loader and the firmware core harness.
HCASIM_SRCS += sim/elf_load.c sim/elf_syms.c sim/fwcore.c

GTEST_BINS += $(BIN)/test_elf

$(BIN)/test_elf: $(OBJ)/testbench/test_elf.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))
