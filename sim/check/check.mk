# sim/check/ — the protection checker, fed by the device's event log.
HCASIM_SRCS += sim/check/protcheck.c
