# abi/ — the device ABI's single source and its generated C, Verilog and Python.
# Generation is explicit (`make abi`), never implicit, so a stale abi/gen/ is
# caught by check-abi instead of being papered over by the build.
ABI_SRC := abi/hca.toml abi/abigen.py

abi:
	$(PYTHON) abi/abigen.py

check-abi:
	$(PYTHON) abi/abigen.py --check

# The generator refuses a broken source with the item at fault.
check-abi-errors:
	$(PYTHON) abi/test_abigen.py

CHECKS += check-abi check-abi-errors
