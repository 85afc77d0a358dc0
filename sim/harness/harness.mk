# sim/harness/ — the engines' harness: the device core's (core.c the
# controller and doorbell queue, core_dma.c the DMA block, core_link.c the
# loopback link; together the rtl device engine), the translation unit's
# (xu.c), the model device engine (xu_device.c) and the engine factory
# (dev_engine.c).
HCASIM_SRCS += sim/harness/core.c sim/harness/core_dma.c sim/harness/core_link.c \
               sim/harness/xu.c sim/harness/trace_window.c \
               sim/harness/xu_device.c sim/harness/dev_engine.c
