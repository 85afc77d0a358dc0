# testbench/layers.mk — check-layers: every #include of the tree follows the
# layer table (abi < firmware; iface < model, verilated, mem, iss, check <
# harness < device < runner; driver on the ABI and its host boundary only),
# written once in testbench/check_layers.py. The checker's own self-test runs
# first: a tiny tree whose forbidden includes must be reported, FILE:LINE, and
# whose allowed ones must not.
.PHONY: check-layers
check-layers:
	$(PYTHON) testbench/check_layers.py --self-test
	$(PYTHON) testbench/check_layers.py

CHECKS += check-layers
