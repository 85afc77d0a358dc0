# sim/xu.mk — the translation-unit harness (sim/xu.h), shared by both engines.
HCASIM_SRCS += sim/xu.c sim/trace_window.c
