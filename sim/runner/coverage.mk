# sim/runner/coverage.mk — code coverage of the RTL core (docs/regress.md "Coverage").
#
#   build/coverage/hcasim     hcasim with hca_core Verilated --coverage-line
#                             --coverage-user (its own folder, by vl_rules of
#                             rtl/rtl.mk, as the mutants are); each RTL engine
#                             writes $HCASIM_COVERAGE_DIR/hca_core-PID-N.dat
#   make coverage             the smoke list through it (hcasim regress --coverage):
#                             the runs' .dat merged (verilator_coverage), lcov
#                             HTML (genhtml), and the functional points of every
#                             run's --json, holes first (build/coverage/report/)
COV_DIR := $(BUILD)/coverage
COV_VL_DIR := $(COV_DIR)/verilated
COV_BIN := $(COV_DIR)/hcasim
COV_VL_FLAGS := --coverage-line --coverage-user
COV_LIST ?= vectors/regress/smoke.list
COV_ARGS ?=
$(eval $(call vl_rules,$(CORE_TOP),$(COV_VL_DIR),,,$(COV_VL_FLAGS)))

# The shim and Verilator's coverage runtime, compiled for a coverage model.
COV_SHIM_CXXFLAGS := $(filter-out -DVM_COVERAGE=0,$(VL_SHIM_CXXFLAGS)) -DVM_COVERAGE=1
$(COV_DIR)/core_rtl.o: sim/verilated/core_rtl.cpp sim/verilated/vl_engine.h $(COV_VL_DIR)/$(CORE_PREFIX).h
	@mkdir -p $(@D)
	$(call say,CXX,$< (coverage))
	$(Q)$(CXX) $(ALL_CXXFLAGS) -I$(COV_VL_DIR) $(COV_SHIM_CXXFLAGS) -c $< -o $@
$(COV_DIR)/verilated_cov.o: $(VERILATOR_ROOT)/include/verilated_cov.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$< (coverage))
	$(Q)$(CXX) -std=c++17 -O2 $(COV_SHIM_CXXFLAGS) -w -c $< -o $@
$(COV_BIN): $(OBJ)/sim/runner/hcasim.o $(COV_DIR)/core_rtl.o $(COV_DIR)/verilated_cov.o $(LIBHCASIM) \
        $(COV_VL_DIR)/$(CORE_PREFIX)__ALL.a $(filter-out $(CORE_MODEL_A),$(filter %.a,$(HCASIM_LINK)))
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $(filter %.o,$^) $(LIBHCASIM) \
	    $(patsubst $(CORE_MODEL_A),$(COV_VL_DIR)/$(CORE_PREFIX)__ALL.a,$(HCASIM_LINK)) $(LDLIBS)

.PHONY: coverage coverage-selftest
coverage: $(COV_BIN) $(REGRESS_PY) $(WAVES_SHARE) all
	$(COV_BIN) regress $(COV_LIST) --coverage --engine rtl --no-waves --out $(COV_DIR)/report -j $(NPROC) $(COV_ARGS)

# (in make test) a coverage run over two scenarios: known functional points hit,
# holes first, RTL lines merged to lcov HTML (testbench/test_waves.py Coverage).
TEST_BUILDS += $(COV_BIN)
coverage-selftest: $(COV_BIN) $(REGRESS_PY) $(WAVES_SHARE)
	$(Q)HCASIM_COV_BIN=$(abspath $(COV_BIN)) $(PYTHON) testbench/test_waves.py Coverage 2>&1 | tail -1 | grep -q '^OK' \
	    || { HCASIM_COV_BIN=$(abspath $(COV_BIN)) $(PYTHON) testbench/test_waves.py Coverage; exit 1; }
	@echo "coverage-selftest: functional points from the runs, holes first, RTL line coverage in lcov HTML"
CHECKS += coverage-selftest
