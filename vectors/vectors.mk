# vectors/ — the translation unit's Python reference model and its golden vectors.
#
#   vectors-ref    unit tests of the reference model itself
#   vectors-fresh  the committed vectors/xlate/*.vec are what the generator writes
#   test_xu_vectors  replays every .vec on both C engines (RTL and model)
# Regenerate after changing the reference or the generator:
#   python3 vectors/gen_xlate_vectors.py   (then commit vectors/xlate/)
XLATE_VEC_DIR := vectors/xlate

.PHONY: vectors-ref vectors-fresh
vectors-ref:
	$(PYTHON) vectors/test_xlate_ref.py

vectors-fresh:
	$(PYTHON) vectors/gen_xlate_vectors.py --check --out $(XLATE_VEC_DIR)

CHECKS += vectors-ref vectors-fresh

# test_xu_vectors (testbench/test_xu_vectors.cc) joins GTEST_BINS once the RTL engine links.
