# testbench/scenario.mk — tests of the JSON parser and of `hcasim run`.
GTEST_BINS += $(BIN)/test_json
$(BIN)/test_json: $(OBJ)/testbench/test_json.o $(OBJ)/sim/runner/json.o
	@mkdir -p $(@D)
	$(call say,LD,$@)
	$(Q)$(CXX) $(SAN_FLAGS) -o $@ $^ $(GTEST_LIBS) -lpthread

# test_scenario runs the real hcasim binary (and calls the library);
# test_scn_both.cc is --engine both's part of it.
GTEST_BINS += $(BIN)/test_scenario
$(OBJ)/testbench/test_scenario.o $(OBJ)/testbench/test_scn_both.o: ALL_CXXFLAGS += \
    -DHCASIM_BIN='"$(abspath $(BIN))/hcasim"' -DSCN_VECTORS='"$(abspath vectors)"' \
    -DSCN_TMP='"$(abspath $(BUILD))/test-results"'
$(BIN)/test_scenario: $(OBJ)/testbench/test_scenario.o $(OBJ)/testbench/test_scn_both.o $(HCASIM_LIBS) $(HCASIM_BIN)
	$(call link_bin,$(GTEST_LIBS))

# `make scenarios`: every directed scenario, on each engine its "# engines:"
# line names (default: both — the RTL and the model devices side by side,
# each held to the scenario and the model held to the RTL, so a divergence
# fails the suite). A failure prints hcasim's FILE:LINE message and names the
# file and engine.
SCENARIO_FILES := $(sort $(wildcard vectors/directed/*.jsonl))
.PHONY: scenarios
scenarios: $(HCASIM_BIN)
	@fail=0; n=0; for f in $(SCENARIO_FILES); do \
	    engines=$$(sed -n 's/^# engines: *//p' $$f | head -1); [ -n "$$engines" ] || engines="both"; \
	    for e in $$engines; do n=$$((n+1)); \
	        if ! out=$$($(HCASIM_BIN) run $$f --engine $$e 2>&1); then \
	            echo "$$out" | grep -v '^  '; echo "scenarios: FAILED $$f (engine $$e)"; fail=1; fi; \
	    done; done; \
	if [ $$fail = 0 ]; then echo "scenarios: $$n runs of $(words $(SCENARIO_FILES)) files passed"; else exit 1; fi
CHECKS += scenarios
