# testbench/sanitize.mk — `make sanitize`: every GoogleTest suite, and a slice
# of `hcasim run` scenarios, built with AddressSanitizer + UndefinedBehavior-
# Sanitizer (leaks checked at exit; any UB is fatal) and run clean.
#
# The instrumented build is a second build of the tree in build/asan
# (BUILD=build/asan, SAN_FLAGS on the command line of a sub-make, firmware
# included: it is cross-compiled, never instrumented); it links the plain
# Verilated archives of build/verilated (VL_BUILD=build), which are not ours
# to sanitize. The last line of the output is "N passed, N failed", as in
# `make test`: each GoogleTest case counts as one, each scenario file (on
# each of its engines) as one.

SAN_BUILD  := $(BUILD)/asan
SAN_ON     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_MAKE   := $(MAKE) --no-print-directory BUILD=$(SAN_BUILD) VL_BUILD=$(BUILD) SAN_FLAGS='$(SAN_ON)'
SAN_ENV    := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The scenario slice: the demo, directed runs over the main paths (fast
# registration, SEND_WITH_INV over several packets, key rotation, RNR, a
# malformed WQE, an invalidation race, page-list registration, the model
# engine, a mixed-traffic soak, peer memory), and malformed files (refused with exit 2,
# which must stay a refusal, not a sanitizer report).
SAN_SCENARIOS := vectors/demo.jsonl \
    $(addprefix vectors/directed/,$(addsuffix .jsonl,mm_fast_reg_success mm_send_inv_multi_packet \
        mm_key_rotation err_rnr_then_recv err_malformed_wqe race_linv_write_mtu256_x16 \
        registration_pages mkey_reuse query_device_small_tables soak_mm_s6 peer_invalidate_fences \
        peer_write_read_seams)) \
    $(addprefix vectors/malformed/,$(addsuffix .jsonl,bad_json unknown_op missing_field \
        out_of_range_u64 hex_odd late_typo page_list_too_long freed_page_list keyref_unbound not_object))

# The binaries as the sub-make names them (here GTEST_BINS are under $(BIN)).
SAN_BINS = $(patsubst $(BIN)/%,$(SAN_BUILD)/bin/%,$(GTEST_BINS))

.PHONY: sanitize
sanitize:
	@+$(MAKE) --no-print-directory -j$(NPROC) $(filter %.a,$(HCASIM_LINK))
	@+$(SAN_MAKE) -j$(NPROC) $(SAN_BINS) $(SAN_BUILD)/bin/hcasim
	@$(SAN_ENV) $(PYTHON) testbench/run_tests.py --jobs $(NPROC) --tail 150 --elapsed sanitize \
	    --results $(SAN_BUILD)/test-results --make "$(SAN_MAKE) -s" \
	    $(addprefix --gtest ,$(SAN_BINS)) $(addprefix --check sanitize-run/,$(SAN_SCENARIOS))

# One scenario file under the sanitizers, on each engine its "# engines:" line
# names (a directed file without one: both, as `make scenarios`; any
# other: rtl, as `make run`); malformed files on one engine, expecting exit 2.
sanitize-run/%: $(HCASIM_BIN)
	@[ -n "$(SAN_FLAGS)" ] || { echo "sanitize-run: runs in make sanitize's build only"; exit 2; }
	@engines=$$(sed -n 's/^# engines: *//p' $* | head -1); want=0; \
	case $* in vectors/directed/*) [ -n "$$engines" ] || engines="both";; \
	    vectors/malformed/*) want=2; engines=rtl;; *) engines=$${engines:-rtl};; esac; \
	for e in $$engines; do \
	    out=$$($(SAN_ENV) $(HCASIM_BIN) run $* --engine $$e 2>&1); rc=$$?; \
	    if [ $$rc != $$want ] || echo "$$out" | grep -qE 'ERROR: [A-Za-z]+Sanitizer|runtime error:'; then \
	        echo "$$out" | tail -n 150; \
	        echo "sanitize-run: $* (engine $$e): exit $$rc, expected $$want without a sanitizer report"; exit 1; fi; \
	    echo "sanitize-run: $* (engine $$e): exit $$rc, clean"; \
	done
