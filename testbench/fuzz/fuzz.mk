# testbench/fuzz/fuzz.mk — coverage-guided fuzzing with libFuzzer (Debian's
# clang + libclang-rt), ASan + UBSan on, of the inputs a user hands hcasim:
#
#   fuzz_scenario   the scenario parser and validator (scn_load_text)
#   fuzz_elf        the firmware ELF loader (elf_load_mem over fwcore's memory
#                   map) and the symbol reader behind --fw-profile
#   fuzz_mailbox    the command mailbox of a live device: random command words
#                   and mailbox layouts through the reference driver; the
#                   firmware (on the ISS) must answer each and stay alive,
#                   guided by the firmware words it executed (extra counters)
#   fuzz_wqe        raw send-queue bytes on a connected QP pair of a live
#                   device: the checker silent, the firmware alive, another QP
#                   pair still served, the fuzzed pair recovered by RESET +
#                   connect; guided by the model engine's own code (compiled
#                   in with coverage) and the firmware words executed
#   fuzz_wire       the co-simulation socket protocol (sim/cosim/hca_wire.h):
#                   random messages from a client into a real `hcasim serve`
#                   session over a socket pair, a live device behind it; every
#                   message answered exactly as the protocol says
#   fuzz_client     the co-simulation client library (hca_client.h) against
#                   a fake server sending random messages while the client
#                   runs a driver's requests
#
# Each harness also holds its API's contract (a refusal names the line/field;
# a refused image writes no RAM), so a wrong answer is a finding too.
#
#   make fuzz [FUZZ_RUNS=1000000] [FUZZ_TARGETS="scenario elf"]
#       each target FUZZ_RUNS executions from its corpus (build/fuzz/corpus/T,
#       seeded from vectors/ and the built firmware image, kept between runs),
#       with a dictionary; a crash is written to build/fuzz/artifacts/T/ and
#       fails the target. Turn each finding into a regression input: copy it
#       to testbench/fuzz/regress/T/ (and fix the bug).
#   fuzz-smoke (in make test) every regression input and seed of each target,
#       then 20,000 fresh executions (mailbox: 10,000; wire, wqe: 2,000).
FUZZ_CC := clang
FUZZ_CXX := clang++
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -g -O1 -Wall -Wextra -Werror $(INCLUDES) $(FUZZ_SAN)
FUZZ_COV := -fsanitize=fuzzer-no-link
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_OBJ := $(FUZZ_DIR)/obj
# The model engine (fuzz_wqe) runs every device cycle: edge and branch
# counters guide the fuzzer through it, but comparison tracing there (every
# wire compared each settle pass) took 60% of the time and adds no value the
# dictionary of ABI words lacks.
$(FUZZ_OBJ)/model/%.o: FUZZ_COV := -fsanitize-coverage=inline-8bit-counters,pc-table
FUZZ_RUNS ?= 1000000
FUZZ_TARGETS ?= scenario elf mailbox wqe wire client
FUZZ_SMOKE_RUNS := 20000
# A mailbox or WQE input runs the firmware on the ISS and the device (~0.2 ms,
# ~2 ms each, ASan on): fewer in the smoke run.
FUZZ_SMOKE_RUNS_mailbox := 10000
FUZZ_SMOKE_RUNS_wqe := 2000

FUZZ_SRCS_scenario := testbench/fuzz/fuzz_scenario.c sim/runner/json.c sim/runner/scn_schema.c sim/runner/scn_diag.c \
                      sim/runner/scn_fields.c sim/runner/scn_names.c sim/runner/scn_load.c
