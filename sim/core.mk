# sim/core.mk — the engine core's harness (sim/core.c: DMA block, packet
# buffers, link, doorbells, firmware port, external translation client) and
# the protection checker (sim/protcheck.c).
HCASIM_SRCS += sim/protcheck.c
HCASIM_SRCS += sim/core.c
