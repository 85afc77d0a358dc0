# testbench/scenario.mk — tests of the JSON parser and of `hcasim run`.
GTEST_BINS += $(BIN)/test_json
$(BIN)/test_json: $(OBJ)/testbench/test_json.o $(OBJ)/sim/json.o
	@mkdir -p $(@D)
	$(CXX) -o $@ $^ $(GTEST_LIBS) -lpthread
