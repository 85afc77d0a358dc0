# hcasim — one non-recursive Makefile.
#
# Shared flags and the user-facing targets live here; each directory adds its
# sources, binaries and checks in its own fragment (DIR/DIR.mk), included
# below in dependency order. Everything built goes under build/.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:
MAKEFLAGS += --no-builtin-rules

# Quiet by default: one short line per step ("  CC      sim/device/hca_dev.c",
# "  VERILATE hca_core"); `make V=1` prints the full commands instead (as
# kbuild does). Errors and warnings are printed either way. In a recipe:
#   $(call say,TAG,WHAT)    the short line (nothing with V=1)
#   $(Q)command             the command (echoed only with V=1)
V ?= 0
ifeq ($(V),1)
Q :=
say = @:
else
Q := @
say = @printf '  %-8s %s\n' '$(1)' '$(2)'
endif

BUILD := build
OBJ   := $(BUILD)/obj
BIN   := $(BUILD)/bin
LIB   := $(BUILD)/lib
PYTHON ?= python3
NPROC := $(shell nproc 2>/dev/null || echo 2)

CC  := gcc
CXX := g++
SIM_DIRS := $(sort $(dir $(wildcard sim/*/*)))
INCLUDES := -Iabi/gen $(patsubst %/,-I%,$(SIM_DIRS)) -Imodel -Idriver
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CXXFLAGS ?= -O2 -g
# Sanitizer flags, for compiling and linking: empty, except in the build of
# `make sanitize` (testbench/sanitize.mk), which sets them on its command line.
SAN_FLAGS :=
ALL_CFLAGS := -std=c11 -D_DEFAULT_SOURCE $(WARN) $(INCLUDES) -MMD -MP $(CFLAGS) $(SAN_FLAGS)
ALL_CXXFLAGS := -std=c++17 $(WARN) $(INCLUDES) -MMD -MP $(CXXFLAGS) $(SAN_FLAGS)
LDLIBS := -lelf -lz -lpthread -lm
GTEST_LIBS := -lgtest_main -lgtest

# Debian packages `make deps` installs when one is missing (ARCHITECTURE.md).
DEB_PKGS := make gcc g++ python3 verilator iverilog yosys gcc-riscv64-unknown-elf \
            libelf-dev zlib1g-dev libgtest-dev libsystemc-dev z3 cvc5 gtkwave \
            clang libclang-rt-14-dev xvfb x11-apps netpbm lcov

# Filled in by the fragments.
HCASIM_SRCS :=   # C/C++ sources of libhcasim.a (harness, engines, driver)
HCASIM_LINK :=   # archives linked after libhcasim.a (the Verilated RTL)
GTEST_BINS  :=   # GoogleTest binaries that `make test` runs
CHECKS      :=   # make targets that `make test` runs as one check each
BENCHES     :=   # make targets that `make bench` runs, in order
ALL_TARGETS :=   # what `make all` builds
TEST_BUILDS :=   # what `make test` builds besides (before its checks run)
RUN_CMD     :=   # what `make run` runs after building

LIBHCASIM := $(LIB)/libhcasim.a
# What a binary linking the simulator depends on (expanded where used, after
# rtl/ has defined HCASIM_LINK).
HCASIM_LIBS = $(LIBHCASIM) $(filter %.a,$(HCASIM_LINK))

# hcasim links statically (a sanitizer build cannot): no dynamic loading, a
# quarter of a small scenario's run, and make test starts it hundreds of times.
EXE_STATIC := $(if $(SAN_FLAGS),,-static)

# link_bin: link $@ from its objects, libhcasim and the Verilated RTL; $(1) = extra libs.
# Linked aside and renamed: a check running the old binary meanwhile never
# finds it half written.
define link_bin
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@.tmp $(filter %.o,$^) $(LIBHCASIM) $(HCASIM_LINK) $(LDLIBS) $(1) && mv -f $@.tmp $@
endef

# Fragments, one or more per directory, in dependency order (rtl/ first: it
# defines HCASIM_LINK, which binaries elsewhere link).
include $(foreach d,abi rtl sim model firmware driver testbench vectors,$(sort $(wildcard $(d)/*.mk $(d)/*/*.mk)))

HCASIM_OBJS := $(patsubst %,$(OBJ)/%.o,$(basename $(HCASIM_SRCS)))

$(LIBHCASIM): $(HCASIM_OBJS)
	@mkdir -p $(@D)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OBJ)/%.o: %.cc
	@mkdir -p $(@D)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(ALL_CXXFLAGS) -c $< -o $@

$(OBJ)/%.o: %.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$<)
	$(Q)$(CXX) $(ALL_CXXFLAGS) -c $< -o $@

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

.PHONY: all deps run test bench clean lint synth abi check-abi check-abi-errors
all: $(ALL_TARGETS)

# Installs the Debian packages above only when one is missing; a no-op otherwise.
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all $(words $(DEB_PKGS)) packages present"; \
	else echo "deps: installing" $$missing; apt-get update && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; fi

# run and test first install what is missing, then build in parallel.
run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(Q)$(RUN_CMD)

# Every GoogleTest case counts as one test, every check as one; the last line
# of the output is "N passed, N failed".
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(GTEST_BINS) $(TEST_BUILDS)
	@$(PYTHON) testbench/run_tests.py --jobs $(NPROC) --make "$(MAKE) --no-print-directory -s" \
	    $(addprefix --gtest ,$(GTEST_BINS)) $(addprefix --check ,$(CHECKS))

bench: all
	@for b in $(BENCHES); do $(MAKE) --no-print-directory -s $$b || exit 1; done

clean:
	rm -rf $(BUILD)
