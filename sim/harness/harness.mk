# sim/harness/ — the engines' harness: the device core's (core.c: DMA block,
# packet buffers, link, doorbells, firmware port, key-check probes; the rtl
# device engine), the translation unit's (xu.c), the model device engine
# (xu_device.c) and the engine factory (dev_engine.c).
HCASIM_SRCS += sim/harness/core.c sim/harness/xu.c sim/harness/trace_window.c \
               sim/harness/xu_device.c sim/harness/dev_engine.c