FUZZ_SRCS_elf := testbench/fuzz/fuzz_elf.c sim/iss/elf_load.c sim/iss/elf_syms.c
# The parser's helpers live beside the runner (scn_run.c), which reaches the
# device: the rest of the simulator comes, uninstrumented, from libhcasim.
FUZZ_LIBS_scenario = $(HCASIM_LIBS)
FUZZ_SRCS_mailbox := testbench/fuzz/fuzz_mailbox.c testbench/fuzz/fuzz_live.c
FUZZ_LIBS_mailbox = $(HCASIM_LIBS) $(FW_IMAGE)
FUZZ_SEEDS_mailbox := $(FUZZ_DIR)/seeds/mailbox
FUZZ_DICT_mailbox := $(FUZZ_DIR)/mailbox.dict
FUZZ_SRCS_wqe := testbench/fuzz/fuzz_wqe.c testbench/fuzz/fuzz_live.c $(sort $(wildcard model/*.c))
FUZZ_LIBS_wqe = $(HCASIM_LIBS) $(FW_IMAGE)
FUZZ_SEEDS_wqe := $(FUZZ_DIR)/seeds/wqe
FUZZ_DICT_wqe := $(FUZZ_DIR)/wqe.dict
FUZZ_SRCS_wire := testbench/fuzz/fuzz_wire.c testbench/fuzz/fuzz_records.c sim/runner/hca_serve.c sim/cosim/hca_wire.c
FUZZ_LIBS_wire = $(HCASIM_LIBS) $(FW_IMAGE)
FUZZ_SEEDS_wire := $(FUZZ_DIR)/seeds/wire
FUZZ_DICT_wire := $(FUZZ_DIR)/wire.dict
FUZZ_SMOKE_RUNS_wire := 2000
FUZZ_SRCS_client := testbench/fuzz/fuzz_client.c testbench/fuzz/fuzz_records.c sim/cosim/hca_client.c sim/cosim/hca_wire.c
FUZZ_LIBS_client = $(HCASIM_LIBS)
FUZZ_SEEDS_client := $(FUZZ_DIR)/seeds/client
FUZZ_DICT_client := $(FUZZ_DICT_wire)
FUZZ_SEEDS_scenario := vectors/demo.jsonl $(wildcard vectors/directed/*.jsonl vectors/malformed/*.jsonl)
FUZZ_SEEDS_elf := $(FW_IMAGE)
FUZZ_DICT_scenario := $(FUZZ_DIR)/scenario.dict
# Scenario files of a few KiB reach every op and field; the 100 KiB soaks
# would only slow each execution down.
FUZZ_OPTS_scenario := -max_len=4096
# fuzz_wqe reads up to 4 WQEs of 128 bytes: longer inputs' tails are never read.
FUZZ_OPTS_wqe := -max_len=512
FUZZ_DICT_elf := testbench/fuzz/elf.dict

$(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CLANG,$<)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_COV) -MMD -MP -c $< -o $@

$(FUZZ_DICT_scenario): testbench/fuzz/make_dict.py $(FUZZ_SEEDS_scenario)
	@mkdir -p $(@D)
	$(Q)$(PYTHON) $< $@ $(FUZZ_SEEDS_scenario)

$(FUZZ_DICT_mailbox): testbench/fuzz/make_abi_seeds.py abi/hca.toml
	@mkdir -p $(@D)
	$(Q)$(PYTHON) $< abi/hca.toml $(FUZZ_SEEDS_mailbox) $@
$(FUZZ_SEEDS_mailbox): $(FUZZ_DICT_mailbox) ; @:
$(FUZZ_DICT_wqe): testbench/fuzz/make_abi_seeds.py abi/hca.toml
	@mkdir -p $(@D)
	$(Q)$(PYTHON) $< --wqe abi/hca.toml $(FUZZ_SEEDS_wqe) $@
$(FUZZ_SEEDS_wqe): $(FUZZ_DICT_wqe) ; @:
# The wire harness writes its own seeds and dictionary from hca_wire.h.
$(FUZZ_DICT_wire): $(FUZZ_DIR)/fuzz_wire
	@rm -rf $(FUZZ_SEEDS_wire) && mkdir -p $(FUZZ_SEEDS_wire)
	$(Q)HCASIM_FUZZ_WIRE_SEEDS=$(FUZZ_SEEDS_wire) HCASIM_FUZZ_WIRE_DICT=$@ $<
$(FUZZ_SEEDS_wire): $(FUZZ_DICT_wire) ; @:
$(FUZZ_SEEDS_client): $(FUZZ_DIR)/fuzz_client
	@rm -rf $@ && mkdir -p $@
	$(Q)HCASIM_FUZZ_CLIENT_SEEDS=$@ $<

# Seeds are files or directories of them.
fuzz_seed_files = $$$$(find $(1) -type f)

# One target T's binary, run and smoke run.
define FUZZ_TARGET
$(FUZZ_DIR)/fuzz_$(1): $(patsubst %.c,$(FUZZ_OBJ)/%.o,$(FUZZ_SRCS_$(1))) $(FUZZ_LIBS_$(1))
	@mkdir -p $$(@D)
	$$(call say,LD,$$@)
	$$(Q)$(FUZZ_CXX) $(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$(filter %.o,$$^) $(if $(FUZZ_LIBS_$(1)),$(LIBHCASIM) $(HCASIM_LINK)) $(LDLIBS)

.PHONY: fuzz-run-$(1) fuzz-smoke-$(1)
fuzz-run-$(1): $(FUZZ_DIR)/fuzz_$(1) $(FUZZ_DICT_$(1)) $(FUZZ_SEEDS_$(1))
	@mkdir -p $(FUZZ_DIR)/corpus/$(1) $(FUZZ_DIR)/artifacts/$(1)
	@cp $(call fuzz_seed_files,$(FUZZ_SEEDS_$(1))) $(FUZZ_DIR)/corpus/$(1)/
	@echo "fuzz $(1): $(FUZZ_RUNS) executions (corpus $(FUZZ_DIR)/corpus/$(1))"
	@$(FUZZ_DIR)/fuzz_$(1) -runs=$(FUZZ_RUNS) -dict=$(FUZZ_DICT_$(1)) $(FUZZ_OPTS_$(1)) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)/ $(FUZZ_DIR)/corpus/$(1) >$(FUZZ_DIR)/$(1).log 2>&1 \
	    || { tail -40 $(FUZZ_DIR)/$(1).log; echo "fuzz $(1): FINDING in $(FUZZ_DIR)/artifacts/$(1)/"; exit 1; }
	@echo "fuzz $(1): $$$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_DIR)/$(1).log) executions," \
	    "0 crashes, corpus $$$$(ls $(FUZZ_DIR)/corpus/$(1) | wc -l) inputs," \
	    "peak RSS $$$$(sed -n 's/^stat::peak_rss_mb: *//p' $(FUZZ_DIR)/$(1).log) MB"

fuzz-smoke-$(1): $(FUZZ_DIR)/fuzz_$(1) $(FUZZ_DICT_$(1)) $(FUZZ_SEEDS_$(1))
	@rm -rf $(FUZZ_DIR)/smoke/$(1) && mkdir -p $(FUZZ_DIR)/smoke/$(1)/corpus $(FUZZ_DIR)/smoke/$(1)/artifacts
	@reg=$$$$(ls testbench/fuzz/regress/$(1)/* 2>/dev/null); \
	 $(FUZZ_DIR)/fuzz_$(1) $$$$reg $(call fuzz_seed_files,$(FUZZ_SEEDS_$(1))) >$(FUZZ_DIR)/smoke/$(1)/replay.log 2>&1 \
	    || { tail -30 $(FUZZ_DIR)/smoke/$(1)/replay.log; echo "fuzz-smoke $(1): a regression input or seed fails"; exit 1; }; \
	 cp $(call fuzz_seed_files,$(FUZZ_SEEDS_$(1))) $(FUZZ_DIR)/smoke/$(1)/corpus/ && \
	 $(FUZZ_DIR)/fuzz_$(1) -runs=$(or $(FUZZ_SMOKE_RUNS_$(1)),$(FUZZ_SMOKE_RUNS)) -seed=1 -dict=$(FUZZ_DICT_$(1)) $(FUZZ_OPTS_$(1)) \
	    -artifact_prefix=$(FUZZ_DIR)/smoke/$(1)/artifacts/ $(FUZZ_DIR)/smoke/$(1)/corpus >$(FUZZ_DIR)/smoke/$(1)/fuzz.log 2>&1 \
	    || { tail -30 $(FUZZ_DIR)/smoke/$(1)/fuzz.log; echo "fuzz-smoke $(1): FINDING in $(FUZZ_DIR)/smoke/$(1)/artifacts/"; exit 1; }; \
	 echo "fuzz-smoke $(1): $$$$(echo $$$$reg | wc -w) regression inputs, $$$$(find $(FUZZ_SEEDS_$(1)) -type f | wc -l) seeds and $(or $(FUZZ_SMOKE_RUNS_$(1)),$(FUZZ_SMOKE_RUNS)) fresh executions, 0 crashes"
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_TARGET,$(t))))

# make fuzz-long [FUZZ_LONG_RUNS=1000000] [FUZZ_LONG_TARGETS="mailbox wqe"]
#   the live-device harnesses to 10^6 executions each (not in make test):
#   FUZZ_LONG_RUNS on the model engine (a live device with the same
#   firmware, the RTL's cycle-exact twin) from the kept corpus, then the RTL
#   slice: HCASIM_FUZZ_ENGINE=rtl over every corpus input, then fresh ones up
#   to FUZZ_LONG_RTL_RUNS_T executions. Each run's line (executions, wall
#   time, rate, crashes) goes to $(FUZZ_DIR)/long/summary.txt.
FUZZ_LONG_RUNS ?= 1000000
FUZZ_LONG_TARGETS ?= mailbox wqe
FUZZ_LONG_RTL_RUNS_mailbox ?= 20000
FUZZ_LONG_RTL_RUNS_wqe ?= 2000
# An input bounds its device cycles (fuzz_wqe: 200,000 per settle), so one
# that runs a minute is a hang.
FUZZ_LONG_OPTS := -timeout=60

define FUZZ_LONG
.PHONY: fuzz-long-$(1)
fuzz-long-$(1): $(FUZZ_DIR)/fuzz_$(1) $(FUZZ_DICT_$(1)) $(FUZZ_SEEDS_$(1))
	@mkdir -p $(FUZZ_DIR)/corpus/$(1)
	@cp $(call fuzz_seed_files,$(FUZZ_SEEDS_$(1))) $(FUZZ_DIR)/corpus/$(1)/
	$(Q)testbench/fuzz/fuzz_long.sh $(1) $(FUZZ_DIR)/fuzz_$(1) model $(FUZZ_LONG_RUNS) $(FUZZ_DIR)/corpus/$(1) \
	    $(FUZZ_DIR)/artifacts/$(1) $(FUZZ_DIR)/long/$(1).model.log $(FUZZ_DIR)/long/summary.txt \
	    -dict=$(FUZZ_DICT_$(1)) $(FUZZ_OPTS_$(1)) $(FUZZ_LONG_OPTS)
	$(Q)testbench/fuzz/fuzz_long.sh $(1) $(FUZZ_DIR)/fuzz_$(1) rtl $(FUZZ_LONG_RTL_RUNS_$(1)) $(FUZZ_DIR)/corpus/$(1) \
	    $(FUZZ_DIR)/artifacts/$(1) $(FUZZ_DIR)/long/$(1).rtl.log $(FUZZ_DIR)/long/summary.txt \
	    -dict=$(FUZZ_DICT_$(1)) $(FUZZ_OPTS_$(1)) $(FUZZ_LONG_OPTS)
endef
$(foreach t,$(FUZZ_LONG_TARGETS),$(eval $(call FUZZ_LONG,$(t))))

.PHONY: fuzz fuzz-smoke fuzz-long
fuzz-long: $(foreach t,$(FUZZ_LONG_TARGETS),fuzz-long-$(t))
fuzz: $(foreach t,$(FUZZ_TARGETS),fuzz-run-$(t))
fuzz-smoke: $(foreach t,$(FUZZ_TARGETS),fuzz-smoke-$(t))

CHECKS += $(foreach t,$(FUZZ_TARGETS),fuzz-smoke-$(t))
-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)
