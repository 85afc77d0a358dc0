# testbench/verbs.mk — the verbs end to end (testbench/test_verbs.cc): driver,
# firmware queue commands and the WQE engine (RTL); the model engine's
# refusal. Built by `make build/bin/test_verbs`; joins GTEST_BINS once the
# engine it tests has landed and it passes.
$(BIN)/test_verbs: $(OBJ)/testbench/test_verbs.o $(HCASIM_LIBS) $(FW_IMAGE)
	$(call link_bin,$(GTEST_LIBS))
