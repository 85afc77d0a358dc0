# sim/core.mk — the engine core's harness (sim/harness/core.c: DMA block, packet
# buffers, link, doorbells, firmware port, external translation client) and
# the protection checker (sim/check/protcheck.c).
HCASIM_SRCS += sim/check/protcheck.c
HCASIM_SRCS += sim/harness/core.c
