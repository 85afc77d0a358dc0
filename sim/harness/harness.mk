# sim/harness/ — the engines' harness: the device core's (core.c the
# controller and doorbell queue, core_dma.c the DMA block, core_link.c the
# loopback link; over either core engine, rtl or model, the device engines),
# the translation unit's (xu.c) and the engine factory (dev_engine.c).
HCASIM_SRCS += sim/harness/core.c sim/harness/core_dma.c sim/harness/core_link.c \
               sim/harness/xu.c sim/harness/trace_window.c \
               sim/harness/dev_engine.c
