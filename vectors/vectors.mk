# vectors/ — the translation unit's Python reference model and its golden vectors.
#
#   vectors-ref      unit tests of the reference model itself
#   vectors-fresh    the committed vectors/xlate/*.vec are what the generator writes
#   test_xu_vectors  replays every .vec on both C engines (RTL and model)
#   vectors-soak     (not part of `make test`) the replay over fresh random seeds:
#                    make vectors-soak SOAK_SEEDS="2 3 4" SOAK_COUNT=6000
# Regenerate after changing the reference or the generator:
#   python3 vectors/gen_xlate_vectors.py   (then commit vectors/xlate/)
XLATE_VEC_DIR := vectors/xlate

.PHONY: vectors-ref vectors-fresh vectors-soak
vectors-ref:
	$(PYTHON) vectors/test_xlate_ref.py

vectors-fresh:
	$(PYTHON) vectors/gen_xlate_vectors.py --check --out $(XLATE_VEC_DIR)

CHECKS += vectors-ref vectors-fresh

# The replay finds the .vec files under the repo root it was built in
# (overridable at run time with XU_VEC_DIR).
$(OBJ)/testbench/test_xu_vectors.o: ALL_CXXFLAGS += -DXU_VEC_DIR_DEFAULT='"$(CURDIR)/$(XLATE_VEC_DIR)"'

GTEST_BINS += $(BIN)/test_xu_vectors
$(BIN)/test_xu_vectors: $(OBJ)/testbench/test_xu_vectors.o $(HCASIM_LIBS)
	$(call link_bin,$(GTEST_LIBS))

SOAK_SEEDS ?= 2 3 4 5 6 7 8 9
SOAK_COUNT ?= 6000
vectors-soak: $(BIN)/test_xu_vectors
	@for s in $(SOAK_SEEDS); do d=$(BUILD)/vectors-soak/seed$$s; \
	    $(PYTHON) vectors/gen_xlate_vectors.py --seed $$s --count $(SOAK_COUNT) --out $$d >/dev/null && \
	    XU_VEC_DIR=$$d $(BIN)/test_xu_vectors --gtest_filter='Golden/*' --gtest_brief=1 || \
	    { echo "vectors-soak: seed $$s failed (vectors in $$d)"; exit 1; }; done

# Race sweeps of invalidation (LOCAL_INV, SEND_WITH_INV) against multi-chunk
# RDMA WRITE/READ: vectors/directed/race_*.jsonl, generated (`make scenarios`
# runs them). races-fresh: the committed files are what the generator writes.
# Regenerate after changing it: python3 vectors/gen_mm_races.py (then commit).
.PHONY: races-fresh
races-fresh:
	$(PYTHON) vectors/gen_mm_races.py --check --out vectors/directed

CHECKS += races-fresh

# Memory-management soak: random mixed traffic (FAST_REG_MR, LOCAL_INV, SEND_WITH_INV,
# RDMA_READ_WITH_INV, WRITE/READ/SEND through fast-reg and regular MRs, several QP pairs at once):
# vectors/directed/soak_mm_s*.jsonl, the seeds in vectors/gen_mm_soak.py's FIXED_SEEDS (`make scenarios`
# runs them). soak-fresh: the committed files are what the generator writes. Regenerate after changing
# it: python3 vectors/gen_mm_soak.py (then commit). More seeds, for a hunt:
#   python3 vectors/gen_mm_soak.py --seed N --out DIR && build/bin/hcasim run DIR/soak_mm_sN.jsonl
.PHONY: soak-fresh
soak-fresh:
	$(PYTHON) vectors/gen_mm_soak.py --check --out vectors/directed

CHECKS += soak-fresh

# Race sweeps of peer_invalidate against multi-chunk RDMA into and out of peer
# memory: vectors/directed/peer_race_*.jsonl (`make scenarios` runs them on
# both engines). peer-races-fresh: the committed files are what the generator
# writes. That every sweep fails on the firmware whose invalidate callback
# returns before the DMA drain is the mutation matrix's (vectors/mutation.mk).
.PHONY: peer-races-fresh
peer-races-fresh:
	$(PYTHON) vectors/gen_peer_races.py --check --out vectors/directed

CHECKS += peer-races-fresh


# Race sweeps of LOCAL_INV (of a KLM entry's MR, and of the indirect MR) against
# multi-chunk RDMA through an indirect key: vectors/directed/klm_race_*.jsonl
# (`make scenarios` runs them on both engines; test_klm_mutant proves the entry
# sweeps fail without the entry check). klm-races-fresh: the committed files are
# what vectors/gen_klm_races.py writes.
.PHONY: klm-races-fresh
klm-races-fresh:
	$(PYTHON) vectors/gen_klm_races.py --check --out vectors/directed

CHECKS += klm-races-fresh

# The constrained-random generator (vectors/gen_random.py: every feature served,
# every invalidation kind racing traffic, faults, QPs recycled; docs/verification.md).
# Its fixed seeds are vectors/directed/random_s*.jsonl (`make scenarios` runs them on
# both engines); random-fresh: the committed files are what it writes. Regenerate
# after changing it: python3 vectors/gen_random.py (then commit).
.PHONY: random-fresh soak
random-fresh:
	$(PYTHON) vectors/gen_random.py --check --out vectors/directed

CHECKS += random-fresh

# make soak DURATION=10m [ENGINE=model|rtl] [SEED=N] [SOAK_JOBS=1] [SOAK_ARGS="--both-every 25 ..."]
# streams gen_random.py chunks through the device for DURATION (vectors/soak.py): a
# progress line, every 25th chunk also on --engine both, a summary (build/soak/);
# exit 1 at the first breach, mismatch or divergence, with its reproduce command.
DURATION ?= 10m
ENGINE ?= model
SOAK_JOBS ?= 1
soak: $(BIN)/hcasim $(FW_IMAGE)
	$(call say,SOAK,$(ENGINE) for $(DURATION))
	$(Q)$(PYTHON) vectors/soak.py --duration $(DURATION) --engine $(ENGINE) $(if $(SEED),--seed $(SEED)) \
	    --jobs $(SOAK_JOBS) $(SOAK_ARGS)

# The soak's own test: a short soak passes, the same on the qp_no_drain
# firmware fails as a breach with its reproduce command (vectors/test_soak.py).
.PHONY: soak-selftest
soak-selftest: $(BIN)/hcasim $(FW_IMAGE) $(FW_MUTANT_QP_NO_DRAIN)
	$(call say,TEST,soak-selftest)
	$(Q)$(PYTHON) vectors/test_soak.py $(BIN)/hcasim $(FW_MUTANT_QP_NO_DRAIN) $(BUILD)/soak-selftest

CHECKS += soak-selftest
