# sim/runner/regress.mk — the regression flow (`hcasim regress`, docs/regress.md).
#
#   make regress            the nightly list on every core (results in build/regress/latest)
#                           REGRESS_LIST=FILE, REGRESS_ARGS="--reseed 100 --engine model …"
#   regress-smoke           (in make test) a slice of it, through the real hcasim command
#   regress-selftest        (in make test) the flow's own tests: list errors, a failing,
#                           a timed-out and a refused job, JUnit/JSON, shards and merge
#
# hcasim finds regress.py beside itself (<exe dir>/../share/hcasim/), as it
# finds its firmware; the source path is the fallback.
REGRESS_PY := $(BUILD)/share/hcasim/regress.py
ALL_TARGETS += $(REGRESS_PY)
$(REGRESS_PY): sim/runner/regress.py
	@mkdir -p $(@D)
	$(Q)cp $< $@
$(OBJ)/sim/runner/hcasim.o: ALL_CFLAGS += -DHCASIM_REGRESS_DEFAULT='"$(abspath sim/runner/regress.py)"'

REGRESS_LIST ?= vectors/regress/nightly.list
REGRESS_ARGS ?=
.PHONY: regress regress-smoke regress-selftest
# --coverage: the nightly report ends with the functional points, holes first
regress: all $(GTEST_BINS)
	$(HCASIM_BIN) regress $(REGRESS_LIST) -j $(NPROC) --coverage $(REGRESS_ARGS)

regress-smoke: $(HCASIM_BIN) $(REGRESS_PY) $(BIN)/test_json
	@$(HCASIM_BIN) regress vectors/regress/smoke.list -j 2 --no-waves --out $(BUILD)/regress/smoke >$(BUILD)/regress-smoke.log 2>&1 \
	    || { cat $(BUILD)/regress-smoke.log; exit 1; }
	@tail -1 $(BUILD)/regress-smoke.log

regress-selftest: $(HCASIM_BIN) $(REGRESS_PY)
	$(Q)HCASIM_BIN=$(abspath $(HCASIM_BIN)) $(PYTHON) testbench/test_regress.py

CHECKS += regress-smoke regress-selftest
