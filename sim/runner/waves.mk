# sim/runner/waves.mk — looking at waves (docs/waves.md).
#
#   make wave FST=run.fst [MARKERS="issue=1200 inval=1350"] [WAVE_PNG=out.png]
#       writes the race view for that dump (abi/gtkwgen.py: signals grouped by
#       block, enums and ABI structs decoded, markers at the given cycles) as
#       build/waves/NAME.gtkw, then opens it in GTKWave when there is a display,
#       else renders the window to build/waves/NAME.png under Xvfb.
WAVE_DIR := $(BUILD)/waves
WAVE_NAME = $(basename $(notdir $(FST)))
WAVE_PNG ?= $(WAVE_DIR)/$(WAVE_NAME).png

.PHONY: wave
wave:
	@test -n "$(FST)" || { echo 'make wave: which dump? make wave FST=run.fst (hcasim run FILE --trace run.fst)'; exit 2; }
	@test -f "$(FST)" || { echo "make wave: $(FST): no such file"; exit 2; }
	@mkdir -p $(WAVE_DIR)
	$(Q)$(PYTHON) abi/gtkwgen.py view abi/hca.toml $(WAVE_DIR) --dump $(FST) --out $(WAVE_DIR)/$(WAVE_NAME).gtkw \
	    $(addprefix --marker ,$(MARKERS))
	@echo "wave: view $(WAVE_DIR)/$(WAVE_NAME).gtkw"
	@if [ -n "$$DISPLAY" ]; then gtkwave -a $(WAVE_DIR)/$(WAVE_NAME).gtkw; \
	 else $(MAKE) --no-print-directory -s wave-png GTKW=$(WAVE_DIR)/$(WAVE_NAME).gtkw PNG=$(WAVE_PNG); fi

# The view rendered headless: GTKWave in a WAVE_SCREEN Xvfb screen, grabbed.
WAVE_SCREEN ?= 1600x1000x24
.PHONY: wave-png
wave-png:
	@command -v xvfb-run >/dev/null && command -v xwd >/dev/null && command -v xwdtopnm >/dev/null \
	    || { echo "wave-png: needs xvfb, x11-apps and netpbm (make deps)"; exit 2; }
	@tmp=$$(mktemp -d); \
	 timeout 120 xvfb-run -a -s "-screen 0 $(WAVE_SCREEN)" sh -c \
	    'gtkwave -a $(GTKW) >'"$$tmp"'/gtkwave.log 2>&1 & sleep $${WAVE_SETTLE:-10}; xwd -root -silent >'"$$tmp"'/shot.xwd; kill $$! 2>/dev/null; true'; \
	 xwdtopnm $$tmp/shot.xwd 2>/dev/null | pnmtopng >$(PNG) && rm -rf $$tmp && echo "wave: rendered $(PNG)"

# (in make test) the view still fits the RTL: every signal it names is in a
# real dump, and the decoder reads an ABI struct back field by field.
.PHONY: wave-view
wave-view: $(HCASIM_BIN)
	@mkdir -p $(WAVE_DIR)/check
	@$(HCASIM_BIN) run $(DEMO_SCENARIO) --trace $(WAVE_DIR)/check/demo.fst --trace-to 3000 >/dev/null
	@$(PYTHON) abi/gtkwgen.py view abi/hca.toml $(WAVE_DIR)/check --dump $(WAVE_DIR)/check/demo.fst --marker m=100
	@got=$$($(PYTHON) -c 'print(format(0x123 << 160 | 0x1000 << 64 | 512 << 32 | 1, "0128x"))' \
	    | $(PYTHON) abi/gtkwgen.py decode abi/hca.toml dma_req | head -1); \
	 echo "$$got" | grep -q 'op=.* len=0x200 addr=0x1000 .*key=0x123' || { echo "wave-view: decode gave '$$got'"; exit 1; }; \
	 echo "wave-view: $$(grep -c '^hca_core' $(WAVE_DIR)/check/hcasim.gtkw) signals found in a real dump; dma_req decoded: $$got"
CHECKS += wave-view

# `hcasim run --waves-on-fail` / `--trace-when` write the race view beside
# their FST with abi/gtkwgen.py: found beside the executable, as regress.py
# is (<exe dir>/../share/hcasim/), the source tree's path as the fallback.
WAVES_SHARE := $(BUILD)/share/hcasim/gtkwgen.py $(BUILD)/share/hcasim/hca.toml
ALL_TARGETS += $(WAVES_SHARE)
$(BUILD)/share/hcasim/gtkwgen.py: abi/gtkwgen.py
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(BUILD)/share/hcasim/hca.toml: abi/hca.toml
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(OBJ)/sim/runner/scn_waves.o: ALL_CFLAGS += -DHCASIM_GTKWGEN_DEFAULT='"$(abspath abi/gtkwgen.py)"' \
    -DHCASIM_ABI_DEFAULT='"$(abspath abi/hca.toml)"'
$(HCASIM_BIN): | $(WAVES_SHARE)

# (in make test) waves on failure and --trace-when windows (testbench/test_waves.py):
# a breach under the no_drain firmware mutant leaves an FST whose window holds the
# breach and a .gtkw with its markers; two line triggers land in one file.
.PHONY: waves-selftest
# (firmware/firmware.mk, included after sim/, builds it; FW_BUILD is not set yet here)
waves-selftest: $(HCASIM_BIN) $(WAVES_SHARE) $(BUILD)/firmware/mutants/hcafw_no_drain.elf
	$(Q)HCASIM_BIN=$(abspath $(HCASIM_BIN)) FW_MUTANT=$(abspath $(BUILD)/firmware/mutants/hcafw_no_drain.elf) \
	    $(PYTHON) testbench/test_waves.py Waves 2>&1 | tail -1 | grep -q '^OK' \
	    || { HCASIM_BIN=$(abspath $(HCASIM_BIN)) FW_MUTANT=$(abspath $(BUILD)/firmware/mutants/hcafw_no_drain.elf) \
	         $(PYTHON) testbench/test_waves.py Waves; exit 1; }
	@echo "waves-selftest: waves on fail (breach in the window, markers) and two --trace-when windows in one FST"
CHECKS += waves-selftest

# docs/waves.md's race recipe, its pictures real and current: both outcomes of
# one race file (the invalidation wins, the access wins) traced on the RTL and
# rendered headless (sim/runner/waves_docs.py), into docs/img/ (committed).
DOCS_WAVES_FILE ?= vectors/directed/race_linv_read_mtu512_x16.jsonl
.PHONY: docs-waves
docs-waves: $(HCASIM_BIN) $(WAVES_SHARE)
	$(call say,WAVES,docs/img/race_*.png from $(DOCS_WAVES_FILE))
	$(Q)$(PYTHON) sim/runner/waves_docs.py --hcasim $(HCASIM_BIN) --file $(DOCS_WAVES_FILE) \
	    --work $(WAVE_DIR)/docs --out docs/img --make "$(MAKE)"
